"""``results.json``'s numbers: each crawler's mean ± standard deviation of every measure over
its successful runs, the failed runs, and the targets (the papers' colony's and the
scheduled one's, docs/bench.md) judged from the means (:func:`summarise`, :func:`targets`). Pure
functions of the run records: the same records give the same results."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from newsforagers.evaluation.bench.config import BenchConfig
from newsforagers.evaluation.bench.harvest import topic_summary, topic_targets
from newsforagers.evaluation.bench.plan import run_keys
from newsforagers.evaluation.bench.sites import SPREAD_KEYS
from newsforagers.evaluation.bench.sweep import cross_table, curves, sweep_targets
from newsforagers.evaluation.lagsplit import SPLIT_KEYS
from newsforagers.evaluation.metrics import RESULT_KEYS, aggregate

#: Every crawler's entry in ``results.json`` maps these to ``{"mean", "std", "n"}``.
METRIC_KEYS = RESULT_KEYS + ("compartmentalisation",)
#: Counts aggregated beside them (what the ratios come from).
EXTRA_KEYS = ("novel", "window_articles", "output", "lag_mean")

#: The crawlers with targets: the papers' colony and the scheduled one (docs/bench.md).
TARGET_CRAWLERS = ("wlrl", "scheduled")


def summarise(config: BenchConfig, site: Mapping[str, Any] | None, records: Sequence[Mapping],
              command: Sequence[str] = ()) -> dict[str, Any]:
    """``results.json``: the settings and command, each crawler's mean ± std of every measure
    over its successful runs, the targets, the failures and every run's raw record (with a
    ``--topic``, each crawler's ``topic`` measures, ``topic``: the section, its words and the
    requests of the recall at equal requests, and the topic's targets; with ``--sites``, each
    crawler's ``sites``: the mean ± std over its runs of each run's spread over its sites). A
    pure function of its arguments: the same records give the same bytes."""
    crawlers: dict[str, Any] = {}
    topical: dict[str, list[Mapping]] = {}
    for name in run_keys(config):
        mine = [r for r in records if record_key(r) == name]
        ok = [r["metrics"] for r in mine if r.get("status") == "ok" and r.get("metrics")]
        summary = aggregate(ok, METRIC_KEYS + EXTRA_KEYS)
        summary["runs"] = {"ok": len(ok), "failed": len(mine) - len(ok)}
        splits = [r["lag_split"] for r in mine if r.get("status") == "ok" and r.get("lag_split")]
        if splits:
            summary["lag_split"] = aggregate(splits, SPLIT_KEYS)
        if config.sites is not None:  # many sites: each run's spread over its sites
            spreads = [r["site_spread"] for r in mine if r.get("status") == "ok" and r.get("site_spread")]
            summary["sites"] = aggregate(spreads, SPREAD_KEYS)
        crawlers[name] = summary
        topical[name] = [r for r in mine if r.get("status") == "ok" and r.get("metrics")]
    failures = [{"crawler": record_key(r), "repeat": r.get("repeat"),
                 "problems": list(r.get("problems") or [])}
                for r in records if r.get("status") != "ok"]
    results = {
        "command": shlex.join(command) if command else None,
        "settings": config.to_dict(),
        "site": dict(site) if site is not None else None,
        "crawlers": crawlers,
        "targets": targets(config.profile, crawlers),
        "failures": {"count": len(failures), "runs": failures},
        "runs": list(records),
    }
    if config.topic is not None:
        # the topic's measures beside the others, and its targets instead of the
        # discovery ones (a topical colony outputs only the topic: its recall of all the news
        # says nothing)
        summaries, at = topic_summary(topical)
        for name, summary in summaries.items():
            crawlers[name]["topic"] = summary
        results["topic"] = {"section": config.topic, "text": config.topic_text, "at_requests": at,
                            "words": config.topic_words}
        results["targets"] = topic_targets(config.profile, crawlers, TARGET_CRAWLERS)
    if config.sweep or config.sweep_values or config.budgets:
        found = curves(records, crawlers)
        results["curves"] = found
        results["at_efficiency"] = cross_table(found)
        results["targets"] += sweep_targets(found, config.profile)
    return results


def record_key(record: Mapping[str, Any]) -> str | None:
    """A run record's variant key (a record written before sweeps: its crawler)."""
    return record.get("key") or record.get("crawler")


def _mean(crawlers: Mapping[str, Any], name: str, key: str) -> float | None:
    entry = crawlers.get(name, {}).get(key)
    return entry.get("mean") if isinstance(entry, Mapping) else None


def targets(profile: str, crawlers: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The targets of each target crawler that ran (``wlrl`` and ``scheduled``, docs/bench.md),
    on the hard profile, each ``met`` True/False from the means, or None when a number it
    needs was not measured."""
    rows = []
    bfs_lag = _mean(crawlers, "bfs", "lag_median")
    adaptive = lambda key: _mean(crawlers, "adaptive", key)  # noqa: E731

    for crawler in TARGET_CRAWLERS:
        if crawler not in crawlers:
            continue
        mine = lambda key, c=crawler: _mean(crawlers, c, key)  # noqa: E731

        def add(label: str, key: str, op: str, bound: float | None, reference: str,
                crawler: str = crawler, mine=mine) -> None:
            value = mine(key)
            if value is None or bound is None:
                met = None
            else:
                met = value >= bound if op == ">=" else value <= bound
            rows.append({"crawler": crawler, "target": label, "metric": key, "value": value,
                         "bound": bound, "reference": reference, "met": met, "profile": profile})

        add("recall ≥ 0.95", "recall", ">=", 0.95, "0.95")
        if crawler == "wlrl":
            add("median lag ≤ 0.5 × bfs", "lag_median", "<=",
                None if bfs_lag is None else 0.5 * bfs_lag, "0.5 × bfs median lag")
        add("median lag ≤ adaptive", "lag_median", "<=", adaptive("lag_median"), "adaptive median lag")
        if crawler == "scheduled":
            add("p90 lag ≤ adaptive", "lag_p90", "<=", adaptive("lag_p90"), "adaptive p90 lag")
        if crawler == "wlrl":
            add("download efficiency ≥ 0.05", "download_efficiency", ">=", 0.05, "0.05")
        add("download efficiency ≥ adaptive", "download_efficiency", ">=",
            adaptive("download_efficiency"), "adaptive download efficiency")
        if crawler == "wlrl":
            add("sent efficiency ≥ 0.6", "sent_efficiency", ">=", 0.6, "0.6")
    return rows



__all__ = ["EXTRA_KEYS", "METRIC_KEYS", "TARGET_CRAWLERS", "record_key", "summarise", "targets"]
