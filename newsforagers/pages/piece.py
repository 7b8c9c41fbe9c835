"""Bounded work on a huge page: a page of more than :data:`PIECE_ELEMENTS` elements,
:data:`PIECE_CHARS` characters or :data:`PIECE_DEPTH` levels is dated, titled and read for its
listing from its beginning, parsed again as a page of its own (:func:`bounded_piece`); the
walks over its text and links stop after :data:`PIECE_ELEMENTS` elements (docs/pages.md,
"Bounded work")."""

from __future__ import annotations

from typing import Any

import lxml.html
from lxml import etree
from parsel import Selector

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


def _count_elements(root: Any) -> int:
    return 0 if root is None else int(root.xpath("count(//*)"))


def bounded_piece(selector: Selector, html: str, max_elements: int = PIECE_ELEMENTS,
                  max_chars: int = PIECE_CHARS) -> Selector:
    """``selector`` itself for a page of at most :data:`PIECE_ELEMENTS` elements (``max_elements``),
    :data:`PIECE_CHARS` characters (``max_chars``) and :data:`PIECE_DEPTH` levels (every real
    page: read as it always was); else its beginning parsed again: the first ``max_chars``
    characters, fewer until the piece has at most ``max_elements`` elements. lxml repairs the cut (an
    open tag, an unclosed element), so the piece is a page of its own: head, metadata, the
    first items.

    The piece is parsed without lxml's ``huge_tree`` (which parsel and Scrapy turn on), so it
    stops where the page goes deeper than libxml2's default of 256 levels. XPaths pay for
    depth (an ancestor test, putting results in document order): on 48,000 elements 2,000
    levels deep the date's three took 0.6 s, on the piece milliseconds."""
    size = len(html)
    root = selector.root
    elements = _count_elements(root)  # libxml2 counts a million in about 30 ms
    if size <= max_chars and elements <= max_elements and not (
            # 0.1 ms on a news page, 0.1 s on 50,000 elements 2,000 deep: asked only when the
            # tree is small enough for that
            root is not None and root.xpath(f"boolean(//*[ancestor::*[{PIECE_DEPTH}]])")):
        return selector
    while True:
        if elements > max_elements:
            # In proportion to the elements counted, with a margin: one parse for a page of
            # even density; below 0.9 times the last size each time, so the parses of ever
            # smaller prefixes (linear in all) end.
            size = size * max_elements * 9 // (elements * 10)
        size = min(size, max_chars)
        piece = _parse_piece(html[:size])
        elements = _count_elements(piece.root)
        if elements <= max_elements:
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


__all__ = ["PIECE_CHARS", "PIECE_DEPTH", "PIECE_ELEMENTS", "bounded_piece"]
