"""Assembling a forager (newsforagers.assembly): the root makes and opens the colony and takes
its place in it; a forager the in-process spawner started joins the colony it is given; a
member started in a process of its own joins the colony through the store, with the host whose
share it is; every crawler's context receives what was built, once."""

from __future__ import annotations

import asyncio
import time

from scrapy.utils.test import get_crawler

from newsforagers.assembly import assemble
from newsforagers.colony.keys import handover_key
from newsforagers.context import context_of
from newsforagers.spiders.forager import ForagerSpider

SEEDS = "http://site.example/,http://site.example/news/"


def crawler_and_spider(tmp_path, settings=None, **arguments):
    crawler = get_crawler(ForagerSpider, {"FORAGERS_RUN_DIR": str(tmp_path / "run"),
                                          "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db",
                                          "FORAGERS_STRATEGY": "paper", **(settings or {})})
    spider = ForagerSpider(seeds=SEEDS, **arguments)  # the arguments as `-a` gives them
    crawler.spider = spider
    crawler.stats.open_spider()
    return crawler, spider


def test_the_root_opens_the_colony_takes_its_place_and_fills_its_context(tmp_path):
    crawler, spider = crawler_and_spider(tmp_path)
    context = context_of(crawler)
    try:
        driver = assemble(context, spider)
        colony = context.colony
        assert context.name == spider.forager_id == "f1" and context.driver is driver
        assert spider.forager_driver is driver and spider.colony is colony and spider.config is context.config
        assert colony.hosting and colony.root_name == "f1" and context.is_forager
        assert context.seeds == ["http://site.example/", "http://site.example/news/"]
        assert "f1" in colony.store.members(time.time())  # its place in the population
        assert assemble(context, spider) is driver  # once
    finally:
        context.colony.close()


def test_a_forager_the_in_process_spawner_started_joins_the_colony_it_is_given(tmp_path):
    root_crawler, root_spider = crawler_and_spider(tmp_path)
    root_context = context_of(root_crawler)
    assemble(root_context, root_spider)
    colony = root_context.colony
    try:
        colony.store.put_value(handover_key("f2"), {"weblog": None, "weights": None, "host": colony.host_token})
        crawler, spider = crawler_and_spider(tmp_path / "f2", forager="f2", colony=colony)
        context = context_of(crawler)
        driver = assemble(context, spider)
        assert context.colony is colony and context.name == "f2" and driver.name == "f2"
        assert colony.root_name == "f1"  # the root's colony, not a new one
        assert not colony.membership.foragers.get("f2")  # the spawner registers it, not the assembly
    finally:
        colony.close()


def test_a_member_of_its_own_process_joins_through_the_store_as_its_host_s_share(tmp_path):
    async def assembled():  # a member renews its lease on the running loop, as in its crawl
        root_crawler, root_spider = crawler_and_spider(tmp_path)
        root_context = context_of(root_crawler)
        assemble(root_context, root_spider)
        colony = root_context.colony
        try:
            assert colony.reserve_place("f2", "f1")
            colony.store.put_value(handover_key("f2"), {"weblog": None, "weights": None, "host": "host-of-f1"})
            crawler, spider = crawler_and_spider(tmp_path, forager="f2", role="member")
            context = context_of(crawler)
            assemble(context, spider)
            member_colony = context.colony
            try:
                assert member_colony is not colony and not member_colony.hosting
                assert member_colony.host_token == "host-of-f1"  # its outputs are that host's share
                assert {"f1", "f2"} <= set(colony.store.members(time.time()))
            finally:
                member_colony.close()
        finally:
            colony.close()

    asyncio.run(assembled())


def test_a_crawler_s_context_is_made_once_and_none_without_the_add_on(tmp_path):
    from scrapy import Spider

    crawler = get_crawler(ForagerSpider, {"FORAGERS_MIN": 3})
    context = context_of(crawler)
    assert context is context_of(crawler) and context.config.min == 3
    assert not context.is_forager and not context.is_root  # nothing assembled yet
    assert context_of(get_crawler(Spider)) is None  # a project without the add-on
