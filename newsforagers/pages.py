"""Read a downloaded page: title, visible text, links and publication date.

This is what a forager learns from a page it downloads or probes (selection paper, Sect. 3.1):
the links it can follow next, the text its state vector is computed from, and the publication
date that decides whether the page is a candidate for sending (Alg. 5, "not older than 24
hours"). :class:`SentMemory` is the other half of Alg. 5, the forager's "previously selected
relevant pages".

Everything here is a pure function of its inputs (no I/O, no Scrapy import; the system clock
only when a caller gives no site clock ``now``): a Scrapy ``TextResponse`` is read through its
``url``, ``text`` and ``headers`` attributes, so any object with those attributes works too.
See docs/pages.md for the choices made.
"""

from __future__ import annotations

import json
import logging
import re
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator, Mapping
from copy import deepcopy
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import unquote, urldefrag, urljoin, urlsplit, urlunsplit

import lxml.html
from htmldate import find_date
from lxml import etree
from parsel import Selector
from w3lib.encoding import html_body_declared_encoding, html_to_unicode, http_content_type_encoding, read_bom
from w3lib.url import safe_url_string

from newsforagers import defaults

logger = logging.getLogger(__name__)

__all__ = [
    "DATE_FUTURE_REACH",
    "DATE_PAST_REACH",
    "DEFAULT_FUTURE_SKEW",
    "DEFAULT_SENT_MEMORY_SIZE",
    "DOCUMENT_MIN_WORDS",
    "NotHTML",
    "PIECE_CHARS",
    "PIECE_DEPTH",
    "PIECE_ELEMENTS",
    "Page",
    "SentMemory",
    "charset_trouble",
    "date_window",
    "is_candidate",
    "read_page",
    "read_response",
]

#: A page dated up to this far in the future still counts as published: server and page
#: clocks drift, and sites stamp a story a few minutes ahead when it is scheduled.
DEFAULT_FUTURE_SKEW = timedelta(seconds=defaults.FORAGERS_FUTURE_SKEW)

#: How many sent URLs a :class:`SentMemory` keeps by default. A page older than the novelty
#: window can never be a candidate again, so the memory only has to cover one window's worth
#: of sends; this is far more than a forager sends in 24 hours on any site we measured.
DEFAULT_SENT_MEMORY_SIZE = defaults.FORAGERS_SENT_MEMORY_SIZE

_NOVELTY_WINDOW = timedelta(seconds=defaults.FORAGERS_NOVELTY_WINDOW)

#: How far before the site's clock a publication date is still plausible: 30 years (of 365.25
#: days). A date is only ever compared with a 24-hour window, so an old true date and no date
#: lead to the same decision (not sent); what the floor has to catch is junk, and junk dates
#: are template zeros (0001-01-01, 1753-01-01, 1900-01-01, the Unix epoch 1970-01-01) that lie
#: further back than that from any site's clock worth crawling. Seen from today, 30 years is
#: htmldate's own fixed floor (1995-01-01), so a live site reads as it did with htmldate's
#: defaults, while a replay of a 1987 newswire, read on its own clock, is dated.
DATE_PAST_REACH = timedelta(days=10_958)

#: How far ahead of the site's clock a publication date is still read. A page dated a little
#: ahead is not junk: clocks drift, a local time labelled UTC is up to 14 hours ahead, stories
#: are scheduled, "announced for next week". Such pages are returned with their date so that
#: :func:`is_candidate` refuses them and the spider counts them as future-dated (beyond
#: ``FORAGERS_FUTURE_SKEW``). Further ahead than a month, a date is a placeholder ("2099",
#: "9999-12-31") or the date of an event the page announces; htmldate, which finds dates in
#: bylines and text, would also start taking event dates for publication dates if it were
#: allowed much further (its default ceiling is the end of today).
DATE_FUTURE_REACH = timedelta(days=30)

# A date in a URL: /2024/03/05/, /1987-3-5-slug (4-digit year, then month and day).
_URL_DATE = re.compile(r"(?<![0-9])([0-9]{4})[/_-]([0-9]{1,2})[/_-]([0-9]{1,2})(?![0-9])")

_HTMLDATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"

_HTML_CONTENT_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_CHARSET_PARAM = re.compile(r"charset\s*=\s*[\"']?([^\s;\"']+)", re.I)

