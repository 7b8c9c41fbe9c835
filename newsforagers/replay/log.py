"""The replay's request log: one JSON object per served request.

It is the ground truth for "downloaded" in the benchmark, so every request is written, and
flushed at once so that a reader (a benchmark, a test) sees it while the server runs. Each
line::

    {"sim_time": "2024-01-03T10:00:00+00:00", "wall_time": 1717000000.123, "method": "GET",
     "path": "/section/world/?page=2", "status": 200, "bytes": 5120, "forager": "f3"}

``forager`` is the ``X-Forager`` request header (null when absent), so each request can be
attributed to the forager that made it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable, Iterator

FORAGER_HEADER = "X-Forager"

Record = dict


class RequestLog:
    """Writes records to ``path`` (if given) and hands them to ``observers``."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        self._file = open(self.path, "a", encoding="utf-8") if self.path is not None else None
        self.observers: list[Callable[[Record], None]] = []
        self.count = 0

    def write(self, record: Record) -> None:
        self.count += 1
        if self._file is not None:
            self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._file.flush()
        for observer in self.observers:
            observer(record)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def busiest_second(times: Iterable[float]) -> int:
    """Most of ``times`` (wall seconds: a log's ``wall_time``, a budget's starts) in any
    one-second window, each window starting at one of them: a site's politeness as it sees it."""
    ordered = sorted(float(t) for t in times)
    busiest, j = 0, 0
    for i, t in enumerate(ordered):
        while j < len(ordered) and ordered[j] < t + 1.0:
            j += 1
        busiest = max(busiest, j - i)
    return busiest


def read_log(path: str | Path) -> Iterator[Record]:
    """The records of a JSON-lines log (a request log, a crawl's items) that may still be being
    written: its complete lines, the last line left out while it has no newline.

    The file is read as one stream of bytes, not line by line: a writer's line can reach the
    disk a page at a time, and a line-by-line reader that met the end of the file in the middle
    of one returned the part it had (left out) and then, on its next read, the rest of it as a
    line of its own, which is not JSON."""
    with open(path, "rb") as stream:
        partial = b""
        for block in iter(lambda: stream.read(1 << 20), b""):
            *lines, partial = (partial + block).split(b"\n")
            for line in lines:
                if line.strip():
                    yield json.loads(line)
