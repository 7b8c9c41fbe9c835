"""How many requests a second the replay serves on this machine (target: >= 500).

The replay runs as the real command in a subprocess (``newsforagers replay ... --port 0``, with
its request log on), the client hammers it from this process over loopback with a few
keep-alive connections in threads, for a bounded number of requests per page kind::

    .venv/bin/python benchmarks/bench_replay.py                  # digital.gov if present, else synth
    .venv/bin/python benchmarks/bench_replay.py --corpus synth --requests 4000 --connections 4

Page kinds: ``article`` (random published articles), ``front`` (home, section fronts and their
page 2, author and section x author fronts), each without and with ``Accept-Encoding: gzip``
(Scrapy always asks for gzip). The first pass over the pages renders them; the numbers are
for a second, timed pass, as a crawl sees the site after its first minutes.
"""

from __future__ import annotations

import argparse
import http.client
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from newsforagers.corpus import default_corpus_path, load_corpus  # noqa: E402
from newsforagers.replay.index import SiteIndex  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402
from newsforagers.replay.synth import synth_corpus  # noqa: E402


def hammer(base: str, paths: list[str], total: int, connections: int,
           headers: dict[str, str], in_order: bool = False) -> tuple[float, int, int]:
    """Send ``total`` GETs over ``connections`` keep-alive connections; (req/s, errors, bytes).

    Paths are drawn at random, or with ``in_order`` each one once, in turn across connections.
    """
    parts = urlsplit(base)
    per_thread = [total // connections + (1 if k < total % connections else 0)
                  for k in range(connections)]
    errors = [0] * connections
    received = [0] * connections
    barrier = threading.Barrier(connections + 1)

    def worker(k: int) -> None:
        rng = random.Random(k)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        barrier.wait()
        mine = paths[k::connections] if in_order else None
        for n in range(per_thread[k]):
            conn.request("GET", mine[n] if in_order else rng.choice(paths), headers=headers)
            reply = conn.getresponse()
            received[k] += len(reply.read())
            if reply.status != 200:
                errors[k] += 1
        conn.close()
        barrier.wait()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(connections)]
    for thread in threads:
        thread.start()
    barrier.wait()
    began = time.perf_counter()
    barrier.wait()
    elapsed = time.perf_counter() - began
    for thread in threads:
        thread.join()
    return total / elapsed, sum(errors), sum(received)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="auto",
                        help="a corpus file, 'synth', or 'auto' (digital.gov when present)")
    parser.add_argument("--retime", type=float, default=200.0)
    parser.add_argument("--speed", type=float, default=600.0)
    parser.add_argument("--requests", type=int, default=3000, help="requests per measurement")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--profile", default="hard", choices=("hard", "easy"))
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    corpus_path = args.corpus
    if corpus_path == "auto":
        corpus_path = default_corpus_path() or "synth"
    if corpus_path == "synth":
        corpus_path = synth_corpus(workdir / "synth.jsonl.gz", days=14, rate=200, sections=30)
    # The same timeline the server will build (same corpus, retime rate and seed), to start
    # the clock in the middle of the corpus and know which pages exist.
    index = SiteIndex(load_corpus(corpus_path), retime=args.retime, seed=0)
    middle = index.articles[len(index.articles) // 2]
    replay = ReplayProcess(corpus_path, profile=args.profile, speed=args.speed,
                           start=middle.published.isoformat(), retime=args.retime,
                           log_path=workdir / "requests.jsonl")
    published = [a.path for a in index.articles[: middle.index + 1]]
    fronts = ["/"]
    for f in index.fronts.values():
        if f.first_ts <= middle.ts:
            fronts.append(f.path)
            if f.kind == "section" and f.visible(middle.ts) > 20:
                fronts.append(f.path + "?page=2")
    print(f"corpus {corpus_path}: {len(index.articles)} articles, {len(index.fronts)} fronts; "
          f"retime {args.retime:g}/day, speed {args.speed:g}, profile {args.profile}")
    print(f"pages: {len(published)} published articles, {len(fronts)} fronts; "
          f"{args.requests} requests x {args.connections} connections per line")
    print(f"server: {' '.join(replay.argv[1:])}")
    results = []
    with replay:
        for kind, paths in (("article", published), ("front", fronts)):
            # First visits render every page (markdown, templates): what a crawl's first
            # minutes cost the server.
            headers = {"X-Forager": "bench"}
            rate, errors, size = hammer(replay.url, paths, len(paths), args.connections,
                                        headers, in_order=True)
            results.append((kind + " first", rate, errors, size / len(paths)))
            print(f"  {kind + ' first':<14} {rate:8.0f} req/s   "
                  f"{size / len(paths) / 1024:6.1f} KiB/resp   non-200: {errors}", flush=True)
            for gz in (False, True):
                headers = {"X-Forager": "bench"} | ({"Accept-Encoding": "gzip"} if gz else {})
                rate, errors, size = hammer(replay.url, paths, args.requests, args.connections,
                                            headers)
                label = f"{kind}{' gzip' if gz else ''}"
                results.append((label, rate, errors, size / args.requests))
                print(f"  {label:<14} {rate:8.0f} req/s   {size / args.requests / 1024:6.1f} KiB/resp"
                      f"   non-200: {errors}", flush=True)
    log_lines = sum(1 for _ in open(workdir / "requests.jsonl"))
    print(f"request log: {log_lines} lines; server exit code {replay.process.returncode}")
    slowest = min(rate for _, rate, _, _ in results)
    verdict = "meets" if slowest >= 500 else "BELOW"
    print(f"slowest line: {slowest:.0f} req/s ({verdict} the 500 req/s target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
