"""Tests for newsforagers.pages.links: a page's links: absolute, deduplicated, ``<base href>``,
session ids, the ``max_links`` cap."""

from __future__ import annotations

from newsforagers.pages.read import read_page
from tests.pages.html import URL, anchors, page


def test_links_are_absolute_fragment_free_deduplicated_http_only():
    html = page(
        '<a href="/world/a">1</a>'
        '<a href="b?x=1#comments">2</a>'
        '<a href="../c">3</a>'
        '<a href="/world/a#top">dup</a>'
        '<a href="  /world/d\n ">space</a>'
        '<a href="//cdn.example.net/e">protocol-relative</a>'
        '<a href="HTTPS://other.example.com/f">upper scheme</a>'
        '<a href="mailto:desk@example.org">mail</a>'
        '<a href="javascript:void(0)">js</a>'
        '<a href="tel:+3612345">tel</a>'
        '<a href="ftp://files.example.org/g">ftp</a>'
        '<a href="data:text/html,hi">data</a>'
        '<a href="http://[::1">bad host</a>'
        '<a href="http:///nohost">no host</a>'
        "<a>no href</a>"
        '<map><area href="/world/h"></map>'
        '<a href="/world/a">dup again</a>'
    )
    assert read_page(URL, html).links == (
        "https://news.example.org/world/a",
        "https://news.example.org/world/b?x=1",
        "https://news.example.org/c",
        "https://news.example.org/world/d",
        "https://cdn.example.net/e",
        "https://other.example.com/f",
        "https://news.example.org/world/h",
    )


def test_links_respect_base_href_even_when_relative():
    absolute = page(
        '<a href="a">a</a><a href="/b">b</a>', '<base href="https://cdn.example.net/x/">'
    )
    assert read_page(URL, absolute).links == (
        "https://cdn.example.net/x/a",
        "https://cdn.example.net/b",
    )
    relative = page('<a href="a">a</a>', '<base href="/archive/2024/">')
    assert read_page(URL, relative).links == ("https://news.example.org/archive/2024/a",)


def test_links_are_in_the_form_scrapy_requests_use():
    html = page(
        '<a href="/caf\u00e9 noir?q=\u00fc">x</a><a href="#top">self</a><a href="">self</a>'
    )
    assert read_page(URL, html).links == (
        "https://news.example.org/caf%C3%A9%20noir?q=%C3%BC",
        URL,
    )


def test_session_ids_are_removed_from_links_and_counted():
    html = ('<a href="/a;jsessionid=0A1B2C3D">a</a> <a href="/b?sid=0123456789abcdef0123&amp;p=2">b</a>'
            '<a href="/c?sid=5">story 5</a> <a href="/d?PHPSESSID=x&amp;q=a%20b">d</a>')
    page = read_page("http://site.example/", html)
    assert page.links == ("http://site.example/a", "http://site.example/b?p=2", "http://site.example/c?sid=5",
                          "http://site.example/d?q=a%20b")
    assert page.session_ids == 3


def test_links_stop_after_max_links_distinct_hrefs_in_document_order():
    # a menu repeated between the stories: duplicates never count against the cap
    menu = '<a href="/s/0">again</a><a href="/s/1">again</a>'
    html = page(anchors(3) + menu + anchors(7, start=3) + menu)
    result = read_page("http://site.example/", html, max_links=4)
    assert result.links == tuple(f"http://site.example/s/{i}" for i in range(4))
    assert result.links_capped == 8  # /s/4 ... /s/9 and the menu after them were not read
    whole = read_page("http://site.example/", html, max_links=10)
    assert len(whole.links) == 10 and whole.links_capped == 0  # exactly at the cap: nothing left
    assert read_page("http://site.example/", html, max_links=0).links == whole.links  # 0: no cap
    # the setting's default applies to a caller that gives none
    from newsforagers import defaults

    many = read_page("http://site.example/", page(anchors(defaults.FORAGERS_MAX_LINKS + 3)))
    assert len(many.links) == defaults.FORAGERS_MAX_LINKS and many.links_capped == 3
    assert many.links[-1] == f"http://site.example/s/{defaults.FORAGERS_MAX_LINKS - 1}"


def test_copies_of_one_link_are_read_up_to_piece_elements_anchors():
    from newsforagers.pages.piece import PIECE_ELEMENTS

    html = page('<a href="/one">x</a>' * (PIECE_ELEMENTS + 10) + '<a href="/two">y</a>')
    result = read_page("http://site.example/", html)
    assert result.links == ("http://site.example/one",) and result.links_capped == 11
    assert read_page("http://site.example/", html, max_links=0).links_capped == 0  # 0: no cap at all


def test_a_remembered_resolution_is_the_one_of_the_whole_base():
    """resolve_link remembers a href's resolution keyed by the part of the base it depends on
    (the scheme, the scheme and host, or all of it): every href against every base resolves as
    urljoin against the whole base does, whichever base it was met with first."""
    from itertools import product
    from urllib.parse import urldefrag, urljoin, urlsplit

    from w3lib.url import safe_url_string

    from newsforagers.pages import links

    bases = ["http://a.example/news/2024/story.html?x=1#top", "https://a.example/news/", "http://b.example",
             "http://a.example:8080/x;p?q#f/g", "http://a.example?only=query", "https://a.example/a/b/c/",
             "http://user@c.example/d/./e/../f"]
    hrefs = ["http://z.example/p?", "HTTPS://Z.example/p#f", "//z.example/p?", "/", "/p/../q?x#y", "/p;x",
             "p.html", "../up", "?page=2", "#frag", "", "  /sp ace  ", "\t/ta\nb\r", "mailto:x@y",
             "javascript:void(0)", "ftp://z.example/", "http:relative", "/s?jsessionid=abc&a=1",
             "/x;jsessionid=0123456789abcdef0123", "https://z.example//p//", "//", "///three", "//?q",
             "http:///x", "http://", "http:/x", "c:/x"]

    def direct(base, href):
        href = href.strip().replace("\t", "").replace("\n", "").replace("\r", "")
        try:
            joined = urldefrag(urljoin(base, href)).url
            parts = urlsplit(joined)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                return None, False
            link = safe_url_string(joined)
        except ValueError:
            return None, False
        return links._without_session_id(link)

    for order in (bases, bases[::-1]):
        links._resolve.cache_clear()
        for base, href in product(order, hrefs):
            assert links.resolve_link(base, href) == direct(base, href), (base, href)
    assert links._resolve.cache_info().hits > 0
