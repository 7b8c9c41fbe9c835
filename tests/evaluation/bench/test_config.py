"""newsforagers.evaluation.bench.config: a bad benchmark setting names its option."""

from __future__ import annotations

import pytest

from newsforagers.evaluation.bench.config import BenchConfig, BenchError


def test_config_errors_name_the_option():
    with pytest.raises(BenchError, match=r"--retime \(0\) must be higher than 0"):
        BenchConfig(corpus="c", out="o", retime=0).validate()
    with pytest.raises(BenchError, match="names a crawler twice"):
        BenchConfig(corpus="c", out="o", crawlers=("bfs", "bfs")).validate()


def test_a_topic_and_the_crawler_that_needs_one():
    with pytest.raises(BenchError, match="best_first crawler orders its frontier by relevance to a "
                                         "topic: give one with --topic SECTION"):
        BenchConfig(corpus="c", out="o", crawlers=("scheduled", "best_first")).validate()
    with pytest.raises(BenchError, match=r"--topic \(' '\) must name a section of the corpus"):
        BenchConfig(corpus="c", out="o", topic=" ").validate()
    for other in ({"budgets": (20.0, 2.0)}, {"sweep": True},
                  {"sweep_values": (("scheduled", (0.1,)),), "crawlers": ("scheduled",)}):
        with pytest.raises(BenchError, match="--topic and --sweep or --budgets are two benchmarks"):
            BenchConfig(corpus="c", out="o", topic="politics", **other).validate()
    config = BenchConfig(corpus="c", out="o", topic="politics", feeds=0.5,
                         crawlers=("scheduled", "bfs", "best_first", "feeds")).validate()
    assert config.to_dict()["topic"] == "politics"
    assert "best_first" not in BenchConfig(corpus="c", out="o").crawlers  # not by default
