"""``newsforagers index``: the i-Bot indexer beside a store, once or following it; the index it
makes is the one ``newsforagers search --store`` reads."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys

import pytest

from newsforagers import cli
from newsforagers.index import DocumentIndex
from newsforagers.store import DocumentRecord, SQLiteStore
from tests.integration.forager_run import REPO
from tests.outputs import output


def paid(store, start, n):
    """``n`` documents paid for and output (what the index reads)."""
    for i in range(start, start + n):
        output(store, [f"url:http://s/{i}"], DocumentRecord(
            f"http://s/{i}", f"Story {i}", "2024-03-04T09:00:00+00:00", "2024-03-04T10:00:00+00:00",
            "f1", 100.0, text=f"The lighthouse keeper, part {i}."))


def test_one_pass_indexes_what_is_new_and_search_finds_it(tmp_path, capsys):
    store = SQLiteStore(tmp_path / "colony.db")
    paid(store, 0, 3)
    url = f"sqlite:///{tmp_path}/colony.db"
    assert cli.main(["index", "--store", url]) == 0
    assert capsys.readouterr().out == f"3 document(s) indexed into {tmp_path}/colony.index.sqlite (3 in the index)\n"
    paid(store, 3, 2)
    assert cli.main(["index", "--store", url]) == 0
    assert capsys.readouterr().out.startswith("2 document(s) indexed")
    assert cli.main(["search", "lighthouse", "--store", url, "--json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5
    assert cli.main(["index", "--store", url, "--index", str(tmp_path / "elsewhere.sqlite")]) == 0
    with DocumentIndex(tmp_path / "elsewhere.sqlite") as index:
        assert index.count() == 5
    store.close()


def test_without_store_the_default_one_and_its_index_and_a_plain_path(tmp_path, monkeypatch, capsys):
    """No --store: the store a crawl keeps by default, indexed beside it, where search looks."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["index"]) == 2
    assert "no store at .newsforagers/colony.db" in capsys.readouterr().err
    assert not (tmp_path / ".newsforagers").exists()  # neither a store nor an index made
    (tmp_path / ".newsforagers").mkdir()
    store = SQLiteStore(tmp_path / ".newsforagers" / "colony.db")
    paid(store, 0, 2)
    assert cli.main(["index"]) == 0
    assert capsys.readouterr().out == ("2 document(s) indexed into .newsforagers/colony.index.sqlite "
                                       "(2 in the index)\n")
    assert cli.main(["search", "lighthouse", "--json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    paid(store, 2, 1)
    assert cli.main(["index", "--store", ".newsforagers/colony.db"]) == 0  # the same store, by its path
    assert capsys.readouterr().out.startswith("1 document(s) indexed into .newsforagers/colony.index.sqlite")
    store.close()


def test_follow_indexes_as_the_store_fills_until_ctrl_c(tmp_path):
    store = SQLiteStore(tmp_path / "colony.db")
    paid(store, 0, 2)
    process = subprocess.Popen([sys.executable, "-m", "newsforagers.cli", "index", "--store",
                                f"sqlite:///{tmp_path}/colony.db", "--follow", "--interval", "0.1"],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               # Ctrl-C as a terminal gives it, whatever this process ignores (a
                               # child inherits an ignored SIGINT and Python then never raises
                               # KeyboardInterrupt: in full-suite runs it did not stop)
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout.readline().startswith("2 document(s) indexed")
        paid(store, 2, 4)
        # a look may come between two of the four payments: the lines add up to them
        lines = [process.stdout.readline()]
        while not lines[-1].endswith("(6 in the index)\n"):
            lines.append(process.stdout.readline())
            assert lines[-1], lines
        assert sum(int(line.split()[0]) for line in lines) == 4
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=90)
    assert process.returncode == 0, err
    assert out.startswith("stopped: 6 document(s) indexed") and "Traceback" not in err
    store.close()


def test_a_missing_store_or_a_broken_index_is_one_line(tmp_path, capsys):
    assert cli.main(["index", "--store", f"sqlite:///{tmp_path}/nope.db"]) == 2
    assert "no store at" in capsys.readouterr().err and not (tmp_path / "nope.index.sqlite").exists()
    with pytest.raises(SystemExit) as exc:  # a usage error: no command can read it
        cli.main(["index", "--store", "memory://"])
    assert exc.value.code == 2 and "memory:// lives only inside" in capsys.readouterr().err
    SQLiteStore(tmp_path / "colony.db").close()
    (tmp_path / "broken.sqlite").write_bytes(b"no database" * 100)
    assert cli.main(["index", "--store", f"sqlite:///{tmp_path}/colony.db", "--index",
                     str(tmp_path / "broken.sqlite")]) == 2
    assert "is no newsforagers index" in capsys.readouterr().err


def test_a_redis_store_s_colonies_each_get_their_index(redis_server, tmp_path, monkeypatch, capsys):
    """Two colonies on one Redis server (two key prefixes): each prefix's documents go to an
    index of their own under .newsforagers/index/, which search --store finds again."""
    from newsforagers.index import default_index_path
    from newsforagers.store import open_store

    monkeypatch.chdir(tmp_path)
    for prefix, word in (("news:", "lighthouse"), ("other:", "windmill")):
        store = open_store(redis_server.url, prefix=prefix)
        output(store, ["url:http://s/1"], DocumentRecord(
            "http://s/1", f"The {word}", "2024-03-04T09:00:00+00:00", "2024-03-04T10:00:00+00:00", "f1",
            100.0, text=f"A {word} by the sea."))
        store.close()
        assert cli.main(["index", "--store", redis_server.url, "--prefix", prefix]) == 0
        assert capsys.readouterr().out.startswith("1 document(s) indexed into .newsforagers/index/redis-")
        assert default_index_path(redis_server.url, prefix).is_file()
    assert cli.main(["search", "windmill", "--store", redis_server.url, "--prefix", "other:", "--json"]) == 0
    assert "windmill" in capsys.readouterr().out
    assert cli.main(["search", "windmill", "--store", redis_server.url, "--prefix", "news:"]) == 0
    assert "no document matches" in capsys.readouterr().err


# -- read-only: index reads the store and writes the index alone (issue 29, rows 4 and 8) -----------


def test_another_program_s_database_is_refused_left_as_it_was_and_gets_no_index(tmp_path, capsys):
    """Row 4: the file gained the store's tables, a WAL and columns; an empty one became a store."""
    from tests.foreign import files_that_are_no_store, on_disk

    refused = files_that_are_no_store(tmp_path)
    (other, _), (empty, _) = refused
    for path, words in refused:
        before = on_disk(path)
        assert cli.main(["index", "--store", str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == f"newsforagers index: {path} {words}\n"
        assert on_disk(path) == before  # no index beside it either
    assert on_disk(other)["journal"] == "rollback" and empty.stat().st_size == 0


def unreadable_output(path):
    """A store whose documents can be counted but whose output cannot be read: the first page
    of its ``outputs`` table overwritten (a disk that failed)."""
    store = SQLiteStore(path)
    paid(store, 0, 20)
    store.close()  # the last connection: everything checkpointed into the file
    db = sqlite3.connect(path)
    root, = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'outputs'").fetchone()
    size, = db.execute("PRAGMA page_size").fetchone()
    db.close()
    with open(path, "r+b") as file:
        file.seek((root - 1) * size)
        file.write(b"\xff" * size)


def test_a_store_that_cannot_be_read_is_blamed_and_leaves_no_index(tmp_path, capsys):
    """Row 8: the store's error was said to be the index's, and an empty index stayed."""
    unreadable_output(tmp_path / "colony.db")
    assert cli.main(["index", "--store", str(tmp_path / "colony.db")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"newsforagers index: cannot read store sqlite:///{tmp_path}/colony.db: ")
    assert "malformed" in captured.err and "cannot index into" not in captured.err
    assert not (tmp_path / "colony.index.sqlite").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if "index" in p.name) == []


def test_an_index_made_by_a_run_that_failed_before_indexing_is_removed(tmp_path, capsys, monkeypatch):
    """The store fails after the first look (its output readable, then not): the index this
    command made and could not fill goes; one that holds documents stays."""
    store = SQLiteStore(tmp_path / "colony.db")
    paid(store, 0, 3)
    store.close()
    outputs_after = SQLiteStore.outputs_after
    looks = []

    def fails_after_one_look(self, position, limit=0):
        looks.append(position)
        if len(looks) > 1:
            raise sqlite3.DatabaseError("database disk image is malformed")
        return outputs_after(self, position, limit)

    monkeypatch.setattr(SQLiteStore, "outputs_after", fails_after_one_look)
    assert cli.main(["index", "--store", str(tmp_path / "colony.db")]) == 2
    assert "cannot read store" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if "index" in p.name]
    monkeypatch.setattr(SQLiteStore, "outputs_after", outputs_after)
    assert cli.main(["index", "--store", str(tmp_path / "colony.db")]) == 0
    looks.clear()
    monkeypatch.setattr(SQLiteStore, "outputs_after", fails_after_one_look)
    assert cli.main(["index", "--store", str(tmp_path / "colony.db")]) == 2
    with DocumentIndex(tmp_path / "colony.index.sqlite", read_only=True) as index:
        assert index.count() == 3
