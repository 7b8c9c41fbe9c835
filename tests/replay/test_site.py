"""The replay site over HTTP on loopback: visibility, caching headers, traps, log."""

from __future__ import annotations

import json
import re
from collections import deque
from datetime import datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime

import pytest

from newsforagers.corpus import load_corpus
from newsforagers.replay.site import ARCHIVE_REACH_YEARS, PER_PAGE

from .conftest import gunzip

HREF = re.compile(r'href="([^"]+)"')


def links(html: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in HREF.findall(html)]


@pytest.fixture
def site(serve, synth_path):
    served = serve(load_corpus(synth_path))
    first = served.site.articles[0].ts
    served.at(first + 30 * 3600)  # a day and a bit into the corpus
    return served


def crawl(served, limit: int = 3000) -> dict[str, str]:
    """Every page reachable from the home page, except the two endless traps."""
    seen: dict[str, str] = {}
    queue = deque(["/"])
    while queue and len(seen) < limit:
        path = queue.popleft()
        if path in seen:
            continue
        reply = served.get(path)
        assert reply.status == 200, path
        seen[path] = reply.text
        for href in links(reply.text):
            if href.startswith("/search") or href.startswith("/archive/"):
                continue
            if href not in seen:
                queue.append(href)
    assert len(seen) < limit
    return seen


def test_article_appears_exactly_when_published(site):
    index = site.site.index
    now = site.site.clock.now_ts()
    future = index.articles[index.visible_count(now)]  # the next article to appear
    section = index.section_path[future.sections[0]]
    site.at(future.ts - 1.0)
    assert site.get(future.path).status == 404
    assert future.path not in site.get(section).text
    site.at(future.ts + 0.01)
    reply = site.get(future.path)
    assert reply.status == 200
    assert f'content="{future.published.isoformat()}"' in reply.text
    assert future.path in site.get(section).text


def test_nothing_unpublished_is_ever_linked(site):
    index = site.site.index
    now = site.site.clock.now_ts()
    pages = crawl(site)
    linked = {h for html in pages.values() for h in links(html) if h in index.by_path}
    published = {a.path for a in site.site.visible()}
    assert linked and linked <= published
    # The hard site is a search problem, but a complete one: every published article is
    # reachable from the home page through fronts, author pages and related links.
    assert published <= set(pages)
    for a in index.articles[index.visible_count(now):][:20]:
        assert site.get(a.path).status == 404


def test_dates_on_the_article_page(site):
    a = site.site.visible()[-5]
    html = site.get(a.path).text
    iso = a.published.isoformat()
    assert f'<meta property="article:published_time" content="{iso}">' in html
    ld = json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', html).group(1))
    assert ld["datePublished"] == iso and ld["headline"] == a.title
    assert f'<time datetime="{iso}"' in html
    for section in a.sections:
        assert site.site.index.section_path[section] in html
    for author in a.authors:
        assert site.site.index.author_path[author] in html


def test_http_date_is_simulated_and_304_on_if_modified_since(site):
    a = site.site.visible()[-1]
    reply = site.get(a.path)
    date = parsedate_to_datetime(reply.headers["date"])
    assert abs(date.timestamp() - site.site.clock.now_ts()) < 1.5
    assert parsedate_to_datetime(reply.headers["last-modified"]).timestamp() == int(a.ts)
    since = reply.headers["last-modified"]
    again = site.get(a.path, {"If-Modified-Since": since})
    assert again.status == 304 and again.body == b""
    older = format_datetime(a.published - timedelta(hours=1), usegmt=True)
    assert site.get(a.path, {"If-Modified-Since": older}).status == 200
    assert site.get(a.path, {"If-None-Match": reply.headers["etag"]}).status == 304


def test_front_last_modified_follows_new_articles(site):
    index = site.site.index
    now = site.site.clock.now_ts()
    future = index.articles[index.visible_count(now)]
    front = index.section_path[future.sections[0]]
    first = site.get(front)
    since = first.headers["last-modified"]
    assert site.get(front, {"If-Modified-Since": since}).status == 304
    site.at(future.ts + 1)
    changed = site.get(front, {"If-Modified-Since": since})
    assert changed.status == 200 and future.path in changed.text
    assert parsedate_to_datetime(changed.headers["last-modified"]).timestamp() == int(future.ts)


def test_gzip_when_asked(site):
    plain = site.get("/")
    packed = site.get("/", {"Accept-Encoding": "gzip, deflate"})
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert gunzip(packed.body) == plain.body
    assert len(packed.body) < len(plain.body)


def test_robots_txt_disallows_search(site):
    reply = site.get("/robots.txt")
    assert reply.status == 200 and reply.headers["content-type"].startswith("text/plain")
    assert "User-agent: *" in reply.text and "Disallow: /search" in reply.text


