"""One run judged from the files it left in its directory, with nothing running: the replay's
truth and request log, the crawler's output and, for a colony, its snapshots and events give
the measures of :func:`newsforagers.evaluation.metrics.run_metrics` and the series the plots
draw (requests and novel finds over time, lags, the colony's population and scores, its
compartments) (:func:`evaluate_files`). The same files give the same record.

Over many sites (``--sites``) the files are read with every path given its host
(:mod:`~newsforagers.evaluation.bench.sites`), so that every measure matches a story by its
full URL, and the record adds each site's measures and their spread."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from newsforagers.colony.status import parse_jsonl
from newsforagers.evaluation.bench.config import COLONIES, BenchConfig
from newsforagers.evaluation.bench.harvest import topic_measures, topic_series
from newsforagers.evaluation.bench.plan import PlannedRun
from newsforagers.evaluation.bench.sites import (
    down_hosts,
    qualify,
    site_hosts,
    site_measures,
    site_path,
    site_spread,
)
from newsforagers.evaluation.compartments import Visit, window_table
from newsforagers.evaluation.lagsplit import lag_split
from newsforagers.evaluation.metrics import (
    as_time,
    classify_items,
    run_metrics,
    run_window,
    truth_times,
)

if TYPE_CHECKING:
    from newsforagers.evaluation.bench.site import SitesModel

#: Windows of the time series (efficiency, compartmentalisation) per run.
SERIES_WINDOWS = 20


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def read_jsonl(path: Path | str) -> tuple[list[dict], int]:
    """The JSON objects of a JSON-lines file and how many lines were not one (a last line
    without its newline included: the run is over, nothing is still writing it)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], 0
    records, bad, _ = parse_jsonl(data + b"\n")
    return records, bad


def colony_counts(snapshots: Iterable[Mapping]) -> dict[str, dict[str, int]]:
    """forager → ``{"sent", "rewarded"}``, from each forager's latest snapshot (the colony
    writes a last one for every forager when it retires or stops)."""
    counts: dict[str, dict[str, int]] = {}
    for record in snapshots:
        name = record.get("forager")
        sent, rewarded = record.get("sent"), record.get("rewarded")
        if isinstance(name, str) and _finite(sent) and _finite(rewarded):
            counts[name] = {"sent": int(sent), "rewarded": int(rewarded)}
    return counts


def _sim_clock(log: Sequence[Mapping], speed: float) -> Callable[[float], float] | None:
    """wall POSIX seconds → the site's simulated POSIX seconds, anchored on the first log
    record that has both (the replay's clock: ``sim = start + speed × (wall − wall0)``)."""
    for record in log:
        sim, wall = as_time(record.get("sim_time")), record.get("wall_time")
        if sim is not None and _finite(wall):
            sim0, wall0 = sim.timestamp(), float(wall)
            return lambda w: sim0 + speed * (w - wall0)
    return None


def _minutes(ts: float, start: float) -> float:
    return round((ts - start) / 60.0, 3)


