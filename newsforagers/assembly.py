"""Assembling a forager: its mind (the papers' :class:`~newsforagers.strategies.paper.PaperMind`
or a :class:`~newsforagers.strategies.scheduled.ScheduledMind`), its encoder, its driver
(the mind's only door to Scrapy), and its place in the colony.

The scheduler calls :func:`assemble` when it opens (settings final, stats ready), with the
spider Scrapy hands it: the spider's arguments (``-a seeds=... mode=... model=... forager=...
speed=...``) say what to build, the crawler's :class:`~newsforagers.context.ForagerContext` holds
the parsed settings and receives what was built. The crawler ``scrapy crawl`` started (the
root) also makes the colony — this process's view of it: the store, the population, the
spawner — and starts it; a forager the colony's spawner started gets the colony as its
``colony`` argument and what it is born with (a split's hand-over) from the store.
"""

from __future__ import annotations

from typing import Any

from newsforagers.colony.local import Colony, handover_key
from newsforagers.context import ForagerContext
from newsforagers.driver import Driver, build_driver


def assemble(context: ForagerContext, spider: Any) -> Driver:
    """Build the forager of ``spider``'s arguments, fill ``context`` and return its driver
    (the same one when called again)."""
    if context.driver is not None:
        return context.driver
    config, crawler = context.config, context.crawler
    colony = spider.colony  # the in-process spawner's: this process's colony
    root = colony is None and getattr(spider, "role", "root") == "root"
    member = colony is None and not root  # started in a process of its own
    if colony is None:
        colony = Colony(crawler, config, hosting=root)
        colony.open()
        if root:
            # the second process hosting foragers on one store names its foragers apart
            spider.forager_id = colony.host_name(spider.forager_id)
        colony.claim_id(spider.forager_id)
        colony.speed = spider.speed
        colony.root_name = spider.forager_id
    context.name, context.colony = spider.forager_id, colony
    context.seeds, context.model_path = list(spider.seeds), spider.model_path
    context.topic = spider.topic  # the topical mode's relevance model (the reinforcing agent's too)
    spider.config, spider.colony = config, colony
    # what a child of a split is born with comes through the store (the colony's hand-over)
    handover = colony.store.get_value(handover_key(spider.forager_id)) if not root else None
    if member and handover and handover.get("host"):
        colony.host_token = str(handover["host"])  # whose share of the colony it is
    if member:
        # its place in the population is the store's (its parent reserved it); this process
        # renews its lease
        colony.join_as_member(spider.forager_id, crawler)
    driver = build_driver(crawler, config, spider, colony, handover)
    context.driver = spider.forager_driver = driver
    _start(context, spider, root)
    return driver


def _start(context: ForagerContext, spider: Any, root: bool) -> None:
    """Restore the forager's checkpoint (JOBDIR); the root also starts the colony: its own
    place in it, the other foragers (Alg. 9, or those alive at the checkpoint), its feed."""
    driver = context.driver
    driver.resume()
    if not root:
        return
    colony = context.colony
    if not driver.retired:
        colony.register(spider.forager_id, context.crawler, resumed=colony.resumed is not None)
    colony.prepare_feeds()
