"""The forager spider's reports to the colony's URL records and its conditional revisits
(issue 18; docs/pages.md, "URL records (the i-Bot broker)" and "Conditional requests"): the
spider with a real scheduled mind and driver over a memory store, fed Scrapy responses."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import numpy as np
import pytest
from scrapy import Request
from scrapy.downloadermiddlewares.httpcache import HttpCacheMiddleware
from scrapy.http import HtmlResponse, Response
from scrapy.spidermiddlewares.httperror import HttpError, HttpErrorMiddleware
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure
from twisted.web.http import datetimeToString

from newsforagers.clock import SiteClock
from newsforagers.config import ForagersConfig
from newsforagers.driver import LISTING_FIELD, LISTING_KEY, ScheduledDriver
from newsforagers.scheduled import Fetch, ScheduledForager, schedule_from_config
from newsforagers.spiders.forager import ForagerSpider
from newsforagers.store import MemoryStore

HOME = "http://site.example/"
T0 = datetime(2024, 1, 1, 12, tzinfo=UTC).timestamp()
STORY = ("Storm hits the coast. " + " ".join(f"Residents of the harbour town number {i} said the "
                                             "water rose quickly and the roads were closed." for i in range(12)))


def listing(*paths: str) -> bytes:
    items = "".join(f'<li><a href="{p}">Story {p}</a></li>' for p in paths)
    return (f"<html><head><title>Front</title></head><body><ul>{items}</ul>"
            '<a href="http://elsewhere.example/x">away</a></body></html>').encode()


def article(published: float) -> bytes:
    iso = datetime.fromtimestamp(published, UTC).isoformat()
    return (f'<html><head><title>Storm hits</title><meta property="article:published_time" content="{iso}">'
            f'</head><body><article><h1>Storm hits</h1><p>{STORY}</p><a href="/">Home</a></article>'
            "</body></html>").encode()


@pytest.fixture
def forager_spider():
    """``forager_spider(**settings)``: a spider with its scheduled mind and driver, as the
    assembly builds them, over a memory store (no colony: nothing shared but the store)."""

    def make(**settings):
        crawler = get_crawler(ForagerSpider, {"HTTPCACHE_ENABLED": True})
        spider = ForagerSpider(seeds=HOME)
        spider._set_crawler(crawler)
        spider.config = config = ForagersConfig.from_settings(
            {"FORAGERS_N_CLUSTERS": 4, "FORAGERS_EXPLORE_SHARE": 0.0, **settings})
        store = MemoryStore()
        mind = ScheduledForager("f1", config, schedule_from_config(config, [HOME]), np.ones(4),
                                np.random.default_rng(0), seeds=[HOME],
                                claim_many=lambda urls: store.claim_urls(urls, {"queued_by": "f1"}))
        spider.site_clock = SiteClock(600.0)
        spider.forager_driver = ScheduledDriver(crawler, spider, mind, 30.0, spider.site_clock, store)
        return spider

    return make


def answer(request: Request, status: int = 200, body: bytes = b"", at: float = T0, **headers) -> Response:
    headers = {"Date": datetimeToString(at), **{k.replace("_", "-"): v for k, v in headers.items()}}
    kind = HtmlResponse if body else Response
    return kind(request.url, status=status, body=body, headers=headers, request=request)


def visit(spider, fetch: Fetch, **answered) -> list:
    return list(spider.parse_fetch(answer(spider.make_fetch_request(fetch), **answered)))


def test_a_page_read_is_recorded_with_its_links_language_and_validators(forager_spider):
    spider = forager_spider()
    store, mind = spider.forager_driver.store, spider.forager_driver.forager
    first = mind.next_fetch(T0)
    assert first == Fetch(HOME, "listing", 1)
    visit(spider, first, body=listing("/a.html", "/b.html", "/a.html"), ETag='"v1"',
          Last_Modified=datetimeToString(T0 - 60))
    home = store.get_url_record(HOME)
    seen_at = datetime.fromtimestamp(T0, UTC).isoformat()
    assert (home["state"], home["fetched_by"], home["last_fetched"], home["etag"]) == (200, "f1", seen_at, '"v1"')
    assert home["last_modified"] == datetimeToString(T0 - 60).decode()
    assert home["out_links"] == 2 and home["language"] == ""  # links on the site only; not a document
    story = store.get_url_record(HOME + "a.html")
    assert (story["state"], story["in_links"], story["found_by"], story["last_fetched"]) == ("listing", 1, "f1", "")
    assert store.get_url_record("http://elsewhere.example/x") is None
    harvest = mind.next_fetch(T0 + 1)
    assert harvest.kind == "harvest" and harvest.url == HOME + "a.html"
    items = visit(spider, harvest, body=article(T0 - 600), at=T0 + 1)
    assert [item["url"] for item in items] == [HOME + "a.html"]
    story = store.get_url_record(HOME + "a.html")
    assert (story["state"], story["fetched_by"], story["language"], story["out_links"]) == (200, "f1", "en", 1)
    assert store.get_url_record(HOME)["in_links"] == 1 and store.get_url_record(HOME)["state"] == 200


def test_a_revisit_is_conditional_and_its_304_is_a_visit_that_showed_nothing_new(forager_spider):
    spider = forager_spider()
    store, mind, stats = spider.forager_driver.store, spider.forager_driver.forager, spider.crawler.stats
    first = mind.next_fetch(T0)
    request = spider.make_fetch_request(first)
    assert "If-None-Match" not in request.headers and "handle_httpstatus_list" not in request.meta
    list(spider.parse_fetch(answer(request, body=listing("/a.html"), ETag='"v1"',
                                   Last_Modified=datetimeToString(T0))))
    mind.on_failed(mind.next_fetch(T0))  # the harvest of /a.html, out of the way
    # another forager fetched the listing since: the colony's copy is its copy
    store.record_fetch(HOME, 200, "f2", "2024-01-01T12:30:00+00:00", etag='"v2"',
                       last_modified="Mon, 01 Jan 2024 12:29:00 GMT")
    entry = mind.schedule.entry(HOME)
    visits, evidence, downloaded = entry.visits, entry.evidence, mind.counters.downloaded
    mind.schedule.begin(HOME, T0 + 3600)
    revisit = spider.make_fetch_request(Fetch(HOME, "listing", 2))
    assert revisit.headers["If-None-Match"] == b'"v2"'
    assert revisit.headers["If-Modified-Since"] == b"Mon, 01 Jan 2024 12:29:00 GMT"
    assert revisit.meta["handle_httpstatus_list"] == [304] and revisit.meta["dont_cache"] is True
    assert stats.get_value("newsforagers/conditional/sent") == 1
    not_modified = answer(revisit, status=304, at=T0 + 3600, ETag='"v2"')
    # Scrapy lets it through to the callback, and its HTTP cache neither answers nor keeps it
    HttpErrorMiddleware.from_crawler(spider.crawler).process_spider_input(not_modified)
    cache = HttpCacheMiddleware.from_crawler(spider.crawler)
    cache.storage.store_response = lambda *args: pytest.fail("a 304 stored in the HTTP cache")
    assert cache.process_request(revisit) is None and cache.process_response(revisit, not_modified) is not_modified
    assert list(spider.parse_fetch(not_modified)) == []
    assert stats.get_value("newsforagers/conditional/not_modified") == 1
    entry = mind.schedule.entry(HOME)
    assert entry.visits == visits + 1 and entry.evidence == evidence  # a visit that showed nothing new
    assert entry.failures == 0 and not entry.in_flight and mind.counters.start_failures == 0
    assert mind.counters.downloaded == downloaded and mind.in_flight == 0  # nothing read
    assert store.get_url(LISTING_KEY + HOME)[LISTING_FIELD]["visits"] == visits + 1  # shared as after any visit
    home = store.get_url_record(HOME)
    assert (home["state"], home["fetched_by"], home["etag"]) == (304, "f1", '"v2"')
    assert home["last_fetched"] == datetime.fromtimestamp(T0 + 3600, UTC).isoformat()
    assert home["out_links"] == 1  # the colony's copy stands


def test_without_a_record_or_with_the_setting_off_a_revisit_is_a_plain_get(forager_spider):
    for settings, etag in (({}, None), ({"FORAGERS_CONDITIONAL": "false"}, '"v1"'),
                           ({"FORAGERS_URL_RECORDS": "false"}, '"v1"')):
        spider = forager_spider(**settings)
        mind = spider.forager_driver.forager
        first = mind.next_fetch(T0)
        headers = {"ETag": etag} if etag else {}
        list(spider.parse_fetch(answer(spider.make_fetch_request(first), body=listing("/a.html"), **headers)))
        mind.schedule.begin(HOME, T0 + 3600)
        revisit = spider.make_fetch_request(Fetch(HOME, "listing", 2))
        assert "If-None-Match" not in revisit.headers and "If-Modified-Since" not in revisit.headers
        assert "handle_httpstatus_list" not in revisit.meta
        assert not spider.crawler.stats.get_value("newsforagers/conditional/sent")
        # a 304 nobody asked for stays an HTTP error
        with pytest.raises(HttpError):
            HttpErrorMiddleware.from_crawler(spider.crawler).process_spider_input(answer(revisit, 304))


def test_an_http_error_is_recorded_as_the_url_s_state(forager_spider):
    spider = forager_spider()
    store = spider.forager_driver.store
    fetch = spider.forager_driver.forager.next_fetch(T0)
    gone = answer(spider.make_fetch_request(fetch), status=404)
    failure = Failure(HttpError(gone))
    failure.request = gone.request
    spider.fetch_failed(failure)
    assert store.get_url_record(HOME)["state"] == 404
    assert store.get_url_record(HOME)["last_fetched"] == ""  # never downloaded


def test_a_step_page_names_its_links_kind_and_copies_not_downloaded_now_are_not_reported():
    spider = ForagerSpider(seeds=HOME)
    spider._set_crawler(get_crawler(ForagerSpider))
    spider.config = ForagersConfig.from_settings({})
    spider.forager_driver = SimpleNamespace(store=MemoryStore())
    store = spider.forager_driver.store

    def step(url, flags=()):
        response = HtmlResponse(url, body=listing("/s.html"), flags=list(flags),
                                request=Request(url, meta={"forager_url": url}))
        return spider._read(response, lambda url: None, kind="step")

    step(HOME + "x/")
    assert store.get_url_record(HOME + "x/")["state"] == 200
    assert store.get_url_record(HOME + "s.html")["state"] == "step"
    step(HOME + "y/", flags=["cached"])  # Scrapy's HTTP cache: reported when downloaded
    step(HOME + "z/", flags=["shared"])  # another forager's download: reported by it
    assert store.get_url_record(HOME + "s.html")["in_links"] == 1
    assert store.get_url_record(HOME + "y/") is None and store.get_url_record(HOME + "z/") is None


def test_without_url_records_nothing_is_reported(forager_spider):
    spider = forager_spider(FORAGERS_URL_RECORDS="false")
    store, mind = spider.forager_driver.store, spider.forager_driver.forager
    visit(spider, mind.next_fetch(T0), body=listing("/a.html"), ETag='"v1"')
    assert store.get_url_record(HOME) is None and store.get_url_record(HOME + "a.html") is None
    assert spider.broker is None
