"""The root's share of the colony's output, followed in the store.

Every forager is a Scrapy crawler with the project's ``ITEM_PIPELINES``: a document it finds
goes through them in its own crawler, and what they let through is the colony's output, which
:class:`~newsforagers.extensions.output.OutputExtension` writes to the store (``add_output``:
the item as the pipelines left it, the forager, its host). The user's feed exports (``-O``,
``FEEDS``) live in the root's crawler alone; :class:`ColonyFeed` hands it the outputs of the
other foragers of its host, in the order they were written, each once. The root's own outputs
reach its feed as any crawler's do.

:class:`RootFeed` fires the root crawler's ``item_scraped`` for each of them, marked
(:data:`FEED_MARK`) so that they are not output again; on a resume it repairs the local JSON-lines
feeds before they reopen and outputs once more what the store holds of the job and they lost.

An item a pipeline drops is never an output, so it reaches no feed, no export, no index and no
dashboard; an output of another host (another ``scrapy crawl`` process on the same store,
:mod:`newsforagers.colony.hosts`) is that host's feed's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Iterable

from scrapy import signals

from newsforagers.colony import checkpoint as checkpoints
from newsforagers.store import ColonyStore
from newsforagers.store.base import Output

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: The keyword the root adds to the ``item_scraped`` it sends for another forager's output: the
#: item is in the store already, and must not be output again.
FEED_MARK = "newsforagers_feed"


class ColonyFeed:
    """Where one host's feed is in the store's output: ``position``, the outputs read so far."""

    def __init__(self, store: ColonyStore, host: str, root: str | None, position: int = 0):
        self.store = store
        self.host = host
        self.root = root  # the root forager's name: its outputs reach the feed by themselves
        self.position = position

    def new_items(self) -> list[dict]:
        """The items the host's other foragers output since the last call, in order."""
        outputs = self.store.outputs_after(self.position)
        if outputs:
            self.position = outputs[-1].position
        return [output.item for output in outputs if self.belongs(output)]

    def belongs(self, output: Output) -> bool:
        return output.host == self.host and output.forager != self.root

    def missing(self, since: int, present: Iterable[str]) -> list[dict]:
        """(A resume.) The host's outputs after the store's first ``since`` outputs whose
        ``url`` is not among ``present`` (those a local JSON-lines feed holds), the root's own
        included: a stop can come between an output and its line in the feed."""
        present = set(present)
        return [output.item for output in self.store.outputs_after(since)
                if output.host == self.host and output.url not in present]


class RootFeed:
    """The root crawler's feed exports, handed its host's share of the colony's output."""

    def __init__(self, root: Crawler, source: ColonyFeed):
        self.root = root
        self.source = source
        self._missing: list[dict] = []

    def output_new(self, root_name: str | None) -> int:
        """Put the other foragers' new outputs in the root's feed (its ``item_scraped``, as an
        item its own pipelines output would be, marked so that it is not output again), in the
        order they were output; returns how many. ``root_name``: the root forager's, whose own
        outputs reach its feed through its own pipelines."""
        spider = getattr(self.root, "spider", None)
        if spider is None:
            return 0
        self.source.root = root_name
        items = self.source.new_items()
        for item in items:
            self.root.signals.send_catch_log(signal=signals.item_scraped, item=item, response=None,
                                             spider=spider, **{FEED_MARK: True})
        if items:
            self.root.stats.inc_value("newsforagers/colony/feed_items", len(items))
        return len(items)

    def prepare(self, since: int, store_url: str) -> None:
        """(A resume, before the root's feed exports open.) Repair the local JSON-lines feeds
        and find the host's outputs after the store's first ``since`` that the feed lacks:
        they are output again once it is open."""
        local, other = checkpoints.local_feeds(self.root.settings.getdict("FEEDS"))
        reference = None
        for path, options in local:
            overwrite = bool(options.get("overwrite", False))
            if options.get("format") in checkpoints.JSONLINES and not overwrite:
                cut = checkpoints.repair_feed(path)
                if cut:
                    logger.warning("colony: feed %s ended in an unfinished item (%d bytes); cut off",
                                   path, cut)
                    self.root.stats.set_value("newsforagers/resume/feed_bytes_cut", cut)
                if reference is None:
                    reference = (path, checkpoints.feed_urls(path))
            elif overwrite and reference is None:
                reference = (path, set())  # the file starts empty again
        for uri in other + [str(p) for p, _ in local if reference is None or p != reference[0]]:
            logger.warning("colony: feed %s cannot be checked after the stop: it may miss documents "
                           "found before it, or hold some twice; `newsforagers export --store %s` "
                           "writes them all", uri, store_url)
        if reference is None:
            return
        self._missing = self.source.missing(since, reference[1])
        if self._missing:
            self.root.signals.connect(self._output_missing, signal=signals.spider_opened)

    def _output_missing(self, spider) -> None:
        """(After the feed exports opened.) The outputs of this job that the feed lost."""
        missing, self._missing = self._missing, []
        for item in missing:
            self.root.signals.send_catch_log(signal=signals.item_scraped, item=item, response=None,
                                             spider=spider, **{FEED_MARK: True})
        self.root.stats.set_value("newsforagers/resume/output_again", len(missing))
        logger.info("colony: %d document(s) output before the stop output again", len(missing))
