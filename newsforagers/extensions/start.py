"""``ColonyStartExtension``: the root's crawler starts the colony's population once its engine runs.

Scrapy opens a crawler's scheduler before its engine starts, and the forager is assembled there
(its mind, its driver, this process's view of the colony: :mod:`newsforagers.assembly`). The
other foragers are started later, at ``engine_started`` on the root's crawler: Alg. 9's first
``FORAGERS_MIN − 1`` foragers beside the root or, on a resume, every forager alive at the
population's checkpoint (:meth:`~newsforagers.colony.spawning.Spawning.start_population`). From
then on the root's engine no longer running means that the colony is ending
(:meth:`~newsforagers.colony.local.Colony.ending`): a forager is no longer started then.

A forager in a process of its own (``role=member``) starts no population: its own engine's
start only marks its view of the colony as running.
"""

from __future__ import annotations

from scrapy import signals

from newsforagers.context import ForagerContext
from newsforagers.extensions.population import forager_context


class ColonyStartExtension:
    def __init__(self, crawler, context: ForagerContext):
        self.crawler = crawler
        self.context = context
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler, forager_context(crawler, "ColonyStartExtension"))

    def engine_started(self) -> None:
        context = self.context
        colony = context.colony
        if colony is None or context.driver is None or colony.root is not self.crawler:
            return  # no forager (its scheduler did not assemble one), or a child of this process
        if context.is_root:
            share = colony.start_population(context.seeds, context.driver.mode, context.model_path)
            if share is not None:  # scheduled foragers dealt the seeds by host: the root's own
                context.driver.take_share(share)
        colony.root_started()
