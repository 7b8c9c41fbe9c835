"""Where a run's discovery lag comes from: each story's
lag ``found − published`` split at the moment the run first *saw* it — the first page the run
fetched that linked to it (a listing, a feed, a sitemap, another story):

- **discovery**: ``shown − published``, publication until a page the run fetched showed the
  story (polling: how often the right listings are visited);
- **fetch**: ``found − shown``, from that page until the story itself was fetched (the queue:
  what was fetched before it).

What a page showed is not in the run's files: it is rendered again from the replay's model at
the moment the run fetched it (:class:`~newsforagers.replay.site.PageBuilder` of the same corpus,
retime, seed, profile and feeds: the same page, byte for byte, as the crawler got). A ``304``
answer showed nothing new; a story found without any fetched page linking to it before (a
crawler that guesses URLs: the oracle) has no split and is counted as ``unseen``. Pure: the
log, the novel items and the model in, numbers out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from parsel import Selector

from newsforagers.evaluation.metrics import as_time, percentile

#: The keys of a run's split (simulated minutes, and the count of stories without a split).
SPLIT_KEYS = ("discovery_median", "discovery_p90", "fetch_median", "fetch_p90", "unseen")

_XML_LINK = re.compile(rb"<(?:link|loc)>\s*([^<\s]+)\s*</(?:link|loc)>")


class Pages(Protocol):
    def get(self, uri: str, now: float, host: str = ...) -> Any: ...


def _path(href: str) -> str | None:
    parts = urlsplit(href.strip())
    if parts.scheme not in ("", "http", "https"):
        return None
    path = parts.path or "/"
    return unquote(path) + (f"?{parts.query}" if parts.query else "")


def page_links(body: bytes, content_type: bytes | str | None) -> set[str]:
    """The paths (and queries) a page's body links to: ``<a href>`` of an HTML page, ``<link>``
    and ``<loc>`` of a feed or a sitemap."""
    kind = content_type.decode("latin-1") if isinstance(content_type, bytes) else (content_type or "")
    if "xml" in kind:
        hrefs: Iterable[str] = (m.group(1).decode("utf-8", "replace") for m in _XML_LINK.finditer(body))
    else:
        hrefs = Selector(text=body.decode("utf-8", "replace"), type="html").xpath("//a/@href").getall()
    return {path for href in hrefs if (path := _path(href)) is not None}


def shown_times(pages: Pages, log: Sequence[Mapping[str, Any]], articles: Iterable[str]
                ) -> dict[str, float]:
    """path → the simulated time of the first page the run fetched (answered 200) that linked
    to that article (never the article's own page)."""
    wanted = set(articles)
    shown: dict[str, float] = {}
    records = []
    for record in log:
        when = as_time(record.get("sim_time"))
        path = record.get("path")
        if when is None or not isinstance(path, str) or record.get("status") != 200:
            continue
        records.append((when.timestamp(), path))
    records.sort()
    for ts, path in records:
        if path == "/robots.txt":
            continue
        page = pages.get(path, ts)
        if getattr(page, "status", 200) != 200:
            continue
        for link in page_links(page.body, getattr(page, "content_type", None)) & wanted:
            if link != path and link not in shown:
                shown[link] = ts
    return shown


def lag_split(pages: Pages, log: Sequence[Mapping[str, Any]],
              novel: Sequence[tuple[str, datetime, datetime]],
              window: tuple[datetime, datetime]) -> dict[str, Any]:
    """The split of the run's novel stories published in ``window`` (``novel``: path, published,
    found, as :func:`~newsforagers.evaluation.metrics.classify_items` gives them): median and
    p90 of the discovery and fetch parts (simulated minutes, rounded to 0.01; the percentiles
    of :func:`~newsforagers.evaluation.metrics.percentile`), how many had no
    page showing them before they were found (``unseen``), and how many were split (``n``)."""
    start, end = window
    mine = [(path, published, found) for path, published, found in novel if start <= published <= end]
    shown = shown_times(pages, log, (path for path, _, _ in mine))
    discovery, fetch = [], []
    unseen = 0
    for path, published, found in mine:
        seen = shown.get(path)
        if seen is None or seen > found.timestamp():
            unseen += 1
            continue
        discovery.append(max(0.0, seen - published.timestamp()) / 60.0)
        fetch.append(max(0.0, found.timestamp() - seen) / 60.0)
    result: dict[str, Any] = {"n": len(discovery), "unseen": unseen}
    for name, values in (("discovery", discovery), ("fetch", fetch)):
        for label, q in (("median", 50), ("p90", 90)):
            value = percentile(values, q)
            result[f"{name}_{label}"] = None if value is None else round(value, 2)
    return result


__all__ = ["SPLIT_KEYS", "lag_split", "page_links", "shown_times"]
