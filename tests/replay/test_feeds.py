"""The replay's feeds and sitemaps (``--feeds SHARE``): RSS 2.0 feeds of some sections, the news
sitemap of those sections, the sitemap index, robots.txt's Sitemap line; the clock's rules and
conditional requests as for the listings; ``--feeds 0`` changes nothing."""

from __future__ import annotations

import argparse
import json
import re
import xml.etree.ElementTree as ET
from datetime import datetime
from email.utils import format_datetime, parsedate_to_datetime

import pytest

from newsforagers.commands import replay as replay_command
from newsforagers.corpus import load_corpus
from newsforagers.replay import feeds as feeds_module
from newsforagers.replay import site as site_module
from newsforagers.replay.feeds import FEED_ITEMS, NEWS_WINDOW, feed_sections
from newsforagers.replay.index import Front, SiteIndex
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.server import ReplaySite

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}"
RFC822 = re.compile(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                    r"\d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}")
ALTERNATE = re.compile(r'<link rel="alternate" type="application/rss\+xml" title="[^"]*" href="([^"]+)">')


@pytest.fixture(scope="module")
def corpus(synth_path):
    return load_corpus(synth_path)


@pytest.fixture
def site(serve, corpus):
    served = serve(corpus, feeds=0.5)
    served.at(served.site.articles[0].ts + 30 * 3600)  # a day and a bit into the corpus
    return served


def feed_items(body: bytes) -> list[dict]:
    channel = ET.fromstring(body).find("channel")
    return [{child.tag: child.text for child in item} for item in channel.findall("item")]


def news_entries(body: bytes) -> list[dict]:
    root = ET.fromstring(body)
    assert root.tag == f"{SITEMAP}urlset"
    entries = []
    for url in root.findall(f"{SITEMAP}url"):
        news = url.find(f"{NEWS}news")
        publication = news.find(f"{NEWS}publication")
        entries.append({"loc": url.find(f"{SITEMAP}loc").text,
                        "name": publication.find(f"{NEWS}name").text,
                        "language": publication.find(f"{NEWS}language").text,
                        "date": news.find(f"{NEWS}publication_date").text,
                        "title": news.find(f"{NEWS}title").text})
    return entries


def test_a_seeded_share_of_the_sections_have_a_feed(site, corpus):
    pages = site.site.pages
    sections = site.site.index.sections
    chosen = {f.path for f in pages.feed_fronts}
    assert len(chosen) == round(0.5 * len(sections)) == 4
    # the same seed, the same sections; another seed, (here) others
    assert [f.path for f in feed_sections(sections, 0.5, 0)] == [f.path for f in pages.feed_fronts]
    assert {f.path for f in feed_sections(SiteIndex(corpus, seed=1).sections, 0.5, 1)} != chosen
    assert len(feed_sections(sections, 1.0, 0)) == len(sections) and not feed_sections(sections, 0.0, 0)
    for front in sections:
        html = site.get(front.path).text
        feed = site.get(front.path + "feed.xml")
        if front.path in chosen:
            assert ALTERNATE.findall(html) == [front.path + "feed.xml"]
            assert feed.status == 200 and feed.headers["content-type"] == "application/rss+xml; charset=utf-8"
        else:
            assert not ALTERNATE.findall(html) and feed.status == 404
    # the articles of a feed section link its feed too; the home page links none
    names = {f.name: f.path for f in pages.feed_fronts}
    for a in site.site.visible()[-10:]:
        expected = [names[s] + "feed.xml" for s in a.sections if s in names]
        assert ALTERNATE.findall(site.get(a.path).text) == expected
    assert not ALTERNATE.findall(site.get("/").text)
    with pytest.raises(ValueError, match="between 0 and 1"):
        ReplaySite(corpus, feeds=1.5)


def test_a_feed_holds_the_section_s_last_20_published_stories(site):
    index = site.site.index
    now = site.site.clock.now_ts()
    overflowing = 0
    for front in site.site.pages.feed_fronts:
        reply = site.get(front.path + "feed.xml")
        channel = ET.fromstring(reply.body).find("channel")
        assert channel.find("link").text == site.url.rstrip("/") + front.path
        items = feed_items(reply.body)
        visible = front.visible(now)
        expected = [index.articles[i] for i in front.members[max(0, visible - FEED_ITEMS):visible][::-1]]
        assert len(items) == min(FEED_ITEMS, visible)
        overflowing += visible > FEED_ITEMS
        for item, a in zip(items, expected, strict=True):
            url = site.url.rstrip("/") + a.path
            assert item["link"] == item["guid"] == url and item["title"] == a.title
            assert item["description"] == a.summary
            assert RFC822.fullmatch(item["pubDate"]), item["pubDate"]
            assert parsedate_to_datetime(item["pubDate"]) == a.published.replace(microsecond=0)
        modified = parsedate_to_datetime(reply.headers["last-modified"]).timestamp()
        assert modified == int(expected[0].ts)
    assert overflowing  # a section with more than 20 stories shows its last 20


