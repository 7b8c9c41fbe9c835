"""Pages per second of one forager through the whole stack against a plain Scrapy spider.

    .venv/bin/python benchmarks/bench_forager_stack.py [--corpus PATH] [--seconds 30] [--model M]

Both crawl the same replay (``--speed 600``, ``hard`` profile; the digital.gov corpus retimed
to 200 a day when ``../shared/data`` is there, else a synthetic one) with no politeness limit
(16 concurrent requests, no delay, no AutoThrottle, robots.txt obeyed), each in its own
``scrapy`` process for ``--seconds``. The forager runs everything it runs in production:
page reading and htmldate, featurising (a trained encoder with ``--model``, else its own
bootstrap), the value scheduler with its step barrier, the reinforcing-agent pipeline on SQLite.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from newsforagers.corpus import default_corpus_path  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402
from newsforagers.replay.synth import synth_corpus  # noqa: E402

COMMON = ["-s", "CONCURRENT_REQUESTS=16", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16",
          "-s", "DOWNLOAD_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "ROBOTSTXT_OBEY=True",
          "-s", "TELNETCONSOLE_ENABLED=False", "-s", "LOG_LEVEL=INFO"]


def stats_of(log: str) -> dict:
    """The numbers of Scrapy's final stats dump."""
    block = log.split("Dumping Scrapy stats:", 1)[1]
    numbers = {}
    for key, value in re.findall(r"'([^']+)': ([0-9.e+-]+)[,}]", block):
        numbers[key] = ast.literal_eval(value)
    return numbers


def run(argv: list[str], tmp: Path, name: str) -> dict:
    log = tmp / f"{name}.log"
    subprocess.run(argv + ["-s", f"LOG_FILE={log}"], cwd=REPO, check=True, timeout=600)
    stats = stats_of(log.read_text())
    stats["pages_per_second"] = stats["response_received_count"] / stats["elapsed_time_seconds"]
    return stats


def main(args=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--model", help="a trained StateEncoder (newsforagers train)")
    args = parser.parse_args(args)
    print("command:", " ".join(["python", *sys.argv]))
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        corpus = args.corpus or default_corpus_path()
        retime = 200.0 if corpus is not None and args.corpus is None else None
        if corpus is None:
            corpus = synth_corpus(tmp / "synth.jsonl.gz", days=7, rate=300, sections=20, seed=1)
        python = sys.executable
        results = {}
        for name in ("plain", "forager"):
            # a fresh replay for each, from the same simulated start
            with ReplayProcess(corpus, speed=600, retime=retime, log_path=tmp / f"{name}-requests.jsonl") as replay:
                if name == "plain":
                    argv = [python, "-m", "scrapy", "runspider", str(REPO / "benchmarks" / "plain_spider.py"),
                            "-a", f"start={replay.url}"]
                else:
                    argv = [python, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={replay.url}",
                            "-s", f"FORAGERS_STORE=sqlite:///{tmp}/colony.db", "-s", "FORAGERS_MIN=1",
                            # the papers' forager: it never idles, so pages/s is its pace
                            "-s", "FORAGERS_STRATEGY=paper",
                            # every page a real download: pages/s counts responses
                            "-s", "FORAGERS_FETCH_TTL=0"]
                    if args.model:
                        argv += ["-a", f"model={args.model}"]
                results[name] = run(argv + COMMON + ["-s", f"CLOSESPIDER_TIMEOUT={args.seconds}"], tmp, name)
        plain, forager = results["plain"]["pages_per_second"], results["forager"]["pages_per_second"]
        print(f"corpus: {corpus} (retime {retime})")
        print(f"plain Scrapy spider : {plain:8.1f} pages/s")
        print(f"one forager         : {forager:8.1f} pages/s ({forager / plain:.2f}x); "
              f"{results['forager'].get('newsforagers/steps', 0)} steps, "
              f"{results['forager'].get('newsforagers/probes', 0)} probes, "
              f"{results['forager'].get('item_scraped_count', 0)} novel documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