# Session ids in links (see _without_session_id); the hint keeps the common case cheap.
_SESSION_HINT = re.compile(r"sid|session", re.I)
_SESSION_PATH_PARAM = re.compile(r";(?:jsessionid|phpsessid|sessionid|sid)=[^/;]*", re.I)
_SESSION_NAMES = frozenset({"jsessionid", "phpsessid", "sessionid", "session_id", "sessid"})
_TOKEN = re.compile(r"[0-9A-Za-z_-]{16,}")

# Subtrees whose text a reader never sees, or sees on every page of the site (navigation,
# asides, footers): boilerplate would only blur the page's text state.
_NOISE_TAGS = frozenset(
    {
        "aside",
        "button",
        "canvas",
        "embed",
        "footer",
        "head",
        "iframe",
        "math",
        "nav",
        "noscript",
        "object",
        "script",
        "select",
        "style",
        "svg",
        "template",
        "textarea",
    }
)

# Tags that break a line when rendered: their text must not run into their neighbours'
# ("<p>end</p><p>Start" is two words), while inline tags may split a word ("<b>W</b>ord").
_BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "blockquote",
        "br",
        "caption",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "img",
        "legend",
        "li",
        "main",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)

# Only publication markers: modified dates ("article:modified_time", "dateModified") would
# make an old story look new after a typo fix.
_META_PUBLISHED_XPATH = (
    "//meta[@property='article:published_time' or @name='article:published_time']/@content"
    " | //*[@itemprop='datePublished']/@content"
    " | //*[@itemprop='datePublished']/@datetime"
)
_TIME_MARKED_XPATH = (
    "//time[@datetime][@pubdate or starts-with(@class, 'entry-date')"
    " or contains(@class, 'published')]/@datetime"
)
_TIME_CONTENT_XPATH = "//article//time/@datetime | //main//time/@datetime"
_TIME_ANY_XPATH = (
    "//body//time[not(ancestor::nav or ancestor::aside or ancestor::footer)]/@datetime"
)
# A page's footer (not an article's own: that may carry its byline and date).
_PAGE_FOOTER_XPATH = (
    "//footer[not(ancestor::article or ancestor::main)]"
    " | //*[@role='contentinfo' or @id='footer'][not(ancestor::article or ancestor::main)]"
)
_JSON_LD_XPATH = "//script[@type='application/ld+json']/text()"
# A JSON-LD block is walked breadth-first up to this many nodes: enough for any real
# article's metadata, and a bound on hostile or huge blocks.
_JSON_LD_MAX_NODES = 2_000

#: A page of more elements than this (or more characters than :data:`PIECE_CHARS`, or deeper
#: than :data:`PIECE_DEPTH`) is dated, titled and read for its listing from its beginning only
#: (a piece of it parsed again, of at most this many elements); the walks that read its text
#: and links stop after this many elements and anchors. The replay of digital.gov renders no
#: page of more than 1,181 elements and 91 kB, and a heavy real news front is expected to have
#: a few thousand (not measured here: no network). Past these sizes a page is broken or hostile,
#: and an XPath over all of it costs up to 0.5 s per million elements, htmldate (which copies
#: the tree) more.
PIECE_ELEMENTS = 50_000
#: See :data:`PIECE_ELEMENTS`: 2 Mi characters, the add-on's ``DOWNLOAD_WARNSIZE`` in bytes.
PIECE_CHARS = 2 * 1024 * 1024
#: See :data:`PIECE_ELEMENTS`: a page with an element this deep (ancestors) is read from a
#: piece too, parsed at most as deep (libxml2's own limit without ``huge_tree``). A news page
#: is a few dozen levels deep.
PIECE_DEPTH = 256

_ItemT = TypeVar("_ItemT")


