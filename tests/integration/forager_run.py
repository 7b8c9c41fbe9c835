"""Helpers of the end-to-end tests: run ``scrapy crawl forager`` against a replay, as a user would."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Callable

from newsforagers.replay.log import read_log

REPO = Path(__file__).resolve().parents[2]
POLL = 0.1  # seconds between two checks of a crawl's ``until`` condition


@dataclass
class CrawlResult:
    returncode: int
    items: list[dict]
    log: str
    jobdir: Path | None

    def spider_state(self) -> dict:
        with open(self.jobdir / "spider.state", "rb") as f:
            return pickle.load(f)


def crawl_forager(url: str, tmp: Path, *, seconds: float, args: dict | None = None,
                  settings: dict | None = None, name: str = "run", timeout: float = 180,
                  until: Callable[[], bool] | None = None) -> CrawlResult:
    """``scrapy crawl forager -a seeds=URL ... -O items.jsonl`` from the repository root.

    ``seconds`` is the crawl's ``CLOSESPIDER_TIMEOUT``. With ``until``, the crawl is stopped as
    a user stops it (SIGINT: a clean shutdown, exit 0) as soon as ``until()`` holds — a test
    that needs the crawl only until something has happened does not wait for more; ``seconds``
    is then a backstop, reached only if it never happens.
    """
    out = tmp / f"{name}.jsonl"
    log = tmp / f"{name}.log"
    jobdir = tmp / f"{name}-job"
    argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={url}", "-O", str(out),
            "-s", f"CLOSESPIDER_TIMEOUT={seconds}", "-s", f"LOG_FILE={log}", "-s", "LOG_LEVEL=INFO",
            "-s", f"JOBDIR={jobdir}", "-s", "TELNETCONSOLE_ENABLED=False"]
    for key, value in (args or {}).items():
        argv += ["-a", f"{key}={value}"]
    for key, value in (settings or {}).items():
        argv += ["-s", f"{key}={value}"]
    returncode, stderr = run_crawl(argv, log, timeout, dict(os.environ, PYTHONUNBUFFERED="1"), until)
    items = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    text = log.read_text() if log.exists() else ""
    return CrawlResult(returncode, items, text + stderr, jobdir)


def run_crawl(argv: list[str], log: Path, timeout: float, env: dict,
              until: Callable[[], bool] | None = None) -> tuple[int, str]:
    """Run the crawl ``argv`` from the repository root (see :func:`_run_until`); its exit code
    and stderr. A crawl still running after ``timeout`` seconds raises :class:`CrawlHung` with
    the end of its ``log`` and where each of its threads was (faulthandler, on SIGABRT)."""
    try:
        return _run_until(argv, until, timeout, dict(env, PYTHONFAULTHANDLER="1"))
    except CrawlHung as hung:
        text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
        raise CrawlHung(f"{hung}\n-- end of its log --\n{text[-3000:]}\n-- stderr --\n{hung.stderr[-6000:]}",
                        hung.stderr) from None


class CrawlHung(AssertionError):
    """A crawl still running at its test's timeout (the message has the stacks of its threads)."""

    def __init__(self, message: str, stderr: str):
        super().__init__(message)
        self.stderr = stderr


def _run_until(argv: list[str], until: Callable[[], bool] | None, timeout: float,
               env: dict) -> tuple[int, str]:
    """Run ``argv`` (with ``until``: send it SIGINT once when ``until()`` holds); its exit
    code and stderr. :class:`CrawlHung` after ``timeout`` seconds: the process gets SIGABRT
    first, so that faulthandler writes where each of its threads was."""
    with tempfile.TemporaryFile("w+") as stderr:  # a pipe that nobody reads could fill up
        process = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=stderr, text=True,
                                   env=env)
        try:
            deadline = time.monotonic() + timeout
            while process.poll() is None and time.monotonic() < deadline:
                if until is not None and until():
                    process.send_signal(signal.SIGINT)
                    break
                time.sleep(POLL)
            try:
                returncode = process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGABRT)
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    pass
                stderr.seek(0)
                raise CrawlHung(f"the crawl was still running after {timeout:g} s: {argv}",
                                stderr.read()) from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        stderr.seek(0)
        return returncode, stderr.read()


def read_jsonl(path: Path) -> list[dict]:
    """The complete lines of a JSON-lines file that may still be being written (none while it
    does not exist): what a running crawl has recorded so far."""
    if not path.exists():
        return []
    return list(read_log(path))


def load_truth(path: Path) -> dict[str, datetime]:
    """path on the replay host -> publication time, from ``newsforagers replay --truth``."""
    truth = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        truth[record["path"]] = datetime.fromisoformat(record["published"])
    return truth


def truly_novel_items(run: dict, forager: str, minimum: int = 5) -> list[dict]:
    """A baseline's crawl (``run``: returncode, log, items, truth, requests) ended cleanly and
    output at least ``minimum`` documents, each novel by the replay's truth and none invalid;
    its items."""
    from newsforagers.evaluation.metrics import run_metrics

    assert run["returncode"] == 0, run["log"][-3000:]
    assert "Traceback" not in run["log"], run["log"][-3000:]
    items = run["items"]
    assert len(items) >= minimum, f"{forager} found {len(items)} documents"
    metrics = run_metrics(run["truth"], run["requests"], items, foragers=forager)
    assert metrics["invalid"] == dict.fromkeys(metrics["invalid"], 0)
    assert metrics["novel"] == len(items) and metrics["requests"] > 0
    return items
