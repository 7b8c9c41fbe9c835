"""``newsforagers synth -o corpus.jsonl.gz``: write a synthetic news corpus."""

from __future__ import annotations

import argparse

HELP = "write a synthetic news corpus (the replay's format) for tests and demos"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", required=True,
                        help="output file, .jsonl or .jsonl.gz")
    parser.add_argument("--days", type=float, default=7.0, help="simulated days (default 7)")
    parser.add_argument("--rate", type=float, default=200.0,
                        help="articles per simulated day on average (default 200)")
    parser.add_argument("--sections", type=int, default=20, help="number of sections (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--start", default=None,
                        help="first simulated day, ISO 8601 (default 2024-01-01T00:00:00+00:00)")


def run(args: argparse.Namespace) -> int:
    import sys
    from datetime import datetime, timezone

    from newsforagers.replay.synth import DEFAULT_START, synth_corpus

    start = DEFAULT_START
    if args.start:
        try:
            start = datetime.fromisoformat(args.start)
        except ValueError:
            print(f"newsforagers synth: --start {args.start!r} is not an ISO 8601 date", file=sys.stderr)
            return 2
        if start.tzinfo is None:
            start = start.replace(tzinfo=timezone.utc)
    try:
        path = synth_corpus(args.output, days=args.days, rate=args.rate, sections=args.sections,
                            seed=args.seed, start=start)
    except (ValueError, OSError) as exc:
        print(f"newsforagers synth: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path} ({round(args.days * args.rate)} articles, {args.sections} sections, "
          f"seed {args.seed})")
    return 0
