"""Downloader middlewares that make a colony polite as one crawler.

Enabled by the add-on; with a spider that is not part of a colony they change nothing.

- ``ColonyRobotsTxtMiddleware`` (replaces Scrapy's at 100): robots.txt is fetched once per
  colony and host, and its parser shared; a scheduled forager's robots.txt requests get its
  download deadline (a stalled robots.txt would hold every request to its host).
- ``SharedFetchMiddleware`` (950): recent downloads shared between foragers (``FORAGERS_FETCH_TTL``).

The colony's per-host budget is applied by the download handler
(:mod:`newsforagers.downloadhandlers`), at the moment a request is really sent: a middleware
runs before Scrapy's per-slot queue, so requests it let through could still leave in bursts.
"""

from __future__ import annotations

import asyncio
import inspect

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.utils.httpobj import urlparse_cached

from newsforagers.context import ForagerContext, context_of
from newsforagers.scrapy_access import FORAGER_META, HEDGE_META, share_robots_parsers

_FETCH_KEY = "_forager_shared_fetch"


def _colony(context: ForagerContext | None):
    return context.colony if context is not None else None


class ColonyRobotsTxtMiddleware(RobotsTxtMiddleware):
    @classmethod
    def from_crawler(cls, crawler):
        middleware = super().from_crawler(crawler)
        middleware.context = context_of(crawler)
        return middleware

    async def process_request(self, request, spider=None):
        # A robots.txt request (this middleware's own, or the spider's for sitemaps) holds
        # every request to its host until it is answered: a stalled one must not hold them for
        # DOWNLOAD_TIMEOUT. It gets the forager's download deadline (the scheduled driver's:
        # ten usual answers, 10 s at least), as its other requests do; Scrapy retries it.
        if request.meta.get("dont_obey_robotstxt") and urlparse_cached(request).path == "/robots.txt":
            driver = self.context.driver if self.context is not None else None
            deadline = getattr(driver, "download_deadline", None)
            if deadline:
                request.meta.setdefault("download_timeout", deadline)
        # a later Scrapy passes no spider (and warns when one is passed on); an earlier one's
        # method may answer a Deferred: awaited alike
        answer = super().process_request(request) if spider is None else super().process_request(request, spider)
        return await answer if inspect.isawaitable(answer) else answer

    async def robot_parser(self, request):
        colony = _colony(self.context)
        if colony is not None:
            # one dict for the whole colony: the first forager to need a host's robots.txt
            # fetches it, the others wait for the same parser
            share_robots_parsers(self, colony.robots)
        return await super().robot_parser(request)


class SharedFetchMiddleware:
    def __init__(self, crawler, context: ForagerContext | None = None):
        self.crawler = crawler
        self.context = context

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler, context_of(crawler))

    async def process_request(self, request, spider=None):
        colony = _colony(self.context)
        if colony is None or not colony.fetches.enabled or request.method != "GET" \
                or FORAGER_META not in request.meta:
            return None
        fetches = colony.fetches
        response = fetches.recent(request.url)
        if response is None:
            # a hedge (driver/hedge.py) is asked because the download in flight stalled: it
            # does not wait for it, and its answer is the one the waiters get
            pending = None if request.meta.get(HEDGE_META) else fetches.in_flight(request.url)
            if pending is not None:
                # a download that never reports back must not hold this one forever
                timeout = self.crawler.settings.getfloat("DOWNLOAD_TIMEOUT", 180.0)
                try:
                    response = await asyncio.wait_for(asyncio.shield(pending), timeout)
                except asyncio.TimeoutError:
                    response = None
        if response is not None:
            self.crawler.stats.inc_value("newsforagers/fetch/shared")
            # a fresh headers object: the middlewares above (decompression) edit headers in place;
            # the flag tells the spider its Date is the first download's, not the site's now
            return response.replace(request=request, headers=response.headers.copy(),
                                    flags=[*response.flags, "shared"])
        fetches.begin(request.url)
        request.meta[_FETCH_KEY] = True
        return None

    def process_response(self, request, response, spider=None):
        if request.meta.pop(_FETCH_KEY, False):
            colony = _colony(self.context)
            if colony is not None:
                kept = response.replace(headers=response.headers.copy()) if response.status == 200 else None
                colony.fetches.finish(request.url, kept)
        return response

    def process_exception(self, request, exception, spider=None):
        if request.meta.pop(_FETCH_KEY, False):
            colony = _colony(self.context)
            if colony is not None:
                colony.fetches.finish(request.url, None)
        return None
