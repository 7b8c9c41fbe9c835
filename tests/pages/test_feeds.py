"""Feeds and sitemaps (issue 19; docs/pages.md, "Feeds and sitemaps"): RSS 2.0, Atom, sitemaps,
news sitemaps and sitemap indexes read as listings, what tells them apart, robots.txt's
``Sitemap:`` lines, the feeds an HTML page announces, and what is refused or capped."""

from __future__ import annotations

import gzip
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest

from newsforagers.pages import NotAFeed, NotHTML, feeds, read_page
from newsforagers.pages.feeds import (
    FEED_MAX_BYTES,
    GZIP_MAX_BYTES,
    is_feed,
    read_feed,
    robots_sitemaps,
)

NOW = datetime(2024, 3, 5, 18, 0, tzinfo=UTC)
FEED = "https://news.example/world/feed.xml"

RSS = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
<title>World | Daily News</title><link>https://news.example/world/</link>
<atom:link href="https://news.example/world/feed.xml" rel="self" type="application/rss+xml"/>
<item><title>Storm hits the coast</title><link>/world/storm.html</link>
  <pubDate>Tue, 05 Mar 2024 14:30:00 +0100</pubDate><description>&lt;p&gt;Rain.&lt;/p&gt;</description></item>
<item><title>Harbour reopens</title><guid isPermaLink="true">https://news.example/world/harbour.html</guid>
  <pubDate>Tue, 05 Mar 2024 09:00:00 GMT</pubDate></item>
<item><title>Undated brief</title><link>https://news.example/world/brief.html</link></item>
<item><title>Not a link</title><guid isPermaLink="false">tag:news.example,2024:42</guid></item>
<item><title>Storm hits the coast (again)</title><link>https://news.example/world/storm.html</link></item>
<item><title>Mail us</title><link>mailto:desk@news.example</link></item>
<item><title>Junk date</title><link>https://news.example/world/junk.html</link>
  <pubDate>Thu, 01 Jan 1970 00:00:00 GMT</pubDate></item>
<item><title>Announced</title><link>https://news.example/world/later.html</link>
  <pubDate>Sat, 09 Mar 2024 08:00:00 GMT</pubDate></item>
</channel></rss>
"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://news.example/sport/">
<title>Sport</title><id>tag:news.example,2024:sport</id><updated>2024-03-05T17:00:00Z</updated>
<entry><title>Late goal</title><id>tag:news.example,2024:1</id>
  <link rel="alternate" type="text/html" href="late-goal.html"/>
  <link rel="enclosure" href="https://cdn.news.example/goal.mp4"/>
  <published>2024-03-05T16:10:00+02:00</published><updated>2024-03-05T17:00:00Z</updated></entry>
<entry><title>Only updated</title><id>tag:news.example,2024:2</id>
  <link href="https://news.example/sport/updated.html"/><updated>2024-03-05T12:00:00Z</updated></entry>
</feed>
"""

NEWS_SITEMAP = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
<url><loc>https://news.example/world/storm.html</loc><lastmod>2024-03-05T17:00:00Z</lastmod>
  <news:news><news:publication><news:name>Daily News</news:name><news:language>en</news:language></news:publication>
  <news:publication_date>2024-03-05T14:30:00+01:00</news:publication_date>
  <news:title>Storm hits the coast</news:title></news:news></url>
<url><loc>https://news.example/world/harbour.html</loc>
  <news:news><news:publication_date>2024-03-05</news:publication_date>
  <news:title>Harbour reopens</news:title></news:news></url>
<url><loc>https://news.example/world/no-news-date.html</loc><lastmod>2024-03-04T08:00:00Z</lastmod></url>
</urlset>
"""

SITEMAP = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://news.example/about.html</loc><lastmod>2023-11-02T10:00:00+00:00</lastmod></url>
<url><loc>https://news.example/world/storm.html;jsessionid=0123456789ABCDEF</loc><lastmod>2024-03-05T13:30:00Z</lastmod></url>
<url><loc>/contact.html</loc></url>
<url><loc></loc></url>
</urlset>
"""

INDEX = b"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://news.example/sitemap-news.xml</loc><lastmod>2024-03-05T17:55:00Z</lastmod></sitemap>
<sitemap><loc>https://news.example/sitemap-2019-01.xml</loc><lastmod>2019-02-01</lastmod></sitemap>
<sitemap><loc>https://news.example/sitemap-pages.xml</loc></sitemap>
</sitemapindex>
"""


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_an_rss_feed_is_a_listing_of_its_items_dated_by_their_pubdate():
    page = read_feed(FEED, RSS, headers={"Content-Type": "application/rss+xml; charset=utf-8"}, now=NOW)
    assert (page.published, page.date_source, page.document) == (None, "feed", False)
    assert page.title == "World | Daily News"
    # resolved against the feed's URL, a permalink guid stands for a missing link, http(s)
    # only, each once in feed order
    assert page.links == ("https://news.example/world/storm.html", "https://news.example/world/harbour.html",
                          "https://news.example/world/brief.html", "https://news.example/world/junk.html",
                          "https://news.example/world/later.html")
    # the undated and the junk-dated are not listed; a date ahead is kept (a scheduled story)
    assert dict(page.listed) == {
        "https://news.example/world/storm.html": utc(2024, 3, 5, 13, 30),
        "https://news.example/world/harbour.html": utc(2024, 3, 5, 9),
        "https://news.example/world/later.html": utc(2024, 3, 9, 8),
    }
    assert page.text.startswith("Storm hits the coast Harbour reopens Undated brief")
    assert (page.links_capped, page.text_capped, page.feeds) == (0, False, ())


