"""``ForagerScheduler``: a Scrapy scheduler that walks a forager's paths (Alg. 11-12).

With a forager spider, it releases the current step's probes as soon as they are enqueued,
holds the next step back until every probe of the current one is in (the step barrier), then
asks the forager for the next step — the frontier URL with the highest ``w·s``. With any other
spider, and for requests without ``forager_*`` meta, it is Scrapy's own scheduler (priority
queues, dupefilter, JOBDIR disk queues), which it extends.

No stalls: the engine calls ``next_request`` after every finished download and callback, and
the driver asks its stall watch (:mod:`newsforagers.driver.stall`, one for both strategies)
whether the wait is over: when nothing of the step is left anywhere (a probe dropped by a
middleware before it reached us, a redirect filtered as off-site), the missing pages count as
failed, and a step timeout is the last resort. ``has_pending_requests`` turns False
when the forager is done (retired, out of starting URLs, or at ``FORAGERS_MAX_PATHS``).
"""

from __future__ import annotations

import logging
from collections import deque
from typing import TYPE_CHECKING

from scrapy.core.scheduler import Scheduler

from newsforagers.assembly import assemble
from newsforagers.context import context_of
from newsforagers.scrapy_access import FORAGER_META

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class ForagerScheduler(Scheduler):
    @classmethod
    def from_crawler(cls, crawler: Crawler):
        scheduler = super().from_crawler(crawler)
        scheduler.crawler = crawler
        scheduler.context = context_of(crawler)
        return scheduler

    def open(self, spider: Spider):
        self.spider = spider
        # a forager's spider (the one Scrapy hands over here) says what to build
        forager = self.context is not None and getattr(spider, "is_forager", False)
        self.forager_driver = assemble(self.context, spider) if forager else None
        self._ready: deque[Request] = deque()
        return super().open(spider)

    def close(self, reason: str):
        closing = self.forager_driver.finish() if self.forager_driver is not None else None
        own = super().close(reason)
        if closing is None:
            return own
        # the root of a colony closes after the foragers it hosts
        return closing.addCallback(lambda _: own)

    # -- the scheduler interface ----------------------------------------------------------

    def enqueue_request(self, request: Request) -> bool:
        if self.forager_driver is None or request.meta.get(FORAGER_META) is None:
            return super().enqueue_request(request)
        # probes of the current step, and redirected or retried copies of forager requests:
        # released at once, first in line
        self._ready.append(request)
        self.stats.inc_value("newsforagers/scheduler/enqueued")
        return True

    def next_request(self) -> Request | None:
        if self._ready:
            self.stats.inc_value("newsforagers/scheduler/dequeued")
            return self._ready.popleft()
        driver = self.forager_driver
        if driver is not None and not driver.done:
            request = driver.next_step_request()
            if request is not None:
                self.stats.inc_value("newsforagers/scheduler/dequeued")
                return request
        return super().next_request()

    def has_pending_requests(self) -> bool:
        if self._ready:
            return True
        driver = self.forager_driver
        if driver is not None and not driver.done:
            return True
        return super().has_pending_requests()

    def __len__(self) -> int:
        return super().__len__() + len(self._ready)
