"""``ColonyHostExtension``: the root forager's crawler hosts its share of the colony's output.

The crawler started by ``scrapy crawl forager`` (the root) holds the user's feed exports
(``-O``, ``FEEDS``). What the other foragers of its host output — the items their own
``ITEM_PIPELINES`` let through, written to the store by
:class:`~newsforagers.extensions.output.OutputExtension` — reaches them from the store
(:class:`~newsforagers.colony.feed.ColonyFeed`), never by firing another crawler's signals:
every :data:`FEED_EVERY` seconds, when the root is idle, and once more after the last forager
has ended. The root stays open while its other foragers live (``DontCloseSpider``), so one feed
receives its whole share; when it closes, it stops them all, once (its scheduler's close,
:class:`~newsforagers.driver.Driver`). From its opening on, the leases of this process's
foragers are renewed (:class:`~newsforagers.colony.membership.Membership`).
"""

from __future__ import annotations

import asyncio
import logging

from scrapy import signals
from scrapy.exceptions import DontCloseSpider

from newsforagers.context import ForagerContext
from newsforagers.extensions.population import forager_context

logger = logging.getLogger(__name__)

#: Wall seconds between two looks at the store for the other foragers' new documents.
FEED_EVERY = 0.5


class ColonyHostExtension:
    def __init__(self, crawler, context: ForagerContext):
        self.crawler = crawler
        self.context = context
        self._task = None
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler, forager_context(crawler, "ColonyHostExtension"))

    def _hosted_colony(self):
        """The colony this crawler hosts (it is the root), else None."""
        return self.context.colony if self.context.is_root else None

    def spider_opened(self, spider) -> None:
        colony = self._hosted_colony()
        if colony is not None:
            colony.membership.start_leases()
            self._task = asyncio.ensure_future(self._follow(colony))

    async def _follow(self, colony) -> None:
        while True:
            await asyncio.sleep(FEED_EVERY)
            colony.output_new_documents()

    def spider_idle(self, spider) -> None:
        colony = self._hosted_colony()
        if colony is None:
            return
        colony.output_new_documents()
        if colony.children_alive:
            raise DontCloseSpider

    def spider_closed(self, spider) -> None:
        if self._task is not None:
            self._task.cancel()
