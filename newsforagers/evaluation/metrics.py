"""The benchmark's measures of one run, from the replay's truth, its request log and the
crawler's output (pure functions: no Scrapy, no clock, no I/O).

Inputs (what the replay and a crawl write, already read):

- ``truth``: the replay's truth records (``newsforagers replay --truth``), dicts with ``path``
  and ``published`` (ISO 8601 with an offset, simulated time);
- ``log``: the replay's request log records, dicts with ``sim_time``, ``path``, ``status``
  and ``forager`` (the ``X-Forager`` header);
- ``items``: the crawler's output items, dicts with ``url`` and ``found_at`` (the site's clock
  when the page was downloaded), in output order;
- ``window``: ``(start, end)``, simulated times (ISO strings or aware datetimes); by default
  the first and last request of the run in the log;
- ``counts``: optionally, forager → ``{"sent": n, "rewarded": m}`` (a colony's reinforcing
  agent knows them); without them every output item counts as sent, and as rewarded when it
  is truly novel (a baseline has no agent: everything it outputs is "sent").

Definitions (docs/baselines.md has the reasons):

- an output item is **truly novel** when its path is an article of the truth, it is the first
  output of that path, and ``−skew <= found_at − published <= 24 h`` (``published`` from the
  truth; ``skew`` is the reward's ``FORAGERS_FUTURE_SKEW``). Everything else is counted under
  ``invalid`` (malformed, unknown, duplicate, late, early), never an error;
- **recall**: the share of the articles published in the window that were output as novel;
- **discovery lag**: ``found_at − published`` (simulated minutes, at least 0) of those
  articles; median and 90th percentile (linear interpolation between closest ranks);
- **download efficiency**: novel items found in the window / requests the replay served to
  the run in the window (the paper's relevant / downloaded);
- **sent efficiency**: rewarded / sent (from ``counts``, else as above);
- **found URLs**: distinct paths the run requested in the window; **relative found URLs**:
  found URLs / requests;
- **freshness** and **age** (Table 1 of the selection paper, after Cho & Garcia-Molina), at
  the window's end ``T``: a found relevant document (a novel item found in the window) is
  *current* when the replay's page has not changed since the run's latest copy of it (the
  latest 200 or 304 the run got for that path by ``T``, else ``found_at``); an article page of
  the replay changes only when an article it links to is published later (its
  ``Last-Modified`` moves then), and ``changes`` (path → simulated times, from
  :func:`article_changes`) lists those moments. freshness = current / found relevant; age =
  the mean over found relevant documents of 0 (current) or ``T −`` the first change after the
  copy (simulated minutes). Without ``changes`` no page is known to change: freshness 1, age 0;
- **compartmentalisation**: the share of the distinct pages the run requested in the window
  that exactly one forager requested (:mod:`newsforagers.evaluation.compartments`).

A ratio with a zero denominator is None (null in JSON), so an empty run is reported, not an
error; :func:`aggregate` leaves Nones out.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import unquote, urlsplit

from newsforagers import defaults
from newsforagers.evaluation.compartments import Visit, one_forager_share

NOVELTY_WINDOW = timedelta(seconds=defaults.FORAGERS_NOVELTY_WINDOW)
FUTURE_SKEW = timedelta(seconds=defaults.FORAGERS_FUTURE_SKEW)

#: The keys of a run's ``results.json`` record, in order.
RESULT_KEYS = ("recall", "lag_median", "lag_p90", "download_efficiency", "sent_efficiency",
               "found_urls", "relative_found_urls", "freshness", "age", "requests")

INVALID_KINDS = ("malformed", "unknown", "duplicate", "late", "early")

#: Statuses whose response gives the run a copy of the page (304: its copy is still current).
COPY_STATUSES = frozenset({200, 304})


# -- parsing ------------------------------------------------------------------------------------


def as_time(value: Any) -> datetime | None:
    """An aware datetime from an ISO 8601 string or a datetime; None when it is not one."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        return None
    return value


