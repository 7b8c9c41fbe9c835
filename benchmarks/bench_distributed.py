"""Issue 17's benchmark: a colony on Redis, in 1, 2 and 4 processes and on 1 and 2 scrapyd
nodes of this machine, against the SQLite store in one process.

    .venv/bin/python benchmarks/bench_distributed.py --out /tmp/bench17      # about 10 min
    .venv/bin/python benchmarks/bench_distributed.py --only budget --seconds 20

Run from the repository root. Every run crawls the replayed synthetic site (12 sections, 300
stories a day, speed 600, on 127.0.0.1) for ``--seconds`` with a fixed population
(``FORAGERS_MIN`` = ``FORAGERS_MAX`` = the foragers of the row) of the papers' foragers, which
never idle: what limits them is the machine, not the site. A real ``redis-server`` and real
scrapyd nodes are started on free loopback ports (the tests' helpers) and stopped after.

Per row: pages/s (requests the site received over the crawl's span), Redis requests per page
(the ``newsforagers/store/calls`` every process of the colony reports at its end, summed,
over the pages), documents paid, and the busiest second at the site. The ``budget`` rows give
the colony ``FORAGERS_HOST_RATE=--rate`` and show it bind at the same rate whatever the number
of processes. Writes ``results.json`` and ``results.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from newsforagers.replay.log import busiest_second, read_log  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402
from newsforagers.replay.synth import synth_corpus  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402
from tests.scrapyd_nodes import copy_project, deploy, start_node  # noqa: E402

START = "2024-01-01T07:00:00+00:00"
STATS = re.compile(r"'newsforagers/store/calls': (\d+)")
PAID = re.compile(r"'newsforagers/agent/rewarded': (\d+)")


def run(name: str, *, replay_url: str, requests: Path, directory: Path, seconds: float,
        foragers: int, store: str, spawner: str = "inprocess", nodes: list | None = None,
        rate: float = 0.0, prefix: str = "", extra: dict | None = None) -> dict:
    """One colony run; its row."""
    directory.mkdir(parents=True)
    log = directory / "run.log"
    settings = {"FORAGERS_STRATEGY": "paper", "FORAGERS_MIN": foragers, "FORAGERS_MAX": foragers,
                "FORAGERS_STORE": store, "FORAGERS_SPAWNER": spawner, "FORAGERS_SEED": 7,
                "FORAGERS_BOOTSTRAP_PAGES": 100, "FORAGERS_FETCH_TTL": 0,
                "FORAGERS_HOST_RATE": rate, "FORAGERS_RUN_DIR": directory / "record",
                "CLOSESPIDER_TIMEOUT": seconds, "LOG_FILE": log, "LOG_LEVEL": "INFO",
                "TELNETCONSOLE_ENABLED": False}
    if prefix:
        settings["FORAGERS_REDIS_PREFIX"] = prefix
    settings.update(extra or {})
    if nodes:
        settings["FORAGERS_SCRAPYD_URLS"] = ",".join(node.url for node in nodes)
    argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={replay_url}",
            "-a", "speed=600", "-O", str(directory / "found.jsonl")]
    for key, value in settings.items():
        argv += ["-s", f"{key}={value}"]
    before = len(list(read_log(requests))) if requests.exists() else 0
    began = time.time()
    process = subprocess.run(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, timeout=seconds + 180)
    if nodes:  # the jobs end with the colony; their logs hold their stats
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(
                node.request("listjobs.json", {"project": "newsforagers"})["running"] for node in nodes):
            time.sleep(0.5)
    records = [r for r in list(read_log(requests))[before:] if r["path"] != "/robots.txt"]
    times = [float(r["wall_time"]) for r in records]
    texts = [log.read_text(errors="replace") if log.exists() else ""]
    for node in nodes or []:
        texts += [p.read_text(errors="replace") for p in (node.directory / "logs").rglob("*.log")
                  if p.stat().st_mtime >= began]
    calls = sum(int(m) for text in texts for m in STATS.findall(text))
    paid = sum(int(m) for text in texts for m in PAID.findall(text))
    span = (max(times) - min(times)) if len(times) > 1 else 0.0
    row = {"run": name, "foragers": foragers, "store": store.split("://")[0], "spawner": spawner,
           "nodes": len(nodes or []), "rate": rate, "exit": process.returncode,
           "pages": len(records), "span": span, "pages_per_s": len(records) / span if span else 0.0,
           "store_calls": calls, "calls_per_page": calls / len(records) if records else None,
           "paid": paid, "busiest_second": busiest_second(r["wall_time"] for r in records),
           "processes": len({r["forager"] for r in records if r["forager"]})}
    print(json.dumps(row), flush=True)
    if process.returncode != 0:
        print(process.stderr[-2000:], file=sys.stderr)
    return row


def markdown(rows: list[dict]) -> str:
    lines = ["| run | foragers | store | spawner | nodes | rate limit | pages | pages/s "
             "| Redis requests/page | paid | busiest second |",
             "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        per_page = "—" if r["store"] != "redis" else f"{r['calls_per_page']:.2f}"
        limit = f"{r['rate']:g}/s" if r["rate"] else "none"
        lines.append(f"| {r['run']} | {r['foragers']} | {r['store']} | {r['spawner']} | {r['nodes']} | "
                     f"{limit} | {r['pages']} | {r['pages_per_s']:.1f} | {per_page} | {r['paid']} | "
                     f"{r['busiest_second']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="bench17-out")
    parser.add_argument("--seconds", type=float, default=30.0, help="of crawl per run")
    parser.add_argument("--rate", type=float, default=10.0, help="the budget rows' FORAGERS_HOST_RATE")
    parser.add_argument("--only", choices=("throughput", "scrapyd", "budget"), default=None)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for every run's colony (repeatable)")
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.set)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench17-"))
    corpus = synth_corpus(work / "synth.jsonl.gz", days=3, rate=300, sections=12, seed=11)
    redis = RedisServer(work / "redis").start()
    nodes = []
    rows: list[dict] = []
    t0 = time.perf_counter()
    try:
        requests = work / "requests.jsonl"
        with ReplayProcess(corpus, speed=600, start=START, log_path=requests) as replay:
            common = {"replay_url": replay.url, "requests": requests, "seconds": args.seconds}
            n = 0

            def colony(name, **kwargs):
                nonlocal n
                n += 1
                if kwargs.get("store") == "redis":
                    kwargs["store"], kwargs["prefix"] = redis.url, f"run{n}:"
                rows.append(run(name, directory=work / f"run{n}", extra=extra, **common, **kwargs))

            if args.only in (None, "throughput"):
                colony("SQLite, one process", foragers=4, store=f"sqlite:///{work}/one.db")
                colony("Redis, one process", foragers=4, store="redis")
                for k in (1, 2, 4):
                    colony(f"Redis, {k} process(es)", foragers=k, store="redis",
                           spawner="process" if k > 1 else "inprocess")
            if args.only in (None, "scrapyd"):
                repository = copy_project(REPO, work / "repository")
                for i in range(2):
                    node = start_node(work / f"node{i}", max_proc=4)
                    deploy(repository, node, "newsforagers")
                    nodes.append(node)
                for k in (1, 2):
                    colony(f"Redis, scrapyd on {k} node(s)", foragers=4, store="redis",
                           spawner="scrapyd", nodes=nodes[:k])
            if args.only in (None, "budget"):
                for k in (1, 2, 4):
                    colony(f"budget, {k} process(es)", foragers=k, store="redis",
                           spawner="process" if k > 1 else "inprocess", rate=args.rate)
    finally:
        for node in nodes:
            node.stop()
        redis.stop()
    wall = time.perf_counter() - t0
    text = (f"{len(rows)} runs of {args.seconds:g} s each, wall time {wall:.0f} s; this machine: "
            f"{os.cpu_count()} cores\n\n" + markdown(rows))
    (out / "results.md").write_text(text)
    (out / "results.json").write_text(json.dumps({"rows": rows, "args": vars(args), "wall": wall}, indent=1))
    print(text)
    return 0 if all(r["exit"] == 0 for r in rows) else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    sys.exit(main())
