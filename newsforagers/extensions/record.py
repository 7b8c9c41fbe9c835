"""``ColonyRecordExtension``: the colony's record while it runs.

On the crawler that hosts the colony (the root) it writes the colony's periodic snapshots (a
line per live forager of its share of the population, from the counters each shares in the
store) every ``FORAGERS_SNAPSHOT_INTERVAL`` seconds and, with ``JOBDIR``, the population's
checkpoint every ``FORAGERS_CHECKPOINT_INTERVAL`` seconds (:mod:`newsforagers.colony.record`,
:class:`~newsforagers.colony.checkpoint.PopulationCheckpoint`); on every forager's crawler it
counts the sends the reinforcing agent judged, for the colony's summary. Each forager
checkpoints itself (:class:`~newsforagers.driver.Driver`).
"""

from __future__ import annotations

import asyncio
from typing import Callable

from scrapy import signals

from newsforagers import signals as forager_signals
from newsforagers.context import ForagerContext
from newsforagers.extensions.population import forager_context


class ColonyRecordExtension:
    def __init__(self, crawler, context: ForagerContext):
        self.crawler = crawler
        self.context = context
        self._tasks: list[asyncio.Future] = []
        self._sleep = asyncio.sleep  # what the periodic record waits with (a test's own clock)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.reward_received, signal=forager_signals.reward_received)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler, forager_context(crawler, "ColonyRecordExtension"))

    def spider_opened(self, spider) -> None:
        if not self.context.is_root:
            return
        colony = self.context.colony
        config = colony.config
        if config.snapshot_interval > 0:
            self._tasks.append(asyncio.ensure_future(
                self._every(config.snapshot_interval, colony, colony.snapshot)))
        if colony.checkpoint.jobdir is not None and config.checkpoint_interval > 0:
            self._tasks.append(asyncio.ensure_future(
                self._every(config.checkpoint_interval, colony, lambda: self._checkpoint(colony))))

    async def _every(self, interval: float, colony, action: Callable[[], None]) -> None:
        """``action`` every ``interval`` seconds until the colony closes."""
        while not colony.closed:
            await self._sleep(interval)
            if not colony.closed:
                action()

    @staticmethod
    def _checkpoint(colony) -> None:
        # a stopping colony writes its last checkpoint when it closes
        if not colony.stopping:
            colony.checkpoint_population()

    def reward_received(self, rewarded: bool = False, **kwargs) -> None:
        colony = self.context.colony
        if colony is not None:
            colony.record.judged_send(rewarded)

    def spider_closed(self, spider) -> None:
        for task in self._tasks:
            task.cancel()
        self._tasks.clear()
