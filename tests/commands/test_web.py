"""``newsforagers web`` names its sources as every command does: with no flags, the store a crawl
keeps by default, the index beside it and the newest run; its first line says what it serves and
where (the URL its last word), a store's password hidden. (The pages themselves: tests/web/.)"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

pytest.importorskip("flask")

from newsforagers.cli import build_parser  # noqa: E402
from newsforagers.commands import web as web_command  # noqa: E402
from newsforagers.index import DocumentIndex  # noqa: E402
from newsforagers.store import DocumentRecord, SQLiteStore  # noqa: E402
from tests.integration.forager_run import REPO  # noqa: E402

FIRST_LINE = re.compile(r"serving (the dashboard of .*) at (http://127\.0\.0\.1:\d+/)")


def args(*argv: str):
    return build_parser().parse_args(["web", *argv])


def default_crawl(root):
    """What a crawl with the default settings leaves in ``root``: the store, its index with one
    document, and a run."""
    (root / ".newsforagers").mkdir()
    SQLiteStore(root / ".newsforagers" / "colony.db").close()
    with DocumentIndex(root / ".newsforagers" / "colony.index.sqlite") as index:
        index.add([DocumentRecord("http://s/lighthouse", "The lighthouse", "2024-03-04T09:00:00+00:00",
                                  "2024-03-04T10:00:00+00:00", "f1", 100.0, text="A lighthouse by the sea.")])
    run = root / ".newsforagers" / "runs" / "20260101T000000Z-7"
    run.mkdir(parents=True)
    (run / "events.jsonl").write_text(json.dumps({"event": "start", "forager": "f1"}) + "\n")


def test_no_flags_the_default_store_its_index_and_the_newest_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert web_command.sources(args()) == ("sqlite:///.newsforagers/colony.db",
                                           ".newsforagers/colony.index.sqlite")
    assert web_command.describe(args()) == (
        "the dashboard of store sqlite:///.newsforagers/colony.db (not there yet), index "
        ".newsforagers/colony.index.sqlite (not there yet) and the newest run under "
        ".newsforagers/runs/ (none yet)")
    default_crawl(tmp_path)
    assert web_command.describe(args()) == (
        "the dashboard of store sqlite:///.newsforagers/colony.db, index "
        ".newsforagers/colony.index.sqlite and the newest run under .newsforagers/runs/ "
        "(20260101T000000Z-7 now)")


def test_named_sources_and_an_index_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "colony.db").write_bytes(b"")
    (tmp_path / "run").mkdir()
    assert web_command.describe(args("--store", "colony.db", "--run", "run")) == (
        "the dashboard of store sqlite:///colony.db, index colony.index.sqlite (not there yet) and "
        "run run")
    # --index alone: that index alone (search and latest from it), as documented
    assert web_command.sources(args("--index", "x.sqlite")) == (None, "x.sqlite")
    assert web_command.describe(args("--index", "x.sqlite", "--run", "gone")).startswith(
        "the dashboard of index x.sqlite (not there yet) and run gone (not there yet)")
    # a Redis store: its index under .newsforagers/index/, its password never shown
    line = web_command.describe(args("--store", "redis://:secret@127.0.0.1:6379/0"))
    assert line.startswith("the dashboard of store redis://:***@127.0.0.1:6379/0, index "
                           ".newsforagers/index/redis-127.0.0.1-6379-0-newsforagers")
    assert "secret" not in line


def test_the_command_with_no_flags_serves_the_default_store_and_says_so(tmp_path):
    default_crawl(tmp_path)
    process = subprocess.Popen([sys.executable, "-m", "newsforagers.cli", "web", "--port", "0"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(REPO)))
    try:
        line = process.stdout.readline().strip()
        match = FIRST_LINE.fullmatch(line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        assert match.group(1) == (
            "the dashboard of store sqlite:///.newsforagers/colony.db, index "
            ".newsforagers/colony.index.sqlite and the newest run under .newsforagers/runs/ "
            "(20260101T000000Z-7 now)")
        assert line.split()[-1] == match.group(2)  # the URL is the last word
        with urllib.request.urlopen(match.group(2) + "api/search?q=lighthouse", timeout=10) as answer:
            assert [hit["url"] for hit in json.load(answer)["results"]] == ["http://s/lighthouse"]
        with urllib.request.urlopen(match.group(2) + "api/colony", timeout=10) as answer:
            assert json.load(answer)["run_dir"] == ".newsforagers/runs/20260101T000000Z-7"
        process.send_signal(signal.SIGTERM)
        assert process.wait(15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()
