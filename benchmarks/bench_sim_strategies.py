"""Issue 7's table in the fast simulator: the papers' forager against adaptive hub polling and
the ``scheduled`` forager, under equal request budgets, on a large news site without a global
"latest" list.

    .venv/bin/python benchmarks/bench_sim_strategies.py [--days 3] [--sections 90] [--rate 21]
        [--budgets 2,5,10] [--seeds 1,2,3] [--crawlers adaptive,scheduled]
        [--set FORAGERS_SCHEDULE_SCARCE_FLOOR=0] [--json FILE]

The site (:class:`newsforagers.sim.world.NewsWorld`): ``--sections`` section fronts with Zipf
popularity, ``--rate`` stories per simulated hour (Poisson), the home page linking every front,
a front listing its latest 20 stories. Budgets are requests per simulated minute. Per crawler:
recall (stories published in the run found within 24 h), median and p90 discovery lag
(simulated minutes), download efficiency (found / downloads); mean ± std over the seeds (each
seed a different site and crawler randomness).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from newsforagers.config import ForagersConfig  # noqa: E402
from newsforagers.learning import ScorePolicy  # noqa: E402
from newsforagers.sim.colony import run_colony  # noqa: E402
from newsforagers.sim.strategies import run_adaptive, run_scheduled  # noqa: E402
from newsforagers.sim.world import NewsWorld  # noqa: E402

CRAWLERS = ("adaptive", "paper forager", "paper colony of 4", "scheduled")


def measure(found, downloads, published) -> dict:
    lags = sorted((f.found_at - f.published) / 60.0 for f in found)
    p90 = lags[int(round(0.9 * (len(lags) - 1)))] if lags else None
    return {"recall": len({f.url for f in found}) / max(published, 1),
            "lag_median": statistics.median(lags) if lags else None, "lag_p90": p90,
            "download_efficiency": len(found) / max(downloads, 1), "downloads": downloads}


def run(crawler: str, world: NewsWorld, duration: float, budget: float, seed: int,
        settings: dict | None = None) -> dict:
    rng = np.random.default_rng(1000 + seed)
    if crawler == "adaptive":
        result = run_adaptive(world, duration, budget)
    elif crawler == "scheduled":
        config = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": world.k, **(settings or {})})
        result = run_scheduled(world, duration, budget, rng, config=config)
    else:
        n = 1 if crawler == "paper forager" else 4
        result = run_colony(world, duration, rng, budget=budget,
                            policy=ScorePolicy(min_foragers=n, max_foragers=n))
    return measure(result.found, result.downloads, len(world.published_between(0.0, duration)))


def cell(values: list[float | None], digits: int) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    mean = statistics.fmean(values)
    std = statistics.pstdev(values) if len(values) > 1 else 0.0
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=3.0)
    parser.add_argument("--sections", type=int, default=90)
    parser.add_argument("--rate", type=float, default=21.0)
    parser.add_argument("--budgets", default="2,5,10", help="requests per simulated minute")
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--crawlers", default=",".join(CRAWLERS),
                        help="comma-separated, from " + ",".join(CRAWLERS))
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE",
                        help="a FORAGERS_* setting of the scheduled forager (repeatable)")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    settings = dict(item.split("=", 1) for item in args.settings)
    crawlers = [c for c in CRAWLERS if c in args.crawlers.split(",")]
    began = time.perf_counter()
    duration = args.days * 86400.0
    budgets = [float(b) for b in args.budgets.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    results: dict = {}
    for budget in budgets:
        for seed in seeds:
            world = NewsWorld(duration, n_sections=args.sections, rate_per_hour=args.rate,
                              rng=np.random.default_rng(seed))
            for crawler in crawlers:
                results.setdefault(f"{budget:g}", {}).setdefault(crawler, []).append(
                    run(crawler, world, duration, budget / 60.0, seed, settings))
    print(f"NewsWorld: {args.days:g} days, {args.sections} sections, {args.rate:g} stories/h; "
          f"seeds {args.seeds}; wall {time.perf_counter() - began:.1f} s")
    print()
    print("| crawler | budget (req/min) | recall | median lag (min) | p90 lag (min) | download efficiency |")
    print("|---|---|---|---|---|---|")
    for budget, by_crawler in results.items():
        for crawler, runs in by_crawler.items():
            print(f"| {crawler} | {budget} | {cell([r['recall'] for r in runs], 3)} | "
                  f"{cell([r['lag_median'] for r in runs], 1)} | {cell([r['lag_p90'] for r in runs], 1)} | "
                  f"{cell([r['download_efficiency'] for r in runs], 3)} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
