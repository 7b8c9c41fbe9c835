"""The only module that touches Scrapy's non-public parts, each for a reason no public API serves.

Scrapy may move any of these in a release without notice; ``tests/scrapy/test_scrapy_access.py``
checks every one against the installed Scrapy and fails loudly, naming what moved.

- :func:`wake_engine`: ``engine._slot.nextcall.schedule()``. A scheduler that returns no
  request while it still has work (a forager waiting for its step's probes, a scheduled
  forager idling until a listing is due on an accelerated clock) is asked again only after the
  next download or the engine's 5-s heartbeat; Scrapy has no public "ask me again now".
- :func:`requests_in_flight`: ``engine.downloader.active`` and ``engine.scraper.slot``'s
  ``queue`` and ``active``. Scrapy drops some requests without calling an errback (an off-site
  redirect); a forager waiting for an answer must see that none of its requests is anywhere in
  Scrapy any more.
- :func:`share_robots_parsers`: ``RobotsTxtMiddleware._parsers``, the middleware's cache of
  parsers per netloc: foragers of one process share one, so robots.txt is fetched once per
  colony and host.
- :func:`engine_running`: ``crawler.engine`` raises ``RuntimeError`` before the engine is
  made (Scrapy 2.13+); its ``running`` is public.
- :class:`NewsSitemap`: ``Sitemap._process_sitemap_element``, which turns one ``<url>`` of a
  sitemap into a dict of its children's texts. A news sitemap nests an entry's publication
  date (``<news:news><news:publication_date>``), which that dict loses (it keeps the text of
  ``<news:news>``, blank); the element is cleared once read, so only a hook before that sees it.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from scrapy.utils.sitemap import Sitemap

#: Request meta key that marks a forager's requests (shared with the scheduler).
FORAGER_META = "forager_kind"
#: Request meta key the colony's download handler sets when the host budget lets a request go
#: (``time.monotonic()``): how long it has waited for its answer (a hedge, driver/hedge.py).
SENT_META = "forager_sent"
#: Request meta key the spider sets (True) as a forager request's callback or errback begins:
#: its answer has reached the forager. Scrapy keeps the request in its scraper's slot until every
#: item the callback gave has passed the item pipelines, which may take seconds (a document read
#: by the colony's worker on a loaded machine): such a request is no longer waited for.
ANSWERED_META = "forager_answered"
#: Request meta key of a hedge: the second request of a fetch whose answer stalled (True).
HEDGE_META = "forager_hedge"


def engine_of(crawler: Any) -> Any | None:
    """The crawler's engine, or None before it is made."""
    try:
        return getattr(crawler, "engine", None)
    except RuntimeError:  # Scrapy 2.13+: "Crawler.engine is not set yet"
        return None


def engine_running(crawler: Any) -> bool:
    engine = engine_of(crawler)
    return bool(engine is not None and engine.running)


def wake_engine(crawler: Any) -> bool:
    """Ask the crawler's engine for its next request now (False: no engine or slot yet)."""
    engine = engine_of(crawler)
    slot = getattr(engine, "_slot", None)
    if slot is None:
        return False
    slot.nextcall.schedule()
    return True


def requests_in_flight(crawler: Any, meta_key: str = FORAGER_META) -> bool:
    """Is a request of ``crawler`` marked with ``meta_key`` still anywhere in Scrapy, and not
    answered yet — downloading (retries and redirects included: they are in the downloader
    again) or waiting for its callback (the scraper's slot; one whose callback or errback has
    begun, :data:`ANSWERED_META`, is not waited for)? False means every one handed over was
    answered or dropped without an answer. True when unsure (no engine yet)."""
    engine = engine_of(crawler)
    if engine is None:
        return True
    scraper_slot = getattr(engine.scraper, "slot", None)
    if scraper_slot is not None:
        waiting = chain((request for _, request, _ in scraper_slot.queue), scraper_slot.active)
        if any(meta_key in r.meta and not r.meta.get(ANSWERED_META) for r in waiting):
            return True
    return any(meta_key in r.meta for r in getattr(engine.downloader, "active", ()))


class NewsSitemap(Sitemap):
    """Scrapy's :class:`~scrapy.utils.sitemap.Sitemap` (its safe lxml parser: no entities
    resolved, streamed, each entry cleared once read), whose entries also carry what a news
    sitemap nests in ``<news:news>``: ``news_publication_date`` and ``news_title``, when given."""

    __slots__ = ()

    def _process_sitemap_element(self, elem: Any) -> dict[str, Any] | None:
        nested = {}
        for child in elem:
            if _local_name(child) != "news":
                continue
            for field in child:
                name = _local_name(field)
                if name in ("publication_date", "title") and field.text:
                    nested[f"news_{name}"] = field.text.strip()
        entry = super()._process_sitemap_element(elem)
        if entry is not None:
            entry.update(nested)
        return entry


def _local_name(element: Any) -> str:
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def share_robots_parsers(middleware: Any, shared: dict) -> None:
    """Make ``middleware`` (a ``RobotsTxtMiddleware``) use ``shared`` as its parser cache
    (netloc → parser, or a Deferred while fetching), keeping what it holds already."""
    if middleware._parsers is not shared:
        shared.update(middleware._parsers)
        middleware._parsers = shared