def efficiency_series(log: Sequence[Mapping], novel: Sequence[tuple[str, datetime, datetime]],
                      window: tuple[datetime, datetime], width: float) -> list[list[float]]:
    """``[minutes from the window's start, requests, novel found]`` per ``width``-second
    window of simulated time over the run's window."""
    start, end = window[0].timestamp(), window[1].timestamp()
    count = max(1, int(math.ceil((end - start) / width)))
    rows = [[_minutes(start + i * width, start), 0, 0] for i in range(count)]

    def slot(ts: float) -> int | None:
        if not start <= ts <= end:
            return None
        return min(int((ts - start) // width), count - 1)

    for record in log:
        when = as_time(record.get("sim_time"))
        i = slot(when.timestamp()) if when is not None else None
        if i is not None:
            rows[i][1] += 1
    for _, _, found_at in novel:
        i = slot(found_at.timestamp())
        if i is not None:
            rows[i][2] += 1
    return rows


def window_lags(truth_by_path: Mapping[str, datetime],
                novel: Sequence[tuple[str, datetime, datetime]],
                window: tuple[datetime, datetime]) -> list[float]:
    """The discovery lags (simulated minutes, sorted) of the window's articles output as novel,
    as :func:`run_metrics` takes its median and p90 of them."""
    start, end = window
    return sorted(max(0.0, (found_at - published).total_seconds() / 60.0)
                  for path, published, found_at in novel
                  if start <= truth_by_path[path] <= end)


def colony_series(snapshots: Sequence[Mapping], events: Sequence[Mapping],
                  to_sim: Callable[[float], float] | None, start: float) -> dict[str, Any]:
    """The colony's population, mean score and every forager's score per snapshot round, and
    its events, in simulated minutes from the window's start."""
    rounds: dict[str, list[Mapping]] = {}
    for record in snapshots:
        if isinstance(record.get("time"), str):
            rounds.setdefault(record["time"], []).append(record)
    population, scores = [], {}
    for stamp, records in rounds.items():
        wall = as_time(stamp)
        if wall is None or to_sim is None:
            continue
        t = _minutes(to_sim(wall.timestamp()), start)
        values = [r["score"] for r in records if _finite(r.get("score"))]
        population.append([t, len(records), sum(values) / len(values) if values else None])
        for r in records:
            if _finite(r.get("score")) and isinstance(r.get("forager"), str):
                scores.setdefault(r["forager"], []).append([t, r["score"]])
    marks = []
    for event in events:
        when = as_time(event.get("sim_time"))
        if when is None:
            wall = as_time(event.get("time"))
            if wall is None or to_sim is None:
                continue
            ts = to_sim(wall.timestamp())
        else:
            ts = when.timestamp()
        marks.append([_minutes(ts, start), str(event.get("event")), str(event.get("forager"))])
    return {"population": population, "scores": scores, "events": marks}


def compartment_series(log: Sequence[Mapping], window: tuple[datetime, datetime], width: float,
                       seed: int, robots: Collection[str] = ("/robots.txt",)) -> list[list[Any]]:
    """``[minutes, visits, foragers, one-forager share, shuffled share]`` per window
    (:func:`newsforagers.evaluation.compartments.window_table`; the shuffled share, forager
    labels permuted with ``seed``, is the share chance alone would give); ``robots``: the
    paths of robots.txt, left out."""
    visits = []
    for record in log:
        when, forager, path = as_time(record.get("sim_time")), record.get("forager"), record.get("path")
        if when is None or not forager or not isinstance(path, str) or path in robots:
            continue
        visits.append(Visit(when.timestamp(), str(forager), path))
    start, end = window[0].timestamp(), window[1].timestamp()
    rows = window_table(visits, width, rng=np.random.default_rng(seed), start=start, end=end)
    return [[_minutes(r["begin"], start), r["visits"], r["foragers"],
             r["one_forager_share"], r.get("shuffled_one_forager_share")] for r in rows]


def evaluate_files(config: BenchConfig, run: PlannedRun, run_dir: Path | str,
                   changes: Mapping[str, Sequence[float]], pages: Any = None,
                   many: "SitesModel | None" = None) -> dict[str, Any]:
    """The measures and series of one run from the files in its directory (no subprocess):
    ``{"metrics", "window", "series", "problems", "bad_lines"}``, and with the replay's
    ``pages`` (:class:`~newsforagers.replay.site.PageBuilder`) ``"lag_split"``: where its lag
    comes from (:func:`~newsforagers.evaluation.lagsplit.lag_split`).

    A many-site benchmark's run (``config.sites``) is judged with every path given its host;
    ``many`` (:class:`~newsforagers.evaluation.bench.site.SitesModel`) then stands for
    ``changes`` and ``pages`` and gives the sites' down windows, and the record adds
    ``"sites"`` (host → that site's measures) and ``"site_spread"`` (their spread, the recall
    over the sites never down: :mod:`~newsforagers.evaluation.bench.sites`)."""
    run_dir = Path(run_dir)
    truth, bad_truth = read_jsonl(run_dir / "truth.jsonl")
    log, bad_log = read_jsonl(run_dir / "requests.jsonl")
    items, bad_items = read_jsonl(run_dir / "items.jsonl")
    sites = None
    robots: Collection[str] = ("/robots.txt",)
    if config.sites is not None:
        # each site's own measures, from the raw files; then every path with its host first,
        # so that every measure below matches stories by their full URL
        hosts = site_hosts(truth)
        down: Collection[str] = ()
        changes, pages = {}, None
        if many is not None:
            changes, pages = many.for_hosts(hosts)
            down = down_hosts(hosts, many.down, many.start, run_window(log))
        sites = site_measures(truth, log, items, run_window(log), down=down)
        robots = {site_path(host, "/robots.txt") for host in hosts.values()}
        truth, log, items = qualify(truth, log, items)
    problems = []
    if not (run_dir / "items.jsonl").exists():
        problems.append("the crawler wrote no output (items.jsonl)")
    if bad_items:
        problems.append(f"the crawler's output has {bad_items} line(s) that are not JSON objects")
    if not truth:
        problems.append("the replay wrote no truth")
    elif not log:
        problems.append("the replay served the crawler no request")
    counts = snapshots = events = None
    if run.crawler in COLONIES:
        snapshots, _ = read_jsonl(run_dir / "colony" / "snapshots.jsonl")
        events, _ = read_jsonl(run_dir / "colony" / "events.jsonl")
        counts = colony_counts(snapshots) or None
    window = run_window(log)
    metrics = run_metrics(truth, log, items, window, counts=counts, changes=changes)
    record: dict[str, Any] = {
        "metrics": metrics,
        "window": [window[0].isoformat(), window[1].isoformat()] if window else None,
        "counts": counts, "problems": problems,
        "bad_lines": {"truth": bad_truth, "requests": bad_log, "items": bad_items},
        "series": {},
    }
    if sites is not None:
        record["sites"] = sites
        record["site_spread"] = site_spread(sites)
    if config.topic is not None:  # a topical benchmark: the topic's measures (harvest.py)
        record["topic"] = topic_measures(truth, log, items, config.topic, window)
    if window is None:
        return record
    times, _ = truth_times(truth)
    novel, _ = classify_items(items, times)
    lags = window_lags(times, novel, window)
    width = max(60.0, config.sim_seconds / SERIES_WINDOWS)
    start = window[0].timestamp()
    series: dict[str, Any] = {
        "width_minutes": round(width / 60.0, 3),
        "efficiency": efficiency_series(log, novel, window, width),
        "lags": [round(lag, 3) for lag in lags],
    }
    if run.crawler in COLONIES:
        series["colony"] = colony_series(snapshots or [], events or [],
                                         _sim_clock(log, config.speed), start)
        series["compartments"] = compartment_series(log, window, width, run.seed, robots)
    if config.topic is not None:
        series["topic"] = topic_series(truth, log, items, config.topic, window, width)
    record["series"] = series
    if pages is not None:
        record["lag_split"] = lag_split(pages, log, novel, window)
    return record


__all__ = [
    "SERIES_WINDOWS", "colony_counts", "colony_series", "compartment_series", "efficiency_series",
    "evaluate_files", "read_jsonl", "window_lags",
]
