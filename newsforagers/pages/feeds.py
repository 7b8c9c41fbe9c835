"""Reading feeds and sitemaps: :func:`read_feed` turns an RSS (2.0, 0.9x, 1.0) or Atom feed
(feedparser), a sitemap, a news sitemap or a sitemap index (Scrapy's sitemap utilities) into a
:class:`~newsforagers.pages.page.Page` that is a listing of its entries; :func:`is_feed` tells
from a response's ``Content-Type`` and first element whether it is to be read so;
:func:`robots_sitemaps` reads the ``Sitemap:`` lines of a robots.txt. See docs/pages.md, *Feeds
and sitemaps*.

Unlike the rest of :mod:`newsforagers.pages`, this module imports Scrapy (its sitemap reader),
so nothing the minds import imports it (``newsforagers.pages`` does not): the spider does.
"""

from __future__ import annotations

import codecs
import io
import re
import zlib
from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from typing import Any

import feedparser
from lxml.etree import LxmlError
from scrapy.utils.sitemap import sitemap_urls_from_robots

from newsforagers import defaults
from newsforagers.pages.dates import Window, date_window, parse_timestamp
from newsforagers.pages.links import resolve_link
from newsforagers.pages.page import NotAFeed, Page
from newsforagers.pages.read import _content_type, _header
from newsforagers.pages.text import cut_text
from newsforagers.scrapy_access import NewsSitemap

#: Bytes of a feed given to feedparser, whole entries only (the entries after them are counted,
#: not read): feedparser reads about 7,000 small entries a second here, and a real news feed
#: has its latest 10-100 entries in 10-300 kB.
FEED_MAX_BYTES = 1024 * 1024
#: Bytes a gzip-compressed sitemap (``.xml.gz``) is decompressed to, at most: a sitemap holds
#: at most 50,000 URLs in 50 MB by the protocol, and a gzip bomb expands a thousandfold.
GZIP_MAX_BYTES = 10 * 1024 * 1024
#: Bytes of a body looked at for its first element (:func:`is_feed`).
SNIFF_BYTES = 4096

#: ``Content-Type`` media types read as feeds or sitemaps whatever the body starts with (a body
#: that is neither is a skip, :class:`~newsforagers.pages.page.NotAFeed`).
XML_CONTENT_TYPES = frozenset({
    "application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/xml",
    "text/xml",
})

# the first element of a document -> what reads it
_ROOTS = {"rss": "feed", "feed": "feed", "RDF": "feed", "urlset": "sitemap", "sitemapindex": "sitemap"}
_GZIP_MAGIC = b"\x1f\x8b"
# what may come before the first element: an XML declaration or processing instruction, a
# comment, a DOCTYPE (with an internal subset)
_PROLOG = re.compile(rb"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>)", re.S | re.I)
_ELEMENT = re.compile(rb"\s*<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)")
# an entry of a feed (RSS <item>, Atom <entry>, maybe prefixed), its start and its end
_ENTRY_START = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(?:item|entry)[\s>/]")
_ENTRY_END = re.compile(rb"</(?:[A-Za-z_][\w.-]*:)?(?:item|entry)\s*>")
_TAG = re.compile(rb"<(/?)([A-Za-z_][\w.:-]*)[^<>]*?(/?)>")
_SITEMAP_LOC = b"<loc>"


def is_feed(body: bytes, headers: Mapping[Any, Any] | None = None) -> bool:
    """Whether a response is to be read with :func:`read_feed`: its ``Content-Type`` is an XML
    one (:data:`XML_CONTENT_TYPES`), or its first element (of a gzip body: once decompressed)
    is a feed's or a sitemap's (``<rss>``, ``<feed>``, ``<rdf:RDF>``, ``<urlset>``,
    ``<sitemapindex>``), whatever the ``Content-Type`` says (feeds are served as ``text/html``,
    gzip sitemaps as ``application/octet-stream``). Looks at :data:`SNIFF_BYTES` bytes at most."""
    if _content_type(headers) in XML_CONTENT_TYPES:
        return True
    head = body[:SNIFF_BYTES]
    if head.startswith(_GZIP_MAGIC):
        try:
            head = _gunzip(body, SNIFF_BYTES)[0]
        except zlib.error:
            return False
    return _ROOTS.get(_root_name(head) or "") is not None


