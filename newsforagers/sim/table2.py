"""The selection paper's simulation experiment on a graph: Table 2 and the rewired control.

Palotai, Farkas & Lőrincz, "Selection in scale-free small world", Sect. 4.2: WL foragers
(weblog update, fixed random weights) and RL foragers (TD-tuned weights, fixed seed weblog),
"initially there were 2 foragers and they were allowed to multiply until reaching the
population of 16", each kind run 3 times with different initial weights; Table 1 defines the
measures, Table 2 reports their mean and standard deviation. Sect. 4.1/5: the same on the
degree-preserving rewired graph, where "RL foragers performed better than WL ones".

Measures (Table 1), per run:

- downloaded, sent, relevant (rewarded sends), found URLs (distinct URLs downloaded);
- download efficiency = relevant / downloaded; sent efficiency = relevant / sent (the paper
  defines them "in 3 hour time window[s] throughout the simulation", but its Table 2 values
  are the ratios of its totals — 3107 / 669673 = 0.0046, 3107 / 6345 = 0.49 — so totals);
- relative found URL = found URLs / downloaded;
- freshness and age (Cho & Garcia-Molina): at the end of every 3-hour window, of the relevant
  documents found in it, the share still current (their page has not changed since) and the
  mean age (0 when current, otherwise the time since the page first changed after the found
  version); averaged over the windows with finds.

Also reported (not in the paper): published documents, recall, median discovery lag, the
final population and the splits.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from newsforagers.learning import ScorePolicy
from newsforagers.sim.colony import ColonyResult, run_colony
from newsforagers.sim.graphworld import GraphNewsWorld

HOUR = 3600.0
DAY = 24 * HOUR
# Sect. 4.2.1: "Simulated time of a page download was the average download time of a real
# page": Table 2's WL foragers downloaded 669,673 pages in the 18 days.
PAPER_DAYS = 18.0
DOWNLOAD_SECONDS = PAPER_DAYS * DAY / 669_673
SLICE_SECONDS = 180.0  # Sect. 4.1: "Each forager had a 3 minute time interval"
WINDOW = 3 * HOUR

# Table 2 of the selection paper: (mean, std) for RL and WL foragers
PAPER_TABLE2 = {
    "rl": {"downloaded": (540636, 9840), "sent": (9747, 98), "relevant": (2419, 45),
           "found_urls": (31092, 1050), "download_efficiency": (0.0045, 0.0001),
           "sent_efficiency": (0.248, 0.003), "relative_found_urls": (0.058, 0.001),
           "freshness": (0.7, 0.006), "age_hours": (1.79, 0.04)},
    "wl": {"downloaded": (669673, 9580), "sent": (6345, 385), "relevant": (3107, 60),
           "found_urls": (33116, 3370), "download_efficiency": (0.0046, 0.0001),
           "sent_efficiency": (0.49, 0.031), "relative_found_urls": (0.05, 0.006),
           "freshness": (0.74, 0.011), "age_hours": (1.56, 0.08)},
}
COLUMNS = ("downloaded", "sent", "relevant", "found_urls", "download_efficiency",
           "sent_efficiency", "relative_found_urls", "freshness", "age_hours")
EXTRA = ("published", "recall", "median_lag_minutes", "final_foragers", "splits")
LABELS = {
    "downloaded": "downloaded", "sent": "sent", "relevant": "relevant",
    "found_urls": "found URLs", "download_efficiency": "download efficiency",
    "sent_efficiency": "sent efficiency", "relative_found_urls": "relative found URL",
    "freshness": "freshness", "age_hours": "age (hours)", "published": "published (ours)",
    "recall": "recall (ours)", "median_lag_minutes": "median lag, min (ours)",
    "final_foragers": "foragers at the end (ours)", "splits": "splits (ours)",
}


@dataclass(frozen=True)
class RunMetrics:
    graph: str
    mode: str
    seed: int
    downloaded: int
    sent: int
    relevant: int
    found_urls: int
    download_efficiency: float
    sent_efficiency: float
    relative_found_urls: float
    freshness: float
    age_hours: float
    published: int
    recall: float
    median_lag_minutes: float
    final_foragers: int
    splits: int
    wall_seconds: float


def freshness_and_age(world: GraphNewsWorld, result: ColonyResult, duration: float,
                      window: float = WINDOW) -> tuple[float, float]:
    """Table 1's freshness and age (hours), per ``window`` and averaged (module docstring)."""
    if not result.found:
        return math.nan, math.nan
    docs = np.array([f.document for f in result.found], dtype=np.int64)
    found_at = np.array([f.found_at for f in result.found])
    slot = np.floor(found_at / window).astype(np.int64)
    end = np.minimum((slot + 1) * window, duration)
    changed = world.events.next_change[docs]
    current = changed > end
    age = np.where(current, 0.0, end - changed) / HOUR
    _, inverse = np.unique(slot, return_inverse=True)
    counts = np.bincount(inverse)
    fresh = np.bincount(inverse, weights=current.astype(float)) / counts
    ages = np.bincount(inverse, weights=age) / counts
    return float(fresh.mean()), float(ages.mean())


