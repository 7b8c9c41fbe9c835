"""``ColonyRecordExtension``: the colony's record while it runs.

On the root forager's crawler it starts the colony's periodic snapshots (a line per live
forager of the population, from the counters each shares in the store) and population
checkpoints (with ``JOBDIR``); on every forager's crawler it counts the sends the reinforcing
agent judged, for the colony's summary. Each forager checkpoints itself
(:class:`~newsforagers.driver.ForagerDriver`).
"""

from __future__ import annotations

from scrapy import signals

from newsforagers import signals as forager_signals
from newsforagers.context import ForagerContext
from newsforagers.extensions.population import forager_context


class ColonyRecordExtension:
    def __init__(self, crawler, context: ForagerContext):
        self.crawler = crawler
        self.context = context
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.reward_received, signal=forager_signals.reward_received)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler, forager_context(crawler, "ColonyRecordExtension"))

    def _colony(self):
        return self.context.colony

    def spider_opened(self, spider) -> None:
        colony = self._colony()
        if colony is not None and colony.root is self.crawler:
            colony.start_snapshots()
            colony.start_checkpoints()

    def reward_received(self, rewarded: bool = False, **kwargs) -> None:
        colony = self._colony()
        if colony is not None:
            colony.judged_send(rewarded)