def read_feed(
    url: str,
    body: bytes,
    *,
    headers: Mapping[Any, Any] | None = None,
    now: datetime | None = None,
    max_items: int = defaults.FORAGERS_MAX_LINKS,
    max_text: int = defaults.FORAGERS_MAX_TEXT,
) -> Page:
    """Read the feed or sitemap at ``url`` whose raw body is ``body`` (gzip-compressed or not).

    The result is a listing, undated, never a document: ``links`` are its entries' links
    (resolved against ``url`` as a page's links are, http(s) only, deduplicated in order),
    ``listed`` ``(link, time)`` of the entries that carry a date (a feed entry's published
    time, else its updated time; a news sitemap's ``<news:publication_date>``, else
    ``<lastmod>``; a bare date counts as the end of its UTC day, so that an entry is old only
    when it is old whatever its hour), ``date_source`` ``"feed"`` or ``"sitemap"``. A sitemap
    index's sitemaps go to ``feeds`` (their ``<lastmod>`` to ``feeds_listed``), not to
    ``links``. The title is a feed's own; the text, its entries' titles (a news sitemap's
    ``<news:title>``), cut at ``max_text`` characters.

    ``now`` is the site's clock, as for :func:`~newsforagers.pages.read.read_page`: a date
    before its :func:`~newsforagers.pages.dates.date_window` is junk and not listed (a date
    ahead is kept). At most ``max_items`` entries are read (``FORAGERS_MAX_LINKS``; 0: all),
    the first ones, from at most :data:`FEED_MAX_BYTES` of a feed and :data:`GZIP_MAX_BYTES`
    of a decompressed sitemap; ``links_capped`` counts the entries left (at least 1 when a
    gzip sitemap was cut). No entity is expanded beyond feedparser's plain ones, and no
    external entity or DTD is fetched.

    Raises :class:`~newsforagers.pages.page.NotAFeed` for a body whose first element is none
    of a feed's or sitemap's, for XML too broken to give one entry, and for a broken gzip
    body; ValueError for a bad cap or a naive ``now``.
    """
    for name, value in (("max_items", max_items), ("max_text", max_text)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} ({value!r}) must be an integer >= 0 (0: no cap).")
    if not isinstance(body, (bytes, bytearray)):
        raise TypeError(f"body must be the raw bytes of the response, not {type(body).__name__}.")
    window = date_window(now)
    body, cut = bytes(body), False
    if body.startswith(_GZIP_MAGIC):
        try:
            body, cut = _gunzip(body, GZIP_MAX_BYTES)
        except zlib.error as exc:
            raise NotAFeed(url, f"broken gzip body: {exc}") from None
        if not body:
            raise NotAFeed(url, "broken gzip body: nothing to decompress")
    root = _root_name(body[:SNIFF_BYTES])
    kind = _ROOTS.get(root or "")
    if kind is None:
        raise NotAFeed(url, f"its first element is <{root}>" if root else "no XML element")
    if kind == "feed":
        return _read_syndication(url, body, headers, window, max_items, max_text)
    return _read_sitemap(url, body, window, max_items, max_text, cut)


def robots_sitemaps(url: str, body: bytes, max_items: int = defaults.FORAGERS_MAX_LINKS) -> tuple[str, ...]:
    """The sitemaps the robots.txt at ``url`` (its raw ``body``) lists on its ``Sitemap:``
    lines (Scrapy's reader), resolved against ``url``, http(s) only, deduplicated in order,
    the first ``max_items`` (0: all)."""
    found: dict[str, None] = {}
    for href in sitemap_urls_from_robots(bytes(body), base_url=url):
        link = resolve_link(url, href)[0]
        if link is None:
            continue
        found[link] = None
        if max_items and len(found) >= max_items:
            break
    return tuple(found)


# -- RSS and Atom (feedparser) -----------------------------------------------------------------