def test_nothing_is_in_a_feed_before_it_is_published(site):
    index = site.site.index
    now = site.site.clock.now_ts()
    fronts = {f.name: f for f in site.site.pages.feed_fronts}
    future = next(a for a in index.articles[index.visible_count(now):] if set(a.sections) & set(fronts))
    front = fronts[next(s for s in future.sections if s in fronts)]
    path = front.path + "feed.xml"
    site.at(future.ts - 1)
    before = site.get(path)
    assert future.path not in before.text
    assert future.path not in site.get("/sitemap-news.xml").text
    site.at(future.ts + 0.01)
    after = site.get(path)
    assert feed_items(after.body)[0]["link"].endswith(future.path)
    assert future.path in news_entries(site.get("/sitemap-news.xml").body)[0]["loc"]
    # a section's feed, like its front, exists from its first story on
    site.at(index.ts[0] - 10)
    assert site.get(path).status == 404
    assert news_entries(site.get("/sitemap-news.xml").body) == []


def test_the_news_sitemap_lists_the_feed_sections_last_two_days(site):
    index = site.site.index
    names = {f.name for f in site.site.pages.feed_fronts}
    ours = [a for a in index.articles if set(a.sections) & names]

    def expected(now: float) -> list:
        return [a for a in reversed(ours) if now - NEWS_WINDOW < a.ts <= now]

    now = site.site.clock.now_ts()
    reply = site.get("/sitemap-news.xml")
    assert reply.headers["content-type"] == "application/xml; charset=utf-8"
    entries = news_entries(reply.body)
    assert [e["loc"] for e in entries] == [site.url.rstrip("/") + a.path for a in expected(now)]
    for entry, a in zip(entries, expected(now)):
        assert entry["title"] == a.title and entry["language"] == "en"
        assert entry["name"] == site.site.pages.site_name
        assert datetime.fromisoformat(entry["date"]) == a.published
    # later on, a story leaves the window: the sitemap changes then, and says so
    last = index.ts[-1]
    k = next(k for k, a in enumerate(ours) if a.ts + NEWS_WINDOW > last + 60
             and ours[k + 1].ts - a.ts > 20)
    leaving = ours[k]
    site.at(leaving.ts + NEWS_WINDOW - 5)
    before = site.get("/sitemap-news.xml")
    assert leaving.path in before.text
    site.at(leaving.ts + NEWS_WINDOW + 5)
    after = site.get("/sitemap-news.xml", {"If-None-Match": before.headers["etag"]})
    assert after.status == 200 and leaving.path not in after.text
    assert [e["loc"] for e in news_entries(after.body)] == \
        [site.url.rstrip("/") + a.path for a in expected(site.site.clock.now_ts())]
    modified = parsedate_to_datetime(after.headers["last-modified"]).timestamp()
    assert modified == -(-(leaving.ts + NEWS_WINDOW) // 1)  # the second it changed, rounded up
    assert site.get("/sitemap-news.xml", {"If-Modified-Since": after.headers["last-modified"]}).status == 304


def test_the_news_sitemap_keeps_the_newest_1000(serve, corpus, monkeypatch):
    monkeypatch.setattr(site_module, "NEWS_MAX", 7)
    served = serve(corpus, feeds=1.0)
    served.at(served.site.articles[0].ts + 30 * 3600)
    entries = news_entries(served.get("/sitemap-news.xml").body)
    newest = served.site.visible()[-7:][::-1]
    assert [e["loc"] for e in entries] == [served.url.rstrip("/") + a.path for a in newest]


def test_the_sitemap_index_and_robots_txt(site):
    base = site.url.rstrip("/")
    robots = site.get("/robots.txt").text
    assert robots.splitlines() == ["User-agent: *", "Disallow: /search", "", f"Sitemap: {base}/sitemap.xml"]
    index = site.get("/sitemap.xml")
    assert index.status == 200 and index.headers["content-type"] == "application/xml; charset=utf-8"
    root = ET.fromstring(index.body)
    assert root.tag == f"{SITEMAP}sitemapindex"
    locs = [loc.text for loc in root.iter(f"{SITEMAP}loc")]
    assert locs == [f"{base}/sitemap-news.xml"]
    assert site.get("/sitemap-news.xml").status == 200
    # every absolute URL names the site as the request did (its Host)
    host = {"Host": "news.test:8080"}
    assert "Sitemap: http://news.test:8080/sitemap.xml" in site.get("/robots.txt", host).text
    assert "http://news.test:8080/sitemap-news.xml" in site.get("/sitemap.xml", host).text
    feed = site.site.pages.feed_fronts[0].path + "feed.xml"
    assert all(i["link"].startswith("http://news.test:8080/") for i in feed_items(site.get(feed, host).body))
    assert f"Sitemap: {base}/sitemap.xml" in site.get("/robots.txt", {"Host": "bad host!"}).text
    for path in ("/sitemap.xml?x=1", "/sitemap-news.xml?page=2", feed + "?page=2"):
        assert site.get(path).status == 404


def test_feed_documents_answer_conditional_requests(site):
    index = site.site.index
    now = site.site.clock.now_ts()
    front = site.site.pages.feed_fronts[0]
    future = index.articles[front.members[front.visible(now)]]
    paths = (front.path + "feed.xml", "/sitemap-news.xml", "/sitemap.xml")
    first = {path: site.get(path, {"X-Forager": "feeds-test"}) for path in paths}
    for path, reply in first.items():
        for headers in ({"If-None-Match": reply.headers["etag"]},
                        {"If-Modified-Since": reply.headers["last-modified"]}):
            again = site.get(path, headers)
            assert again.status == 304 and again.body == b"", (path, headers)
    site.at(future.ts + 1)
    for path, reply in first.items():
        again = site.get(path, {"If-None-Match": reply.headers["etag"],
                                "If-Modified-Since": reply.headers["last-modified"]})
        assert again.status == (304 if path == "/sitemap.xml" else 200), path
    # the log records them like any request
    records = [json.loads(line) for line in site.site.log.path.read_text().splitlines()]
    mine = [(r["path"], r["status"]) for r in records if r["forager"] == "feeds-test"]
    assert mine == [(path, 200) for path in paths]
    assert any(r["path"] == paths[0] and r["status"] == 304 and r["bytes"] == 0 for r in records)


def test_no_feeds_changes_nothing(serve, corpus):
    plain, zero = serve(corpus), serve(corpus, feeds=0.0)
    for served in (plain, zero):
        served.at(served.site.articles[0].ts + 30 * 3600)
    a = plain.site.visible()[-1]
    front = plain.site.index.section_path[a.sections[0]]
    for path in ("/", "/robots.txt", front, a.path, f"{front}?page=2"):
        assert zero.get(path).body == plain.get(path).body, path
    for path in ("/sitemap.xml", "/sitemap-news.xml", front + "feed.xml"):
        assert zero.get(path).status == 404
    assert "Sitemap" not in zero.get("/robots.txt").text
    assert "--feeds" not in ReplayProcess("c.jsonl").argv
    assert ReplayProcess("c.jsonl", feeds=0.5).argv[-2:] == ["--feeds", "0.5"]


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "half"])
def test_a_bad_feeds_share_is_a_usage_error(value, capsys):
    parser = argparse.ArgumentParser(prog="newsforagers replay")
    replay_command.add_arguments(parser)
    assert parser.parse_args(["c.jsonl", "--feeds", "0.25"]).feeds == 0.25
    assert parser.parse_args(["c.jsonl"]).feeds == 0.0
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["c.jsonl", "--feeds", value])
    assert exit_.value.code == 2
    assert f"argument --feeds: {value!r}" in capsys.readouterr().err


def test_feed_xml_is_escaped_and_valid():
    section = Front("/section/a-b/", "section", "A & B")
    published = datetime.fromisoformat("2024-01-01T07:00:00.250000+01:00")
    body = feeds_module.rss_feed("http://h:1", "Site <x>", section,
                                 [("/é/?q=1&r=2", "Tom & \x01Jerry <3", published, "a \"quote\"")],
                                 published)
    item = feed_items(body.encode())[0]
    assert item["title"] == "Tom & Jerry <3" and item["description"] == 'a "quote"'
    assert item["link"] == "http://h:1/%C3%A9/?q=1&r=2"
    assert item["pubDate"] == format_datetime(published) == "Mon, 01 Jan 2024 07:00:00 +0100"
    sitemap = feeds_module.news_sitemap("http://h:1", "Site", [("/a/", "T & U", published)])
    assert news_entries(sitemap.encode())[0]["title"] == "T & U"
