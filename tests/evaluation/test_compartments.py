"""Compartmentalisation measures (newsforagers.evaluation.compartments) on hand-built visits."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from newsforagers.evaluation.compartments import (
    TrajectoryShare,
    Visit,
    foragers_per_page,
    log_visits,
    one_forager_share,
    pages_by_forager_count,
    pooled,
    shuffled_one_forager_share,
    split_windows,
    timestamp,
    trajectory_share,
    two_step_trajectories,
    window_table,
)


def v(time, forager, page, segment=None):
    return Visit(float(time), forager, page, segment)


# -- records and windows ------------------------------------------------------------------------

def test_timestamp_reads_iso_and_numbers():
    assert timestamp("1970-01-01T00:01:00+00:00") == 60.0
    assert timestamp("1970-01-01T01:01:00+01:00") == 60.0
    assert timestamp(12) == 12.0 and timestamp(1.5) == 1.5


def test_log_visits_keeps_forager_requests_in_order_and_drops_robots():
    records = [
        {"sim_time": "1970-01-01T00:00:10+00:00", "wall_time": 5.0, "path": "/robots.txt", "forager": None},
        {"sim_time": "1970-01-01T00:00:20+00:00", "wall_time": 6.0, "path": "/", "forager": "f1"},
        {"sim_time": "1970-01-01T00:00:15+00:00", "wall_time": 7.0, "path": "/a/", "forager": "f2"},
        {"sim_time": "1970-01-01T00:00:30+00:00", "wall_time": 8.0, "path": "/b/", "forager": None},
        {"sim_time": "1970-01-01T00:00:40+00:00", "wall_time": 9.0, "path": "/robots.txt", "forager": "f1"},
    ]
    assert log_visits(records) == [v(20, "f1", "/"), v(15, "f2", "/a/")]
    assert [x.time for x in log_visits(records, time_key="wall_time")] == [6.0, 7.0]


def test_windows_are_consecutive_half_open_and_keep_empty_ones():
    visits = [v(0, "f1", "/a"), v(9.9, "f2", "/b"), v(10, "f1", "/c"), v(35, "f1", "/d")]
    windows = split_windows(visits, 10)
    assert [(w.begin, w.end) for w in windows] == [(0, 10), (10, 20), (20, 30), (30, 40)]
    assert [[x.page for x in w.visits] for w in windows] == [["/a", "/b"], ["/c"], [], ["/d"]]


def test_windows_with_explicit_bounds_and_a_visit_on_the_last_boundary():
    visits = [v(-1, "f1", "/early"), v(5, "f1", "/a"), v(20, "f2", "/b"), v(21, "f2", "/late")]
    windows = split_windows(visits, 10, start=0, end=20)
    assert [(w.begin, [x.page for x in w.visits]) for w in windows] == [(0, ["/a"]), (10, []), (20, ["/b"])]
    assert split_windows([], 10) == []
    assert [w.begin for w in split_windows([], 10, start=0, end=15)] == [0, 10]
    with pytest.raises(ValueError):
        split_windows(visits, 0)


# -- one-forager share -----------------------------------------------------------------------------

def test_one_forager_share_counts_distinct_pages_by_distinct_foragers():
    visits = [
        v(0, "f1", "/a"), v(1, "f1", "/a"),  # /a: one forager, twice
        v(2, "f1", "/b"), v(3, "f2", "/b"),  # /b: two foragers
        v(4, "f2", "/c"),                    # /c: one forager
        v(5, "f1", "/d"), v(6, "f2", "/d"), v(7, "f3", "/d"),  # /d: three
    ]
    assert foragers_per_page(visits) == {"/a": 1, "/b": 2, "/c": 1, "/d": 3}
    assert pages_by_forager_count(visits) == Counter({1: 2, 2: 1, 3: 1})
    assert one_forager_share(visits) == pytest.approx(2 / 4)
    assert one_forager_share([]) is None
    assert one_forager_share([v(0, "f1", "/x")]) == 1.0


def test_shuffled_share_keeps_pages_and_visit_counts():
    # two foragers, each with its own two pages visited twice: fully compartmentalised (1.0);
    # shuffled labels mix them, so the share can only fall or stay
    visits = [v(t, f, p) for t, (f, p) in enumerate(
        [("f1", "/a"), ("f1", "/a"), ("f1", "/b"), ("f1", "/b"),
         ("f2", "/c"), ("f2", "/c"), ("f2", "/d"), ("f2", "/d")])]
    assert one_forager_share(visits) == 1.0
    rng = np.random.default_rng(0)
    shares = [shuffled_one_forager_share(visits, rng) for _ in range(200)]
    assert all(0.0 <= s <= 1.0 for s in shares)
    # each page keeps both its visits under the shuffle: P(same label) = 3/7 for each page
    assert np.mean(shares) == pytest.approx(3 / 7, abs=0.05)
    assert shuffled_one_forager_share([], rng) is None
    # one forager only: the shuffle cannot change anything
    alone = [v(0, "f1", "/a"), v(1, "f1", "/b")]
    assert shuffled_one_forager_share(alone, rng) == 1.0


# -- two-step trajectories ---------------------------------------------------------------------------

def test_trajectories_pair_consecutive_visits_of_each_forager_within_a_segment():
    visits = [
        v(0, "f1", "/a", 1), v(1, "f2", "/a", 7), v(2, "f1", "/b", 1), v(3, "f2", "/c", 7),
        v(4, "f1", "/c", 1),
        v(5, "f1", "/a", 2),  # a new path: /c -> /a is not a trajectory
        v(6, "f1", "/b", 2),  # /a -> /b again: counted once
    ]
    assert two_step_trajectories(visits) == {
        ("f1", "/a", "/b"), ("f1", "/b", "/c"), ("f2", "/a", "/c")}
    # without segments (the request log) every consecutive pair counts
    flat = [x._replace(segment=None) for x in visits]
    assert ("f1", "/c", "/a") in two_step_trajectories(flat)
    assert two_step_trajectories([]) == set()


def test_trajectory_share_over_start_pages_shared_by_foragers():
    trajectories = {
        ("f1", "/a", "/b"), ("f2", "/a", "/c"),                      # /a: 2 different of 2
        ("f1", "/x", "/y"), ("f2", "/x", "/y"), ("f3", "/x", "/y"),  # /x: 1 of 3
        ("f1", "/solo", "/b"), ("f1", "/solo", "/c"),                # one forager only: left out
    }
    share = trajectory_share(trajectories)
    assert share == TrajectoryShare(starts=2, distinct=3, total=5)
    assert share.ratio == pytest.approx(3 / 5)
    assert trajectory_share(set()).ratio is None


def test_trajectory_share_counts_a_forager_with_two_continuations_once_each():
    # f1 left /a by /b and by /c, f2 by /b: distinct (a, b) pairs 2, (forager, a, b) 3
    share = trajectory_share({("f1", "/a", "/b"), ("f1", "/a", "/c"), ("f2", "/a", "/b")})
    assert (share.starts, share.distinct, share.total) == (1, 2, 3)


def test_all_foragers_diverging_gives_one():
    trajectories = {(f"f{i}", "/front", f"/section/{i}") for i in range(5)}
    assert trajectory_share(trajectories).ratio == 1.0


# -- the table --------------------------------------------------------------------------------------

def test_window_table_and_pooled():
    visits = [
        # window [0, 10): f1 /a -> /b, f2 /a -> /c ; pages a, b, c, a shared
        v(0, "f1", "/a"), v(1, "f2", "/a"), v(2, "f1", "/b"), v(3, "f2", "/c"),
        # window [10, 20): f1 alone
        v(10, "f1", "/d"), v(11, "f1", "/e"),
        # window [20, 30): f1 and f2 both /x -> /y
        v(20, "f1", "/x"), v(21, "f2", "/x"), v(22, "f1", "/y"), v(23, "f2", "/y"),
    ]
    rows = window_table(visits, 10, rng=np.random.default_rng(1))
    assert [r["visits"] for r in rows] == [4, 2, 4]
    assert [r["foragers"] for r in rows] == [2, 1, 2]
    assert [r["one_forager_share"] for r in rows] == [pytest.approx(2 / 3), 1.0, 0.0]
    assert [r["trajectory_ratio"] for r in rows] == [1.0, None, 0.5]
    assert all("shuffled_one_forager_share" in r for r in rows)
    summary = pooled(rows)
    assert summary["windows"] == 2  # the one-forager window is left out
    assert summary["one_forager_share_mean"] == pytest.approx((2 / 3 + 0) / 2)
    assert summary["one_forager_share_min"] == 0.0
    assert summary["trajectory_distinct"] == 3 and summary["trajectory_total"] == 4
    assert summary["trajectory_ratio"] == pytest.approx(0.75)
    assert pooled(rows, min_foragers=1)["windows"] == 3
    assert pooled([])["one_forager_share_mean"] is None
