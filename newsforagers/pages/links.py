"""A page's links: its hrefs resolved against its ``<base href>``, kept when they are http(s)
links, without fragment and without session ids (a crawler trap), deduplicated in document
order and read under the ``max_links`` cap; and the feeds it announces (``<link
rel="alternate">`` of type RSS or Atom), resolved the same way."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit, urlunsplit

from w3lib.url import safe_url_string

from newsforagers.pages.piece import PIECE_ELEMENTS

# Session ids in links (see _without_session_id); the hint keeps the common case cheap.
_SESSION_HINT = re.compile(r"sid|session", re.I)
_SESSION_PATH_PARAM = re.compile(r";(?:jsessionid|phpsessid|sessionid|sid)=[^/;]*", re.I)
_SESSION_NAMES = frozenset({"jsessionid", "phpsessid", "sessionid", "session_id", "sessid"})
_TOKEN = re.compile(r"[0-9A-Za-z_-]{16,}")


def base_url(url: str, root: Any) -> str:
    """What the page's hrefs are relative to: its ``<base href>`` (itself relative to the
    page's URL), else the page's URL."""
    if root is None:
        return url
    # lxml's own iteration stops at the first <base href> (in <head>): no pass over the page
    base_href = next((e.get("href") for e in root.iter("base") if e.get("href") is not None), None)
    if base_href and base_href.strip():
        try:
            return urljoin(url, base_href.strip())
        except ValueError:
            pass
    return url


def read_links(base: str, root: Any,
               max_links: int = 0) -> tuple[tuple[str, ...], int, int, dict[str, str | None]]:
    """The page's links (hrefs resolved against ``base``), the number of them that had a
    session id, how many hrefs were not read, and what each href read resolved to.

    At most ``max_links`` distinct hrefs are read (0: all), the first ones, and no more than
    ``max(max_links, PIECE_ELEMENTS)`` anchors (``<a>``, ``<area>``) for them: a page of a
    million copies of one link is not read to its end either."""
    if root is None:
        return (), 0, 0, {}
    links: dict[str, None] = {}
    # Navigation menus repeat the same hrefs many times: resolving each once matters.
    resolved: dict[str, str | None] = {}
    session_ids = 0
    capped = 0
    read = 0
    anchors = max(max_links, PIECE_ELEMENTS)
    # lxml's own walk, in document order, stopped at the cap: an XPath would list every href
    # first, and put them in document order, which costs seconds on a tree 2,000 levels deep.
    for element in root.iter("a", "area"):
        href = element.get("href")
        if href is None:
            continue
        if max_links and (read >= anchors or (href not in resolved and len(resolved) >= max_links)):
            # what is left is only counted (libxml2 counts without ordering anything)
            capped = int(root.xpath("count(//a/@href) + count(//area/@href)")) - read
            break
        read += 1
        if href in resolved:
            continue
        link, stripped = resolve_link(base, href)
        resolved[href] = link
        if link is not None:
            session_ids += stripped
            links[link] = None
    return tuple(links), session_ids, capped, resolved


#: The ``type`` of a ``<link rel="alternate">`` that announces a feed the crawler reads.
FEED_TYPES = frozenset({"application/rss+xml", "application/atom+xml"})


def feed_links(base: str, root: Any, max_feeds: int = 0) -> tuple[str, ...]:
    """The feeds the page announces: ``href`` of its ``<link rel="alternate">`` (``rel`` may
    hold other words too) whose ``type`` is RSS or Atom (:data:`FEED_TYPES`), resolved
    against ``base`` as links are, deduplicated in document order, the first ``max_feeds``
    (0: all)."""
    if root is None:
        return ()
    feeds: dict[str, None] = {}
    for element in root.iter("link"):
        href = element.get("href")
        if href is None or "alternate" not in (element.get("rel") or "").lower().split():
            continue
        if (element.get("type") or "").split(";", 1)[0].strip().lower() not in FEED_TYPES:
            continue
        link = resolve_link(base, href)[0]
        if link is not None:
            feeds[link] = None
            if max_feeds and len(feeds) >= max_feeds:
                break
    return tuple(feeds)


def resolve_link(base: str, href: str) -> tuple[str | None, bool]:
    """The link ``href`` stands for (None: not an http(s) link), and whether a session id
    was removed from it."""
    link = _absolute_link(base, href)
    if link is None:
        return None, False
    return _without_session_id(link)


def _without_session_id(url: str) -> tuple[str, bool]:
    """``url`` without a session id, and whether it had one.

    A site that puts a fresh session id in every link shows each page under endless URLs:
    every visit finds "new" pages that are old ones (a crawler trap). Removed: a
    ``;jsessionid=``-style path parameter, query parameters whose name says session
    (``jsessionid``, ``phpsessid``, ``sessionid``, ``session_id``, ``aspsessionid…``) and a
    ``sid`` whose value looks like a token (16 or more letters and digits: ``?sid=5`` may well
    be a story id). Other query parameters are kept byte for byte, in their order.
    """
    if _SESSION_HINT.search(url) is None:
        return url, False
    parts = urlsplit(url)
    path = _SESSION_PATH_PARAM.sub("", parts.path)
    kept = [segment for segment in parts.query.split("&") if segment and not _is_session_param(segment)]
    query = "&".join(kept)
    if path == parts.path and query == parts.query:
        return url, False
    return urlunsplit((parts.scheme, parts.netloc, path, query, parts.fragment)), True


def _is_session_param(segment: str) -> bool:
    name, _, value = segment.partition("=")
    name = unquote(name).lower()
    if name in _SESSION_NAMES or name.startswith("aspsessionid"):
        return True
    return name == "sid" and _TOKEN.fullmatch(unquote(value)) is not None


def _absolute_link(base: str, href: str) -> str | None:
    # Browsers drop tabs and newlines anywhere in a URL and trim surrounding whitespace.
    href = href.strip().replace("\t", "").replace("\n", "").replace("\r", "")
    try:
        absolute = urldefrag(urljoin(base, href)).url
        parts = urlsplit(absolute)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return None
        # The form Scrapy gives request.url, so the same page has the same URL everywhere
        # (frontier, memories, the reinforcing agent's seen set).
        return safe_url_string(absolute)
    except ValueError:
        # Unparsable hosts and ports ("http://[::1", "http://a:99999") are not links.
        return None


__all__ = ["FEED_TYPES", "base_url", "feed_links", "read_links", "resolve_link"]
