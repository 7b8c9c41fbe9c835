"""The root's share of the colony's output, followed in the store.

Every forager is a Scrapy crawler with the project's ``ITEM_PIPELINES``: a document it finds
goes through them in its own crawler, and what they let through is the colony's output, which
:class:`~newsforagers.extensions.output.OutputExtension` writes to the store (``add_output``:
the item as the pipelines left it, the forager, its host). The user's feed exports (``-O``,
``FEEDS``) live in the root's crawler alone; :class:`ColonyFeed` hands it the outputs of the
other foragers of its host, in the order they were written, each once. The root's own outputs
reach its feed as any crawler's do.

An item a pipeline drops is never an output, so it reaches no feed, no export, no index and no
dashboard; an output of another host (another ``scrapy crawl`` process on the same store,
:mod:`newsforagers.colony.hosts`) is that host's feed's.
"""

from __future__ import annotations

from typing import Iterable

from newsforagers.store import ColonyStore
from newsforagers.store.base import Output

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
