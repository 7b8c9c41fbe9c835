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
from scrapy.http import HtmlResponse, Response, TextResponse, XmlResponse
from scrapy.spidermiddlewares.httperror import HttpError, HttpErrorMiddleware
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure
from twisted.web.http import datetimeToString

from newsforagers.clock import SiteClock
from newsforagers.config import ForagersConfig
from newsforagers.driver import LISTING_FIELD, LISTING_KEY, ScheduledDriver
from newsforagers.spiders.forager import ForagerSpider
from newsforagers.store import MemoryStore
from newsforagers.strategies.scheduled import Fetch, ScheduledMind, schedule_from_config

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

    def make(scrapy_settings=None, **settings):
        crawler = get_crawler(ForagerSpider, {"HTTPCACHE_ENABLED": True, **(scrapy_settings or {})})
        spider = ForagerSpider(seeds=HOME)
        spider._set_crawler(crawler)
        spider.config = config = ForagersConfig.from_settings(
            {"FORAGERS_N_CLUSTERS": 4, "FORAGERS_EXPLORE_SHARE": 0.0, **settings})
        store = MemoryStore()
        mind = ScheduledMind("f1", config, schedule_from_config(config, [HOME]), np.ones(4),
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
    return list(spider.parse_fetch(answer(spider.forager_driver.fetch_request(fetch), **answered)))


def test_a_page_read_is_recorded_with_its_links_language_and_validators(forager_spider):
    spider = forager_spider()
    store, mind = spider.forager_driver.store, spider.forager_driver.mind
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


def test_a_document_s_language_is_told_once_for_its_url_record_and_its_send(forager_spider, monkeypatch):
    from newsforagers.pages import document

    told = []
    identifier = document._language_identifier()
    monkeypatch.setattr(document, "_language_identifier", lambda: SimpleNamespace(
        classify=lambda sample: told.append(sample) or identifier.classify(sample)))
    spider = forager_spider()
    store, mind = spider.forager_driver.store, spider.forager_driver.mind
    visit(spider, mind.next_fetch(T0), body=listing("/a.html"))
    assert told == []  # a listing has no language
    (item,) = visit(spider, mind.next_fetch(T0 + 1), body=article(T0 - 600), at=T0 + 1)
    assert len(told) == 1 and "Storm hits the coast" in told[0]
    assert item["forager_language"] == store.get_url_record(HOME + "a.html")["language"] == "en"


def test_a_revisit_is_conditional_and_its_304_is_a_visit_that_showed_nothing_new(forager_spider):
    spider = forager_spider()
    store, mind, stats = spider.forager_driver.store, spider.forager_driver.mind, spider.crawler.stats
    first = mind.next_fetch(T0)
    request = spider.forager_driver.fetch_request(first)
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
    revisit = spider.forager_driver.fetch_request(Fetch(HOME, "listing", 2))
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
        mind = spider.forager_driver.mind
        first = mind.next_fetch(T0)
        headers = {"ETag": etag} if etag else {}
        list(spider.parse_fetch(answer(spider.forager_driver.fetch_request(first), body=listing("/a.html"), **headers)))
        mind.schedule.begin(HOME, T0 + 3600)
        revisit = spider.forager_driver.fetch_request(Fetch(HOME, "listing", 2))
        assert "If-None-Match" not in revisit.headers and "If-Modified-Since" not in revisit.headers
        assert "handle_httpstatus_list" not in revisit.meta
        assert not spider.crawler.stats.get_value("newsforagers/conditional/sent")
        # a 304 nobody asked for stays an HTTP error
        with pytest.raises(HttpError):
            HttpErrorMiddleware.from_crawler(spider.crawler).process_spider_input(answer(revisit, 304))


def test_an_http_error_is_recorded_as_the_url_s_state(forager_spider):
    spider = forager_spider()
    store = spider.forager_driver.store
    fetch = spider.forager_driver.mind.next_fetch(T0)
    gone = answer(spider.forager_driver.fetch_request(fetch), status=404)
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
    store, mind = spider.forager_driver.store, spider.forager_driver.mind
    visit(spider, mind.next_fetch(T0), body=listing("/a.html"), ETag='"v1"')
    assert store.get_url_record(HOME) is None and store.get_url_record(HOME + "a.html") is None
    assert spider.broker is None


# -- feeds and sitemaps (issue 19; docs/pages.md, "Feeds and sitemaps") -----------------------

FEED = HOME + "world/feed.xml"


def rss(*items: tuple[str, float]) -> bytes:
    entries = "".join(f"<item><title>Story {path}</title><link>{path}</link>"
                      f"<pubDate>{datetimeToString(when).decode()}</pubDate></item>" for path, when in items)
    return (f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>World</title>'
            f"{entries}</channel></rss>").encode()


def xml_answer(request: Request, body: bytes, at: float = T0, kind=XmlResponse,
               content_type: str = "application/rss+xml; charset=utf-8") -> Response:
    return kind(request.url, body=body, request=request,
                headers={"Date": datetimeToString(at), "Content-Type": content_type})


def test_a_feed_a_page_announces_is_read_as_a_listing_whose_stories_are_harvested(forager_spider):
    spider = forager_spider()
    store, mind, stats = spider.forager_driver.store, spider.forager_driver.mind, spider.crawler.stats
    home = (b'<html><head><title>Front</title><link rel="alternate" type="application/rss+xml" href="/world/feed.xml">'
            b'<link rel="alternate" type="application/rss+xml" href="http://elsewhere.example/feed.xml">'
            b'</head><body><a href="/about.html">About</a></body></html>')
    visit(spider, mind.next_fetch(T0), body=home)
    assert FEED in mind.schedule and "http://elsewhere.example/feed.xml" not in mind.schedule
    assert mind.counters.feeds_added == 1
    mind.on_failed(mind.next_fetch(T0))  # the harvest of /about.html, out of the way
    feed_visit = mind.next_fetch(T0)
    assert feed_visit == Fetch(FEED, "listing", 2)
    body = rss(("/world/fresh.html", T0 - 600), ("/world/stale.html", T0 - 3 * 86400))
    assert list(spider.parse_fetch(xml_answer(spider.forager_driver.fetch_request(feed_visit), body))) == []
    assert stats.get_value("newsforagers/feeds/read/feed") == 1
    assert not stats.get_value("newsforagers/skipped/not_html") and not stats.get_value("newsforagers/pages/empty")
    assert store.get_url_record(FEED)["state"] == 200  # reported as any listing
    harvest = mind.next_fetch(T0)
    assert harvest == Fetch(HOME + "world/fresh.html", "harvest", 2) and mind.next_fetch(T0) is None
    items = visit(spider, harvest, body=article(T0 - 600), at=T0 + 1)
    assert [item["url"] for item in items] == [HOME + "world/fresh.html"]  # sent, through the feed's visit
    assert items[0]["forager_origin"] == 2  # the feed's visit, which the reward credits


def test_a_gzip_sitemap_is_read_and_a_sitemap_index_adds_its_sitemaps(forager_spider):
    import gzip

    spider = forager_spider()
    mind, stats = spider.forager_driver.mind, spider.crawler.stats
    index, news = HOME + "sitemap.xml", HOME + "news.xml.gz"
    mind.add_feeds([index], T0)
    mind.on_failed(mind.next_fetch(T0))  # the seed, out of the way
    body = (b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>/news.xml.gz</loc>'
            b"<lastmod>2024-01-01T11:00:00Z</lastmod></sitemap><sitemap><loc>/2019.xml</loc>"
            b"<lastmod>2019-01-01</lastmod></sitemap></sitemapindex>")
    index_visit = mind.next_fetch(T0)
    assert index_visit.url == index
    list(spider.parse_fetch(xml_answer(spider.forager_driver.fetch_request(index_visit), body,
                                       content_type="application/xml")))
    assert news in mind.schedule and HOME + "2019.xml" not in mind.schedule and mind.counters.old_feeds == 1
    # (dated since the forager began at T0: news, which no due listing goes before)
    urls = (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/a.html</loc>'
            b"<lastmod>2024-01-01T12:00:00Z</lastmod></url></urlset>")
    news_visit = mind.next_fetch(T0)
    assert news_visit.url == news
    list(spider.parse_fetch(xml_answer(spider.forager_driver.fetch_request(news_visit), gzip.compress(urls),
                                       kind=Response, content_type="application/x-gzip")))
    assert stats.get_value("newsforagers/feeds/read/sitemap") == 2
    assert mind.next_fetch(T0) == Fetch(HOME + "a.html", "harvest", news_visit.visit)


@pytest.mark.parametrize("body, content_type", [
    (b"<rss version='2.0'><channel><title>Broken<item><ti", "application/rss+xml"),
    (b"<?xml version='1.0'?><note>not a feed</note>", "text/xml"),
])
def test_a_bad_feed_is_a_counted_skip_and_a_failed_visit(forager_spider, body, content_type):
    spider = forager_spider()
    mind, stats = spider.forager_driver.mind, spider.crawler.stats
    mind.add_feeds([FEED], T0)
    mind.on_failed(mind.next_fetch(T0))  # the seed, out of the way
    fetch = mind.next_fetch(T0)
    assert fetch.url == FEED
    assert list(spider.parse_fetch(xml_answer(spider.forager_driver.fetch_request(fetch), body,
                                              content_type=content_type))) == []
    assert stats.get_value("newsforagers/skipped/bad_feed") == 1
    assert not stats.get_value("newsforagers/skipped/not_html")
    assert mind.schedule.entry(FEED).failures == 1 and mind.in_flight == 0


def test_with_feeds_off_nothing_is_discovered_and_a_feed_is_skipped_as_not_html(forager_spider):
    spider = forager_spider(FORAGERS_FEEDS="false")
    mind, stats = spider.forager_driver.mind, spider.crawler.stats
    home = b'<html><head><title>Front</title><link rel="alternate" type="application/rss+xml" href="/world/feed.xml">'
    visit(spider, mind.next_fetch(T0), body=home + b"</head><body><a href='/a.html'>A</a></body></html>")
    assert FEED not in mind.schedule and mind.counters.feeds_added == 0
    mind.on_failed(mind.next_fetch(T0))
    mind.schedule.add(FEED)
    fetch = mind.next_fetch(T0)
    list(spider.parse_fetch(xml_answer(spider.forager_driver.fetch_request(fetch), rss(("/x.html", T0)))))
    assert stats.get_value("newsforagers/skipped/not_html") == 1 and not stats.get_value("newsforagers/feeds/read/feed")
    # and no robots.txt is asked for its sitemaps
    spider.colony = SimpleNamespace(hosting=True, root=spider.crawler)
    assert spider._robots_requests() == []


def test_with_robots_txt_obeyed_the_middlewares_copy_gives_the_sitemaps(forager_spider):
    # one robots.txt a host, as in any Scrapy crawl: the root asks for none of its own, and
    # each forager reads the copy its robots.txt middleware downloaded, once a host
    spider = forager_spider(scrapy_settings={"ROBOTSTXT_OBEY": True})
    mind, stats = spider.forager_driver.mind, spider.crawler.stats
    spider.seeds = [HOME, "https://other.example/"]
    spider.colony = SimpleNamespace(hosting=True, root=spider.crawler)
    assert spider._robots_requests() == []
    spider.colony = None
    robots = b"User-agent: *\nDisallow: /search\nSitemap: " + HOME.encode() + b"sitemap.xml\n"
    theirs = Request(HOME + "robots.txt", meta={"dont_obey_robotstxt": True})
    headers = {"Date": datetimeToString(T0), "Content-Type": "text/plain"}
    response = TextResponse(theirs.url, body=robots, request=theirs, headers=headers)
    spider._robots_answered(response, theirs, object())  # another crawler's spider: not ours
    assert not stats.get_value("newsforagers/feeds/robots_sitemaps")
    spider._robots_answered(response, theirs, spider)
    assert stats.get_value("newsforagers/feeds/robots_sitemaps") == 1 and HOME + "sitemap.xml" in mind.schedule
    spider._robots_answered(response, theirs, spider)  # the same host again (another copy): once
    assert stats.get_value("newsforagers/feeds/robots_sitemaps") == 1
    # a page, a missing robots.txt, a robots.txt of the forager's own request: not read here
    page = Request(HOME + "robots.txt?x=1")
    spider._robots_answered(TextResponse(page.url, body=robots, request=page, headers=headers), page, spider)
    missing = Request("https://other.example/robots.txt")
    spider._robots_answered(TextResponse(missing.url, status=404, body=b"", request=missing, headers=headers),
                            missing, spider)
    assert stats.get_value("newsforagers/feeds/robots_sitemaps") == 1
    # a robots.txt whose reading fails is counted and logged, not raised into Scrapy's signal
    spider.forager_driver.add_feeds = None  # (breaks the hand-over)
    other = Request(HOME.replace("://", "://www.") + "robots.txt")  # (a host of the site's domain)
    spider._robots_answered(TextResponse(other.url, body=b"Sitemap: /s.xml\n", request=other, headers=headers),
                            other, spider)
    assert stats.get_value("newsforagers/feeds/robots_unreadable") == 1


def test_the_paper_strategy_still_skips_a_feed_as_not_html():
    spider = ForagerSpider(seeds=HOME)
    spider._set_crawler(get_crawler(ForagerSpider))
    spider.config = ForagersConfig.from_settings({"FORAGERS_STRATEGY": "paper", "FORAGERS_URL_RECORDS": "false"})
    request = Request(FEED, meta={"forager_url": FEED})
    failed = []
    assert spider._read(xml_answer(request, rss(("/x.html", T0))), failed.append, kind="probe") is None
    assert failed == [FEED] and spider.crawler.stats.get_value("newsforagers/skipped/not_html") == 1
    spider.colony = SimpleNamespace(hosting=True, root=spider.crawler)
    assert spider._robots_requests() == []


def test_the_root_reads_the_sitemaps_its_seeds_robots_txt_lists(forager_spider):
    spider = forager_spider()
    mind, stats = spider.forager_driver.mind, spider.crawler.stats
    spider.seeds = [HOME, HOME + "world/", "https://other.example/"]
    assert spider._robots_requests() == []  # not the root of a colony (a member, a split's child)
    spider.colony = SimpleNamespace(hosting=True, root=spider.crawler)
    requests = spider._robots_requests()
    spider.colony = None
    assert [r.url for r in requests] == [HOME + "robots.txt", "https://other.example/robots.txt"]
    assert all(r.meta["dont_obey_robotstxt"] and r.callback == spider.parse_robots for r in requests)
    robots = (b"User-agent: *\nDisallow: /search\nSitemap: " + HOME.encode() + b"sitemap.xml\n"
              b"Sitemap: /sitemap-news.xml\nSitemap: http://elsewhere.example/sitemap.xml\n")
    spider.parse_robots(TextResponse(requests[0].url, body=robots, request=requests[0],
                                     headers={"Date": datetimeToString(T0), "Content-Type": "text/plain"}))
    assert stats.get_value("newsforagers/feeds/robots_sitemaps") == 3
    assert HOME + "sitemap.xml" in mind.schedule and HOME + "sitemap-news.xml" in mind.schedule
    assert "http://elsewhere.example/sitemap.xml" not in mind.schedule  # off the colony's sites
    gone = Failure(HttpError(answer(requests[1], status=404)))
    gone.request = requests[1]
    spider.robots_failed(gone)
    assert stats.get_value("newsforagers/feeds/robots_failed") == 1


def test_a_story_whose_host_said_429_is_asked_for_again_later_and_a_404_is_not(forager_spider):
    from twisted.internet.error import ConnectionRefusedError

    from newsforagers.strategies.scheduled.mind import LATER_TRIES

    spider = forager_spider()
    mind = spider.forager_driver.mind
    visit(spider, mind.next_fetch(T0), body=listing("/a.html", "/b.html", "/c.html"))
    stories = {fetch.url: fetch for fetch in (mind.next_fetch(T0 + 1) for _ in range(3))}
    assert set(stories) == {HOME + "a.html", HOME + "b.html", HOME + "c.html"}

    def fail(url, status=None, error=None):
        request = spider.forager_driver.fetch_request(stories[url])
        failure = Failure(HttpError(answer(request, status=status))) if status else Failure(error)
        failure.request = request
        spider.fetch_failed(failure)

    fail(HOME + "a.html", status=429)  # busy (after Scrapy's retries, RETRY_HTTP_CODES)
    fail(HOME + "b.html", error=ConnectionRefusedError())  # down (RETRY_EXCEPTIONS)
    fail(HOME + "c.html", status=404)  # gone for good
    assert mind.counters.tried_later == 2 and mind.in_flight == 0
    # FORAGERS_SCHEDULE_MIN_INTERVAL (60 s) later, both again; never the 404
    assert mind.next_fetch(T0 + 30) is None
    again = [mind.next_fetch(T0 + 62) for _ in range(2)]
    assert {fetch.url for fetch in again} == {HOME + "a.html", HOME + "b.html"}
    assert mind.next_fetch(T0 + 62) is None
    # each failure waits 4 times longer than the one before; LATER_TRIES in all
    now, waits = T0 + 62, []
    for _ in range(LATER_TRIES - 1):  # the first of them was spent above
        mind.on_failed(Fetch(HOME + "a.html", "harvest"), transient=True)
        due = now
        while (fetch := mind.next_fetch(due)) is None or fetch.url != HOME + "a.html":
            due += 30
            assert due < now + 86400, "asked for again within a day"
        waits.append(due - now)
        now = due
    assert waits == [240, 960, 3840]
    mind.on_failed(Fetch(HOME + "a.html", "harvest"), transient=True)
    assert mind.counters.tried_later == 2 + 3 and not mind._later  # no fifth try


def test_a_link_is_on_site_on_a_seed_s_host_or_under_an_allowed_domain():
    """Scrapy's OffsiteMiddleware's host test, looked up label by label (a colony over 1,000
    sites read each link against every seed's host)."""
    spider = ForagerSpider(seeds="http://example.com/,http://127.1.0.5:8080/")
    assert spider.allowed_domains == ["127.1.0.5", "example.com"]
    on_site = {url: spider._on_site(url) for url in (
        "http://example.com/a", "https://news.EXAMPLE.com/b", "http://a.b.example.com:81/",
        "http://badexample.com/", "http://example.com.evil.org/", "http://com/",
        "http://127.1.0.5:9/x", "http://27.1.0.5/", "http://1.0.5/", "mailto:someone", "/relative")}
    assert on_site == {
        "http://example.com/a": True, "https://news.EXAMPLE.com/b": True, "http://a.b.example.com:81/": True,
        "http://badexample.com/": False, "http://example.com.evil.org/": False, "http://com/": False,
        "http://127.1.0.5:9/x": True, "http://27.1.0.5/": False, "http://1.0.5/": False,
        "mailto:someone": False, "/relative": False}


def _fit_in_the_worker(driver, fits, caplog, done) -> None:
    """The driver hands its bootstrap's fit to ``fits``; the loop runs until ``done()`` (a
    minute at most: the worker's start-up and the fit take seconds); the worker closed."""
    import asyncio

    async def main():
        driver._fit_in_background()
        for _ in range(600):
            if done():
                return
            await asyncio.sleep(0.1)

    try:
        with caplog.at_level("INFO"):
            asyncio.run(main())
    finally:
        fits.close()


def test_a_forager_s_encoder_is_fitted_in_the_colony_s_worker_and_used(forager_spider, caplog):
    """The driver hands the bootstrap's fit to the colony's worker process (``Colony.fits``)
    and the mind takes the encoder it sends back: its pages then have states."""

    from newsforagers.pages.workers import DocumentWorkers
    from newsforagers.strategies.common import EncoderBootstrap, state_encoder_fit

    spider = forager_spider()
    driver, mind = spider.forager_driver, spider.forager_driver.mind
    mind.bootstrap = EncoderBootstrap(state_encoder_fit(spider.config), pages=24)
    fits = DocumentWorkers(1)
    driver.colony = SimpleNamespace(fits=fits)
    topics = {"space": "rocket orbit satellite launch astronaut planet comet telescope",
              "food": "recipe flour oven butter garlic simmer roast pastry",
              "sport": "goal striker referee penalty stadium midfield keeper league",
              "farm": "tractor harvest barley cattle orchard silo plough meadow"}
    texts = [" ".join(words.split()[(i + j) % 8] for j in range(6)) for words in topics.values() for i in range(6)]
    for i, text in enumerate(texts):
        assert mind._state(f"{HOME}{i}", text) is None  # collected for the bootstrap
    assert mind.fit_request == texts
    _fit_in_the_worker(driver, fits, caplog, lambda: mind.encoder is not None)
    assert "fitting the state encoder on 24 probed pages (worker process)" in caplog.text
    assert mind.encoder is not None and mind.encoder.n_clusters_ == 4
    assert mind._state(f"{HOME}x", texts[0]).shape == (4,)


def test_a_fit_the_worker_cannot_make_is_postponed_as_one_on_a_thread_is(forager_spider, caplog):
    """Too few distinct texts: the fit raises in the worker, the error comes back to the driver,
    and the mind keeps collecting, twice as many, as after a failed fit on a thread."""

    from newsforagers.pages.workers import DocumentWorkers
    from newsforagers.strategies.common import EncoderBootstrap, state_encoder_fit

    spider = forager_spider()
    driver, mind = spider.forager_driver, spider.forager_driver.mind
    mind.bootstrap = EncoderBootstrap(state_encoder_fit(spider.config), pages=6)
    fits = DocumentWorkers(1)
    driver.colony = SimpleNamespace(fits=fits)
    for i in range(6):
        mind._state(f"{HOME}{i}", "the same words")
    _fit_in_the_worker(driver, fits, caplog, lambda: not mind.bootstrap.fitting)
    assert "(worker process)" in caplog.text and "encoder bootstrap postponed" in caplog.text
    assert mind.encoder is None and mind.bootstrap_pages == 12 and not mind.bootstrap.fitting


@pytest.mark.parametrize("hosting", [True, False], ids=["the root's process", "a forager's own process"])
def test_a_forager_that_will_fit_its_encoder_starts_the_fits_worker_only_in_the_root_s_process(hosting):
    """Built without a model, a forager of the root's process starts the colony's fits worker
    (its start-up overlaps the bootstrap's walk); one in a process of its own leaves it to its
    first fit (a worker of 140 MB for a fit it may never make); with a model, none."""
    from newsforagers.driver import build_driver

    class Fits:
        started = 0

        def start(self):
            self.started += 1

    def built(encoder):
        crawler = get_crawler(ForagerSpider, {})
        spider = ForagerSpider(seeds=HOME)
        spider._set_crawler(crawler)
        spider.config = config = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": 4})
        spider.encoder = encoder
        colony = SimpleNamespace(rng=np.random.default_rng(0), store=MemoryStore(), fits=Fits(), hosting=hosting)
        build_driver(crawler, config, spider, colony, None)
        return colony.fits.started

    assert built(None) == (1 if hosting else 0)
    assert built(SimpleNamespace(n_clusters_=4)) == 0
