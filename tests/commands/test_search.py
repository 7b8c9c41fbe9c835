"""``newsforagers search``: ranked hits with snippets, or JSON lines, from the index kept beside a
store or given by its path; an empty query, a bad date, a missing index are one line and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from newsforagers import cli
from newsforagers.index import DocumentIndex, default_index_path
from newsforagers.store import DocumentRecord
from tests.integration.forager_run import REPO


def record(url, title, text, language="en", found_at="2024-03-04T10:00:00+00:00"):
    return DocumentRecord(url, title, "2024-03-04T09:00:00+00:00", found_at, "f2", 100.0, text=text,
                          description=f"About {title.lower()}.", language=language)


@pytest.fixture
def store_url(tmp_path):
    """A store's URL and the index the colony keeps beside it."""
    url = f"sqlite:///{tmp_path}/colony.db"
    with DocumentIndex(default_index_path(url, "newsforagers:")) as index:
        index.add([record("http://s/harbour", "Storm closes the harbour", "The storm closed the harbour at noon."),
                   record("http://s/bridge", "Bridge reopens", "After the storm, the bridge reopened.",
                          found_at="2024-03-06T10:00:00+00:00"),
                   record("http://s/tormenta", "Tormenta en el puerto", "La tormenta cerró el puerto.",
                          language="es")])
    return url


def test_hits_come_ranked_one_block_each(store_url, capsys):
    assert cli.main(["search", "storm", "--store", store_url]) == 0
    out = capsys.readouterr().out
    blocks = [block.splitlines() for block in out.strip().split("\n\n")]
    assert [block[0] for block in blocks] == ["1. Storm closes the harbour", "2. Bridge reopens"]
    assert blocks[0][1].strip() == "http://s/harbour"
    assert "published 2024-03-04T09:00:00+00:00" in blocks[0][2] and "language en" in blocks[0][2]
    assert blocks[0][3].strip() == "The [storm] closed the harbour at noon."


