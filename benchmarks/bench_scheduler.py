"""Scheduler throughput at 100k pending requests: ForagerScheduler against Scrapy's own.

    .venv/bin/python benchmarks/bench_scheduler.py [--pending 100000] [--ops 50000]

Three measurements, each "one enqueue + one next_request" per op with ``--pending`` requests
waiting (best of 3):

1. Scrapy's default scheduler (memory queues, dupefilter) with plain requests;
2. ForagerScheduler with the same plain requests (it is Scrapy's scheduler for them);
3. a forager's frontier (ForagerPath): one new probed URL with its 50-d state added and the
   best frontier URL taken, at fixed weights (a pop from the value heap), and with a TD step
   changing the weights every 100 ops (each change re-scores the whole frontier once).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scrapy import Request, Spider
from scrapy.core.scheduler import Scheduler
from scrapy.utils.test import get_crawler

from newsforagers.learning.path import ForagerPath
from newsforagers.scheduler import ForagerScheduler


def scheduler_ops(cls, pending: int, ops: int) -> float:
    # ScrapyPriorityQueue for both: the downloader-aware default needs a running engine
    crawler = get_crawler(Spider, {"SCHEDULER": f"{cls.__module__}.{cls.__qualname__}",
                                   "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.ScrapyPriorityQueue"})
    crawler.spider = crawler._create_spider("bench")
    scheduler = cls.from_crawler(crawler)
    scheduler.open(crawler.spider)
    for i in range(pending):
        scheduler.enqueue_request(Request(f"http://bench.local/p/{i}", priority=i % 7))
    requests = [Request(f"http://bench.local/n/{i}", priority=i % 7) for i in range(ops)]
    start = time.perf_counter()
    for request in requests:
        scheduler.enqueue_request(request)
        scheduler.next_request()
    elapsed = time.perf_counter() - start
    scheduler.close("finished")
    return ops / elapsed


def frontier_ops(pending: int, ops: int, change_every: int | None) -> float:
    rng = np.random.default_rng(0)
    k = 50
    path = ForagerPath(k=k, max_steps=10**9)
    path.begin("http://bench.local/start")
    path.add_frontier([f"http://bench.local/p/{i}" for i in range(pending)],
                      np.tanh(rng.normal(size=(pending, k))).astype(np.float32))
    w = rng.normal(size=k)
    path.choose_next(w)  # scores the frontier once
    new_rows = np.tanh(rng.normal(size=(ops, k))).astype(np.float32)
    urls = [f"http://bench.local/n/{i}" for i in range(ops)]
    start = time.perf_counter()
    for i in range(ops):
        path.add_frontier([urls[i]], new_rows[i: i + 1])
        if change_every and i % change_every == 0:
            w = w + 0.01 * rng.normal(size=k)
        path.choose_next(w)
    return ops / (time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pending", type=int, default=100_000)
    parser.add_argument("--ops", type=int, default=50_000)
    args = parser.parse_args(argv)
    print(f"command: {' '.join([sys.executable.rsplit('/', 1)[-1], *sys.argv])}")
    best = lambda f: max(f() for _ in range(3))  # noqa: E731
    scrapy_rate = best(lambda: scheduler_ops(Scheduler, args.pending, args.ops))
    forager_rate = best(lambda: scheduler_ops(ForagerScheduler, args.pending, args.ops))
    frontier_fixed = best(lambda: frontier_ops(args.pending, args.ops, None))
    frontier_td = best(lambda: frontier_ops(args.pending, args.ops // 10, 100))
    print(f"pending requests: {args.pending}")
    print(f"Scrapy Scheduler, plain requests          : {scrapy_rate:10,.0f} enqueue+next/s")
    print(f"ForagerScheduler, plain requests          : {forager_rate:10,.0f} enqueue+next/s "
          f"({forager_rate / scrapy_rate:.2f}x)")
    print(f"forager frontier, fixed weights           : {frontier_fixed:10,.0f} add+choose/s "
          f"({frontier_fixed / scrapy_rate:.2f}x)")
    print(f"forager frontier, TD step every 100 ops   : {frontier_td:10,.0f} add+choose/s "
          f"({frontier_td / scrapy_rate:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
