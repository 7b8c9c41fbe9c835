"""Assembling a forager: its mind (the papers' :class:`~newsforagers.forager.Forager` or a
:class:`~newsforagers.scheduled.ScheduledForager`), its encoder, its driver, and its place in
the colony.

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

import numpy as np

from newsforagers.clock import SiteClock
from newsforagers.colony.local import Colony, handover_key
from newsforagers.context import ForagerContext
from newsforagers.driver import ForagerDriver, ScheduledDriver
from newsforagers.forager import Forager, initial_weights
from newsforagers.learning import Weblog
from newsforagers.scheduled import ScheduledForager, schedule_from_config


def assemble(context: ForagerContext, spider: Any) -> ForagerDriver:
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
    spider.config, spider.colony = config, colony
    # what a child of a split is born with comes through the store (the colony's hand-over)
    handover = colony.store.get_value(handover_key(spider.forager_id)) if not root else None
    if member and handover and handover.get("host"):
        colony.host_token = str(handover["host"])  # whose share of the colony it is
    if member:
        # its place in the population is the store's (its parent reserved it); this process
        # renews its lease
        colony.join_as_member(spider.forager_id, crawler)
    weblog_saved = handover.get("weblog") if handover else None
    weights_saved = handover.get("weights") if handover else None
    # every forager draws its own stream from the colony's generator: reproducible for a seed
    rng = np.random.default_rng(int(colony.rng.integers(2**63)))
    weights = (np.asarray(weights_saved, dtype=np.float64) if weights_saved is not None
               else initial_weights(config, rng))

    def bootstrap(texts):
        # (imported when first needed, on the fit's thread: scikit-learn takes a second to
        # import, and the papers' forager walks on meanwhile — moving it changes the walks)
        from newsforagers.text import StateEncoder

        return StateEncoder(n_clusters=config.n_clusters, tanh_scale=config.tanh_scale,
                            tanh_offset=config.tanh_offset,
                            random_state=None if config.seed < 0 else config.seed).fit(texts)

    if config.strategy == "scheduled":
        driver = _scheduled(context, spider, colony, weblog_saved, weights, rng, bootstrap)
    else:
        weblog = (Weblog.from_dict(weblog_saved) if weblog_saved is not None
                  else Weblog.from_seeds(spider.seeds, size=config.weblog_size,
                                         start_size=config.weblog_start_size, beta=config.weblog_beta))
        forager = Forager(
            spider.forager_id, config, weblog, weights, rng, mode=spider.mode,
            encoder=spider.encoder, bootstrap=bootstrap, bootstrap_pages=config.bootstrap_pages,
            reuse_states=config.reuse_states, state_cache_size=config.state_cache_size,
            max_start_failures=config.start_failures, max_paths=config.max_paths,
            background_fit=True,
        )
        driver = ForagerDriver(crawler, spider, forager, config.step_timeout, colony.store)
    context.driver = spider.forager_driver = driver
    _start(context, spider, root)
    return driver


def _scheduled(context: ForagerContext, spider: Any, colony: Colony, saved: dict | None,
               weights: np.ndarray, rng: np.random.Generator, bootstrap) -> ScheduledDriver:
    config, crawler, store = context.config, context.crawler, colony.store
    schedule = schedule_from_config(config, spider.seeds, saved=saved)
    name = spider.forager_id

    def claim(url: str) -> bool:
        return bool(claim_many([url]))

    def claim_many(urls: list[str]) -> list[str]:
        # the colony-wide check: a URL some forager already queued is not fetched again;
        # a listing's links in one store transaction (issue 15)
        evicted = store.evicted_urls
        claimed = store.claim_urls(urls, {"queued_by": name})
        if store.evicted_urls > evicted:
            crawler.stats.inc_value("newsforagers/store/url_records_evicted", store.evicted_urls - evicted)
        return claimed

    forager = ScheduledForager(name, config, schedule, weights, rng, mode=spider.mode,
                               encoder=spider.encoder, claim=claim, seeds=spider.seeds,
                               bootstrap=bootstrap, memory_size=config.url_memory_size,
                               claim_many=claim_many)
    spider.site_clock = SiteClock(spider.speed)
    return ScheduledDriver(crawler, spider, forager, config.step_timeout, spider.site_clock, store)


def _start(context: ForagerContext, spider: Any, root: bool) -> None:
    """Restore the forager's checkpoint (JOBDIR); the root also starts the colony: its own
    place in it, the other foragers (Alg. 9, or those alive at the checkpoint), its feed."""
    driver = context.driver
    driver.resume()
    if not root:
        return
    colony = context.colony
    if not driver.forager.retired:
        colony.register(spider.forager_id, context.crawler, resumed=colony.resumed is not None)
    colony.start_population(spider.seeds, spider.mode, spider.model_path)
    colony.prepare_feeds()
