"""Compartmentalisation of a colony, from who visited what (pure functions, no I/O).

The papers (Palotai, Farkas & Lőrincz, Fig. 3) watched how a colony divides a site between its
foragers: (a, b) the share of the pages visited in a time window that only *one* forager visited
(about 60% in their runs), and (c) how many of the two-step trajectories that several foragers
started from the same page were *different* (a ratio near 1: foragers that meet on a page leave
it by different links). This module computes both from a list of :class:`Visit`.

A visit is one page seen by one forager at one time. Two sources, built by the caller:

- the replay's request log (:func:`log_visits`): every request with an ``X-Forager`` header,
  step pages and probes alike (the log cannot tell them apart); with ``FORAGERS_FETCH_TTL = 0``
  every visit of every forager reaches it;
- a record of step pages only, with the path each belongs to (``segment``): the walk itself.

Definitions (every function takes the visits of one window):

- *one-forager share*: among the distinct pages visited, the share visited by exactly one
  forager;
- *two-step trajectory* of forager ``f``: ``(f, a, b)`` for two consecutive visits of ``f`` (in
  the order given), ``a`` then ``b``, with the same ``segment`` (the same path for step records;
  ``None`` for the request log, where any two consecutive requests of a forager form a pair).
  A forager repeating a trajectory counts it once;
- *distinct two-step share*: take the start pages ``a`` from which at least two different
  foragers made a trajectory; over those, the number of distinct ``(a, b)`` divided by the
  number of distinct ``(f, a, b)``. 1 when no two foragers left a shared page the same way;
  ``1/k`` when ``k`` foragers all took the same one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Hashable, Iterable, NamedTuple, Sequence

import numpy as np


class Visit(NamedTuple):
    time: float  # seconds (simulated or wall: the caller chooses, windows use the same)
    forager: str
    page: str
    segment: Hashable = None  # pairs only form within one segment (a path); None: one segment


def timestamp(value: Any) -> float:
    """Seconds since the epoch of an ISO 8601 string (with offset) or of a number."""
    if isinstance(value, (int, float)):
        return float(value)
    return datetime.fromisoformat(value).timestamp()


def log_visits(records: Iterable[dict], time_key: str = "sim_time",
               skip_pages: Sequence[str] = ("/robots.txt",)) -> list[Visit]:
    """The visits of a replay request log: records with a forager, in the log's order."""
    visits = []
    for record in records:
        forager = record.get("forager")
        if not forager or record.get("path") in skip_pages:
            continue
        visits.append(Visit(timestamp(record[time_key]), forager, record["path"], None))
    return visits


@dataclass(frozen=True)
class Window:
    begin: float
    end: float
    visits: list[Visit]


