"""What reading a page gives: :class:`Page` (its title, text, links and publication date, a
listing's items, the feeds it points to, whether it is a document of its own, what the caps left
unread), :class:`NotHTML`, raised for a body that is not an HTML page, and :class:`NotAFeed`,
raised for one that was to be read as a feed or sitemap and is none."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


class NotHTML(ValueError):
    """The downloaded body is not an HTML page (binary, image, feed, plain text...).

    Callers count these and skip the page; ``reason`` says why, for the log.
    """

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url}: not an HTML page ({reason})")
        self.url = url
        self.reason = reason


class NotAFeed(NotHTML):
    """The body was to be read as a feed or a sitemap (its ``Content-Type`` or its first
    element said so) and is none: XML of another kind, XML too broken to give one entry, a
    gzip body that does not hold a sitemap.

    A :class:`NotHTML` too (a caller that only knows pages skips it as one); the spider counts
    it apart (``newsforagers/skipped/bad_feed``).
    """

    def __init__(self, url: str, reason: str) -> None:
        ValueError.__init__(self, f"{url}: not a feed or sitemap ({reason})")
        self.url = url
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Page:
    """What a forager reads from one page.

    ``links`` are absolute, fragment-free http(s) URLs, deduplicated in document order.
    ``published`` is a timezone-aware UTC datetime, or None when the page carries no
    plausible publication date. ``date_source`` tells where it came from: ``"meta"``,
    ``"json-ld"``, ``"time"`` (explicit full timestamps), ``"htmldate"`` or ``"url"``; a page
    with several dated items and no page-level date is a listing (``"listing"``, undated). A
    feed (RSS, Atom) or a sitemap read by :func:`~newsforagers.pages.feeds.read_feed` is a
    listing too, undated, whose ``date_source`` says which: ``"feed"`` or ``"sitemap"``.
    """

    url: str
    title: str
    text: str
    links: tuple[str, ...]
    published: datetime | None
    date_source: str | None = None
    #: On a listing: ``(link, time)`` of the items that show one link and one ``<time>``
    #: (a front's "story, its time" rows), so a crawler can tell old items from new ones
    #: without downloading them.
    listed: tuple[tuple[str, datetime], ...] = ()
    #: Links from which a session id was removed (``;jsessionid=…``, ``?sid=…``): a site
    #: that puts one in every link shows each page under endless URLs (a crawler trap).
    session_ids: int = 0
    #: Whether the page is a document of its own, which may be sent to the reinforcing agent:
    #: dated by its own publication markup (``meta``, ``json-ld``, ``time``), or dated by a
    #: guess (``htmldate``, ``url``) and carrying at least :data:`DOCUMENT_MIN_WORDS` words of
    #: its own (outside links, headings and page furniture). Never a listing, never undated:
    #: an empty day archive ("Archive 2010-10-24 ... No stories yet.") is dated by its heading
    #: and URL, and is not a story.
    document: bool = False
    #: The page's hrefs (of ``<a>`` and ``<area>``, repeats included) that were not read: reading
    #: stops after ``max_links`` distinct ones (``FORAGERS_MAX_LINKS``), in document order, and
    #: ``links`` comes from those. 0: every href was read.
    links_capped: int = 0
    #: Whether ``text`` (or ``title``) was cut at ``max_text`` characters (``FORAGERS_MAX_TEXT``),
    #: or the walk that reads it stopped after :data:`PIECE_ELEMENTS` elements: the page has
    #: more text than was read.
    text_capped: bool = False
    #: The feeds and sitemaps the page points to, absolute http(s) URLs, deduplicated in
    #: document order: an HTML page's ``<link rel="alternate">`` of type RSS or Atom, a sitemap
    #: index's sitemaps. Never in ``links``.
    feeds: tuple[str, ...] = ()
    #: ``(feed, time)`` of the ``feeds`` the page dates: a sitemap index's ``<lastmod>`` of its
    #: sitemaps (a sitemap last changed a week ago holds no news of today).
    feeds_listed: tuple[tuple[str, datetime], ...] = ()


__all__ = ["NotAFeed", "NotHTML", "Page"]
