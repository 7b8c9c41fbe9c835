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

The modules, one concern each (the names below are the package's API, imported from them):

- :mod:`~newsforagers.pages.read`: :func:`read_page`, :func:`read_response`, whether a page is
  a document;
- :mod:`~newsforagers.pages.page`: :class:`Page`, :class:`NotHTML`, :class:`NotAFeed`;
- :mod:`~newsforagers.pages.dates`: the publication date, :func:`date_window`;
- :mod:`~newsforagers.pages.links`: links, ``<base href>``, session ids;
- :mod:`~newsforagers.pages.listings`: a listing's dated items;
- :mod:`~newsforagers.pages.text`: the title and the visible text;
- :mod:`~newsforagers.pages.piece`: bounded work on huge pages (``PIECE_*``);
- :mod:`~newsforagers.pages.charset`: :func:`charset_trouble`;
- :mod:`~newsforagers.pages.policy`: Alg. 5's send policy, :func:`is_candidate` and
  :class:`SentMemory`;
- :mod:`~newsforagers.pages.feeds`: feeds and sitemaps, :func:`~newsforagers.pages.feeds.read_feed`
  (not imported here: it imports Scrapy's sitemap reader, and the minds import this package).
"""

from newsforagers.pages.charset import charset_trouble
from newsforagers.pages.dates import DATE_FUTURE_REACH, DATE_PAST_REACH, date_window
from newsforagers.pages.page import NotAFeed, NotHTML, Page
from newsforagers.pages.piece import PIECE_CHARS, PIECE_DEPTH, PIECE_ELEMENTS
from newsforagers.pages.policy import (
    DEFAULT_FUTURE_SKEW,
    DEFAULT_SENT_MEMORY_SIZE,
    SentMemory,
    is_candidate,
)
from newsforagers.pages.read import DOCUMENT_MIN_WORDS, read_page, read_response

__all__ = [
    "DATE_FUTURE_REACH",
    "DATE_PAST_REACH",
    "DEFAULT_FUTURE_SKEW",
    "DEFAULT_SENT_MEMORY_SIZE",
    "DOCUMENT_MIN_WORDS",
    "NotAFeed",
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
