"""The thin layer between Scrapy and a :class:`~newsforagers.forager.Forager`.

The scheduler asks it for step requests and whether the step barrier holds; the spider's
callbacks hand it what pages say; the reinforcing agent's ``reward_received`` signal comes
back through it. It turns the forager's URLs into Scrapy requests, its counters into stats,
and keeps its long-term memory in ``spider.state`` (persisted by Scrapy's SpiderState
extension under JOBDIR when the spider closes).

A crash never closes the spider, so with JOBDIR the driver also writes checkpoints
(``JOBDIR/forager.json``, atomically, see :mod:`newsforagers.colony.checkpoint`): when a path
ends, every ``FORAGERS_CHECKPOINT_INTERVAL`` seconds (the colony asks) and on close. A bootstrapped
state encoder is saved once beside it (``encoder.joblib``): the weights and the path's state
rows mean something only with the encoder that made them. On start the newest valid checkpoint
is restored — weblog, weights, sent memory, counters, the path and its frontier, the step in
progress (walked again) — else the spider state of a clean stop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit
from typing import TYPE_CHECKING, Any

import numpy as np
from scrapy import Request
from twisted.internet.defer import Deferred

from newsforagers import signals as forager_signals
from newsforagers.colony.checkpoint import (ENCODER_FILE, FORAGER_FILE, encode_checkpoint,
                                            read_checkpoint, replace_atomically, write_checkpoint)
from newsforagers.colony.local import SITE_CLOCK, site_time_now, snapshot_key
from newsforagers.forager import Forager
from newsforagers.learning.schedule import ENTRY_FIELDS, Entry
from newsforagers.scrapy_access import requests_in_flight, wake_engine
from newsforagers.store import ColonyStore

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

STATE_KEY = "forager"
#: A listing's weblog entry, shared with the colony: a per-URL record of the store (bounded as
#: they are) under its own key, apart from the URL's own record (whose absence means "not
#: queued by any forager yet").
LISTING_KEY = "listing:"
LISTING_FIELD = "entry"


class ForagerDriver:
    def __init__(self, crawler: Crawler, spider: Any, forager: Forager, step_timeout: float,
                 store: ColonyStore | None = None):
        self.crawler = crawler
        self.spider = spider
        self.forager = forager
        self.step_timeout = step_timeout
        self.store = store  # the colony's: its only channel to the other foragers
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
        crawler.signals.connect(self.reward_received, signal=forager_signals.reward_received)

    @property
    def name(self) -> str:
        return self.forager.name

    @property
    def done(self) -> bool:
        return self.forager.done

    @property
    def busy(self) -> bool:
        return self.forager.busy

    # -- the scheduler's side ------------------------------------------------------------

    def next_step_request(self) -> Request | None:
        if not self._restored:
            self._restore()
        self._start_checkpoints()
        paths_before = self.forager.counters.paths
        url = self.forager.next_step()
        if self.forager.fit_request is not None:
            self._fit_in_background()
        self._steps_finished()
        if self.forager.counters.paths != paths_before:
            self._path_finished()
        self._update_stats()
        if url is None:
            return None
        step = self.forager.step
        return self.spider.make_request(url, "step", step.path_id, step.index)

    def _fit_in_background(self) -> None:
        """Fit the forager's encoder on a thread: a fit takes seconds of CPU, and on the
        reactor's thread it would stall every forager of the process meanwhile."""
        from twisted.internet.threads import deferToThread

        texts, self.forager.fit_request = self.forager.fit_request, None
        logger.info("forager %s: fitting the state encoder on %d probed pages (thread)", self.name, len(texts))

        def fitted(encoder):
            self.forager.encoder_fitted(encoder, len(texts))
            if self.jobdir is not None:
                deferToThread(self._save_encoder, encoder).addErrback(
                    lambda failure: logger.error("forager %s: cannot save its state encoder: %s",
                                                 self.name, failure.getErrorMessage()))

        def failed(failure):
            if failure.check(ValueError):
                self.forager.encoder_failed(texts, failure.value)
            else:
                logger.error("forager %s: encoder fit failed: %s", self.name, failure.getErrorMessage())
                self.forager.encoder_failed(texts, failure.value)

        deferToThread(self.forager.fit, texts).addCallbacks(fitted, failed)

    def abandon_step(self) -> int:
        return self.forager.abandon_step()

    def finish(self):
        """The scheduler is closing: final stats, the saved state, and why the forager stopped.

        For the root forager of a colony, returns a Deferred that fires once every other
        forager has been stopped and has ended (so its documents still reach the root's feed).
        """
        if len(self.forager.weblog) == 0:
            logger.error("forager %s: no starting URL left in the weblog; stopped", self.name)
        if self._timer is not None:
            self._timer.cancel()
        self._update_stats()
        self.share_snapshot(force=True)
        if self._restored:
            self.save_state()
            self.checkpoint(final=True)
        colony = getattr(self.spider, "colony", None)
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
        interval = self.forager.config.snapshot_interval
        now = time.monotonic()
        if not force and (interval <= 0 or now - self._shared_at < interval / 2.0):
            return
        self._shared_at = now
        counters = self.forager.counters
        self.store.put_value(snapshot_key(self.name), {
            "sent": counters.sent, "rewarded": counters.rewarded,
            "downloaded": counters.downloaded, "steps": counters.steps, "paths": counters.paths,
            "weblog_head": self.forager.weblog.entries()[:5],
            "weight_norm": float(np.linalg.norm(self.forager.weights)),
        })

    def _start_checkpoints(self) -> None:
        """Checkpoint every ``FORAGERS_CHECKPOINT_INTERVAL`` seconds (with JOBDIR)."""
        interval = self.forager.config.checkpoint_interval
        if self._timer is not None or self.jobdir is None or interval <= 0 or self._final:
            return

        async def loop():
            while not self._final:
                await asyncio.sleep(interval)
                if not self._final:
                    self.checkpoint()

        self._timer = asyncio.ensure_future(loop())

    # -- the reinforcing agent's answers ---------------------------------------------------

    def reward_received(self, forager: str, path: int, step: int, profit: float, rewarded: bool, **kwargs) -> None:
        if forager == self.name:
            self.forager.on_reward(path, step, profit, rewarded)

    # -- state and stats -------------------------------------------------------------------

    def _restore(self) -> None:
        """The spider state of a clean stop, when no checkpoint was restored at build time."""
        self._restored = True
        state = self._spider_state()
        saved = state.get(STATE_KEY)
        if saved:
            try:
                # the path's rows need the encoder that made them: only a checkpoint has both
                self.forager.restore(saved, path=False)
                logger.info("forager %s: resumed with a weblog of %d URLs", self.name, len(self.forager.weblog))
            except (KeyError, TypeError, ValueError) as exc:
                logger.error("forager %s: saved state unusable (%s); starting from the seeds", self.name, exc)
        self.save_state()

    def resume(self) -> bool:
        """Restore the newest valid checkpoint in JOBDIR, if any (called when the driver is
        built, before the forager joins the colony). True when one was restored."""
        if self.jobdir is None:
            return False
        saved = read_checkpoint(self.jobdir / FORAGER_FILE)
        if saved is None:
            return False
        try:
            with_path = self._resume_encoder(saved.get("encoder"))
            self.forager.restore(saved, path=with_path)
        except (KeyError, TypeError, ValueError) as exc:
            logger.error("forager %s: checkpoint unusable (%s); starting from the spider state or the seeds",
                         self.name, exc)
            return False
        self._seq = int(saved["seq"])
        self._restored = True
        self.save_state()
        forager = self.forager
        logger.info("forager %s: resumed from checkpoint %d: weblog of %d URLs, weight norm %.9f, %s%s",
                    self.name, self._seq, len(forager.weblog), float((forager.weights ** 2).sum() ** 0.5),
                    self._walk_summary(), ", retired" if forager.retired else "")
        self.crawler.stats.set_value("newsforagers/resume/checkpoint", self._seq)
        return True

    def _walk_summary(self) -> str:
        path = self.forager.path
        return f"path of {len(path.steps)} steps, frontier of {path.frontier_size} URLs"

    def _resume_encoder(self, kind: str | None) -> bool:
        """Put back the encoder the checkpoint was taken with; False when the saved path must
        be dropped (its state rows came from an encoder this forager does not have)."""
        has_model = getattr(self.spider, "model_path", None) is not None
        if kind == "model":
            return has_model
        if kind == "bootstrapped" and not has_model:
            # (imported when first needed: scikit-learn takes a second to import)
            from newsforagers.text import StateEncoder

            try:
                encoder = StateEncoder.load(self.jobdir / ENCODER_FILE)
            except (OSError, ValueError) as exc:
                logger.warning("forager %s: saved state encoder unusable (%s); fitting a new one",
                               self.name, exc)
                return False
            # set directly: a paper forager given a new encoder would close its path
            self.forager.encoder = encoder
            self._encoder_saved = True
            return True
        return kind is None and not has_model and self.forager.encoder is None

    def _encoder_kind(self) -> str | None:
        if getattr(self.spider, "model_path", None) is not None:
            return "model"
        if self.forager.encoder is not None and self._encoder_saved:
            return "bootstrapped"
        return None

    def _save_encoder(self, encoder) -> None:
        """(On a thread.) The bootstrapped encoder, once, beside the checkpoints."""
        import joblib

        replace_atomically(self.jobdir / ENCODER_FILE, lambda out: joblib.dump(encoder, out))
        self._encoder_saved = True

    def checkpoint(self, final: bool = False) -> None:
        """Write the forager's whole memory to JOBDIR/forager.json, atomically: on a thread,
        or at once when ``final`` (closing; nothing is written after it)."""
        if self.jobdir is None or not self._restored or self._final:
            return
        kind = self._encoder_kind()
        state = self.forager.to_state()
        if kind is None and self.forager.encoder is not None:
            # fitted, not yet saved: the rows would be meaningless to the next encoder
            state["path"], state["step"] = None, None
        self._seq += 1
        payload = encode_checkpoint({
            "seq": self._seq, "time": time.time(), "forager": self.name,
            "strategy": getattr(self.forager, "strategy", "paper"), "encoder": kind, **state})
        if final:
            self._final = True
            self._written(self._write(payload))
            return
        if self._writing:
            self._pending = payload  # the newest waits for the write in progress
            return
        self._write_later(payload)

    def _write_later(self, payload: bytes) -> None:
        from twisted.internet.threads import deferToThread

        self._writing = True

        def written(ok):
            self._writing = False
            self._written(ok is True)
            pending, self._pending = self._pending, None
            if pending is not None and not self._final:
                self._write_later(pending)

        deferToThread(self._write, payload).addBoth(written)

    def _write(self, payload: bytes) -> bool:
        with self._write_lock:
            try:
                write_checkpoint(self.jobdir / FORAGER_FILE, payload)
            except OSError as exc:
                logger.error("forager %s: cannot write its checkpoint: %s", self.name, exc)
                return False
        return True

    def _written(self, ok: bool) -> None:
        self.crawler.stats.inc_value("newsforagers/checkpoints" if ok else "newsforagers/checkpoints/failed")

    def _spider_state(self) -> dict:
        state = getattr(self.spider, "state", None)
        if not isinstance(state, dict):
            state = {}
            self.spider.state = state
        return state

    def save_state(self) -> None:
        # the spider state keeps the long-term memory only (see _restore)
        self._spider_state()[STATE_KEY] = self.forager.to_state(path=False)

    def _steps_finished(self) -> None:
        finished, self.forager.finished_steps = self.forager.finished_steps, []
        relevances = getattr(self.spider, "step_relevance", None)
        for url, profit, value in finished:
            # the step page's topic relevance (topical mode), None without a topic
            relevance = relevances.pop(url, None) if relevances else None
            self.crawler.signals.send_catch_log(forager_signals.step_finished, forager=self.name,
                                               url=url, profit=profit, value=value,
                                               relevance=relevance)

    def _path_finished(self) -> None:
        path = self.forager.last_path
        self.save_state()
        self.checkpoint()
        self.crawler.signals.send_catch_log(
            forager_signals.path_finished, forager=self.name, path=path["id"],
            steps=path["steps"], profit=path["profit"],
        )

    def _update_stats(self) -> None:
        stats = self.crawler.stats
        counters = asdict(self.forager.counters)
        td_updates = counters.pop("td_updates")
        td_error_sum = counters.pop("td_error_abs_sum")
        for key, value in counters.items():
            stats.set_value(f"newsforagers/{key}", value)
        stats.set_value("newsforagers/td_updates", td_updates)
        if td_updates:
            stats.set_value("newsforagers/td_error_mean_abs", td_error_sum / td_updates)
        stats.set_value("newsforagers/weight_norm", float((self.forager.weights ** 2).sum() ** 0.5))
        stats.set_value("newsforagers/weblog_size", len(self.forager.weblog))
        self.share_snapshot()