def _read_syndication(url: str, body: bytes, headers: Mapping[Any, Any] | None, window: Window,
                      max_items: int, max_text: int) -> Page:
    piece, left = _entries_piece(body, max_items)
    parsed = feedparser.parse(
        io.BytesIO(piece),  # never a str: feedparser would download one that looks like a URL
        response_headers={"content-location": url, "content-type": _xml_content_type(headers)},
        sanitize_html=False, resolve_relative_uris=False,  # their content is not read
    )
    entries = parsed.get("entries") or []
    if parsed.get("bozo") and not entries:
        problem = parsed.get("bozo_exception")
        raise NotAFeed(url, f"malformed feed: {problem}" if problem else "malformed feed")
    links: dict[str, None] = {}
    listed: dict[str, datetime] = {}
    titles: list[str] = []
    session_ids = 0
    for n, entry in enumerate(entries):
        if max_items and n >= max_items:
            left += len(entries) - n
            break
        href = entry.get("link") or (entry.get("id") if entry.get("guidislink") else None)
        link, stripped = resolve_link(url, href) if isinstance(href, str) else (None, False)
        if link is None:
            continue
        session_ids += stripped
        title = entry.get("title")
        if isinstance(title, str) and title.strip():
            titles.append(title)
        if link in links:
            continue
        links[link] = None
        when = _entry_time(entry, window)
        if when is not None:
            listed[link] = when
    title = " ".join(str(parsed.get("feed", {}).get("title") or "").split())
    return _listing(url, "feed", title, titles, links, listed, left, max_text, session_ids)


def _entries_piece(body: bytes, max_items: int) -> tuple[bytes, int]:
    """The beginning of ``body`` that holds its first ``max_items`` entries (0: all) within
    :data:`FEED_MAX_BYTES`, closed as the document was around its first entry, so that the
    piece is a well-formed feed; and how many entries were left out."""
    if len(body) <= FEED_MAX_BYTES and not max_items:
        return body, 0
    end, kept, left = 0, 0, 0
    for match in _ENTRY_END.finditer(body):
        if match.end() > FEED_MAX_BYTES or (max_items and kept >= max_items):
            left = len(_ENTRY_END.findall(body, end))
            break
        end, kept = match.end(), kept + 1
    if not left and len(body) <= FEED_MAX_BYTES:
        return body, 0  # every entry fits
    if not end:
        return body[:FEED_MAX_BYTES], left  # a first entry larger than the cap: feedparser's best
    first = _ENTRY_START.search(body, 0, end)
    return body[:end] + _closing_tags(body[:first.start() if first else 0]), left


def _closing_tags(prefix: bytes) -> bytes:
    """The end tags of the elements still open at the end of ``prefix`` (the document before
    its first entry: ``</channel></rss>``, ``</feed>``)."""
    open_elements: list[bytes] = []
    for match in _TAG.finditer(prefix):
        closing, name, empty = match.groups()
        if empty:
            continue
        if not closing:
            open_elements.append(name)
        elif name in open_elements:
            del open_elements[len(open_elements) - 1 - open_elements[::-1].index(name):]
    return b"".join(b"</" + name + b">" for name in reversed(open_elements))


def _xml_content_type(headers: Mapping[Any, Any] | None) -> str:
    """The ``Content-Type`` to tell feedparser: the response's when it is XML, else XML with
    the response's charset (feedparser calls a feed served as ``text/html`` malformed, and
    one without a type too)."""
    value = _header(headers, "Content-Type") or ""
    if _content_type(headers) in XML_CONTENT_TYPES:
        return value
    charset = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", value, re.I)
    return "application/xml" + (f"; charset={charset.group(1)}" if charset else "")


def _entry_time(entry: Any, window: Window) -> datetime | None:
    # the entry's own keys (dict.get): feedparser's get("updated") answers with the published
    # time, and warns, when there is no updated time
    for raw_key, parsed_key in (("published", "published_parsed"), ("updated", "updated_parsed")):
        raw = dict.get(entry, raw_key)
        if not isinstance(raw, str) or not raw.strip():
            continue
        when = _timestamp(raw, window)
        if when is None:
            # feedparser's reading of the formats ours does not know (as UTC)
            struct = dict.get(entry, parsed_key)
            try:
                when = datetime(*struct[:6], tzinfo=UTC) if struct else None
            except (TypeError, ValueError):
                when = None
            if when is not None and when < window[0]:
                when = None
        if when is not None:
            return when
    return None


