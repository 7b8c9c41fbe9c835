"""What the benchmark's tests share: a tiny synthetic corpus (the ``corpus`` fixture), a quick
config for it, and run records with made-up measures."""

from __future__ import annotations

from pathlib import Path

import pytest

from newsforagers.evaluation.bench.config import BenchConfig
from newsforagers.evaluation.bench.summary import summarise
from newsforagers.evaluation.metrics import RESULT_KEYS
from newsforagers.replay.synth import synth_corpus

MONDAY_7 = "2024-01-01T07:00:00+00:00"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return synth_corpus(tmp_path_factory.mktemp("corpus") / "synth.jsonl.gz", days=2, rate=200,
                        sections=12, seed=5)


def config_for(corpus: Path | str, out: Path | str, **kwargs) -> BenchConfig:
    kwargs = {"speed": 600.0, "duration": 8.0, "budget": 40.0, "repeats": 1, **kwargs}
    return BenchConfig(corpus=str(corpus), out=str(out), **kwargs).validate()


def metrics(**values) -> dict:
    base = dict.fromkeys(RESULT_KEYS)
    base.update(compartmentalisation=None, novel=0, window_articles=10, output=0, lag_mean=None)
    base.update(values)
    return base


def record(crawler: str, repeat: int, status: str = "ok", **values) -> dict:
    return {"crawler": crawler, "repeat": repeat, "seed": 1 + repeat, "status": status,
            "problems": [] if status == "ok" else ["the crawler exited with status 1"],
            "metrics": metrics(**values) if status == "ok" else None, "series": {}}


RECORDS = [
    record("wlrl", 0, recall=0.96, lag_median=2.0, lag_p90=9.0, download_efficiency=0.06,
           sent_efficiency=0.7, requests=1000, compartmentalisation=0.5),
    record("wlrl", 1, recall=1.0, lag_median=4.0, lag_p90=11.0, download_efficiency=0.08,
           sent_efficiency=0.5, requests=1200, compartmentalisation=0.7),
    record("wlrl", 2, status="failed"),
    record("bfs", 0, recall=0.5, lag_median=10.0, download_efficiency=0.01, requests=1100),
    record("adaptive", 0, recall=0.9, lag_median=3.5, download_efficiency=0.05, requests=1100),
    record("adaptive", 1, recall=0.92, lag_median=2.5, download_efficiency=0.09, requests=1050),
]


def summary_of(records, profile="hard"):
    config = BenchConfig(corpus="c.jsonl", out="o", profile=profile, repeats=3,
                         crawlers=("wlrl", "bfs", "adaptive"))
    return summarise(config, {"start": MONDAY_7, "articles": 10}, records, ["newsforagers", "bench"])


# A topical benchmark's run records (issue 20): each run's topic measures and the requests by
# which it found each of the window's topic documents (docs/bench.md, *Topics*).

def topic_record(crawler: str, repeat: int, found_requests: list[int], **values) -> dict:
    topic = {"harvest_rate": None, "topic_recall": None, "topic_precision": None,
             "topic_lag_median": None, "topic_fetch_lag_median": None, "topic_fetch_lag_p90": None,
             "relevant_fetched": 0, "requests": 0, "topic_window_articles": 4,
             "topic_found": len(found_requests), "topic_fetched": 0, "topic_output": 0,
             "output": 0, **values}
    base = record(crawler, repeat, requests=topic["requests"])
    base["topic"] = topic
    base["series"] = {"topic": {"harvest": [], "found_requests": found_requests}}
    return base


TOPIC_RECORDS = [
    topic_record("scheduled", 0, [3, 6, 8], harvest_rate=0.4, topic_recall=1.0, requests=10),
    topic_record("scheduled", 1, [2, 12], harvest_rate=0.2, topic_recall=0.5, requests=20),
    topic_record("bfs", 0, [1, 5, 7], harvest_rate=0.1, topic_recall=0.75, topic_precision=0.25,
                 requests=6, topic_fetch_lag_median=2.0, topic_fetch_lag_p90=6.5, topic_fetched=4),
]


def topic_summary_of(records):
    config = BenchConfig(corpus="c.jsonl", out="o", repeats=2, crawlers=("scheduled", "bfs"),
                         topic="solar", topic_text="solar energy")
    return summarise(config, {"start": MONDAY_7, "articles": 10}, records, ["newsforagers", "bench"])
