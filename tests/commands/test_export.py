"""``newsforagers export``: the store's output (what the foragers' item pipelines let through)
as JSON lines, to stdout or atomically to a file; a missing or unusable store is a message and
exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from newsforagers import cli
from newsforagers.store import DocumentRecord, open_store
from tests.integration.forager_run import REPO
from tests.outputs import output


def filled_store(tmp_path, n=3):
    url = f"sqlite:///{tmp_path}/colony.db"
    store = open_store(url)
    for i in range(n):
        record = DocumentRecord(f"http://s/{i}/", f"Story {i} ✓", "2024-01-01T10:00:00+00:00",
                                f"2024-01-01T10:0{i}:00+00:00", f"f{i % 2 + 1}", 100.0)
        assert output(store, [f"url:http://s/{i}/"], record)
    assert not output(store, ["url:http://s/0/"], DocumentRecord("http://s/0/", "again", "", "", "f2", 100.0))
    # paid for, but a user's pipeline dropped it: no output
    assert store.claim(["url:http://s/dropped/"], DocumentRecord("http://s/dropped/", "d", "", "", "f1", 100.0))
    # an item a user's pipeline changed: as it left the pipelines
    store.add_output({"url": "http://s/3/", "title": "Story 3", "source_project": "newsdesk"}, "h", "f2")
    store.close()
    return url


def test_export_writes_every_output_in_order_as_the_pipelines_left_it(tmp_path, capsys):
    url = filled_store(tmp_path)
    assert cli.main(["export", "--store", url]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["url"] for d in lines] == ["http://s/0/", "http://s/1/", "http://s/2/", "http://s/3/"]
    assert lines[3] == {"url": "http://s/3/", "title": "Story 3", "source_project": "newsdesk"}
    assert lines[0] == {"url": "http://s/0/", "title": "Story 0 ✓", "published": "2024-01-01T10:00:00+00:00",
                        "found_at": "2024-01-01T10:00:00+00:00", "forager": "f1", "reward": 100.0,
                        # (the main text, when the colony keeps it: FORAGERS_ITEM_TEXT)
                        "text": "", "description": "", "keywords": [], "authors": [],
                        "site_name": "", "html": "", "language": ""}


def test_export_to_a_file_replaces_it_whole(tmp_path):
    url = filled_store(tmp_path)
    out = tmp_path / "documents.jsonl"
    out.write_text("old contents\n")
    assert cli.main(["export", "--store", url, "-o", str(out)]) == 0
    assert [json.loads(line)["url"] for line in out.read_text().splitlines()] == [
        "http://s/0/", "http://s/1/", "http://s/2/", "http://s/3/"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".documents.jsonl.")]


def test_a_missing_or_in_memory_store_is_a_message_not_a_new_store(tmp_path):
    for store, message in ((f"sqlite:///{tmp_path}/nope.db", "no store at"),
                           ("memory://", "lives only inside"),
                           ("nonsense", "'nonsense' is not a store: give sqlite:///PATH")):
        done = subprocess.run([sys.executable, "-m", "newsforagers.cli", "export", "--store", store],
                              cwd=REPO, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "nope.db").exists()
    (tmp_path / "junk.db").write_bytes(b"this is not sqlite" * 100)
    assert cli.main(["export", "--store", f"sqlite:///{tmp_path}/junk.db"]) == 2


def test_an_unwritable_output_is_a_message(tmp_path):
    url = filled_store(tmp_path)
    assert cli.main(["export", "--store", url, "-o", str(tmp_path / "missing-dir" / "x.jsonl")]) == 2


def test_without_store_the_default_one_and_a_plain_path_is_a_store(tmp_path, monkeypatch, capsys):
    """No --store: the store a crawl keeps by default, as status, search, index and web read it;
    a store file's path is as good as its URL."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".newsforagers").mkdir()
    filled_store(tmp_path / ".newsforagers")
    assert cli.main(["export"]) == 0
    default = [json.loads(line)["url"] for line in capsys.readouterr().out.splitlines()]
    assert default == ["http://s/0/", "http://s/1/", "http://s/2/", "http://s/3/"]
    for plain in (".newsforagers/colony.db", str(tmp_path / ".newsforagers" / "colony.db")):
        assert cli.main(["export", "--store", plain]) == 0
        assert [json.loads(line)["url"] for line in capsys.readouterr().out.splitlines()] == default


def test_a_missing_default_store_says_it_is_the_default_and_is_not_made(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["export"]) == 2
    err = capsys.readouterr().err
    assert err == ("newsforagers export: no store at .newsforagers/colony.db "
                   "(sqlite:///.newsforagers/colony.db); that is the default store, give --store "
                   "STORE for another\n")
    assert not (tmp_path / ".newsforagers").exists()