class NotHTML(ValueError):
    """The downloaded body is not an HTML page (binary, image, feed, plain text...).

    Callers count these and skip the page; ``reason`` says why, for the log.
    """

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url}: not an HTML page ({reason})")
        self.url = url
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Page:
    """What a forager reads from one page.

    ``links`` are absolute, fragment-free http(s) URLs, deduplicated in document order.
    ``published`` is a timezone-aware UTC datetime, or None when the page carries no
    plausible publication date. ``date_source`` tells where it came from: ``"meta"``,
    ``"json-ld"``, ``"time"`` (explicit full timestamps), ``"htmldate"`` or ``"url"``; a page
    with several dated items and no page-level date is a listing (``"listing"``, undated).
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


def date_window(now: datetime | None = None) -> tuple[datetime, datetime]:
    """``(earliest, latest)``: the publication dates plausible at the site's time ``now``.

    From the start of the UTC day :data:`DATE_PAST_REACH` before ``now`` to the end of the
    UTC day :data:`DATE_FUTURE_REACH` after it, both aware UTC and inclusive; clamped to
    what ``datetime`` can hold. Whole days, so that htmldate's validation caches (keyed on
    its bounds) serve a whole simulated day. ``now=None`` is the system clock. Raises
    TypeError for a ``now`` that is not a datetime, ValueError for a naive one.
    """
    if now is None:
        now = datetime.now(UTC)
    elif not isinstance(now, datetime):
        raise TypeError(f"now ({now!r}) must be a datetime or None.")
    elif now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now ({now!r}) must be timezone-aware: it is the site's clock.")
    try:
        now = now.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"now ({now!r}) has no UTC equivalent (past the year 1 or 9999).") from None
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    try:
        earliest = day - DATE_PAST_REACH
    except OverflowError:
        earliest = datetime.min.replace(tzinfo=UTC)
    try:
        latest = day + DATE_FUTURE_REACH + timedelta(days=1, microseconds=-1)
    except OverflowError:
        latest = datetime.max.replace(tzinfo=UTC)
    return earliest, latest


def is_candidate(
    published: datetime | None,
    now: datetime,
    window: timedelta = _NOVELTY_WINDOW,
    *,
    skew: timedelta = DEFAULT_FUTURE_SKEW,
) -> bool:
    """Whether a page published at ``published`` may be sent at time ``now`` (Alg. 5).

    True when ``now - window <= published <= now + skew``: "not older than 24 hours", both
    ends inclusive. A page dated more than ``skew`` in the future is not a candidate: its
    date is wrong, or it announces an event rather than reporting news; sending it would
    spend a send on a date nobody can check yet. An undated page (None) is never one.

    Raises ValueError for naive datetimes (a naive clock is a bug, not a time zone choice)
    and for a negative window or skew.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now ({now!r}) must be timezone-aware.")
    if window < timedelta(0):
        raise ValueError(f"window ({window!r}) must not be negative.")
    if skew < timedelta(0):
        raise ValueError(f"skew ({skew!r}) must not be negative.")
    if published is None:
        return False
    if published.tzinfo is None or published.utcoffset() is None:
        raise ValueError(f"published ({published!r}) must be timezone-aware.")
    return now - window <= published <= now + skew


class SentMemory:
    """The forager's memory of the pages it has sent: ``previousPages`` of Alg. 5.

    Alg. 5 (selection paper, "Document Relevancy at a forager") sends the pages that are not
    older than 24 hours and not in ``previousPages``, then adds them to it. The paper's set
    grows forever; this one keeps at most ``max_entries`` URLs and forgets the oldest sends
    first. Forgetting is safe once a URL's page has left the novelty window, because it can
    no longer be a candidate; an entry forgotten sooner can at worst be sent once more (one
    send cost, no reward).

    Pages are keyed by URL without fragment. Items may be :class:`Page` objects or URLs.
    """

    def __init__(self, max_entries: int = DEFAULT_SENT_MEMORY_SIZE) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"max_entries ({max_entries!r}) must be an integer of at least 1.")
        self._max_entries = max_entries
        # OrderedDict rather than dict: popping the oldest key is O(1) here, while a plain
        # dict rescans its deleted slots from the front on every eviction.
        self._sent: OrderedDict[str, None] = OrderedDict()

    @property
    def max_entries(self) -> int:
        return self._max_entries

    def select(
        self,
        items: Iterable[_ItemT],
        *,
        now: datetime | None = None,
        window: timedelta = _NOVELTY_WINDOW,
        skew: timedelta = DEFAULT_FUTURE_SKEW,
    ) -> list[_ItemT]:
        """Return the items not sent before, in input order, and remember them as sent.

        Duplicates within ``items`` are returned once. Without ``now`` every item is taken
        as a candidate (the caller has filtered dates). With ``now``, this is the whole of
        Alg. 5: :class:`Page` items that fail :func:`is_candidate` are dropped (and not
        remembered); a bare URL then raises ValueError, since it has no date to check.
        """
        if now is not None:
            # Checked before anything is remembered, so a bad batch leaves the memory as it was.
            items = list(items)
            for item in items:
                if not isinstance(item, Page):
                    raise ValueError(
                        f"select(now=...) needs Page items to check dates, got {item!r}."
                    )
        selected: list[_ItemT] = []
        for item in items:
            if now is not None and not is_candidate(item.published, now, window, skew=skew):
                continue
            key = _memory_key(item)
            if key in self._sent:
                continue
            self._remember(key)
            selected.append(item)
        return selected

    def to_list(self) -> list[str]:
        """The remembered URLs, oldest send first (JSON-friendly, for persistence)."""
        return list(self._sent)

    @classmethod
    def from_list(
        cls, urls: Iterable[str], max_entries: int = DEFAULT_SENT_MEMORY_SIZE
    ) -> SentMemory:
        """Rebuild a memory from :meth:`to_list`; beyond ``max_entries``, the newest are kept."""
        memory = cls(max_entries)
        for url in urls:
            memory._remember(_memory_key(url))
        return memory

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, (Page, str)):
            return False
        return _memory_key(item) in self._sent

    def __len__(self) -> int:
        return len(self._sent)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)}/{self._max_entries} sent)"

    def _remember(self, key: str) -> None:
        if key in self._sent:
            return
        self._sent[key] = None
        while len(self._sent) > self._max_entries:
            self._sent.popitem(last=False)