def split_windows(visits: Sequence[Visit], width: float, start: float | None = None,
                  end: float | None = None) -> list[Window]:
    """Consecutive windows ``[start + i·width, start + (i+1)·width)``, ``i = 0 ..`` up to the
    one holding ``end``, from ``start`` (the first visit by default) to ``end`` (the last visit
    by default), empty ones included. Visits outside ``[start, end]`` are left out; each window
    keeps the visits' order. The last window may be partial: callers drop it if they wish."""
    if width <= 0:
        raise ValueError("window width must be > 0")
    if not visits and (start is None or end is None):
        return []
    start = min(v.time for v in visits) if start is None else start
    end = max(v.time for v in visits) if end is None else end
    if end < start:
        return []
    count = int((end - start) // width) + 1  # the last window is the one holding ``end``
    windows = [Window(start + i * width, start + (i + 1) * width, []) for i in range(count)]
    for visit in visits:
        if start <= visit.time <= end:
            windows[int((visit.time - start) // width)].visits.append(visit)
    return windows


def foragers_per_page(visits: Iterable[Visit]) -> dict[str, int]:
    """page -> number of different foragers that visited it."""
    seen: dict[str, set] = defaultdict(set)
    for visit in visits:
        seen[visit.page].add(visit.forager)
    return {page: len(foragers) for page, foragers in seen.items()}


def pages_by_forager_count(visits: Iterable[Visit]) -> Counter:
    """k -> number of pages visited by exactly k foragers (the papers' Fig. 3a histogram)."""
    return Counter(foragers_per_page(visits).values())


def one_forager_share(visits: Iterable[Visit]) -> float | None:
    """Share of the distinct pages visited by exactly one forager (None: no page)."""
    counts = foragers_per_page(visits)
    if not counts:
        return None
    return sum(1 for k in counts.values() if k == 1) / len(counts)


def shuffled_one_forager_share(visits: Sequence[Visit], rng: np.random.Generator) -> float | None:
    """The one-forager share after the forager labels are permuted over the visits: the same
    pages, visit counts and visits per forager, but who visited what drawn at random. The
    observed share above this one is compartmentalisation beyond chance."""
    if not visits:
        return None
    labels = [v.forager for v in visits]
    order = rng.permutation(len(labels))
    return one_forager_share(v._replace(forager=labels[i]) for v, i in zip(visits, order))


def two_step_trajectories(visits: Iterable[Visit]) -> set[tuple[str, str, str]]:
    """``(forager, a, b)`` for each two consecutive visits of a forager within one segment."""
    last: dict[str, Visit] = {}
    trajectories = set()
    for visit in visits:
        previous = last.get(visit.forager)
        if previous is not None and previous.segment == visit.segment:
            trajectories.add((visit.forager, previous.page, visit.page))
        last[visit.forager] = visit
    return trajectories


@dataclass(frozen=True)
class TrajectoryShare:
    starts: int  # start pages from which at least two foragers made a trajectory
    distinct: int  # distinct (a, b) from those pages
    total: int  # distinct (forager, a, b) from those pages

    @property
    def ratio(self) -> float | None:
        return self.distinct / self.total if self.total else None


def trajectory_share(trajectories: Iterable[tuple[str, str, str]]) -> TrajectoryShare:
    """The distinct two-step share over the start pages shared by two or more foragers."""
    by_start: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for forager, a, b in trajectories:
        by_start[a].add((forager, b))
    starts = distinct = total = 0
    for pairs in by_start.values():
        if len({forager for forager, _ in pairs}) < 2:
            continue
        starts += 1
        total += len(pairs)
        distinct += len({b for _, b in pairs})
    return TrajectoryShare(starts, distinct, total)


def window_table(visits: Sequence[Visit], width: float, rng: np.random.Generator | None = None,
                 start: float | None = None, end: float | None = None) -> list[dict]:
    """One row per window: visits, pages, foragers, the one-forager share (and its shuffled
    reference when ``rng`` is given), the two-step trajectory counts and share."""
    rows = []
    for window in split_windows(visits, width, start, end):
        share = trajectory_share(two_step_trajectories(window.visits))
        row = {
            "begin": window.begin, "end": window.end, "visits": len(window.visits),
            "pages": len(foragers_per_page(window.visits)),
            "foragers": len({v.forager for v in window.visits}),
            "one_forager_share": one_forager_share(window.visits),
            "trajectory_starts": share.starts, "trajectory_distinct": share.distinct,
            "trajectory_total": share.total, "trajectory_ratio": share.ratio,
        }
        if rng is not None:
            row["shuffled_one_forager_share"] = shuffled_one_forager_share(window.visits, rng)
        rows.append(row)
    return rows


def pooled(rows: Sequence[dict], min_foragers: int = 2) -> dict:
    """Averages over the windows with at least ``min_foragers`` foragers: the mean one-forager
    share (and shuffled share), and the trajectory ratio pooled over windows (Σ distinct / Σ
    total)."""
    kept = [r for r in rows if r["foragers"] >= min_foragers and r["one_forager_share"] is not None]
    result: dict[str, Any] = {"windows": len(kept)}
    shares = [r["one_forager_share"] for r in kept]
    result["one_forager_share_mean"] = float(np.mean(shares)) if shares else None
    result["one_forager_share_min"] = float(np.min(shares)) if shares else None
    result["one_forager_share_max"] = float(np.max(shares)) if shares else None
    shuffled = [r["shuffled_one_forager_share"] for r in kept if r.get("shuffled_one_forager_share") is not None]
    result["shuffled_one_forager_share_mean"] = float(np.mean(shuffled)) if shuffled else None
    distinct = sum(r["trajectory_distinct"] for r in kept)
    total = sum(r["trajectory_total"] for r in kept)
    result["trajectory_starts"] = sum(r["trajectory_starts"] for r in kept)
    result["trajectory_distinct"] = distinct
    result["trajectory_total"] = total
    result["trajectory_ratio"] = distinct / total if total else None
    return result


__all__ = [
    "TrajectoryShare", "Visit", "Window", "foragers_per_page", "log_visits", "one_forager_share",
    "pages_by_forager_count", "pooled", "shuffled_one_forager_share", "split_windows", "timestamp",
    "trajectory_share", "two_step_trajectories", "window_table",
]