def item_path(url: Any) -> str | None:
    """The path (and ``?query``) of an output item's URL, as the truth and the log spell it."""
    if not isinstance(url, str) or not url.strip():
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    path = parts.path or "/"
    return path + (f"?{parts.query}" if parts.query else "")


def truth_times(truth: Iterable[Mapping]) -> tuple[dict[str, datetime], int]:
    """path → publication time of the truth's records, and how many records were unusable."""
    times, bad = {}, 0
    for record in truth:
        try:
            path, published = record.get("path"), as_time(record.get("published"))
        except AttributeError:
            bad += 1
            continue
        if not isinstance(path, str) or published is None:
            bad += 1
            continue
        times[path] = published
    return times, bad


def _lookup(path: str, times: Mapping[str, Any]) -> str | None:
    """The truth's spelling of ``path``: as is, or percent-decoded (crawlers encode non-ASCII)."""
    if path in times:
        return path
    decoded = unquote(path)
    return decoded if decoded in times else None


def _matcher(foragers: str | Collection[str] | None):
    if foragers is None:
        return lambda name: True
    if isinstance(foragers, str):
        foragers = {foragers}
    wanted = set(foragers)
    return lambda name: name in wanted


def run_requests(log: Iterable[Mapping], foragers: str | Collection[str] | None = None
                 ) -> tuple[list[tuple[datetime, str, Any, Any]], int]:
    """``(sim_time, path, status, forager)`` of the run's log records in log order (all
    records, or those whose ``forager`` is one of ``foragers``), and the unusable ones."""
    wanted = _matcher(foragers)
    requests, bad = [], 0
    for record in log:
        try:
            forager = record.get("forager")
            when, path = as_time(record.get("sim_time")), record.get("path")
        except AttributeError:
            bad += 1
            continue
        if not wanted(forager):
            continue
        if when is None or not isinstance(path, str):
            bad += 1
            continue
        requests.append((when, path, record.get("status"), forager))
    return requests, bad


def run_window(log: Iterable[Mapping], foragers: str | Collection[str] | None = None
               ) -> tuple[datetime, datetime] | None:
    """The run's window by default: from its first request in the log, floored to the second
    (a ``Date`` header, hence a ``found_at``, has whole seconds), to its last (None: none)."""
    return _default_window(run_requests(log, foragers)[0])


def _default_window(requests: Sequence[tuple]) -> tuple[datetime, datetime] | None:
    if not requests:
        return None
    times = [r[0] for r in requests]
    return min(times).replace(microsecond=0), max(times)


# -- statistics ---------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100), linear between closest ranks (numpy's default)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


# -- freshness and age ------------------------------------------------------------------------


def article_changes(index: Any) -> dict[str, list[float]]:
    """path → the simulated times (POSIX seconds, sorted) at which the replay's page of an
    article changes after its publication: when an article it links to is published later
    (its "Related" list grows, its ``Last-Modified`` moves).

    ``index`` is the replay's :class:`~newsforagers.replay.index.SiteIndex` (or anything with
    its ``articles``, ``ts`` and ``link_ts``), built with the same corpus, ``retime`` and
    ``seed`` as the replay of the run.
    """
    changes = {}
    for article, link_times in zip(index.articles, index.link_ts):
        later = sorted(t for t in link_times if t > article.ts)
        if later:
            changes[article.path] = later
    return changes


def _first_change_after(times: Sequence[float], copy: float, end: float) -> float | None:
    for t in times:  # short lists: a handful of links per article
        if copy < t <= end:
            return t
    return None


# -- one run -----------------------------------------------------------------------------------