def _memory_key(item: object) -> str:
    url = item.url if isinstance(item, Page) else item
    if not isinstance(url, str):
        raise TypeError(f"expected a Page or a URL string, got {item!r}")
    return urldefrag(url).url


def charset_trouble(content_type: str | bytes | None, body: bytes, text: str) -> str | None:
    """What is wrong with how a page declares its character set, or None.

    ``content_type`` is the ``Content-Type`` header, ``body`` the raw bytes and ``text`` the
    decoded text (Scrapy decodes with the header's charset, a BOM, the page's own
    ``<meta charset>``, else a guess; bytes the chosen charset cannot decode become U+FFFD).
    ``"unknown"``: the header names a charset nobody knows; ``"replaced"``: the text has
    replacement characters, so the declared charset is wrong for the bytes; ``"undeclared"``:
    no charset anywhere, the decoder guessed. Such pages are still read.
    """
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    named = _CHARSET_PARAM.search(content_type or "")
    if named is not None and http_content_type_encoding(content_type) is None:
        return "unknown"
    if "\ufffd" in text:
        return "replaced"
    if named is None and read_bom(body) == (None, None) and html_body_declared_encoding(body) is None:
        return "undeclared"
    return None


# The plausible publication dates of a page being read: date_window's (earliest, latest).
_Window = tuple[datetime, datetime]


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


def _read(url: str, selector: Selector, html: str, window: _Window, max_links: int,
          max_text: int) -> Page:
    # Links and text are read from the whole page, each under its cap; what is read with
    # XPaths over the whole tree (date, title, listing, own words) from a bounded piece.
    piece = _piece(selector, html)
    published, source = _published(url, piece, window)
    base = _base(url, selector.root)
    links, session_ids, links_capped, resolved = _links(base, selector.root, max_links)
    text, text_capped = _visible_text(selector.root, max_text)
    title = _title(piece)
    if max_text and len(title) > max_text:
        title, text_capped = _cut(title, max_text), True
    return Page(
        url=url,
        title=title,
        text=text,
        links=links,
        published=published,
        date_source=source,
        listed=_listed(base, piece, window, max_links, resolved) if source == "listing" else (),
        session_ids=session_ids,
        document=_is_document(piece, published, source),
        links_capped=links_capped,
        text_capped=text_capped,
    )


def _count_elements(root: Any) -> int:
    return 0 if root is None else int(root.xpath("count(//*)"))


def _piece(selector: Selector, html: str) -> Selector:
    """``selector`` itself for a page of at most :data:`PIECE_ELEMENTS` elements,
    :data:`PIECE_CHARS` characters and :data:`PIECE_DEPTH` levels (every real page: read as it
    always was); else its beginning parsed again: the first :data:`PIECE_CHARS` characters,
    fewer until the piece has at most :data:`PIECE_ELEMENTS` elements. lxml repairs the cut (an
    open tag, an unclosed element), so the piece is a page of its own: head, metadata, the
    first items.

    The piece is parsed without lxml's ``huge_tree`` (which parsel and Scrapy turn on), so it
    stops where the page goes deeper than libxml2's default of 256 levels. XPaths pay for
    depth (an ancestor test, putting results in document order): on 48,000 elements 2,000
    levels deep the date's three took 0.6 s, on the piece milliseconds."""
    size = len(html)
    root = selector.root
    elements = _count_elements(root)  # libxml2 counts a million in about 30 ms
    if size <= PIECE_CHARS and elements <= PIECE_ELEMENTS and not (
            # 0.1 ms on a news page, 0.1 s on 50,000 elements 2,000 deep: asked only when the
            # tree is small enough for that
            root is not None and root.xpath(f"boolean(//*[ancestor::*[{PIECE_DEPTH}]])")):
        return selector
    while True:
        if elements > PIECE_ELEMENTS:
            # In proportion to the elements counted, with a margin: one parse for a page of
            # even density; below 0.9 times the last size each time, so the parses of ever
            # smaller prefixes (linear in all) end.
            size = size * PIECE_ELEMENTS * 9 // (elements * 10)
        size = min(size, PIECE_CHARS)
        piece = _parse_piece(html[:size])
        elements = _count_elements(piece.root)
        if elements <= PIECE_ELEMENTS:
            return piece


