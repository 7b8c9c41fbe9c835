"""Commands that need an optional package (an extra of the package) say so in one line before
any work starts, with exit status 2: ``bench`` and matplotlib (``[plots]``), ``status`` and rich
(``[status]``). Nothing is uninstalled: a subprocess hides the package behind a meta-path finder
that refuses it, as Python does for a package that is not installed. And ``bench`` checks the
FORAGERS_* settings its crawls will get before the first crawl."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from newsforagers import cli

REPO = Path(__file__).resolve().parents[2]

# Runs ``newsforagers ARGS`` with the modules named in HIDDEN (and their submodules) missing.
_WRAPPER = textwrap.dedent("""
    import sys

    HIDDEN = set(sys.argv[1].split(","))

    class NotInstalled:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in HIDDEN:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    from newsforagers.cli import main

    sys.exit(main(sys.argv[2:]))
""")


def without(hidden: str, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    return subprocess.run([sys.executable, "-c", _WRAPPER, hidden, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_wrapper_really_hides_the_package():
    run = without("matplotlib", "--help")
    assert run.returncode == 0, run.stderr
    probe = subprocess.run([sys.executable, "-c", _WRAPPER.replace("from newsforagers.cli import main",
                                                                   "import matplotlib"), "matplotlib"],
                           capture_output=True, text=True, timeout=60)
    assert "ModuleNotFoundError: No module named 'matplotlib'" in probe.stderr


def test_bench_without_matplotlib_stops_before_any_crawl(tmp_path):
    out = tmp_path / "bench"
    corpus = tmp_path / "corpus.jsonl"  # never read: the check comes first
    run = without("matplotlib", "bench", "--corpus", str(corpus), "--out", str(out), "--crawlers", "bfs",
                  "--repeats", "1", "--duration", "1")
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == [
        "newsforagers bench: the plots need matplotlib, and matplotlib is not installed: "
        "install newsforagers with its [plots] extra (in its checkout: pip install '.[plots]') (or add --no-plots)"]
    assert run.stdout == ""
    assert not out.exists()  # run_bench creates it before the first crawl: none started


def test_bench_with_no_plots_does_not_need_matplotlib(tmp_path):
    out = tmp_path / "bench"
    # the next check (a --set typo) answers, so the matplotlib check was passed over and no crawl runs
    run = without("matplotlib", "bench", "--corpus", str(tmp_path / "corpus.jsonl"), "--out", str(out),
                  "--crawlers", "bfs", "--no-plots", "--set", "FORAGERS_WEBLOG_SIZ=3")
    assert run.returncode == 2, run.stderr
    assert "matplotlib" not in run.stderr
    assert "FORAGERS_WEBLOG_SIZ is not a newsforagers setting" in run.stderr
    assert not out.exists()


def test_status_without_rich_names_the_extra(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "events.jsonl").write_text("", encoding="utf-8")
    run = without("rich", "status", str(run_dir))
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == [
        "newsforagers status: the table needs rich, and rich is not installed: "
        "install newsforagers with its [status] extra (in its checkout: pip install '.[status]')"]


def test_missing_extra(monkeypatch):
    assert cli.missing_extra("json", "anything") is None
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # Python's own "not installed" for a name
    assert cli.missing_extra("matplotlib", "plots") == \
        ("matplotlib is not installed: install newsforagers with its [plots] extra "
         "(in its checkout: pip install '.[plots]')")


@pytest.mark.parametrize("settings, crawlers, message", [
    (["FORAGERS_WEBLOG_SIZ=3"], "wlrl,bfs",
     "newsforagers bench: --set: FORAGERS_WEBLOG_SIZ is not a newsforagers setting; did you mean "
     "FORAGERS_WEBLOG_SIZE? (in the wlrl crawls)"),
    (["FORAGERS_REWARD=-5"], "bfs",
     "newsforagers bench: --set: FORAGERS_REWARD (-5.0) must be > 0. (in the bfs crawls)"),
    # the papers' colonies take the energy population, the scheduled one cannot
    (["FORAGERS_POPULATION=energy"], "wlrl,scheduled",
     "newsforagers bench: --set: FORAGERS_STRATEGY ('scheduled') must be 'paper' with "
     "FORAGERS_POPULATION='energy'"),
])
def test_bench_refuses_a_bad_setting_before_any_crawl(tmp_path, capsys, settings, crawlers, message):
    out = tmp_path / "bench"
    argv = ["bench", "--corpus", str(tmp_path / "corpus.jsonl"), "--out", str(out), "--crawlers", crawlers,
            "--no-plots"]
    for setting in settings:
        argv += ["--set", setting]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_bench_accepts_settings_every_crawl_takes(tmp_path, capsys):
    from newsforagers.replay.synth import synth_corpus

    corpus = synth_corpus(tmp_path / "corpus.jsonl.gz", days=1, rate=50, sections=4, seed=1)
    # the energy population with the papers' colonies only, which take it: the plan is printed
    argv = ["bench", "--corpus", str(corpus), "--out", str(tmp_path / "b"), "--crawlers", "wlrl,rl",
            "--set", "FORAGERS_POPULATION=energy", "--set", "FORAGERS_MIN=3", "--dry-run"]
    assert cli.main(argv) == 0
    plan = capsys.readouterr().out
    assert "FORAGERS_POPULATION=energy" in plan and "FORAGERS_STRATEGY=paper" in plan
