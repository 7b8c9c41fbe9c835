"""One colony over many slow sites: does it send what the budget allows, and politely?

    .venv/bin/python benchmarks/bench_many_sites.py                       # R = 20 and 100, ~3 min
    .venv/bin/python benchmarks/bench_many_sites.py --rates 20 --seconds 60 --latency 0.5 --sites 20
    .venv/bin/python benchmarks/bench_many_sites.py --set FORAGERS_SCHEDULE_IN_FLIGHT=1 ...

A synthetic corpus (``--days`` days of ``--per-day`` stories in ``--sites`` sections) is served
by ``newsforagers replay --sites N`` — each section a site on its own loopback address (with
``--split hash``, each site an equal share of the stories instead: work on every host), every
answer held back a log-normal latency (median ``--latency`` wall seconds, σ of its log 0.5) —
from half-way through its first day, at ``--speed``, so that the day's backlog is there to
harvest from the first request. For each total budget R of ``--rates`` the colony
(``scrapy crawl forager -a seeds=@FILE``, the default ``scheduled`` strategy and population)
gets ``FORAGERS_HOST_RATE = R / sites`` and ``CONCURRENT_REQUESTS`` = ``--concurrency`` for
``--seconds``; from the replay's request log:

- **sent/s**: requests per wall second from ``--warmup`` seconds after the first request to the
  last, against R (target: ≥ 0.9 R while there is work);
- **while the backlog lasts**: the same from ``--warmup`` seconds after the first request until
  95 % of the stories published on the first request's day before it (the backlog, listed on
  every host's day archive) have been fetched: while work is known and the budget, not the
  work, binds (after it the colony is work-bound: the new stories come at ``--per-day`` and
  are found by its listing visits, under ``FORAGERS_SCHEDULE_POLL_SHARE``);
- **busiest host-second**: the most requests one host received in any one-second window (its
  politeness: at most ⌊R / sites⌋, ``colony/throttle.py``);
- the crawl's in-flight cap (``newsforagers/scheduled/in_flight_cap``) and the calls that passed a busy host over.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from crawl_usage import forager_argv, read_usage  # noqa: E402  (benchmarks/crawl_usage.py)

from newsforagers.corpus import load_corpus  # noqa: E402
from newsforagers.replay.log import busiest_second, read_log  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402
from newsforagers.replay.synth import synth_corpus  # noqa: E402


def stats_of(log_text: str) -> dict:
    """The colony's numeric ``newsforagers/...`` stats from every forager's final dump in the
    crawl's log: ``sum`` of each over the foragers, ``max``, and how many ``crawlers`` dumped."""
    total: dict[str, float] = {}
    most: dict[str, float] = {}
    for key, value in re.findall(r"'(newsforagers/[^']+)': ([0-9][0-9.e+-]*)[,}]", log_text):
        number = float(value)
        total[key] = total.get(key, 0.0) + number
        most[key] = max(most.get(key, number), number)
    return {"sum": total, "max": most, "crawlers": log_text.count("Dumping Scrapy stats")}


BACKLOG_SHARE = 0.95  # the backlog lasts until this share of it has been fetched


def backlog_phase(corpus: Path, records: list[dict], warmup: float) -> tuple[float | None, float | None]:
    """``(seconds from the first request until BACKLOG_SHARE of the backlog was fetched, requests
    per second sent from warmup until then)``: the backlog is the stories published on the
    first request's (simulated) day before it; (None, None) without one or before the end."""
    if not records:
        return None, None
    first = min(records, key=lambda r: r["wall_time"])
    began = datetime.fromisoformat(first["sim_time"])
    day = began.replace(hour=0, minute=0, second=0, microsecond=0)
    backlog = {urlparse(article.url).path for article in load_corpus(corpus, sort=False)
               if day <= article.published <= began}
    if not backlog:
        return None, None
    fetched: set[str] = set()
    ordered = sorted(records, key=lambda r: r["wall_time"])
    for record in ordered:
        if record["status"] == 200 and record["path"] in backlog:
            fetched.add(record["path"])
            if len(fetched) >= BACKLOG_SHARE * len(backlog):
                until = record["wall_time"]
                break
    else:
        return None, None
    sent = [r["wall_time"] for r in ordered if first["wall_time"] + warmup <= r["wall_time"] <= until]
    span = sent[-1] - sent[0] if len(sent) > 1 else 0.0
    return until - first["wall_time"], (len(sent) / span if span else None)


