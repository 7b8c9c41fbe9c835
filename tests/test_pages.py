"""Tests for newsforagers.pages: reading title, text, links and dates; Alg. 5's memory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import htmldate.utils
import lxml.html
import pytest
from htmldate import find_date
from scrapy.http import HtmlResponse, Response, TextResponse, XmlResponse

from newsforagers.pages import (
    DOCUMENT_MIN_WORDS,
    DATE_FUTURE_REACH,
    DATE_PAST_REACH,
    DEFAULT_FUTURE_SKEW,
    NotHTML,
    Page,
    SentMemory,
    charset_trouble,
    date_window,
    is_candidate,
    read_page,
    read_response,
)

URL = "https://news.example.org/world/story-17"


def page(body: str = "", head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """htmldate downloads a string argument that looks like a URL; nothing here may."""

    def refuse(url):
        raise AssertionError(f"network access attempted: {url}")

    monkeypatch.setattr(htmldate.utils, "fetch_url", refuse)


# --- title ------------------------------------------------------------------------------


def test_title_from_title_element_with_whitespace_normalised():
    html = page("<h1>Headline</h1>", "<title>\n  Storm  hits\tthe\u00a0coast | News </title>")
    assert read_page(URL, html).title == "Storm hits the coast | News"


def test_title_falls_back_to_og_title_then_h1():
    og = '<title>   </title><meta property="og:title" content=" Open  Graph ">'
    assert read_page(URL, page("<h1>H</h1>", og)).title == "Open Graph"
    assert read_page(URL, page("<h1> First <em>one</em></h1><h1>Second</h1>")).title == (
        "First one"
    )
    assert read_page(URL, page("<p>no title at all</p>")).title == ""


def test_title_ignores_svg_titles():
    html = page('<svg><title>icon</title></svg><h1>Real</h1>')
    assert read_page(URL, html).title == "Real"


@pytest.mark.parametrize("title, site", [
    ("Storm hits the coast | Daily News", "Daily News"),
    ("Storm hits the coast - Daily News", "Daily News"),
    ("Storm hits the coast \u2014 daily news", "Daily News"),  # the name's case may differ
    ("Daily News: Storm hits the coast", "Daily News"),
    ("Daily News | Storm hits the coast", "Daily News"),
])
def test_title_drops_the_site_name_the_page_declares(title, site):
    for meta in (f'<meta property="og:site_name" content="{site}">',
                 f'<meta name="application-name" content="{site}">'):
        html = page("<p>No headline element.</p>", f"<title>{title}</title>{meta}")
        assert read_page(URL, html).title == "Storm hits the coast"


def test_a_title_that_is_only_the_site_name_is_kept():
    html = page("<p>Front</p>", '<title>Daily News</title><meta property="og:site_name" content="Daily News">')
    assert read_page(URL, html).title == "Daily News"


def test_title_with_a_dash_of_its_own_loses_only_the_site_name():
    title = "<title>Brexit - what happens next - BBC News</title>"
    declared = page("", title + '<meta property="og:site_name" content="BBC News">')
    assert read_page(URL, declared).title == "Brexit - what happens next"
    shown = page("<article><h1>Brexit - what happens next</h1><p>Text.</p></article>", title)
    assert read_page(URL, shown).title == "Brexit - what happens next"
    # Nothing says which part is the site's: the title is kept whole, not cut at a guess.
    assert read_page(URL, page("<p>Text.</p>", title)).title == (
        "Brexit - what happens next - BBC News"
    )


def test_title_is_the_og_title_or_headline_it_decorates():
    # no <h1>: og:title shows the title without the decoration
    og = page("<p>Text.</p>", '<title>Storm hits | Daily News</title><meta property="og:title" content="Storm hits">')
    assert read_page(URL, og).title == "Storm hits"
    # no og:title: the article's <h1>, decorated before or after
    for title in ("Storm hits the coast | Daily News", "Daily News: Storm hits the coast"):
        html = page("<header><a href='/'>Daily News</a></header><main><h1>Storm hits the coast</h1></main>",
                    f"<title>{title}</title>")
        assert read_page(URL, html).title == "Storm hits the coast"
    # og:title may itself carry the site's name
    both = page("", '<title>Storm hits | Daily News</title><meta property="og:title" '
                'content="Storm hits | Daily News"><meta property="og:site_name" content="Daily News">')
    assert read_page(URL, both).title == "Storm hits"


def test_title_is_never_cut_inside_a_word_or_at_a_banner():
    # the headline is a prefix of the title, but not up to a separator
    whole = page("<h1>Storm hits the coast</h1>", "<title>Storm hits the coast | News</title>")
    assert read_page(URL, whole).title == "Storm hits the coast"
    partial = page("<h1>Storm hits the coast</h1>", "<title>Storm hits the coastline | News</title>")
    assert read_page(URL, partial).title == "Storm hits the coastline | News"
    # a hyphen inside a word is not a separator
    hyphen = page("", '<title>Cases rise after COVID-19</title><meta property="og:site_name" content="19">')
    assert read_page(URL, hyphen).title == "Cases rise after COVID-19"
    # the site's logo as an <h1> in its banner, or as a short <h1> linking home, is not the title
    for banner, site in (("<header><h1>Daily News</h1></header><p>Text.</p>", "Daily News"),
                         ("<h1><a href='/'>Daily News</a></h1><p>Text.</p>", "Daily News"),
                         ("<h1>News</h1><p>Text.</p>", "News")):
        for title in (f"Storm hits the coast | {site}", f"{site}: Storm hits the coast"):
            assert read_page(URL, page(banner, f"<title>{title}</title>")).title == title


def test_replay_article_title_is_the_story_title():
    from newsforagers.replay import render

    when = datetime(2024, 3, 5, 14, 30, tzinfo=UTC)
    story = "Fairmont film: critics defend plan - again"
    main = render.article_main(story, when, "Summary.", "<p>Body.</p>", [("/author/a/", "A")],
                               [("/section/arts/", "arts")], [], [], [], ("/archive/2024/03/05/", "x"))
    head = render.article_head(story, when, ["A"], ["arts"], "/2024/03/05/fairmont/", "Summary.")
    html = render.layout("news.example.com (replay)", story, main, [], [], head)
    assert f"<title>{story} | news.example.com (replay)</title>" in html
    assert read_page(URL, html).title == story


# --- text -------------------------------------------------------------------------------


def test_text_is_visible_body_text_without_noise():
    html = page(
        "<nav><a href='/'>Home</a> <a href='/world'>World</a></nav>"
        "<h1>Storm</h1><p>The <b>st</b>orm hit &amp; left.</p><p>Second<br>line</p>"
        "<script>var tracking = 1;</script><style>p {color: red}</style>"
        "<noscript>Enable JavaScript</noscript><template><p>tpl</p></template>"
        "<div hidden>secret</div><span aria-hidden='true'>icon</span>"
        "<!-- a comment -->after comment"
        "<aside>Most read</aside><footer>© 2025 Example</footer>",
        "<title>Not body text</title>",
    )
    assert read_page(URL, html).text == (
        "Storm The storm hit & left. Second line after comment"
    )


def test_text_keeps_blocks_apart_and_inline_words_together():
    html = page("<div>one</div><div>two</div><p>th<i>re</i>e</p><ul><li>a</li><li>b</li></ul>")
    assert read_page(URL, html).text == "one two three a b"


# --- links ------------------------------------------------------------------------------


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


# --- publication date -------------------------------------------------------------------


def test_date_from_article_published_time_keeps_time_and_offset():
    html = page(
        "<p>x</p>",
        '<meta property="article:modified_time" content="2024-03-07T09:00:00+02:00">'
        '<meta property="article:published_time" content="2024-03-05T14:30:00+02:00">',
    )
    result = read_page(URL, html)
    assert result.published == datetime(2024, 3, 5, 12, 30, tzinfo=UTC)
    assert result.published.tzinfo is UTC
    assert result.date_source == "meta"


def test_naive_timestamp_is_taken_as_utc():
    html = page("", '<meta property="article:published_time" content="2024-03-05T14:30:00">')
    assert read_page(URL, html).published == datetime(2024, 3, 5, 14, 30, tzinfo=UTC)


def test_http_style_timestamp_in_meta_keeps_its_time():
    html = page("", '<meta name="article:published_time" content="Tue, 05 Mar 2024 14:30:00 GMT">')
    assert read_page(URL, html).published == datetime(2024, 3, 5, 14, 30, tzinfo=UTC)


def test_date_from_json_ld_graph():
    html = page(
        "<p>x</p>",
        '<script type="application/ld+json">{not json</script>'
        '<script type="application/ld+json">'
        '{"@context": "https://schema.org", "@graph": [{"@type": "WebSite"},'
        ' {"@type": "NewsArticle", "dateModified": "2024-03-06T10:00:00Z",'
        ' "datePublished": "2024-03-05T14:30:00.250-05:00"}]}</script>',
    )
    result = read_page(URL, html)
    assert result.published == datetime(2024, 3, 5, 19, 30, 0, 250_000, tzinfo=UTC)
    assert result.date_source == "json-ld"


def test_date_from_time_element_prefers_the_article_over_other_boxes():
    html = page(
        '<aside><h2>Most read</h2><time datetime="2023-01-01T08:00:00Z">old</time></aside>'
        '<div class="promo"><time datetime="2023-02-02T08:00:00Z">older story</time></div>'
        '<article><h1>Story</h1><time datetime="2024-03-05T14:30:00+01:00">5 March</time>'
        "<p>Body.</p></article>"
    )
    result = read_page(URL, html)
    assert result.published == datetime(2024, 3, 5, 13, 30, tzinfo=UTC)
    assert result.date_source == "time"


def test_explicit_timestamp_beats_a_date_in_the_canonical_url():
    # htmldate alone answers "2024-03-05T00:00:00" here: it reads the canonical URL first.
    head = (
        '<link rel="canonical" href="https://news.example.org/2024/03/05/story/">'
        '<meta property="article:published_time" content="2024-03-05T22:45:00+00:00">'
    )
    tree = lxml.html.document_fromstring(page("<p>x</p>", head))
    assert find_date(tree, original_date=True, extensive_search=False,
                     outputformat="%Y-%m-%dT%H:%M:%S%z") == "2024-03-05T00:00:00"
    assert read_page(URL, page("<p>x</p>", head)).published == datetime(
        2024, 3, 5, 22, 45, tzinfo=UTC
    )


def test_htmldate_answers_when_there_is_no_full_timestamp():
    bare_meta = page("<p>x</p>", '<meta property="article:published_time" content="2024-03-05">')
    result = read_page(URL, bare_meta)
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC)
    assert result.date_source == "htmldate"

    byline = page(
        "<article><p class='byline'>Published on March 5, 2024.</p><p>Body</p></article>"
    )
    result = read_page(URL, byline)
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC)
    assert result.date_source == "htmldate"


def test_date_only_in_url_is_the_fallback():
    result = read_page("https://news.example.org/2024/03/05/storm-hits/", page("<p>Body.</p>"))
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC)
    assert result.date_source == "url"


def test_page_without_date_gives_none():
    html = page("<h1>Story</h1><p>Body without any date.</p>", "<title>T</title>")
    result = read_page(URL, html)
    assert result.published is None
    assert result.date_source is None


def test_copyright_footer_is_not_a_publication_date():
    html = page(
        "<h1>About us</h1><p>We write about the river and the harbour.</p>"
        "<footer><p>Copyright \u00a9 2025 Example News. All rights reserved.</p></footer>",
        "<title>About us</title>",
    )
    assert read_page(URL, html).published is None
    # Why extensive_search stays off: the opportunistic search takes the footer's year.
    assert find_date(html, original_date=True, extensive_search=True) == "2025-01-01"
    assert find_date(html, original_date=True, extensive_search=False) is None


@pytest.mark.parametrize(
    "value",
    [
        "0001-01-01T00:00:00Z",  # a template's zero date
        "1970-01-01T00:00:00Z",  # the Unix epoch: a zero timestamp
        "1990-06-01T12:00:00Z",  # more than 30 years before the site's clock (2024)
        "2024-05-01T12:00:00Z",  # more than 30 days after it
        "2099-12-31T23:59:59Z",  # a placeholder far ahead
        "2024-13-45T99:00:00Z",  # not a date at all
        "9999-12-31T23:59:59-05:00",  # past datetime.max once in UTC
        "yesterday at noon",
        "",
    ],
)
def test_implausible_or_unparsable_dates_give_none(value):
    html = page("<p>Body.</p>", f'<meta property="article:published_time" content="{value}">')
    assert read_page(URL, html, now=NOW).published is None


def test_explicit_future_timestamp_is_read_and_left_to_is_candidate():
    # A page dated a little ahead of the site's clock keeps its date: is_candidate refuses it
    # and the spider counts it as future-dated. On the system clock, 2099 is far ahead.
    html = page("", '<meta property="article:published_time" content="2099-03-05T14:30:00Z">')
    now = datetime(2099, 3, 5, 14, 0, tzinfo=UTC)
    published = read_page(URL, html, now=now).published
    assert published == datetime(2099, 3, 5, 14, 30, tzinfo=UTC)
    assert not is_candidate(published, now)
    assert read_page(URL, html).published is None


# Pages whose only date is of one kind, each read by another route (step 1, htmldate, URL).
def era_pages(year: int) -> dict[str, tuple[str, str, datetime]]:
    """source -> (url, html, the date it must read) for a story of 5 March ``year``."""
    day = datetime(year, 3, 5, tzinfo=UTC)
    return {
        "meta": (URL, page("<p>x</p>", f'<meta property="article:published_time" content="{year}-03-05T14:30:00+02:00">'),
                 day.replace(hour=12, minute=30)),
        "json-ld": (URL, page("<p>x</p>", '<script type="application/ld+json">'
                              f'{{"@type": "NewsArticle", "datePublished": "{year}-03-05T14:30:00Z"}}</script>'),
                    day.replace(hour=14, minute=30)),
        "time": (URL, page(f"<article><time datetime='{year}-03-05T14:30:00Z'>x</time></article>"),
                 day.replace(hour=14, minute=30)),
        "htmldate": (URL, page("<p>x</p>", f'<meta property="article:published_time" content="{year}-03-05">'), day),
        "url": (f"https://news.example.org/{year}/03/05/storm-hits/", page("<p>Body.</p>"), day),
    }


@pytest.mark.parametrize("source", ["meta", "json-ld", "time", "htmldate", "url"])
@pytest.mark.parametrize("year", [1987, 2090])
def test_a_page_of_any_era_is_dated_on_its_site_clock(year, source):
    url, html, expected = era_pages(year)[source]
    now = datetime(year, 3, 5, 18, 0, tzinfo=UTC)
    result = read_page(url, html, now=now)
    assert (result.published, result.date_source) == (expected, source)
    response = HtmlResponse(url, body=html.encode(), encoding="utf-8")
    assert read_response(response, now).published == expected
    # on the system clock (today) neither 1987 nor 2090 is a plausible date
    assert read_page(url, html).published is None


@pytest.mark.parametrize("source", ["meta", "htmldate", "url"])
def test_the_date_window_follows_the_site_clock(source):
    url, html, expected = era_pages(1987)[source]
    assert read_page(url, html, now=datetime(1987, 3, 6, tzinfo=UTC)).published == expected
    # 30 years later it is still a date; 31 years later it is junk to that clock
    assert read_page(url, html, now=datetime(2017, 3, 1, tzinfo=UTC)).published == expected
    assert read_page(url, html, now=datetime(2018, 3, 6, tzinfo=UTC)).published is None
    # a clock a few days behind the page: future-dated, still read (is_candidate refuses
    # it); weeks behind: junk
    assert read_page(url, html, now=datetime(1987, 3, 2, tzinfo=UTC)).published == expected
    assert read_page(url, html, now=datetime(1987, 1, 20, tzinfo=UTC)).published is None


def test_date_window_bounds():
    earliest, latest = date_window(datetime(2024, 3, 6, 12, 0, tzinfo=timezone(timedelta(hours=5))))
    assert earliest == datetime(2024, 3, 6, tzinfo=UTC) - DATE_PAST_REACH
    assert latest == datetime(2024, 4, 5, 23, 59, 59, 999_999, tzinfo=UTC)
    assert DATE_PAST_REACH == timedelta(days=10_958) and DATE_FUTURE_REACH == timedelta(days=30)
    on_edge = page("", f'<meta property="article:published_time" content="{earliest.isoformat()}">')
    assert read_page(URL, on_edge, now=NOW).published == earliest
    before = page("", f'<meta property="article:published_time" content="{(earliest - timedelta(seconds=1)).isoformat()}">')
    assert read_page(URL, before, now=NOW).published is None
    # clamped at what datetime holds
    assert date_window(datetime(5, 1, 1, tzinfo=UTC))[0] == datetime.min.replace(tzinfo=UTC)
    assert date_window(datetime(9999, 12, 30, tzinfo=UTC))[1] == datetime.max.replace(tzinfo=UTC)


@pytest.mark.parametrize("bad, error", [
    (datetime(2024, 3, 6, 12, 0), ValueError),  # naive: whose clock?
    ("2024-03-06T12:00:00Z", TypeError),
    (1709726400.0, TypeError),
])
def test_a_bad_site_clock_is_refused(bad, error):
    with pytest.raises(error, match="now"):
        read_page(URL, page("<p>x</p>"), now=bad)
    with pytest.raises(error, match="now"):
        read_response(HtmlResponse(URL, body=b"<p>x</p>", encoding="utf-8"), bad)


def test_a_listing_of_1987_lists_its_times_on_its_clock():
    items = "".join(f'<li><a href="/1987/03/05/story-{i}/">Story {i}</a> '
                    f'<time datetime="1987-03-05T1{i}:00:00+00:00">x</time></li>' for i in range(3))
    html = f"<html><body><main><ul>{items}</ul></main></body></html>"
    listing = read_page("https://news.example/archive/1987/03/05/", html, now=datetime(1987, 3, 5, 20, tzinfo=UTC))
    assert listing.date_source == "listing"
    assert min(listing.listed) == ("https://news.example/1987/03/05/story-0/",
                                   datetime(1987, 3, 5, 10, tzinfo=UTC))
    assert len(listing.listed) == 3


# --- robustness -------------------------------------------------------------------------


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


def test_deeply_nested_text_is_read_without_recursion():
    # Deeper than Python's recursion limit, within what lxml keeps (about 2,000 levels;
    # beyond that the parser drops the rest, and the page reads as empty).
    html = "<div>" * 1_500 + "deep" + "</div>" * 1_500
    assert read_page(URL, html).text == "deep"


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


# --- Scrapy responses -------------------------------------------------------------------


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


# --- is_candidate -----------------------------------------------------------------------

NOW = datetime(2024, 3, 6, 12, 0, tzinfo=UTC)


def test_candidate_window_is_inclusive_at_exactly_24_hours():
    assert is_candidate(NOW - timedelta(hours=24), NOW)
    assert not is_candidate(NOW - timedelta(hours=24, microseconds=1), NOW)
    assert is_candidate(NOW, NOW)
    assert is_candidate(NOW - timedelta(hours=1), NOW, window=timedelta(hours=1))
    assert not is_candidate(NOW - timedelta(hours=2), NOW, window=timedelta(hours=1))


def test_future_dates_are_candidates_only_within_the_skew():
    assert DEFAULT_FUTURE_SKEW == timedelta(minutes=5)
    assert is_candidate(NOW + timedelta(minutes=5), NOW)
    assert not is_candidate(NOW + timedelta(minutes=5, microseconds=1), NOW)
    assert not is_candidate(NOW + timedelta(days=1), NOW)
    assert not is_candidate(NOW + timedelta(seconds=1), NOW, skew=timedelta(0))


def test_candidate_compares_instants_across_time_zones():
    budapest = timezone(timedelta(hours=1))
    assert is_candidate(datetime(2024, 3, 5, 13, 0, tzinfo=budapest), NOW)  # 12:00 UTC
    assert not is_candidate(datetime(2024, 3, 5, 12, 59, tzinfo=budapest), NOW)


def test_undated_page_is_never_a_candidate():
    assert not is_candidate(None, NOW)


def test_naive_datetimes_and_negative_spans_are_rejected():
    with pytest.raises(ValueError, match="now"):
        is_candidate(NOW, NOW.replace(tzinfo=None))
    with pytest.raises(ValueError, match="now"):
        is_candidate(None, NOW.replace(tzinfo=None))
    with pytest.raises(ValueError, match="published"):
        is_candidate(NOW.replace(tzinfo=None), NOW)
    with pytest.raises(ValueError, match="window"):
        is_candidate(NOW, NOW, window=timedelta(hours=-1))
    with pytest.raises(ValueError, match="skew"):
        is_candidate(NOW, NOW, skew=timedelta(minutes=-1))


# --- SentMemory (Alg. 5) ----------------------------------------------------------------


def dated(url: str, published: datetime | None) -> Page:
    return Page(url=url, title="", text="", links=(), published=published)


def test_select_returns_unsent_items_once_and_remembers_them():
    memory = SentMemory()
    assert memory.select(["https://a/1", "https://a/2", "https://a/1"]) == [
        "https://a/1",
        "https://a/2",
    ]
    assert memory.select(["https://a/2", "https://a/3"]) == ["https://a/3"]
    assert memory.select(["https://a/1#comments"]) == []
    assert len(memory) == 3
    assert "https://a/1" in memory
    assert "https://a/9" not in memory
    assert 42 not in memory


def test_pages_and_urls_share_one_memory():
    memory = SentMemory()
    story = dated("https://a/story", NOW)
    assert memory.select([story]) == [story]
    assert "https://a/story" in memory
    assert story in memory
    assert memory.select(["https://a/story"]) == []


def test_select_with_now_is_algorithm_5():
    memory = SentMemory()
    fresh = dated("https://a/fresh", NOW - timedelta(hours=2))
    stale = dated("https://a/stale", NOW - timedelta(hours=25))
    undated = dated("https://a/undated", None)
    assert memory.select([fresh, stale, undated], now=NOW) == [fresh]
    # Pages that were not relevant are not remembered: they were never sent.
    assert "https://a/stale" not in memory
    assert memory.select([fresh], now=NOW) == []
    with pytest.raises(ValueError, match="Page items"):
        memory.select([dated("https://a/other", NOW), "https://a/url"], now=NOW)
    assert "https://a/other" not in memory


def test_memory_is_bounded_and_forgets_the_oldest_first():
    memory = SentMemory(max_entries=3)
    memory.select(["u1", "u2", "u3"])
    memory.select(["u4"])
    assert len(memory) == 3
    assert memory.to_list() == ["u2", "u3", "u4"]
    # A forgotten URL can be sent again; a remembered one is not refreshed by a lookup.
    assert memory.select(["u3", "u1"]) == ["u1"]
    assert memory.to_list() == ["u3", "u4", "u1"]
    memory.select(["u5"])
    assert memory.to_list() == ["u4", "u1", "u5"]


def test_memory_round_trips_through_a_list():
    memory = SentMemory(max_entries=10)
    memory.select([f"https://a/{i}" for i in range(5)])
    restored = SentMemory.from_list(memory.to_list(), max_entries=10)
    assert restored.to_list() == memory.to_list()
    assert restored.select(["https://a/4", "https://a/5"]) == ["https://a/5"]
    # A smaller bound keeps the newest sends.
    assert SentMemory.from_list(memory.to_list(), max_entries=2).to_list() == [
        "https://a/3",
        "https://a/4",
    ]


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True])
def test_memory_bound_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="max_entries"):
        SentMemory(max_entries=bad)


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
    article = "<html><head><meta property='article:published_time' content='2024-01-01T10:00:00Z'></head><body><a href='/x/'>x</a></body></html>"
    assert read_page("https://news.example/y/", article).listed == ()


# -- hostile pages (issue 8) -------------------------------------------------------------------


def test_session_ids_are_removed_from_links_and_counted():
    html = ('<a href="/a;jsessionid=0A1B2C3D">a</a> <a href="/b?sid=0123456789abcdef0123&amp;p=2">b</a>'
            '<a href="/c?sid=5">story 5</a> <a href="/d?PHPSESSID=x&amp;q=a%20b">d</a>')
    page = read_page("http://site.example/", html)
    assert page.links == ("http://site.example/a", "http://site.example/b?p=2", "http://site.example/c?sid=5",
                          "http://site.example/d?q=a%20b")
    assert page.session_ids == 3


def test_a_date_only_in_the_site_footer_is_not_a_publication_date():
    footer = ("<html><body><h1>About us</h1><p>Our newsroom.</p><footer>Page updated "
              "<time datetime='2026-01-01T10:00:00Z'>10:00</time>, 1 January 2026</footer></body></html>")
    assert read_page("http://site.example/about", footer).published is None
    # an article's own footer (its byline) still counts
    article = "<html><body><article><h1>T</h1><p>Text.</p><footer>Published 2026-01-01</footer></article></body></html>"
    assert read_page("http://site.example/t", article).published == datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("content_type, body, text, trouble", [
    ("text/html; charset=utf-8", "caf\xe9".encode("latin-1"), "caf\ufffd", "replaced"),
    ("text/html; charset=x-klingon", b"cafe", "cafe", "unknown"),
    ("text/html", b"<p>caf\xe9", "caf\xe9", "undeclared"),
    (b"text/html", b"<meta charset='utf-8'><p>cafe", "cafe", None),
    ("text/html; charset=utf-8", b"<p>cafe", "cafe", None),
])
def test_charset_trouble(content_type, body, text, trouble):
    assert charset_trouble(content_type, body, text) == trouble


# -- documents of their own (what may be sent) -----------------------------------------------

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


# -- bounded work per page (issue 15) ---------------------------------------------------------


def _anchors(n: int, start: int = 0) -> str:
    return "".join(f'<a href="/s/{i}">story {i}</a>' for i in range(start, start + n))


def test_links_stop_after_max_links_distinct_hrefs_in_document_order():
    # a menu repeated between the stories: duplicates never count against the cap
    menu = '<a href="/s/0">again</a><a href="/s/1">again</a>'
    html = page(_anchors(3) + menu + _anchors(7, start=3) + menu)
    result = read_page("http://site.example/", html, max_links=4)
    assert result.links == tuple(f"http://site.example/s/{i}" for i in range(4))
    assert result.links_capped == 8  # /s/4 ... /s/9 and the menu after them were not read
    whole = read_page("http://site.example/", html, max_links=10)
    assert len(whole.links) == 10 and whole.links_capped == 0  # exactly at the cap: nothing left
    assert read_page("http://site.example/", html, max_links=0).links == whole.links  # 0: no cap
    # the setting's default applies to a caller that gives none
    from newsforagers import defaults

    many = read_page("http://site.example/", page(_anchors(defaults.FORAGERS_MAX_LINKS + 3)))
    assert len(many.links) == defaults.FORAGERS_MAX_LINKS and many.links_capped == 3
    assert many.links[-1] == f"http://site.example/s/{defaults.FORAGERS_MAX_LINKS - 1}"


def test_copies_of_one_link_are_read_up_to_piece_elements_anchors():
    from newsforagers.pages import PIECE_ELEMENTS

    html = page('<a href="/one">x</a>' * (PIECE_ELEMENTS + 10) + '<a href="/two">y</a>')
    result = read_page("http://site.example/", html)
    assert result.links == ("http://site.example/one",) and result.links_capped == 11
    assert read_page("http://site.example/", html, max_links=0).links_capped == 0  # 0: no cap at all


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


def test_text_is_cut_at_max_text_characters_at_a_word_boundary():
    html = page("<p>alpha beta gamma</p><p>delta</p>", "<title>Storm over the harbour</title>")
    assert read_page(URL, html, max_text=13).text == "alpha beta"  # not "alpha beta ga"
    assert read_page(URL, html, max_text=10).text == "alpha beta"  # the cut falls on a space
    assert read_page(URL, html, max_text=13).text_capped
    whole = read_page(URL, html, max_text=len("alpha beta gamma delta"))
    assert whole.text == "alpha beta gamma delta" and not whole.text_capped
    assert read_page(URL, html, max_text=0).text == whole.text  # 0: no cap
    # one word longer than the cap is cut inside; the title is cut as the text is
    word = read_page(URL, page("<p>Donaudampfschifffahrt</p>"), max_text=5)
    assert word.text == "Donau" and word.text_capped
    assert read_page(URL, html, max_text=16).title == "Storm over the"


@pytest.mark.parametrize("max_text", [5, 7, 50, 333, 1_000, 4_096])
def test_a_capped_text_is_the_beginning_of_the_whole_text(max_text):
    # words split across inline elements ("wo<b>rd</b>") and blocks: the walk stops early, and
    # what it read is exactly the start of the text it would have read to the end
    body = "".join(f"<p>wo<b>rd</b>{i} <i>x</i>y{i}<br>z{i}\n\n  </p>" for i in range(2_000))
    whole = read_page(URL, page(body), max_text=0).text
    capped = read_page(URL, page(body), max_text=max_text).text
    assert len(capped) <= max_text and whole.startswith(capped)
    assert whole[len(capped)] == " " and len(capped) > max_text - len("word1999 xy1999 z1999 ")


def test_the_text_walk_stops_after_piece_elements_elements():
    from newsforagers.pages import PIECE_ELEMENTS

    html = page("<p>first</p>" + "<i></i>" * PIECE_ELEMENTS + "<p>last</p>")
    capped = read_page(URL, html)
    assert capped.text == "first" and capped.text_capped
    assert read_page(URL, html, max_text=0).text == "first last"  # no cap: the whole walk


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
    response = HtmlResponse("http://site.example/", body=page("<p>alpha beta</p>" + _anchors(5)).encode())
    result = read_response(response, max_links=2, max_text=7)
    assert result.links == ("http://site.example/s/0", "http://site.example/s/1") and result.links_capped == 3
    assert result.text == "alpha" and result.text_capped


def _counting_find_date(monkeypatch) -> list[int]:
    """Make pages call htmldate through a wrapper that records the elements of each tree."""
    import newsforagers.pages as pages_module

    sizes: list[int] = []

    def counting(tree, **kwargs):
        sizes.append(int(tree.xpath("count(//*)")))
        return find_date(tree, **kwargs)

    monkeypatch.setattr(pages_module, "find_date", counting)
    return sizes


def test_htmldate_gets_the_whole_tree_of_a_normal_page(monkeypatch):
    sizes = _counting_find_date(monkeypatch)
    body = "<article><p class='byline'>Published on March 5, 2024.</p><p>Body</p></article>"
    result = read_page(URL, page(body + "<p>more</p>" * 500))
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC) and result.date_source == "htmldate"
    assert sizes == [int(lxml.html.document_fromstring(page(body + "<p>more</p>" * 500)).xpath("count(//*)"))]


@pytest.mark.parametrize("filler", ["elements", "characters"])
def test_htmldate_gets_a_bounded_piece_of_a_huge_page_and_still_dates_it(monkeypatch, filler):
    from newsforagers.pages import PIECE_CHARS, PIECE_ELEMENTS

    sizes = _counting_find_date(monkeypatch)
    byline = "<article><p class='byline'>Published on March 5, 2024.</p><p>Body</p></article>"
    rest = ("<i></i>" * (3 * PIECE_ELEMENTS) if filler == "elements"
            else "<p>" + "harbour " * (PIECE_CHARS // 4) + "</p>")
    result = read_page(URL, page(byline + rest))
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC) and result.date_source == "htmldate"
    assert len(sizes) == 1 and sizes[0] <= PIECE_ELEMENTS
    assert result.text_capped and len(result.text) <= 100_000  # the text, from the whole page, capped


def test_a_huge_page_still_reads_its_title_and_publication_markup():
    from newsforagers.pages import PIECE_ELEMENTS

    head = ('<title>Storm hits | Daily</title><meta property="og:site_name" content="Daily">'
            '<meta property="article:published_time" content="2024-03-05T14:30:00+02:00">')
    result = read_page(URL, page("<h1>Storm hits</h1>" + "<b>x</b>" * (2 * PIECE_ELEMENTS), head))
    assert result.title == "Storm hits" and result.date_source == "meta"
    assert result.published == datetime(2024, 3, 5, 12, 30, tzinfo=UTC) and result.document


def test_the_spider_counts_and_warns_once_about_capped_pages(caplog):
    from scrapy import Request
    from scrapy.utils.test import get_crawler

    from newsforagers.config import ForagersConfig
    from newsforagers.spiders.forager import ForagerSpider

    spider = ForagerSpider(seeds="http://site.example/")
    spider._set_crawler(get_crawler(ForagerSpider))
    spider.config = ForagersConfig.from_settings({"FORAGERS_MAX_LINKS": 2, "FORAGERS_MAX_TEXT": 5})

    def response(url):
        return HtmlResponse(url, body=page("<p>alpha beta</p>" + _anchors(5)).encode(),
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


def _listed_by_xpath(html: str, url: str, now: datetime) -> dict[str, datetime]:
    """The listing rule as one XPath per <time> says it (the reading before issue 15): the
    smallest ancestor holding an <a href>, when its <a> hold one distinct href."""
    from parsel import Selector
    from urllib.parse import urljoin

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
    "<ul>" + "".join(f"<li><div><a href='/o{i}'>o</a><p><a href='/i{i}'>i</a><time datetime='2024-01-01T0{i}:00:00Z'>"
                     f"</time></p></div><time datetime='2024-01-01T1{i}:00:00Z'></time></li>" for i in range(5)) + "</ul>",
    # the time inside its link, the same link three times in an item, an anchor without href
    "<ul>" + "".join(f"<li><a href='/s{i}'><img><time datetime='2024-01-01T0{i}:00:00Z'></time></a><a href='/s{i}'>t</a>"
                     f"<a>no href</a><a href='/s{i}'>more</a></li>" for i in range(5)) + "</ul>",
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


def test_a_page_deeper_than_piece_depth_is_dated_from_a_piece_as_deep(monkeypatch):
    from newsforagers.pages import PIECE_DEPTH

    depths: list[int] = []

    def deepest(tree, **kwargs):
        depths.append(max(sum(1 for _ in element.iterancestors()) for element in tree.iter()))
        return find_date(tree, **kwargs)

    import newsforagers.pages as pages_module

    monkeypatch.setattr(pages_module, "find_date", deepest)
    byline = "<p class='byline'>Published on March 5, 2024.</p>"
    html = page(byline + "<div>" * 2 * PIECE_DEPTH + "deep words" + "</div>" * 2 * PIECE_DEPTH)
    result = read_page(URL, html)
    assert result.published == datetime(2024, 3, 5, tzinfo=UTC) and result.date_source == "htmldate"
    assert depths and depths[0] <= PIECE_DEPTH
    assert result.text == "Published on March 5, 2024. deep words"  # the text, from the whole page