def _parse_piece(html: str) -> Selector:
    # parsel's own steps (stripped, without NULs, UTF-8), with a parser of our own rather than
    # Selector(huge_tree=False), which warns (through the process-wide warnings filters) when
    # the depth limit cuts the page: here, that cut is the point.
    body = html.strip().replace("\x00", "").encode("utf-8") or b"<html/>"
    parser = lxml.html.HTMLParser(recover=True, encoding="utf-8", huge_tree=False)
    try:
        root = etree.fromstring(body, parser=parser)
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        root = etree.fromstring(b"<html/>", parser=parser)
    return Selector(root=root, type="html")


def _cut(text: str, limit: int) -> str:
    """``text`` (whitespace normalised) in at most ``limit`` characters, cut at a word
    boundary; a first word longer than ``limit`` is cut inside."""
    if len(text) <= limit:
        return text
    if text[limit] == " ":
        return text[:limit]
    space = text.rfind(" ", 0, limit)
    return text[:space] if space > 0 else text[:limit]


def _listed(base: str, selector: Selector, window: _Window, max_items: int = 0,
            resolved: Mapping[str, str | None] | None = None) -> tuple[tuple[str, datetime], ...]:
    """``(link, time)`` of a listing's items: the smallest element around a ``<time
    datetime>`` that holds a link, when it holds exactly one distinct link (resolved against
    ``base``, as the page's links are; ``resolved`` has the hrefs :func:`_links` resolved).

    Items dated ahead of ``window`` are kept (an events calendar lists days months ahead):
    they are the listing's items all the same, which a crawler tells from its navigation, and
    a date ahead is never novel anyway; only dates before the window's floor are junk.

    At most ``max_items`` ``<time>`` elements are read (0: all), the first ones. Whatever the
    page's shape (items nested in items, thousands of links in one, 2,000 levels deep), it
    costs one pass over the anchors and one over the elements above the ``<time>`` elements.
    """
    listed: dict[str, datetime] = {}
    root = selector.root
    if root is None:
        return ()
    resolved = resolved or {}
    items_window = (window[0], datetime.max.replace(tzinfo=UTC))
    # Element proxies as keys: the dictionaries keep them alive, so lxml hands back the same
    # proxy for the same element (identity is equality).
    # Every element that holds a link: the distinct hrefs below it, two at most (an item with
    # two is no item). Built up from the anchors: an anchor's walk up stops at the first
    # ancestor that has its href already, or two, so no element changes more than twice.
    below: dict[Any, set[str]] = {}
    for anchor in root.iter("a"):
        href = anchor.get("href")
        if href is None:
            continue
        for ancestor in anchor.iterancestors():
            hrefs = below.get(ancestor)
            if hrefs is None:
                hrefs = below[ancestor] = set()
            elif href in hrefs or len(hrefs) > 1:
                break
            hrefs.add(href)
    # the smallest element holding a link around each element visited (None: none does);
    # every element is walked over once
    item_of: dict[Any, Any] = {}
    for n, time_element in enumerate(root.xpath("//body//time[@datetime]")):
        if max_items and n >= max_items:
            break
        when = _parse_timestamp(time_element.get("datetime", ""), items_window)
        if when is None:
            continue
        path, node, item = [], time_element.getparent(), None
        while node is not None:
            if node in below:
                item = node
                break
            if node in item_of:
                item = item_of[node]
                break
            path.append(node)
            node = node.getparent()
        for node in path:
            item_of[node] = item
        if item is None or len(below[item]) != 1:
            continue
        href = next(iter(below[item]))
        link = resolved[href] if href in resolved else _resolve(base, href)[0]
        if link is not None and link not in listed:
            listed[link] = when
    return tuple(listed.items())


def _normalise_space(text: str) -> str:
    return " ".join(text.split())


