"""``Membership``: this process's place in the colony's population, as the store keeps it.

Who this process is (its ``host:pid``, the host whose share of the colony its foragers are, that
host's number among the colony's hosts), the names it gives new foragers, the foragers it runs
(crawlers, never read by another forager) and their places in the population: joins and leaves
within the population's bounds (the store's compare-and-set on its count) and the leases that
keep them (``FORAGERS_LEASE``), renewed every third of a lease. A host also keeps its place among
the colony's hosts (:mod:`newsforagers.colony.hosts`); a member looks, with each renewal, for its
host's stop mark in the store.

What a forager is born with, what the colony records and what it checkpoints are other parts'
(:mod:`~newsforagers.colony.spawning`, :mod:`~newsforagers.colony.record`,
:mod:`~newsforagers.colony.checkpoint`); :class:`~newsforagers.colony.local.Colony` joins them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from typing import TYPE_CHECKING

from newsforagers.colony import hosts as colony_hosts
from newsforagers.colony.keys import stop_key
from newsforagers.config import ForagersConfig
from newsforagers.scrapy_access import engine_running
from newsforagers.store import ColonyStore

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from newsforagers.colony.throttle import HostBudget

logger = logging.getLogger(__name__)

#: How long a forager to close is waited for while its engine starts: steps of _ENGINE_WAIT s.
_ENGINE_WAIT = 0.1
_ENGINE_WAIT_STEPS = 300
#: Seconds a member of another process is given, beyond its downloads' grace and a lease, to
#: end after the host's stop (its pipelines' last items, its close).
OTHERS_END = 15.0


class Membership:
    """This process's foragers in the store's population, their names and their leases.

    ``upper_bound`` and ``lower_bound``: the population's bounds (the colony's policy says which
    settings). Building it does no I/O; the store is set when the colony opens."""

    def __init__(self, root: Crawler, config: ForagersConfig, hosting: bool, upper_bound: int,
                 lower_bound: int, store: ColonyStore | None = None):
        self.root = root  # the crawler that made this view of the colony (its stats)
        self.config = config
        self.hosting = hosting
        self.upper_bound = upper_bound
        self.lower_bound = lower_bound
        self.store = store
        # who this process is, as the i-Bot paper's bots register with their broker: each
        # member of the population carries it in the store (newsforagers status shows it)
        self.process_id = f"{socket.gethostname()}:{os.getpid()}"
        # which host's share of the colony this process's foragers are (colony/hosts.py): a
        # host's own token (kept by its checkpoint), a member's its host's (its hand-over)
        self.host_token = uuid.uuid4().hex[:12]
        self.host_number: int | None = None  # the host's place (a host only)
        self.root_name: str | None = None
        # this process's foragers (the root included while it walks): the spawner's crawlers,
        # for their stop and their checkpoint at the colony's end, never read by another forager
        self.foragers: dict[str, Crawler] = {}
        self.next_id = 1
        self._prefix: str | None = None  # a member process's own forager's name (new_id)
        # the colony's per-host budget, kept in the store once another host appears
        self.budget: HostBudget | None = None
        self.closed = False
        self._lease_task = None
        self._lease_renewed = 0.0  # time.monotonic() of the last renewal of the leases

    # -- names ---------------------------------------------------------------------------------

    def new_id(self) -> str:
        """A name for a new forager, unique in the whole colony: the first host's are f1, f2,
        ...; host n's (another process on the same store) hn.f1, hn.f2, ...; a member process's
        are its own forager's name and a number (f2.1, f2.2, ...), since every process counts
        apart (a member counting on from its own f2 once named its child f3 while the host's
        f3 had just died, and the dead forager seemed to live on)."""
        if self._prefix is not None:
            name = f"{self._prefix}.{self.next_id}"
        else:
            name = f"{self.name_prefix}f{self.next_id}"
        self.next_id += 1
        return name

    @property
    def name_prefix(self) -> str:
        """What this host puts before its foragers' names (colony/hosts.py)."""
        return colony_hosts.name_prefix(self.host_number or 1) if self.hosting else ""

    def host_name(self, name: str) -> str:
        """The root's name given on the command line, as this host names it (``f1``, or
        ``h2.f1`` for the second host on a store)."""
        prefix = self.name_prefix
        return name if name.startswith(prefix) else f"{prefix}{name}"

    def claim_id(self, name: str) -> None:
        """Keep generated ids clear of a name given on the command line; a member process's
        first name (its own forager's) prefixes the names it gives."""
        if not self.hosting:
            if self._prefix is None:
                self._prefix, self.next_id = name, 1
            return
        number = name[len(self.name_prefix):] if name.startswith(self.name_prefix) else ""
        if number.startswith("f") and number[1:].isdigit():
            self.next_id = max(self.next_id, int(number[1:]) + 1)

    # -- the colony's hosts ------------------------------------------------------------------------

    def take_place(self) -> dict:
        """(A host.) Take a number among the colony's hosts; the other live hosts, by number."""
        now = time.time()
        self.host_number = colony_hosts.take_place(self.store, self.host_token, self.process_id,
                                                   now + self.config.lease, now)
        return colony_hosts.other_hosts(self.store, self.host_token, now)

    def forget_earlier_members(self, others: dict) -> None:
        """(A host, opening.) Members of no live host are an earlier colony's, killed before they
        left (or this host's own before its stop, respawned from the checkpoint): not this
        one's. This host's stop mark of an earlier run goes too."""
        now = time.time()
        alive = {host.get("token") for host in others.values()}
        for name, member in self.store.members(now).items():
            if member.fields.get("host") not in alive:
                self.store.leave(name, now)
        self.store.delete_value(stop_key(self.host_token))

    def leave_place(self) -> None:
        colony_hosts.leave_place(self.store, self.host_token)

    def _renew_place(self) -> None:
        now = time.time()
        if colony_hosts.renew_place(self.store, self.host_token, self.host_number, self.process_id,
                                    now + self.config.lease, now):
            return
        # its lease ran out (the reactor or the store stalled) and another host took its number
        self.host_number = colony_hosts.take_place(self.store, self.host_token, self.process_id,
                                                   now + self.config.lease, now)
        logger.warning("colony: this process's place among the colony's hosts ran out and was "
                       "taken; it is host %d now", self.host_number)

    def share_budget_with_other_hosts(self) -> None:
        """Another process hosts foragers of this colony now: from here on, every host's
        requests draw from one budget, kept in the store."""
        if self.budget is None or self.budget.shared is not None:
            return
        others = colony_hosts.other_hosts(self.store, self.host_token, time.time())
        if others:
            self.budget.shared = self.store
            logger.info("colony: %d other process(es) host foragers of this colony now (%s): "
                        "the budget per site is kept in the store from here on", len(others),
                        ", ".join(str(host.get("process")) for host in others.values()))

    # -- the population ------------------------------------------------------------------------

    @property
    def population(self) -> int:
        """The live members of the population, as the store counts them (leases)."""
        return len(self.store.members(time.time()))

    def lease(self) -> float:
        return time.time() + self.config.lease

    def fields(self) -> dict:
        """What a member carries in the store: its process and its host."""
        return {"process": self.process_id, "host": self.host_token}

    def join(self, name: str, crawler: Crawler | None, parent: str | None = None) -> None:
        """``name`` joins the population (whatever its count); ``crawler``: the root's (the
        others' come from the spawner when it starts them). A new forager, or a child of a
        split, starts with the initial score."""
        if crawler is not None:
            self.foragers[name] = crawler
            if crawler is self.root:
                self.root_name = name
        self.store.join(name, self.lease(), time.time(), fields=self.fields())
        if self.store.get_score(name) is None or parent is not None:
            self.store.set_score(name, self.config.score_init)

    def join_as_member(self, name: str, crawler: Crawler) -> None:
        """(A forager in a process of its own.) Its place in the population was taken by the
        process that started it (the store's count); this process keeps its lease. A forager
        that started too late — its place ran out with its lease while it waited (a scrapyd job
        queued behind others) and another forager took it — finds the population full and ends
        (``newsforagers/population/join_refused``)."""
        self.foragers[name] = crawler
        if self.store.get_score(name) is None:
            self.store.set_score(name, self.config.score_init)
        self.start_leases()
        if not self._join_within_bound(name):
            return
        logger.info("colony: forager %s joined as a process of its own (%s)", name, self.process_id)

    def _join_within_bound(self, name: str) -> bool:
        """(Re)join ``name`` under the population's upper bound (the host's root always: the
        colony lives as long as it does); a forager refused is closed."""
        bound = 0 if self.hosting and name == self.root_name else self.upper_bound
        if self.store.join(name, self.lease(), time.time(), bound, fields=self.fields()):
            return True
        self.root.stats.inc_value("newsforagers/population/join_refused")
        logger.warning("colony: no place left in the population for forager %s (%d foragers at "
                       "most) after its lease ran out; it ends", name, self.upper_bound)
        self._close_forager(name, "population_full")
        return False

    def _close_forager(self, name: str, reason: str) -> None:
        """Close a forager of this process as soon as its engine runs."""
        crawler = self.foragers.get(name)
        if crawler is None:
            return

        async def close() -> None:
            for _ in range(_ENGINE_WAIT_STEPS):
                if engine_running(crawler) or not crawler.crawling:
                    break
                await asyncio.sleep(_ENGINE_WAIT)
            if engine_running(crawler):
                await crawler.engine.close_spider_async(reason=reason)

        asyncio.ensure_future(close())

    def reserve_place(self, name: str, parent: str) -> bool:
        """Take a place in the population for ``parent``'s child ``name`` before it is made:
        the store's compare-and-set on the count, so that no two foragers, in this process or
        another, take the last place. False: none left (counted)."""
        if self.store.join(name, self.lease(), time.time(), self.upper_bound):
            return True
        self.root.stats.inc_value("newsforagers/population/split_refused")
        logger.info("colony: no place left for a child of %s (%d foragers at most)", parent,
                    self.upper_bound)
        return False

    def leave(self, name: str) -> None:
        """``name`` leaves the population (stopped, or retired) and this process."""
        self.foragers.pop(name, None)
        self.store.leave(name, time.time())

    def leave_above_bound(self, name: str) -> bool:
        """``name`` leaves the population if the store counts more than its lower bound; False
        (counted), and nothing changes, when another forager left first."""
        if self.store.leave(name, time.time(), self.lower_bound):
            return True
        self.root.stats.inc_value("newsforagers/population/retire_refused")
        return False

    def leave_all(self) -> None:
        """Every forager of this process leaves the population (the colony's end)."""
        for name in list(self.foragers):
            self.store.leave(name, time.time())

    def host_members(self) -> dict:
        """The live members of the population that are this host's share of the colony."""
        return {name: member for name, member in self.store.members(time.time()).items()
                if member.fields.get("host") == self.host_token}

    def others_alive(self) -> bool:
        """(A host.) A live member of its share of the colony besides its root."""
        return any(name != self.root_name for name in self.host_members())

    async def others_left(self) -> None:
        """Wait until no other member of the host's share is left in the store (foragers of
        other processes that this one did not start: a member's own children). One that is
        closing keeps renewing its lease until it has ended, its last documents paid and
        output, so the wait lasts while it does: a forager that died is counted out one lease
        after its last renewal. At most ``FORAGERS_CLOSE_GRACE`` (its downloads' grace), 15 s
        for its pipelines and its end, and a lease: a member that renews and never ends is
        given up, with a warning (what it outputs later is in the store, not in the feed)."""
        started = time.monotonic()
        deadline = started + self.config.close_grace + OTHERS_END + self.config.lease
        while True:
            others = sorted(name for name in self.host_members()
                            if name != self.root_name and name not in self.foragers)
            if not others:
                return
            if time.monotonic() >= deadline:
                logger.warning("colony: %s still live %.0f s after the colony's stop; its later "
                               "documents reach the store, not this feed", ", ".join(others),
                               time.monotonic() - started)
                return
            await asyncio.sleep(0.1)

    # -- the host's stop -------------------------------------------------------------------------

    def mark_stop(self) -> None:
        """(A host.) Every forager of its share of the colony, in whatever process, stops."""
        self.store.put_value(stop_key(self.host_token), {"at": time.time(), "by": self.root_name})

    def stop_requested(self) -> bool:
        """(A member.) The host ended the colony (the store's stop mark)."""
        return (not self.hosting and self.store is not None
                and self.store.get_value(stop_key(self.host_token)) is not None)

    # -- leases --------------------------------------------------------------------------------

    def start_leases(self) -> None:
        if self._lease_task is None:
            self._lease_task = asyncio.ensure_future(self._lease_loop())

    async def _lease_loop(self) -> None:
        """Renew the leases of this process's foragers (a host's a third of FORAGERS_LEASE
        apart, and its place among the hosts with them); a member looks for its host's stop,
        a host for other hosts, every second at most. A member stopped by its host goes on
        renewing while its foragers close: the host waits for its last outputs as long as its
        lease says it lives (:meth:`others_left`)."""
        stopping = False
        asked: set[int] = set()  # the crawlers asked to close (id)
        while not self.closed:
            await asyncio.sleep(min(1.0, self.config.lease / 3.0))
            if self.closed:
                return
            if not stopping and self.stop_requested():
                stopping = True
                logger.info("colony: the host ended the colony; stopping")
            if stopping:
                # (each once, as its engine runs: one still starting at the stop is asked later)
                for crawler in list(self.foragers.values()):
                    if id(crawler) not in asked and engine_running(crawler):
                        asked.add(id(crawler))
                        asyncio.ensure_future(crawler.engine.close_spider_async(reason="shutdown"))
            if self.hosting:
                self.share_budget_with_other_hosts()
                if time.monotonic() - self._lease_renewed < self.config.lease / 3.0:
                    continue
                self._lease_renewed = time.monotonic()
                self._renew_place()
            for name in list(self.foragers):
                if not self.store.renew(name, self.lease()) and not stopping:
                    # counted out (the reactor or the store stalled past the lease): it is
                    # alive, so back in if the population has room for it
                    logger.warning("colony: forager %s's lease ran out; it joins again", name)
                    self._join_within_bound(name)

    def close(self) -> None:
        """No more renewals."""
        self.closed = True
        if self._lease_task is not None:
            self._lease_task.cancel()
