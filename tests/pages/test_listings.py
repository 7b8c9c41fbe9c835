"""Tests for newsforagers.pages.listings: a listing: undated, and the ``(link, time)`` of each
of its items."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from newsforagers.pages.dates import date_window
from newsforagers.pages.read import read_page
from tests.pages.html import page


def test_a_listing_of_1987_lists_its_times_on_its_clock():
    items = "".join(f'<li><a href="/1987/03/05/story-{i}/">Story {i}</a> '
                    f'<time datetime="1987-03-05T1{i}:00:00+00:00">x</time></li>' for i in range(3))
    html = f"<html><body><main><ul>{items}</ul></main></body></html>"
    listing = read_page("https://news.example/archive/1987/03/05/", html, now=datetime(1987, 3, 5, 20, tzinfo=UTC))
    assert listing.date_source == "listing"
    assert min(listing.listed) == ("https://news.example/1987/03/05/story-0/",
                                   datetime(1987, 3, 5, 10, tzinfo=UTC))
    assert len(listing.listed) == 3


def test_a_listing_of_dated_items_is_not_a_dated_page():
    # A section front: many <time> elements, no page-level date, a date in its URL.
    items = "".join(
        f'<li><a href="/2024/01/01/story-{i}/">Story {i}</a> '
        f'<time datetime="2024-01-01T1{i}:00:00+00:00">Jan 1</time></li>' for i in range(5)
    )
    html = f"<html><head><title>Politics</title></head><body><main><ul>{items}</ul></main></body></html>"
    page = read_page("https://news.example/archive/2024/01/01/", html)
    assert page.published is None and page.date_source == "listing"
    assert len(page.links) == 5
    # a front with a single dated story so far is still a listing
    single = html.replace(items, items.split("</li>")[0] + "</li>")
    assert read_page("https://news.example/x/", single).date_source == "listing"
    # a page whose one <time> is not a list item's is dated by it
    article = "<html><body><main><p>By A <time datetime='2024-01-01T10:00:00+00:00'>x</time></p></main></body></html>"
    assert read_page("https://news.example/y/", article).date_source == "time"


def test_a_listing_tells_each_item_s_time():
    items = "".join(
        f'<li><a href="/2024/01/01/story-{i}/">Story {i}</a> '
        f'<time datetime="2024-01-01T1{i}:00:00+02:00">Jan 1</time></li>' for i in range(3)
    )
    # a row with two links is ambiguous (which one is the dated story?) and left out
    items += ('<li><a href="/a/">A</a> <a href="/b/">B</a> '
              '<time datetime="2024-01-01T09:00:00+00:00">x</time></li>')
    # an unparsable time is left out too
    items += '<li><a href="/c/">C</a> <time datetime="yesterday">x</time></li>'
    html = f"<html><body><nav><a href='/'>Home</a></nav><ul>{items}</ul></body></html>"
    page = read_page("https://news.example/section/politics/", html)
    assert page.date_source == "listing"
    assert dict(page.listed) == {
        f"https://news.example/2024/01/01/story-{i}/": datetime(2024, 1, 1, 8 + i, tzinfo=UTC)
        for i in range(3)
    }
    # an article lists nothing
    article = ("<html><head><meta property='article:published_time' content='2024-01-01T10:00:00Z'></head>"
               "<body><a href='/x/'>x</a></body></html>")
    assert read_page("https://news.example/y/", article).listed == ()


def test_a_capped_listing_lists_no_more_items_than_the_cap():
    items = "".join(f'<li><a href="/s/{i}">S</a><time datetime="2024-01-01T{i % 24:02d}:00:00Z">x</time></li>'
                    for i in range(50))
    result = read_page("http://site.example/", page(f"<ul>{items}</ul>"), max_links=5,
                       now=datetime(2024, 1, 2, tzinfo=UTC))
    assert result.date_source == "listing"
    assert [link for link, _ in result.listed] == [f"http://site.example/s/{i}" for i in range(5)]


def test_listed_items_are_resolved_against_the_base_href_like_the_links():
    items = "".join(f'<li><a href="s/{i}">S</a><time datetime="2024-01-01T1{i}:00:00Z">x</time></li>'
                    for i in range(3))
    result = read_page("http://site.example/front/", page(f"<ul>{items}</ul>", '<base href="/news/">'),
                       now=datetime(2024, 1, 2, tzinfo=UTC))
    assert [link for link, _ in result.listed] == list(result.links) == [
        f"http://site.example/news/s/{i}" for i in range(3)]


def _listed_by_xpath(html: str, url: str, now: datetime) -> dict[str, datetime]:
    """The listing rule as one XPath per <time> says it (the reading before issue 15): the
    smallest ancestor holding an <a href>, when its <a> hold one distinct href."""
    from urllib.parse import urljoin

    from parsel import Selector

    earliest = date_window(now)[0]
    listed: dict[str, datetime] = {}
    for time_element in Selector(text=html, type="html").xpath("//body//time[@datetime]"):
        when = datetime.fromisoformat(time_element.attrib["datetime"])
        item = time_element.xpath("ancestor::*[.//a[@href]][1]")
        hrefs = set(item[0].xpath(".//a/@href").getall()) if item else set()
        if when >= earliest and len(hrefs) == 1:
            listed.setdefault(urljoin(url, hrefs.pop()), when)
    return listed


@pytest.mark.parametrize("body", [
    # items inside items: the inner ones hold one link, the outer ones two
    "<ul>" + "".join(f"<li><div><a href='/o{i}'>o</a><p><a href='/i{i}'>i</a>"
                     f"<time datetime='2024-01-01T0{i}:00:00Z'></time></p></div>"
                     f"<time datetime='2024-01-01T1{i}:00:00Z'></time></li>" for i in range(5)) + "</ul>",
    # the time inside its link, the same link three times in an item, an anchor without href
    "<ul>" + "".join(f"<li><a href='/s{i}'><img><time datetime='2024-01-01T0{i}:00:00Z'></time></a>"
                     f"<a href='/s{i}'>t</a><a>no href</a><a href='/s{i}'>more</a></li>" for i in range(5)) + "</ul>",
    # a chain 300 deep with a dated item at every level, all showing the same link
    "".join(f"<div><a href='/same'>s</a><time datetime='2024-01-01T{i % 24:02d}:00:00Z'></time>" for i in range(300))
    + "</div>" * 300,
    # times with no link around them at all, and siblings sharing one item
    "<p><time datetime='2024-01-01T01:00:00Z'></time></p><div><a href='/a'>a</a><span><time datetime="
    "'2024-01-01T02:00:00Z'></time></span><span><time datetime='2024-01-01T03:00:00Z'></time></span></div>",
])
def test_listed_items_follow_the_listing_rule_on_any_shape(body):
    now = datetime(2024, 1, 3, tzinfo=UTC)
    result = read_page("http://site.example/front/", page(body), now=now, max_links=0)
    assert result.date_source == "listing"
    expected = _listed_by_xpath(page(body), "http://site.example/front/", now)
    assert expected and dict(result.listed) == expected
