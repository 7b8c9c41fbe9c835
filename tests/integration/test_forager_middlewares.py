"""The forager reuses Scrapy's own middlewares unchanged: robots.txt, AutoThrottle, HttpCache,
retry and offsite, each checked with the real ``scrapy crawl forager`` against a loopback site.

Each crawl is short: ``CLOSESPIDER_PAGECOUNT`` ends it (``FORAGERS_MAX_PATHS`` does not, see
``test_forager_bad_input.test_max_paths_ends_the_crawl_by_itself``), with
``CLOSESPIDER_TIMEOUT`` only as a backstop that a passing test never reaches.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

from tests.integration.testsite import TestSite, article_html, assert_ended_cleanly, crawl_forager, news_site

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def site():
    with TestSite() as served:
        yield served


def paths_of(items: list[dict]) -> set[str]:
    return {urlsplit(item["url"]).path for item in items}


def test_robots_txt_disallowed_path_is_never_requested(site, tmp_path):
    site.robots("User-agent: *\nDisallow: /private/\n")
    site.article("/private/secret.html", "Secret story", topic=1, n=9, age=timedelta(minutes=5))
    published = news_site(site, 6, extra_home_links=["/private/secret.html"])

    run = crawl_forager(site.url, tmp_path, settings={"ROBOTSTXT_OBEY": True, "CLOSESPIDER_PAGECOUNT": 25})

    assert_ended_cleanly(run)
    assert site.count("/private/secret.html") == 0
    assert site.count("/robots.txt") == 1  # fetched once, before anything else
    assert site.hits_of()[0].path == "/robots.txt"
    assert run.stats["robotstxt/response_status_count/200"] == 1
    # robots.txt is read before the first step page arrives: the forbidden link is dropped
    # from the step's links (never probed, never a failed probe) and the step goes on
    assert run.stats["newsforagers/skipped/robots_link"] >= 1
    assert run.stats.get("newsforagers/failed/probe/IgnoreRequest", 0) == run.stats.get("robotstxt/forbidden", 0) == 0
    found = paths_of(run.items)
    assert found and found <= set(published)


def test_autothrottle_spaces_requests_and_the_forager_still_finds_documents(site, tmp_path):
    published = news_site(site, 5)
    min_delay = 0.1
    settings = {
        "AUTOTHROTTLE_ENABLED": True, "AUTOTHROTTLE_DEBUG": True, "AUTOTHROTTLE_START_DELAY": 0.3,
        "AUTOTHROTTLE_MAX_DELAY": 1.0, "AUTOTHROTTLE_TARGET_CONCURRENCY": 1.0,
        "DOWNLOAD_DELAY": min_delay, "RANDOMIZE_DOWNLOAD_DELAY": False, "CLOSESPIDER_PAGECOUNT": 14,
    }

    run = crawl_forager(site.url, tmp_path, settings=settings)

    assert_ended_cleanly(run)
    assert "'scrapy.extensions.throttle.AutoThrottle'" in run.log  # in "Enabled extensions"
    # AUTOTHROTTLE_DEBUG: one line per response with the slot's delay after adjusting it
    delays = [int(ms) for ms in re.findall(r"slot: 127\.0\.0\.1 \| conc: *\d+ \| delay: *(\d+) ms", run.log)]
    assert len(delays) >= 10, run.describe()
    # from the start delay down towards the latency of a loopback site, never under DOWNLOAD_DELAY
    assert delays[0] <= 300 and delays[-1] < delays[0], delays
    assert all(min_delay * 1000 <= ms <= 300 for ms in delays), delays
    # the site saw the requests spaced by the slot's delay (Scrapy spaces the sends; a busy
    # machine can shift one arrival a little, never the whole series)
    times = [hit.at for hit in site.hits_of()]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(gaps) >= 10, gaps
    assert times[-1] - times[0] >= len(gaps) * min_delay * 0.95 and min(gaps) >= min_delay / 2, gaps
    found = paths_of(run.items)
    assert found and found <= set(published)


def test_httpcache_second_run_is_served_from_the_cache(site, tmp_path):
    # RFC 2616 policy: articles are fresh for an hour; the front page is stale at once. A
    # forager never takes a listing from the cache (a stale one hides the news, and Scrapy's
    # default policy would serve it for ever): its steps on pages not known to be articles
    # carry dont_cache, so the front page is downloaded afresh every time.
    modified = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)
    published = news_site(site, 5, headers={"Cache-Control": "max-age=3600"}, last_modified=modified)
    site.home(sorted(published), headers={"Cache-Control": "max-age=0, must-revalidate"},
              last_modified=modified)
    settings = {
        "HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(tmp_path / "httpcache"),
        "HTTPCACHE_POLICY": "scrapy.extensions.httpcache.RFC2616Policy", "CLOSESPIDER_PAGECOUNT": 20,
    }

    first = crawl_forager(site.url, tmp_path, settings=settings, name="first")
    assert_ended_cleanly(first)
    assert first.stats["httpcache/store"] >= 5  # the articles
    first_requests = site.counts()
    # a forager downloads an article as a probe, then again as a step: the second one is a hit
    assert first.stats["httpcache/hit"] > 0
    assert all(first_requests[path] == 1 for path in published), first_requests
    site.reset()

    # the same walk again (same FORAGERS_SEED), with a fresh colony store
    second = crawl_forager(site.url, tmp_path, settings=settings, name="second")
    assert_ended_cleanly(second)
    assert second.stats["httpcache/hit"] > first.stats["httpcache/hit"]
    second_requests = site.counts()
    assert sum(second_requests.values()) < sum(first_requests.values())
    assert not any(second_requests[path] for path in published)  # fresh articles: not asked again
    home = site.hits_of("/")
    # the front page: a step asks it afresh (no validators from a cached copy: answered in
    # full); a probe of it may go through the cache, which revalidates it (304)
    assert any(hit.status == 200 and not hit.if_modified_since for hit in home), home
    assert all((hit.status == 200 and not hit.if_modified_since)
               or (hit.status == 304 and hit.if_modified_since) for hit in home), home
    # documents read from cached pages are still found (the store is new), dated on the site's
    # clock of a fresh download, not on the cached copies' old Date
    found = paths_of(second.items)
    assert found and found <= set(published)
    assert second.stats["newsforagers/clock/stale_date"] >= 1


def test_retry_refetches_a_page_failing_with_503_and_finds_its_document(site, tmp_path):
    published = news_site(site, 4, extra_home_links=["/news/flaky.html"])
    body, flaky_time = article_html("Flaky story", topic=2, n=7, age=timedelta(minutes=3))
    site.flaky("/news/flaky.html", failures=2, then=body)  # 503, 503, then the article

    run = crawl_forager(site.url, tmp_path, settings={"RETRY_ENABLED": True, "RETRY_TIMES": 2,
                                                       "CLOSESPIDER_PAGECOUNT": 20})

    assert_ended_cleanly(run)
    assert site.statuses("/news/flaky.html")[:3] == [503, 503, 200]
    assert run.stats["retry/count"] == 2
    assert run.stats["retry/reason_count/503 Service Unavailable"] == 2
    assert "retry/max_reached" not in run.stats
    assert not any(key.startswith("newsforagers/failed/") for key in run.stats)
    flaky = [item for item in run.items if item["url"] == site.url_of("/news/flaky.html")]
    assert len(flaky) == 1 and datetime.fromisoformat(flaky[0]["published"]) == flaky_time
    assert paths_of(run.items) <= {*published, "/news/flaky.html"}


@pytest.fixture(scope="module")
def offsite_run(tmp_path_factory):
    """One crawl for the offsite tests: the front page links to another host directly, and
    to a page that redirects to another host (``localhost``: the same loopback server under
    another name, so a request that got through would be seen, and nothing leaves 127.0.0.1)."""
    tmp = tmp_path_factory.mktemp("offsite")
    with TestSite() as site:
        site.article("/elsewhere.html", "Story on another host", topic=1, n=11, age=timedelta(minutes=2))
        site.redirect("/news/moved.html", site.url_of("/elsewhere.html", host="localhost"))
        published = news_site(site, 5, extra_home_links=[
            "/news/moved.html", site.url_of("/linked-elsewhere.html", host="localhost")])
        run = crawl_forager(site.url, tmp, settings={"CLOSESPIDER_PAGECOUNT": 20})
        yield site, run, published


def test_offsite_links_are_not_followed_and_the_crawl_ends_by_itself(offsite_run):
    site, run, published = offsite_run
    assert_ended_cleanly(run)
    assert site.count("/linked-elsewhere.html") == 0
    on_site = f"127.0.0.1:{site.port_number}"
    assert all(hit.host == on_site for hit in site.hits_of() if hit.path != "/elsewhere.html")
    assert site.count("/news/moved.html") >= 1  # the redirect itself is on site
    assert run.stats["downloader/response_status_count/302"] >= 1
    found = paths_of(run.items)
    assert found and set(published) & found


def test_offsite_middleware_filters_a_redirect_to_another_host(offsite_run):
    site, run, published = offsite_run
    assert site.count("/elsewhere.html") == 0, [h for h in site.hits_of("/elsewhere.html")]
    assert run.stats.get("offsite/filtered", 0) >= 1
    # parse_probe names an item by the URL it asked for: a followed redirect's page would
    # be sent as that of /news/moved.html
    assert "Story on another host" not in {item["title"] for item in run.items}
