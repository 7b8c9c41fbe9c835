"""The root's feed: its host's share of the store's output, fired as the root's own
``item_scraped`` (marked), each output once, not before the root has a spider."""

from __future__ import annotations

from scrapy import signals
from scrapy.utils.test import get_crawler

from newsforagers.colony.feed import FEED_MARK, ColonyFeed, RootFeed
from newsforagers.store import MemoryStore


def test_the_root_s_feed_takes_its_host_s_other_outputs_once_and_marked():
    store = MemoryStore()
    crawler = get_crawler(settings_dict={})
    crawler.stats.open_spider()
    feed = RootFeed(crawler, ColonyFeed(store, "host-a", None))
    got = []
    crawler.signals.connect(lambda item, **kwargs: got.append((item["url"], kwargs.get(FEED_MARK))),
                            signal=signals.item_scraped, weak=False)
    store.add_output({"url": "http://s/a"}, "host-a", "f2")
    assert feed.output_new("f1") == 0 and feed.source.position == 0  # no spider yet: it waits
    crawler.spider = object()
    store.add_output({"url": "http://s/b"}, "host-a", "f1")  # the root's own: its pipelines'
    store.add_output({"url": "http://s/c"}, "host-b", "h2.f1")  # another host's
    assert feed.output_new("f1") == 1 and got == [("http://s/a", True)]
    assert feed.output_new("f1") == 0
    assert crawler.stats.get_value("newsforagers/colony/feed_items") == 1


def test_a_fresh_feed_has_nothing_to_output_again():
    store = MemoryStore()
    crawler = get_crawler(settings_dict={})
    feed = RootFeed(crawler, ColonyFeed(store, "host-a", "f1"))
    store.add_output({"url": "http://s/a"}, "host-a", "f2")
    feed.prepare(0, store.safe_url)  # no FEEDS: nothing to check, nothing to output again
    assert feed._missing == []
