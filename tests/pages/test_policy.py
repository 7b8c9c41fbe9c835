"""Tests for newsforagers.pages.policy: Alg. 5's send policy: ``is_candidate`` and
``SentMemory``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from newsforagers.pages.page import Page
from newsforagers.pages.policy import DEFAULT_FUTURE_SKEW, SentMemory, is_candidate
from tests.pages.html import NOW


def test_candidate_window_is_inclusive_at_exactly_24_hours():
    assert is_candidate(NOW - timedelta(hours=24), NOW)
    assert not is_candidate(NOW - timedelta(hours=24, microseconds=1), NOW)
    assert is_candidate(NOW, NOW)
    assert is_candidate(NOW - timedelta(hours=1), NOW, window=timedelta(hours=1))
    assert not is_candidate(NOW - timedelta(hours=2), NOW, window=timedelta(hours=1))


def test_future_dates_are_candidates_only_within_the_skew():
    assert DEFAULT_FUTURE_SKEW == timedelta(minutes=5)
    assert is_candidate(NOW + timedelta(minutes=5), NOW)
    assert not is_candidate(NOW + timedelta(minutes=5, microseconds=1), NOW)
    assert not is_candidate(NOW + timedelta(days=1), NOW)
    assert not is_candidate(NOW + timedelta(seconds=1), NOW, skew=timedelta(0))


def test_candidate_compares_instants_across_time_zones():
    budapest = timezone(timedelta(hours=1))
    assert is_candidate(datetime(2024, 3, 5, 13, 0, tzinfo=budapest), NOW)  # 12:00 UTC
    assert not is_candidate(datetime(2024, 3, 5, 12, 59, tzinfo=budapest), NOW)


def test_undated_page_is_never_a_candidate():
    assert not is_candidate(None, NOW)


def test_naive_datetimes_and_negative_spans_are_rejected():
    with pytest.raises(ValueError, match="now"):
        is_candidate(NOW, NOW.replace(tzinfo=None))
    with pytest.raises(ValueError, match="now"):
        is_candidate(None, NOW.replace(tzinfo=None))
    with pytest.raises(ValueError, match="published"):
        is_candidate(NOW.replace(tzinfo=None), NOW)
    with pytest.raises(ValueError, match="window"):
        is_candidate(NOW, NOW, window=timedelta(hours=-1))
    with pytest.raises(ValueError, match="skew"):
        is_candidate(NOW, NOW, skew=timedelta(minutes=-1))


def dated(url: str, published: datetime | None) -> Page:
    return Page(url=url, title="", text="", links=(), published=published)


def test_select_returns_unsent_items_once_and_remembers_them():
    memory = SentMemory()
    assert memory.select(["https://a/1", "https://a/2", "https://a/1"]) == [
        "https://a/1",
        "https://a/2",
    ]
    assert memory.select(["https://a/2", "https://a/3"]) == ["https://a/3"]
    assert memory.select(["https://a/1#comments"]) == []
    assert len(memory) == 3
    assert "https://a/1" in memory
    assert "https://a/9" not in memory
    assert 42 not in memory


def test_pages_and_urls_share_one_memory():
    memory = SentMemory()
    story = dated("https://a/story", NOW)
    assert memory.select([story]) == [story]
    assert "https://a/story" in memory
    assert story in memory
    assert memory.select(["https://a/story"]) == []


def test_select_with_now_is_algorithm_5():
    memory = SentMemory()
    fresh = dated("https://a/fresh", NOW - timedelta(hours=2))
    stale = dated("https://a/stale", NOW - timedelta(hours=25))
    undated = dated("https://a/undated", None)
    assert memory.select([fresh, stale, undated], now=NOW) == [fresh]
    # Pages that were not relevant are not remembered: they were never sent.
    assert "https://a/stale" not in memory
    assert memory.select([fresh], now=NOW) == []
    with pytest.raises(ValueError, match="Page items"):
        memory.select([dated("https://a/other", NOW), "https://a/url"], now=NOW)
    assert "https://a/other" not in memory


def test_memory_is_bounded_and_forgets_the_oldest_first():
    memory = SentMemory(max_entries=3)
    memory.select(["u1", "u2", "u3"])
    memory.select(["u4"])
    assert len(memory) == 3
    assert memory.to_list() == ["u2", "u3", "u4"]
    # A forgotten URL can be sent again; a remembered one is not refreshed by a lookup.
    assert memory.select(["u3", "u1"]) == ["u1"]
    assert memory.to_list() == ["u3", "u4", "u1"]
    memory.select(["u5"])
    assert memory.to_list() == ["u4", "u1", "u5"]


def test_memory_round_trips_through_a_list():
    memory = SentMemory(max_entries=10)
    memory.select([f"https://a/{i}" for i in range(5)])
    restored = SentMemory.from_list(memory.to_list(), max_entries=10)
    assert restored.to_list() == memory.to_list()
    assert restored.select(["https://a/4", "https://a/5"]) == ["https://a/5"]
    # A smaller bound keeps the newest sends.
    assert SentMemory.from_list(memory.to_list(), max_entries=2).to_list() == [
        "https://a/3",
        "https://a/4",
    ]


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True])
def test_memory_bound_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="max_entries"):
        SentMemory(max_entries=bad)
