"""The driver's shared half: the door's common methods, the mind's state and stats, the
snapshots shared with the colony, the encoder's fit on a thread, and the root's closing of the
colony (see :mod:`newsforagers.driver`)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from twisted.internet.defer import Deferred

from newsforagers import signals as forager_signals
from newsforagers.colony.local import snapshot_key
from newsforagers.driver.checkpoints import Checkpointing
from newsforagers.driver.stall import StallWatch
from newsforagers.scrapy_access import wake_engine
from newsforagers.store import ColonyStore

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


logger = logging.getLogger(__name__)


class Driver(Checkpointing):
    """What every strategy's driver does: the mind's state, checkpoints, stats and snapshots,
    the door's shared half, and the root's closing of the colony. No step barrier
    (:class:`PaperDriver` adds one)."""

    def __init__(self, crawler: Crawler, spider: Any, mind: Any, step_timeout: float,
                 store: ColonyStore | None = None, *, colony: Any = None, seeds: list[str] | None = None,
                 model_path: str | None = None):
        self.crawler = crawler
        self.spider = spider  # its ``state`` (Scrapy's SpiderState) and its request builders
        self.mind = mind
        self.step_timeout = step_timeout
        self.store = store  # the colony's: its only channel to the other foragers
        self.colony = colony  # this process's view of the colony (its budget; the root closes it)
        self.seeds = list(seeds or ())
        self.model_path = model_path  # -a model: the encoder came with the forager
        self._shared_at = float("-inf")  # time.monotonic() of the last snapshot shared
        self._timer = None  # the periodic checkpoint (an asyncio task)
        self._restored = False
        jobdir = crawler.settings.get("JOBDIR")
        self.jobdir: Path | None = Path(jobdir) if jobdir else None
        self._seq = 0  # of the last checkpoint written or restored
        self._encoder_saved = False  # a bootstrapped encoder is in JOBDIR/encoder.joblib
        # a checkpoint is taken on the reactor's thread (a consistent memory) and written to
        # disk on another (fsync can take long); writes take turns, the last one is synchronous
        self._write_lock = threading.Lock()
        self._writing = False
        self._pending: bytes | None = None
        self._final = False
        self.stall = StallWatch(crawler, step_timeout)  # the one stall detector (driver/stall.py)
        self._wake = None  # the pending wake-up of the engine (a Twisted DelayedCall)
        crawler.signals.connect(self.reward_received, signal=forager_signals.reward_received)

    @property
    def name(self) -> str:
        return self.mind.name

    @property
    def done(self) -> bool:
        return self.mind.done

    def next_step_request(self):
        """The mind's next request as a Scrapy request, or None while the forager waits
        (each strategy's driver; a wait :attr:`stall` ends counts as failed answers there)."""
        raise NotImplementedError

    def reward_received(self, forager: str, origin: Any, profit: float, rewarded: bool, **kwargs) -> None:
        """The reinforcing agent's answer for one of this forager's sends (each strategy's driver)."""
        raise NotImplementedError

    # -- the door: what the spider hands over ------------------------------------------------

    def should_send(self, url: str, published: datetime | None, now: datetime) -> bool:
        """Alg. 5 (the mind's): whether the page at ``url`` goes to the reinforcing agent."""
        return self.mind.should_send(url, published, now)

    def spider_closed(self) -> None:
        """After the scheduler's close: keep the mind's memory in spider.state for SpiderState."""
        if self._restored:
            self.save_state()

    # -- the door: what the extensions, the pipeline and the download handler ask ------------

    @property
    def retired(self) -> bool:
        return self.mind.retired

    def retire(self) -> None:
        """The population policy retired this forager: for good (not respawned after a stop)."""
        self.mind.retired = True

    @property
    def mode(self) -> str:
        return self.mind.mode

    @property
    def weblog_size(self) -> int:
        return len(self.mind.weblog)

    def teleport(self, url: str) -> None:
        """The energy policy: start the next path (visit next) at ``url``."""
        self.mind.teleport(url)

    def energy_relevance(self, profit: float, value: float, relevance: float | None = None) -> float:
        """A finished step's relevance for the energy policy (one draw of the mind's generator)."""
        return self.mind.energy_relevance(profit, value, relevance)

    def hand_back(self) -> list[dict]:
        """What a retiring forager hands back to the colony (its listings, for others to
        adopt). The papers' forager hands back nothing: every one of its foragers starts from
        every seed (Alg. 9), so none is left without a forager when one retires."""
        return []

    def split_child(self) -> dict:
        """What a split's child is born with (Alg. 6; the mind keeps the rest): its
        ``weblog`` (a dictionary), ``weights`` (a list) and ``seeds`` (the weblog's URLs, or
        this forager's seeds when it is empty), with the sizes for the colony's record."""
        before = len(self.mind.weblog)
        weblog, weights = self.mind.inherit()
        seeds = [url for url, _ in weblog.entries()] or list(self.seeds)
        return {"weblog": weblog.to_dict(), "weights": np.asarray(weights).tolist(), "seeds": seeds,
                "weblog_before": before, "weblog_child": len(weblog), "weblog_parent": len(self.mind.weblog)}

    # -- the scheduler's side ------------------------------------------------------------

    def _fit_in_background(self) -> None:
        """Fit the forager's encoder beside the crawl: a fit takes a second or two of CPU, and on
        the reactor's thread it would stall every forager of the process meanwhile. In the
        colony's worker process (``fits``, :mod:`newsforagers.pages.workers`) when it has one and
        Scrapy runs on asyncio; otherwise — and when no worker can take it — on a thread, which
        holds the interpreter for much of the fit (every host of the process waited a second or
        two: docs/benchmarks.md, *Encoder fits in a worker process*)."""
        from twisted.internet.threads import deferToThread

        texts, self.mind.fit_request = self.mind.fit_request, None
        running = self._fit_in_worker(texts)
        where = "worker process" if running is not None else "thread"
        logger.info("forager %s: fitting the state encoder on %d probed pages (%s)", self.name, len(texts), where)

        def fitted(encoder):
            self.mind.encoder_fitted(encoder, len(texts))
            if self.jobdir is not None:
                deferToThread(self._save_encoder, encoder).addErrback(
                    lambda failure: logger.error("forager %s: cannot save its state encoder: %s",
                                                 self.name, failure.getErrorMessage()))

        def failed(failure):
            if failure.check(ValueError):
                self.mind.encoder_failed(texts, failure.value)
            else:
                logger.error("forager %s: encoder fit failed: %s", self.name, failure.getErrorMessage())
                self.mind.encoder_failed(texts, failure.value)

        def on_thread(encoder):
            # None: the worker could not take it (closed, stopped meanwhile)
            return encoder if encoder is not None else deferToThread(self.mind.fit, texts)

        fit = running.addCallback(on_thread) if running is not None else deferToThread(self.mind.fit, texts)
        fit.addCallbacks(fitted, failed)

    def _fit_in_worker(self, texts: list[str]):
        """A Deferred of the fit of ``texts`` in the colony's worker process — it fires with the
        encoder, or with None when the worker could not take it — or None when there is no
        worker to ask."""
        import asyncio

        from twisted.internet.defer import Deferred

        workers = getattr(self.colony, "fits", None)
        function = getattr(getattr(self.mind, "bootstrap", None), "function", None)
        if workers is None or workers.closed or function is None:
            return None
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # not on an asyncio loop (a non-asyncio reactor, a test)
            return None
        return Deferred.fromFuture(asyncio.ensure_future(workers.call(function, texts)))

    def _wake_in(self, delay: float) -> None:
        """Wake the engine in ``delay`` wall seconds (or sooner, if already planned): its
        heartbeat (5 s) would be ages on an accelerated site, or for a wait about to end."""
        from twisted.internet import reactor

        if self._wake is not None and self._wake.active():
            if self._wake.getTime() - reactor.seconds() <= delay:
                return
            self._wake.cancel()
        self._wake = reactor.callLater(delay, self._wake_engine)

    def _wake_engine(self) -> None:
        self._wake = None
        wake_engine(self.crawler)

    def finish(self):
        """The scheduler is closing: final stats, the saved state, and why the forager stopped.

        For the root forager of a colony, returns a Deferred that fires once every other
        forager has been stopped and has ended (so its documents still reach the root's feed).
        """
        if self._wake is not None and self._wake.active():
            self._wake.cancel()
        if len(self.mind.weblog) == 0:
            logger.error("forager %s: no starting URL left in the weblog; stopped", self.name)
        if self._timer is not None:
            self._timer.cancel()
        self._update_stats()
        self.share_snapshot(force=True)
        if self._restored:
            self.save_state()
            self.checkpoint(final=True)
        colony = self.colony
        if colony is not None and colony.root is self.crawler:
            async def close_colony():
                await colony.stop()
                # what the others were paid for until they ended, before the feed closes
                colony.output_new_documents()
                colony.close()
                # this process's requests to the store's server (docs/benchmarks.md)
                self.crawler.stats.set_value("newsforagers/store/calls", colony.store.calls)

            return Deferred.fromFuture(asyncio.ensure_future(close_colony()))
        return None

    # -- what the colony sees of this forager (through the store) ---------------------------------

    def share_snapshot(self, force: bool = False) -> None:
        """Share the forager's counters with the colony's record (the store's
        ``snapshot/NAME``): at most every half ``FORAGERS_SNAPSHOT_INTERVAL``, or now."""
        if self.store is None:
            return
        interval = self.mind.config.snapshot_interval
        now = time.monotonic()
        if not force and (interval <= 0 or now - self._shared_at < interval / 2.0):
            return
        self._shared_at = now
        counters = self.mind.counters
        self.store.put_value(snapshot_key(self.name), {
            "sent": counters.sent, "rewarded": counters.rewarded,
            "downloaded": counters.downloaded, "steps": counters.steps, "paths": counters.paths,
            "weblog_head": self.mind.weblog.entries()[:5],
            "weight_norm": float(np.linalg.norm(self.mind.weights)),
        })

    def _walk_summary(self) -> str:
        return ""

    def _update_stats(self) -> None:
        stats = self.crawler.stats
        counters = asdict(self.mind.counters)
        td_updates = counters.pop("td_updates")
        td_error_sum = counters.pop("td_error_abs_sum")
        for key, value in counters.items():
            stats.set_value(f"newsforagers/{key}", value)
        stats.set_value("newsforagers/td_updates", td_updates)
        if td_updates:
            stats.set_value("newsforagers/td_error_mean_abs", td_error_sum / td_updates)
        stats.set_value("newsforagers/weight_norm", float((self.mind.weights ** 2).sum() ** 0.5))
        stats.set_value("newsforagers/weblog_size", len(self.mind.weblog))
        self.share_snapshot()