def test_calendar_trap_reaches_back_years_with_nothing_new(site):
    home = site.get("/").text
    path = next(h for h in links(home) if h.startswith("/archive/"))
    first_day = site.site.articles[0].published.date()
    empty_days = 0
    for _ in range(40):
        reply = site.get(path)
        assert reply.status == 200
        day = datetime.strptime(path, "/archive/%Y/%m/%d/").date()
        if day < first_day:
            empty_days += 1
            assert not [h for h in links(reply.text) if h in site.site.index.by_path]
        path = next(h for h in links(reply.text) if h.startswith("/archive/") and
                    'rel="prev" href="%s"' % h in reply.text)
    assert empty_days > 30
    # ... and on, for decades, down to the floor.
    floor = site.site.pages.archive_floor
    assert floor == first_day.replace(year=first_day.year - ARCHIVE_REACH_YEARS, month=1, day=1)
    bottom = site.get(f"/archive/{floor:%Y/%m/%d}/")
    assert bottom.status == 200 and "Previous day" not in bottom.text
    assert site.get(f"/archive/{floor - timedelta(days=1):%Y/%m/%d}/").status == 404
    tomorrow = datetime.fromtimestamp(site.site.clock.now_ts(), site.site.index.tz) + timedelta(days=1)
    assert site.get(f"/archive/{tomorrow:%Y/%m/%d}/").status == 404


def test_search_trap_is_endless_and_disallowed(site):
    home = site.get("/").text
    start = next(h for h in links(home) if h.startswith("/search"))
    frontier, seen = deque([start]), set()
    while frontier and len(seen) < 60:
        path = frontier.popleft()
        if path in seen:
            continue
        seen.add(path)
        reply = site.get(path)
        assert reply.status == 200
        found = [h for h in links(reply.text) if h.startswith("/search?")]
        assert not [h for h in links(reply.text) if h in site.site.index.by_path]
        assert len(set(found)) >= 4
        frontier.extend(found)
    assert len(seen) == 60 and frontier  # never runs dry


def test_home_profiles(serve, synth_path):
    corpus = load_corpus(synth_path)
    hard, easy = serve(corpus, profile="hard"), serve(corpus, profile="easy")
    for served in (hard, easy):
        served.at(served.site.articles[0].ts + 30 * 3600)
    newest = hard.site.visible()[-1]
    hard_home, easy_home = hard.get("/").text, easy.get("/").text
    assert 'class="latest"' not in hard_home
    hard_stories = [h for h in links(hard_home) if h in hard.site.index.by_path]
    assert 1 <= len(hard_stories) <= 5
    easy_stories = [h for h in links(easy_home) if h in easy.site.index.by_path]
    assert newest.path in easy_stories and len(set(easy_stories)) >= 30


def test_front_pagination(site):
    index = site.site.index
    front = index.sections[0]
    visible = front.visible(site.site.clock.now_ts())
    assert visible > 2 * PER_PAGE
    page1, page2 = site.get(front.path).text, site.get(front.path + "?page=2").text
    newest = index.articles[front.members[visible - 1]]
    assert newest.path in page1 and newest.path not in page2
    assert f'href="{front.path}?page=2"' in page1 and f'href="{front.path}"' in page2
    last = (visible - 1) // PER_PAGE + 1
    assert site.get(f"{front.path}?page={last}").status == 200
    assert site.get(f"{front.path}?page={last + 1}").status == 404
    assert site.get(f"{front.path}?page=0").status == 404
    assert site.get(f"{front.path}?utm=1").status == 404


def test_author_and_section_author_fronts(site):
    index = site.site.index
    a = site.site.visible()[-1]
    author_page = site.get(index.author_path[a.authors[0]])
    assert author_page.status == 200 and a.path in author_page.text
    combo = index.combo_path(a.sections[0], a.authors[0])
    assert combo in author_page.text
    combo_page = site.get(combo)
    assert combo_page.status == 200 and a.path in combo_page.text


def test_not_found_and_methods(site):
    reply = site.get("/no/such/page/")
    assert reply.status == 404 and "Page not found" in reply.text
    assert site.get("/", method="POST").status == 405
    head = site.get(site.site.visible()[-1].path, method="HEAD")
    assert head.status == 200 and head.body == b""


def test_log_attributes_requests_to_foragers(site, tmp_path):
    a = site.site.visible()[-1]
    site.get(a.path, {"X-Forager": "forager-7"})
    site.get("/", {"X-Forager": "forager-8"})
    site.get("/missing/", {"X-Forager": "forager-7"})
    site.get(a.path, {"If-Modified-Since": format_datetime(a.published, usegmt=True)})
    site.get("/robots.txt")
    records = [json.loads(line) for line in site.site.log.path.read_text().splitlines()]
    assert [r["forager"] for r in records[-5:]] == ["forager-7", "forager-8", "forager-7", None, None]
    by_path = {(r["path"], r["status"]): r for r in records[-5:]}
    hit = by_path[(a.path, 200)]
    assert hit["method"] == "GET" and hit["bytes"] == len(site.get(a.path).body)
    assert by_path[("/missing/", 404)]["bytes"] > 0
    assert by_path[(a.path, 304)]["bytes"] == 0
    sim = datetime.fromisoformat(hit["sim_time"])
    assert sim.utcoffset() is not None
    assert abs(sim.timestamp() - site.site.clock.now_ts()) < 1.5
    assert hit["wall_time"] == pytest.approx(site.wall())
    assert site.site.request_count == len(records) + 1


