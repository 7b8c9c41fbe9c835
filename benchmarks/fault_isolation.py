"""Fault isolation: do the healthy sites of a many-site run lose anything to the faulty ones?

    .venv/bin/python benchmarks/fault_isolation.py --faults /tmp/b-faults --clean /tmp/b-clean \
        --profiles profiles.json [--crawler scheduled]

Reads two ``newsforagers bench --sites N`` output folders of the same corpus, sites and
settings: ``--faults`` ran with ``--site-profiles`` FILE (some sites down, some answering 429),
``--clean`` without those faults. The *healthy* sites are those FILE gives neither a ``down``
window nor an ``errors`` burst; over their stories (each run's window, simulated minutes) it
prints, per run and pooled over each folder's repeats, the median and p90 lag and the recall,
and the faulty run's median against the clean one's (issue 31's target: within 10 %). Lags are
the bench's own (:func:`~newsforagers.evaluation.bench.sites.site_measures`' definitions:
an item matched to its story by full URL, found truly novel).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from newsforagers.evaluation.bench.evaluate import read_jsonl  # noqa: E402
from newsforagers.evaluation.bench.sites import qualify, split_site_path  # noqa: E402
from newsforagers.evaluation.metrics import classify_items, percentile, run_window, truth_times  # noqa: E402


def faulty_sites(profiles: Path) -> set[int]:
    """The site numbers a profile file gives a ``down`` window or an ``errors`` burst."""
    sites = json.loads(profiles.read_text()).get("sites") or {}
    return {int(n) for n, profile in sites.items() if profile.get("down") or profile.get("errors")}


def healthy_lags(run_dir: Path, faulty: set[int]) -> tuple[list[float], int]:
    """The lags (simulated minutes) of the healthy sites' stories found in one run, and how
    many of their stories were published in the run's window."""
    truth, _ = read_jsonl(run_dir / "truth.jsonl")
    log, _ = read_jsonl(run_dir / "requests.jsonl")
    items, _ = read_jsonl(run_dir / "items.jsonl")
    window = run_window(log)
    if window is None:
        return [], 0
    healthy_hosts = {r["host"] for r in truth if r.get("host") and int(r.get("site", -1)) not in faulty}
    truth_q, _, items_q = qualify(truth, log, items)
    times, _ = truth_times(truth_q)
    novel, _ = classify_items(items_q, times)
    found = {path: (published, at) for path, published, at in novel}
    lags, stories = [], 0
    for path, published in times.items():
        host, _ = split_site_path(path)
        if host not in healthy_hosts or not window[0] <= published <= window[1]:
            continue
        stories += 1
        if path in found:
            lags.append(max(0.0, (found[path][1] - found[path][0]).total_seconds() / 60.0))
    return lags, stories


def summary(out: Path, crawler: str, faulty: set[int]) -> dict:
    runs = sorted((out / "runs").glob(f"{crawler}-r*"))
    if not runs:
        raise SystemExit(f"{out}: no runs of {crawler!r} (runs/{crawler}-rN)")
    per_run, pooled, stories = [], [], 0
    for run in runs:
        lags, n = healthy_lags(run, faulty)
        per_run.append({"run": run.name, "median": percentile(lags, 50), "p90": percentile(lags, 90),
                        "recall": len(lags) / n if n else None})
        pooled += lags
        stories += n
    return {"runs": per_run, "median": percentile(pooled, 50), "p90": percentile(pooled, 90),
            "recall": len(pooled) / stories if stories else None, "stories": stories}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--faults", required=True, type=Path, help="bench output with the faults")
    parser.add_argument("--clean", required=True, type=Path, help="bench output without them")
    parser.add_argument("--profiles", required=True, type=Path, help="the --site-profiles file of --faults")
    parser.add_argument("--crawler", default="scheduled")
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args()
    faulty = faulty_sites(args.profiles)
    results = {"faulty_sites": sorted(faulty),
               "faults": summary(args.faults, args.crawler, faulty),
               "clean": summary(args.clean, args.crawler, faulty)}
    clean, faults = results["clean"]["median"], results["faults"]["median"]
    results["median_ratio"] = faults / clean if clean and faults is not None else None
    for name in ("clean", "faults"):
        entry = results[name]
        runs = ", ".join(f"{r['median']:.1f}" for r in entry["runs"] if r["median"] is not None)
        print(f"{name:>6}: healthy sites' lag median {entry['median']:.1f} (runs {runs}), "
              f"p90 {entry['p90']:.1f}, recall {entry['recall']:.3f} of {entry['stories']} stories")
    if results["median_ratio"] is not None:
        print(f"faulty run's median / clean run's: {results['median_ratio']:.3f} (target: within 10 %)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
