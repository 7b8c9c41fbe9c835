"""``random``: random walks from the home page (each walker from its own, on several sites),
restarted."""

from __future__ import annotations

import random

import scrapy

from newsforagers.evaluation.baselines.common import FAILURE_PAUSE, BaselineSpider, positive

# -- random ----------------------------------------------------------------------------------


class RandomSpider(BaselineSpider):
    """Random walks: each step follows a link of the current page chosen uniformly.

    ``walkers`` walks run at once (default: one a start page, so one a site). Walker ``w``
    starts from start page ``w mod n`` and restarts there after ``steps`` steps (default 10)
    or at a dead end (no link on the site). A step that fails
    (an error, a page robots.txt forbids, a non-HTML body) is replaced by another link of
    the same page, drawn among the ones not yet tried. ``seed`` fixes the draws.
    """

    name = "random"

    def __init__(self, start: str | None = None, steps: str | int = 10,
                 walkers: str | int | None = None, seed: str | int | None = None, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        self.steps = positive(steps, "steps", integer=True)
        self.walkers = (len(self.homes) if walkers in (None, "")
                        else positive(walkers, "walkers", integer=True))
        self.rng = random.Random(None if seed in (None, "") else int(seed))
        self.restarts = 0

    async def start(self):
        for walker in range(self.walkers):
            yield self.restart(walker)

    def restart(self, walker: int) -> scrapy.Request:
        self.restarts += 1
        self.crawler.stats.set_value("baselines/random/restarts", self.restarts)
        return self.request(self.homes[walker % len(self.homes)], self.parse_page, errback=self.failed,
                            dont_filter=True, meta={"walker": walker, "step": 0, "alternatives": []})

    def step_to(self, walker: int, step: int, choices: list[str]) -> scrapy.Request:
        if step >= self.steps or not choices:
            return self.restart(walker)
        link = self.rng.choice(choices)
        alternatives = [c for c in choices if c != link]
        return self.request(link, self.parse_page, errback=self.failed, dont_filter=True,
                            meta={"walker": walker, "step": step, "alternatives": alternatives})

    def parse_page(self, response):
        now = self.site_now(response)
        page = self.read(response, now)
        meta = response.meta
        if page is None:
            yield self.step_to(meta["walker"], meta["step"], meta["alternatives"])
            return
        item = self.output(response, page, now)
        if item is not None:
            yield item
        links = [link for link in self.links(page) if link != response.url]
        yield self.step_to(meta["walker"], meta["step"] + 1, links)

    def failed(self, failure):
        self.count_failure(failure)
        meta = failure.request.meta
        if meta["step"] == 0:
            # the home page itself failed: a failing site is not hammered
            request = self.restart(meta["walker"])
            self.call_later(FAILURE_PAUSE, self.schedule, request)
            return
        yield self.step_to(meta["walker"], meta["step"], meta["alternatives"])
