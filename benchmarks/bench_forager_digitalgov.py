"""One forager against the digital.gov replay: how many of its documents are truly novel.

    .venv/bin/python benchmarks/bench_forager_digitalgov.py [--seconds 180] [--model M] [--seed 1]

Serves ``../shared/data/digitalgov.jsonl.gz`` with ``--retime 200 --speed 600`` (hard profile),
runs ``scrapy crawl forager`` against it for ``--seconds`` (3 minutes = 30 simulated hours),
and checks every output document against the replay's truth: truly novel means an article of
the corpus, published at most 24 simulated hours before its ``found_at``, and not output
before. Recall is the share of the articles published in the crawled window that were output.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from newsforagers.corpus import default_corpus_path  # noqa: E402
from newsforagers.replay.log import read_log  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402
from tests.integration.forager_run import crawl_forager, load_truth  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--model")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--foragers", type=int, default=1,
                        help="FORAGERS_MIN: 1 measures one forager (issue 4), 2 the default colony")
    args = parser.parse_args(argv)
    corpus = args.corpus or default_corpus_path()
    if corpus is None:
        print("the digital.gov corpus (../shared/data) is not available")
        return 2
    print("command:", " ".join(["python", *sys.argv]))
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        with ReplayProcess(corpus, speed=600, retime=200, log_path=tmp / "requests.jsonl",
                           truth_path=tmp / "truth.jsonl") as replay:
            extra = {"model": args.model} if args.model else {}
            result = crawl_forager(replay.url, tmp, seconds=args.seconds, args=extra,
                                   settings={"FORAGERS_STRATEGY": "paper",  # the papers' forager
                                             "FORAGERS_STORE": f"sqlite:///{tmp}/colony.db",
                                             "FORAGERS_SEED": args.seed, "FORAGERS_MIN": args.foragers,
                                             "FORAGERS_MAX": max(args.foragers, 16),
                                             # shared downloads for one simulated minute
                                             "FORAGERS_FETCH_TTL": 60 / 600},
                                   timeout=args.seconds + 300)
        truth = load_truth(tmp / "truth.jsonl")
        log = list(read_log(tmp / "requests.jsonl"))
    if result.returncode != 0:
        print(result.log[-3000:])
        return 1
    first_sim = datetime.fromisoformat(log[0]["sim_time"])
    last_sim = datetime.fromisoformat(log[-1]["sim_time"])
    seen, novel, lags = set(), 0, []
    for item in result.items:
        path = urlsplit(item["url"]).path
        found_at = datetime.fromisoformat(item["found_at"])
        published = truth.get(path)
        if (published is not None and path not in seen
                and timedelta(0) <= found_at - published <= timedelta(hours=24)):
            novel += 1
            lags.append((found_at - published).total_seconds() / 60)
        seen.add(path)
    window = {p for p, t in truth.items() if first_sim <= t <= last_sim}
    recall = len(window & seen) / max(len(window), 1)
    share = novel / max(len(result.items), 1)
    print(f"simulated window : {first_sim:%Y-%m-%d %H:%M} to {last_sim:%Y-%m-%d %H:%M} "
          f"({(last_sim - first_sim).total_seconds() / 3600:.1f} h), {len(window)} articles published")
    print(f"requests served  : {len(log)}")
    print(f"output documents : {len(result.items)}, truly novel {novel} ({share:.1%})")
    print(f"recall           : {recall:.3f}")
    if lags:
        print(f"discovery lag    : median {statistics.median(lags):.1f} min, "
              f"p90 {sorted(lags)[int(0.9 * (len(lags) - 1))]:.1f} min")
    print(json.dumps({"output": len(result.items), "truly_novel": novel, "share": share,
                      "recall": recall, "requests": len(log), "window_articles": len(window)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
