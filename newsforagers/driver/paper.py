"""The papers' forager's driver: a step request when the step barrier opens, the step's
probes from its page (see :mod:`newsforagers.driver`)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

from scrapy import Request

from newsforagers import signals as forager_signals
from newsforagers.driver.base import Driver
from newsforagers.learning.bounded import Bounded

if TYPE_CHECKING:
    pass


logger = logging.getLogger(__name__)

# Step pages whose topic relevance waits for their step to finish (a path's 100 steps, each
# finishing once its probes are in, never leave more than a few waiting)
STEP_RELEVANCE_MAX = 1_000


class PaperDriver(Driver):
    """The driver of the papers' forager (:class:`~newsforagers.strategies.paper.PaperMind`): a
    step request when the step barrier opens, the step's probes from its page."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the topic relevance of the step pages read, until their steps finish (topical mode)
        self._step_relevance: Bounded[str, float] = Bounded(STEP_RELEVANCE_MAX)

    def next_step_request(self) -> Request | None:
        if not self._restored:
            self._restore()
        self._start_checkpoints()
        if self.mind.busy and self._barrier_holds():
            return None
        paths_before = self.mind.counters.paths
        url = self.mind.next_step()
        if self.mind.fit_request is not None:
            self._fit_in_background()
        self._steps_finished()
        if self.mind.counters.paths != paths_before:
            self._path_finished()
        self._update_stats()
        if url is None:
            return None
        step = self.mind.step
        self.stall.restart(self.mind.waiting)
        # a step reads the page's links as they are now: a listing (or a page not known to be an
        # article) never comes from Scrapy's HTTP cache
        return self.spider.make_request(url, "step", step.path_id, step.index, fresh=not self.mind.is_article(url))

    def _barrier_holds(self) -> bool:
        """The step barrier: True while the step waits for its page or probes and the stall
        watch has not ended the wait (a page dropped by a middleware before it reached us, a
        redirect filtered as off-site, or ``FORAGERS_STEP_TIMEOUT`` without an answer: the
        missing pages count as failed)."""
        outcome, recheck = self.stall.check(self.mind.waiting)
        if outcome is None:
            self._wake_in(max(0.05, recheck))
            return True
        missing = self.mind.abandon_step()
        if missing:
            self.crawler.stats.inc_value(f"newsforagers/step/abandoned/{outcome}", missing)
            logger.debug("forager %s: %d page(s) of the step %s", self.name, missing, outcome)
        return False

    # -- the door: what the spider hands over ------------------------------------------------

    def step_page(self, url: str, text: str, links: list[str], relevance: float | None = None) -> list[str]:
        """The step page arrived: the probes to download (Alg. 12). ``relevance``: the page's
        to the topic (the topical mode), for the energy policy when the step finishes."""
        if relevance is not None:
            self._step_relevance[url] = relevance
        return self.mind.on_step_page(url, text, links)

    def step_failed(self, url: str) -> None:
        self.mind.on_step_failed(url)

    def probe_page(self, url: str, text: str, published: datetime | None) -> None:
        self.mind.on_probe_page(url, text, published)

    def probe_failed(self, url: str) -> None:
        self.mind.on_probe_failed(url)

    def reward_received(self, forager: str, origin: Any, profit: float, rewarded: bool, **kwargs) -> None:
        if forager == self.name:
            # the send's path and step (the spider's ``_send_item``); anything else is late
            path, step = origin if isinstance(origin, (tuple, list)) and len(origin) == 2 else (-1, -1)
            self.mind.on_reward(path, step, profit, rewarded)

    def _walk_summary(self) -> str:
        path = self.mind.path
        return f"path of {len(path.steps)} steps, frontier of {path.frontier_size} URLs"

    def _steps_finished(self) -> None:
        finished, self.mind.finished_steps = self.mind.finished_steps, []
        for url, profit, value in finished:
            # the step page's topic relevance (topical mode), None without a topic
            relevance = self._step_relevance.pop(url, None)
            self.crawler.signals.send_catch_log(forager_signals.step_finished, forager=self.name,
                                               url=url, profit=profit, value=value,
                                               relevance=relevance)

    def _path_finished(self) -> None:
        path = self.mind.last_path
        self.save_state()
        self.checkpoint()
        self.crawler.signals.send_catch_log(
            forager_signals.path_finished, forager=self.name, path=path["id"],
            steps=path["steps"], profit=path["profit"],
        )