#: Wall seconds for which Scrapy must hold none of a scheduled forager's unanswered requests
#: before they count as dropped (a response between the downloader and the spider's callback
#: is never seen missing, but a margin costs nothing).
_DROPPED_AFTER = 0.2
#: Wall seconds between two shares of an unchanged listing demand.
_SHARE_DEMAND_EVERY = 5.0


class ScheduledDriver(ForagerDriver):
    """The driver of a :class:`~newsforagers.scheduled.ScheduledForager`: no step barrier, a
    request whenever the mind has one, and a wake-up of the engine when the next listing is due
    (the mind idles in simulated time; ``clock`` turns that into wall time)."""

    def __init__(self, crawler: Crawler, spider: Any, forager: Any, step_timeout: float, clock: Any,
                 store: ColonyStore):
        super().__init__(crawler, spider, forager, step_timeout, store)
        self.clock = clock
        self._demand: float | None = None  # the listing demand last shared in the store
        self._demand_at = float("-inf")  # time.monotonic() when it was
        self._wake = None  # the pending wake-up (a Twisted DelayedCall)
        self.in_flight_cap = forager.config.schedule_in_flight
        # An unanswered request holds the forager no longer than Scrapy itself waits for one
        # download: a response that stalls after its headers is Scrapy's to time out, and the
        # forager's next request is decided meanwhile (its retry comes back as any answer)
        download_timeout = crawler.settings.getfloat("DOWNLOAD_TIMEOUT", 0.0)
        self.hold_limit = min(step_timeout, download_timeout) if download_timeout > 0 else step_timeout
        rate = self._host_rate()
        # while the cap holds, look again about when the host budget lets the next request go
        self._recheck = 1.0 / rate if rate > 0 else 0.05
        self._answers = (forager.in_flight, time.monotonic())  # (in flight, when it last moved)
        self._missing_since: float | None = None  # when Scrapy was first seen holding none of them
        forager.colony_entry = self._colony_entry

    @property
    def busy(self) -> bool:
        return False

    def next_step_request(self) -> Request | None:
        if not self._restored:
            self._restore()
        self._start_checkpoints()
        if self._held():
            return None
        if not self.clock.ready and not self._borrow_clock() and self.forager.in_flight:
            self._wake_in(self._recheck)  # the first answer will say what time the site has
            return None
        self.forager.poll_rate = self._poll_rate()
        fetch = self.forager.next_fetch(self.clock.now())
        if self.forager.fit_request is not None:
            self._fit_in_background()
        self._update_stats()
        if fetch is None:
            # wake the engine when the next listing is due: its heartbeat (5 s) would be
            # ages on an accelerated site (50 simulated minutes at speed 600)
            if not self.forager.done:
                self._wake_later(self.forager.wait)
            return None
        self._answers = (self.forager.in_flight, time.monotonic())
        return self.spider.make_fetch_request(fetch)

    def _borrow_clock(self) -> bool:
        """Set the site's clock from the colony's last reading of it, in the store (a forager
        born in a split has not read it yet: its visits would be dated by the system clock,
        years away from a replay's, and its listings never due again)."""
        now = site_time_now(self.store.get_value(SITE_CLOCK), time.time())
        if now is None:
            return False
        self.clock.observe(datetime.fromisoformat(now))
        return True

    def _colony_entry(self, url: str):
        """The colony's weblog entry for ``url`` as its forager last shared it in the store (a
        listing a split gave away), or None."""
        shared = (self.store.get_url(LISTING_KEY + url) or {}).get(LISTING_FIELD)
        if not isinstance(shared, dict):
            return None
        try:
            return Entry(**{name: shared[name] for name in ENTRY_FIELDS if name in shared})
        except TypeError:
            return None

    def page_read(self, fetch: Any) -> None:
        """After a listing visit: share its weblog entry with the colony (the store's per-URL
        record), so that a successor link another forager meets takes it over."""
        if fetch.kind != "listing":
            return
        entry = self.forager.schedule.entry(fetch.url)
        if entry is not None:
            evicted = self.store.evicted_urls
            self.store.put_url(LISTING_KEY + fetch.url, {LISTING_FIELD: asdict(entry)})
            if self.store.evicted_urls > evicted:
                self.crawler.stats.inc_value("newsforagers/store/url_records_evicted",
                                             self.store.evicted_urls - evicted)

    def _share_demand(self, own: float) -> None:
        # when it changes, and now and then (a member that joins again after its lease ran
        # out has no fields left)
        now = time.monotonic()
        if own != self._demand or now - self._demand_at >= _SHARE_DEMAND_EVERY:
            self._demand, self._demand_at = own, now
            self.store.update_member(self.name, {"demand": own})

    def _poll_rate(self) -> float | None:
        """Listing visits per simulated hour this forager may make: ``FORAGERS_SCHEDULE_POLL_SHARE``
        of the colony's host budget (``FORAGERS_HOST_RATE`` requests per wall second, the site's
        clock ``speed`` times faster), times this forager's share of the colony's listing
        demand (``HubSchedule.demand``: one threshold for the whole colony, so a forager
        holding quiet listings does not spend as much as one holding the day's busiest; each
        forager shares its own in the store). None without a budget, or while none of its
        listings has paid."""
        config = self.forager.config
        own = self.forager.schedule.demand()
        self._share_demand(own)
        rate = self._host_rate()
        if rate <= 0 or config.schedule_poll_share <= 0:
            return None
        if own <= 0:
            return None
        members = self.store.members(time.time())
        total = own + sum(float(m.fields.get("demand") or 0.0) for name, m in members.items()
                          if name != self.name)
        per_hour = rate * 3600.0 / self.clock.speed
        return config.schedule_poll_share * per_hour * own / total

    def _host_rate(self) -> float:
        """Requests per wall second the colony's budget allows the site (its first seed's
        host): ``FORAGERS_HOST_RATE`` with ``DOWNLOAD_DELAY`` and ``DOWNLOAD_SLOTS`` folded in."""
        budget = getattr(getattr(self.spider, "colony", None), "budget", None)
        seeds = getattr(self.spider, "seeds", None)
        if budget is None or not seeds:
            return self.forager.config.host_rate
        return budget.rate_of((urlsplit(seeds[0]).hostname or "").lower())

    def _held(self) -> bool:
        """True while the forager has ``FORAGERS_SCHEDULE_IN_FLIGHT`` requests unanswered: its
        next request is decided when one comes back (the budget would only hold it in the
        downloader's queue, behind requests decided earlier). A request never answered (lost
        to a middleware, or stalled on a hostile site) holds it for ``step_timeout`` or
        ``DOWNLOAD_TIMEOUT`` wall seconds at most, whichever is shorter."""
        in_flight = self.forager.in_flight
        if not self.in_flight_cap or in_flight < self.in_flight_cap:
            return False
        now = time.monotonic()
        if requests_in_flight(self.crawler):
            self._missing_since = None
        elif self._missing_since is None:
            self._missing_since = now
        elif now - self._missing_since >= _DROPPED_AFTER:
            # none has been anywhere in Scrapy for a while: dropped without an answer (an
            # off-site redirect); they count as failed, and the next request is decided now
            self._missing_since = None
            lost = self.forager.requests_lost()
            self.crawler.stats.inc_value("newsforagers/scheduled/dropped", lost)
            return False
        if in_flight != self._answers[0]:
            self._answers = (in_flight, now)
        if now - self._answers[1] > self.hold_limit:
            self.crawler.stats.inc_value("newsforagers/scheduled/unanswered")
            return False
        self._wake_in(self._recheck)
        return True

    def abandon_step(self) -> int:
        return 0

    def _walk_summary(self) -> str:
        return f"harvest queue of {len(self.forager._harvest)} URLs"

    def _wake_later(self, wait: float) -> None:
        if wait == float("inf"):
            return
        self._wake_in(max(0.05, wait / self.clock.speed))

    def _wake_in(self, delay: float) -> None:
        """Wake the engine in ``delay`` wall seconds (or sooner, if already planned)."""
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
        if self._wake is not None and self._wake.active():
            self._wake.cancel()
        return super().finish()

    def reward_received(self, forager: str, path: int, step: int, profit: float, rewarded: bool,
                        relevance: float | None = None, **kwargs) -> None:
        if forager == self.name:
            # the topical mode: a listing is credited for the documents on the topic it led to
            on_topic = relevance is None or relevance >= self.forager.config.topic_min_relevance
            self.forager.on_reward(path, profit, rewarded, on_topic)
