"""``newsforagers export``: the store's output (what the foragers' item pipelines let through)
as JSON lines, to stdout or atomically to a file; a missing or unusable store is a message and
exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

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