def classify_items(items: Iterable[Any], truth: Mapping[str, datetime], *,
                   novelty_window: timedelta = NOVELTY_WINDOW, skew: timedelta = FUTURE_SKEW
                   ) -> tuple[list[tuple[str, datetime, datetime]], Counter]:
    """The truly novel items as ``(path, published, found_at)`` in output order, and a count
    of the others by kind (``INVALID_KINDS``)."""
    novel, invalid = [], Counter()
    output: set[str] = set()
    for item in items:
        try:
            path, found_at = item_path(item.get("url")), as_time(item.get("found_at"))
        except AttributeError:
            path = found_at = None
        if path is None or found_at is None:
            invalid["malformed"] += 1
            continue
        key = _lookup(path, truth)
        if key is None:
            invalid["unknown"] += 1
            continue
        if key in output:
            invalid["duplicate"] += 1
            continue
        output.add(key)
        age = found_at - truth[key]
        if age > novelty_window:
            invalid["late"] += 1
        elif age < -skew:
            invalid["early"] += 1
        else:
            novel.append((key, truth[key], found_at))
    return novel, invalid


def run_metrics(truth: Iterable[Mapping], log: Iterable[Mapping], items: Iterable[Any],
                window: tuple[Any, Any] | None = None, *,
                counts: Mapping[str, Mapping[str, Any]] | None = None,
                foragers: str | Collection[str] | None = None,
                changes: Mapping[str, Sequence[float]] | None = None,
                novelty_window: timedelta = NOVELTY_WINDOW,
                skew: timedelta = FUTURE_SKEW) -> dict[str, Any]:
    """One run's ``results.json`` record: the ``RESULT_KEYS`` first, then the counts they come
    from (``novel``, ``output``, ``window_articles``, ``found_relevant``, ``lag_mean``,
    ``compartmentalisation``, ``invalid`` by kind, unusable ``bad_truth`` and ``bad_log``
    records). ``foragers`` picks the run's requests from a log several runs share (None: all).
    """
    times, bad_truth = truth_times(truth)
    requests, bad_log = run_requests(log, foragers)
    items = list(items)
    if window is None:
        window = _default_window(requests)
    else:
        start, end = as_time(window[0]), as_time(window[1])
        if start is None or end is None:
            raise ValueError(f"window ({window!r}) must be two aware times (ISO 8601 with an offset)")
        window = (start, end)

    novel, invalid = classify_items(items, times, novelty_window=novelty_window, skew=skew)
    result: dict[str, Any] = dict.fromkeys(RESULT_KEYS)
    result.update(requests=0, found_urls=0)
    extra: dict[str, Any] = {
        "novel": 0, "output": len(items), "window_articles": 0, "found_relevant": 0,
        "lag_mean": None, "compartmentalisation": None,
        "invalid": {kind: invalid.get(kind, 0) for kind in INVALID_KINDS},
        "bad_truth": bad_truth, "bad_log": bad_log,
    }
    if window is None:  # no request, no window given: nothing happened
        if counts:
            result["sent_efficiency"] = _sent_efficiency(counts)
        return {**result, **extra}
    start, end = window

    in_window = [r for r in requests if start <= r[0] <= end]
    n_requests = len(in_window)
    paths = {r[1] for r in in_window}
    window_articles = {p for p, t in times.items() if start <= t <= end}
    found = {p: (published, found_at) for p, published, found_at in novel}
    recalled = sorted(p for p in window_articles if p in found)  # a fixed order: sums repeat bit for bit
    lags = [max(0.0, (found[p][1] - found[p][0]).total_seconds() / 60.0) for p in recalled]
    relevant = [(p, found_at) for p, _, found_at in novel if start <= found_at <= end]

    # sent / rewarded
    if counts:
        sent_efficiency = _sent_efficiency(counts)
    else:
        # every output is a send: those found in the window, and malformed ones (they
        # cannot be placed in time, but the run sent them)
        sent = sum(1 for item in items if _sent_in(item, start, end))
        sent_efficiency = _ratio(len(relevant), sent)

    freshness, age = _freshness(relevant, in_window, changes or {}, end)
    visits = [Visit(r[0].timestamp(), str(r[3]), r[1]) for r in in_window if r[3] is not None]

    result.update(
        recall=_ratio(len(recalled), len(window_articles)),
        lag_median=percentile(lags, 50), lag_p90=percentile(lags, 90),
        download_efficiency=_ratio(len(relevant), n_requests),
        sent_efficiency=sent_efficiency,
        found_urls=len(paths), relative_found_urls=_ratio(len(paths), n_requests),
        freshness=freshness, age=age, requests=n_requests,
    )
    extra.update(
        novel=len(relevant), window_articles=len(window_articles), found_relevant=len(relevant),
        lag_mean=sum(lags) / len(lags) if lags else None,
        compartmentalisation=one_forager_share(visits),
    )
    return {**result, **extra}


