"""The colony in one process: foragers as Scrapy crawlers sharing one store and one site budget.

``scrapy crawl forager`` creates the first forager (the *root*); its spider builds a
:class:`Colony`, which starts the other ``FORAGERS_MIN - 1`` foragers from the seeds (Alg. 9)
and later the children of splits, each as its own crawler in the same reactor through an
``AsyncCrawlerRunner`` (:class:`~newsforagers.colony.spawner.InProcessSpawner`).

Foragers share nothing but the store (:mod:`newsforagers.store`): the population (members under
leases, its count within its bounds), scores, first-finder claims, per-URL records and listing
entries, a split's hand-over and the site's clock go through it, so that a forager reads no
other forager's objects. What this process adds for its own foragers is politeness only: the
per-host request budget, robots.txt parsers and recent downloads (one process, one budget;
issue 17 moves the budget into the store) and the colony's record (events, snapshots, the
population checkpoint) — never module globals.

The root crawler stays open until the whole colony has ended (it hosts the user's feed
export, filled with the other foragers' documents from the store's record of paid documents,
so one ``-O`` file receives them all); when it closes — the colony ended, or SIGINT/SIGTERM,
or ``CLOSESPIDER_*`` — it stops every other forager once and waits for them.

With ``JOBDIR`` the colony resumes after any stop, ``kill -9`` included: the population (who
lives, their ids, modes, seeds, what each was born with; the next id; the energy policy) is
checkpointed atomically to ``JOBDIR/population.json`` whenever it changes and every
``FORAGERS_CHECKPOINT_INTERVAL`` seconds, together with every forager's own checkpoint (see
:mod:`newsforagers.driver`). On a resume the root respawns every forager alive at the
checkpoint under its own id, cuts a half-written last line off the local JSON-lines feed before
it is reopened, and outputs again the documents of this job that the store paid for and the
feed lacks (the store is the source of truth).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from scrapy import signals

from newsforagers import defaults
from newsforagers.colony import checkpoint as checkpoints
from newsforagers.colony import hosts as colony_hosts
from newsforagers.colony.feed import FEED_MARK, ColonyFeed
from newsforagers.colony.fetches import SharedFetches
from newsforagers.colony.scrapyd import ScrapydSpawner
from newsforagers.colony.spawner import InProcessSpawner, ProcessSpawner, Spawner
from newsforagers.colony.throttle import HostBudget, Politeness
from newsforagers.config import ForagersConfig
from newsforagers.learning import EnergyPolicy, ScorePolicy
from newsforagers.scrapy_access import engine_running, wake_engine
from newsforagers.stopping import interrupt_stores_on_stop
from newsforagers.store import ColonyStore, open_store

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: Store key of a forager's hand-over (what it is born with: half a weblog, weights).
HANDOVER = "handover/{name}"
#: Store key of a forager's last snapshot (its counters, for the colony's record).
SNAPSHOT = "snapshot/{name}"
#: Store key of the site's clock as the last forager to read it saw it.
SITE_CLOCK = "site_clock"
#: Store key set when a host ends its share of the colony: its foragers in other processes stop.
STOP = "colony/stop/{host}"
#: How long a forager to close is waited for while its engine starts: steps of _ENGINE_WAIT s.
_ENGINE_WAIT = 0.1
_ENGINE_WAIT_STEPS = 300


def handover_key(name: str) -> str:
    return HANDOVER.format(name=name)


def stop_key(host: str) -> str:
    return STOP.format(host=host)


def snapshot_key(name: str) -> str:
    return SNAPSHOT.format(name=name)


def site_reading(site: datetime, speed: float, wall: float) -> dict:
    """What the store keeps of a forager's reading of the site's clock: the site's time, the
    wall time (POSIX seconds) of the reading, and how fast the site's clock runs."""
    return {"site": site.timestamp(), "wall": wall, "speed": speed}


def site_time_now(reading: dict | None, wall: float) -> str | None:
    """The site's time at ``wall`` from a :func:`site_reading` (ISO 8601), or None."""
    if not reading:
        return None
    try:
        seconds = float(reading["site"]) + float(reading["speed"]) * max(0.0, wall - float(reading["wall"]))
        return datetime.fromtimestamp(seconds, UTC).isoformat()
    except (KeyError, TypeError, ValueError, OverflowError, OSError):
        return None


