"""The colony of one process: its population is the store's (members under leases, bounded
joins), and the root's feed follows its host's share of the store's output."""

from __future__ import annotations

import time

from scrapy import signals
from scrapy.utils.test import get_crawler

from newsforagers.colony.local import Colony, site_reading, site_time_now
from newsforagers.config import ForagersConfig
from newsforagers.store import MemoryStore


def colony(tmp_path, **settings) -> Colony:
    config = ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run"), **settings})
    made = Colony(get_crawler(settings_dict={}), config, store=MemoryStore())
    assert not (tmp_path / "run").exists()  # building it does no I/O
    made.open()
    return made


def output(store, url: str, forager: str, host: str, **fields) -> dict:
    item = {"url": url, "title": "t", "forager": forager, **fields}
    store.add_output(item, host, forager)
    return item


def test_the_root_s_feed_gets_its_host_s_other_outputs_from_the_store_once(tmp_path):
    c = colony(tmp_path)
    output(c.store, "http://s/earlier-job", "f9", c.host_token)  # before this job's feed: not its
    c.feed.source.position = c.store.output_count()
    c.register("f1", c.root)  # the root: its own outputs reach the feed by themselves
    c.root_name = "f1"
    got = []
    c.root.signals.connect(lambda item, response, spider: got.append(item),
                           signal=signals.item_scraped, weak=False)
    c.root.spider = object()
    a = output(c.store, "http://s/a", "f2", c.host_token, source_project="newsdesk", n=[1, {"x": 2}])
    output(c.store, "http://s/b", "f1", c.host_token)
    output(c.store, "http://s/c", "h2.f1", "another-host")  # another process's share
    d = output(c.store, "http://s/d", "f3", c.host_token)
    assert c.output_new_documents() == 2
    assert got == [a, d]  # as the pipelines left them, field for field
    assert c.output_new_documents() == 0  # once
    assert c.root.stats.get_value("newsforagers/colony/feed_items") == 2


def test_the_feed_s_items_are_marked_so_that_the_output_extension_skips_them(tmp_path):
    from newsforagers.colony.feed import FEED_MARK

    c = colony(tmp_path)
    c.root_name = "f1"
    marks = []
    c.root.signals.connect(lambda item, **kwargs: marks.append(kwargs.get(FEED_MARK)),
                           signal=signals.item_scraped, weak=False)
    c.root.spider = object()
    output(c.store, "http://s/a", "f2", c.host_token)
    assert c.output_new_documents() == 1 and marks == [True]


def test_the_population_is_the_store_s_count_within_its_bounds(tmp_path):
    c = colony(tmp_path, FORAGERS_MIN=2, FORAGERS_MAX=3)
    c.register("f1", c.root)
    c.register("f2", None)
    assert c.population == 2 and sorted(c.store.members(time.time())) == ["f1", "f2"]
    assert c.reserve_place("f3", "f1")
    assert not c.reserve_place("f4", "f1")  # FORAGERS_MAX: another process may have taken it
    assert c.root.stats.get_value("newsforagers/population/split_refused") == 1
    assert c.retire("f3") and c.population == 2
    assert not c.retire("f2")  # FORAGERS_MIN: it walks on
    assert c.root.stats.get_value("newsforagers/population/retire_refused") == 1
    # a forager of another process whose lease ran out is no member any more
    c.store.join("other", lease=time.time() - 1, now=time.time() - 10)
    assert c.population == 2


def test_events_are_dated_by_the_site_s_clock_the_foragers_shared(tmp_path):
    from datetime import UTC, datetime

    site = datetime(2010, 10, 25, 9, 0, tzinfo=UTC)
    assert site_time_now(None, 0.0) is None and site_time_now({"bad": 1}, 0.0) is None
    assert site_time_now(site_reading(site, 600.0, 1000.0), 1001.0) == "2010-10-25T09:10:00+00:00"
    c = colony(tmp_path)
    c.store.put_value("site_clock", site_reading(site, 1.0, time.time()))
    c.register("f1", c.root)
    events = (tmp_path / "run" / "events.jsonl").read_text()
    assert '"sim_time": "2010-10-25T09:00:0' in events


def test_forager_names_are_unique_across_the_processes_of_a_colony(tmp_path):
    """The host names its foragers f1, f2, ...; a member process (its own forager f2) names
    the foragers it splits off f2.1, f2.2: never a name the host gave, dead or alive."""
    config = ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run")})
    host = Colony(get_crawler(settings_dict={}), config, store=MemoryStore())
    host.claim_id("f1")
    assert [host.new_id() for _ in range(3)] == ["f2", "f3", "f4"]
    member = Colony(get_crawler(settings_dict={}), config, store=MemoryStore(), hosting=False)
    member.claim_id("f2")
    member.claim_id("f7")  # (a name claimed later changes nothing)
    assert [member.new_id() for _ in range(2)] == ["f2.1", "f2.2"]
    grandchild = Colony(get_crawler(settings_dict={}), config, store=MemoryStore(), hosting=False)
    grandchild.claim_id("f2.1")
    assert grandchild.new_id() == "f2.1.1"


