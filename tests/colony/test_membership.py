"""This process's place in the population: joins and leaves within the store's bounds, the
host's stop mark, the members an earlier colony left behind, a member refused a place."""

from __future__ import annotations

import asyncio
import time

from scrapy.utils.test import get_crawler

from newsforagers.colony.keys import stop_key
from newsforagers.colony.membership import Membership
from newsforagers.config import ForagersConfig
from newsforagers.store import MemoryStore


def membership(store=None, hosting=True, upper=3, lower=1, **settings) -> Membership:
    config = ForagersConfig.from_settings(settings)
    return Membership(get_crawler(settings_dict={}), config, hosting, upper, lower,
                      store if store is not None else MemoryStore())


def test_joins_and_leaves_keep_the_population_within_its_bounds():
    m = membership(upper=2, lower=1)
    m.join("f1", m.root)
    assert m.root_name == "f1" and m.foragers == {"f1": m.root}
    assert m.store.get_score("f1") == m.config.score_init
    assert m.store.members(time.time())["f1"].fields == {"process": m.process_id, "host": m.host_token}
    assert m.reserve_place("f2", "f1") and not m.reserve_place("f3", "f1")
    assert m.root.stats.get_value("newsforagers/population/split_refused") == 1
    assert m.population == 2
    assert m.leave_above_bound("f2") and not m.leave_above_bound("f1")
    assert m.root.stats.get_value("newsforagers/population/retire_refused") == 1
    m.leave("f1")
    assert m.population == 0 and m.foragers == {}


def test_a_split_s_child_keeps_its_score_unless_it_is_born_again():
    m = membership()
    m.store.set_score("f2", 150.0)
    m.join("f2", None)  # comes back (a resume): its score is kept
    assert m.store.get_score("f2") == 150.0
    m.join("f2", None, parent="f1")  # a child of a split starts afresh
    assert m.store.get_score("f2") == m.config.score_init


def test_the_host_s_stop_mark_stops_its_members_not_itself():
    store = MemoryStore()
    host, member = membership(store), membership(store, hosting=False)
    member.host_token = host.host_token
    assert not member.stop_requested()
    host.root_name = "f1"
    host.mark_stop()
    assert store.get_value(stop_key(host.host_token))["by"] == "f1"
    assert member.stop_requested() and not host.stop_requested()


def test_a_host_forgets_the_members_and_the_stop_mark_an_earlier_colony_left():
    store = MemoryStore()
    now = time.time()
    store.join("f7", now + 30, now, fields={"host": "killed"})
    live = membership(store)
    assert live.take_place() == {} and live.host_number == 1
    store.join("f1", now + 30, now, fields={"host": live.host_token})
    second = membership(store)
    store.put_value(stop_key(second.host_token), {"at": now})
    others = second.take_place()
    assert second.host_number == 2 and [host["token"] for host in others.values()] == [live.host_token]
    second.forget_earlier_members(others)
    assert sorted(store.members(time.time())) == ["f1"]  # the live host's member stays
    assert store.get_value(stop_key(second.host_token)) is None
    second.leave_place()
    third = membership(store)
    third.take_place()
    assert third.host_number == 2  # the number the second host gave back


def test_a_member_that_finds_the_population_full_is_refused_and_counted():
    store = MemoryStore()
    now = time.time()
    for name in ("f1", "f2"):
        store.join(name, now + 30, now)
    m = membership(store, hosting=False, upper=2)

    async def join():
        m.join_as_member("f3", m.root)
        m.close()

    asyncio.run(join())
    assert "f3" not in store.members(time.time())
    assert m.root.stats.get_value("newsforagers/population/join_refused") == 1


def test_the_host_s_other_members_are_those_of_its_share():
    store = MemoryStore()
    m = membership(store)
    m.join("f1", m.root)
    assert not m.others_alive()
    now = time.time()
    store.join("h2.f1", now + 30, now, fields={"host": "another"})
    assert not m.others_alive() and list(m.host_members()) == ["f1"]
    store.join("f2", now + 30, now, fields=m.fields())
    assert m.others_alive()


class _Engine:
    """What the lease loop sees of a crawler's engine: whether it runs, the closes asked."""

    def __init__(self):
        self.running = False
        self.closes: list[str] = []

    async def close_spider_async(self, reason: str) -> None:
        self.closes.append(reason)


def test_a_member_stopped_by_its_host_keeps_its_lease_until_it_closes():
    """After the host's stop mark a member goes on renewing while its foragers close (the host
    waits for their last outputs while the lease says they live); closed, it renews no more.
    A forager whose engine was still starting at the stop is asked to close once it runs."""
    store = MemoryStore()
    host = membership(store, FORAGERS_LEASE=0.3)
    host.join("f1", host.root)
    member = membership(store, hosting=False, FORAGERS_LEASE=0.3)
    member.host_token = host.host_token
    engine = _Engine()
    member.root.engine = engine
    seen: dict[str, object] = {}

    async def run():
        member.join_as_member("f2", member.root)
        host.mark_stop()
        await asyncio.sleep(0.5)
        seen["asked while starting"] = list(engine.closes)
        engine.running = True
        await asyncio.sleep(0.5)  # three leases and more in all
        seen["closing"] = "f2" in store.members(time.time())
        member.close()
        await asyncio.sleep(0.5)
        seen["closed"] = "f2" in store.members(time.time())

    asyncio.run(run())
    assert seen == {"asked while starting": [], "closing": True, "closed": False}
    assert engine.closes == ["shutdown"]  # once


def _host_with_a_member(renew_for: float | None, **settings):
    """A host (lease 0.3 s) and, in "another process", its member f2; returns the host and how
    long ``others_left`` waited while f2 renewed its lease for ``renew_for`` seconds and then
    left (None: it never left)."""
    store = MemoryStore()
    host = membership(store, FORAGERS_LEASE=0.3, FORAGERS_CLOSE_GRACE=0, **settings)
    host.join("f1", host.root)
    store.join("f2", time.time() + 0.3, time.time(), fields=host.fields())

    async def member():
        start = time.monotonic()
        while renew_for is None or time.monotonic() - start < renew_for:
            store.renew("f2", time.time() + 0.3)
            await asyncio.sleep(0.05)
        store.leave("f2", time.time())

    async def run():
        task = asyncio.ensure_future(member())
        start = time.monotonic()
        await host.others_left()
        waited = time.monotonic() - start
        task.cancel()
        return waited

    return asyncio.run(run())


def test_the_host_waits_for_a_member_of_another_process_while_its_lease_lives():
    waited = _host_with_a_member(1.2)
    assert 1.2 <= waited < 1.6  # four leases: it ended, then the wait did


def test_a_member_that_renews_and_never_ends_is_given_up_with_a_warning(monkeypatch, caplog):
    monkeypatch.setattr("newsforagers.colony.membership.OTHERS_END", 0.6)
    with caplog.at_level("WARNING", logger="newsforagers.colony.membership"):
        waited = _host_with_a_member(None)
    assert 0.9 <= waited < 1.3  # its grace (0), OTHERS_END and a lease
    assert "f2 still live" in caplog.text
