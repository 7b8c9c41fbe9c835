"""Every non-public part of Scrapy newsforagers touches (all of them in
newsforagers.scrapy_access) is still where it was: an upgrade of Scrapy that moves one fails
here, naming it, instead of a colony that silently stalls or fetches robots.txt per forager."""

from __future__ import annotations

import asyncio

from scrapy import Request, Spider
from scrapy.core import engine as engine_module
from scrapy.core import scraper as scraper_module
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.http import Response
from scrapy.utils.reactor import CallLaterOnce
from scrapy.utils.test import get_crawler

from newsforagers import scrapy_access


def _engine():
    crawler = get_crawler(Spider, {"DOWNLOAD_HANDLERS": {"http": None, "https": None}})
    crawler._apply_settings()
    crawler.spider = Spider("probe")
    return crawler, engine_module.ExecutionEngine(crawler, lambda _: None)


def test_the_engine_s_slot_and_its_nextcall():
    async def main():
        crawler, engine = _engine()
        assert hasattr(engine, "_slot"), "ExecutionEngine._slot moved: wake_engine must change"
        assert engine._slot is None
        assert not scrapy_access.wake_engine(crawler)  # no engine yet on the crawler
        crawler.engine = engine
        assert not scrapy_access.wake_engine(crawler)  # no slot before the spider opens
        called = []
        nextcall = CallLaterOnce(lambda: called.append(True))
        engine._slot = engine_module._Slot(close_if_idle=True, nextcall=nextcall, scheduler=None)
        assert engine._slot.nextcall is nextcall, "_Slot.nextcall moved: wake_engine must change"
        assert scrapy_access.wake_engine(crawler)
        await asyncio.sleep(0.05)
        assert called == [True]

    asyncio.run(main())


def test_the_downloader_s_active_requests_and_the_scraper_s_slot():
    async def main():
        crawler, engine = _engine()
        assert scrapy_access.requests_in_flight(crawler)  # unsure without an engine: True
        crawler.engine = engine
        assert isinstance(engine.downloader.active, set), "Downloader.active moved"
        assert hasattr(engine.scraper, "slot"), "Scraper.slot moved"
        assert hasattr(scraper_module.Slot, "is_idle"), "scraper Slot.is_idle moved"
        assert not scrapy_access.requests_in_flight(crawler)
        downloading = Request("http://site.test/", meta={"forager_kind": "probe"})
        engine.downloader.active.add(downloading)
        assert scrapy_access.requests_in_flight(crawler)
        assert not scrapy_access.requests_in_flight(crawler, meta_key="other")
        engine.downloader.active.discard(downloading)

        # answered: waiting for its callback, then in it, then its items in the pipelines
        slot = scraper_module.Slot()
        engine.scraper.slot = slot
        assert hasattr(slot, "queue") and isinstance(slot.active, set), "scraper Slot.queue/active moved"
        request = Request("http://site.test/a.html", meta={"forager_kind": "probe"})
        slot.add_response_request(Response(request.url, request=request), request)
        slot.add_response_request(Response("http://site.test/robots.txt"), Request("http://site.test/robots.txt"))
        assert scrapy_access.requests_in_flight(crawler)  # queued for its callback
        _, taken, _ = slot.next_response_request_deferred()
        assert taken is request and scrapy_access.requests_in_flight(crawler)  # in Scrapy, not in the callback yet
        request.meta[scrapy_access.ANSWERED_META] = True  # the callback began (spiders/forager.py)
        slot.itemproc_size = 1  # ... and gave an item the pipelines still hold
        assert not slot.is_idle() and request in slot.active
        # not waited for any more; nor is a request of no forager's (robots.txt)
        assert not scrapy_access.requests_in_flight(crawler)

    asyncio.run(main())


def test_the_robots_middleware_s_parser_cache():
    crawler = get_crawler(Spider, {"ROBOTSTXT_OBEY": True})
    first = RobotsTxtMiddleware.from_crawler(crawler)
    second = RobotsTxtMiddleware.from_crawler(crawler)
    assert isinstance(first._parsers, dict), "RobotsTxtMiddleware._parsers moved"
    first._parsers["site.test:80"] = "parser"
    shared: dict = {}
    scrapy_access.share_robots_parsers(first, shared)
    scrapy_access.share_robots_parsers(second, shared)
    assert first._parsers is second._parsers is shared and shared == {"site.test:80": "parser"}


def test_the_engine_is_not_set_before_the_crawl():
    crawler = get_crawler(Spider)
    assert scrapy_access.engine_of(crawler) is None and not scrapy_access.engine_running(crawler)


def test_the_sitemap_s_element_hook_sees_a_news_entry_before_it_is_cleared():
    from scrapy.utils.sitemap import Sitemap

    assert callable(getattr(Sitemap, "_process_sitemap_element", None)), "Sitemap._process_sitemap_element moved"
    body = (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
            b'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><url><loc>http://site.test/a</loc>'
            b"<lastmod>2024-03-05</lastmod><news:news><news:publication_date>2024-03-05T14:30:00Z"
            b"</news:publication_date><news:title>Storm</news:title></news:news></url></urlset>")
    entries = list(scrapy_access.NewsSitemap(body))
    assert entries == [{"loc": "http://site.test/a", "lastmod": "2024-03-05", "news": "",
                        "news_publication_date": "2024-03-05T14:30:00Z", "news_title": "Storm"}], \
        "Scrapy's Sitemap no longer hands each entry to _process_sitemap_element"
