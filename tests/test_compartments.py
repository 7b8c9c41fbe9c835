"""Compartments (issue 31, item 5): scheduled foragers divide a colony's sites by host — the
seeds dealt at the start, a split's child given half the hosts, a retiring forager's listings
handed back through the store and adopted by another. The papers' forager is left as
published (Alg. 6, 9). Hand-computed cases."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from newsforagers.colony.handback import HANDBACK, hand_back, take_handed_back
from newsforagers.extensions.population import PopulationExtension
from newsforagers.learning import ScorePolicy
from newsforagers.learning.schedule import HOUR, HubSchedule, deal
from newsforagers.store import MemoryStore
from tests.colony.test_spawning import colony as make_colony
from tests.test_scheduled import T0, make

A, B, C, D, E = (f"http://{name}.example/" for name in "abcde")


def test_seeds_are_dealt_round_by_host_in_the_order_hosts_first_appear():
    seeds = [A, B + "x/", A + "world/", C, B, D, E, A]  # A twice: one listing
    assert deal(seeds, 2) == [[A, A + "world/", C, E], [B + "x/", B, D]]
    assert deal(seeds, 3) == [[A, A + "world/", D], [B + "x/", B, E], [C]]
    # fewer hosts than foragers: nothing to divide by host, every forager gets every seed
    assert deal([A, A + "x/", B], 3) == [[A, A + "x/", B]] * 3
    assert deal([A, B], 1) == [[A, B]]
    with pytest.raises(ValueError, match="cannot deal"):
        deal([A], 0)


def _schedule(urls) -> HubSchedule:
    schedule = HubSchedule(min_interval=60.0)
    for url in urls:
        schedule.add(url, now=T0, rate=2.0)
    return schedule


def test_a_split_over_several_hosts_gives_the_child_half_the_hosts_with_all_their_listings():
    parent = _schedule([A, A + "x/", A + "y/", B, C, C + "z/", D])
    child = parent.split(np.random.default_rng(0))
    assert len(child.hosts()) == 2 and len(parent.hosts()) == 2  # 4 hosts: 2 each
    assert child.hosts().isdisjoint(parent.hosts())
    assert sorted(child.urls() + parent.urls()) == sorted([A, A + "x/", A + "y/", B, C, C + "z/", D])
    for schedule in (parent, child):  # a host's listings stay together
        if "a.example" in schedule.hosts():
            assert {A, A + "x/", A + "y/"} <= set(schedule.urls())
    # one host: a random half of its listings, as before (the single-site colony)
    one = _schedule([A + f"{i}/" for i in range(6)])
    assert len(one.split(np.random.default_rng(0))) == 3 and len(one) == 3


def test_listings_handed_back_are_adopted_as_learnt_and_known_or_broken_ones_skipped():
    leaving = _schedule([A, A + "x/"])
    leaving.begin(A, T0 + HOUR)
    leaving.visited(A, 3)
    leaving.credit(A, 3)
    handed = leaving.hand_back()
    assert [e["url"] for e in handed] == [A, A + "x/"] and not any(e["in_flight"] for e in handed)
    taker = HubSchedule(capacity=1)
    taker.add(A + "x/")
    added = taker.adopt(handed + [{"rate": 1.0}, {"url": "", "rate": 1.0}, "junk"])
    assert added == [A]  # A + "x/" was known; the broken ones skipped
    assert taker.entry(A).rate == pytest.approx(leaving.entry(A).rate)
    assert taker.entry(A).last == T0 + HOUR and taker.entry(A).paid == leaving.entry(A).paid
    assert taker.capacity == 2  # grown to hold what it was handed


def test_a_forager_dealt_a_share_keeps_its_hosts_listings_only():
    mind = make()  # its weblog: http://s/, its seed
    mind.schedule.add(A + "found/")
    gone = mind.keep_share([A, B])
    assert gone == 1 and sorted(mind.schedule.urls()) == sorted([A, A + "found/", B])
    assert mind.seeds == {A, B}


def test_the_first_scheduled_foragers_are_dealt_the_seeds_by_host_the_papers_get_every_seed(tmp_path):
    seeds = [A, B, C, D, A + "x/"]
    c = make_colony(tmp_path / "scheduled", FORAGERS_MIN=3, FORAGERS_MAX=4)
    share = c.start_population(seeds, "wlrl", None)
    assert share == [A, A + "x/", D]
    assert [(name, arguments["seeds"]) for name, arguments in c.started] == [("f2", B), ("f3", C)]
    assert c.checkpoint.members["f2"]["seeds"] == [B]  # a resume gives it its share again
    paper = make_colony(tmp_path / "paper", FORAGERS_MIN=3, FORAGERS_MAX=4, FORAGERS_STRATEGY="paper",
                        FORAGERS_POPULATION="score")
    assert paper.start_population(seeds, "wlrl", None) is None
    assert [arguments["seeds"] for _, arguments in paper.started] == [",".join(seeds)] * 2
    few = make_colony(tmp_path / "few", FORAGERS_MIN=3, FORAGERS_MAX=4)
    assert few.start_population([A, B], "wlrl", None) is None  # 2 hosts, 3 foragers: all share
    assert [arguments["seeds"] for _, arguments in few.started] == [f"{A},{B}"] * 2


def test_hand_backs_add_up_in_the_store_and_one_taker_takes_them_all():
    store = MemoryStore()
    assert take_handed_back(store) == ([], [])
    assert hand_back(store, [{"url": A}], "f2") and hand_back(store, [{"url": B}, 7], "f3")
    assert hand_back(store, [], "f4")  # nothing to hand back: nothing written
    entries, by = take_handed_back(store)
    assert entries == [{"url": A}, {"url": B}] and by == ["f2", "f3"]
    assert store.get_value(HANDBACK) is None and take_handed_back(store) == ([], [])


class _Colony:
    """A colony that lets one forager retire and keeps its events; the store is real."""

    def __init__(self, config, store):
        self.config, self.store = config, store
        self.policy = ScorePolicy(min_foragers=1, max_foragers=4)
        self.population, self.events = 2, []

    def retire(self, name):
        return True

    def event(self, kind, forager, parent, **extra):
        self.events.append((kind, forager, extra))


def _driver(store, name, seeds):
    from newsforagers.clock import SiteClock
    from newsforagers.driver import ScheduledDriver

    mind = make(FORAGERS_HOST_RATE=20)
    mind.name = name
    mind.keep_share(seeds)
    crawler = get_crawler(Spider)
    spider = Spider("s")
    spider.make_fetch_request = lambda fetch, revisit=False: Request(fetch.url)
    driver = ScheduledDriver(crawler, spider, mind, 30.0, SiteClock(600.0), store, seeds=seeds)
    driver._restored = True
    driver._wake_in = lambda delay: None
    return driver, mind, crawler


def test_a_retiring_scheduled_forager_hands_its_hosts_back_and_another_adopts_them():
    store = MemoryStore()
    leaving, leaving_mind, crawler = _driver(store, "f2", [A, A + "x/"])
    staying, staying_mind, staying_crawler = _driver(store, "f1", [B])
    leaving_mind.schedule.begin(A, T0)
    leaving_mind.schedule.visited(A, 2)
    leaving_mind.schedule.credit(A, 2)
    colony = _Colony(leaving_mind.config, store)
    context = SimpleNamespace(colony=colony, driver=leaving, seeds=[A], model_path=None, is_root=True)
    extension = PopulationExtension(crawler, context)
    extension.reward_received(forager="f2", score=-10.0)  # below the retire score: it retires
    assert leaving_mind.retired
    assert ("handback", "f2", {"listings": 2}) in colony.events
    staying.next_step_request()  # the next decision looks at the hand-back list
    assert sorted(staying_mind.schedule.urls()) == sorted([A, A + "x/", B])
    assert staying_mind.schedule.entry(A).rate == pytest.approx(leaving_mind.schedule.entry(A).rate)
    assert staying_mind.counters.listings_adopted == 2
    assert staying_crawler.stats.get_value("newsforagers/scheduled/listings_adopted") == 2
    assert store.get_value(HANDBACK) is None