def _sent_in(item: Any, start: datetime, end: datetime) -> bool:
    """Whether an output item counts as sent in the window: found in it, or malformed."""
    try:
        path, found_at = item_path(item.get("url")), as_time(item.get("found_at"))
    except AttributeError:
        return True
    if path is None or found_at is None:
        return True
    return start <= found_at <= end


def _sent_efficiency(counts: Mapping[str, Mapping[str, Any]]) -> float | None:
    sent = rewarded = 0.0
    for record in counts.values():
        try:
            s, r = float(record.get("sent") or 0), float(record.get("rewarded") or 0)
        except (AttributeError, TypeError, ValueError):
            continue
        if math.isfinite(s) and math.isfinite(r):
            sent, rewarded = sent + s, rewarded + r
    return _ratio(rewarded, sent)


def _freshness(relevant: Sequence[tuple[str, datetime]], requests: Sequence[tuple],
               changes: Mapping[str, Sequence[float]], end: datetime
               ) -> tuple[float | None, float | None]:
    if not relevant:
        return None, None
    end_ts = end.timestamp()
    latest: dict[str, float] = {}  # path -> the run's latest copy (a 200 or a 304) by the end
    for when, path, status, _ in requests:
        if status in COPY_STATUSES:
            ts = when.timestamp()
            if ts > latest.get(path, float("-inf")):
                latest[path] = ts
    current, ages = 0, []
    for path, found_at in relevant:
        copy = max(latest.get(path, float("-inf")), found_at.timestamp())
        changed = _first_change_after(changes.get(path, ()), copy, end_ts)
        if changed is None:
            current += 1
            ages.append(0.0)
        else:
            ages.append((end_ts - changed) / 60.0)
    return current / len(relevant), sum(ages) / len(ages)


# -- repeats ------------------------------------------------------------------------------------


def aggregate(runs: Iterable[Mapping[str, Any]], keys: Sequence[str] | None = None
              ) -> dict[str, dict[str, float | int | None]]:
    """``{metric: {"mean": x, "std": y, "n": k}}`` over repeated runs.

    ``keys`` defaults to every key whose values are numbers in at least one run. Values that
    are None (undefined in that run) or not numbers are left out and ``n`` says how many
    remained; ``std`` is the sample standard deviation (0 for a single run), mean and std are
    None when no run has a value.
    """
    runs = [run for run in runs if isinstance(run, Mapping)]
    if keys is None:
        ordered: dict[str, None] = {}
        for run in runs:
            for key, value in run.items():
                if _number(value):
                    ordered[key] = None
        keys = list(ordered)
    summary = {}
    for key in keys:
        values = [float(run[key]) for run in runs if _number(run.get(key))]
        if not values:
            summary[key] = {"mean": None, "std": None, "n": 0}
            continue
        mean = sum(values) / len(values)
        std = (math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
               if len(values) > 1 else 0.0)
        summary[key] = {"mean": mean, "std": std, "n": len(values)}
    return summary


def _number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


__all__ = [
    "COPY_STATUSES", "FUTURE_SKEW", "INVALID_KINDS", "NOVELTY_WINDOW", "RESULT_KEYS", "aggregate",
    "article_changes", "as_time", "classify_items", "item_path", "percentile", "run_metrics",
    "run_requests", "run_window", "truth_times",
]
