"""The topical benchmark's measures: how well a run harvested one topic's documents
(the truth's articles filed in the ``--topic`` section or, on the synthetic site, its regional editions,
:func:`~newsforagers.evaluation.bench.topic.topic_documents`), from the replay's truth and
request log and the crawler's output, as the discovery measures of
:func:`~newsforagers.evaluation.metrics.run_metrics` are (pure functions: no clock, no I/O).

Over the run's window ``[start, end]`` (its first request, floored to the second, to its last),
with T the topic's documents:

- **harvest rate** (Menczer et al.'s precision over time): the topic's documents the run
  fetched / the requests it made, ``H = |{p ∈ T fetched}| / requests``; a document fetched
  again is not harvested again (a re-crawl's second fetch of a document is a request, not a
  new relevant page), a topic document of any publication date counts; as a series, per window
  of the bench's series (:func:`topic_series`), cumulated by the plot;
- **topic recall**: the share of the topic's documents published in the window that the run
  output as truly novel (``run_metrics``'s recall restricted to T: first output, at most 24
  simulated hours after publication), ``R = |T_w ∩ novel| / |T_w|``; its **median lag** too;
- **precision** of the output: the output items that are topic documents / the output items,
  ``P = |{i : path(i) ∈ T}| / |items|`` — a crawler that outputs every novel document, as
  ``bfs`` does, has the topic's share of the news as its precision;
- **fetch lag** of the topic: for each of the window's topic documents the run fetched in it,
  its first fetch less its publication (simulated minutes), output or not — how soon the
  crawl reached the topic's news, whatever its relevance kept; median and p90, and how many
  (``topic_fetched``): a crawler that outputs few of the topic's documents is still timed on
  all it fetched;
- **recall at equal requests** (:func:`recall_at_requests`, Menczer et al.'s target recall
  against pages crawled): the topic recall a run had reached after its first ``N`` requests,
  ``R(N) = |{p ∈ T_w ∩ novel : requests by found_at(p) ≤ N}| / |T_w|``, N the fewest
  requests any crawler of the benchmark made (the least of their means,
  :func:`topic_summary`).

A ratio with nothing to divide by is None, as in ``run_metrics``."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import unquote

from newsforagers.evaluation.bench.topic import topic_documents
from newsforagers.evaluation.metrics import (
    aggregate,
    classify_items,
    item_path,
    percentile,
    run_requests,
    run_window,
    truth_times,
)

#: A run's topic measures (``record["topic"]``), each crawler's mean ± std of them.
TOPIC_KEYS = ("harvest_rate", "topic_recall", "topic_precision", "topic_lag_median",
              "topic_fetch_lag_median", "topic_fetch_lag_p90", "relevant_fetched", "requests",
              "topic_window_articles", "topic_found", "topic_fetched", "topic_output", "output")
#: What :func:`topic_summary` adds to them.
EQUAL_KEYS = ("recall_at_requests",)


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def _key(path: Any, documents: set[str]) -> str | None:
    """``path`` as the truth spells it when it is a topic document (crawlers percent-encode
    non-ASCII paths), else None."""
    if not isinstance(path, str):
        return None
    if path in documents:
        return path
    decoded = unquote(path)
    return decoded if decoded in documents else None


def _window(log: Sequence[Mapping], window: tuple[datetime, datetime] | None):
    return window if window is not None else run_window(log)


def _first_fetches(requests: Iterable[tuple], documents: set[str]) -> dict[str, datetime]:
    """topic document → when the run first fetched it, over ``requests``."""
    first: dict[str, datetime] = {}
    for when, path, _, _ in requests:
        key = _key(path, documents)
        if key is not None and (key not in first or when < first[key]):
            first[key] = when
    return first


def topic_measures(truth: Sequence[Mapping], log: Sequence[Mapping], items: Sequence[Any],
                   section: str, window: tuple[datetime, datetime] | None = None) -> dict[str, Any]:
    """One run's topic measures (``TOPIC_KEYS``, the module docstring defines them) over
    ``window`` (by default the run's: its first request to its last)."""
    documents = topic_documents(truth, section)
    items = list(items)
    topic_output = sum(1 for item in items
                       if isinstance(item, Mapping) and _key(item_path(item.get("url")), documents))
    result: dict[str, Any] = dict.fromkeys(TOPIC_KEYS)
    result.update(relevant_fetched=0, requests=0, topic_window_articles=0, topic_found=0,
                  topic_fetched=0, topic_output=topic_output, output=len(items),
                  topic_precision=_ratio(topic_output, len(items)))
    window = _window(log, window)
    if window is None:
        return result
    start, end = window
    requests, _ = run_requests(log)
    in_window = [r for r in requests if start <= r[0] <= end]
    fetched = _first_fetches(in_window, documents)
    times, _ = truth_times(truth)
    novel, _ = classify_items(items, times)
    found = {path: (published, found_at) for path, published, found_at in novel}
    published = {p for p in documents if p in times and start <= times[p] <= end}
    recalled = sorted(p for p in published if p in found)  # a fixed order: sums repeat bit for bit
    lags = [max(0.0, (found[p][1] - found[p][0]).total_seconds() / 60.0) for p in recalled]
    reached = sorted(p for p in published if p in fetched)
    fetch_lags = [max(0.0, (fetched[p] - times[p]).total_seconds() / 60.0) for p in reached]
    result.update(
        harvest_rate=_ratio(len(fetched), len(in_window)),
        topic_recall=_ratio(len(recalled), len(published)),
        topic_lag_median=percentile(lags, 50),
        topic_fetch_lag_median=percentile(fetch_lags, 50),
        topic_fetch_lag_p90=percentile(fetch_lags, 90),
        relevant_fetched=len(fetched), requests=len(in_window),
        topic_window_articles=len(published), topic_found=len(recalled), topic_fetched=len(reached))
    return result


def topic_series(truth: Sequence[Mapping], log: Sequence[Mapping], items: Sequence[Any],
                 section: str, window: tuple[datetime, datetime], width: float) -> dict[str, Any]:
    """The series of a run's topic measures: ``harvest``, ``[minutes from the window's start,
    requests, topic documents first fetched]`` per ``width``-second window of simulated time
    (as :func:`~newsforagers.evaluation.bench.evaluate.efficiency_series`), and
    ``found_requests``, for each of the window's topic documents output as novel (in order of
    discovery) the requests the run had made by its ``found_at`` (to the second:
    ``found_at`` is the ``Date`` of the response, whole seconds), which
    :func:`recall_at_requests` counts."""
    documents = topic_documents(truth, section)
    start, end = window[0].timestamp(), window[1].timestamp()
    count = max(1, int(math.ceil((end - start) / width)))
    rows = [[round(i * width / 60.0, 3), 0, 0] for i in range(count)]

    def slot(ts: float) -> int | None:
        return min(int((ts - start) // width), count - 1) if start <= ts <= end else None

    requests, _ = run_requests(log)
    in_window = [r for r in requests if window[0] <= r[0] <= window[1]]
    for when, _, _, _ in in_window:
        rows[slot(when.timestamp())][1] += 1
    for when in _first_fetches(in_window, documents).values():
        rows[slot(when.timestamp())][2] += 1
    times, _ = truth_times(truth)
    novel, _ = classify_items(items, times)
    stamps = sorted(r[0].timestamp() for r in in_window)
    found = sorted((found_at, path) for path, published, found_at in novel
                   if path in documents and window[0] <= published <= window[1])
    return {"harvest": rows,
            "found_requests": [bisect_right(stamps, found_at.timestamp() + 1.0)
                               for found_at, _ in found]}


def recall_at_requests(found_requests: Sequence[int], window_articles: int | None,
                       requests: float | None) -> float | None:
    """Topic recall after ``requests`` requests: the topic documents found by then (their
    ``found_requests`` at most ``requests``) over the window's ``window_articles``; None
    without either."""
    if requests is None or not window_articles:
        return None
    return sum(1 for n in found_requests if n <= requests) / window_articles


def topic_summary(runs: Mapping[str, Sequence[Mapping[str, Any]]]
                  ) -> tuple[dict[str, dict[str, Any]], float | None]:
    """Each crawler's mean ± std of its runs' topic measures (``TOPIC_KEYS``) and of its
    recall at equal requests (``recall_at_requests``), and those requests: the least of the
    crawlers' mean requests. ``runs``: crawler (variant key) → its successful run records."""
    summaries = {name: aggregate([r["topic"] for r in records if r.get("topic")], TOPIC_KEYS)
                 for name, records in runs.items()}
    means = [s["requests"]["mean"] for s in summaries.values() if s["requests"]["mean"]]
    at = min(means) if means else None
    for name, records in runs.items():
        values = []
        for record in records:
            topic = record.get("topic") or {}
            series = (record.get("series") or {}).get("topic") or {}
            values.append({"recall_at_requests": recall_at_requests(
                series.get("found_requests") or [], topic.get("topic_window_articles"), at)})
        summaries[name].update(aggregate(values, EQUAL_KEYS))
    return summaries, at


def topic_targets(profile: str, crawlers: Mapping[str, Mapping[str, Any]],
                  colonies: Sequence[str]) -> list[dict[str, Any]]:
    """The topical targets of each of ``colonies`` that ran, from the means of its topic
    measures: harvest rate above ``bfs``'s, at least ``best_first``'s, topic recall ≥ 0.9, and
    a topic lag median no worse than the same colony's crawling without the topic
    (``CRAWLER@no-topic``) on the same documents; ``met`` None when a number it needs was not
    measured (its reference did not run)."""

    def mean(name: str, key: str) -> float | None:
        entry = (crawlers.get(name) or {}).get("topic", {}).get(key)
        return entry.get("mean") if isinstance(entry, Mapping) else None

    rows = []
    for crawler in colonies:
        if crawler not in crawlers:
            continue
        for label, key, op, bound, reference in (
                ("harvest rate > bfs", "harvest_rate", ">", mean("bfs", "harvest_rate"), "bfs harvest rate"),
                ("harvest rate ≥ best_first", "harvest_rate", ">=", mean("best_first", "harvest_rate"),
                 "best_first harvest rate"),
                ("topic recall ≥ 0.9", "topic_recall", ">=", 0.9, "0.9"),
                ("topic lag ≤ without the topic", "topic_lag_median", "<=",
                 mean(f"{crawler}@no-topic", "topic_lag_median"), f"{crawler}@no-topic topic lag")):
            value = mean(crawler, key)
            met = None if value is None or bound is None else (
                value > bound if op == ">" else value >= bound if op == ">=" else value <= bound)
            rows.append({"crawler": crawler, "target": label, "metric": key, "value": value,
                         "bound": bound, "reference": reference, "met": met, "profile": profile})
    return rows


__all__ = [
    "EQUAL_KEYS", "TOPIC_KEYS", "recall_at_requests", "topic_measures", "topic_series",
    "topic_summary", "topic_targets",
]
