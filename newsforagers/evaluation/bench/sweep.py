"""The lag–cost curves of a benchmark: every crawler run at several settings of its
own cost knob (``newsforagers bench --sweep``) or at several request budgets (``--budgets``),
and what is read off the curves.

A crawler that idles to save requests and one that polls all the time are not compared
fairly at one operating point each: one buys download efficiency with lag, the other lag with
requests. Each crawler has a knob that trades the two (:data:`KNOBS`):

- ``scheduled``: ``FORAGERS_SCHEDULE_POLL_YIELD``, the novel documents a listing visit must
  expect on average (lower: more visits);
- ``adaptive`` and ``feeds``: a factor on their revisit intervals (``initial_interval``,
  ``min_interval``, ``max_interval``; lower: more polls);
- ``hubs``: ``interval``, the simulated seconds between two polls of one hub at least (0: as
  the budget allows).

A *variant* is one crawler at one value of its knob (or at one budget). Its key in the results
is the crawler's name at its default value and default budget (so every single-point measure,
target and plot of the bench reads the defaults), else ``crawler@knob=value``
(``scheduled@yield=0.1``, ``adaptive@budget=2``). Crawlers without a knob (``oracle``,
``bfs``, ``random``, the papers' colonies) are one point.

From the means of each variant the module builds each crawler's **curve** (its points sorted by
download efficiency) and reads **a crawler's lag at another's efficiency** off it: piecewise
linear between the two points around that efficiency, None outside the curve (never
extrapolated). The issue's targets compare ``scheduled`` at its defaults with ``adaptive``'s
curve at ``scheduled``'s efficiency. Pure functions of the records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Metrics a curve point carries (means over the variant's successful runs).
POINT_KEYS = ("recall", "lag_median", "lag_p90", "download_efficiency", "requests",
              "window_articles")


@dataclass(frozen=True)
class Knob:
    """A crawler's cost knob: its short name, its default value and the values a sweep runs.
    ``setting``: the Scrapy setting it is (a colony); else ``args``, the spider arguments it
    scales (``scale`` True: each argument's default times the value) or sets."""

    name: str
    default: float
    values: tuple[float, ...]
    setting: str | None = None
    args: tuple[tuple[str, float], ...] = ()
    scale: bool = False

    def options(self, value: float) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
        """``(settings, spider arguments)`` that set the knob to ``value``."""
        if self.setting is not None:
            return ((self.setting, f"{value:g}"),), ()
        if self.scale:
            return (), tuple((name, f"{default * value:g}") for name, default in self.args)
        return (), tuple((name, f"{value:g}") for name, _ in self.args)


_INTERVALS = (("initial_interval", 600.0), ("min_interval", 60.0), ("max_interval", 3600.0))

#: Each crawler's cost knob (see the module docstring). Values: lowest cost last is not
#: implied; the curve is sorted by the efficiency measured.
KNOBS: dict[str, Knob] = {
    "scheduled": Knob("yield", 0.3, (0.05, 0.1, 0.3, 1.0, 3.0),
                      setting="FORAGERS_SCHEDULE_POLL_YIELD"),
    "adaptive": Knob("scale", 1.0, (0.25, 0.5, 1.0, 2.0, 4.0), args=_INTERVALS, scale=True),
    "feeds": Knob("scale", 1.0, (0.25, 0.5, 1.0, 2.0, 4.0), args=_INTERVALS, scale=True),
    "hubs": Knob("interval", 0.0, (0.0, 1800.0, 3600.0, 7200.0), args=(("interval", 0.0),)),
}


@dataclass(frozen=True)
class Variant:
    """One crawler at one knob value or one budget: its key, what it changes."""

    crawler: str
    key: str
    label: str = ""  # "yield=0.1", "budget=2"; "" for the defaults
    knob: str | None = None
    value: float | None = None
    budget: float | None = None  # None: the bench's --budget
    settings: tuple[tuple[str, str], ...] = ()
    args: tuple[tuple[str, str], ...] = ()
    topic: bool = True  # a topical benchmark gives it the topic (False: the reference without)


def _key(crawler: str, label: str) -> str:
    return f"{crawler}@{label}" if label else crawler


def variants(crawler: str, *, sweep: bool = False, values: Mapping[str, Sequence[float]] | None = None,
             budgets: Sequence[float] = (), budget: float = 0.0) -> list[Variant]:
    """The variants of ``crawler`` a benchmark runs: its knob's values with ``sweep`` (or the
    values ``values`` gives it), each of ``budgets`` at its default knob, else its defaults
    alone. The default variant (key = the crawler's name: its default knob value, which a
    sweep always runs, for the targets; the bench's ``budget`` among ``budgets``) comes
    first."""
    knob = KNOBS.get(crawler)
    found: list[Variant] = []
    if budgets:
        ordered = [budget] + [b for b in budgets if b != budget] if budget in budgets else list(budgets)
        for b in ordered:
            label = "" if b == budget else f"budget={b:g}"
            found.append(Variant(crawler, _key(crawler, label), label, budget=b))
        return found
    if knob is None or not (sweep or (values and crawler in values)):
        return [Variant(crawler, crawler)]
    chosen = tuple((values or {}).get(crawler) or knob.values)
    ordered = [knob.default] + [v for v in chosen if v != knob.default]
    for value in ordered:
        settings, args = knob.options(value) if value != knob.default else ((), ())
        label = "" if value == knob.default else f"{knob.name}={value:g}"
        found.append(Variant(crawler, _key(crawler, label), label, knob.name, value,
                             settings=settings, args=args))
    return found


def _mean(summary: Mapping[str, Any], key: str) -> float | None:
    entry = summary.get(key)
    return entry.get("mean") if isinstance(entry, Mapping) else None


def _std(summary: Mapping[str, Any], key: str) -> float | None:
    entry = summary.get(key)
    return entry.get("std") if isinstance(entry, Mapping) else None


def curves(runs: Sequence[Mapping[str, Any]], summaries: Mapping[str, Mapping[str, Any]]
           ) -> dict[str, list[dict[str, Any]]]:
    """crawler → its points, sorted by download efficiency: for each variant that has a mean,
    ``{"key", "label", "knob", "value", "budget", "default", metric: mean, metric_std: std...,
    "requests_per_story"}`` (requests over the window's published articles)."""
    meta: dict[str, Mapping[str, Any]] = {}
    for run in runs:
        key = run.get("key") or run.get("crawler")
        if isinstance(key, str) and key not in meta:
            meta[key] = run
    found: dict[str, list[dict[str, Any]]] = {}
    for key, summary in summaries.items():
        run = meta.get(key, {})
        crawler = run.get("crawler") or key.partition("@")[0]
        point: dict[str, Any] = {"key": key, "label": run.get("variant") or "",
                                 "knob": run.get("knob"), "value": run.get("knob_value"),
                                 "budget": run.get("budget"), "default": "@" not in key}
        for name in POINT_KEYS:
            point[name] = _mean(summary, name)
            point[f"{name}_std"] = _std(summary, name)
        requests, stories = point["requests"], point["window_articles"]
        point["requests_per_story"] = requests / stories if requests is not None and stories else None
        if point["download_efficiency"] is None:
            continue
        found.setdefault(crawler, []).append(point)
    for points in found.values():
        points.sort(key=lambda p: (p["download_efficiency"], p["key"]))
    return found


def read_off(points: Sequence[Mapping[str, Any]], axis: str, x: float, metric: str) -> float | None:
    """``metric`` read off a curve at ``axis`` = ``x`` (``download_efficiency``, ``requests``):
    linear between the two points around it (a point at exactly ``x``: its value), None
    outside the curve or when a point lacks the metric."""
    usable = [p for p in points if p.get(axis) is not None and p.get(metric) is not None]
    usable.sort(key=lambda p: p[axis])
    for point in usable:
        if point[axis] == x:
            return float(point[metric])
    for low, high in zip(usable, usable[1:]):
        x0, x1 = low[axis], high[axis]
        if x0 < x < x1:
            share = (x - x0) / (x1 - x0)
            return float(low[metric] + share * (high[metric] - low[metric]))
    return None


def at_efficiency(points: Sequence[Mapping[str, Any]], efficiency: float, metric: str) -> float | None:
    """``metric`` read off a curve at download efficiency ``efficiency`` (:func:`read_off`)."""
    return read_off(points, "download_efficiency", efficiency, metric)


def default_point(points: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    return next((p for p in points if p.get("default")), None)


def cross_table(found: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """For each crawler ``a`` with a curve of two points or more and each other crawler ``b``
    with a default point: ``a``'s median and p90 lag at ``b``'s default efficiency, and
    ``a``'s recall and median lag at ``b``'s requests (``at_requests``)."""
    rows = []
    for a, points in found.items():
        if len(points) < 2:
            continue
        for b, others in found.items():
            reference = default_point(others)
            if b == a or reference is None:
                continue
            efficiency = reference["download_efficiency"]
            rows.append({"crawler": a, "at": b, "efficiency": efficiency,
                         "lag_median": at_efficiency(points, efficiency, "lag_median"),
                         "lag_p90": at_efficiency(points, efficiency, "lag_p90"),
                         "reference_lag_median": reference.get("lag_median"),
                         "reference_lag_p90": reference.get("lag_p90"),
                         "at_requests": _at_requests(points, reference)})
    return rows


def _at_requests(points: Sequence[Mapping[str, Any]], reference: Mapping[str, Any]) -> dict[str, Any]:
    requests = reference.get("requests")
    row: dict[str, Any] = {"requests": requests}
    for metric in ("recall", "lag_median"):
        row[metric] = None if requests is None else read_off(points, "requests", requests, metric)
        row[f"reference_{metric}"] = reference.get(metric)
    return row


def sweep_targets(found: Mapping[str, Sequence[Mapping[str, Any]]], profile: str) -> list[dict[str, Any]]:
    """The lag-cost targets (docs/bench.md), read off the curves: ``scheduled`` at its defaults has a median lag
    ≤ 0.5 × ``adaptive``'s at ``scheduled``'s download efficiency (on ``adaptive``'s curve), a
    p90 lag ≤ ``adaptive``'s there, and recall ≥ 0.97. Nothing when either did not run."""
    mine = default_point(found.get("scheduled", ()))
    theirs = found.get("adaptive")
    if mine is None or not theirs:
        return []
    efficiency = mine["download_efficiency"]
    median = at_efficiency(theirs, efficiency, "lag_median")
    p90 = at_efficiency(theirs, efficiency, "lag_p90")
    rows = []

    def add(label: str, key: str, op: str, bound: float | None, reference: str) -> None:
        value = mine.get(key)
        met = None if value is None or bound is None else (value >= bound if op == ">=" else value <= bound)
        rows.append({"crawler": "scheduled", "target": label, "metric": key, "value": value,
                     "bound": bound, "reference": reference, "met": met, "profile": profile})

    add("recall ≥ 0.97", "recall", ">=", 0.97, "0.97")
    add("median lag ≤ 0.5 × adaptive at equal efficiency", "lag_median", "<=",
        None if median is None else 0.5 * median, "0.5 × adaptive's curve at scheduled's efficiency")
    add("p90 lag ≤ adaptive at equal efficiency", "lag_p90", "<=", p90,
        "adaptive's curve at scheduled's efficiency")
    return rows


__all__ = [
    "KNOBS", "Knob", "POINT_KEYS", "Variant", "at_efficiency", "cross_table", "curves",
    "default_point", "read_off", "sweep_targets", "variants",
]
