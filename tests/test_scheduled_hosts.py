"""The scheduled forager over many hosts (issue 31, item 3): each host's listings under
its own budget, exploration's share on each host, a busy host's work passed over and kept.
Hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from newsforagers.learning.schedule import HubSchedule
from newsforagers.strategies.scheduled import Fetch
from newsforagers.strategies.scheduled.explore import Candidates
from tests.test_scheduled import HOME, T0, at, dated, make

A, B = "http://a.example/", "http://b.example/"


def _two_hosts() -> HubSchedule:
    """Host a: two fronts that paid 4 and 1 stories an hour; host b: one that paid 9; all last
    visited at T0."""
    schedule = HubSchedule()
    schedule.add(A + "busy/", now=T0, rate=4.0)
    schedule.add(A + "quiet/", now=T0, rate=1.0)
    schedule.add(B + "front/", now=T0, rate=9.0)
    return schedule


def test_each_host_s_listings_share_that_host_s_budget_alone():
    schedule = _two_hosts()
    assert schedule.demands() == {"a.example": pytest.approx(3.0), "b.example": pytest.approx(3.0)}
    assert schedule.demand(host="a.example") == pytest.approx(3.0) and schedule.novelty(host="b.example") == 9.0
    assert schedule.novelties() == {"a.example": 5.0, "b.example": 9.0}
    # host a may take 10 visits an hour, host b 15. "lag": θ = (Σ√λ)² / 2P² per host (when
    # below the configured 0.07): a: 3² / (2·10²) = 0.045 document-hours; b: 3² / (2·15²) = 0.02
    budgets = {"a.example": (10.0, None), "b.example": (15.0, None)}
    assert schedule.budget_threshold(10.0, host="a.example") == pytest.approx(0.045)
    assert schedule.budget_threshold(15.0, host="b.example") == pytest.approx(0.02)
    # b's front (9/h) is due when 9·h²/2 = 0.02: h = 1/15, 240 s after its last visit
    assert schedule.next_due(T0 + 239, budgets=budgets) == (None, pytest.approx(1.0))
    assert schedule.next_due(T0 + 241, budgets=budgets) == (B + "front/", 0.0)
    # a's busy front (4/h) when 4·h²/2 = 0.045: h = 0.15, at 540 s; its quiet one (1/h) at
    # h = 0.3, 1,080 s: each as a's 10 visits an hour (√4 : √1 of them) would have it
    b_busy = lambda host: host == "b.example"  # noqa: E731
    assert schedule.next_due(T0 + 539, budgets=budgets, skip=b_busy) == (None, pytest.approx(1.0))
    assert schedule.next_due(T0 + 541, budgets=budgets, skip=b_busy)[0] == A + "busy/"
    # one budget of 25 an hour for all three instead: θ = 6² / (2·25²) = 0.0288; b's front due
    # at h = √(2θ/9) = 0.08 (288 s), a's busy one at h = 0.12 (432 s): the visits b's budget
    # could buy would go to a, whose own budget is smaller
    assert schedule.next_due(T0 + 287, poll_rate=25.0) == (None, pytest.approx(1.0))
    assert schedule.next_due(T0 + 433, poll_rate=25.0, skip=b_busy)[0] == A + "busy/"


def test_a_host_without_a_budget_keeps_the_configured_threshold_and_a_skipped_host_waits():
    schedule = _two_hosts()
    # only b has a budget; a's listings are due by the threshold 0.07 document-hours:
    # 4·h²/2 = 0.07 at h = √0.035 (673.5 s)
    due = math.sqrt(2 * 0.07 / 4.0) * 3600.0
    url, wait = schedule.next_due(T0 + 300, budgets={"b.example": (6.0, None)}, skip=lambda host: host == "b.example")
    assert url is None and wait == pytest.approx(due - 300)
    # b skipped: its due time is not counted in the wait either
    url, wait = schedule.next_due(T0 + 700, budgets={"b.example": (6.0, None)}, skip=lambda host: host == "b.example")
    assert url == A + "busy/"


def test_one_host_s_budget_schedules_exactly_as_one_budget_for_all():
    one, per_host = _one_host(), _one_host()
    visits = 0
    for minutes in range(0, 480, 5):
        now = T0 + 60 * minutes
        expected = one.next_due(now, poll_rate=5.0, scarce_rate=3.0, min_yield=0.2)
        assert per_host.next_due(now, budgets={"s": (5.0, 3.0)}, min_yield=0.2) == expected
        if expected[0] is not None:
            for schedule in (one, per_host):
                schedule.begin(expected[0], now)
                schedule.visited(expected[0], 1, now=now)
                schedule.credit(expected[0], 1 + minutes % 3)
            visits += 1
    assert visits > 10 and per_host.demands() == {"s": pytest.approx(one.demand())}


def _one_host() -> HubSchedule:
    schedule = HubSchedule()
    for index, rate in enumerate((6.0, 2.0, 0.5, 0.1)):
        schedule.add(f"{HOME}l{index}/", now=T0, rate=rate)
    return schedule


def test_a_busy_host_s_stories_stay_queued_while_another_host_s_go():
    forager = make()
    visit = forager.next_fetch(at(0))
    stories = [A + "1/", B + "2/", A + "3/"]
    forager.on_page(visit, at(0), text="c1 home", published=None, links=stories,
                    listed={url: dated(5, at(0)) for url in stories})
    busy = lambda host: host == "a.example"  # noqa: E731
    assert forager.next_fetch(at(1), busy).url == B + "2/"
    assert forager.next_fetch(at(1), busy) is None and forager.queued == 2  # a's wait, still queued
    # a has room again: its stories go, in their order
    assert [forager.next_fetch(at(2)).url for _ in range(2)] == [A + "1/", A + "3/"]


def test_exploration_s_share_holds_on_each_host():
    forager = make(FORAGERS_EXPLORE_SHARE=0.5)
    # host a made 4 requests, 3 of them exploring (beyond its half of 4 + 1); b made 4, none exploring
    forager._host_made.update({"a.example": 4, "b.example": 4})
    forager._host_explored.update({"a.example": 3, "b.example": 0})
    assert not forager._explore_due_on("a.example") and forager._explore_due_on("b.example")
    assert forager._explore_due_on("c.example")  # nothing made there yet: 0 < 0.5·1
    forager._candidate(B + "tag/", 1)  # the older candidate, on b
    forager._candidate(A + "tag/", 2)  # the newest, on a: a has used its share
    fetch = forager._try_candidate(forager._explore_due_on)
    assert fetch == Fetch(B + "tag/", "candidate", 1)
    assert A + "tag/" in forager._candidates  # kept for when a may explore
    forager._begin(fetch)
    assert forager._host_made["b.example"] == 5 and forager._host_explored["b.example"] == 1


def test_the_stories_met_are_counted_per_host():
    forager = make()
    # 12 stories on a in the last 6 hours (2 an hour), 1 on b; all of them met now
    stories = {A + f"{i}/": dated(20 * i + 1, at(0)) for i in range(12)} | {B + "x/": dated(5, at(0))}
    forager._observe_dates(stories, at(0))
    assert forager._stories_per_hour(at(0), "a.example") == pytest.approx(2.0)
    assert forager._stories_per_hour(at(0), "b.example") == pytest.approx(1 / 6)
    assert forager._stories_per_hour(at(0), "c.example") == 0.0
    assert forager._stories_per_hour(at(0)) == pytest.approx(13 / 6)


def test_the_harvest_queue_is_one_heap_per_host_and_its_head_the_best_of_the_free_hosts():
    from newsforagers.strategies.scheduled.fetch import HostQueues

    queue = HostQueues()
    for host, entry in [("a", (1, 5.0, 1)), ("b", (1, 3.0, 2)), ("a", (0, 0.0, 3)), ("b", (2, 0.0, 4))]:
        queue.push(host, entry)
    assert len(queue) == 4 and sorted(queue) == [(0, 0.0, 3), (1, 3.0, 2), (1, 5.0, 1), (2, 0.0, 4)]
    assert queue.head() == ("a", (0, 0.0, 3))  # the first of all, whatever its host
    asked = []

    def busy(host):
        asked.append(host)
        return host == "a"

    assert queue.head(busy) == ("b", (1, 3.0, 2))  # a has its share in flight: b's first
    assert "a" in asked and len(queue) == 4  # passed over, nothing moved
    assert queue.pop("a") == (0, 0.0, 3) and queue.pop("a") == (1, 5.0, 1)
    assert queue.head(busy) == ("b", (1, 3.0, 2)) and len(queue) == 2  # a's heap is gone
    assert queue.head(lambda host: True) is None


def test_a_seed_host_s_first_visit_goes_after_news_but_before_another_host_s_backlog():
    from newsforagers.config import ForagersConfig
    from newsforagers.strategies.scheduled import ScheduledMind
    from newsforagers.strategies.scheduled.mind import schedule_from_config
    from tests.test_scheduled import K, OneHot

    config = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": K, "FORAGERS_BOOTSTRAP_PAGES": K,
                                           "FORAGERS_EXPLORE_SHARE": 0.0})
    seeds = [A, B]
    forager = ScheduledMind("f1", config, schedule_from_config(config, seeds), np.ones(K),
                            np.random.default_rng(0), encoder=OneHot(), claim=lambda url: True, seeds=seeds)
    visit = forager.next_fetch(at(0))
    assert visit.url == A
    news, backlog, section = A + "2024/01/01/news/", A + "2024/01/01/old/", A + "section/"
    # a's home: one story since the forager began, one of the backlog, and its navigation (a
    # seed's first visit: its map, fetched at once)
    forager.on_page(visit, at(1), text="c1 home", published=None, links=[news, backlog, section],
                    listed={news: dated(0.5, at(1)), backlog: dated(120, at(1))})
    assert forager.next_fetch(at(1)).url == news  # news first, whatever host
    assert forager.next_fetch(at(1)).url == B  # then b's first contact
    assert forager.next_fetch(at(1)).url == section
    assert forager.next_fetch(at(1)).url == backlog
    assert forager.counters.first_visits == 2  # a and b (newsforagers/first_visits)
    # a host passed over (its budget holds it back) waits; the other host's work goes meanwhile
    other = ScheduledMind("f2", config, schedule_from_config(config, seeds), np.ones(K),
                          np.random.default_rng(0), encoder=OneHot(), claim=lambda url: True, seeds=seeds)
    assert other.next_fetch(at(0), lambda host: host == "a.example").url == B
    assert other.schedule.first_visit(lambda host: True) is None
    assert other.schedule.first_visit() == A


def test_candidates_give_the_newest_on_a_host_that_may_explore_asking_each_host_once_at_most():
    fetched: set[str] = set()
    candidates = Candidates(4, stale=fetched.__contains__)
    for visit, (url, host) in enumerate([("a/1", "a"), ("b/1", "b"), ("a/2", "a"), ("c/1", "c")], start=1):
        candidates.add(url, host, visit)
    candidates.add("b/1", "b", 9)  # known: keeps its place and visit
    asked: list[str] = []

    def may(host: str) -> bool:
        asked.append(host)
        return host != "c"

    # newest c/1 (c may not), then a's newest a/2: taken; b's (older than a/2) not asked
    assert candidates.newest(may) == "a/2" and asked == ["c", "a"]
    # a/2 stale (fetched meanwhile): forgotten on the way; a's next, a/1, is older than b/1
    asked.clear()
    fetched.add("a/2")
    assert candidates.newest(may) == "b/1" and asked == ["c", "a", "b"]
    assert "a/2" not in candidates and len(candidates) == 3
    assert candidates.remove("b/1") == 2 and candidates.remove("b/1") is None
    assert candidates.newest(None) == "c/1"
    # the bound: the oldest forgotten first, and its host with it once it has none left
    for visit, host in enumerate("def", start=5):
        candidates.add(host + "/1", host, visit)
    assert "a/1" not in candidates and len(candidates) == 4
    assert candidates.newest(lambda host: host == "a") is None
    assert candidates.newest(lambda host: host in ("c", "d")) == "d/1"


def test_at_the_bound_the_stale_candidates_go_before_one_still_to_be_tried():
    visited: set[str] = set()
    candidates = Candidates(16, stale=visited.__contains__)
    for visit in range(1, 17):  # a/1 ... a/16, the oldest first: at the bound
        candidates.add(f"a/{visit}", "a", visit)
    visited.update({"a/2", "a/5"})  # tried since by another path: stale
    # the 17th passes the bound, 17 additions since a sweep (> 16 // 8): the two stale swept,
    # the oldest, a/1, still to be tried, kept
    candidates.add("a/17", "a", 17)
    assert len(candidates) == 15 and "a/1" in candidates and candidates.forgotten == 0
    assert "a/2" not in candidates and "a/5" not in candidates
    candidates.add("a/18", "a", 18)  # at the bound
    visited.add("a/3")
    # the 19th passes it 2 additions after the sweep (at most one an eighth of the size: 2):
    # no sweep, the oldest goes, a/1 (not stale: counted)
    candidates.add("a/19", "a", 19)
    assert "a/1" not in candidates and "a/3" in candidates and candidates.forgotten == 1
    # the 20th, 3 after: swept, a/3 goes, and nothing else
    candidates.add("a/20", "a", 20)
    assert "a/3" not in candidates and "a/4" in candidates and len(candidates) == 16
    assert candidates.forgotten == 1
    # without a stale test (the bound alone), the oldest goes whether stale or not
    plain = Candidates(2)
    for visit, url in enumerate(["x/1", "x/2", "x/3"], start=1):
        plain.add(url, "x", visit)
    assert "x/1" not in plain and plain.forgotten == 1


def test_a_candidate_another_forager_claimed_is_forgotten_and_the_next_taken():
    forager = make(FORAGERS_EXPLORE_SHARE=0.5)
    forager._candidate(A + "tag/", 1)
    forager._candidate(B + "tag/", 2)
    claimed = {B + "tag/"}
    forager.claim = lambda url: url not in claimed
    assert forager._try_candidate() == Fetch(A + "tag/", "candidate", 1)
    assert len(forager._candidates) == 0
