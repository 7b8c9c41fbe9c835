"""Throughput of ``StateEncoder.transform`` (documents/second) on the digital.gov corpus.

Fits a 50-cluster encoder on the whole corpus (timed once), then encodes the corpus repeated
until at least ``--min-docs`` documents, best of ``--repeats`` runs. Not a test: run it by hand
and copy its result line into docs/benchmarks-text.md::

    .venv/bin/python benchmarks/bench_encoder.py
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import shlex
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from newsforagers.corpus import default_corpus_path, load_corpus
    from newsforagers.text import StateEncoder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus_path(),
                        help="corpus (default ../shared/data/digitalgov.jsonl.gz)")
    parser.add_argument("--clusters", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-docs", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.corpus is None:
        print("bench_encoder: no corpus (../shared/data/digitalgov.jsonl.gz is absent); "
              "pass --corpus", file=sys.stderr)
        return 2

    texts = [article.text for article in load_corpus(args.corpus).articles]
    started = time.perf_counter()
    encoder = StateEncoder(n_clusters=args.clusters, random_state=args.seed).fit(texts)
    fit_seconds = time.perf_counter() - started

    batch = texts * math.ceil(args.min_docs / len(texts))
    megabytes = sum(len(text.encode("utf-8")) for text in batch) / 1e6
    timings = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        states = encoder.transform(batch)
        timings.append(time.perf_counter() - started)
    assert states.shape == (len(batch), args.clusters)
    best = min(timings)

    # A crawler step encodes one page's links at a time: the per-call overhead matters too.
    small = {}
    for size in (1, 50):
        calls = [texts[i:i + size] for i in range(0, min(len(texts), 200 * size), size)]
        started = time.perf_counter()
        for call in calls:
            encoder.transform(call)
        small[size] = (time.perf_counter() - started) / len(calls)

    command = " ".join(shlex.quote(part) for part in [sys.executable, *sys.argv])
    print(f"corpus: {args.corpus} ({len(texts)} documents, "
          f"{sum(map(len, texts)) / len(texts):,.0f} characters on average)")
    print(f"fit: {fit_seconds:.2f} s ({args.clusters} clusters, "
          f"{len(encoder.vectorizer_.vocabulary_)} terms)")
    print(f"transform: {len(batch)} documents ({megabytes:.1f} MB), best of {args.repeats}: "
          f"{best:.2f} s = {len(batch) / best:,.0f} docs/s "
          f"(runs: {', '.join(f'{t:.2f}' for t in timings)} s)")
    print(f"small batches: 1 document {1e3 * small[1]:.2f} ms per call; 50 documents "
          f"{1e3 * small[50]:.1f} ms per call = {50 / small[50]:,.0f} docs/s")
    print(f"machine: {platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, {platform.machine()}")
    print(f"command: {command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