def measure(world: GraphNewsWorld, result: ColonyResult, duration: float, graph: str,
            mode: str, seed: int, wall_seconds: float) -> RunMetrics:
    relevant = len(result.found)
    published = world.published_between(0.0, duration)
    freshness, age = freshness_and_age(world, result, duration)
    lags = sorted((f.found_at - f.published) / 60.0 for f in result.found)
    return RunMetrics(
        graph=graph, mode=mode, seed=seed, downloaded=result.downloads, sent=result.sends,
        relevant=relevant, found_urls=result.urls,
        download_efficiency=relevant / max(result.downloads, 1),
        sent_efficiency=relevant / max(result.sends, 1),
        relative_found_urls=result.urls / max(result.downloads, 1),
        freshness=freshness, age_hours=age, published=published,
        recall=relevant / max(published, 1),
        median_lag_minutes=float(np.median(lags)) if lags else math.nan,
        final_foragers=result.population[-1][1] if result.population else 0,
        splits=sum(1 for e in result.events if e[1] == "split"),
        wall_seconds=wall_seconds,
    )


def run_one(world: GraphNewsWorld, mode: str, seed: int, duration: float, graph: str,
            max_foragers: int = 16, min_foragers: int = 2,
            download_seconds: float = DOWNLOAD_SECONDS,
            slice_seconds: float = SLICE_SECONDS, **kwargs) -> tuple[RunMetrics, ColonyResult]:
    """One colony run of ``mode`` on ``world`` (seeded by ``seed``) and its Table 1 measures."""
    policy = ScorePolicy(min_foragers=min_foragers, max_foragers=max_foragers)
    t0 = time.perf_counter()
    result = run_colony(world, duration, np.random.default_rng(seed), mode=mode,
                        budget=1.0 / download_seconds, policy=policy,
                        slice_seconds=slice_seconds, **kwargs)
    wall = time.perf_counter() - t0
    return measure(world, result, duration, graph, mode, seed, wall), result


def summarise(runs: list[RunMetrics]) -> dict:
    """``{(graph, mode): {column: (mean, std)}}`` with the population std (ddof 0) of the runs,
    as Table 2's "standard deviation of the individual experiment results from the average"."""
    groups: dict[tuple[str, str], list[RunMetrics]] = {}
    for run in runs:
        groups.setdefault((run.graph, run.mode), []).append(run)
    table = {}
    for key, members in groups.items():
        table[key] = {}
        for column in COLUMNS + EXTRA + ("wall_seconds",):
            x = np.array([getattr(m, column) for m in members], dtype=float)
            table[key][column] = (float(np.mean(x)), float(np.std(x)), len(members))
    return table


def fmt(value: float, column: str) -> str:
    if math.isnan(value):
        return "–"
    if column in ("downloaded", "sent", "relevant", "found_urls", "published", "splits"):
        return f"{value:,.0f}"
    if column in ("download_efficiency",):
        return f"{value:.4f}"
    if column in ("final_foragers", "median_lag_minutes", "age_hours"):
        return f"{value:.2f}"
    return f"{value:.3f}"


def markdown(table: dict, graph: str, modes: tuple[str, ...], with_paper: bool = True) -> str:
    """One graph's Table 2: our mean ± std per mode, and the paper's beside RL and WL."""
    header = ["measure"]
    for mode in modes:
        header.append(f"{mode.upper()} (sim)")
        if with_paper and mode in PAPER_TABLE2:
            header.append(f"{mode.upper()} (paper)")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for column in COLUMNS + EXTRA:
        row = [LABELS[column]]
        for mode in modes:
            cell = table.get((graph, mode), {}).get(column)
            row.append("–" if cell is None else f"{fmt(cell[0], column)} ± {fmt(cell[1], column)}")
            if with_paper and mode in PAPER_TABLE2:
                paper = PAPER_TABLE2[mode].get(column)
                row.append("" if paper is None else f"{fmt(paper[0], column)} ± {fmt(paper[1], column)}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def findings(table: dict, real: str, rewired: str | None) -> list[tuple[str, str, str]]:
    """The papers' qualitative findings, checked on the run means: ``(claim, verdict,
    evidence)``; the verdict is "holds", "does not hold", or "within noise" when the two means
    differ by no more than the larger of their run-to-run standard deviations."""
    checks = [
        (real, "sent_efficiency", "wl", "rl", "WL sent efficiency > RL"),
        (real, "relative_found_urls", "rl", "wl", "RL explores more: relative found URL RL > WL"),
        (real, "relevant", "wl", "rl", "WL finds more relevant documents than RL"),
        (real, "freshness", "wl", "rl", "WL freshness > RL"),
        (real, "age_hours", "rl", "wl", "WL age < RL age"),
    ]
    if rewired is not None:
        checks += [
            (rewired, "relevant", "rl", "wl", "rewired: RL ≥ WL in relevant documents found"),
            (rewired, "download_efficiency", "rl", "wl", "rewired: RL ≥ WL in download efficiency"),
        ]
    out = []
    for graph, column, high, low, claim in checks:
        a = table.get((graph, high), {}).get(column)
        b = table.get((graph, low), {}).get(column)
        if a is None or b is None or math.isnan(a[0]) or math.isnan(b[0]):
            continue
        if abs(a[0] - b[0]) <= max(a[1], b[1]):
            verdict = "within noise"
        else:
            verdict = "holds" if a[0] > b[0] else "does not hold"
        out.append((claim, verdict, f"{high.upper()} {fmt(a[0], column)} ± {fmt(a[1], column)} vs "
                                    f"{low.upper()} {fmt(b[0], column)} ± {fmt(b[1], column)}"))
    return out


def to_json(runs: list[RunMetrics], table: dict) -> dict:
    return {
        "runs": [asdict(r) for r in runs],
        "summary": [
            {"graph": g, "mode": m, **{c: {"mean": v[0], "std": v[1], "n": v[2]} for c, v in cells.items()}}
            for (g, m), cells in table.items()
        ],
        "paper": PAPER_TABLE2,
    }