def test_an_atom_feed_resolves_against_its_base_and_prefers_the_published_time():
    page = read_feed("https://news.example/sport/atom", ATOM, headers={"Content-Type": "application/atom+xml"},
                     now=NOW)
    assert page.date_source == "feed" and page.title == "Sport"
    assert page.links == ("https://news.example/sport/late-goal.html", "https://news.example/sport/updated.html")
    assert dict(page.listed) == {"https://news.example/sport/late-goal.html": utc(2024, 3, 5, 14, 10),
                                 "https://news.example/sport/updated.html": utc(2024, 3, 5, 12)}


def test_a_news_sitemap_is_dated_by_its_publication_dates_then_lastmod():
    page = read_feed("https://news.example/sitemap-news.xml", NEWS_SITEMAP,
                     headers={"Content-Type": "application/xml"}, now=NOW)
    assert (page.date_source, page.title, page.published, page.document) == ("sitemap", "", None, False)
    assert dict(page.listed) == {
        "https://news.example/world/storm.html": utc(2024, 3, 5, 13, 30),  # not its lastmod
        # a bare date is the end of its UTC day: old only when old whatever its hour
        "https://news.example/world/harbour.html": datetime.combine(NOW.date(), datetime.max.time(), UTC),
        "https://news.example/world/no-news-date.html": utc(2024, 3, 4, 8),
    }
    assert page.text == "Storm hits the coast Harbour reopens"


def test_a_plain_sitemap_is_dated_by_lastmod_and_its_locs_are_read_as_links():
    page = read_feed("https://news.example/sitemap-pages.xml", SITEMAP, now=NOW)
    assert page.links == ("https://news.example/about.html", "https://news.example/world/storm.html",
                          "https://news.example/contact.html")
    assert page.session_ids == 1
    assert dict(page.listed) == {"https://news.example/about.html": utc(2023, 11, 2, 10),
                                 "https://news.example/world/storm.html": utc(2024, 3, 5, 13, 30)}


def test_a_sitemap_index_points_to_its_sitemaps_as_feeds_not_links():
    page = read_feed("https://news.example/sitemap.xml", INDEX, now=NOW)
    assert page.date_source == "sitemap" and page.links == () and page.listed == ()
    assert page.feeds == ("https://news.example/sitemap-news.xml", "https://news.example/sitemap-2019-01.xml",
                          "https://news.example/sitemap-pages.xml")
    assert dict(page.feeds_listed) == {
        "https://news.example/sitemap-news.xml": utc(2024, 3, 5, 17, 55),
        "https://news.example/sitemap-2019-01.xml": datetime.combine(utc(2019, 2, 1).date(), datetime.max.time(), UTC),
    }


def test_a_gzip_sitemap_is_read_and_its_decompression_capped():
    page = read_feed("https://news.example/sitemap-news.xml.gz", gzip.compress(NEWS_SITEMAP),
                     headers={"Content-Type": "application/x-gzip"}, now=NOW)
    assert len(page.links) == 3 and page.date_source == "sitemap"
    assert is_feed(gzip.compress(NEWS_SITEMAP), {"Content-Type": "application/octet-stream"})
    assert not is_feed(gzip.compress(b"<html><body>archive</body></html>"), {"Content-Type": "application/x-gzip"})
    # a bomb: 16 MiB of zeros after the first entries, 73 kB compressed
    entries = b"".join(b"<url><loc>https://news.example/%d.html</loc></url>" % i for i in range(100))
    bomb = gzip.compress(b"<urlset>" + entries + b"<!--" + bytes(16 * 1024 * 1024), compresslevel=1)
    started = time.perf_counter()
    page = read_feed("https://news.example/bomb.xml.gz", bomb, now=NOW)
    assert time.perf_counter() - started < 2.0
    assert len(page.links) == 100 and page.links_capped >= 1
    assert GZIP_MAX_BYTES < 16 * 1024 * 1024


