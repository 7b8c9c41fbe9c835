"""``ForagerContext``: what the Scrapy components of one forager's crawler share.

One per crawler, kept by the crawler's :class:`~newsforagers.addon.ForagersAddon` instance (the
add-on every forager runs with) and handed to each component in its ``from_crawler`` by
:func:`context_of` — Scrapy's public ``Crawler.get_addon`` — so no component reaches through
``crawler.spider`` for its collaborators. It holds the ``FORAGERS_*`` settings parsed once
for the crawler and, once the scheduler opens and the forager is assembled
(:mod:`newsforagers.assembly`), the forager's name, its driver (the only door to its mind:
components ask the driver, never the mind) and its colony. A crawler whose
spider is not a forager gets a context with neither: every component then lets it be.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from newsforagers.addon import ForagersAddon
from newsforagers.config import ForagersConfig

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class ForagerContext:
    def __init__(self, crawler: Crawler, config: ForagersConfig):
        self.crawler = crawler
        self.config = config
        self.name: str | None = None  # the forager's id, once assembled
        self.driver: Any = None  # its Driver
        self.colony: Any = None  # its Colony (this process's view of it)
        self.seeds: list[str] = []  # its spider's seeds (a split's child without a weblog starts from them)
        self.model_path: str | None = None  # its spider's -a model
        self.topic: Any = None  # its topical mode's relevance model (-a topic, FORAGERS_TOPIC)

    @property
    def is_forager(self) -> bool:
        return self.driver is not None

    @property
    def is_root(self) -> bool:
        """This crawler hosts the colony (the one ``scrapy crawl`` started)."""
        return self.colony is not None and self.colony.hosting and self.colony.root is self.crawler


def context_of(crawler: Crawler) -> ForagerContext | None:
    """The crawler's forager context (None when the crawler runs without the add-on). The
    ``FORAGERS_*`` settings are parsed the first time, with the crawler's final settings."""
    addon = crawler.get_addon(ForagersAddon)
    if addon is None:
        return None
    if addon.context is None:
        addon.context = ForagerContext(crawler, ForagersConfig.from_settings(crawler.settings))
    return addon.context