class Colony:
    """The population of one colony and what this process shares with its foragers.

    Building it does no I/O; :meth:`open` opens the store, the record and the checkpoint."""

    def __init__(self, root: Crawler, config: ForagersConfig, store: ColonyStore | None = None,
                 rng: np.random.Generator | None = None, spawner: Spawner | None = None,
                 hosting: bool = True):
        self.root = root  # the crawler that made this view of the colony
        # the crawler `scrapy crawl` started hosts the colony (its feed, its record, its end); a
        # forager in a process of its own (FORAGERS_SPAWNER=process) is a member: its view of
        # the colony is the store, its own politeness and the foragers it starts itself
        self.hosting = hosting
        # who this process is, as the i-Bot paper's bots register with their broker: each
        # member of the population carries it in the store (newsforagers status shows it)
        self.process_id = f"{socket.gethostname()}:{os.getpid()}"
        # which host's share of the colony this process's foragers are (colony/hosts.py): a
        # host's own token (kept by its checkpoint), a member's its host's (its hand-over)
        self.host_token = uuid.uuid4().hex[:12]
        self.host_number: int | None = None  # the host's place (a host only)
        self.config = config
        self.store = store
        self.rng = rng if rng is not None else np.random.default_rng(None if config.seed < 0 else config.seed)
        self.spawner = spawner if spawner is not None else spawner_for(
            config, root, self._started, self._ended, config.close_grace + 15.0)
        if config.population == "energy":
            self.policy: ScorePolicy | EnergyPolicy = EnergyPolicy(
                config.energy_c, config.energy_g, config.energy_lb, config.energy_ub, config.energy_init,
                config.energy_history, config.energy_pages_max, config.energy_model, config.energy_rho,
                split=config.energy_split, bounds=config.energy_bounds)
        else:
            self.policy = ScorePolicy(config.split_score, config.retire_score, config.min,
                                      config.max, config.score_init)
        self.politeness: Politeness | None = None
        self.budget: HostBudget | None = None
        self.fetches = SharedFetches(config.fetch_ttl, config.fetch_cache_size)
        self.robots: dict[str, Any] = {}  # netloc -> parser (or a Deferred while fetching)
        # kinds of trouble (hostile pages, failures) already logged as a warning: once per colony
        self.warned: set[str] = set()
        self.run_dir: Path | None = None
        self._events = None
        self._snapshots = None
        # this process's foragers (the root included while it walks): the spawner's crawlers,
        # for their stop and their checkpoint at the colony's end, never read by another forager
        self.foragers: dict[str, Crawler] = {}
        self._next_id = 1
        self._prefix: str | None = None  # a member process's own forager's name (new_id)
        self._stopping = False
        self._closed = False
        self._opened = False
        self.closes_at: float | None = None  # time.monotonic() of the root's CLOSESPIDER_TIMEOUT
        self._root_running = False  # the root's engine has started (its `running` then means it)
        self._snapshot_task = None
        self._checkpoint_task = None
        self._lease_task = None
        # the population as it must come back after a stop: every forager alive (retired ones
        # leave it), with what it was started with
        self.members: dict[str, dict] = {}
        jobdir = root.settings.get("JOBDIR")
        self.jobdir = Path(jobdir) if jobdir else None
        self._population_seq = 0
        self.resumed: dict | None = None  # the population checkpoint this run resumes from
        self.output_start = 0  # the store's outputs before this job's (a resume keeps it)
        self.feed: ColonyFeed | None = None  # the host's share of the output, for the root's feed
        self.root_name: str | None = None
        self.speed: float | None = None  # the site clock's speed (the root's -a speed)
        self._reemit: list[dict] = []
        self._lease_renewed = 0.0  # time.monotonic() of the last renewal of the leases
        # what the colony did, for its summary at the end
        self.judged = 0  # sends the reinforcing agent judged
        self.paid = 0  # of them, first finds of novel documents (rewarded)
        self.born = 0  # foragers started (the root, Alg. 9's first ones, children of splits)
        self.retired = 0

    def open(self) -> None:
        """Open the store, the colony's record and its checkpoint (once); a host takes its
        place among the colony's hosts (:mod:`newsforagers.colony.hosts`)."""
        if self._opened:
            return
        self._opened = True
        config, root = self.config, self.root
        if self.store is None:
            self.store = open_store(config.store, config.url_records_max, prefix=config.redis_prefix,
                                    retry=config.store_retry, password_file=config.store_password_file)
        # a stop asked while a store's server does not answer must not wait out the retries
        interrupt_stores_on_stop(self.store)
        others: dict = {}
        if self.hosting:
            if self.jobdir is not None:
                self.resumed = checkpoints.read_checkpoint(self.jobdir / checkpoints.POPULATION_FILE)
            if self.resumed is not None and self.resumed.get("host"):
                self.host_token = str(self.resumed["host"])  # its foragers' outputs are its feed's
            now = time.time()
            self.host_number = colony_hosts.take_place(self.store, self.host_token, self.process_id,
                                                       now + config.lease, now)
            others = colony_hosts.other_hosts(self.store, self.host_token, now)
        # Scrapy's per-crawler politeness would multiply with the foragers: it binds the colony
        self.politeness = Politeness.from_settings(root.settings, config.host_rate, config.host_concurrency)
        # foragers in other processes (and machines) draw from one budget kept in the store
        shared = self.store if config.spawner != "inprocess" or others else None
        self.budget = HostBudget.from_politeness(self.politeness, shared=shared)
        logger.info("colony: one politeness for all foragers%s: %s",
                    " of every process (kept in the store)" if shared is not None else "",
                    self.politeness.describe())
        root.signals.connect(self._root_started, signal=signals.engine_started)
        if not self.hosting:
            # a member: the record, the checkpoint of the population and the feed are the host's
            return
        logger.info("colony: store %s (newsforagers status|export|search|web --store %s)",
                    self.store.safe_url, self.store.safe_url)
        if others:
            logger.info("colony: %d other process(es) host foragers of this colony on this store "
                        "(%s); this one is host %d: its foragers are named %s*, and its feed holds "
                        "what they output (`newsforagers export --store %s` writes the whole colony's)",
                        len(others), ", ".join(f"host {n}: {host.get('process')}" for n, host in sorted(others.items())),
                        self.host_number, colony_hosts.name_prefix(self.host_number) or "f", self.store.safe_url)
        # members of no live host are an earlier colony's, killed before they left (or this
        # host's own before its stop, respawned from the checkpoint): not this one's
        now = time.time()
        alive = {host.get("token") for host in others.values()}
        for name, member in self.store.members(now).items():
            if member.fields.get("host") not in alive:
                self.store.leave(name, now)
        self.store.delete_value(stop_key(self.host_token))
        self.run_dir = Path(config.run_dir) if config.run_dir else _default_run_dir(root)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        events_path = Path(config.events) if config.events else self.run_dir / "events.jsonl"
        # a crash may have cut the record's last line in half: appending starts on a new one
        checkpoints.repair_feed(events_path)
        checkpoints.repair_feed(self.run_dir / "snapshots.jsonl")
        self._events = open(events_path, "a", encoding="utf-8")
        self._snapshots = open(self.run_dir / "snapshots.jsonl", "a", encoding="utf-8")
        if self.resumed is not None:
            self._population_seq = int(self.resumed["seq"])
            self._next_id = max(self._next_id, int(self.resumed.get("next_id", 1)))
            self.output_start = int(self.resumed.get("output_start", 0))
            if isinstance(self.policy, EnergyPolicy) and self.resumed.get("energy"):
                try:
                    self.policy.restore(self.resumed["energy"])
                except (TypeError, ValueError) as exc:
                    logger.error("colony: saved energy policy unusable (%s); starting afresh", exc)
        else:
            # the store may hold earlier jobs' outputs: this job's feed holds those after them
            self.output_start = self.store.output_count()
        # the feed follows the store from here (on a resume, what was output before the stop
        # and is missing from the feed is output once, by prepare_feeds)
        self.feed = ColonyFeed(self.store, self.host_token, self.root_name, self.store.output_count())

    # -- identity and population -------------------------------------------------------------

    def new_id(self) -> str:
        """A name for a new forager, unique in the whole colony: the first host's are f1, f2,
        ...; host n's (another process on the same store) hn.f1, hn.f2, ...; a member process's
        are its own forager's name and a number (f2.1, f2.2, ...), since every process counts
        apart (a member counting on from its own f2 once named its child f3 while the host's
        f3 had just died, and the dead forager seemed to live on)."""
        if self._prefix is not None:
            name = f"{self._prefix}.{self._next_id}"
        else:
            name = f"{self.name_prefix}f{self._next_id}"
        self._next_id += 1
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
                self._prefix, self._next_id = name, 1
            return
        number = name[len(self.name_prefix):] if name.startswith(self.name_prefix) else ""
        if number.startswith("f") and number[1:].isdigit():
            self._next_id = max(self._next_id, int(number[1:]) + 1)

    @property
    def population(self) -> int:
        """The live members of the population, as the store counts them (leases)."""
        return len(self.store.members(time.time()))

    def _lease(self) -> float:
        return time.time() + self.config.lease

    def _member_fields(self) -> dict:
        return {"process": self.process_id, "host": self.host_token}

    def register(self, name: str, crawler: Crawler | None, parent: str | None = None,
                 energy: float | None = None, member: dict | None = None, resumed: bool = False) -> None:
        """A forager joins the colony; ``member`` is what it was started with (to respawn it
        after a stop), ``resumed`` says it comes back from a checkpoint. ``crawler``: the root's
        (the others' come from the spawner when it starts them)."""
        if crawler is not None:
            self.foragers[name] = crawler
            if crawler is self.root:
                self.root_name = name
        self.born += 1
        self.members[name] = member if member is not None else {"root": crawler is self.root}
        self.store.join(name, self._lease(), time.time(), fields=self._member_fields())
        if self.store.get_score(name) is None or parent is not None:
            self.store.set_score(name, self.config.score_init)
        if isinstance(self.policy, EnergyPolicy):
            if energy is None and resumed:
                energy = ((self.resumed or {}).get("energy") or {}).get("energies", {}).get(name)
            self.policy.register(name, energy)
        if parent is None:
            self.event("start", name, None, **({"resumed": True} if resumed else {}))
        self.checkpoint_population()

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
        if self.store.join(name, self._lease(), time.time(), bound, fields=self._member_fields()):
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

    def unregister(self, name: str) -> None:
        self.foragers.pop(name, None)
        self.store.leave(name, time.time())
        if isinstance(self.policy, EnergyPolicy):
            self.policy.forget(name)

    def retire(self, name: str) -> bool:
        """A forager leaves the population for good (not respawned after a stop): False, and
        nothing changes, when the store says the population is at its minimum (another forager
        left first)."""
        if not self.store.leave(name, time.time(), self.lower_bound):
            self.root.stats.inc_value("newsforagers/population/retire_refused")
            return False
        self.retired += 1
        self.unregister(name)
        self.members.pop(name, None)
        self.checkpoint_population()
        return True

    async def _lease_loop(self) -> None:
        """Renew the leases of this process's foragers (a host's a third of FORAGERS_LEASE
        apart, and its place among the hosts with them); a member looks for its host's stop,
        a host for other hosts, every second at most."""
        while not self._closed:
            await asyncio.sleep(min(1.0, self.config.lease / 3.0))
            if self._closed:
                return
            if self.stop_requested():
                logger.info("colony: the host ended the colony; stopping")
                for crawler in list(self.foragers.values()):
                    if engine_running(crawler):
                        asyncio.ensure_future(crawler.engine.close_spider_async(reason="shutdown"))
                return
            if self.hosting:
                self._share_budget_with_other_hosts()
                if time.monotonic() - self._lease_renewed < self.config.lease / 3.0:
                    continue
                self._lease_renewed = time.monotonic()
                self._renew_place()
            for name in list(self.foragers):
                if not self.store.renew(name, self._lease()):
                    # counted out (the reactor or the store stalled past the lease): it is
                    # alive, so back in if the population has room for it
                    logger.warning("colony: forager %s's lease ran out; it joins again", name)
                    self._join_within_bound(name)

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

    def _share_budget_with_other_hosts(self) -> None:
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

    def start_leases(self) -> None:
        if self._lease_task is None:
            self._lease_task = asyncio.ensure_future(self._lease_loop())

    # -- spawning -----------------------------------------------------------------------------

    def spawn(self, name: str, *, seeds: list[str], mode: str, parent: str | None = None,
              weblog: dict | None = None, weights: list[float] | None = None,
              energy: float | None = None, model: str | None = None, speed: float | None = None,
              resumed: bool = False, **event_fields: Any) -> bool:
        """Start forager ``name`` (``resumed``: again, after a stop; its own checkpoint, if any,
        wins over what it is given here). A child of a split takes a place in the population
        only if the store has one left (``FORAGERS_MAX``); False when it was not started."""
        if self.ending():  # a forager born while the colony closes would only delay its end
            if parent is not None:
                self.store.leave(name, time.time())
            return False
        # what the forager is born with goes through the store, as it would to another process,
        # with the host whose share of the colony it is (its outputs, its stop)
        self.store.put_value(handover_key(name), {"weblog": weblog, "weights": weights,
                                                  "host": self.host_token})
        member = {"seeds": list(seeds), "mode": mode, "model": model, "parent": parent,
                  "weblog": weblog, "weights": weights}
        arguments: dict[str, Any] = {"seeds": ",".join(seeds), "mode": mode, "forager": name,
                                     "colony": self}
        if model:
            arguments["model"] = model
        # the site's clock runs as fast for every forager as for the root
        speed = speed if speed is not None else self.speed
        if speed is not None:
            arguments["speed"] = speed
        self.register(name, None, parent, energy, member=member, resumed=resumed)
        if parent is not None:
            self.event("split", name, parent, **event_fields)
        self.spawner.start(name, arguments)
        return True

    def reserve_place(self, name: str, parent: str) -> bool:
        """Take a place in the population for ``parent``'s child ``name`` before it is made:
        the store's compare-and-set on the count (``FORAGERS_MAX``), so that no two foragers,
        in this process or another, take the last place. False: none left, or the colony is
        ending (counted)."""
        if self.ending():
            return False
        if self.store.join(name, self._lease(), time.time(), self.upper_bound):
            return True
        self.root.stats.inc_value("newsforagers/population/split_refused")
        logger.info("colony: no place left for a child of %s (%d foragers at most)", parent,
                    self.upper_bound)
        return False

    @property
    def upper_bound(self) -> int:
        """The population's hard cap: FORAGERS_MAX, or FORAGERS_ENERGY_UB for the energy policy
        (``defaults.ENERGY_PAPER_CAP``·UB with FORAGERS_ENERGY_BOUNDS = paper, whose population
        passes UB by design)."""
        if not isinstance(self.policy, EnergyPolicy):
            return self.config.max
        if self.config.energy_bounds == "paper":
            return defaults.ENERGY_PAPER_CAP * self.config.energy_ub
        return self.config.energy_ub

    @property
    def lower_bound(self) -> int:
        return self.config.energy_lb if isinstance(self.policy, EnergyPolicy) else self.config.min

    def _started(self, name: str, handle: Any) -> None:
        # a crawler of this process (its lease is renewed here; it is never read by another
        # forager), or another process, which renews its own lease
        if self.spawner.in_process:
            self.foragers[name] = handle

    def start_population(self, seeds: list[str], mode: str, model: str | None) -> None:
        """Alg. 9 — the first ``FORAGERS_MIN − 1`` foragers beside the root — or, on a resume,
        every forager alive at the checkpoint, under its own id."""
        saved = (self.resumed or {}).get("members")
        if saved is None:
            for _ in range(self.config.min - 1):
                name = self.new_id()
                # beside another host's foragers the population may be full already: the first
                # foragers take places within its bound as a split's child does
                if self.host_number and self.host_number > 1 and not self.reserve_place(name, self.root_name):
                    break
                self.spawn(name, seeds=seeds, mode=mode, model=model)
            return
        for name, member in saved.items():
            if member.get("root") or name in self.foragers:
                continue
            self.claim_id(name)
            self.spawn(name, seeds=member.get("seeds") or seeds, mode=member.get("mode") or mode,
                       model=member.get("model", model), weblog=member.get("weblog"),
                       weights=member.get("weights"), resumed=True)
            self.members[name] = member  # as it was born (its parent, its first weblog)
        # stopped while the first foragers were starting: the rest of Alg. 9's MIN
        while len(self.foragers) < self.config.min and not self._stopping:
            if not self.spawn(self.new_id(), seeds=seeds, mode=mode, model=model):
                break
        logger.info("colony: resumed from checkpoint %d with %d forager(s)", self._population_seq,
                    len(self.foragers))

    def checkpoint_population(self) -> None:
        """Write who lives (and the energy policy) to JOBDIR/population.json, atomically."""
        if self.jobdir is None or self._closed or not self.hosting:
            return
        self._population_seq += 1
        data = {"seq": self._population_seq, "time": datetime.now(UTC).isoformat(),
                "next_id": self._next_id, "host": self.host_token, "output_start": self.output_start,
                "members": self.members}
        if isinstance(self.policy, EnergyPolicy):
            data["energy"] = self.policy.to_dict()
        try:
            checkpoints.write_checkpoint(self.jobdir / checkpoints.POPULATION_FILE, data)
        except OSError as exc:
            logger.error("colony: cannot write the population checkpoint: %s", exc)

    async def _checkpoint_loop(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.config.checkpoint_interval)
            if not self._closed and not self._stopping:
                self.checkpoint_population()

    def start_checkpoints(self) -> None:
        if self.jobdir is not None and self._checkpoint_task is None and self.config.checkpoint_interval > 0:
            self._checkpoint_task = asyncio.ensure_future(self._checkpoint_loop())

    # -- the feed --------------------------------------------------------------------------------

    def new_documents(self) -> list[dict]:
        """The items the host's other foragers output since the last call (what their item
        pipelines let through), in the order they were output (the root's own reach its feed
        through its own pipelines)."""
        if self.feed is None or self._closed or not self.hosting:
            return []
        self.feed.root = self.root_name
        return self.feed.new_items()

    def output_new_documents(self) -> int:
        """Put the other foragers' new outputs in the root's feed (its ``item_scraped``, as an
        item its own pipelines output would be, marked so that it is not output again);
        returns how many."""
        spider = getattr(self.root, "spider", None)
        items = self.new_documents() if spider is not None else []
        for item in items:
            self.root.signals.send_catch_log(signal=signals.item_scraped, item=item, response=None,
                                             spider=spider, **{FEED_MARK: True})
        if items:
            self.root.stats.inc_value("newsforagers/colony/feed_items", len(items))
        return len(items)

    def prepare_feeds(self) -> None:
        """Before the root's feed exports open: on a resume, repair the local JSON-lines feeds
        and find the outputs of this host's job the feed lacks (output again once it is open)."""
        if self.resumed is None:
            return
        local, other = checkpoints.local_feeds(self.root.settings.getdict("FEEDS"))
        reference = None
        for path, options in local:
            overwrite = bool(options.get("overwrite", False))
            if options.get("format") in checkpoints.JSONLINES and not overwrite:
                cut = checkpoints.repair_feed(path)
                if cut:
                    logger.warning("colony: feed %s ended in an unfinished item (%d bytes); cut off",
                                   path, cut)
                    self.root.stats.set_value("newsforagers/resume/feed_bytes_cut", cut)
                if reference is None:
                    reference = (path, checkpoints.feed_urls(path))
            elif overwrite and reference is None:
                reference = (path, set())  # the file starts empty again
        for uri in other + [str(p) for p, _ in local if reference is None or p != reference[0]]:
            logger.warning("colony: feed %s cannot be checked after the stop: it may miss documents "
                           "found before it, or hold some twice; `newsforagers export --store %s` "
                           "writes them all", uri, self.store.safe_url)
        if reference is None:
            return
        self._reemit = self.feed.missing(self.output_start, reference[1])
        if self._reemit:
            self.root.signals.connect(self._output_missing, signal=signals.spider_opened)

    def _output_missing(self, spider) -> None:
        """(After the feed exports opened.) The outputs of this job that the feed lost."""
        missing, self._reemit = self._reemit, []
        for item in missing:
            self.root.signals.send_catch_log(signal=signals.item_scraped, item=item, response=None,
                                             spider=spider, **{FEED_MARK: True})
        self.root.stats.set_value("newsforagers/resume/output_again", len(missing))
        logger.info("colony: %d document(s) output before the stop output again", len(missing))

    def _ended(self, name: str, error: BaseException | None) -> None:
        if name in self.foragers or name in self.members:
            # ended without retiring: stopped (shutdown, limits, no start URL)
            self.event("stop", name, None)
        self.unregister(name)
        if error is not None:
            logger.error("forager %s ended with an error: %r", name, error)
        if not self.children_alive:
            # the root may be idle, kept open only for its children: let the engine see it
            wake_engine(self.root)

    @property
    def children_alive(self) -> bool:
        """Other foragers live: started by this process and still running, or (the host) any
        other live member of the population in the store (a forager in another process may
        have started its own)."""
        if self.spawner.running > 0:
            return True
        if not self.hosting or self.store is None or self._closed:
            return False
        return any(name != self.root_name for name in self._host_members())

    def _host_members(self) -> dict:
        """The live members of the population that are this host's share of the colony."""
        return {name: member for name, member in self.store.members(time.time()).items()
                if member.fields.get("host") == self.host_token}

    def stop_requested(self) -> bool:
        """(A member.) The host ended the colony (the store's stop mark)."""
        return (not self.hosting and self.store is not None
                and self.store.get_value(stop_key(self.host_token)) is not None)

    # -- record -------------------------------------------------------------------------------

    def event(self, kind: str, forager: str, parent: str | None, **extra: Any) -> None:
        record = {"event": kind, "forager": forager, "parent": parent}
        if isinstance(self.policy, EnergyPolicy):
            record["energy"] = self.policy.energies.get(forager)
        else:
            record["score"] = self.store.get_score(forager)
        record["time"] = datetime.now(UTC).isoformat()
        record["sim_time"] = self.site_time()
        record.update(extra)
        if kind in ("retire", "stop") and self._snapshots is not None:
            # a forager's last counts: no periodic snapshot will see it again
            self._snapshot_one(forager, record["time"], self.store.scores())
            if not self._snapshots.closed:
                self._snapshots.flush()
        if self._events is not None and not self._events.closed:
            self._events.write(json.dumps(record) + "\n")
            self._events.flush()
        logger.info("colony: %s %s%s", kind, forager, f" (parent {parent})" if parent else "")

    def site_time(self) -> str | None:
        """The site's time now (ISO 8601) as the foragers last read it, through the store."""
        reading = self.store.get_value(SITE_CLOCK) if self.store is not None else None
        return site_time_now(reading, time.time())

    def snapshot(self) -> None:
        """A line per live member of the population, from what each shared in the store."""
        if self._snapshots is None or self._snapshots.closed:
            return
        now = datetime.now(UTC).isoformat()
        scores = self.store.scores()
        for name in self._host_members():
            self._snapshot_one(name, now, scores)
        self._snapshots.flush()
        for key, value in self.memory().items():
            self.root.stats.set_value(f"newsforagers/memory/{key}", value)

    def memory(self) -> dict[str, int]:
        """What the colony's bounded memories hold now (stats ``newsforagers/memory/*``)."""
        sizes = {"claims": self.store.claim_count(), "url_records": self.store.url_count(),
                 "url_records_evicted": self.store.evicted_urls,
                 "claims_expired": self.store.expired_claims, "fetch_cache": len(self.fetches),
                 "foragers_alive": len(self.foragers), "crawlers_held": self.spawner.running}
        if isinstance(self.policy, EnergyPolicy):
            sizes["energy_pages"] = len(self.policy.page_energy)
            sizes["energy_pages_evicted"] = self.policy.evicted_pages
        return sizes

    def _snapshot_one(self, name: str, now: str, scores: dict) -> None:
        shared = self.store.get_value(snapshot_key(name))
        if shared is None or self._snapshots is None or self._snapshots.closed:
            return
        record = {"time": now, "forager": name, "score": scores.get(name),
                  "energy": self.policy.energies.get(name) if isinstance(self.policy, EnergyPolicy) else None}
        record.update(shared)
        self._snapshots.write(json.dumps(record) + "\n")

    async def _snapshot_loop(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.config.snapshot_interval)
            if not self._closed:
                self.snapshot()

    def start_snapshots(self) -> None:
        if self._snapshot_task is None and self.config.snapshot_interval > 0:
            self._snapshot_task = asyncio.ensure_future(self._snapshot_loop())

    # -- ending -------------------------------------------------------------------------------

    def _root_started(self) -> None:
        self._root_running = True

    def ending(self) -> bool:
        """Whether the colony is ending: stopping, its root's engine stopped (a signal), or its
        root's ``CLOSESPIDER_TIMEOUT`` reached."""
        if self._stopping or self._closed:
            return True
        if self.closes_at is not None and time.monotonic() >= self.closes_at:
            return True
        return self._root_running and not engine_running(self.root)

    async def stop(self) -> None:
        """Stop every other forager once, wait for all of them, record the stop."""
        if self._stopping:
            await self.join()
            return
        self._stopping = True
        if not self.hosting:
            # a member ends alone: the foragers it started live on until the host ends the colony
            return
        # every forager of the colony, in whatever process, stops (the store's stop mark; a
        # member looks at it with each renewal of its lease)
        self.store.put_value(stop_key(self.host_token), {"at": time.time(), "by": self.root_name})
        await self.spawner.stop()
        await self._others_left()

    async def join(self) -> None:
        await self.spawner.join()

    async def _others_left(self) -> None:
        """Wait until no other member is left in the store (foragers of other processes that
        this one did not start), at most one lease: a forager that died is counted out then."""
        deadline = time.monotonic() + self.config.lease
        while time.monotonic() < deadline:
            if not any(name != self.root_name and name not in self.foragers
                       for name in self._host_members()):
                return
            await asyncio.sleep(0.1)

    def judged_send(self, rewarded: bool) -> None:
        """The reinforcing agent judged one send of a forager of this colony."""
        self.judged += 1
        self.paid += bool(rewarded)

    def summary(self) -> dict:
        """What the colony did, for ``RUN_DIR/colony.json``."""
        summary: dict[str, Any] = {"population": self.config.population, "alive": sorted(self.foragers),
                                   "foragers_started": self._next_id - 1,
                                   "foragers_born": self.born, "foragers_retired": self.retired,
                                   "sends_judged": self.judged, "documents_paid": self.paid,
                                   # downloads that reached a host (shared copies and Scrapy's
                                   # HTTP cache never do)
                                   "requests_sent": dict(sorted(self.budget.sent.items())),
                                   "documents": self.store.document_count(),
                                   "host": self.host_number,
                                   "feed_items": self.root.stats.get_value("newsforagers/colony/feed_items", 0),
                                   "memory": self.memory()}
        if isinstance(self.policy, EnergyPolicy):
            pages = self.policy.pages
            summary["energy"] = {
                "visits": self.policy.visits, "pages": pages,
                "relevant_pages": self.policy.relevant_pages,
                "gaining_pages": self.policy.gaining_pages,
                "relevant_share": self.policy.relevant_pages / pages if pages else None,
                "gaining_share": self.policy.gaining_pages / pages if pages else None,
                # the sigmoid's self-balancing share C/(G + C); the original model has none
                "expected_share": (self.config.energy_c / (self.config.energy_g + self.config.energy_c)
                                   if self.config.energy_model == "sigmoid" else None),
            }
        return summary

    def close(self) -> None:
        if self._closed or not self._opened:
            return
        if not self.hosting:
            for name in list(self.foragers):
                self.store.leave(name, time.time())
            self._closed = True
            if self._lease_task is not None:
                self._lease_task.cancel()
            self.store.close()
            return
        self.checkpoint_population()
        self.snapshot()
        for name in list(self.foragers):
            self.event("stop", name, None)
        for name in list(self.foragers):
            self.store.leave(name, time.time())
        summary = self.summary()
        (self.run_dir / "colony.json").write_text(json.dumps(summary, indent=2) + "\n")
        self._log_summary(summary)
        self._closed = True
        for task in (self._snapshot_task, self._checkpoint_task, self._lease_task):
            if task is not None:
                task.cancel()
        self._events.close()
        self._snapshots.close()
        colony_hosts.leave_place(self.store, self.host_token)
        self.store.close()

    def _log_summary(self, summary: dict) -> None:
        """The colony's one summary: each forager's crawler dumps its own stats, and none of
        them sees what the whole colony did."""
        requests = summary["requests_sent"]
        per_host = ", ".join(f"{host} {n}" for host, n in requests.items()) or "none"
        logger.info(
            "colony summary: %d document(s) paid (first finds of novel same-day documents) of %d "
            "send(s) judged; %d request(s) sent to the sites (%s), shared downloads and cache hits "
            "not counted; %d forager(s) born, %d retired, %d alive at the end; record in %s",
            summary["documents_paid"], summary["sends_judged"], sum(requests.values()), per_host,
            summary["foragers_born"], summary["foragers_retired"], len(summary["alive"]),
            self.run_dir)


def spawner_for(config: ForagersConfig, root: Crawler, on_started, on_ended, grace: float) -> Spawner:
    """The spawner ``FORAGERS_SPAWNER`` names."""
    if config.spawner == "scrapyd":
        return ScrapydSpawner.from_config(config, root, on_started, on_ended, grace)
    if config.spawner == "process":
        return ProcessSpawner(root, on_started, on_ended, grace)
    return InProcessSpawner(root, on_started, on_ended)


def _default_run_dir(root: Crawler) -> Path:
    jobdir = root.settings.get("JOBDIR")
    if jobdir:
        return Path(jobdir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path(".newsforagers") / "runs" / f"{stamp}-{os.getpid()}"
