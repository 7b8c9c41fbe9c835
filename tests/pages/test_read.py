"""Tests for newsforagers.pages.read: reading a page or a Scrapy response: robustness, non-HTML
bodies, documents of their own, the caps."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from scrapy.http import HtmlResponse, Response, TextResponse, XmlResponse

from newsforagers.pages.page import NotHTML, Page
from newsforagers.pages.read import DOCUMENT_MIN_WORDS, read_page, read_response
from tests.pages.html import URL, anchors, page


@pytest.mark.parametrize(
    "html",
    [
        "<html><head><title>Trunc",
        '<html><head><meta property="article:published_time" content="2024-03-05T14:3',
        "<p>unclosed <b>tags <i>everywhere <a href='/x'>link",
        "</div></p><<<>>> &bogus; <a href=>",
        "text\x00with\x00nulls and \x01\x02 control characters",
        "<div>" * 5_000 + "deep" + "</div>" * 5_000,
        "https://news.example.org/looks-like-a-url",
        "\ufeff<html><body>bom</body></html>",
        "<?xml version='1.0' encoding='utf-8'?><html><body><p>decl</p></body></html>",
        "<frameset><frame src='/a'></frameset>",
    ],
)
def test_malformed_html_never_raises(html):
    result = read_page(URL, html)
    assert isinstance(result, Page)
    assert result.url == URL


@pytest.mark.parametrize("body", ["", b"", "   \n "])
def test_empty_body_gives_an_empty_page(body):
    assert read_page(URL, body) == Page(URL, "", "", (), None, None)


def test_empty_body_still_gets_the_url_date():
    result = read_page("https://news.example.org/2024/03/05/a/", "")
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC)


def test_bytes_are_decoded_with_the_declared_charset():
    body = page("<p>Caf\u00e9 na\u00efve</p>").encode("latin-1")
    result = read_page(URL, body, headers={"content-type": "text/html; charset=ISO-8859-1"})
    assert result.text == "Caf\u00e9 na\u00efve"


def test_read_page_refuses_non_html():
    with pytest.raises(NotHTML, match="binary body"):
        read_page(URL, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(NotHTML, match="image/png"):
        read_page(URL, "<p>x</p>", headers={"Content-Type": "image/png"})


def test_read_response_reads_an_html_response_like_read_page():
    html = page(
        '<article><h1>Story</h1><p>Body.</p><a href="/next">next</a></article>',
        "<title>Story</title>"
        '<meta property="article:published_time" content="2024-03-05T14:30:00Z">',
    )
    response = HtmlResponse(URL, body=html.encode(), encoding="utf-8",
                            headers={"Content-Type": "text/html; charset=utf-8"})
    assert read_response(response) == read_page(URL, html)


def test_read_response_leaves_the_response_selector_intact():
    # A date only in a byline sends htmldate past the metadata, to its pruning step.
    html = page("<iframe src='/x'></iframe><p class='byline'>Published on March 5, 2024.</p>"
                "<svg><text>logo</text></svg>")
    response = HtmlResponse(URL, body=html.encode(), encoding="utf-8")
    before = response.selector.get()
    result = read_response(response)
    assert result.date_source == "htmldate"
    assert response.selector.get() == before


@pytest.mark.parametrize(
    "response",
    [
        Response(URL, body=b"\x89PNG\r\n\x1a\n\x00\x00", headers={"Content-Type": "image/png"}),
        Response(URL, body=b"\x00\x01\x02binary"),
        TextResponse(URL, body=b"plain words", encoding="utf-8",
                     headers={"Content-Type": "text/plain"}),
        XmlResponse(URL, body=b"<rss><channel/></rss>", encoding="utf-8",
                    headers={"Content-Type": "application/rss+xml"}),
        HtmlResponse(URL, body=b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", headers={"Content-Type": "text/html"}),
    ],
    ids=["image", "binary", "text-plain", "rss", "image-labelled-html"],
)
def test_read_response_refuses_non_html(response):
    with pytest.raises(NotHTML) as excinfo:
        read_response(response)
    assert excinfo.value.url == URL
    assert isinstance(excinfo.value, ValueError)


_NOW_DOC = datetime(2010, 10, 24, 15, 0, tzinfo=UTC)


_EMPTY_ARCHIVE = (
    "<header><a href='/'>news.example</a></header><main><h1>Archive: Sunday October 24, 2010</h1>"
    "<p>No stories yet.</p><nav class='pager'><a rel='prev' href='/archive/2010/10/23/'>Previous"
    " day</a></nav></main>"
)


def test_an_empty_day_archive_is_dated_but_not_a_document():
    result = read_page("http://news.example/archive/2010/10/24/",
                       page(_EMPTY_ARCHIVE, "<title>Archive 2010-10-24 | news.example</title>"),
                       now=_NOW_DOC)
    assert result.published is not None and result.published.date() == _NOW_DOC.date()
    assert result.date_source in ("htmldate", "url")
    assert not result.document


def test_a_page_dated_by_a_guess_is_a_document_when_it_has_text_of_its_own():
    words = " ".join(["harbour"] * DOCUMENT_MIN_WORDS)
    body = f"<h1>Storm closes the port</h1><p>October 24, 2010</p><p>{words}</p>"
    result = read_page("http://news.example/2010/10/24/storm/", page(body), now=_NOW_DOC)
    assert result.date_source in ("htmldate", "url") and result.document
    # the same page with one word fewer of its own, the rest in links and headings
    short = " ".join(["harbour"] * (DOCUMENT_MIN_WORDS - 1))
    links = "".join(f"<a href='/s{i}'>linked words here</a>" for i in range(20))
    body = f"<h1>Storm closes the port</h1><p>{short}</p><nav>{links}</nav><p>{links}</p>"
    assert not read_page("http://news.example/2010/10/24/storm/", page(body), now=_NOW_DOC).document


def test_publication_markup_makes_a_document_however_short_and_a_listing_never_is():
    head = '<meta property="article:published_time" content="2010-10-24T14:00:00Z">'
    assert read_page("http://news.example/a", page("<p>Brief.</p>", head), now=_NOW_DOC).document
    listing = ("<ul><li><a href='/a'>A</a><time datetime='2010-10-24T10:00:00Z'></time></li>"
               "<li><a href='/b'>B</a><time datetime='2010-10-24T11:00:00Z'></time></li></ul>")
    result = read_page("http://news.example/", page(listing), now=_NOW_DOC)
    assert result.date_source == "listing" and not result.document
    assert not read_page("http://news.example/u", page("<p>No date.</p>"), now=_NOW_DOC).document


@pytest.mark.parametrize("cap", ["max_links", "max_text"])
@pytest.mark.parametrize("bad", [-1, 2.5, "10", True, None])
def test_a_bad_cap_is_refused(cap, bad):
    with pytest.raises(ValueError, match=cap):
        read_page(URL, page("<p>x</p>"), **{cap: bad})
    response = HtmlResponse(URL, body=page("<p>x</p>").encode())
    with pytest.raises(ValueError, match=cap):
        read_response(response, **{cap: bad})


@pytest.mark.parametrize("key, value, message", [
    ("FORAGERS_MAX_LINKS", -1, r"^FORAGERS_MAX_LINKS \(-1\) must be >= 0 \(0: no cap\)\.$"),
    ("FORAGERS_MAX_TEXT", -5, r"^FORAGERS_MAX_TEXT \(-5\) must be >= 0 characters \(0: no cap\)\.$"),
    ("FORAGERS_MAX_TEXT", "lots", r"^FORAGERS_MAX_TEXT \('lots'\) must be a finite int\.$"),
])
def test_the_cap_settings_are_validated(key, value, message):
    from newsforagers.config import ForagersConfig
    from newsforagers.errors import ForagersUsageError

    with pytest.raises(ForagersUsageError, match=message):
        ForagersConfig.from_settings({key: value})
    config = ForagersConfig.from_settings({"FORAGERS_MAX_LINKS": "0", "FORAGERS_MAX_TEXT": "250"})
    assert (config.max_links, config.max_text) == (0, 250)


def test_read_response_applies_the_caps():
    response = HtmlResponse("http://site.example/", body=page("<p>alpha beta</p>" + anchors(5)).encode())
    result = read_response(response, max_links=2, max_text=7)
    assert result.links == ("http://site.example/s/0", "http://site.example/s/1") and result.links_capped == 3
    assert result.text == "alpha" and result.text_capped


def test_the_spider_counts_and_warns_once_about_capped_pages(caplog):
    from scrapy import Request
    from scrapy.utils.test import get_crawler

    from newsforagers.config import ForagersConfig
    from newsforagers.spiders.forager import ForagerSpider

    spider = ForagerSpider(seeds="http://site.example/")
    spider._set_crawler(get_crawler(ForagerSpider))
    spider.config = ForagersConfig.from_settings({"FORAGERS_MAX_LINKS": 2, "FORAGERS_MAX_TEXT": 5})

    def response(url):
        return HtmlResponse(url, body=page("<p>alpha beta</p>" + anchors(5)).encode(),
                            request=Request(url, meta={"forager_url": url}))

    with caplog.at_level("DEBUG", logger="newsforagers.spiders.forager"):
        pages = [spider._read(response(f"http://site.example/{i}"), lambda url: None) for i in range(2)]
    assert [len(p.links) for p in pages] == [2, 2] and [p.text for p in pages] == ["alpha", "alpha"]
    stats = spider.crawler.stats
    assert stats.get_value("newsforagers/pages/links_capped") == 2
    assert stats.get_value("newsforagers/pages/text_capped") == 2
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len([w for w in warnings if "FORAGERS_MAX_LINKS (2)" in w]) == 1  # once, then counted
    assert len([w for w in warnings if "FORAGERS_MAX_TEXT (5" in w]) == 1
