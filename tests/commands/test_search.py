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