def run_once(corpus: Path, rate: float, args: argparse.Namespace, work: Path) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    log, seeds, profiles = work / "requests.jsonl", work / "seeds.txt", work / "profiles.json"
    profiles.write_text(json.dumps({"default": {"latency": args.latency, "spread": 0.5}}))
    per_host = rate / args.sites
    crawl_log = work / "crawl.log"
    with ReplayProcess(corpus, speed=args.speed, start=args.start, log_path=log,
                       extra_args=["--sites", str(args.sites), "--split", args.split, "--site-profiles", str(profiles),
                                   "--seeds", str(seeds)]):
        argv = forager_argv(work, seeds, args.speed, args.seconds,
                            {"FORAGERS_STORE": f"sqlite:///{work}/colony.db", "FORAGERS_HOST_RATE": per_host,
                             "CONCURRENT_REQUESTS": args.concurrency, "FORAGERS_FETCH_TTL": 0.1}, args.set)
        began = time.monotonic()
        subprocess.run(argv, cwd=REPO, check=False, timeout=args.seconds + 120,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - began
    records = list(read_log(log))
    times = sorted(r["wall_time"] for r in records)
    first = times[0] if times else 0.0
    steady = [t for t in times if t >= first + args.warmup]
    span = (steady[-1] - steady[0]) if len(steady) > 1 else 0.0
    by_host: dict[str, list[float]] = defaultdict(list)
    for r in records:
        by_host[r["host"]].append(r["wall_time"])
    stats = stats_of(crawl_log.read_text() if crawl_log.exists() else "")
    backlog_until, backlog_rate = backlog_phase(corpus, records, args.warmup)
    items = sum(1 for _ in open(work / "items.jsonl")) if (work / "items.jsonl").exists() else 0
    return {
        "rate": rate, "per_host": per_host, "sites": args.sites, "split": args.split, "latency": args.latency,
        "requests": len(records), "wall": round(wall, 1),
        "sent_per_s": round(len(steady) / span, 2) if span else 0.0,
        "share_of_budget": round(len(steady) / span / rate, 3) if span else 0.0,
        "backlog_fetched_at": round(backlog_until, 1) if backlog_until is not None else None,
        "share_while_backlog": round(backlog_rate / rate, 3) if backlog_rate else None,
        "busiest_host_second": max((busiest_second(t) for t in by_host.values()), default=0),
        "hosts_read": len(by_host), "documents": items,
        "in_flight_cap": stats["max"].get("newsforagers/scheduled/in_flight_cap"),
        "host_busy": stats["sum"].get("newsforagers/scheduled/host_busy", 0),
        "decide_cpu_s": round(stats["sum"].get("newsforagers/scheduled/decide_cpu", 0.0), 2),
        "read_by_worker": int(stats["sum"].get("newsforagers/documents/read_by_worker", 0)),
        **read_usage(work / "usage.json"),  # the crawl process's peak RSS and CPU seconds
        "foragers": stats["crawlers"],  # the crawlers that dumped their stats: the colony's foragers
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", default="20,100", help="total budgets R, requests/s (comma-separated)")
    parser.add_argument("--sites", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.5, help="median latency, wall seconds")
    parser.add_argument("--split", choices=("section", "hash"), default="section",
                        help="section: each section a site (their sizes as the corpus has them, a few "
                             "busy and many quiet); hash: every site an equal share of the stories")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--speed", type=float, default=600.0)
    parser.add_argument("--days", type=int, default=2)
    parser.add_argument("--per-day", type=int, default=4000)
    parser.add_argument("--start", default="2024-01-01T12:00:00+00:00")
    parser.add_argument("--concurrency", type=int, default=128, help="CONCURRENT_REQUESTS of the crawl")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", default=None, help="write the results here")
    parser.add_argument("--keep", default=None, metavar="DIR",
                        help="work in DIR (new or empty) and keep it (the request logs, crawl logs, stores)")
    args = parser.parse_args()
    if args.keep:
        keep = Path(args.keep)
        if keep.exists() and any(keep.iterdir()):
            # an earlier run's request log would be appended to, and read as this run's
            parser.error(f"--keep {keep}: not empty (an earlier run's logs are there); give a new directory")
        keep.mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext(args.keep) if args.keep else tempfile.TemporaryDirectory(prefix="bench-many-")) as tmp:
        corpus = synth_corpus(Path(tmp) / "synth.jsonl.gz", days=args.days, rate=args.per_day,
                              sections=args.sites, seed=11)
        results = []
        for rate in [float(r) for r in args.rates.split(",")]:
            result = run_once(corpus, rate, args, Path(tmp) / f"r{rate:g}")
            results.append(result)
            print(json.dumps(result), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