def test_the_energy_policy_takes_its_split_and_bounds_and_paper_bounds_double_the_cap(tmp_path):
    energy = {"FORAGERS_POPULATION": "energy", "FORAGERS_STRATEGY": "paper",
              "FORAGERS_ENERGY_LB": 1, "FORAGERS_ENERGY_UB": 2}
    strict = colony(tmp_path / "strict", **energy)
    assert (strict.policy.split, strict.policy.bounds, strict.membership.upper_bound) == ("printed", "strict", 2)
    paper = colony(tmp_path / "paper", **energy, FORAGERS_ENERGY_SPLIT="shared",
                   FORAGERS_ENERGY_BOUNDS="paper")
    assert (paper.policy.split, paper.policy.bounds, paper.membership.upper_bound) == ("shared", "paper", 4)
    # Alg. 2 lets the population pass UB = 2; the colony's hard cap, 2·UB, still holds
    paper.register("f1", paper.root)
    assert [paper.reserve_place(f"f{i}", "f1") for i in (2, 3, 4, 5)] == [True, True, True, False]


def test_a_second_process_on_the_store_hosts_its_own_share_of_the_colony(tmp_path):
    store = MemoryStore()
    config = ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run")})
    first = Colony(get_crawler(settings_dict={}), config, store=store)
    first.open()
    assert first.membership.host_number == 1 and first.host_name("f1") == "f1"
    assert first.budget.shared is None  # alone: its budget is its own
    first.register("f1", first.root)
    first.root_name = "f1"
    first.claim_id("f1")
    second = Colony(get_crawler(settings_dict={}), config, store=store)
    second.open()
    # a number of its own, names of its own, and one budget in the store with the other host
    assert second.membership.host_number == 2 and second.host_token != first.host_token
    root = second.host_name("f1")
    second.claim_id(root)
    assert root == "h2.f1" and second.new_id() == "h2.f2"
    assert second.budget.shared is store
    # opening it left the first host's members alone (they live)
    assert "f1" in store.members(time.time())
    second.register(root, second.root)
    second.root_name = root
    second.register("h2.f2", None)
    # each host waits for its own foragers only
    assert not first.children_alive and second.children_alive
    # the first host hears of the second and shares the budget from then on
    first.membership.share_budget_with_other_hosts()
    assert first.budget.shared is store
    # a host that closes gives its number back: the next process takes it
    second.close()
    third = Colony(get_crawler(settings_dict={}), config, store=store)
    third.open()
    assert third.membership.host_number == 2


def test_a_host_of_a_dead_process_is_no_host(tmp_path):
    from newsforagers.colony import hosts

    store = MemoryStore()
    now = time.time()
    # killed with kill -9: its lease still runs, but its process is gone
    assert hosts.take_place(store, "dead", "somewhere:1", now + 30, now, alive=lambda p: True) == 1
    assert hosts.take_place(store, "alive", "somewhere:2", now + 30, now,
                            alive=lambda p: p != "somewhere:1") == 1
    assert hosts.other_hosts(store, "alive", now, alive=lambda p: True) == {}
    # one whose lease ran out is gone too; the holder keeps its number when it takes one again
    assert hosts.take_place(store, "late", "x:3", now + 30, now) == 2
    assert hosts.take_place(store, "alive", "somewhere:2", now + 60, now + 31) == 1
    # at now + 61 both leases ran out: the first free number is 1 again
    assert hosts.take_place(store, "late", "x:3", now + 90, now + 61) == 1
    assert not hosts.renew_place(store, "intruder", 1, "y:4", now + 100, now + 61)
    assert hosts.process_alive("no-such-host-name:1")  # another machine's: cannot be looked at
    import os
    import socket

    assert hosts.process_alive(f"{socket.gethostname()}:{os.getpid()}")
    assert not hosts.process_alive(f"{socket.gethostname()}:{2**22 + 12345}")


def test_a_second_host_s_first_foragers_stay_within_the_population_s_bound(tmp_path):
    store = MemoryStore()
    config = ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run"), "FORAGERS_MIN": 3,
                                           "FORAGERS_MAX": 4})
    started = []
    first = Colony(get_crawler(settings_dict={}), config, store=store)
    first.open()
    first.spawning.spawner.start = lambda name, arguments: started.append(name)
    first.claim_id("f1")
    first.register("f1", first.root)
    first.root_name = "f1"
    first.start_population(["http://s/"], "wlrl", None)
    assert started == ["f2", "f3"] and first.population == 3
    second = Colony(get_crawler(settings_dict={}), config, store=store)
    second.open()
    second.spawning.spawner.start = lambda name, arguments: started.append(name)
    second.claim_id("h2.f1")
    second.register("h2.f1", second.root)  # a host's root joins whatever the bound
    second.root_name = "h2.f1"
    second.start_population(["http://s/"], "wlrl", None)
    assert started == ["f2", "f3"] and second.population == 4  # no place left for h2.f2
    assert second.root.stats.get_value("newsforagers/population/split_refused") == 1