def _title(selector: Selector) -> str:
    """The document's own title: ``<title>`` without the site's name around it.

    ``<title>`` usually decorates the headline with the site's name ("Storm hits | Daily
    News", "Daily News: Storm hits"), which is not part of what the document says. It is
    cut off when the page names its site (``og:site_name``, ``application-name``), or when
    ``og:title`` or the first ``<h1>`` shows the title without it. Cuts happen only at a
    separator (`` | ``, `` - ``, `` – ``, `` — ``, `` · ``, `` • ``, `` » ``, ``: ``), never
    inside a word, and a title that is nothing but the site's name (a home page) is kept.
    Without ``<title>``: ``og:title``, then the first ``<h1>``.
    """
    title = _xpath_text(selector, "string((//title[not(ancestor::svg)])[1])")
    og_title = _xpath_text(
        selector, "string((//meta[@property='og:title' or @name='og:title']/@content)[1])"
    )
    h1 = _xpath_text(selector, "string((//h1)[1])")
    headline = _xpath_text(selector, _HEADLINE_XPATH)
    site = _xpath_text(
        selector,
        "string((//meta[@property='og:site_name' or @name='og:site_name'"
        " or @name='application-name']/@content)[1])",
    )
    if not title:
        return _without_site(og_title, site) or h1
    # og:title is the publisher's own statement of the title; the headline <h1> is what the
    # reader sees. Either one, found in <title> with a decoration before or after it, is
    # the title without the decoration. The <h1> only when the decoration is no longer than
    # itself: a banner <h1> that slipped past _HEADLINE_XPATH ("News" above the story) is
    # short, the site's name; a headline is rarely shorter than the site's name.
    if og_title and og_title.casefold() != site.casefold() and _decorates(title, og_title):
        return _without_site(og_title, site)
    if headline and headline.casefold() != site.casefold():
        decoration = _decorates(title, headline)
        if decoration and len(decoration) <= len(headline):
            return headline
    return _without_site(title, site)


# The headline's <h1>: the first inside the article or the main content, else the first
# that is not the site's banner (a logo is often an <h1> in the page's <header>, or one that
# links home) nor in a navigation, aside or footer.
# One predicate rather than the union of three paths it stands for (in <article>, in <main>,
# or neither in the banner nor holding a link): libxml2 took 1.3 s for the union's first node
# on a 10 MB page of 37,000 elements, and takes milliseconds for this.
_HEADLINE_XPATH = (
    "string((//h1[ancestor::article or ancestor::main"
    " or not(ancestor::header or ancestor::nav or ancestor::aside or ancestor::footer or .//a)])[1])"
)


def _xpath_text(selector: Selector, xpath: str) -> str:
    return _normalise_space(selector.xpath(xpath).get(default=""))


# What stands between a title and the site's name: a pipe, a spaced dash or a bullet, or a
# colon right after a word. A hyphen without spaces is part of a word ("COVID-19", "Jean-Luc").
_TITLE_SEPARATOR = r"(?:\s*[|\u00b7\u2022\u00bb]\s*|\s[-\u2013\u2014]\s|:\s)"


def _decorates(title: str, own: str) -> str | None:
    """What ``title`` adds to ``own`` beyond one separator, when ``title`` is ``own`` with a
    decoration before or after it; else None."""
    if len(title) <= len(own):
        return None
    # Slices of equal length compared case-blind (casefold may change a string's length).
    own_folded = own.casefold()
    if title[: len(own)].casefold() == own_folded:
        match = re.fullmatch(_TITLE_SEPARATOR + r"(\S.*)", title[len(own):], re.S)
    elif title[len(title) - len(own):].casefold() == own_folded:
        match = re.fullmatch(r"(.*\S)" + _TITLE_SEPARATOR, title[: len(title) - len(own)], re.S)
    else:
        return None
    return match.group(1) if match else None


def _without_site(title: str, site: str) -> str:
    """``title`` without ``site`` and its separator at either end; unchanged when the title
    is nothing else (a home page's title is its site's name)."""
    if not site or not title:
        return title
    name = re.escape(site)
    for pattern in (r"(.*?\S)" + _TITLE_SEPARATOR + name, name + _TITLE_SEPARATOR + r"(\S.*)"):
        match = re.fullmatch(pattern, title, re.S | re.I)
        if match:
            return match.group(1)
    return title


