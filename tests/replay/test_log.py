"""Reading a JSON-lines log while it is being written (:func:`newsforagers.replay.log.read_log`)."""

from __future__ import annotations

import io
import json

from newsforagers.replay import log
from newsforagers.replay.log import RequestLog, read_log


class GrowingFile(io.RawIOBase):
    """A file being appended to, as a reader sees it: each read returns the next piece the
    writer put on disk, and an empty read (the end of the file, for now) between two pieces."""

    def __init__(self, pieces: list[bytes]):
        self.reads = [piece for chunk in pieces for piece in (chunk, b"")]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.reads.pop(0) if self.reads else b""
        buffer[:len(data)] = data
        return len(data)


def test_a_line_met_half_written_is_read_whole_once_it_is_finished(monkeypatch):
    first = {"path": "/a/", "status": 200}
    second = {"path": "/2024/01/01/inside-the-genome-that-divided-lakeside/", "status": 200}
    line = (json.dumps(second) + "\n").encode()
    # the reader meets the end of the file in the middle of the second line, and reads on after
    # the writer has finished it
    pieces = [(json.dumps(first) + "\n").encode() + line[:20], line[20:]]

    def growing_open(path, mode="r", encoding=None):
        stream = io.BufferedReader(GrowingFile(pieces))
        return stream if "b" in mode else io.TextIOWrapper(stream, encoding=encoding)

    monkeypatch.setattr(log, "open", growing_open, raising=False)
    assert list(log.read_log("requests.jsonl")) == [first, second]


def test_a_last_line_without_its_newline_is_left_out_and_blank_lines_are_skipped(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"n": 1}\n\n{"n": 2}\n{"n": ')
    assert list(read_log(path)) == [{"n": 1}, {"n": 2}]


def test_what_the_request_log_writes_is_read_back_while_it_is_open(tmp_path):
    log = RequestLog(tmp_path / "requests.jsonl")
    for n in range(3):
        log.write({"path": f"/{n}/", "status": 200})
    assert [record["path"] for record in read_log(tmp_path / "requests.jsonl")] == ["/0/", "/1/", "/2/"]
    log.close()
