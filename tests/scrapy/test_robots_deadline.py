"""A robots.txt request holds every request to its host until it is answered: a scheduled
forager gives it its download deadline (a stalled robots.txt held a host's first page for
DOWNLOAD_TIMEOUT, 30 s: 150 minutes of a replay at speed 300)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from newsforagers.downloadermiddlewares import ColonyRobotsTxtMiddleware


def _middleware(driver):
    crawler = get_crawler(Spider, {"ROBOTSTXT_OBEY": True})
    middleware = ColonyRobotsTxtMiddleware(crawler)
    middleware.context = SimpleNamespace(driver=driver, colony=None)
    return middleware


def _timeout(middleware, url, **meta):
    request = Request(url, meta={"dont_obey_robotstxt": True, **meta})
    asyncio.run(middleware.process_request(request))
    return request.meta.get("download_timeout")


def test_a_robots_txt_request_gets_the_forager_s_download_deadline():
    scheduled = _middleware(SimpleNamespace(download_deadline=7.5))
    assert _timeout(scheduled, "http://a.example/robots.txt") == 7.5
    assert _timeout(scheduled, "http://a.example/robots.txt", download_timeout=3) == 3  # the user's wins
    assert _timeout(scheduled, "http://a.example/page") is None  # not a robots.txt: its own driver's
    # the papers' forager (no deadline of its own) and a crawler with no forager: Scrapy's own
    assert _timeout(_middleware(SimpleNamespace()), "http://a.example/robots.txt") is None
    assert _timeout(_middleware(None), "http://a.example/robots.txt") is None
