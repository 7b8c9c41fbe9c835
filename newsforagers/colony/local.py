"""The colony in one process: foragers as Scrapy crawlers sharing one store and one site budget.

``scrapy crawl forager`` creates the first forager (the *root*); its assembly builds a
:class:`Colony` and, once the root's engine has started
(:class:`~newsforagers.extensions.start.ColonyStartExtension`), the colony starts the other
``FORAGERS_MIN - 1`` foragers from the seeds (Alg. 9) and later the children of splits, each as
its own crawler in the same reactor through an ``AsyncCrawlerRunner``
(:class:`~newsforagers.colony.spawner.InProcessSpawner`).

Foragers share nothing but the store (:mod:`newsforagers.store`): the population (members under
leases, its count within its bounds), scores, first-finder claims, per-URL records and listing
entries, a split's hand-over and the site's clock go through it, so that a forager reads no
other forager's objects. What this process adds for its own foragers is politeness only (the
per-host request budget, robots.txt parsers, recent downloads) and the colony's record — never
module globals.

:class:`Colony` holds the parts, one concern each, and does what needs several of them:

- :mod:`~newsforagers.colony.membership` — who this process is, the names it gives, its
  foragers' places in the store's population and their leases;
- :mod:`~newsforagers.colony.spawning` — starting foragers (Alg. 9, splits, a resume);
- :mod:`~newsforagers.colony.record` — ``events.jsonl``, ``snapshots.jsonl``, ``colony.json``;
- :mod:`~newsforagers.colony.checkpoint` — the population's checkpoint (``JOBDIR``);
- :mod:`~newsforagers.colony.feed` — the root's feed, handed its host's share of the output.

The root crawler stays open until the whole colony has ended (it hosts the user's feed
export, filled with the other foragers' outputs from the store, so one ``-O`` file receives them
all); when it closes — the colony ended, or SIGINT/SIGTERM, or ``CLOSESPIDER_*`` — it stops
every other forager once and waits for them.

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

import logging
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from newsforagers import defaults
from newsforagers.colony import hosts as colony_hosts
from newsforagers.colony.checkpoint import PopulationCheckpoint
from newsforagers.colony.feed import ColonyFeed, RootFeed
from newsforagers.colony.fetches import SharedFetches
from newsforagers.colony.keys import SITE_CLOCK, handover_key, site_reading, site_time_now, snapshot_key
from newsforagers.colony.membership import Membership
from newsforagers.colony.record import ColonyRecord
from newsforagers.colony.spawner import Spawner
from newsforagers.colony.spawning import Spawning
from newsforagers.colony.throttle import HostBudget, Politeness
from newsforagers.config import ForagersConfig
from newsforagers.learning import EnergyPolicy, ScorePolicy
from newsforagers.pages.workers import FIT_IDLE_SECONDS, FIT_SECONDS, DocumentWorkers
from newsforagers.scrapy_access import engine_running
from newsforagers.stopping import interrupt_stores_on_stop
from newsforagers.store import ColonyStore, open_store

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

# the store's keys, imported from here by the driver, the spider and the assembly
__all__ = ["SITE_CLOCK", "Colony", "handover_key", "site_reading", "site_time_now", "snapshot_key"]

logger = logging.getLogger(__name__)


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
        self.config = config
        self.store = store
        self.rng = rng if rng is not None else np.random.default_rng(None if config.seed < 0 else config.seed)
        if config.population == "energy":
            self.policy: ScorePolicy | EnergyPolicy = EnergyPolicy(
                config.energy_c, config.energy_g, config.energy_lb, config.energy_ub, config.energy_init,
                config.energy_history, config.energy_pages_max, config.energy_model, config.energy_rho,
                split=config.energy_split, bounds=config.energy_bounds)
        else:
            self.policy = ScorePolicy(config.split_score, config.retire_score, config.min,
                                      config.max, config.score_init)
        self.membership = Membership(root, config, hosting, self._upper_bound(), self._lower_bound(), store)
        self.record = ColonyRecord(root, config, self.policy, store)
        jobdir = root.settings.get("JOBDIR")
        self.checkpoint = PopulationCheckpoint(jobdir)
        self.spawning = Spawning(self, spawner)
        self.feed: RootFeed | None = None  # the root's feed (a host's, once open)
        self.output_start = 0  # the store's outputs before this job's (a resume keeps it)
        self.politeness: Politeness | None = None
        self.budget: HostBudget | None = None
        self.fetches = SharedFetches(config.fetch_ttl, config.fetch_cache_size)
        self.robots: dict[str, Any] = {}  # netloc -> parser (or a Deferred while fetching)
        # the processes that read this process's paid documents (the reinforcing agents')
        self.documents = (DocumentWorkers(config.document_workers, library_log_level=config.library_log_level)
                          if config.document_workers > 0 else None)
        # ... and the one that fits its foragers' state encoders (started when a forager that
        # will fit one is built in the hosting process, elsewhere at the first fit; the
        # encoder's libraries imported as it starts; stopped when idle, started again by a fit)
        self.fits = (DocumentWorkers(1, timeout=FIT_SECONDS, library_log_level=config.library_log_level,
                                     preload=("newsforagers.text",), idle_seconds=FIT_IDLE_SECONDS)
                     if config.document_workers > 0 else None)
        # kinds of trouble (hostile pages, failures) already logged as a warning: once per colony
        self.warned: set[str] = set()
        self.closes_at: float | None = None  # time.monotonic() of the root's CLOSESPIDER_TIMEOUT
        self._root_running = False  # the root's engine has started (its `running` then means it)
        self._stopping = False
        self._closed = False
        self._opened = False

    def _upper_bound(self) -> int:
        """The population's hard cap: FORAGERS_MAX, or FORAGERS_ENERGY_UB for the energy policy
        (``defaults.ENERGY_PAPER_CAP``·UB with FORAGERS_ENERGY_BOUNDS = paper, whose population
        passes UB by design)."""
        if not isinstance(self.policy, EnergyPolicy):
            return self.config.max
        if self.config.energy_bounds == "paper":
            return defaults.ENERGY_PAPER_CAP * self.config.energy_ub
        return self.config.energy_ub

    def _lower_bound(self) -> int:
        return self.config.energy_lb if isinstance(self.policy, EnergyPolicy) else self.config.min

    def open(self) -> None:
        """Open the store, the colony's record and its checkpoint (once); a host takes its
        place among the colony's hosts (:mod:`newsforagers.colony.hosts`)."""
        if self._opened:
            return
        self._opened = True
        config, root, membership = self.config, self.root, self.membership
        if self.store is None:
            self.store = open_store(config.store, config.url_records_max, prefix=config.redis_prefix,
                                    retry=config.store_retry, password_file=config.store_password_file)
        membership.store = self.record.store = self.store
        if self.documents is not None:
            self.documents.start()  # (its start-up overlaps the crawl's)
        # a stop asked while a store's server does not answer must not wait out the retries
        interrupt_stores_on_stop(self.store)
        others: dict = {}
        if self.hosting:
            resumed = self.checkpoint.read()
            if resumed is not None and resumed.get("host"):
                membership.host_token = str(resumed["host"])  # its foragers' outputs are its feed's
            others = membership.take_place()
        # Scrapy's per-crawler politeness would multiply with the foragers: it binds the colony
        self.politeness = Politeness.from_settings(root.settings, config.host_rate, config.host_concurrency)
        # foragers in other processes (and machines) draw from one budget kept in the store
        shared = self.store if config.spawner != "inprocess" or others else None
        self.budget = membership.budget = HostBudget.from_politeness(self.politeness, shared=shared)
        logger.info("colony: one politeness for all foragers%s: %s",
                    " of every process (kept in the store)" if shared is not None else "",
                    self.politeness.describe())
        if not self.hosting:
            # a member: the record, the checkpoint of the population and the feed are the host's
            return
        logger.info("colony: store %s (newsforagers status|export|search|web --store %s)",
                    self.store.safe_url, self.store.safe_url)
        if others:
            described = ", ".join(f"host {n}: {host.get('process')}" for n, host in sorted(others.items()))
            logger.info("colony: %d other process(es) host foragers of this colony on this store "
                        "(%s); this one is host %d: its foragers are named %s*, and its feed holds "
                        "what they output (`newsforagers export --store %s` writes the whole colony's)",
                        len(others), described,
                        membership.host_number, colony_hosts.name_prefix(membership.host_number) or "f",
                        self.store.safe_url)
        membership.forget_earlier_members(others)
        self.record.open()
        resumed = self.checkpoint.resumed
        if resumed is not None:
            membership.next_id = max(membership.next_id, int(resumed.get("next_id", 1)))
            self.output_start = int(resumed.get("output_start", 0))
            if isinstance(self.policy, EnergyPolicy) and resumed.get("energy"):
                try:
                    self.policy.restore(resumed["energy"])
                except (TypeError, ValueError) as exc:
                    logger.error("colony: saved energy policy unusable (%s); starting afresh", exc)
        else:
            # the store may hold earlier jobs' outputs: this job's feed holds those after them
            self.output_start = self.store.output_count()
        # the feed follows the store from here (on a resume, what was output before the stop
        # and is missing from the feed is output once, by prepare_feeds)
        self.feed = RootFeed(root, ColonyFeed(self.store, membership.host_token, membership.root_name,
                                              self.store.output_count()))

    # -- what the assembly, the components and the spawner read ------------------------------------

    @property
    def host_token(self) -> str:
        """The host whose share of the colony this process's foragers are."""
        return self.membership.host_token

    @host_token.setter
    def host_token(self, token: str) -> None:
        self.membership.host_token = token

    @property
    def root_name(self) -> str | None:
        """The name of the forager whose crawler made this view of the colony."""
        return self.membership.root_name

    @root_name.setter
    def root_name(self, name: str | None) -> None:
        self.membership.root_name = name

    @property
    def speed(self) -> float | None:
        """The site clock's speed (the root's ``-a speed``), given to every forager it starts."""
        return self.spawning.speed

    @speed.setter
    def speed(self, speed: float | None) -> None:
        self.spawning.speed = speed

    @property
    def resumed(self) -> dict | None:
        """The population checkpoint this run resumes from."""
        return self.checkpoint.resumed

    @property
    def population(self) -> int:
        return self.membership.population

    @property
    def stopping(self) -> bool:
        return self._stopping

    @property
    def closed(self) -> bool:
        return self._closed

    def new_id(self) -> str:
        return self.membership.new_id()

    def host_name(self, name: str) -> str:
        return self.membership.host_name(name)

    def claim_id(self, name: str) -> None:
        self.membership.claim_id(name)

    def join_as_member(self, name: str, crawler: Crawler) -> None:
        self.membership.join_as_member(name, crawler)

    def event(self, kind: str, forager: str, parent: str | None, **extra: Any) -> None:
        self.record.event(kind, forager, parent, **extra)

    def spawn(self, name: str, **arguments: Any) -> bool:
        return self.spawning.spawn(name, **arguments)

    def start_population(self, seeds: list[str], mode: str, model: str | None) -> list[str] | None:
        """(The root, once its engine has started.) :meth:`Spawning.start_population`: the
        root's share of the seeds when they were dealt by host, else None."""
        return self.spawning.start_population(seeds, mode, model)

    # -- the population --------------------------------------------------------------------------

    def register(self, name: str, crawler: Crawler | None, parent: str | None = None,
                 energy: float | None = None, member: dict | None = None, resumed: bool = False) -> None:
        """A forager joins the colony; ``member`` is what it was started with (to respawn it
        after a stop), ``resumed`` says it comes back from a checkpoint. ``crawler``: the root's
        (the others' come from the spawner when it starts them)."""
        self.membership.join(name, crawler, parent)
        self.record.born += 1
        self.checkpoint.members[name] = member if member is not None else {"root": crawler is self.root}
        if isinstance(self.policy, EnergyPolicy):
            if energy is None and resumed:
                energy = ((self.resumed or {}).get("energy") or {}).get("energies", {}).get(name)
            self.policy.register(name, energy)
        if parent is None:
            self.event("start", name, None, **({"resumed": True} if resumed else {}))
        self.checkpoint_population()

    def reserve_place(self, name: str, parent: str) -> bool:
        """Take a place in the population for ``parent``'s child ``name`` before it is made
        (``FORAGERS_MAX``, :meth:`Membership.reserve_place`). False: none left, or the colony is
        ending."""
        if self.ending():
            return False
        return self.membership.reserve_place(name, parent)

    def unregister(self, name: str) -> None:
        self.membership.leave(name)
        if isinstance(self.policy, EnergyPolicy):
            self.policy.forget(name)

    def retire(self, name: str) -> bool:
        """A forager leaves the population for good (not respawned after a stop): False, and
        nothing changes, when the store says the population is at its minimum (another forager
        left first)."""
        if not self.membership.leave_above_bound(name):
            return False
        self.record.retired += 1
        self.unregister(name)
        self.checkpoint.members.pop(name, None)
        self.checkpoint_population()
        return True

    @property
    def children_alive(self) -> bool:
        """Other foragers live: started by this process and still running, or (the host) any
        other live member of the population in the store (a forager in another process may
        have started its own)."""
        if self.spawning.spawner.running > 0:
            return True
        if not self.hosting or self.store is None or self._closed:
            return False
        return self.membership.others_alive()

    def checkpoint_population(self) -> None:
        """Write who lives (and the energy policy) to JOBDIR/population.json, atomically."""
        if self.checkpoint.jobdir is None or self._closed or not self.hosting:
            return
        energy = {"energy": self.policy.to_dict()} if isinstance(self.policy, EnergyPolicy) else {}
        self.checkpoint.write(next_id=self.membership.next_id, host=self.host_token,
                              output_start=self.output_start, **energy)

    # -- the feed --------------------------------------------------------------------------------

    def output_new_documents(self) -> int:
        """Put the other foragers' new outputs in the root's feed (:meth:`RootFeed.output_new`);
        returns how many."""
        if self.feed is None or self._closed:
            return 0
        return self.feed.output_new(self.root_name)

    def prepare_feeds(self) -> None:
        """Before the root's feed exports open: on a resume, repair the local JSON-lines feeds
        and find the outputs of this host's job the feed lacks (output again once it is open)."""
        if self.resumed is None or self.feed is None:
            return
        self.feed.prepare(self.output_start, self.store.safe_url)

    # -- the record ------------------------------------------------------------------------------

    def snapshot(self) -> None:
        """A line per live member of the host's share, and the memory stats."""
        if not self.record.snapshot(self.membership.host_members()):
            return
        for key, value in self.memory().items():
            self.root.stats.set_value(f"newsforagers/memory/{key}", value)

    def memory(self) -> dict[str, int]:
        """What the colony's bounded memories hold now (stats ``newsforagers/memory/*``)."""
        sizes = {"claims": self.store.claim_count(), "url_records": self.store.url_count(),
                 "url_records_evicted": self.store.evicted_urls,
                 "claims_expired": self.store.expired_claims, "fetch_cache": len(self.fetches),
                 "foragers_alive": len(self.membership.foragers),
                 "crawlers_held": self.spawning.spawner.running}
        if isinstance(self.policy, EnergyPolicy):
            sizes["energy_pages"] = len(self.policy.page_energy)
            sizes["energy_pages_evicted"] = self.policy.evicted_pages
        return sizes

    def summary(self) -> dict:
        """What the colony did, for ``RUN_DIR/colony.json``."""
        record = self.record
        summary: dict[str, Any] = {"population": self.config.population,
                                   "alive": sorted(self.membership.foragers),
                                   "foragers_started": self.membership.next_id - 1,
                                   "foragers_born": record.born, "foragers_retired": record.retired,
                                   "sends_judged": record.judged, "documents_paid": record.paid,
                                   # downloads that reached a host (shared copies and Scrapy's
                                   # HTTP cache never do)
                                   "requests_sent": dict(sorted(self.budget.sent.items())),
                                   # starts moved later: the event loop sent their requests late
                                   "starts_settled_late": self.budget.settled_late,
                                   "documents": self.store.document_count(),
                                   "host": self.membership.host_number,
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

    # -- ending ----------------------------------------------------------------------------------

    def root_started(self) -> None:
        """The root's engine has started: from now on, its engine no longer running means the
        colony ends."""
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
        self.membership.mark_stop()
        await self.spawning.spawner.stop()
        await self.membership.others_left()

    async def join(self) -> None:
        await self.spawning.spawner.join()

    def close(self) -> None:
        if self._closed or not self._opened:
            return
        for workers in (self.documents, self.fits):
            if workers is not None:
                workers.close()
        membership = self.membership
        if not self.hosting:
            membership.leave_all()
            self._closed = True
            membership.close()
            self.store.close()
            return
        self.checkpoint_population()
        self.snapshot()
        for name in list(membership.foragers):
            self.event("stop", name, None)
        membership.leave_all()
        self.record.write_summary(self.summary())
        self._closed = True
        membership.close()
        self.record.close()
        membership.leave_place()
        self.store.close()
