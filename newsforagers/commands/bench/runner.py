"""The benchmark's runs as processes. For every run of the plan, in order (repeat-major, so
that a slow phase of a shared machine touches every crawler alike), :func:`run_one` starts a
fresh replay of the same window (``ReplayProcess``: same corpus, profile, retime, speed, start
and site seed; with ``--sites``, the same sites, their home pages written to the run's
``seeds.txt`` for the crawler) and runs the crawler as ``scrapy crawl`` in its own process
under the same request budget per host (``FORAGERS_HOST_RATE`` for a colony, ``-a rate`` for a
baseline) for ``duration`` wall seconds (``CLOSESPIDER_TIMEOUT``), then judges the run from the files it
left (:func:`newsforagers.evaluation.bench.evaluate.evaluate_files`). :func:`run_bench` runs
the whole plan and writes the results after every run.

A run that fails — the crawler exits non-zero, does not end in time, writes output that is
not JSON lines, or the replay does not start — is a record with ``status: "failed"`` and its
problems; it is left out of the means and listed, and the other runs go on.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from newsforagers.evaluation.bench.config import BenchConfig
from newsforagers.evaluation.bench.evaluate import evaluate_files
from newsforagers.evaluation.bench.plan import (
    SEEDS_FILE,
    PlannedRun,
    crawl_argv,
    plan_runs,
    replay_kwargs,
    run_identity,
    show_argv,
)
from newsforagers.evaluation.bench.report import write_results
from newsforagers.evaluation.bench.site import Site
from newsforagers.evaluation.bench.summary import summarise

if TYPE_CHECKING:
    from newsforagers.commands.bench.progress import Progress

logger = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[3]
SETTINGS_MODULE = "newsforagers.settings"

CommandFactory = Callable[[BenchConfig, PlannedRun, str, Path], list[str]]


def run_one(config: BenchConfig, run: PlannedRun, site: Site, *,
            command: CommandFactory = crawl_argv) -> dict[str, Any]:
    """Start a fresh replay, run the crawler against it, evaluate the run: its record.

    Never raises for a failure of the run (a crawler that crashes, hangs or writes garbage; a
    replay that does not start): the record says ``status: "failed"`` and why.
    """
    from newsforagers.replay.process import ReplayProcess

    out = Path(config.out)
    run_dir = out / "runs" / run.name
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("requests.jsonl", "truth.jsonl", "items.jsonl", "crawl.log", "colony.db", SEEDS_FILE):
        (run_dir / stale).unlink(missing_ok=True)
    record: dict[str, Any] = {**run_identity(config, run),
                              "run_dir": str(Path("runs") / run.name), "status": "ok",
                              "returncode": None, "wall_seconds": None, "argv": None}
    problems = []
    began = time.monotonic()
    try:
        with ReplayProcess(**replay_kwargs(config, site.start, run_dir)) as replay:
            argv = command(config, run, replay.url, run_dir)
            record["argv"] = show_argv(argv, replay.url, out)
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            cwd = REPO if (REPO / "scrapy.cfg").is_file() else run_dir
            env.setdefault("SCRAPY_SETTINGS_MODULE", SETTINGS_MODULE)
            with open(run_dir / "stderr.txt", "w", encoding="utf-8") as stderr:
                try:
                    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                          stderr=stderr, timeout=config.duration + config.grace)
                    record["returncode"] = done.returncode
                    if done.returncode != 0:
                        problems.append(f"the crawler exited with status {done.returncode} "
                                        f"(see {record['run_dir']}/stderr.txt, crawl.log)")
                except subprocess.TimeoutExpired:
                    problems.append(f"the crawler did not end within "
                                    f"{config.duration + config.grace:g} s and was killed")
    except Exception as exc:  # the replay did not start, or died: a failed run, not a crash
        problems.append(f"the replay failed: {exc}")
    record["wall_seconds"] = round(time.monotonic() - began, 1)
    try:
        evaluated = evaluate_files(config, run, run_dir, site.changes, site.pages, site.many)
    except Exception as exc:  # garbage beyond what the readers tolerate
        logger.exception("bench: cannot evaluate run %s", run.name)
        evaluated = {"metrics": None, "window": None, "counts": None, "series": {},
                     "problems": [f"cannot evaluate the run: {exc!r}"], "bad_lines": {}}
    problems += evaluated.pop("problems")
    record.update(evaluated)
    record["log_errors"] = _log_errors(run_dir / "crawl.log")
    if problems:
        record["status"] = "failed"
    record["problems"] = problems
    return record


def _log_errors(path: Path) -> dict[str, int]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return {"errors": 0, "tracebacks": 0}
    return {"errors": text.count("] ERROR: "), "tracebacks": text.count("Traceback")}


def run_bench(config: BenchConfig, site: Site, *,
              runner: Callable[[BenchConfig, PlannedRun, Site], dict] = run_one,
              progress: "Progress | None" = None, command: Sequence[str] = ()) -> dict[str, Any]:
    """Run the whole plan; results are written after every run (an interrupted benchmark
    keeps what it measured) and returned."""
    records: list[dict] = []
    results = summarise(config, site.describe(), records, command)
    for run in plan_runs(config):
        if progress is not None:
            progress.begin(run)
        try:
            record = runner(config, run, site)
        except Exception as exc:  # a runner must not raise; if it does, the run failed
            logger.exception("bench: run %s", run.name)
            record = {**run_identity(config, run),
                      "status": "failed", "problems": [f"the run raised {exc!r}"], "metrics": None}
        records.append(record)
        results = summarise(config, site.describe(), records, command)
        write_results(config.out, results)
        if progress is not None:
            progress.end(run, record)
    return results


__all__ = ["CommandFactory", "run_bench", "run_one"]