def test_what_is_read_as_a_feed_content_type_or_first_element():
    assert is_feed(b"<html/>", {"Content-Type": "text/xml"})  # the type says so: read, or refused
    assert is_feed(RSS, {"Content-Type": "text/html; charset=utf-8"})  # a feed served as HTML
    assert is_feed(b"\xef\xbb\xbf<?xml version='1.0'?>\n<!-- generated -->\n<!DOCTYPE x [<!ENTITY a 'b'>]>"
                   b"\n<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>")
    assert is_feed(INDEX) and is_feed(ATOM)
    assert not is_feed(b"<!doctype html><html><head><title>Front</title></head></html>",
                       {"Content-Type": "text/html"})
    assert not is_feed(b"\x89PNG\r\n\x1a\n\x00\x00", {"Content-Type": "image/png"})
    assert not is_feed(b"plain notes about <feed> and <rss>", {"Content-Type": "text/plain"})


@pytest.mark.parametrize("body, reason", [
    (b"<?xml version='1.0'?><note><to>you</to></note>", "its first element is <note>"),
    (b"<!doctype html><html><body>moved</body></html>", "its first element is <html>"),
    (b"", "no XML element"),
    (b"<rss version='2.0'><channel><title>Broken<item><title", "malformed feed"),
    (b"<urlset><<<&&&", "malformed sitemap"),
    (b"\x1f\x8b\x08\x00garbage", "broken gzip body"),
])
def test_what_is_no_feed_raises_not_a_feed(body, reason):
    with pytest.raises(NotAFeed, match=reason) as raised:
        read_feed(FEED, body, headers={"Content-Type": "application/xml"}, now=NOW)
    assert isinstance(raised.value, NotHTML) and raised.value.url == FEED
    assert str(raised.value).startswith(f"{FEED}: not a feed or sitemap (")


def test_a_feed_broken_after_its_first_entries_gives_those():
    broken = b"<rss version='2.0'><channel><item><title>A</title><link>https://n.example/a</link></item><item><tit"
    assert read_feed(FEED, broken, now=NOW).links == ("https://n.example/a",)


