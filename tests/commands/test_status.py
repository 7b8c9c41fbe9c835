"""``newsforagers status``: reading a run directory and a store, the table, the live mode."""

from __future__ import annotations

import io
import json
import os
import re
import time
from datetime import UTC, datetime, timedelta

import pytest
from rich.console import Console

from newsforagers.cli import build_parser, main
from newsforagers.colony.status import (
    JsonlFollower,
    RunState,
    build_report,
    footer_items,
    forager_sort_key,
    format_age,
    format_cells,
    parse_jsonl,
    read_run,
)
from newsforagers.commands import status as status_command
from newsforagers.store import DocumentRecord, open_store

T0 = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def event(kind, forager, seconds, parent=None, score=100.0, sim=None, **extra):
    return {"event": kind, "forager": forager, "parent": parent, "score": score,
            "time": at(seconds), "sim_time": sim, **extra}


def snapshot(forager, seconds, sent, rewarded, downloaded, score, head="http://site/news",
             norm=1.25):
    return {"time": at(seconds), "forager": forager, "score": score, "energy": None,
            "sent": sent, "rewarded": rewarded, "downloaded": downloaded, "steps": downloaded,
            "paths": 3, "weblog_head": [[head, 3.5], ["http://site/other", 1.0]],
            "weight_norm": norm}


def lines(records) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


@pytest.fixture(autouse=True)
def plain_output(monkeypatch):
    """rich writing to a captured stream: no colour, our default width."""
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
                 "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def run_dir(tmp_path):
    """A colony still running: f1 and f3 alive, f2 retired, f10 gone from the snapshots."""
    path = tmp_path / "run"
    path.mkdir()
    events = lines([
        event("start", "f1", 0),
        event("start", "f2", 1),
        event("split", "f3", 10, parent="f1", sim="2024-01-03T10:00:00+00:00"),
        event("split", "f10", 20, parent="f2", sim="2024-01-03T10:05:00+00:00"),
        "{not json",
        '{"event": "split"}',
        event("retire", "f2", 30, score=39.5, sim="2024-01-03T10:10:00+00:00"),
    ])
    events += '{"event": "split", "forager": "f11", "parent": "f3", "sc'  # being written
    (path / "events.jsonl").write_text(events, encoding="utf-8")
    (path / "snapshots.jsonl").write_text(lines([
        snapshot("f1", 25, 10, 4, 50, 120.0),
        snapshot("f2", 25, 8, 1, 40, 45.0),
        snapshot("f3", 25, 2, 1, 6, 101.0, head="http://site/world", norm=0.5),
        snapshot("f10", 25, 2, 0, 8, 99.0, head="http://site/sport", norm=0.75),
        snapshot("f1", 35, 15, 6, 80, 130.0),
        snapshot("f3", 35, 4, 2, 9, 105.0, head="http://site/world", norm=0.5),
        "garbage",
        snapshot("f1", 50, 20, 8, 100, 140.5),
        snapshot("f3", 50, 6, 3, 12, 110.0, head="http://site/world", norm=0.5),
    ]), encoding="utf-8")
    return path


def table_rows(output: str) -> dict[str, list[str]]:
    """The table's body rows by forager, each as its stripped cells."""
    rows = {}
    for line in output.splitlines():
        if not line.startswith(("│", "|")):
            continue
        cells = [cell.strip() for cell in re.split(r"[│|]", line.strip()[1:-1])]
        rows[cells[0]] = cells
    return rows


def headers(output: str) -> list[str]:
    for line in output.splitlines():
        if line.startswith(("┃", "|")) and "forager" in line:
            return [cell.strip() for cell in re.split(r"┃", line.strip()[1:-1])]
    raise AssertionError(f"no header in {output!r}")


