"""The host extension: the root's crawler follows its host's share of the output into its feed,
stays open while its other foragers live, and renews its foragers' leases; another forager's
crawler hosts nothing."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from scrapy import Spider, signals
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.utils.test import get_crawler

from newsforagers.colony.local import Colony
from newsforagers.extensions import host
from newsforagers.extensions.host import ColonyHostExtension
from newsforagers.spiders.forager import ForagerSpider
from newsforagers.store import MemoryStore


def extension(tmp_path, colony_of=None, **settings):
    """The extension the add-on enabled on a forager's crawler; its context is given the colony
    the scheduler would assemble (``colony_of``'s, else a new one this crawler hosts)."""
    crawler = get_crawler(ForagerSpider, {"FORAGERS_RUN_DIR": str(tmp_path / "run"), **settings})
    made = next(e for e in crawler.extensions.middlewares if isinstance(e, ColonyHostExtension))
    colony = colony_of if colony_of is not None else Colony(crawler, made.context.config, store=MemoryStore())
    colony.open()
    made.context.colony = colony
    crawler.stats.open_spider()
    crawler.spider = object()  # the feed's item_scraped names the root's spider
    return made


def output(store, url: str, forager: str, host_token: str) -> dict:
    item = {"url": url, "forager": forager}
    store.add_output(item, host_token, forager)
    return item


def scraped(crawler) -> list:
    got = []
    crawler.signals.connect(lambda item, **kwargs: got.append(item), signal=signals.item_scraped, weak=False)
    return got


def test_the_idle_root_takes_its_other_foragers_outputs_and_stays_open_while_they_live(tmp_path):
    made = extension(tmp_path)
    colony, crawler = made.context.colony, made.crawler
    colony.register("f1", crawler)
    colony.register("f2", None)  # another forager of this host, in the store's population
    got = scraped(crawler)
    item = output(colony.store, "http://s/a", "f2", colony.host_token)
    with pytest.raises(DontCloseSpider):
        made.spider_idle(None)
    assert got == [item]
    assert crawler.stats.get_value("newsforagers/colony/feed_items") == 1
    colony.unregister("f2")  # it ended: the root may close now
    made.spider_idle(None)
    assert got == [item]  # each output once


def test_the_root_follows_the_store_every_interval_and_renews_leases_until_it_closes(tmp_path, monkeypatch):
    monkeypatch.setattr(host, "FEED_EVERY", 0.0)
    made = extension(tmp_path)
    colony, crawler = made.context.colony, made.crawler
    colony.register("f1", crawler)
    got = scraped(crawler)
    item = output(colony.store, "http://s/a", "f2", colony.host_token)

    async def life():
        made.spider_opened(None)
        assert colony.membership._lease_task is not None  # this process's leases are renewed
        for _ in range(3):
            await asyncio.sleep(0)
        made.spider_closed(None)
        await asyncio.sleep(0)
        colony.close()
        return made._task

    task = asyncio.run(life())
    assert got == [item] and task.cancelled()


def test_another_forager_s_crawler_hosts_nothing(tmp_path):
    root = extension(tmp_path)
    colony = root.context.colony
    colony.register("f1", root.crawler)
    child = extension(tmp_path, colony_of=colony)  # a crawler the in-process spawner started
    colony.store.join("f2", time.time() + 30, time.time(), fields=colony.membership.fields())
    output(colony.store, "http://s/a", "f2", colony.host_token)
    got = scraped(child.crawler)
    child.spider_opened(None)
    child.spider_idle(None)  # no DontCloseSpider: it is not the one kept open
    assert child._task is None and got == [] and colony.membership._lease_task is None


def test_a_spider_that_is_no_forager_has_no_host_extension(caplog):
    with caplog.at_level(logging.DEBUG), pytest.raises(NotConfigured, match="only serves forager spiders"):
        ColonyHostExtension.from_crawler(get_crawler(Spider))
    assert "Disabled ColonyHostExtension: spider Spider is no forager" in caplog.text
