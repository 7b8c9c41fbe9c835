"""Helpers of the end-to-end tests: run ``scrapy crawl forager`` against a replay, as a user would."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


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
                  settings: dict | None = None, name: str = "run", timeout: float = 180) -> CrawlResult:
    """``scrapy crawl forager -a seeds=URL ... -O items.jsonl`` from the repository root."""
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
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))
    items = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    text = log.read_text() if log.exists() else ""
    return CrawlResult(done.returncode, items, text + done.stderr, jobdir)


def load_truth(path: Path) -> dict[str, datetime]:
    """path on the replay host -> publication time, from ``newsforagers replay --truth``."""
    truth = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        truth[record["path"]] = datetime.fromisoformat(record["published"])
    return truth