def _visible_text(root: Any, max_text: int = 0) -> tuple[str, bool]:
    """The visible text of ``<body>``, and whether it was capped: cut at ``max_text``
    characters (at a word boundary), or its walk stopped after :data:`PIECE_ELEMENTS` elements.
    0: no cap, the whole text however long the walk."""
    if root is None:
        return "", False
    # lxml's HTML parser puts <body> under the root; the first one, without a pass over the page
    body = next(root.iter("body"), None)
    if body is None or _unseen(body):
        return "", False
    parts: list[str] = [body.text or ""]
    size = len(parts[0])  # characters in parts
    # Whitespace collapses, so the raw characters gathered say little about the text's length:
    # it is measured when they pass ``check``, which then doubles (linear in all).
    check = max_text + 1
    walked = 0
    capped = False
    # An explicit stack rather than recursion: parsel parses with huge_tree, so a broken page
    # can nest far deeper than Python's recursion limit. Each open element has its children's
    # iterator on the stack, so an element of 200,000 children costs no more than the ones
    # read before a cap stops the walk.
    stack: list[tuple[Any, Iterator[Any], bool]] = [(body, iter(body), False)]
    while stack:
        if max_text and size >= check:
            joined = "".join(parts)
            if len(_normalise_space(joined)) > max_text:
                capped = True
                break
            # kept raw: a word may go on in the next part ("th<i>re</i>e")
            parts = [joined]
            check = max(check, 2 * size)
        element, children, block = stack[-1]
        node = next(children, None)
        if node is None:
            stack.pop()
            if block:
                parts.append(" ")
            if stack and element.tail:
                parts.append(element.tail)
                size += len(element.tail)
            continue
        if max_text:
            walked += 1
            if walked > PIECE_ELEMENTS:
                # a page of more elements than characters worth reading: markup, not text
                capped = True
                break
        tag = node.tag
        # Comments and processing instructions have a non-string tag; like the subtrees a
        # reader never sees, they are skipped but for their tail, which is the parent's text.
        if not isinstance(tag, str) or tag in _NOISE_TAGS or _unseen(node):
            if node.tail:
                parts.append(node.tail)
                size += len(node.tail)
            continue
        block = tag in _BLOCK_TAGS
        if block:
            parts.append(" ")
        if node.text:
            parts.append(node.text)
            size += len(node.text)
        stack.append((node, iter(node), block))
    text = _normalise_space("".join(parts))
    if max_text and len(text) > max_text:
        text, capped = _cut(text, max_text), True
    return text, capped


def _unseen(element: Any) -> bool:
    return element.get("hidden") is not None or element.get("aria-hidden") == "true"


def _base(url: str, root: Any) -> str:
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


