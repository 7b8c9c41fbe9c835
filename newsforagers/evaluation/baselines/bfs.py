"""``bfs``: breadth-first from the home page (from every start page, on several sites), to a
depth."""

from __future__ import annotations

import scrapy

from newsforagers.evaluation.baselines.common import BaselineSpider, positive

# -- bfs -------------------------------------------------------------------------------------


class BfsSpider(BaselineSpider):
    """Breadth-first re-crawl from the home page, in rounds of depth ``depth``; with several
    start pages (several sites) each round starts at all of them."""

    name = "bfs"
    custom_settings = {
        **BaselineSpider.custom_settings,
        # Scrapy's breadth-first order: FIFO queues, shallower requests first.
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
    }

    def __init__(self, start: str | None = None, depth: str | int = 2, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        self.max_depth = positive(depth, "depth", integer=True)
        self.round = 0
        self.round_seen: set[str] = set()

    async def start(self):
        for request in self.new_round():
            yield request

    def new_round(self) -> list[scrapy.Request]:
        self.round += 1
        self.crawler.stats.set_value("baselines/bfs/rounds", self.round)
        self.round_seen = set(self.homes)
        # dont_filter: every round re-fetches; within a round, round_seen keeps URLs unique.
        return [self.request(home, self.parse_page, errback=self.failed, dont_filter=True,
                             meta={"bfs_round": self.round}) for home in self.homes]

    def parse_page(self, response):
        now = self.site_now(response)
        page = self.read(response, now)
        item = self.output(response, page, now)
        if item is not None:
            yield item
        depth = response.meta.get("depth", 0)  # Scrapy's DepthMiddleware: 0 for the home page
        if page is None or depth >= self.max_depth or response.meta.get("bfs_round") != self.round:
            return
        for link in self.links(page):
            if link not in self.round_seen:
                self.round_seen.add(link)
                yield self.request(link, self.parse_page, errback=self.failed, dont_filter=True,
                                   meta={"bfs_round": self.round})

    def failed(self, failure):
        self.count_failure(failure)

    def on_idle(self) -> bool:
        # The round has ended: nothing scheduled, downloading or being parsed.
        for request in self.new_round():
            self.schedule(request)
        return True