def test_export_escapes_what_a_terminal_would_obey_and_keeps_the_value(tmp_path, capsys):
    # issue 29, row 9: JSON escapes C0 itself, but neither DEL, C1 (U+009B) nor bidi controls
    url = f"sqlite:///{tmp_path}/colony.db"
    store = open_store(url)
    title = "Budget \x1b]0;pwned\x07 \x9b2J \u202eevil\u202c \x7f"
    assert output(store, ["url:http://s/x/"], DocumentRecord("http://s/x/", title, "", "", "f1", 100.0))
    store.close()
    assert cli.main(["export", "--store", url]) == 0
    line = capsys.readouterr().out
    assert not [c for c in line if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0
                or c in "\u202a\u202b\u202c\u202d\u202e"]
    assert json.loads(line)["title"] == title


# -- read-only: export only reads (issue 29, rows 4 to 7) --------------------------------------------


def test_another_program_s_database_or_an_empty_file_is_refused_and_left_as_it_was(tmp_path, capsys):
    """Row 4: no table made, no WAL, no column added; an empty file does not become a store."""
    from tests.foreign import files_that_are_no_store, on_disk

    refused = files_that_are_no_store(tmp_path)
    (other, _), (empty, _) = refused
    for path, words in refused:
        before = on_disk(path)
        assert cli.main(["export", "--store", str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and f"{path} " in captured.err
        assert words in captured.err
        assert on_disk(path) == before
    assert on_disk(other)["journal"] == "rollback" and empty.stat().st_size == 0


def test_a_database_with_a_documents_table_of_its_own_is_one_line_not_a_traceback(tmp_path):
    """Row 5: ``documents(id, name)`` was ``sqlite3.OperationalError: no such column: url``."""
    from tests.foreign import another_programs_database

    another_programs_database(tmp_path / "other.db")
    done = subprocess.run([sys.executable, "-m", "newsforagers.cli", "export", "--store",
                           f"sqlite:///{tmp_path}/other.db"], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"newsforagers export: {tmp_path}/other.db is an SQLite file but no colony "
                           "store (it has no column documents.url)\n")


def test_an_output_that_is_the_store_or_its_index_is_refused_before_anything_is_read(tmp_path, monkeypatch,
                                                                                     capsys):
    """Row 6: ``-o`` the store's own file overwrote it with JSON lines."""
    from newsforagers.index import DocumentIndex, default_index_path
    from newsforagers.store import open_existing_store
    from tests.foreign import on_disk

    url = filled_store(tmp_path)
    store_path = tmp_path / "colony.db"
    index_path = default_index_path(url, "newsforagers:")
    reader = open_existing_store(url)
    with DocumentIndex(index_path) as index:
        index.follow(reader)
    reader.close()
    (tmp_path / "link.db").symlink_to(store_path)
    os.link(store_path, tmp_path / "hard.db")
    store_before, index_before = on_disk(store_path), on_disk(index_path)
    for target, part in ((store_path, store_path), (tmp_path / "colony.db-wal", f"{store_path}-wal"),
                         (tmp_path / "colony.db-shm", f"{store_path}-shm"),
                         (tmp_path / "colony.db-journal", f"{store_path}-journal"),
                         (tmp_path / "link.db", store_path), (tmp_path / "hard.db", store_path),
                         (tmp_path / "sub" / ".." / "colony.db", store_path),
                         (index_path, index_path), (f"{index_path}-wal", f"{index_path}-wal")):
        (tmp_path / "sub").mkdir(exist_ok=True)
        assert cli.main(["export", "--store", url, "-o", str(target)]) == 2, target
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1
        assert f"is {part}, part of the store" in captured.err and "give another file" in captured.err
        assert on_disk(store_path) == store_before and on_disk(index_path) == index_before
    # relative to the working directory, as a person types it
    monkeypatch.chdir(tmp_path)
    assert cli.main(["export", "--store", "colony.db", "-o", "./colony.db"]) == 2
    assert "part of the store it reads" in capsys.readouterr().err
    assert on_disk(store_path) == store_before
    assert cli.main(["export", "--store", url, "-o", str(tmp_path / "colony.jsonl")]) == 0


def test_a_directory_is_refused_before_writing_and_a_failed_write_leaves_nothing(tmp_path, monkeypatch, capsys):
    """Row 7: ``-o DIR`` left a whole copy of the export as a hidden file in the working directory."""
    url = filled_store(tmp_path)
    work = tmp_path / "work"
    (work / "out").mkdir(parents=True)
    monkeypatch.chdir(work)
    assert cli.main(["export", "--store", url, "-o", "out"]) == 2
    assert sorted(p.relative_to(work) for p in work.rglob("*")) == [Path("out")]  # nothing written
    assert capsys.readouterr().err == ("newsforagers export: -o out is a directory: give the path of a "
                                       "file to write\n")
    assert cli.main(["export", "--store", url, "-o", "out/"]) == 2
    assert "-o out/ is a directory" in capsys.readouterr().err
    assert sorted(p.relative_to(work) for p in work.rglob("*")) == [Path("out")]
    # a write that fails at the last step (the rename): the file beside the target goes too
    def refused(source, target):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refused)
    assert cli.main(["export", "--store", url, "-o", "out/documents.jsonl"]) == 2
    assert capsys.readouterr().err == ("newsforagers export: cannot write out/documents.jsonl: "
                                       "Permission denied\n")
    assert sorted(p.relative_to(work) for p in work.rglob("*")) == [Path("out")]