def test_json_lines_and_the_filters(store_url, capsys):
    assert cli.main(["search", "storm OR tormenta", "--store", store_url, "--json"]) == 0
    assert capsys.readouterr().out == ""  # every word must appear: none holds all three
    assert cli.main(["search", "tormenta", "--store", store_url, "--json", "--lang", "ES"]) == 0
    [hit] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert hit["url"] == "http://s/tormenta" and hit["language"] == "es" and hit["relevance"] > 0
    assert set(hit) == {"url", "title", "snippet", "published", "found_at", "forager", "language",
                        "score", "relevance"}
    assert cli.main(["search", "storm", "--store", store_url, "--json", "--since", "2024-03-05"]) == 0
    assert [json.loads(line)["url"] for line in capsys.readouterr().out.splitlines()] == ["http://s/bridge"]
    assert cli.main(["search", "storm", "--store", store_url, "--json", "--since",
                     "2024-03-04T11:30:00+02:00", "--limit", "1"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_the_index_may_be_named_and_no_hit_is_said_on_stderr(store_url, tmp_path, capsys):
    assert cli.main(["search", "bridge", "--index", str(tmp_path / "colony.index.sqlite")]) == 0
    assert "1. Bridge reopens" in capsys.readouterr().out
    assert cli.main(["search", "zeppelin", "--index", str(tmp_path / "colony.index.sqlite")]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "no document matches 'zeppelin'" in captured.err
    assert cli.main(["search", "-", "--index", str(tmp_path / "colony.index.sqlite")]) == 0  # nothing to look for


@pytest.mark.parametrize("argv, message", [
    (["search", "   "], "the query is empty"),
    (["search", "storm", "--index", "{tmp}/nope.sqlite"], "no index at {tmp}/nope.sqlite"),
    (["search", "storm", "--store", "sqlite:///{tmp}/other.db"], "no index at {tmp}/other.index.sqlite"),
    (["search", "storm", "--index", "{tmp}/junk.sqlite"], "is no newsforagers index"),
    (["search", "storm", "--index", "{tmp}/colony.db"], "no newsforagers index (a colony store?"),
    (["search", "storm", "--since", "yesterday"], "'yesterday' is no date"),
    (["search", "storm", "--lang", "english"], "'english' is no language code"),
    (["search", "storm", "--store", "nonsense"], "'nonsense' is not a store: give sqlite:///PATH"),
    (["search", "storm", "--store", "memory://"], "memory:// lives only inside the colony's process"),
    # issue 29, row 12: a limit no search takes is a usage error, not a traceback (OverflowError)
    (["search", "storm", "--limit", "99999999999999999999"],
     "newsforagers search: error: argument --limit: '99999999999999999999' is not a whole number "
     "from 1 to 1000\n"),
    (["search", "storm", "--limit", "1001"], "argument --limit: '1001' is not a whole number from 1 to 1000"),
    (["search", "storm", "--limit", "0"], "argument --limit: '0' is not a whole number from 1 to 1000"),
    (["search", '"' + "storm " * 400 + '"'], "newsforagers search: the query is too long: its words and "
     "phrases that count (the first 32) hold 2401 characters, more than 2000; shorten its phrases\n"),
])
def test_mistakes_are_one_line_and_exit_2(tmp_path, argv, message):
    (tmp_path / "junk.sqlite").write_bytes(b"no database here" * 100)
    from newsforagers.store import SQLiteStore

    SQLiteStore(tmp_path / "colony.db").close()
    argv = [arg.format(tmp=tmp_path) for arg in argv]
    done = subprocess.run([sys.executable, "-m", "newsforagers.cli", *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 2, done.stderr
    assert message.format(tmp=tmp_path) in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "nope.sqlite").exists() and not (tmp_path / "other.index.sqlite").exists()


def test_a_store_file_s_path_names_its_index_and_the_default_store_s_is_read(store_url, tmp_path,
                                                                            monkeypatch, capsys):
    path = store_url[len("sqlite:///"):]  # a name ending in .db: a store, whether it exists or not
    assert cli.main(["search", "harbour", "--store", path, "--json"]) == 0
    assert [json.loads(line)["url"] for line in capsys.readouterr().out.splitlines()] == ["http://s/harbour"]
    # no --store: the index of the store a crawl keeps by default
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".newsforagers").mkdir()
    (tmp_path / "colony.index.sqlite").rename(tmp_path / ".newsforagers" / "colony.index.sqlite")
    assert cli.main(["search", "harbour", "--json"]) == 0
    assert [json.loads(line)["url"] for line in capsys.readouterr().out.splitlines()] == ["http://s/harbour"]


# -- issue 29: what pages wrote reaches no terminal raw (row 9); the dashboard's rules (11, 12) ------

HOSTILE_PAGE = (
    "<html><head><title>Budget \x1b]0;pwned\x07passes \x1b[31mred\x1b(0 lqqk \x9b2J "
    "\u202eevil\u202c end</title><meta property='article:published_time' "
    "content='2024-03-04T09:00:00Z'></head><body><article><h1>Budget passes</h1><p>The council "
    "passed the budget \x1b[5mblinking\x1b[0m \u2067isolated\u2069 after a long night of votes.</p>"
    "</article></body></html>")


def unsafe(text: str) -> list[str]:
    from newsforagers.terminal import BIDI_CONTROLS

    return [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0
            or c in BIDI_CONTROLS]


@pytest.fixture
def hostile_index(tmp_path):
    """An index holding a page read as a forager reads it, its title and text full of terminal
    escapes and bidi controls."""
    from datetime import UTC, datetime

    from newsforagers.pages import read_page

    page = read_page("http://s/budget", HOSTILE_PAGE, now=datetime(2024, 3, 4, 10, tzinfo=UTC))
    assert "\x1b]0;pwned\x07" in page.title and "\x9b" in page.title  # as the page wrote it
    path = tmp_path / "hostile.index.sqlite"
    with DocumentIndex(path) as index:
        index.add([DocumentRecord("http://s/budget", page.title, "2024-03-04T09:00:00+00:00",
                                  "2024-03-04T10:00:00+00:00", "f1", 100.0, text=page.text)])
    return path, page.title


def test_a_title_s_terminal_escapes_never_reach_the_terminal(hostile_index):
    path, title = hostile_index
    done = subprocess.run([sys.executable, "-m", "newsforagers.cli", "search", "budget", "--index", str(path)],
                          capture_output=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("utf-8")
    assert unsafe(out) == [], out
    assert "1. Budget ]0;pwnedpasses [31mred(0 lqqk 2J evil end\n" in out  # the words stay
    assert "blinking" in out and "isolated" in out
    # JSON keeps the title whole, every control written as an escape
    done = subprocess.run([sys.executable, "-m", "newsforagers.cli", "search", "budget", "--index", str(path),
                           "--json"], capture_output=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(REPO)))
    line = done.stdout.decode("utf-8")
    assert unsafe(line) == [] and json.loads(line)["title"] == title


def test_a_long_query_finds_what_the_dashboard_finds(tmp_path, capsys):
    # row 11: the dashboard cut a 1,000-word query at 500 characters, inside a word (0 hits)
    pytest.importorskip("flask")
    from newsforagers.web import create_app

    words = [f"{stem}{'x' * 12}" for stem in ("lighthouse", "keeper", "harbour", "storm", "ferry",
                                               "budget", "council", "election", "bridge", "river")]
    words += [f"word{i:04d}{'y' * 10}" for i in range(22)]  # 32 words, 20 letters or so each
    query = " ".join((words * 40)[:1000])
    path = tmp_path / "long.index.sqlite"
    with DocumentIndex(path) as index:
        index.add([record(f"http://s/{i}", f"Story {i}", " ".join(words) + f" and more {i}.")
                   for i in range(9)] + [record("http://s/other", "Other", " ".join(words[:-1]))])
    assert cli.main(["search", query, "--index", str(path), "--json", "--limit", "20"]) == 0
    by_cli = [json.loads(line)["url"] for line in capsys.readouterr().out.splitlines()]
    assert len(by_cli) == 9
    client = create_app(index=path).test_client()
    data = client.get("/api/search", query_string={"q": query, "limit": 20}).get_json()
    assert [hit["url"] for hit in data["results"]] == by_cli
    assert data["query"] == " ".join(words)  # what counts, every word whole
    # and a query too long for one is too long for the other, said alike
    phrase = '"' + "storm " * 400 + '"'
    response = client.get("/api/search", query_string={"q": phrase})
    assert response.status_code == 400
    assert cli.main(["search", phrase, "--index", str(path)]) == 2
    assert capsys.readouterr().err == f"newsforagers search: {response.get_json()['error']}\n"


def test_the_limits_are_the_dashboard_s(store_url, capsys):
    # row 12: a limit too large for SQLite was an OverflowError's traceback; now the dashboard's
    # maximum, on both sides (tests/web/test_app.py: /api/search takes limit=1000, not 1001)
    done = subprocess.run([sys.executable, "-m", "newsforagers.cli", "search", "storm", "--store", store_url,
                           "--limit", "99999999999999999999"], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1] == ("newsforagers search: error: argument --limit: "
                                            "'99999999999999999999' is not a whole number from 1 to 1000")
    assert cli.main(["search", "storm", "--store", store_url, "--limit", "1000", "--json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    with pytest.raises(SystemExit) as exit_:
        cli.main(["search", "storm", "--store", store_url, "--limit", "1001"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "newsforagers search: error: argument --limit: '1001' is not a whole number from 1 to 1000")


# -- read-only: search never writes (issue 29, row 8) ------------------------------------------------


def test_an_empty_file_given_for_the_index_is_refused_and_stays_empty(tmp_path, capsys):
    """Row 8: a 53 KB index was written into it, exit 0."""
    from tests.foreign import another_programs_database, on_disk

    empty = tmp_path / "empty.sqlite"
    empty.touch()
    other = another_programs_database(tmp_path / "other.sqlite")
    for path, words in ((empty, "is no newsforagers index: it is empty (0 bytes)"),
                        (other, "is an SQLite file but no newsforagers index")):
        before = on_disk(path)
        assert cli.main(["search", "storm", "--index", str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and words in captured.err
        assert on_disk(path) == before
    assert empty.stat().st_size == 0 and on_disk(other)["journal"] == "rollback"


def test_search_reads_an_index_while_it_is_written(store_url, tmp_path, capsys):
    """The colony's root keeps its index open and adds to it: each search sees what was added."""
    from newsforagers.index import default_index_path
    from tests.foreign import on_disk

    with DocumentIndex(default_index_path(store_url, "newsforagers:")) as writer:
        for n in range(3):
            writer.add([record(f"http://s/gale-{n}", f"Gale {n}", "A gale.")])
            assert cli.main(["search", "gale", "--store", store_url, "--json"]) == 0
            assert len(capsys.readouterr().out.splitlines()) == n + 1
    assert on_disk(tmp_path / "colony.index.sqlite")["journal"] == "wal"