# -- sitemaps (Scrapy) -------------------------------------------------------------------------


def _read_sitemap(url: str, body: bytes, window: Window, max_items: int, max_text: int,
                  cut: bool) -> Page:
    try:
        sitemap = NewsSitemap(body)
    except (LxmlError, StopIteration) as exc:
        raise NotAFeed(url, f"malformed sitemap: {exc or 'no element'}") from None
    index = sitemap.type == "sitemapindex"
    links: dict[str, None] = {}
    listed: dict[str, datetime] = {}
    titles: list[str] = []
    read, left, session_ids = 0, 0, 0
    try:
        for entry in sitemap:
            if max_items and read >= max_items:
                left = max(1, body.count(_SITEMAP_LOC) - read)
                break
            read += 1
            loc = entry.get("loc") or ""
            link, stripped = resolve_link(url, loc) if loc.strip() else (None, False)
            if link is None or link in links:
                continue
            session_ids += stripped
            links[link] = None
            raw = entry.get("news_publication_date") or entry.get("lastmod")
            when = _timestamp(raw, window) if raw else None
            if when is not None:
                listed[link] = when
            if entry.get("news_title"):
                titles.append(entry["news_title"])
    except LxmlError:
        pass  # what was read before the parser gave up stands
    if not read and len(sitemap.xmliter.error_log):
        raise NotAFeed(url, f"malformed sitemap: {sitemap.xmliter.error_log[0].message}")
    if cut:
        left = max(left, 1)
    if index:
        return Page(url=url, title="", text="", links=(), published=None, date_source="sitemap",
                    session_ids=session_ids, links_capped=left, feeds=tuple(links),
                    feeds_listed=tuple(listed.items()))
    return _listing(url, "sitemap", "", titles, links, listed, left, max_text, session_ids)


# -- shared --------------------------------------------------------------------------------


def _listing(url: str, source: str, title: str, titles: list[str], links: dict[str, None],
             listed: dict[str, datetime], left: int, max_text: int, session_ids: int) -> Page:
    text = " ".join(" ".join(t.split()) for t in titles)
    text_capped = False
    if max_text and len(text) > max_text:
        text, text_capped = cut_text(text, max_text), True
    if max_text and len(title) > max_text:
        title, text_capped = cut_text(title, max_text), True
    return Page(url=url, title=title, text=text, links=tuple(links), published=None,
                date_source=source, listed=tuple(listed.items()), session_ids=session_ids,
                links_capped=left, text_capped=text_capped)


def _timestamp(raw: str, window: Window) -> datetime | None:
    """A full timestamp (ISO 8601, RFC 2822) as aware UTC, or a bare ISO date as the end of its
    UTC day; None before ``window``'s floor (a date ahead is kept) or unreadable."""
    items = (window[0], datetime.max.replace(tzinfo=UTC))
    when = parse_timestamp(raw, items)
    if when is not None:
        return when
    try:
        day = date.fromisoformat(raw.strip())
    except ValueError:
        return None
    end = datetime.combine(day, time.max, UTC)
    return end if end >= window[0] else None


def _root_name(head: bytes) -> str | None:
    """The local name of the first element of a document that begins with ``head``."""
    if head.startswith(codecs.BOM_UTF8):
        head = head[len(codecs.BOM_UTF8):]
    position = 0
    while (prolog := _PROLOG.match(head, position)) is not None:
        position = prolog.end()
    element = _ELEMENT.match(head, position)
    return element.group(1).decode("ascii") if element else None


def _gunzip(body: bytes, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the gzip ``body``, decompressed (never more in memory: a bomb
    stops there), and whether there was more. Raises zlib.error for a broken stream."""
    data = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16).decompress(body, limit + 1)
    return data[:limit], len(data) > limit


__all__ = [
    "FEED_MAX_BYTES", "GZIP_MAX_BYTES", "SNIFF_BYTES", "XML_CONTENT_TYPES", "is_feed", "read_feed",
    "robots_sitemaps",
]
