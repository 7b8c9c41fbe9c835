"""The baselines given several start pages on several hosts (a many-site replay's seeds file):
each starts from every site, stays on those sites, spends its budget per host, and keeps its
one-URL form (no crawl: spiders built with Scrapy's test crawler)."""

from __future__ import annotations

import asyncio
import json

import pytest
from scrapy import Request
from scrapy.core.downloader import Downloader
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.settings import Settings
from scrapy.utils.test import get_reactor_settings

from newsforagers.evaluation.baselines import (
    AdaptiveSpider,
    BestFirstSpider,
    BfsSpider,
    FeedsSpider,
    HubsSpider,
    OracleSpider,
    RandomSpider,
)
from newsforagers.evaluation.baselines.common import parse_starts

HOMES = ["http://127.1.0.1:4001/", "http://127.1.0.2:4002/", "http://127.1.0.3:4003/"]


@pytest.fixture
def seeds(tmp_path):
    path = tmp_path / "seeds.txt"
    path.write_text("# every site's home page\n" + "\n".join(HOMES) + "\n\n")
    return f"@{path}"


def build(cls, start: str, rate: float = 20.0, **kwargs):
    """The spider as ``scrapy crawl`` makes it: built while the settings can still change,
    then the crawler's settings applied (its stats made)."""
    settings = Settings({"TELNETCONSOLE_ENABLED": False, **get_reactor_settings()})
    crawler = AsyncCrawlerRunner(settings).create_crawler(cls)
    spider = cls.from_crawler(crawler, start=start, rate=rate, **kwargs)
    crawler._apply_settings()
    crawler.spider = spider
    return spider


def started(spider) -> list[str]:
    async def collect():
        return [request async for request in spider.start()]

    return [request.url for request in asyncio.run(collect())]


def test_start_pages_are_one_url_a_list_or_a_file(seeds, tmp_path):
    assert parse_starts(HOMES[0], "bfs") == HOMES[:1]
    assert parse_starts(" , ".join(HOMES + HOMES[:1]), "bfs") == HOMES  # each once, in order
    assert parse_starts(seeds, "bfs") == HOMES
    with pytest.raises(ValueError, match="bfs needs a start page"):
        parse_starts("", "bfs")
    bad = tmp_path / "bad.txt"
    bad.write_text("127.1.0.1/\n")
    with pytest.raises(ValueError, match=r"start \('127.1.0.1/'\) in start file .* must be an absolute http"):
        parse_starts(f"@{bad}", "bfs")
    with pytest.raises(ValueError, match="cannot be read"):
        parse_starts("@/nonexistent/seeds.txt", "bfs")
    with pytest.raises(ValueError, match="has none"):
        parse_starts(" , ", "bfs")


@pytest.mark.parametrize("cls", [BfsSpider, HubsSpider, AdaptiveSpider, RandomSpider])
def test_the_budget_holds_per_host(seeds, cls):
    spider = build(cls, seeds, rate=20.0)
    settings = spider.crawler.settings
    assert settings.getfloat("DOWNLOAD_DELAY") == pytest.approx(1.05 / 20)
    assert settings.getint("CONCURRENT_REQUESTS") == 2 * 3  # each site's share of the queue
    assert spider.allowed_domains == ["127.1.0.1", "127.1.0.2", "127.1.0.3"]
    assert all(spider.on_site(home + "x/") for home in HOMES)
    assert not spider.on_site("http://127.1.0.1:4002/")  # another port: another site
    # Scrapy keeps one download slot (its delay) per host name: one per site
    downloader = Downloader(spider.crawler)
    assert len({downloader.get_slot_key(Request(home)) for home in HOMES}) == 3
    one = build(cls, HOMES[0], rate=20.0)
    assert one.crawler.settings.getint("CONCURRENT_REQUESTS") == 2 and one.homes == HOMES[:1]


def test_bfs_starts_every_round_at_every_home(seeds):
    spider = build(BfsSpider, seeds)
    assert started(spider) == HOMES
    assert [r.url for r in spider.new_round()] == HOMES and spider.round == 2
    assert spider.round_seen == set(HOMES)


@pytest.mark.parametrize("cls", [HubsSpider, AdaptiveSpider])
def test_hub_crawlers_poll_each_site_on_its_own(seeds, cls):
    spider = build(cls, seeds)
    assert set(spider.hubs) == set(HOMES)
    assert started(spider) == HOMES  # one poll in flight a site, all at once
    assert spider.next_polls() == []
    spider.polling.discard(spider.origins[1])  # site 1's poll answered
    assert [r.url for r in spider.next_polls()] == [HOMES[1]]
    spider.add_hub(HOMES[2] + "section/world/")
    assert [hub.url for hub in spider.site_hubs(spider.origins[2])] == [HOMES[2], HOMES[2] + "section/world/"]


def test_the_random_walk_runs_one_walker_a_site(seeds):
    spider = build(RandomSpider, seeds, seed="1")
    assert spider.walkers == 3 and started(spider) == HOMES
    assert build(RandomSpider, seeds, walkers="1").walkers == 1
    assert build(RandomSpider, HOMES[0]).walkers == 1


def test_feeds_reads_every_sites_robots_and_home(seeds):
    spider = build(FeedsSpider, seeds)
    assert started(spider) == [home + "robots.txt" for home in HOMES] + HOMES
    assert spider.hubs == {} and spider.next_poll() is None
    requests = spider.discovered([HOMES[0] + "feed.xml", HOMES[2] + "feed.xml", "http://elsewhere/f.xml"])
    assert [r.url for r in requests] == [HOMES[0] + "feed.xml", HOMES[2] + "feed.xml"]


def test_best_first_fetches_every_home_first(seeds):
    spider = build(BestFirstSpider, seeds, topic="news")
    assert started(spider) == HOMES and spider.in_flight == 3


def test_the_oracle_asks_each_story_at_its_site(tmp_path, seeds):
    truth = tmp_path / "truth.jsonl"
    truth.write_text("".join(json.dumps(record) + "\n" for record in [
        {"path": "/a/", "url": HOMES[1] + "a/", "published": "2024-01-01T08:00:00+00:00"},
        {"path": "/b/", "published": "2024-01-01T09:00:00+00:00"},
        {"path": "/c/", "url": "http://127.9.9.9:1/c/", "published": "2024-01-01T10:00:00+00:00"},
    ]))
    spider = build(OracleSpider, seeds, truth=str(truth))
    assert [spider.article_url(target) for target, _ in spider.truth] == [
        HOMES[1] + "a/", HOMES[0] + "b/", HOMES[0] + "c/"]  # off the sites: its path on the first
    one = build(OracleSpider, HOMES[0], truth=str(truth))
    assert one.article_url("/b/") == HOMES[0] + "b/"
