"""``PopulationExtension``: acts on the population policy's decisions for one forager.

Every forager crawler has one. With ``FORAGERS_POPULATION=score`` (Alg. 8) it asks the
policy after each judged send: a forager whose score reaches MAX_SCORE splits (a new forager
starts with a random half of its weblog, Alg. 6 — ``rl``: a copy of its fixed weblog — and its
weights — random ones for ``wl`` —
handed over through the store; both scores back to 100), if the store has a place left in
the population; one whose score falls to MIN_SCORE retires (its crawler closes with reason
``forager_retired``), if the store says the population is above its minimum. With ``energy``
(Mouton & Marteau) it asks after each step, with the step's profit as the page's relevance
(with a topic, the step page's relevance to it, as in the paper):
⌊E⌋ clones, retirement, or a teleport of the next path to a page with an energy remnant.

The population's size is the store's count of live members; the colony's spawner starts the
children (:mod:`newsforagers.colony.spawner`).
"""

from __future__ import annotations

import asyncio
import logging

from scrapy.exceptions import NotConfigured

from newsforagers import signals as forager_signals
from newsforagers.colony.handback import hand_back
from newsforagers.context import ForagerContext, context_of
from newsforagers.learning import EnergyPolicy

logger = logging.getLogger(__name__)

RETIRED = "forager_retired"


class NotAForager(NotConfigured):
    """The ``NotConfigured`` of a colony's component in a crawler whose spider is no forager.

    A project may enable the add-on for all its spiders, so this is expected, not a problem to
    warn about. Scrapy logs a ``NotConfigured`` that carries arguments as a WARNING
    ("Disabled ...: <message>", ``scrapy/middleware.py``) and one without arguments not at all:
    this one carries none, says what it means through ``str()``, and
    :func:`forager_context` logs it at DEBUG."""

    def __init__(self, component: str):
        super().__init__()
        self.component = component

    def __str__(self) -> str:
        return f"{self.component} only serves forager spiders."


def forager_context(crawler, extension: str) -> ForagerContext:
    """The crawler's forager context; :class:`NotAForager` when its spider is no forager (the
    colony's extensions serve only those) or the add-on is not enabled."""
    context = context_of(crawler) if getattr(crawler.spidercls, "is_forager", False) else None
    if context is None:
        logger.debug("Disabled %s: spider %s is no forager", extension, crawler.spidercls.__name__,
                     extra={"crawler": crawler})
        raise NotAForager(extension)
    return context


class PopulationExtension:
    def __init__(self, crawler, context: ForagerContext):
        self.crawler = crawler
        self.context = context
        crawler.signals.connect(self.reward_received, signal=forager_signals.reward_received)
        crawler.signals.connect(self.step_finished, signal=forager_signals.step_finished)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler, forager_context(crawler, "PopulationExtension"))

    # -- helpers --------------------------------------------------------------------------------

    @property
    def colony(self):
        return self.context.colony

    @property
    def is_root(self) -> bool:
        return self.context.is_root

    # -- score policy (Alg. 8) -----------------------------------------------------------------

    def reward_received(self, forager: str, score: float, rewarded: bool = False, **kwargs) -> None:
        colony = self.colony
        driver = self.context.driver
        if colony is None or driver is None or forager != driver.name or driver.retired:
            return
        if isinstance(colony.policy, EnergyPolicy):
            return
        decision = colony.policy.decide(forager, score, colony.population)
        if decision is None:
            return
        if decision.kind == "split":
            if not self._can_split():
                return  # its score stays: it splits once it has a starting URL again
            colony.store.set_score(forager, colony.config.score_init)
            self._spawn_children(1, None)
        elif decision.kind == "retire":
            self._retire()

    # -- energy policy (Mouton & Marteau) ---------------------------------------------------------

    def step_finished(self, forager: str, url: str, profit: float, value: float,
                      relevance: float | None = None, **kwargs) -> None:
        colony = self.colony
        driver = self.context.driver
        if colony is None or driver is None or forager != driver.name or driver.retired:
            return
        if not isinstance(colony.policy, EnergyPolicy) or forager not in colony.policy.energies:
            return
        # the step's profit (with a topic, its page's relevance) with the strategy's tie-breaks
        relevance = driver.energy_relevance(profit, value, relevance)
        for decision in colony.policy.visit(forager, url, relevance):
            if decision.kind == "split":
                if self._can_split():
                    self._spawn_children(decision.clones, decision.energy)
            elif decision.kind == "retire":
                self._retire()
            elif decision.kind == "teleport" and decision.target is not None:
                driver.teleport(str(decision.target))
                colony.event("teleport", forager, None, target=str(decision.target))

    # -- acting ---------------------------------------------------------------------------------

    def _can_split(self) -> bool:
        """Whether the forager has a starting URL to give a child (Alg. 6 halves the weblog). A
        scheduled forager walks on while its listings are gone — every one a day page that has
        closed, or given up — harvesting what they listed: split then, its child would be born
        with nothing to start from and end at once (seen in a two-node colony's run). No split;
        counted. Asked before :meth:`_spawn_children`, by each policy's path."""
        if self.context.driver.weblog_size > 0:
            return True
        self.crawler.stats.inc_value("newsforagers/population/split_without_weblog")
        return False

    def _spawn_children(self, clones: int, energy: float | None) -> None:
        colony = self.colony
        driver = self.context.driver
        for _ in range(clones):
            name = colony.new_id()
            if not colony.reserve_place(name, driver.name):
                break  # no place left in the population (the store's count), or the colony ends
            child = driver.split_child()  # Alg. 6 (strategies/common.py inherit)
            colony.spawn(name, seeds=child["seeds"], mode=driver.mode, parent=driver.name,
                         weblog=child["weblog"], weights=child["weights"], energy=energy,
                         model=self.context.model_path, weblog_before=child["weblog_before"],
                         weblog_child=child["weblog_child"], weblog_parent=child["weblog_parent"])
        self.context.driver.save_state()
        # the half of the weblog that left must not come back to the parent after a crash
        self.context.driver.checkpoint()

    def _retire(self) -> None:
        colony = self.colony
        driver = self.context.driver
        driver.share_snapshot(force=True)  # its last counts, for the colony's record
        if not colony.retire(driver.name):
            return  # the store says the population is at its minimum: it walks on
        driver.retire()
        colony.event("retire", driver.name, None)
        # its listings (scheduled: the hosts it polled) go back to the colony, for another
        # forager to adopt (colony/handback.py); the papers' forager hands back nothing
        listings = driver.hand_back()
        if listings and hand_back(colony.store, listings, driver.name):
            colony.event("handback", driver.name, None, listings=len(listings))
        driver.checkpoint()  # retired for good: not respawned, nor walking again, after a stop
        if not self.is_root:
            asyncio.ensure_future(self.crawler.engine.close_spider_async(reason=RETIRED))
        # the root keeps hosting the colony (its feed) until the others are done
