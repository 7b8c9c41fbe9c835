"""Tests for newsforagers.pages.piece: bounded work on huge pages: dated, titled and read from a
bounded piece."""

from __future__ import annotations

from datetime import UTC, datetime

import lxml.html
import pytest
from htmldate import find_date

from newsforagers.pages.read import read_page
from tests.pages.html import URL, page


def _counting_find_date(monkeypatch) -> list[int]:
    """Make pages call htmldate through a wrapper that records the elements of each tree."""
    import newsforagers.pages.dates as dates_module

    sizes: list[int] = []

    def counting(tree, **kwargs):
        sizes.append(int(tree.xpath("count(//*)")))
        return find_date(tree, **kwargs)

    monkeypatch.setattr(dates_module, "find_date", counting)
    return sizes


def test_htmldate_gets_the_whole_tree_of_a_normal_page(monkeypatch):
    sizes = _counting_find_date(monkeypatch)
    body = "<article><p class='byline'>Published on March 5, 2024.</p><p>Body</p></article>"
    result = read_page(URL, page(body + "<p>more</p>" * 500))
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC) and result.date_source == "htmldate"
    assert sizes == [int(lxml.html.document_fromstring(page(body + "<p>more</p>" * 500)).xpath("count(//*)"))]


@pytest.mark.parametrize("filler", ["elements", "characters"])
def test_htmldate_gets_a_bounded_piece_of_a_huge_page_and_still_dates_it(monkeypatch, filler):
    from newsforagers.pages.piece import PIECE_CHARS, PIECE_ELEMENTS

    sizes = _counting_find_date(monkeypatch)
    byline = "<article><p class='byline'>Published on March 5, 2024.</p><p>Body</p></article>"
    rest = ("<i></i>" * (3 * PIECE_ELEMENTS) if filler == "elements"
            else "<p>" + "harbour " * (PIECE_CHARS // 4) + "</p>")
    result = read_page(URL, page(byline + rest))
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC) and result.date_source == "htmldate"
    assert len(sizes) == 1 and sizes[0] <= PIECE_ELEMENTS
    assert result.text_capped and len(result.text) <= 100_000  # the text, from the whole page, capped


def test_a_huge_page_still_reads_its_title_and_publication_markup():
    from newsforagers.pages.piece import PIECE_ELEMENTS

    head = ('<title>Storm hits | Daily</title><meta property="og:site_name" content="Daily">'
            '<meta property="article:published_time" content="2024-03-05T14:30:00+02:00">')
    result = read_page(URL, page("<h1>Storm hits</h1>" + "<b>x</b>" * (2 * PIECE_ELEMENTS), head))
    assert result.title == "Storm hits" and result.date_source == "meta"
    assert result.published == datetime(2024, 3, 5, 12, 30, tzinfo=UTC) and result.document


def test_a_page_deeper_than_piece_depth_is_dated_from_a_piece_as_deep(monkeypatch):
    from newsforagers.pages.piece import PIECE_DEPTH

    depths: list[int] = []

    def deepest(tree, **kwargs):
        depths.append(max(sum(1 for _ in element.iterancestors()) for element in tree.iter()))
        return find_date(tree, **kwargs)

    import newsforagers.pages.dates as dates_module

    monkeypatch.setattr(dates_module, "find_date", deepest)
    byline = "<p class='byline'>Published on March 5, 2024.</p>"
    html = page(byline + "<div>" * 2 * PIECE_DEPTH + "deep words" + "</div>" * 2 * PIECE_DEPTH)
    result = read_page(URL, html)
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC) and result.date_source == "htmldate"
    assert depths and depths[0] <= PIECE_DEPTH
    assert result.text == "Published on March 5, 2024. deep words"  # the text, from the whole page
