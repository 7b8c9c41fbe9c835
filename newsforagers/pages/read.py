"""Reading a downloaded page: :func:`read_page` (a URL and a body) and :func:`read_response` (a
Scrapy ``TextResponse``, or any object with ``url``, ``text`` and ``headers``) check that it is
HTML, put together what the other modules read (the date, :mod:`~newsforagers.pages.dates`; the
links, :mod:`~newsforagers.pages.links`; a listing's items, :mod:`~newsforagers.pages.listings`;
the title and text, :mod:`~newsforagers.pages.text`; from a bounded piece of a huge page,
:mod:`~newsforagers.pages.piece`; the feeds it announces) and decide whether the page is a
document of its own, which may be sent (:data:`DOCUMENT_MIN_WORDS`)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from parsel import Selector
from w3lib.encoding import html_to_unicode

from newsforagers import defaults
from newsforagers.pages.dates import Window, date_window, publication_date
from newsforagers.pages.links import base_url, feed_links, read_links
from newsforagers.pages.listings import listed_items
from newsforagers.pages.page import NotHTML, Page
from newsforagers.pages.piece import bounded_piece
from newsforagers.pages.text import cut_text, read_title, visible_text

_HTML_CONTENT_TYPES = frozenset({"text/html", "application/xhtml+xml"})


def read_page(
    url: str,
    html: str | bytes,
    *,
    headers: Mapping[Any, Any] | None = None,
    now: datetime | None = None,
    max_links: int = defaults.FORAGERS_MAX_LINKS,
    max_text: int = defaults.FORAGERS_MAX_TEXT,
) -> Page:
    """Read the page at ``url`` whose body is ``html``.

    ``html`` may be text or the raw body; raw bytes are decoded from the ``Content-Type``
    charset in ``headers``, a BOM or the page's ``<meta charset>``. ``headers`` (a plain
    mapping or Scrapy ``Headers``) is optional; a ``Content-Type`` that is not HTML, or a
    body that looks binary, raises :class:`NotHTML`. Malformed HTML never raises: it is
    read as lxml's HTML parser repairs it.

    ``now`` is the site's clock (aware; the ``Date`` of the response, the clock that decides
    what is new): a publication date counts only inside :func:`date_window` of it. None
    means the system clock, right for a live site whose clock is right; a replay or an
    archive must pass its own. A naive ``now`` raises ValueError.

    What reading costs is bounded (docs/pages.md, "Bounded work"): at most ``max_links``
    distinct hrefs are read (``FORAGERS_MAX_LINKS``; the first ones, in document order), the
    text and title are cut at ``max_text`` characters (``FORAGERS_MAX_TEXT``), and a page of
    more than :data:`PIECE_ELEMENTS` elements, :data:`PIECE_CHARS` characters or
    :data:`PIECE_DEPTH` levels is dated, titled and read for its listing from its beginning. 0
    lifts a cap; a negative or non-integer one raises ValueError.
    """
    _check_caps(max_links, max_text)
    window = date_window(now)
    content_type = _content_type(headers)
    if content_type is not None and content_type not in _HTML_CONTENT_TYPES:
        raise NotHTML(url, f"content type {content_type!r}")
    if isinstance(html, (bytes, bytearray)):
        if b"\x00" in html[:1024]:
            raise NotHTML(url, "binary body")
        _, html = html_to_unicode(_header(headers, "Content-Type"), bytes(html))
    return _read(url, Selector(text=html, type="html"), html, window, max_links, max_text)


def read_response(
    response: Any,
    now: datetime | None = None,
    *,
    max_links: int = defaults.FORAGERS_MAX_LINKS,
    max_text: int = defaults.FORAGERS_MAX_TEXT,
) -> Page:
    """Read a Scrapy ``TextResponse`` (or any object with ``url``, ``text``, ``headers``).

    A response without text (Scrapy's binary ``Response``) or whose ``Content-Type`` is not
    HTML raises :class:`NotHTML`. The response's own selector is reused when it has one, so a
    spider that already queried the response does not pay for a second parse. ``now`` is
    the site's clock, ``max_links`` and ``max_text`` the caps, as for :func:`read_page`.
    """
    _check_caps(max_links, max_text)
    window = date_window(now)
    url = response.url
    content_type = _content_type(getattr(response, "headers", None))
    if content_type is not None and content_type not in _HTML_CONTENT_TYPES:
        raise NotHTML(url, f"content type {content_type!r}")
    # Scrapy's binary Response raises AttributeError on .text: getattr turns that into None.
    text = getattr(response, "text", None)
    if not isinstance(text, str):
        raise NotHTML(url, "binary body")
    body = getattr(response, "body", None)
    if isinstance(body, bytes) and b"\x00" in body[:1024]:  # an image or archive labelled text/html
        raise NotHTML(url, "binary body")
    selector = getattr(response, "selector", None)
    if not isinstance(selector, Selector) or selector.type != "html":
        selector = Selector(text=text, type="html")
    return _read(url, selector, text, window, max_links, max_text)


def _check_caps(max_links: object, max_text: object) -> None:
    for name, value in (("max_links", max_links), ("max_text", max_text)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} ({value!r}) must be an integer >= 0 (0: no cap).")


#: Words of its own (outside links, headings and page furniture) that a page dated only by a
#: guess (htmldate's heuristics, a date in its URL) needs to count as a document: a short news
#: brief has 50 and more; a listing without dated items (a day archive, a tag page) has its
#: heading and a line or two.
DOCUMENT_MIN_WORDS = 30

_GUESSED_SOURCES = frozenset({"htmldate", "url"})
_OWN_TEXT_XPATH = (
    "//body//text()[not(ancestor::a or ancestor::h1 or ancestor::h2 or ancestor::h3"
    " or ancestor::h4 or ancestor::h5 or ancestor::h6 or ancestor::header or ancestor::nav"
    " or ancestor::aside or ancestor::footer or ancestor::script or ancestor::style"
    " or ancestor::noscript or ancestor::template or ancestor::button or ancestor::select"
    " or ancestor::form)]"
)


def _is_document(selector: Selector, published: datetime | None, source: str | None) -> bool:
    if published is None or source == "listing":
        return False
    if source not in _GUESSED_SOURCES:
        return True
    root = selector.root
    if root is None:
        return False
    words = 0
    # plain strings (smart_strings=False): no Python object per text node beyond the string
    for text in root.xpath(_OWN_TEXT_XPATH, smart_strings=False):
        words += len(text.split())
        if words >= DOCUMENT_MIN_WORDS:
            return True
    return False


def _read(url: str, selector: Selector, html: str, window: Window, max_links: int,
          max_text: int) -> Page:
    # Links and text are read from the whole page, each under its cap; what is read with
    # XPaths over the whole tree (date, title, listing, own words) from a bounded piece.
    piece = bounded_piece(selector, html)
    published, source = publication_date(url, piece, window)
    base = base_url(url, selector.root)
    links, session_ids, links_capped, resolved = read_links(base, selector.root, max_links)
    text, text_capped = visible_text(selector.root, max_text)
    title = read_title(piece)
    if max_text and len(title) > max_text:
        title, text_capped = cut_text(title, max_text), True
    return Page(
        url=url,
        title=title,
        text=text,
        links=links,
        published=published,
        date_source=source,
        listed=(listed_items(base, piece, window, max_links, resolved)
                if source == "listing" else ()),
        session_ids=session_ids,
        document=_is_document(piece, published, source),
        links_capped=links_capped,
        text_capped=text_capped,
        # from the piece: <link rel="alternate"> sits in the <head>
        feeds=feed_links(base, piece.root, max_links),
    )


def _content_type(headers: Mapping[Any, Any] | None) -> str | None:
    value = _header(headers, "Content-Type")
    if value is None:
        return None
    media_type = value.split(";", 1)[0].strip().lower()
    return media_type or None


def _header(headers: Mapping[Any, Any] | None, name: str) -> str | None:
    """The last value of header ``name`` in a plain mapping or Scrapy ``Headers``."""
    if not headers:
        return None
    wanted = name.lower()
    for key, value in headers.items():
        if isinstance(key, bytes):
            key = key.decode("latin-1")
        if str(key).lower() != wanted:
            continue
        # Scrapy Headers hold a list of byte strings per name.
        if isinstance(value, (list, tuple)):
            if not value:
                return None
            value = value[-1]
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        return str(value)
    return None


__all__ = ["DOCUMENT_MIN_WORDS", "read_page", "read_response"]
