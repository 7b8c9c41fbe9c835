"""A forager's mind and its driver, from the spider's arguments and what the colony hands
over: the only place outside :mod:`newsforagers.strategies` that names a strategy's mind, so
that the assembly (and every other Scrapy part) knows drivers only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from newsforagers.clock import SiteClock
from newsforagers.config import ForagersConfig
from newsforagers.driver.base import Driver
from newsforagers.driver.paper import PaperDriver
from newsforagers.driver.scheduled import ScheduledDriver
from newsforagers.learning import Weblog
from newsforagers.strategies.common import initial_weights, load_state_encoder_libraries, state_encoder_fit
from newsforagers.strategies.paper import PaperMind
from newsforagers.strategies.scheduled import ScheduledMind, schedule_from_config

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


def build_driver(crawler: Crawler, config: ForagersConfig, spider: Any, colony: Any,
                 handover: dict | None) -> Driver:
    """The mind of ``FORAGERS_STRATEGY`` for ``spider``'s arguments (``forager_id``, ``seeds``,
    ``mode``, ``encoder``, ``model_path``, ``speed``) and its driver. ``handover``: what a split's
    child is born with (its weblog and weights), None for a forager started from its seeds. The
    scheduled strategy's clock of the site goes to the spider too (``spider.site_clock``)."""
    weblog_saved = handover.get("weblog") if handover else None
    weights_saved = handover.get("weights") if handover else None
    # every forager draws its own stream from the colony's generator: reproducible for a seed
    rng = np.random.default_rng(int(colony.rng.integers(2**63)))
    weights = (np.asarray(weights_saved, dtype=np.float64) if weights_saved is not None
               else initial_weights(config, rng))
    bootstrap = state_encoder_fit(config)
    if spider.encoder is None:  # it will fit one: its libraries now, not in the busy crawl
        load_state_encoder_libraries()
        fits = getattr(colony, "fits", None)
        if fits is not None and getattr(colony, "hosting", False):
            # the root's process (every forager of an in-process colony): the worker's start-up,
            # about two seconds, overlaps the bootstrap's walk. A forager in a process of its
            # own (FORAGERS_SPAWNER=process, scrapyd) starts it at its first fit, if it has one.
            fits.start()
    where = dict(colony=colony, seeds=spider.seeds, model_path=spider.model_path)
    if config.strategy == "scheduled":
        mind = _scheduled_mind(crawler, config, spider, colony.store, weblog_saved, weights, rng, bootstrap)
        spider.site_clock = SiteClock(spider.speed)
        return ScheduledDriver(crawler, spider, mind, config.step_timeout, spider.site_clock, colony.store,
                               **where)
    weblog = (Weblog.from_dict(weblog_saved) if weblog_saved is not None
              else Weblog.from_seeds(spider.seeds, size=config.weblog_size,
                                     start_size=config.weblog_start_size, beta=config.weblog_beta))
    mind = PaperMind(
        spider.forager_id, config, weblog, weights, rng, mode=spider.mode,
        encoder=spider.encoder, bootstrap=bootstrap, bootstrap_pages=config.bootstrap_pages,
        reuse_states=config.reuse_states, state_cache_size=config.state_cache_size,
        max_start_failures=config.start_failures, max_paths=config.max_paths,
        background_fit=True,
    )
    return PaperDriver(crawler, spider, mind, config.step_timeout, colony.store, **where)


def _scheduled_mind(crawler: Crawler, config: ForagersConfig, spider: Any, store: Any, saved: dict | None,
                    weights: np.ndarray, rng: np.random.Generator, bootstrap) -> ScheduledMind:
    schedule = schedule_from_config(config, spider.seeds, saved=saved)
    name = spider.forager_id

    def claim(url: str) -> bool:
        return bool(claim_many([url]))

    def claim_many(urls: list[str]) -> list[str]:
        # the colony-wide check: a URL some forager already queued is not fetched again;
        # a listing's links in one store transaction
        evicted = store.evicted_urls
        claimed = store.claim_urls(urls, {"queued_by": name})
        if store.evicted_urls > evicted:
            crawler.stats.inc_value("newsforagers/store/url_records_evicted", store.evicted_urls - evicted)
        return claimed

    return ScheduledMind(name, config, schedule, weights, rng, mode=spider.mode,
                            encoder=spider.encoder, claim=claim, seeds=spider.seeds,
                            bootstrap=bootstrap, memory_size=config.url_memory_size,
                            claim_many=claim_many)
