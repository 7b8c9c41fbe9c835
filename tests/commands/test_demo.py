"""``newsforagers demo``: what it prints at the end (the recall and what it counts, where the
results are, the commands, which must work as printed, pasted into the shell it ran in), no
warning on the way, the colony's splits and retirements shown as they happen, and ``--quiet``
printing the summary alone."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from contextlib import redirect_stdout
from datetime import UTC, datetime
from pathlib import Path

import pytest

from newsforagers.commands.demo import EVENTS_POLL, _follow_events, command_words, event_line

SECONDS = 15
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")
RECALL = re.compile(r"^  recall {16}: (\d\.\d\d): (\d+) of the (\d+) articles published in the window "
                    r"found \(documents published before it are not counted\)$")


SCRIPT = Path(sys.executable).with_name("newsforagers")


def pasted(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``argv`` run as a shell pasted into would run it (PATH and all), from ``cwd``."""
    env = {k: v for k, v in os.environ.items() if k.lower() not in _PROXY_VARIABLES}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=SECONDS + 120)


def newsforagers(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The ``newsforagers`` command as a user runs it (the virtualenv's script)."""
    argv = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "newsforagers.cli"]
    return pasted([*argv, *args], cwd)


def this_command() -> list[str]:
    """The words the demo started by :func:`newsforagers` prints for itself: the name when it
    is what PATH finds, else the script's path."""
    if not SCRIPT.exists():
        return [sys.executable, "-m", "newsforagers.cli"]
    on_path = shutil.which("newsforagers")
    return ["newsforagers"] if on_path and os.path.samefile(on_path, SCRIPT) else [str(SCRIPT)]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """One short demo, run from a fresh directory with a relative --run-dir (as the default
    ``.newsforagers/demo`` is): the paths it prints are relative to where it ran."""
    cwd = tmp_path_factory.mktemp("demo")
    run = newsforagers("demo", "--seconds", str(SECONDS), "--run-dir", "out", cwd=cwd)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return cwd, run


@pytest.mark.timeout(SECONDS + 180)
def test_recall_says_what_it_counts(demo):
    _, run = demo
    lines = [line for line in run.stdout.splitlines() if line.startswith("  recall ")]
    assert len(lines) == 1, run.stdout
    match = RECALL.match(lines[0])
    assert match, lines[0]
    recall, found, published = float(match.group(1)), int(match.group(2)), int(match.group(3))
    assert 0 < published and 0 <= found <= published
    assert recall == pytest.approx(found / published, abs=0.005)
    window = next(line for line in run.stdout.splitlines() if line.startswith("  simulated window"))
    assert window.endswith(f", {published} articles published")  # the same articles


@pytest.mark.timeout(SECONDS + 180)
def test_last_lines_say_where_the_results_are_and_the_commands_work_as_printed(demo):
    cwd, run = demo
    last = run.stdout.rstrip("\n").splitlines()[-7:]
    assert last[0] == "results", run.stdout[-2000:]
    fields = dict(line.strip().split(" : ", 1) for line in last[1:])
    assert list(fields) == ["run directory        ", "colony store (SQLite)", "request log          ",
                            "export what was found", "search what was found", "see it in a browser  "]
    run_dir = Path(fields["run directory        "].split(" (")[0])
    store = Path(fields["colony store (SQLite)"])
    requests = Path(fields["request log          "].split(" (")[0])
    for path in (run_dir, store, requests):
        assert not path.is_absolute() and (cwd / path).exists(), path  # relative to where it ran
    assert (cwd / run_dir / "events.jsonl").is_file()
    assert store.suffix == ".db" and store.parent == run_dir.parent == requests.parent == Path("out")
    me = this_command()  # `newsforagers` only when PATH finds this very one

    status = shlex.split(fields["run directory        "].split("; ", 1)[1].rstrip(")"))
    assert status == [*me, "status", "--run", str(run_dir), "--store", str(store)]
    shown = pasted(status, cwd)
    assert shown.returncode == 0, shown.stderr
    assert f"run {run_dir} · store sqlite:///{store}" in shown.stdout and "f1" in shown.stdout

    command = shlex.split(fields["export what was found"])
    assert command == [*me, "export", "--store", str(store), "-o", "found.jsonl"]
    export = pasted(command, cwd)
    assert export.returncode == 0, export.stderr
    exported = [json.loads(line) for line in (cwd / "found.jsonl").read_text(encoding="utf-8").splitlines()]
    output = int(re.search(r"^  novel documents {7}: (\d+) output", run.stdout, re.MULTILINE).group(1))
    assert len(exported) == output  # every document the demo printed, from the store
    printed = sum(" found '" in line for line in run.stdout.splitlines())
    assert printed == output

    # the search command, with a word of a found document's title, finds it (the colony kept
    # the index beside its store)
    command = shlex.split(fields["search what was found"])
    assert command[:-1] == [*me, "search", "--store", str(store)] and command[-1] == "WORDS"
    word = max(exported[0]["title"].split(), key=len).strip(".,:;!?'\"")
    found = pasted([*command[:-1], "--json", word], cwd)
    assert found.returncode == 0, found.stderr
    assert exported[0]["url"] in [json.loads(line)["url"] for line in found.stdout.splitlines()]
    web = shlex.split(fields["see it in a browser  "])
    assert web == [*me, "web", "--store", str(store), "--run", str(run_dir)]


@pytest.mark.timeout(120)
def test_quiet_prints_the_summary_alone(tmp_path):
    run = newsforagers("demo", "--seconds", "2", "--quiet", "--run-dir", "out", cwd=tmp_path)
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    lines = run.stdout.splitlines()
    assert lines[0] == "summary", run.stdout  # no site line, no document found, no split
    assert all(line.startswith("  ") and " : " in line for line in lines[1:]), run.stdout
    assert "results" not in lines and "export" not in run.stdout
    assert list((tmp_path / "out").glob("colony-*.db"))  # written all the same


def test_the_commands_printed_run_this_newsforagers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = tmp_path / ".venv" / "bin" / "newsforagers"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    # PATH finds this very script: its name is enough
    assert command_words(str(script), on_path=str(script)) == ["newsforagers"]
    # `make demo`: .venv/bin is not on PATH (or another newsforagers is): the path, as typed,
    # relative to where the demo ran as its other paths are
    assert command_words(".venv/bin/newsforagers", on_path="") == [".venv/bin/newsforagers"]
    other = tmp_path / "newsforagers"
    other.write_text("#!/bin/sh\n")
    assert command_words(".venv/bin/newsforagers", on_path=str(other)) == [".venv/bin/newsforagers"]
    # `python -m newsforagers.cli`: the same
    assert command_words("/src/newsforagers/cli.py", on_path=str(script), python="/py/python3") == [
        "/py/python3", "-m", "newsforagers.cli"]


@pytest.mark.timeout(SECONDS + 180)
def test_no_warning_on_the_way(demo):
    _, run = demo
    # A 15-second demo does not fit its state encoder yet; that the default strategy's encoder
    # fits without the "state nearly constant" warning is tests/text/test_encoder.py's
    # test_each_strategy_gets_its_own_squashing_and_the_default_ones_state_is_informative.
    warnings = [line for line in (run.stdout + run.stderr).splitlines() if "WARNING" in line]
    assert warnings == []


# -- splits and retirements, as they happen ---------------------------------------------------------

NOW = datetime(2024, 1, 1, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize("record, line", [
    ({"event": "split", "forager": "f3", "parent": "f1", "score": 100.0,
      "sim_time": "2024-01-01T08:14:59+00:00"}, "[08:14] f1 split: f3 born"),
    ({"event": "retire", "forager": "f2", "parent": None, "score": -0.25,
      "sim_time": "2024-01-01T11:02:00+00:00"}, "[11:02] f2 retired (score -0.2)"),
    ({"event": "retire", "forager": "f4", "parent": None, "energy": -0.5, "sim_time": None},
     "[09:30] f4 retired (energy -0.5)"),  # no site time read yet: the site's clock now
    ({"event": "start", "forager": "f1", "parent": None, "score": 100.0}, None),
    ({"event": "stop", "forager": "f1", "parent": None, "score": 120.0}, None),
    ({"event": "split"}, None),  # not an event the colony writes: nothing, no error
])
def test_event_line(record, line):
    assert event_line(record, NOW) == line


def test_events_are_printed_as_the_colony_writes_them(tmp_path):
    from twisted.internet.task import Clock

    class Site:
        class clock:
            @staticmethod
            def now():
                return NOW

    reactor = Clock()
    events = tmp_path / "run" / "events.jsonl"  # not there yet: the colony has not started
    out = io.StringIO()
    with redirect_stdout(out):
        stop = _follow_events(reactor, events, Site())
        reactor.advance(EVENTS_POLL)
        events.parent.mkdir()
        with open(events, "w", encoding="utf-8") as colony:
            colony.write(json.dumps({"event": "start", "forager": "f1", "parent": None}) + "\n")
            colony.write(json.dumps({"event": "split", "forager": "f3", "parent": "f1",
                                     "sim_time": "2024-01-01T08:14:00+00:00"}) + "\n")
            colony.flush()
            reactor.advance(EVENTS_POLL)
            assert out.getvalue() == "[08:14] f1 split: f3 born\n"
            colony.write(json.dumps({"event": "retire", "forager": "f2", "parent": None, "score": 0.0,
                                     "sim_time": "2024-01-01T08:20:00+00:00"}) + "\n")
            colony.flush()
        stop()  # the crawl ended: a last read, then no more polling
    assert out.getvalue() == "[08:14] f1 split: f3 born\n[08:20] f2 retired (score 0.0)\n"
    assert reactor.getDelayedCalls() == []
