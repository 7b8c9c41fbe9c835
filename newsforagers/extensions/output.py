"""``OutputExtension``: what a forager's item pipelines let through becomes the colony's output.

Scrapy's contract is that a feed holds what ``ITEM_PIPELINES`` let through. Each forager is a
crawler of its own with the project's pipelines (the reinforcing agent among them), and may run
in another process or on another machine; only the root's crawler holds the user's feed
exports. So every forager's crawler, on ``item_scraped`` — after the last pipeline, never for
an item one of them dropped — writes the item to the store's output, as the pipelines left it
(JSON values: Scrapy's JSON encoder turns dates, decimals and items into them), with its name
and its host. The root's feed (:mod:`newsforagers.colony.feed`), ``newsforagers export``, the
search index and the dashboard all read that output: each document once, whichever forager or
process found it.

It also tells the user once when a pipeline ordered before the reinforcing agent drops a
forager's send: the agent never judged it, so its sender was neither paid nor charged
(docs/quickstart.md, *Your item pipelines*).
"""

from __future__ import annotations

import json
import logging

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.utils.serialize import ScrapyJSONEncoder

from newsforagers.colony.feed import FEED_MARK
from newsforagers.context import ForagerContext
from newsforagers.extensions.population import forager_context

logger = logging.getLogger(__name__)

class _Encoder(ScrapyJSONEncoder):
    """Scrapy's JSON encoder, and the text of anything else (a user's own type in an item)."""

    def default(self, o):
        try:
            return super().default(o)
        except TypeError:
            return str(o)


def plain_item(item) -> dict:
    """The item as JSON values (what the store keeps and every reader gets back)."""
    return json.loads(json.dumps(ItemAdapter(item).asdict(), cls=_Encoder, ensure_ascii=False))


class OutputExtension:
    def __init__(self, crawler, context: ForagerContext):
        self.crawler = crawler
        self.context = context
        self._warned = False
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.item_dropped, signal=signals.item_dropped)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler, forager_context(crawler, "OutputExtension"))

    def item_scraped(self, item, **kwargs) -> None:
        colony = self.context.colony
        if kwargs.get(FEED_MARK) or colony is None:
            return
        try:
            data = plain_item(item)
        except (TypeError, ValueError) as exc:
            self.crawler.stats.inc_value("newsforagers/output/unserializable")
            logger.error("forager %s: an output item cannot be kept in the colony's store (%s); "
                         "only this crawler's own feed exports have it", self.context.name, exc)
            return
        colony.store.add_output(data, colony.host_token, self.context.name)
        self.crawler.stats.inc_value("newsforagers/output/items")

    def item_dropped(self, item, exception=None, **kwargs) -> None:
        adapter = ItemAdapter(item)
        if not adapter.get("forager_send") or getattr(exception, "by_agent", False):
            return
        # dropped before the reinforcing agent saw it (the agent marks its own drops)
        self.crawler.stats.inc_value("newsforagers/agent/unjudged")
        if not self._warned:
            self._warned = True
            logger.warning("forager %s: an item pipeline ordered before the reinforcing agent "
                           "(ITEM_PIPELINES order < %s) dropped a forager's send (%s); the agent "
                           "never judged it, so the forager is neither paid nor charged for it. "
                           "Give output filters an order above the agent's (logged once; counted "
                           "in newsforagers/agent/unjudged)", self.context.name,
                           self.crawler.settings.getdict("ITEM_PIPELINES").get(
                               "newsforagers.pipelines.ReinforcingAgentPipeline", "?"),
                           adapter.get("url"))
