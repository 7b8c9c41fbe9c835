"""The benchmark's plots (matplotlib, Agg backend), drawn from ``results.json`` alone.

Each run's record carries the series :mod:`newsforagers.evaluation.bench.evaluate` computed
from its files (``series``: ``efficiency``, ``lags``; for a colony also ``colony`` and
``compartments``), so a benchmark can be re-plotted without re-running it::

    plot_results(json.load(open("bench/results.json")), "bench")

Plots (a plot with nothing to draw — no colony among the crawlers — is not written):

- ``efficiency.png``: download efficiency (novel found / requests) per time window, each
  crawler's mean over its repeats;
- ``lags.png``: the share of the window's articles found within a given lag (an empirical
  CDF over every article of the windows, so a curve ends at the crawler's recall), each
  crawler's repeats pooled;
- ``colony.png``: each colony's population and its foragers' scores over simulated time (the
  first successful repeat), with splits and retirements marked;
- ``compartments.png``: the colony's one-forager share per window, beside the share of the
  same visits with forager labels shuffled (chance);
- ``sweep.png`` (``--sweep``): each crawler's median and p90 lag against its download
  efficiency and its requests, a point per value of its cost knob;
- ``budgets.png`` (``--budgets``): median lag and recall against requests per published
  story, a point per budget.
- ``topic.png`` (``--topic``): each crawler's harvest rate (topic documents fetched / requests,
  cumulative) over simulated time.

The first four draw each crawler at its defaults (a sweep's other variants are in the last
two).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from newsforagers.evaluation.bench.config import COLONIES

COLOURS = {"scheduled": "tab:purple", "wlrl": "tab:red", "wl": "tab:orange", "rl": "tab:pink", "bfs": "tab:gray",
           "hubs": "tab:olive", "adaptive": "tab:blue", "random": "tab:brown",
           "oracle": "tab:green", "feeds": "tab:cyan"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _ok_runs(results: Mapping[str, Any], crawler: str) -> list[Mapping[str, Any]]:
    """The crawler's successful runs at its defaults (a sweep's other variants are drawn by
    :func:`plot_sweep` and :func:`plot_budgets`)."""
    return [r for r in results.get("runs", []) if (r.get("key") or r.get("crawler")) == crawler
            and r.get("status") == "ok" and r.get("series")]


def _title(results: Mapping[str, Any]) -> str:
    s = results["settings"]
    retime = "" if s.get("retime") is None else f", retime {s['retime']:g}/day"
    return (f"{Path(s['corpus']).name} ({s['profile']}{retime}), {s['duration']:g} s × speed "
            f"{s['speed']:g}, budget {s['budget']:g} req/s")


def _save(fig, path: Path) -> Path:
    """Lay out, write and close ``fig`` (closed even when writing fails)."""
    try:
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path)
        return path
    finally:
        _pyplot().close(fig)


def _plot_mean(ax, crawler: str, series: list[list[tuple[float, float | None]]]) -> bool:
    """One line of ``crawler``: the mean over its runs of each window's value (``series``: a
    run's (minute, value) per window, in order; a value of None is no point); False when no
    run had a value."""
    columns: dict[int, list[float]] = {}
    minutes: dict[int, float] = {}
    for points in series:
        for i, (minute, value) in enumerate(points):
            if value is not None:
                columns.setdefault(i, []).append(value)
                minutes.setdefault(i, minute)
    if not columns:
        return False
    keys = sorted(columns)
    ax.plot([minutes[i] for i in keys], [sum(columns[i]) / len(columns[i]) for i in keys],
            "o-", ms=3, color=COLOURS.get(crawler), label=crawler)
    return True


def plot_efficiency(results: Mapping[str, Any], path: Path) -> Path | None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    drawn = False
    for crawler in results["settings"]["crawlers"]:
        runs = _ok_runs(results, crawler)
        series = [[(t, novel / requests if requests else None)
                   for t, requests, novel in run["series"].get("efficiency", [])] for run in runs]
        drawn = _plot_mean(ax, crawler, series) or drawn
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xlabel("simulated minutes from the run's first request (window start)")
    ax.set_ylabel("download efficiency (novel / requests)")
    ax.set_title(_title(results), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_lags(results: Mapping[str, Any], path: Path) -> Path | None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    drawn = False
    for crawler in results["settings"]["crawlers"]:
        runs = _ok_runs(results, crawler)
        lags = sorted(lag for run in runs for lag in run["series"].get("lags", []))
        # over every article the windows held, so that a curve ends at the crawler's recall
        total = sum((run.get("metrics") or {}).get("window_articles") or 0 for run in runs)
        if not lags or not total:
            continue
        ax.step(lags, [(i + 1) / total for i in range(len(lags))], where="post",
                color=COLOURS.get(crawler), label=f"{crawler} ({len(lags)} of {total} articles)")
        drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlabel("discovery lag (simulated minutes, symlog)")
    ax.set_ylabel("share of the window's articles found by then")
    ax.set_ylim(0, 1.02)
    ax.set_title(_title(results), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    return _save(fig, path)


def _colony_runs(results: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    runs = []
    for crawler in results["settings"]["crawlers"]:
        if crawler in COLONIES:
            mine = [r for r in _ok_runs(results, crawler) if r["series"].get("colony")]
            if mine:
                runs.append(mine[0])
    return runs


def plot_colony(results: Mapping[str, Any], path: Path) -> Path | None:
    runs = _colony_runs(results)
    runs = [r for r in runs if r["series"]["colony"].get("population")]
    if not runs:
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(2, len(runs), figsize=(5.5 * len(runs), 6.5), dpi=110,
                             sharex="col", squeeze=False)
    for column, run in enumerate(runs):
        colony = run["series"]["colony"]
        top, bottom = axes[0][column], axes[1][column]
        population = colony["population"]
        top.step([p[0] for p in population], [p[1] for p in population], where="post",
                 color=COLOURS.get(run["crawler"]))
        for t, kind, _ in colony.get("events", []):
            if kind in ("split", "retire"):
                top.axvline(t, color="tab:green" if kind == "split" else "tab:red",
                            alpha=0.3, lw=0.8)
        top.set_ylabel("foragers alive")
        top.set_title(f"{run['crawler']} repeat {run['repeat']} (green: split, red: retire)",
                      fontsize=9)
        top.grid(alpha=0.3)
        for _name, points in sorted(colony.get("scores", {}).items()):
            bottom.plot([p[0] for p in points], [p[1] for p in points], lw=0.7, alpha=0.6)
        bottom.plot([p[0] for p in population if p[2] is not None],
                    [p[2] for p in population if p[2] is not None], color="black", lw=1.6,
                    label="mean score")
        bottom.set_ylabel("score (thin: each forager)")
        bottom.set_xlabel("simulated minutes from the window start")
        bottom.grid(alpha=0.3)
        bottom.legend(fontsize=8)
    fig.suptitle(_title(results), fontsize=9)
    return _save(fig, path)


def plot_compartments(results: Mapping[str, Any], path: Path) -> Path | None:
    rows_by_crawler = []
    for crawler in results["settings"]["crawlers"]:
        if crawler not in COLONIES:
            continue
        for run in _ok_runs(results, crawler):
            rows = [r for r in run["series"].get("compartments", []) if r[3] is not None]
            if rows:
                rows_by_crawler.append((run, rows))
    if not rows_by_crawler:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    labelled = set()
    for run, rows in rows_by_crawler:
        colour = COLOURS.get(run["crawler"])
        label = run["crawler"] if run["crawler"] not in labelled else None
        labelled.add(run["crawler"])
        ax.plot([r[0] for r in rows], [r[3] for r in rows], "o-", ms=3, color=colour, label=label)
        shuffled = [(r[0], r[4]) for r in rows if r[4] is not None]
        if shuffled:
            ax.plot([p[0] for p in shuffled], [p[1] for p in shuffled], ":", color=colour,
                    alpha=0.7, label=f"{run['crawler']}, labels shuffled" if label else None)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("simulated minutes from the window start")
    ax.set_ylabel("pages visited by exactly one forager (share)")
    ax.set_title("compartmentalisation per window\n" + _title(results), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def _curve(ax, points, x: str, y: str, crawler: str, *, logx: bool = False) -> None:
    usable = [p for p in points if p.get(x) is not None and p.get(y) is not None]
    if logx:
        usable = [p for p in usable if p[x] > 0]
    if not usable:
        return
    usable.sort(key=lambda p: p[x])
    colour = COLOURS.get(crawler)
    xs, ys = [p[x] for p in usable], [p[y] for p in usable]
    errors = [p.get(f"{y}_std") or 0.0 for p in usable]
    if len(usable) == 1:
        ax.errorbar(xs, ys, yerr=errors, fmt="*", ms=12, color=colour, label=crawler)
    else:
        ax.errorbar(xs, ys, yerr=errors, fmt="o-", ms=4, capsize=2, color=colour, label=crawler)
    for p in usable:
        if p.get("default") and len(usable) > 1:
            ax.plot([p[x]], [p[y]], "s", ms=9, mfc="none", color=colour)


def plot_sweep(results: Mapping[str, Any], path: Path) -> Path | None:
    """``sweep.png``: each crawler's median and p90 lag against its download efficiency and
    against its requests, one point per knob value (mean ± std over the repeats; the default
    boxed; a crawler without a knob, the oracle, as a star). Only for ``--sweep``."""
    curves = results.get("curves")
    settings = results.get("settings", {})
    if not curves or settings.get("budgets"):
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    for crawler, points in curves.items():
        _curve(axes[0], points, "download_efficiency", "lag_median", crawler)
        _curve(axes[1], points, "download_efficiency", "lag_p90", crawler)
        _curve(axes[2], points, "requests", "lag_median", crawler)
    for ax, xlabel, ylabel in ((axes[0], "download efficiency", "median lag (simulated min)"),
                               (axes[1], "download efficiency", "p90 lag (simulated min)"),
                               (axes[2], "requests in the window", "median lag (simulated min)")):
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_yscale("symlog", linthresh=1.0)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("lag against cost, each crawler at several values of its knob\n" + _title(results),
                 fontsize=9)
    return _save(fig, path)


def plot_budgets(results: Mapping[str, Any], path: Path) -> Path | None:
    """``budgets.png``: each crawler's median lag and recall against the requests it made per
    article published in the window, one point per budget (``--budgets``)."""
    curves = results.get("curves")
    if not curves or not results.get("settings", {}).get("budgets"):
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
    for crawler, points in curves.items():
        _curve(axes[0], points, "requests_per_story", "lag_median", crawler, logx=True)
        _curve(axes[1], points, "requests_per_story", "recall", crawler, logx=True)
    axes[0].set_ylabel("median lag (simulated min)")
    axes[0].set_yscale("symlog", linthresh=1.0)
    axes[1].set_ylabel("recall")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("requests per published story")
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=8)
    fig.suptitle("scarce budgets: lag and recall against requests per story\n" + _title(results),
                 fontsize=9)
    return _save(fig, path)


PLOTS = (("efficiency.png", plot_efficiency), ("lags.png", plot_lags),
         ("colony.png", plot_colony), ("compartments.png", plot_compartments),
         ("sweep.png", plot_sweep), ("budgets.png", plot_budgets))


def plot_results(results: Mapping[str, Any], out: Path | str) -> list[str]:
    """Draw every plot that has something to show into ``out``; their file names."""
    out = Path(out)
    written = []
    for name, draw in PLOTS:
        if draw(results, out / name) is not None:
            written.append(name)
    return written


__all__ = ["PLOTS", "plot_budgets", "plot_colony", "plot_compartments", "plot_efficiency",
           "plot_lags", "plot_results", "plot_sweep"]


# -- a topical benchmark -------------------------------------------------------------------

COLOURS["best_first"] = "goldenrod"


def plot_topic(results: Mapping[str, Any], path: Path) -> Path | None:
    """``topic.png`` (``--topic``): each crawler's harvest rate over simulated time — the topic's
    documents it had fetched by the end of each series window over the requests it had made by
    then (cumulative), the mean over its repeats; every variant (``scheduled@no-topic``, the
    colony without the topic, too)."""
    topic = results.get("topic")
    if not topic:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    drawn = False
    for crawler in results.get("crawlers") or results["settings"]["crawlers"]:
        series = []
        for run in _ok_runs(results, crawler):
            rows = (run["series"].get("topic") or {}).get("harvest") or []
            width = run["series"].get("width_minutes") or 0.0
            requests = relevant = 0
            points = []
            for t, n, k in rows:
                requests, relevant = requests + n, relevant + k
                points.append((t + width, relevant / requests if requests else None))
            series.append(points)
        drawn = _plot_mean(ax, crawler, series) or drawn
    if not drawn:
        plt.close(fig)
        return None
    ax.set_ylim(bottom=0)
    ax.set_xlabel("simulated minutes from the run's first request (window start)")
    ax.set_ylabel("harvest rate (topic documents fetched / requests, cumulative)")
    ax.set_title(f"topic {topic['section']!r}\n" + _title(results), fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


PLOTS = PLOTS + (("topic.png", plot_topic),)
__all__ += ["plot_topic"]
