"""The colony in one process: foragers as Scrapy crawlers sharing one store and one site budget.

``scrapy crawl forager`` creates the first forager (the *root*); its spider builds a
:class:`Colony`, which starts the other ``FORAGERS_MIN - 1`` foragers from the seeds (Alg. 9)
and later the children of splits, each as its own crawler in the same reactor through an
``AsyncCrawlerRunner``. Everything the foragers share is held here and handed to them
explicitly (the spider's ``colony`` argument): the store, the population policy, the per-host
request budget, robots.txt parsers, recent downloads, the events log — never module globals.

The root crawler stays open until the whole colony has ended (it hosts the user's feed
export: children's documents are forwarded to it, so one ``-O`` file receives them all); when
it closes — the colony ended, or SIGINT/SIGTERM, or ``CLOSESPIDER_*`` — it stops every other
forager once and waits for them.

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
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from newsforagers.colony import checkpoint as checkpoints
from newsforagers.colony.throttle import HostBudget, Politeness
from newsforagers.colony.fetches import SharedFetches
from newsforagers.config import ForagersConfig
from newsforagers.learning import EnergyPolicy, ScorePolicy
from newsforagers.store import ColonyStore, open_store

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

# settings a child crawler must not inherit from the root (its documents reach the root's
# feed). LOG_FILE stays: a new crawler re-installs Scrapy's root log handler from its own
# settings, and without it the colony's log would move to stderr.
_ROOT_ONLY = ("FEEDS", "FEED_URI", "FEED_FORMAT")
# How long the colony's stop waits for a forager that is still starting (its engine not running
# yet) before it stops it: steps of _START_WAIT seconds.
_START_WAIT = 0.05
_START_WAIT_STEPS = 200


class Colony:
    """The shared state and the population of one colony (one per process)."""

    def __init__(self, root: Crawler, config: ForagersConfig, store: ColonyStore | None = None,
                 rng: np.random.Generator | None = None):
        self.root = root
        self.config = config
        self.store = store if store is not None else open_store(config.store, config.url_records_max)
        self.rng = rng if rng is not None else np.random.default_rng(None if config.seed < 0 else config.seed)
        if config.population == "energy":
            self.policy: ScorePolicy | EnergyPolicy = EnergyPolicy(
                config.energy_c, config.energy_g, config.energy_lb, config.energy_ub, config.energy_init,
                config.energy_history, config.energy_pages_max)
        else:
            self.policy = ScorePolicy(config.split_score, config.retire_score, config.min,
                                      config.max, config.score_init)
        # Scrapy's per-crawler politeness would multiply with the foragers: it binds the colony
        self.politeness = Politeness.from_settings(root.settings, config.host_rate,
                                                   config.host_concurrency)
        self.budget = HostBudget.from_politeness(self.politeness)
        logger.info("colony: one politeness for all foragers: %s", self.politeness.describe())
        self.fetches = SharedFetches(config.fetch_ttl, config.fetch_cache_size)
        self.robots: dict[str, Any] = {}  # netloc -> parser (or a Deferred while fetching)
        # kinds of trouble (hostile pages, failures) already logged as a warning: once per colony
        self.warned: set[str] = set()
        self.run_dir = Path(config.run_dir) if config.run_dir else _default_run_dir(root)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._events_path = Path(config.events) if config.events else self.run_dir / "events.jsonl"
        # a crash may have cut the record's last line in half: appending starts on a new one
        checkpoints.repair_feed(self._events_path)
        checkpoints.repair_feed(self.run_dir / "snapshots.jsonl")
        self._events = open(self._events_path, "a", encoding="utf-8")
        self._snapshots = open(self.run_dir / "snapshots.jsonl", "a", encoding="utf-8")
        self.foragers: dict[str, Crawler] = {}  # live foragers (the root included while it walks)
        self._next_id = 1
        self._runners: dict[str, Any] = {}  # forager -> its CrawlerRunner, until it ends
        self._stopping = False
        self._closed = False
        self.closes_at: float | None = None  # time.monotonic() of the root's CLOSESPIDER_TIMEOUT
        self._root_running = False  # the root's engine has started (its `running` then means it)
        from scrapy import signals

        root.signals.connect(self._root_started, signal=signals.engine_started)
        self._snapshot_task = None
        self._checkpoint_task = None
        # the population as it must come back after a stop: every forager alive (retired ones
        # leave it), with what it was started with
        self.members: dict[str, dict] = {}
        jobdir = root.settings.get("JOBDIR")
        self.jobdir = Path(jobdir) if jobdir else None
        self._population_seq = 0
        self.resumed: dict | None = None  # the population checkpoint this run resumes from
        if self.jobdir is not None:
            self.resumed = checkpoints.read_checkpoint(self.jobdir / checkpoints.POPULATION_FILE)
        if self.resumed is not None:
            self._population_seq = int(self.resumed["seq"])
            self._next_id = max(1, int(self.resumed.get("next_id", 1)))
            self.store_start = int(self.resumed.get("store_start", 0))
            if isinstance(self.policy, EnergyPolicy) and self.resumed.get("energy"):
                try:
                    self.policy.restore(self.resumed["energy"])
                except (TypeError, ValueError) as exc:
                    logger.error("colony: saved energy policy unusable (%s); starting afresh", exc)
        else:
            # the store may hold earlier jobs' documents: this job's feed holds those after them
            self.store_start = self.store.document_count()
        self._reemit: list = []
        # what the colony did, for its summary at the end
        self.judged = 0  # sends the reinforcing agent judged
        self.paid = 0  # of them, first finds of novel documents (rewarded)
        self.born = 0  # foragers started (the root, Alg. 9's first ones, children of splits)
        self.retired = 0

    # -- identity and population -------------------------------------------------------------

    def new_id(self) -> str:
        name = f"f{self._next_id}"
        self._next_id += 1
        return name

    def claim_id(self, name: str) -> None:
        """Keep generated ids clear of a name given on the command line."""
        if name.startswith("f") and name[1:].isdigit():
            self._next_id = max(self._next_id, int(name[1:]) + 1)

    @property
    def population(self) -> int:
        return len(self.foragers)

    def register(self, name: str, crawler: Crawler, parent: str | None = None,
                 energy: float | None = None, member: dict | None = None, resumed: bool = False) -> None:
        """A forager joins the colony; ``member`` is what it was started with (to respawn it
        after a stop), ``resumed`` says it comes back from a checkpoint."""
        self.foragers[name] = crawler
        self.born += 1
        self.members[name] = member if member is not None else {"root": crawler is self.root}
        if self.store.get_score(name) is None or parent is not None:
            self.store.set_score(name, self.config.score_init)
        if isinstance(self.policy, EnergyPolicy):
            if energy is None and resumed:
                energy = ((self.resumed or {}).get("energy") or {}).get("energies", {}).get(name)
            self.policy.register(name, energy)
        if parent is None:
            self.event("start", name, None, crawler, **({"resumed": True} if resumed else {}))
        self.checkpoint_population()

    def unregister(self, name: str) -> None:
        self.foragers.pop(name, None)
        if isinstance(self.policy, EnergyPolicy):
            self.policy.forget(name)

    def retire(self, name: str) -> None:
        """A forager leaves the population for good (not respawned after a stop)."""
        self.retired += 1
        self.unregister(name)
        self.members.pop(name, None)
        self.checkpoint_population()

    # -- spawning -----------------------------------------------------------------------------

    def _child_settings(self, name: str) -> dict:
        from scrapy.settings import SETTINGS_PRIORITIES

        # Only what was set above Scrapy's defaults: a child's settings dict is applied at
        # project priority, and defaults copied that way would look set by the user (Scrapy
        # then warns about deprecated defaults such as RANDOMIZE_DOWNLOAD_DELAY, and a default
        # would outrank a newer setting that replaces it).
        root = self.root.settings
        settings = {key: value for key, value in root.copy_to_dict().items()
                    if (root.getpriority(key) or 0) > SETTINGS_PRIORITIES["default"]}
        for key in _ROOT_ONLY:
            settings.pop(key, None)
        settings["FEEDS"] = {}
        settings["TELNETCONSOLE_ENABLED"] = False
        jobdir = settings.get("JOBDIR")
        if jobdir:
            settings["JOBDIR"] = str(Path(jobdir) / "foragers" / name)
        return settings

    def spawn(self, name: str, *, seeds: list[str], mode: str, parent: str | None = None,
              weblog: dict | None = None, weights: list[float] | None = None,
              energy: float | None = None, model: str | None = None, speed: float | None = None,
              resumed: bool = False, **event_fields: Any) -> None:
        """Start forager ``name`` as a new crawler in this process (``resumed``: again, after a
        stop; its own checkpoint, if any, wins over what it is given here)."""
        from scrapy.crawler import AsyncCrawlerRunner

        from newsforagers.spiders.forager import ForagerSpider

        if self.ending():  # a forager born while the colony closes would only delay its end
            return
        runner = AsyncCrawlerRunner(self._child_settings(name))
        crawler = runner.create_crawler(ForagerSpider)
        member = {"seeds": list(seeds), "mode": mode, "model": model, "parent": parent,
                  "weblog": weblog, "weights": weights}
        self.register(name, crawler, parent, energy, member=member, resumed=resumed)
        if parent is not None:
            # the child's spider does not exist yet: the parent's knows the site's clock
            self.event("split", name, parent, self.foragers.get(parent, crawler), **event_fields)
        kwargs = {"seeds": ",".join(seeds), "mode": mode, "forager": name, "colony": self,
                  "inherited_weblog": weblog, "inherited_weights": weights}
        if model:
            kwargs["model"] = model
        # the site's clock runs as fast for every forager as for the root
        speed = speed if speed is not None else getattr(getattr(self.root, "spider", None), "speed", None)
        if speed is not None:
            kwargs["speed"] = speed
        task = runner.crawl(crawler, **kwargs)
        self._runners[name] = runner
        task.add_done_callback(lambda t, n=name: self._ended(n, t))

    def start_population(self, seeds: list[str], mode: str, model: str | None) -> None:
        """Alg. 9 — the first ``FORAGERS_MIN − 1`` foragers beside the root — or, on a resume,
        every forager alive at the checkpoint, under its own id."""
        saved = (self.resumed or {}).get("members")
        if saved is None:
            for _ in range(self.config.min - 1):
                self.spawn(self.new_id(), seeds=seeds, mode=mode, model=model)
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
        while self.population < self.config.min and not self._stopping:
            self.spawn(self.new_id(), seeds=seeds, mode=mode, model=model)
        logger.info("colony: resumed from checkpoint %d with %d forager(s)", self._population_seq,
                    len(self.foragers))

    def checkpoint_population(self) -> None:
        """Write who lives (and the energy policy) to JOBDIR/population.json, atomically."""
        if self.jobdir is None or self._closed:
            return
        self._population_seq += 1
        data = {"seq": self._population_seq, "time": datetime.now(UTC).isoformat(),
                "next_id": self._next_id, "store_start": self.store_start, "members": self.members}
        if isinstance(self.policy, EnergyPolicy):
            data["energy"] = self.policy.to_dict()
        try:
            checkpoints.write_checkpoint(self.jobdir / checkpoints.POPULATION_FILE, data)
        except OSError as exc:
            logger.error("colony: cannot write the population checkpoint: %s", exc)

    def checkpoint(self) -> None:
        """Checkpoint every live forager, then the population."""
        crawlers = {id(c): c for c in [self.root, *self.foragers.values()]}
        for crawler in crawlers.values():
            driver = getattr(getattr(crawler, "spider", None), "forager_driver", None)
            if driver is not None:
                driver.checkpoint()
        self.checkpoint_population()

    async def _checkpoint_loop(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.config.checkpoint_interval)
            if not self._closed and not self._stopping:
                self.checkpoint()

    def start_checkpoints(self) -> None:
        if self.jobdir is not None and self._checkpoint_task is None and self.config.checkpoint_interval > 0:
            self._checkpoint_task = asyncio.ensure_future(self._checkpoint_loop())

    # -- the feed after a resume ------------------------------------------------------------------

    def prepare_feeds(self) -> None:
        """Before the root's feed exports open: on a resume, repair the local JSON-lines feeds
        and find the documents of this job the feed lacks (output again once it is open)."""
        from scrapy import signals

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
                           "writes them all", uri, self.store.url)
        if reference is None:
            return
        self._reemit = checkpoints.missing_documents(self.store, self.store_start, reference[1])
        if self._reemit:
            self.root.signals.connect(self._output_missing, signal=signals.spider_opened)

    def _output_missing(self, spider) -> None:
        """(After the feed exports opened.) The documents the store paid for that the feed lost."""
        from scrapy import signals

        missing, self._reemit = self._reemit, []
        for record in missing:
            self.root.signals.send_catch_log(signal=signals.item_scraped, item=record.to_dict(),
                                             response=None, spider=spider)
        self.root.stats.set_value("newsforagers/resume/output_again", len(missing))
        logger.info("colony: %d document(s) paid for before the stop output again", len(missing))

    def _ended(self, name: str, task) -> None:
        # a retired forager's crawler (its forager, caches, stats) must not outlive it
        self._runners.pop(name, None)
        if name in self.foragers:  # ended without retiring: stopped (shutdown, limits, no start URL)
            self.event("stop", name, None, self.foragers[name])
        self.unregister(name)
        if not task.cancelled() and task.exception() is not None:
            logger.error("forager %s ended with an error: %r", name, task.exception())
        if not self.children_alive:
            # the root may be idle, kept open only for its children: let the engine see it
            self._wake_root()

    def _wake_root(self) -> None:
        engine = getattr(self.root, "engine", None)
        slot = getattr(engine, "_slot", None)
        if slot is not None:
            slot.nextcall.schedule()

    @property
    def children_alive(self) -> bool:
        return any(c is not self.root for c in self.foragers.values())

    # -- items --------------------------------------------------------------------------------

    def forward_item(self, item: Any, response: Any) -> None:
        """A child's novel document goes to the root crawler's feed exports."""
        from scrapy import signals

        spider = getattr(self.root, "spider", None)
        if spider is None or self._closed:
            return
        self.root.signals.send_catch_log(signal=signals.item_scraped, item=item,
                                         response=response, spider=spider)
        self.root.stats.inc_value("newsforagers/colony/forwarded_items")

    # -- record -------------------------------------------------------------------------------

    def event(self, kind: str, forager: str, parent: str | None, crawler: Crawler | None = None,
              **extra: Any) -> None:
        record = {"event": kind, "forager": forager, "parent": parent}
        if isinstance(self.policy, EnergyPolicy):
            record["energy"] = self.policy.energies.get(forager)
        else:
            record["score"] = self.store.get_score(forager)
        record["time"] = datetime.now(UTC).isoformat()
        spider = getattr(crawler, "spider", None) if crawler is not None else None
        sim = getattr(spider, "last_site_time", None)
        record["sim_time"] = sim.isoformat() if sim is not None else None
        record.update(extra)
        if kind in ("retire", "stop") and crawler is not None:
            # a forager's last counts: no periodic snapshot will see it again
            self._snapshot_one(forager, crawler, record["time"], self.store.scores())
            if not self._snapshots.closed:
                self._snapshots.flush()
        if not self._events.closed:
            self._events.write(json.dumps(record) + "\n")
            self._events.flush()
        logger.info("colony: %s %s%s", kind, forager, f" (parent {parent})" if parent else "")

    def snapshot(self) -> None:
        now = datetime.now(UTC).isoformat()
        scores = self.store.scores()
        for name, crawler in list(self.foragers.items()):
            self._snapshot_one(name, crawler, now, scores)
        self._snapshots.flush()
        for key, value in self.memory().items():
            self.root.stats.set_value(f"newsforagers/memory/{key}", value)

    def memory(self) -> dict[str, int]:
        """What the colony's bounded memories hold now (stats ``newsforagers/memory/*``)."""
        sizes = {"claims": self.store.claim_count(), "url_records": self.store.url_count(),
                 "url_records_evicted": self.store.evicted_urls,
                 "claims_expired": self.store.expired_claims, "fetch_cache": len(self.fetches),
                 "foragers_alive": len(self.foragers), "crawlers_held": len(self._runners)}
        if isinstance(self.policy, EnergyPolicy):
            sizes["energy_pages"] = len(self.policy.page_energy)
            sizes["energy_pages_evicted"] = self.policy.evicted_pages
        return sizes

    def _snapshot_one(self, name: str, crawler: Crawler | None, now: str, scores: dict) -> None:
        driver = getattr(getattr(crawler, "spider", None), "forager_driver", None)
        if driver is None or self._snapshots.closed:
            return
        forager = driver.forager
        record = {
            "time": now, "forager": name, "score": scores.get(name),
            "energy": self.policy.energies.get(name) if isinstance(self.policy, EnergyPolicy) else None,
            "sent": forager.counters.sent, "rewarded": forager.counters.rewarded,
            "downloaded": forager.counters.downloaded, "steps": forager.counters.steps,
            "paths": forager.counters.paths,
            "weblog_head": forager.weblog.entries()[:5],
            "weight_norm": float(np.linalg.norm(forager.weights)),
        }
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
        return self._root_running and not self.root.engine.running

    async def stop(self) -> None:
        """Stop every other forager once, wait for all of them, record the stop."""
        if self._stopping:
            await self.join()
            return
        self._stopping = True
        # all at once: each stop waits for that crawler's downloads (its grace at most)
        await asyncio.gather(*(self._stop_runner(runner) for runner in list(self._runners.values())))
        await self.join()

    @staticmethod
    async def _stop_runner(runner) -> None:
        """Stop a runner's crawlers once their engines run. Scrapy's ``Crawler.stop_async`` on a
        crawler still starting (its engine not running yet) marks it stopped and does nothing
        else: its engine then runs on, and when it closes, its crawl waits for a stop already
        spent — the colony's end would wait for ever."""
        for crawler in list(runner.crawlers):
            for _ in range(_START_WAIT_STEPS):
                try:
                    if not crawler.crawling or crawler.engine.running:
                        break
                except RuntimeError:  # Scrapy 2.13+: the engine is not set yet
                    pass
                await asyncio.sleep(_START_WAIT)
        await runner.stop()

    async def join(self) -> None:
        for runner in list(self._runners.values()):
            await runner.join()

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
                                   "documents": self.store.document_count(), "memory": self.memory()}
        if isinstance(self.policy, EnergyPolicy):
            pages = self.policy.pages
            summary["energy"] = {
                "visits": self.policy.visits, "pages": pages,
                "relevant_pages": self.policy.relevant_pages,
                "gaining_pages": self.policy.gaining_pages,
                "relevant_share": self.policy.relevant_pages / pages if pages else None,
                "gaining_share": self.policy.gaining_pages / pages if pages else None,
                "expected_share": self.config.energy_c / (self.config.energy_g + self.config.energy_c),
            }
        return summary

    def close(self) -> None:
        if self._closed:
            return
        self.checkpoint_population()
        self.snapshot()
        for name in list(self.foragers):
            self.event("stop", name, None, self.foragers[name])
        summary = self.summary()
        (self.run_dir / "colony.json").write_text(json.dumps(summary, indent=2) + "\n")
        self._log_summary(summary)
        self._closed = True
        for task in (self._snapshot_task, self._checkpoint_task):
            if task is not None:
                task.cancel()
        self._events.close()
        self._snapshots.close()
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


def _default_run_dir(root: Crawler) -> Path:
    jobdir = root.settings.get("JOBDIR")
    if jobdir:
        return Path(jobdir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path(".newsforagers") / "runs" / f"{stamp}-{os.getpid()}"
