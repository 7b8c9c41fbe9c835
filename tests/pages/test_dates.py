"""Tests for newsforagers.pages.dates: a page's publication date and the window of plausible
dates around the site's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import lxml.html
import pytest
from htmldate import find_date
from scrapy.http import HtmlResponse

from newsforagers.pages.dates import DATE_FUTURE_REACH, DATE_PAST_REACH, date_window
from newsforagers.pages.policy import is_candidate
from newsforagers.pages.read import read_page, read_response
from tests.pages.html import NOW, URL, page


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
        "meta": (URL, page("<p>x</p>", '<meta property="article:published_time" '
                                       f'content="{year}-03-05T14:30:00+02:00">'),
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
    before = page("", '<meta property="article:published_time" '
                      f'content="{(earliest - timedelta(seconds=1)).isoformat()}">')
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


def test_a_date_only_in_the_site_footer_is_not_a_publication_date():
    footer = ("<html><body><h1>About us</h1><p>Our newsroom.</p><footer>Page updated "
              "<time datetime='2026-01-01T10:00:00Z'>10:00</time>, 1 January 2026</footer></body></html>")
    assert read_page("http://site.example/about", footer).published is None
    # an article's own footer (its byline) still counts
    article = "<html><body><article><h1>T</h1><p>Text.</p><footer>Published 2026-01-01</footer></article></body></html>"
    assert read_page("http://site.example/t", article).published == datetime(2026, 1, 1, tzinfo=UTC)
