"""Issue 19's daily and weekly rhythms in the fast simulator: the ``scheduled`` forager with
constant novelty rates against the same forager with ``FORAGERS_SCHEDULE_RHYTHM`` (rates
``ℓ_i·p(t)`` from a learned hour-of-week profile), on a site that publishes in a daily and
weekly rhythm (quiet nights, a morning peak, slower weekends).

    .venv/bin/python benchmarks/bench_sim_rhythm.py [--days 4] [--sections 90] [--rate 21]
        [--budgets 2,5] [--thresholds 0.035,0.07,0.14] [--seeds 1,2,3,4,5] [--flat]
        [--set KEY=VALUE ...] [--json FILE]

The site (:class:`newsforagers.sim.world.NewsWorld` with :func:`~newsforagers.sim.world.news_rhythm`;
``--flat``: the same rate at every hour, the control): ``--sections`` fronts with Zipf
popularity, ``--rate`` stories per average hour, time 0 a Thursday 00:00 UTC (four days:
Thursday to Sunday). Budgets are requests per simulated minute; each threshold
(``FORAGERS_SCHEDULE_THRESHOLD``) is one point of a curve of lag against requests, so the two
schedulers are also compared at equal requests: the constant-rate scheduler's lag
interpolated at the requests the rhythm's run made. Per run: recall, median / p90 / mean lag
(simulated minutes), download efficiency (found / downloads), downloads; means over the seeds.
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
from newsforagers.sim.strategies import run_scheduled  # noqa: E402
from newsforagers.sim.world import NewsWorld, news_rhythm  # noqa: E402

MODES = (("constant", False), ("rhythm", True))
MEASURES = ("recall", "lag_median", "lag_p90", "lag_mean", "download_efficiency", "downloads")


def measure(result, world: NewsWorld, duration: float) -> dict:
    lags = sorted((f.found_at - f.published) / 60.0 for f in result.found)
    return {"recall": len({f.url for f in result.found}) / max(len(world.published_between(0.0, duration)), 1),
            "lag_median": statistics.median(lags), "lag_p90": lags[int(round(0.9 * (len(lags) - 1)))],
            "lag_mean": statistics.fmean(lags),
            "download_efficiency": len(result.found) / max(result.downloads, 1),
            "downloads": result.downloads}


def setting(text: str) -> tuple[str, str]:
    key, _, value = text.partition("=")
    if not key.startswith("FORAGERS_") or not value:
        raise argparse.ArgumentTypeError(f"--set wants a setting as NAME=VALUE, not {text!r}")
    return key, value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=4.0)
    parser.add_argument("--sections", type=int, default=90)
    parser.add_argument("--rate", type=float, default=21.0)
    parser.add_argument("--budgets", default="2,5", help="requests per simulated minute")
    parser.add_argument("--thresholds", default="0.035,0.07,0.14", help="FORAGERS_SCHEDULE_THRESHOLD values")
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--flat", action="store_true", help="a site without rhythm (the control)")
    parser.add_argument("--set", type=setting, action="append", default=[], metavar="KEY=VALUE",
                        help="another setting for both schedulers")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    if args.days < 3:
        parser.error("--days must be at least 3 (the profile needs days to show its worth)")
    began = time.perf_counter()
    duration = args.days * 86400.0
    budgets = [float(b) for b in args.budgets.split(",")]
    thresholds = [float(t) for t in args.thresholds.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    worlds = {seed: NewsWorld(duration, n_sections=args.sections, rate_per_hour=args.rate,
                              rng=np.random.default_rng(seed), rhythm=None if args.flat else news_rhythm())
              for seed in seeds}
    results: dict = {}
    for budget in budgets:
        for threshold in thresholds:
            for mode, rhythm in MODES:
                runs = []
                for seed, world in worlds.items():
                    config = ForagersConfig.from_settings({
                        "FORAGERS_N_CLUSTERS": world.k, "FORAGERS_SCHEDULE_RHYTHM": rhythm,
                        "FORAGERS_SCHEDULE_THRESHOLD": threshold, **dict(args.set)})
                    result = run_scheduled(world, duration, budget / 60.0, np.random.default_rng(1000 + seed),
                                           config=config)
                    runs.append(measure(result, world, duration))
                results.setdefault(f"{budget:g}", {}).setdefault(f"{threshold:g}", {})[mode] = {
                    name: statistics.fmean(run[name] for run in runs) for name in MEASURES} | {"runs": runs}
    site = "without rhythm (control)" if args.flat else "with a daily and weekly rhythm"
    print(f"NewsWorld {site}: {args.days:g} days from a Thursday, {args.sections} sections, "
          f"{args.rate:g} stories per average hour; seeds {args.seeds}; settings {dict(args.set) or '-'}; "
          f"wall {time.perf_counter() - began:.0f} s")
    print()
    print("| budget (req/min) | threshold | scheduler | recall | median lag (min) | p90 lag (min) | "
          "mean lag (min) | download efficiency | downloads |")
    print("|---|---|---|---|---|---|---|---|---|")
    for budget, by_threshold in results.items():
        for threshold, by_mode in by_threshold.items():
            for mode, row in by_mode.items():
                print(f"| {budget} | {threshold} | {mode} | {row['recall']:.3f} | {row['lag_median']:.1f} | "
                      f"{row['lag_p90']:.1f} | {row['lag_mean']:.1f} | {row['download_efficiency']:.3f} | "
                      f"{row['downloads']:,.0f} |")
    print()
    print("At equal requests (the constant-rate curve over the thresholds, interpolated at the "
          "rhythm's downloads; — outside its range):")
    print()
    print("| budget (req/min) | threshold | downloads | median lag, constant → rhythm | "
          "p90 lag, constant → rhythm | mean lag, constant → rhythm |")
    print("|---|---|---|---|---|---|")
    for budget, by_threshold in results.items():
        constant = sorted((row["constant"]["downloads"], row["constant"]) for row in by_threshold.values())
        xs = [x for x, _ in constant]
        for threshold, by_mode in by_threshold.items():
            rhythm = by_mode["rhythm"]
            cells = []
            for name in ("lag_median", "lag_p90", "lag_mean"):
                if xs[0] <= rhythm["downloads"] <= xs[-1]:
                    base = float(np.interp(rhythm["downloads"], xs, [row[name] for _, row in constant]))
                    cells.append(f"{base:.1f} → {rhythm[name]:.1f} ({rhythm[name] / base - 1:+.0%})")
                else:
                    cells.append(f"— → {rhythm[name]:.1f}")
            print(f"| {budget} | {threshold} | {rhythm['downloads']:,.0f} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