def status(capsys, *argv) -> tuple[int, str, str]:
    code = main(["status", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


# -- the command -----------------------------------------------------------------------------------


def test_run_dir_table(run_dir, capsys):
    code, out, err = status(capsys, run_dir)
    assert code == 0, err
    assert "\x1b[" not in out  # plain text to a non-terminal
    assert f"run {run_dir}" in out
    assert headers(out) == ["forager", "parent", "state", "score", "sent", "rewarded",
                            "downloaded", "rew/dl", "rew/sent", "found", "weblog head", "|w|",
                            "age"]
    rows = table_rows(out)
    assert list(rows) == ["f1", "f2", "f3", "f10"]  # numeric order; f11 is half written
    assert rows["f1"][:11] == ["f1", "—", "alive", "140.50", "20", "8", "100", "8.0%", "40.0%",
                               "—", "http://site/news"]
    assert rows["f1"][11] == "1.250"
    # the retire event (t+30) is newer than f2's last snapshot (t+25): its score wins
    assert rows["f2"] == ["f2", "—", "retired", "39.50", "8", "1", "40", "2.5%", "12.5%", "—",
                          "http://site/news", "1.250", "29s"]
    assert rows["f3"][:10] == ["f3", "f1", "alive", "110.00", "6", "3", "12", "25.0%", "50.0%",
                               "—"]
    assert rows["f3"][10:12] == ["http://site/world", "0.500"]
    # alive by its events, missing from two later snapshot rounds: its crawl ended
    assert rows["f10"] == ["f10", "f2", "ended", "99.00", "2", "0", "8", "0.0%", "0.0%", "—",
                           "http://site/sport", "0.750", "5s"]
    footer, notes = out.strip().splitlines()[-2:]
    assert "alive: 2" in footer and "splits: 2" in footer and "retirements: 1" in footer
    assert "found (rewarded): 12" in footer
    assert "last event: 2026-01-01 12:00:30 UTC" in footer
    assert "sim time: 2024-01-03 10:10:00 UTC" in footer
    assert "bad lines skipped: events.jsonl 2, snapshots.jsonl 1" in notes
    assert "incomplete last line (not read yet): events.jsonl" in notes


def test_run_dir_with_store(run_dir, tmp_path, capsys):
    db = tmp_path / "colony.db"
    store = open_store(f"sqlite:///{db}")
    store.set_score("f1", 150.0)
    store.set_score("f3", 90.25)
    for i, forager in enumerate(["f1", "f1", "f3", "f1", "f7"]):
        record = DocumentRecord(f"http://site/a{i}", f"story {i}", at(i), at(i + 60), forager, 100.0)
        assert store.claim([f"url:{i}"], record)
    # live members of the population register the process they run in
    store.join("f1", time.time() + 600, time.time(), fields={"process": "node1:4242"})
    store.join("f9", time.time() + 600, time.time(), fields={"process": "node2:77"})
    store.close()

    code, out, err = status(capsys, run_dir, "--store", f"sqlite:///{db}")
    assert code == 0, err
    rows = table_rows(out)
    assert list(rows) == ["f1", "f2", "f3", "f10"]  # f7 and f9 are not of this run
    assert rows["f1"][3] == "node1:4242" and rows["f3"][3] == "—"
    assert rows["f1"][4] == "150.00" and rows["f1"][10] == "3"  # the store's score, its documents
    assert rows["f2"][4] == "39.50" and rows["f2"][10] == "0"  # no score in the store
    assert rows["f3"][4] == "90.25" and rows["f3"][10] == "1"
    assert "found: 4 (store total 5)" in out
    assert f"store sqlite:///{db}" in out

    # the store alone: its foragers, the live members with their process
    code, out, err = status(capsys, "--store", f"sqlite:///{db}")
    assert code == 0, err
    assert headers(out) == ["forager", "state", "process", "score", "found"]
    rows = table_rows(out)
    assert rows == {"f1": ["f1", "alive", "node1:4242", "150.00", "3"],
                    "f3": ["f3", "—", "—", "90.25", "1"], "f7": ["f7", "—", "—", "—", "1"],
                    "f9": ["f9", "alive", "node2:77", "—", "0"]}
    assert "found: 5" in out and "alive: 2" in out


def test_newest_run_by_default(tmp_path, monkeypatch, capsys):
    runs = tmp_path / ".newsforagers" / "runs"
    for name, when, forager in (("20260101T000000Z-1", 1_000_000, "f1"),
                                ("20260102T000000Z-2", 2_000_000, "f9"),
                                ("not-a-run", 3_000_000, None)):
        (runs / name).mkdir(parents=True)
        if forager:
            events = runs / name / "events.jsonl"
            events.write_text(lines([event("start", forager, 0)]), encoding="utf-8")
            os.utime(events, (when, when))
    monkeypatch.chdir(tmp_path)
    code, out, err = status(capsys)
    assert code == 0, err
    assert "showing the newest run of 2 under .newsforagers/runs/: 20260102T000000Z-2" in out
    assert list(table_rows(out)) == ["f9"]
    assert "f9" in out and "alive: 1" in out


def test_no_runs_is_an_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = status(capsys)
    assert code == 2 and out == ""
    assert err.strip() == ("newsforagers status: no run under .newsforagers/runs/ and no store at "
                           ".newsforagers/colony.db (give --run RUN_DIR or --store STORE)")
    assert not (tmp_path / ".newsforagers").exists()  # the default store is not made either


@pytest.mark.parametrize("make_args, message", [
    (lambda p: [p / "missing"], "no run directory at"),
    (lambda p: [p / "file.txt"], "is not a directory"),
    (lambda p: ["--store", f"sqlite:///{p}/missing.db"], "no store at"),
    (lambda p: ["--store", "redis://:secret@127.0.0.1:1/0", "--prefix", "x:"], "127.0.0.1:1"),
    (lambda p: ["--run", p / "missing"], "no run directory at"),
    (lambda p: ["--run", p, p], "give the run directory once: --run RUN_DIR"),
    (lambda p: ["--store", f"sqlite:///{p}/file.txt"], "file.txt is no colony store: it is not an SQLite file"),
])
def test_errors(tmp_path, capsys, make_args, message):
    (tmp_path / "file.txt").write_text("not a database, not a directory\n" * 100)
    code, out, err = status(capsys, *make_args(tmp_path))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert "secret" not in err  # a store's password is never shown
    assert not (tmp_path / "missing.db").exists()  # a missing store is not created


# -- read-only: status only reads (issue 29, row 4) ---------------------------------------------------


def test_another_program_s_database_or_an_empty_file_is_refused_and_left_as_it_was(tmp_path, capsys):
    """Row 4: the file gained the store's tables, a WAL and columns; an empty one became a store."""
    from tests.foreign import files_that_are_no_store, on_disk

    refused = files_that_are_no_store(tmp_path)
    (other, _), (empty, _) = refused
    for path, words in refused:
        before = on_disk(path)
        code, out, err = status(capsys, "--store", path)
        assert code == 2 and out == ""
        assert err == f"newsforagers status: {path} {words}\n"
        assert on_disk(path) == before
    assert on_disk(other)["journal"] == "rollback" and empty.stat().st_size == 0


def test_live_reads_a_store_a_crawl_is_writing(tmp_path):
    """The common case: the crawl keeps its store open (WAL) and pays for documents between two
    redraws; the read-only reader sees each of them."""
    db = tmp_path / "colony.db"
    crawl = open_store(f"sqlite:///{db}")
    crawl.set_score("f1", 100.0)
    args = build_parser().parse_args(["status", "--store", str(db), "--live", "--interval", "0.5"])
    drawn = []

    def sleep(seconds):
        n = len(drawn)
        assert crawl.claim([f"url:{n}"], DocumentRecord(f"http://site/{n}", "s", at(n), at(n + 1), "f1", 100.0))
        drawn.append(n)

    buffer = io.StringIO()
    assert status_command.run(args, console=Console(file=buffer, width=200), sleep=sleep, max_refreshes=3) == 0
    assert table_rows(buffer.getvalue())["f1"][-1] == "3" and "found: 3" in buffer.getvalue()
    crawl.close()


@pytest.mark.parametrize("value, message", [
    ("memory://", "memory:// lives only inside the colony's process: give sqlite:///PATH"),
    ("redis2://:secret@host/0", "'redis2://:***@host/0' has an unknown scheme 'redis2': give"),
    ("colony", "'colony' is not a store: give sqlite:///PATH"),
])
def test_a_store_that_is_none_is_a_usage_error(tmp_path, monkeypatch, capsys, value, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["status", "--store", value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"newsforagers status: error: argument --store: {message}" in err and "secret" not in err


def test_the_run_is_named_with_run_and_the_argument_still_works(run_dir, capsys):
    code, out, err = status(capsys, "--run", run_dir)
    assert code == 0 and err == ""
    assert f"run {run_dir}" in out and list(table_rows(out)) == ["f1", "f2", "f3", "f10"]
    code, old, err = status(capsys, run_dir)  # the old spelling: the same table, and a note
    assert code == 0 and old == out
    assert err == f"newsforagers status: RUN_DIR as an argument is deprecated: give --run {run_dir}\n"
    with pytest.raises(SystemExit):
        main(["status", "--help"])
    assert "RUN_DIR deprecated: the same as --run RUN_DIR" in " ".join(capsys.readouterr().out.split())


def default_crawl(tmp_path, *, run=True, store=True):
    """What a crawl with the default settings leaves in ``tmp_path``: a run under
    .newsforagers/runs/ (f1 and f2) and the default store (f1's score, two documents of f1)."""
    if run:
        path = tmp_path / ".newsforagers" / "runs" / "20260101T000000Z-1"
        path.mkdir(parents=True)
        (path / "events.jsonl").write_text(lines([event("start", "f1", 0), event("start", "f2", 1)]))
    if store:
        (tmp_path / ".newsforagers").mkdir(exist_ok=True)
        store = open_store(f"sqlite:///{tmp_path}/.newsforagers/colony.db")
        store.set_score("f1", 150.0)
        for i in range(2):
            assert store.claim([f"url:{i}"], DocumentRecord(f"http://site/a{i}", "story", at(i),
                                                            at(i + 60), "f1", 100.0))
        store.close()


def test_without_run_or_store_the_newest_run_and_the_default_store(tmp_path, monkeypatch, capsys):
    default_crawl(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = status(capsys)
    assert code == 0, err
    assert ("showing the newest run under .newsforagers/runs/: 20260101T000000Z-1 (and the default "
            "store)") in out
    assert "run .newsforagers/runs/20260101T000000Z-1 · store sqlite:///.newsforagers/colony.db" in out
    rows = table_rows(out)
    assert list(rows) == ["f1", "f2"]
    assert (rows["f1"][4], rows["f1"][10]) == ("150.00", "2")  # the store's score and documents
    assert "found: 2" in out
    # one named: that one alone (a run and a store are shown together when a crawl wrote them
    # both, or when both are named)
    code, out, err = status(capsys, "--run", ".newsforagers/runs/20260101T000000Z-1")
    assert code == 0 and "store " not in out and "found: 2" not in out
    code, out, err = status(capsys, "--store", ".newsforagers/colony.db")  # a plain path
    assert code == 0 and "run " not in out and "store sqlite:///.newsforagers/colony.db" in out
    assert list(table_rows(out)) == ["f1"]


@pytest.mark.parametrize("run, store, note", [
    (True, False, "showing the newest run under .newsforagers/runs/: 20260101T000000Z-1\n"),
    (False, True, "no run under .newsforagers/runs/: showing the default store alone\n"),
])
def test_without_run_or_store_whichever_of_them_is_there(tmp_path, monkeypatch, capsys, run, store, note):
    default_crawl(tmp_path, run=run, store=store)
    monkeypatch.chdir(tmp_path)
    code, out, err = status(capsys)
    assert code == 0, err
    assert out.startswith(note)
    assert ("store sqlite:///.newsforagers/colony.db" in out) == store
    assert not (tmp_path / ".newsforagers" / "colony.db").exists() or store  # not made


@pytest.mark.parametrize("files", [{}, {"events.jsonl": ""}, {"events.jsonl": '{"event": "st'}])
def test_empty_run(tmp_path, capsys, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    code, out, err = status(capsys, tmp_path)
    assert code == 0, err
    assert f"no events yet in {tmp_path / 'events.jsonl'}" in out
    assert "┃" not in out  # no table


def test_interval_must_be_positive(run_dir, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["status", str(run_dir), "--live", "--interval", "0"])
    assert exc.value.code == 2


def test_live_redraws_what_was_appended(run_dir):
    args = build_parser().parse_args(["status", str(run_dir), "--live", "--interval", "0.5"])
    buffer = io.StringIO()
    slept = []

    def sleep(seconds):
        slept.append(seconds)
        with open(run_dir / "events.jsonl", "a", encoding="utf-8") as handle:
            if len(slept) == 1:  # the half-written line gets its end
                handle.write('ore": 100.0, "time": "%s", "sim_time": null}\n' % at(60))
            elif len(slept) == 2:
                handle.write(json.dumps(event("retire", "f3", 70, score=20.0)) + "\n")

    code = status_command.run(args, console=Console(file=buffer, width=200), sleep=sleep,
                              max_refreshes=3)
    assert code == 0
    assert slept == [0.5, 0.5, 0.5]
    out = buffer.getvalue()
    rows = table_rows(out)  # a non-terminal gets the last drawing once, at the end
    assert list(rows) == ["f1", "f2", "f3", "f10", "f11"]
    assert rows["f11"][:4] == ["f11", "f3", "alive", "100.00"]
    assert rows["f3"][2] == "retired"
    assert "splits: 3" in out and "retirements: 2" in out and "alive: 2" in out
    assert "incomplete last line" not in out
    assert "every 0.5s (Ctrl-C to quit)" in out


def test_live_ends_on_ctrl_c_with_status_0(run_dir, monkeypatch, capsys):
    calls = []

    def sleep(seconds):
        calls.append(seconds)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr("time.sleep", sleep)
    code, out, err = status(capsys, run_dir, "--live")
    assert code == 0
    assert calls == [2.0, 2.0]  # the default interval
    assert list(table_rows(out)) == ["f1", "f2", "f3", "f10"]


# -- the pure functions ----------------------------------------------------------------------------


def test_parse_jsonl_keeps_the_unfinished_line():
    records, bad, rest = parse_jsonl(b'{"a": 1}\n\n[1, 2]\n\xff\xfe\n{"b": 2}\n{"c": ')
    assert records == [{"a": 1}, {"b": 2}]
    assert bad == 2  # a list, and bytes that are not UTF-8
    assert rest == b'{"c": '


def test_follower_reads_only_what_was_appended(tmp_path):
    path = tmp_path / "events.jsonl"
    follower = JsonlFollower(path)
    assert follower.read() == ([], False) and not follower.exists
    path.write_bytes(b'{"n": 1}\n{"n": ')
    assert follower.read() == ([{"n": 1}], False)
    assert follower.partial
    with open(path, "ab") as handle:
        handle.write(b'2}\nnope\n')
    assert follower.read() == ([{"n": 2}], False)
    assert follower.bad == 1 and not follower.partial
    path.write_bytes(b'{"n": 9}\n')  # rewritten, shorter
    assert follower.read() == ([{"n": 9}], True)
    assert follower.bad == 0


def test_finished_run_states_and_ages(tmp_path):
    # Colony.close: a last snapshot round, then a stop event for every forager still alive
    (tmp_path / "events.jsonl").write_text(lines([
        event("start", "f1", 0),
        event("split", "f2", 5, parent="f1"),
        event("teleport", "f1", 6, target="http://site/x"),
        event("stop", "f1", 100, score=130.0),
    ]))
    (tmp_path / "snapshots.jsonl").write_text(lines([
        snapshot("f1", 10, 1, 1, 1, 100.0), snapshot("f2", 10, 1, 0, 1, 100.0),
        snapshot("f1", 99, 5, 2, 10, 125.0),
    ]))
    monitor = read_run(tmp_path)
    report = build_report(monitor.state, now=T0 + timedelta(days=3))
    rows = {row.forager: row for row in report.rows}
    assert rows["f1"].state == "stopped" and rows["f1"].age == 100.0
    assert rows["f1"].score == 130.0  # the stop event is the newest record
    # missing from the last round, which the stop event says was complete
    assert rows["f2"].state == "ended" and rows["f2"].age == 5.0
    assert report.alive == 0 and report.teleports == 1 and report.splits == 1
    assert ("teleports", "1") in footer_items(report, now=T0 + timedelta(days=3))


def test_resumed_run_starts_again():
    state = RunState()
    for record in (event("start", "f1", 0), event("stop", "f1", 10), event("start", "f1", 100)):
        state.add_event(record)
    report = build_report(state, now=T0 + timedelta(seconds=130))
    assert report.rows[0].state == "alive" and report.rows[0].age == 30.0


def test_energy_policy_shows_energies():
    state = RunState()
    state.add_event({"event": "start", "forager": "f1", "parent": None, "energy": 3.5,
                     "time": at(0), "sim_time": None})
    state.add_snapshot({**snapshot("f1", 5, 4, 1, 10, 100.0), "energy": 2.25})
    report = build_report(state, now=T0)
    assert report.value_name == "energy"
    assert format_cells(report.rows[0])[4] == "2.25"


def test_sort_and_formats():
    names = ["f10", "root", "f2", "f1", "f1b", "g3"]
    assert sorted(names, key=forager_sort_key) == ["f1", "f1b", "f2", "f10", "g3", "root"]
    assert [format_age(s) for s in (None, 5, 65, 3700, 90000)] == ["—", "5s", "1m05s", "1h01m",
                                                                   "1d01h"]


def test_narrow_screen_drops_columns_not_digits(run_dir):
    args = build_parser().parse_args(["status", str(run_dir)])
    buffer = io.StringIO()
    assert status_command.run(args, console=Console(file=buffer, width=100)) == 0
    out = buffer.getvalue()
    assert "too narrow for: weblog head, |w|, parent" in out
    assert headers(out)[:3] == ["forager", "state", "score"]
    rows = table_rows(out)
    assert rows["f1"][:4] == ["f1", "alive", "140.50", "20"]
    assert all(len(line) <= 100 for line in out.splitlines())


# -- issue 29, row 9: what foragers report comes from pages -------------------------------------------


def test_a_weblog_head_s_escapes_and_markup_never_reach_the_terminal(tmp_path):
    path = tmp_path / "run"
    path.mkdir()
    (path / "events.jsonl").write_text(lines([event("start", "f1", 0)]), encoding="utf-8")
    head = "http://s/\x1b]0;x\x07\x1b[31m\x9b2J[b]B[/b]\u202eab"
    (path / "snapshots.jsonl").write_text(lines([snapshot("f1", 5, 1, 1, 2, 101.0, head=head)]),
                                          encoding="utf-8")
    buffer = io.StringIO()
    args = build_parser().parse_args(["status", "--run", str(path)])
    assert status_command.run(args, console=Console(file=buffer, width=300)) == 0
    out = buffer.getvalue()
    assert not [c for c in out if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0
                or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"], out
    column = headers(out).index("weblog head")
    assert table_rows(out)["f1"][column] == "http://s/]0;x[31m2J[b]B[/b]ab"  # markup shown as text