def test_a_listing_answers_conditional_requests_as_http_says(site):
    """RFC 9110 13: If-None-Match first (weak comparison, ``*``), else If-Modified-Since; a 304
    repeats the ETag, Date, Vary and Cache-Control, and has no content and no Content-Length."""
    index = site.site.index
    front = index.section_path[site.site.visible()[-1].sections[0]]
    first = site.get(front)
    etag, modified = first.headers["etag"], first.headers["last-modified"]
    assert re.fullmatch(r'"[0-9a-f]+"', etag)  # a strong tag
    same = site.get(front, {"If-None-Match": etag})
    assert same.status == 304 and same.body == b"" and same.headers["etag"] == etag
    assert same.headers["vary"] == "Accept-Encoding" and same.headers["cache-control"] == "no-cache"
    assert "date" in same.headers
    assert not {"content-length", "content-type", "last-modified"} & set(same.headers)
    for tags in ("W/" + etag, f'"other", {etag}', "*"):
        assert site.get(front, {"If-None-Match": tags}).status == 304, tags
    assert site.get(front, {"If-None-Match": etag}, method="HEAD").status == 304
    # If-None-Match, when there, decides alone; a field that is no list of tags matches nothing
    assert site.get(front, {"If-None-Match": '"other"', "If-Modified-Since": modified}).status == 200
    assert site.get(front, {"If-None-Match": "garbage", "If-Modified-Since": modified}).status == 200
    assert site.get(front, {"If-Modified-Since": modified}).status == 304
    older = format_datetime(parsedate_to_datetime(modified) - timedelta(seconds=1), usegmt=True)
    assert site.get(front, {"If-Modified-Since": older}).status == 200
    assert site.get(front, {"If-Modified-Since": "yesterday"}).status == 200
    # the gzip representation is another one, with a tag of its own
    packed = site.get(front, {"Accept-Encoding": "gzip"})
    assert packed.headers["etag"] != etag
    assert site.get(front, {"Accept-Encoding": "gzip", "If-None-Match": etag}).status == 200
    assert site.get(front, {"Accept-Encoding": "gzip", "If-None-Match": packed.headers["etag"]}).status == 304
    # only a response that would be a 200 is conditional
    assert site.get("/missing/", {"If-None-Match": "*"}).status == 404


def test_a_listing_s_validators_change_exactly_when_its_content_does(site):
    index = site.site.index
    now = site.site.clock.now_ts()
    future = index.articles[index.visible_count(now)]
    front = index.fronts[index.section_path[future.sections[0]]]
    page2 = f"{front.path}?page=2"
    before = {path: site.get(path) for path in (front.path, page2)}
    newest = front.ts[front.visible(now) - 1]
    for reply in before.values():  # every page of a front changes with each of its stories
        assert reply.status == 200
        assert parsedate_to_datetime(reply.headers["last-modified"]).timestamp() == newest
    site.at((now + future.ts) / 2)  # time passes, nothing new in the front: nothing changed
    for path, reply in before.items():
        again = site.get(path, {"If-None-Match": reply.headers["etag"]})
        assert again.status == 304 and again.headers["etag"] == reply.headers["etag"]
    site.at(future.ts + 1)
    for path, reply in before.items():
        changed = site.get(path, {"If-None-Match": reply.headers["etag"],
                                  "If-Modified-Since": reply.headers["last-modified"]})
        assert changed.status == 200 and changed.headers["etag"] != reply.headers["etag"]
        assert parsedate_to_datetime(changed.headers["last-modified"]).timestamp() == future.ts


def test_the_home_page_changes_at_midnight_and_says_so(site):
    pages = site.site.pages
    now = site.site.clock.now_ts()
    midnight = pages._day_start(pages.local_day(now) + timedelta(days=1))
    site.at(midnight - 1)
    evening = site.get("/")
    site.at(midnight + 1)  # its link to today's archive moved
    night = site.get("/", {"If-None-Match": evening.headers["etag"]})
    assert night.status == 200 and night.headers["etag"] != evening.headers["etag"]
    assert parsedate_to_datetime(night.headers["last-modified"]).timestamp() == midnight
    assert parsedate_to_datetime(night.headers["last-modified"]) <= parsedate_to_datetime(night.headers["date"])