def _links(base: str, root: Any,
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
        link, stripped = _resolve(base, href)
        resolved[href] = link
        if link is not None:
            session_ids += stripped
            links[link] = None
    return tuple(links), session_ids, capped, resolved


def _resolve(base: str, href: str) -> tuple[str | None, bool]:
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


def _published(url: str, selector: Selector, window: _Window) -> tuple[datetime | None, str | None]:
    """The publication time and where it was found, inside ``window``.

    htmldate 1.11 keeps the time of day and the offset when its source has them, but it
    answers from a date in the page's canonical URL before it looks at the page's metadata,
    which turns "14:30+02:00" into midnight. So explicit full timestamps from publication
    markers come first, then htmldate's answer, then a date in the page's own URL.
    """
    for source, candidates in (
        ("meta", _meta_values),
        ("json-ld", _json_ld_published),
        ("time", _time_values),
    ):
        values = candidates(selector)
        if source == "time" and _is_listing(selector, values):
            # Several dated items and no page-level date: a front, a tag page or an
            # archive. Its newest item's date is not its publication date, and neither is
            # a date in its URL (/archive/2024/01/02/), so htmldate is not asked either.
            return None, "listing"
        for value in values:
            published = _parse_timestamp(value, window)
            if published is not None:
                return published, source
    root = selector.root
    if root is not None:
        published = _htmldate(root, window)
        if published is not None:
            return published, "htmldate"
    published = _url_date(url, window)
    if published is not None:
        return published, "url"
    return None, None


def _is_listing(selector: Selector, time_values: list[str]) -> bool:
    if not time_values or selector.xpath(_TIME_MARKED_XPATH):
        return False
    if len(set(time_values)) >= 2:
        return True
    # a single dated item of a list (a front with one story so far) dates the item, not the page
    return not selector.xpath("//body//time[@datetime][not(ancestor::li)]")


def _meta_values(selector: Selector) -> list[str]:
    return selector.xpath(_META_PUBLISHED_XPATH).getall()


def _time_values(selector: Selector) -> list[str]:
    # <time> elements in boxes of other stories ("most read", "related") carry those
    # stories' dates; marked publication times and times inside the article come first.
    for xpath in (_TIME_MARKED_XPATH, _TIME_CONTENT_XPATH, _TIME_ANY_XPATH):
        values = selector.xpath(xpath).getall()
        if values:
            return values
    return []


def _json_ld_published(selector: Selector) -> list[str]:
    values: list[str] = []
    for block in selector.xpath(_JSON_LD_XPATH).getall():
        try:
            data = json.loads(block)
        except (ValueError, RecursionError):
            continue
        queue: deque[Any] = deque([data])
        visited = 0
        while queue and visited < _JSON_LD_MAX_NODES:
            node = queue.popleft()
            visited += 1
            if isinstance(node, dict):
                value = node.get("datePublished")
                if isinstance(value, str):
                    values.append(value)
                elif isinstance(value, list):
                    values.extend(v for v in value if isinstance(v, str))
                queue.extend(v for v in node.values() if isinstance(v, (dict, list)))
            elif isinstance(node, list):
                queue.extend(v for v in node if isinstance(v, (dict, list)))
    return values


def _parse_timestamp(value: str, window: _Window) -> datetime | None:
    """An ISO 8601 or RFC 2822 timestamp with a time of day, as aware UTC inside ``window``;
    else None.

    A bare date is not a full timestamp: it is left to htmldate, which weighs it against
    the page's other date cues.
    """
    value = value.strip()
    if not value:
        return None
    try:
        date.fromisoformat(value)
        return None
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        # Some sites write HTTP-style dates ("Tue, 05 Mar 2024 14:30:00 GMT"), of which
        # htmldate keeps only the day. Without a colon there is no time of day to gain.
        if ":" not in value:
            return None
        try:
            parsed = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
    return _as_utc(parsed, window)


def _as_utc(parsed: datetime, window: _Window) -> datetime | None:
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        parsed = parsed.astimezone(UTC)
    except OverflowError:
        return None
    earliest, latest = window
    if not earliest <= parsed <= latest:
        return None
    return parsed


def _htmldate(root: Any, window: _Window) -> datetime | None:
    # A parsed tree, never a string: htmldate downloads a str argument that looks like a URL.
    # Given a tree it prunes a deep copy, so the caller's (e.g. response.selector) is intact.
    # The page's footer is not asked: a date there is the site's ("updated 10:32", "© 2026",
    # a render time), on every page, old or new, and would make every page look fresh.
    footers = root.xpath(_PAGE_FOOTER_XPATH)
    if footers:
        root = deepcopy(root)
        for footer in root.xpath(_PAGE_FOOTER_XPATH):
            parent = footer.getparent()
            if parent is not None:
                parent.remove(footer)
    earliest, latest = window
    try:
        found = find_date(
            root,
            original_date=True,
            extensive_search=False,
            outputformat=_HTMLDATE_FORMAT,
            # Its defaults are 1995-01-01 and the end of the system's today: a 1987 replay
            # or a clock ahead of the system's would read as undated. Naive, as the dates
            # htmldate parses mostly are (its range check compares POSIX timestamps).
            min_date=earliest.replace(tzinfo=None),
            max_date=latest.replace(tzinfo=None),
        )
    except Exception:  # noqa: BLE001 - heuristics over arbitrary web pages: no date, no crash
        logger.debug("htmldate failed on a page", exc_info=True)
        return None
    return _parse_htmldate(found, window)


def _url_date(url: str, window: _Window) -> datetime | None:
    """00:00 UTC of a year-month-day date in the URL's path or query, inside ``window``.

    Not htmldate's URL reader: its patterns only know the years 1990-2039.
    """
    # A date needs digits: most URLs are done here.
    if not any(ch.isdigit() for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    # The host is not asked: a digit run in a host name is not a date.
    match = _URL_DATE.search(f"{parts.path}?{parts.query}")
    if match is None:
        return None
    try:
        found = datetime(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:  # /2024/13/45/, year 0000
        return None
    return _as_utc(found, window)


def _parse_htmldate(found: str | None, window: _Window) -> datetime | None:
    if not found:
        return None
    try:
        # With our output format htmldate writes "+0200" when its source had an offset and
        # nothing when it did not (a bare date comes back as "T00:00:00").
        parsed = datetime.fromisoformat(found)
    except ValueError:
        return None
    return _as_utc(parsed, window)


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