def test_no_entity_is_expanded_and_no_external_one_fetched(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    doctype = (f'<!DOCTYPE x [<!ENTITY l0 "lol">{laughs}<!ENTITY ext SYSTEM "file://{secret}">]>').encode()
    rss = (b"<?xml version='1.0'?>\n" + doctype + b"\n<rss version='2.0'><channel><title>&l9;&ext;</title>"
           b"<item><title>&l9; &ext;</title><link>https://n.example/a</link></item></channel></rss>")
    started = time.perf_counter()
    page = read_feed(FEED, rss, now=NOW)
    assert time.perf_counter() - started < 1.0
    assert "TOP-SECRET" not in page.title + page.text and len(page.title + page.text) < 1000
    # a sitemap (Scrapy's reader, lxml with resolve_entities=False): the laughs are refused by
    # libxml2's amplification limit (lxml 6.1) or left unexpanded (lxml 6.2, the same libxml2
    # 2.14), and no external entity is read either way
    sitemap = (b"<?xml version='1.0'?>\n" + doctype + b"\n<urlset><url><loc>https://n.example/&l9;</loc>"
               b"</url></urlset>")
    try:
        links = read_feed(FEED, sitemap, now=NOW).links
    except NotAFeed as refused:
        assert "malformed sitemap: Maximum entity amplification" in str(refused)
    else:
        assert links == ("https://n.example/",)
    external = (f'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY ext SYSTEM "file://{secret}">]>\n'
                "<urlset><url><loc>https://n.example/a&ext;</loc></url></urlset>").encode()
    assert read_feed(FEED, external, now=NOW).links == ("https://n.example/a",)


def test_a_huge_feed_is_read_to_its_cap_and_the_rest_counted(monkeypatch):
    items = b"".join(b"<item><title>Story %d</title><link>https://n.example/s/%d.html</link>"
                     b"<pubDate>Tue, 05 Mar 2024 14:%02d:00 GMT</pubDate></item>\n" % (i, i, i % 60)
                     for i in range(20_000))
    huge = b"<?xml version='1.0'?><rss version='2.0'><channel><title>All</title>" + items + b"</channel></rss>"
    started = time.perf_counter()
    page = read_feed(FEED, huge, now=NOW, max_items=100)
    assert time.perf_counter() - started < 1.0
    assert len(page.links) == len(page.listed) == 100 and page.links_capped == 19_900
    assert page.links[0] == "https://n.example/s/0.html" and page.title == "All"
    # without an item cap, the bytes cap: whole entries up to FEED_MAX_BYTES, the rest counted
    # (a smaller cap, for the test's speed: feedparser reads about 2 MB a second here)
    assert len(huge) > FEED_MAX_BYTES
    monkeypatch.setattr(feeds, "FEED_MAX_BYTES", 64 * 1024)
    page = read_feed(FEED, huge, now=NOW, max_items=0)
    assert 0 < len(page.links) < 20_000 and len(page.links) + page.links_capped == 20_000
    assert page.links[-1] == f"https://n.example/s/{len(page.links) - 1}.html"
    # a sitemap too
    urls = b"".join(b"<url><loc>https://n.example/%d</loc></url>" % i for i in range(5_000))
    page = read_feed(FEED, b"<urlset>" + urls + b"</urlset>", now=NOW, max_items=10)
    assert len(page.links) == 10 and page.links_capped == 4_990


def test_text_and_title_are_cut_at_max_text_and_bad_caps_refused():
    page = read_feed(FEED, RSS, now=NOW, max_text=12)
    assert page.text == "Storm hits" and page.title == "World |" and page.text_capped
    with pytest.raises(ValueError, match=r"max_items \(-1\) must be an integer >= 0"):
        read_feed(FEED, RSS, max_items=-1)
    with pytest.raises(TypeError, match="raw bytes"):
        read_feed(FEED, RSS.decode())
    with pytest.raises(ValueError, match="timezone-aware"):
        read_feed(FEED, RSS, now=datetime(2024, 3, 5))


def test_an_empty_feed_is_an_empty_listing():
    page = read_feed(FEED, b"<rss version='2.0'><channel><title>Quiet</title></channel></rss>", now=NOW)
    assert (page.title, page.links, page.listed, page.date_source) == ("Quiet", (), (), "feed")


def test_dates_are_judged_on_the_site_s_clock():
    # a replay of 1987: its feed's dates are plausible on its own clock
    rss = (b"<rss version='2.0'><channel><item><link>https://n.example/a</link>"
           b"<pubDate>Thu, 05 Mar 1987 14:30:00 GMT</pubDate></item></channel></rss>")
    assert (dict(read_feed(FEED, rss, now=utc(1987, 3, 5, 18)).listed)
            == {"https://n.example/a": utc(1987, 3, 5, 14, 30)})
    assert read_feed(FEED, rss, now=NOW + timedelta(days=365 * 40)).listed == ()


def test_robots_sitemap_lines_are_read_resolved_and_deduplicated():
    robots = (b"User-agent: *\nDisallow: /search\n\nSitemap: https://news.example/sitemap.xml\n"
              b"sitemap: /sitemap-news.xml\n  SITEMAP:https://news.example/sitemap.xml\n"
              b"Sitemap: ftp://news.example/old.xml\nSitemap: \xff\xfe\n")
    assert robots_sitemaps("https://news.example/robots.txt", robots) == (
        "https://news.example/sitemap.xml", "https://news.example/sitemap-news.xml")
    assert robots_sitemaps("https://news.example/robots.txt", robots, max_items=1) == (
        "https://news.example/sitemap.xml",)
    assert robots_sitemaps("https://news.example/robots.txt", b"User-agent: *\nDisallow:\n") == ()


def test_an_html_page_s_alternate_feeds_are_read_into_feeds():
    html = (b"<html><head><base href='https://news.example/world/'><title>World</title>"
            b"<link rel='alternate' type='application/rss+xml' title='World' href='feed.xml'>"
            b"<link rel='Alternate Feed' type='application/atom+xml; charset=utf-8' href='/world/atom.xml'>"
            b"<link rel='alternate' type='application/rss+xml' href='feed.xml#top'>"
            b"<link rel='alternate' hreflang='fr' href='/fr/world/'>"
            b"<link rel='stylesheet' type='text/css' href='/s.css'>"
            b"<link rel='alternate' type='application/json' href='/world/feed.json'>"
            b"<link rel='alternate' type='application/rss+xml' href='javascript:void(0)'>"
            b"</head><body><a href='/world/storm.html'>Storm</a></body></html>")
    page = read_page("https://news.example/world/", html, now=NOW)
    assert page.feeds == ("https://news.example/world/feed.xml", "https://news.example/world/atom.xml")
    assert page.links == ("https://news.example/world/storm.html",)
    assert read_page("https://news.example/world/", html, now=NOW, max_links=1).feeds == (
        "https://news.example/world/feed.xml",)
    assert read_page("https://news.example/", b"<html><head><title>x</title></head></html>", now=NOW).feeds == ()


def test_reading_feeds_imports_scrapy_but_the_pages_package_does_not():
    # the minds import newsforagers.pages: it must not bring Scrapy in (import-linter checks the
    # minds; this checks the package the spider and the minds share, at run time)
    code = ("import sys, newsforagers.pages, newsforagers.strategies.scheduled; "
            "assert not [m for m in sys.modules if m == 'scrapy' or m.startswith('scrapy.')], 'scrapy'; "
            "import newsforagers.pages.feeds; assert 'scrapy.utils.sitemap' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
