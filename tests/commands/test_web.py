"""``newsforagers web`` names its sources as every command does: with no flags, the store a crawl
keeps by default, the index beside it and the newest run; its first line says what it serves and
where (the URL its last word), a store's password hidden. (The pages themselves: tests/web/.)"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from contextlib import contextmanager

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
        port = int(match.group(2).rsplit(":", 1)[1].strip("/"))
        assert get(port, "/api/latest", "attacker.example")[0] == 400  # issue 29, row 13
        process.send_signal(signal.SIGTERM)
        assert process.wait(15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


# -- issue 29: a busy port, the Host header through the real server, the names given ----------------


def get(port: int, path: str, host: str) -> tuple[int, str, str]:
    """``(status, content type, body)`` of a GET to 127.0.0.1:``port`` naming ``host`` in its
    Host header, as a page whose name was rebound to 127.0.0.1 would."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True)
        connection.putheader("Host", host)
        connection.endheaders()
        answer = connection.getresponse()
        return answer.status, answer.getheader("Content-Type", ""), answer.read().decode()
    finally:
        connection.close()


@contextmanager
def dashboard(*argv: str, cwd):
    """``newsforagers web --port 0 ARGV...`` running; yields its port, stopped after."""
    process = subprocess.Popen([sys.executable, "-m", "newsforagers.cli", "web", "--port", "0", *argv],
                               cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(REPO)))
    try:
        line = process.stdout.readline().strip()
        match = re.search(r"at http://127\.0\.0\.1:(\d+)/$", line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        yield int(match.group(1))
        process.send_signal(signal.SIGTERM)
        assert process.wait(15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


def test_a_busy_port_is_one_line_and_status_2(tmp_path):
    # row 10: werkzeug said two lines of its own and exited with 1
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "newsforagers.cli", "web", "--port", str(port)],
                             cwd=tmp_path, capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith(f"newsforagers web: cannot listen on 127.0.0.1:{port}: Address "
                                 "already in use; another program has it: give another --port, or "
                                 "--port 0 for any free one")


def test_the_server_answers_its_names_only(tmp_path):
    # row 13 through the real server: a loopback dashboard also served as dash.example.test
    # (behind a proxy, say)
    default_crawl(tmp_path)
    with dashboard("--allow-remote", "dash.example.test", cwd=tmp_path) as port:
        status, kind, body = get(port, "/api/latest", "attacker.example")
        assert (status, kind) == (400, "application/json")
        assert json.loads(body) == {"error": "this dashboard does not answer to that host name"}
        status, kind, body = get(port, "/search?q=lighthouse", f"attacker.example:{port}")
        assert status == 400 and kind.startswith("text/plain") and "lighthouse" not in body
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "dash.example.test", "192.0.2.9"):
            status, _, body = get(port, "/api/search?q=lighthouse", host)
            assert status == 200 and json.loads(body)["results"][0]["url"] == "http://s/lighthouse", host
        status, kind, body = get(port, "/api/nowhere", f"127.0.0.1:{port}")
        assert (status, kind, json.loads(body)) == (404, "application/json", {"error": "no such endpoint"})


@pytest.mark.parametrize("name", ["dash.example.test:8050", "http://dash.example.test", "a b"])
def test_a_name_that_is_none_is_one_line_and_status_2(name, capsys):
    from newsforagers.cli import main

    assert main(["web", "--allow-remote", name]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"newsforagers web: --allow-remote {name!r} is no host name or address")
    assert err.count("\n") == 1


def test_allow_remote_alone_keeps_its_meaning_and_names_add_up():
    assert args().allow_remote is None
    assert args("--allow-remote", "--host", "0.0.0.0").allow_remote == [""]
    named = args("--allow-remote", "a.example", "--allow-remote", "b.example")
    assert web_command.remote_names(named) == ["a.example", "b.example"]
    assert web_command.check_host("0.0.0.0", bool(named.allow_remote))[0] is None
