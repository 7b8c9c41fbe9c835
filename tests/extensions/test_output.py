"""The output extension: what a forager's item pipelines let through goes to the store's output,
as JSON values, with its forager and host; the root's feed items are not written twice; a send
dropped before the reinforcing agent is told once and counted."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import logging
from types import SimpleNamespace

import pytest
import scrapy
from scrapy import Spider, signals
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.test import get_crawler

from newsforagers.colony.feed import FEED_MARK
from newsforagers.extensions.output import OutputExtension, plain_item
from newsforagers.pipelines import AgentDrop
from newsforagers.spiders.forager import ForagerSpider
from newsforagers.store import MemoryStore


class Story(scrapy.Item):
    url = scrapy.Field()
    when = scrapy.Field()


@dataclasses.dataclass
class Note:
    url: str
    price: decimal.Decimal


def extension():
    crawler = get_crawler(ForagerSpider, {"FORAGERS_STORE": "memory://"})
    # the one the add-on enabled, as Scrapy built it
    made = next(e for e in crawler.extensions.middlewares if isinstance(e, OutputExtension))
    made.context.name = "f2"
    made.context.colony = SimpleNamespace(store=MemoryStore(), host_token="host-a")
    crawler.stats.open_spider()
    return made


def test_each_item_the_pipelines_let_through_is_output_once_as_json_values():
    made = extension()
    crawler, store = made.crawler, made.context.colony.store
    when = datetime.datetime(2024, 1, 1, 10, 0, tzinfo=datetime.UTC)
    for item in ({"url": "http://s/1", "tags": ["a"], "source_project": "newsdesk"},
                 Story(url="http://s/2", when=when), Note("http://s/3", decimal.Decimal("1.50"))):
        crawler.signals.send_catch_log(signals.item_scraped, item=item, response=None, spider=None)
    # the root's feed sends the other foragers' outputs again: not written twice
    crawler.signals.send_catch_log(signals.item_scraped, item={"url": "http://s/1"}, response=None,
                                   spider=None, **{FEED_MARK: True})
    outputs = store.outputs_after(0)
    assert [(o.host, o.forager) for o in outputs] == [("host-a", "f2")] * 3
    assert [o.item for o in outputs] == [
        {"url": "http://s/1", "tags": ["a"], "source_project": "newsdesk"},
        {"url": "http://s/2", "when": "2024-01-01T10:00:00+00:00"},  # (Scrapy's JSON encoder: ISO 8601)
        {"url": "http://s/3", "price": "1.50"}]
    assert crawler.stats.get_value("newsforagers/output/items") == 3


def test_a_value_json_cannot_hold_becomes_its_text():
    class Odd:
        def __str__(self):
            return "odd!"

    assert plain_item({"url": "u", "x": Odd(), "n": [1, 2.5, None]}) == {"url": "u", "x": "odd!", "n": [1, 2.5, None]}


def test_a_send_dropped_before_the_agent_is_told_once_and_counted(caplog):
    made = extension()
    crawler = made.crawler
    send = {"forager_send": True, "url": "http://s/1"}
    with caplog.at_level(logging.WARNING, logger="newsforagers.extensions.output"):
        for _ in range(3):
            crawler.signals.send_catch_log(signals.item_dropped, item=send, response=None,
                                           exception=DropItem("mine"), spider=None)
        # the agent's own drops (not novel...) and a drop of an output are no such thing
        crawler.signals.send_catch_log(signals.item_dropped, item=send, response=None,
                                       exception=AgentDrop("not novel"), spider=None)
        crawler.signals.send_catch_log(signals.item_dropped, item={"url": "http://s/2"}, response=None,
                                       exception=DropItem("odd"), spider=None)
    assert crawler.stats.get_value("newsforagers/agent/unjudged") == 3
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "neither paid nor charged" in warnings[0].getMessage()
    assert made.context.colony.store.output_count() == 0


def test_only_forager_spiders_are_served():
    with pytest.raises(NotConfigured):
        OutputExtension.from_crawler(get_crawler(Spider, {"ADDONS": {"newsforagers.addon.ForagersAddon": 0}}))


def test_a_forager_refuses_to_start_without_it():
    from scrapy.settings import Settings

    from newsforagers.addon import ForagersAddon
    from newsforagers.checks import check_components
    from newsforagers.errors import ForagersUsageError

    settings = Settings({"EXTENSIONS": {"newsforagers.extensions.output.OutputExtension": None}})
    ForagersAddon().update_settings(settings)
    with pytest.raises(ForagersUsageError, match="EXTENSIONS disables newsforagers.extensions.output.OutputExtension"):
        check_components(settings)
