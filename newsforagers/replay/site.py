"""Pages of the replay site and the twisted.web resource that serves them.

:class:`PageBuilder` maps a request URI and a simulated time to a :class:`Page`. A page is a
pure function of a small key (how many of the articles it could list are published), so
rendered pages are cached per (URI, key): between two publications every request is a
dictionary hit, which is what lets one Python process serve hundreds of requests a second.

A page's ``Last-Modified`` is when its content last changed: when its key took its value (a
story published, a section entering the navigation, midnight, a new edition of the home
page), or earlier when the page rendered under the previous key was the same. Its ``ETag`` is
a hash of its content, distinct for its gzip representation (RFC 9110 8.8.3.3); conditional
requests are answered by :mod:`.conditional`.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import re
import time
import weakref
import zlib
from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Callable
from urllib.parse import parse_qsl, quote_plus, unquote

from twisted.web import resource, server
from twisted.web.http import datetimeToString

from . import render
from .clock import SimClock
from .conditional import last_modified_value, not_modified
from .feeds import (
    FEED_ITEMS,
    NEWS_MAX,
    NEWS_SITEMAP_PATH,
    NEWS_WINDOW,
    RSS_TYPE,
    SITEMAP_INDEX_PATH,
    XML_TYPE,
    alternate_link,
    feed_path,
    feed_sections,
    news_sitemap,
    rss_feed,
    sitemap_index,
)
from .index import Front, ReplayArticle, SiteIndex
from .log import RequestLog

PROFILES = ("hard", "easy")
PER_PAGE = 20  # stories per front page
FEATURED = 5  # featured stories on the home page (one per busiest section)
LATEST = 30  # the easy profile's home "latest" list
FEATURE_REFRESH = 3600.0  # simulated seconds between two editions of the featured block
NAV_SECTIONS = 10  # sections in the navigation bar of every page
# The calendar trap (each day archive links the day before) reaches back to 1 January this
# many years before the corpus's first day: decades of empty pages for any corpus, whatever
# its era (a fixed year would refuse the archives of an older corpus).
ARCHIVE_REACH_YEARS = 30
CACHE_LIMIT = 50_000
GZIP_LEVEL = 6

_ARCHIVE = re.compile(r"^/archive/(\d{4})/(\d{2})/(\d{2})/$")
_GZIP = re.compile(rb"(?:^|[\s,])gzip(?:$|[\s,;])")
# A Host header the feeds may name in their absolute URLs: a name or an address, and a port.
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")
_HTML = b"text/html; charset=utf-8"


@dataclass(eq=False)
class Page:
    status: int
    body: bytes
    last_modified: float | None = None  # simulated POSIX seconds
    content_type: bytes = _HTML
    _etag: bytes | None = None
    _gzip: bytes | None = None

    @property
    def etag(self) -> bytes:
        """The strong entity tag of the page as it is (identity)."""
        if self._etag is None:
            self._etag = b'"%s"' % hashlib.blake2b(self.body, digest_size=10).hexdigest().encode()
        return self._etag

    @property
    def gzip_etag(self) -> bytes:
        """The strong entity tag of its gzip representation: another representation, another tag."""
        return self.etag[:-1] + b'-gzip"'

    def gzipped(self) -> bytes:
        if self._gzip is None:
            self._gzip = gzip.compress(self.body, GZIP_LEVEL, mtime=0)
        return self._gzip


class PageBuilder:
    """Every page of the site at a given simulated time, cached.

    ``feeds`` (a share of the sections, 0 to 1; 0: none) gives that many sections, drawn with
    the index's seed, an RSS feed, and the site a news sitemap of those sections and a sitemap
    index, announced in robots.txt (see :mod:`.feeds`).
    """

    def __init__(self, index: SiteIndex, profile: str = "hard", site_name: str | None = None,
                 feeds: float = 0.0):
        if profile not in PROFILES:
            raise ValueError(f"profile ({profile!r}) must be one of {', '.join(PROFILES)}.")
        self.feeds = feeds
        #: The section fronts that have a feed (``feeds`` of them, drawn with the index's seed).
        self.feed_fronts: list[Front] = feed_sections(index.sections, feeds, index.seed)
        self._feed_by_path = {feed_path(f): f for f in self.feed_fronts}
        self._alternates = {f.name: alternate_link(f) for f in self.feed_fronts}
        # The stories of the feed sections in publication order: the news sitemap's candidates.
        self._news_ids = sorted({i for f in self.feed_fronts for i in f.members})
        self._news_ts = [index.ts[i] for i in self._news_ids]
        self.index = index
        self.profile = profile
        self.site_name = site_name or f"{index.host} (replay)"
        self.tz = index.tz
        self._body = render.BodyRenderer()
        self._bodies: dict[int, str] = {}
        self._pre_top = 0  # prerender(): articles [0, _pre_top) were visible at the last scan
        self._pre_cursor = -1  # ... and those above this index are rendered
        self._cache: dict[str, tuple[tuple, Page]] = {}
        self._vocabulary: list[str] | None = None
        self._nav_fronts = index.sections[:NAV_SECTIONS]
        self._nav_first = sorted(f.first_ts for f in self._nav_fronts)
        self._featured_fronts = index.sections[:FEATURED]
        self._footer = [("/", "Home"), ("/search?q=news", "Search")]
        first_day = self.local_day(index.ts[0])
        #: The oldest day archive (the bottom of the calendar trap): see ARCHIVE_REACH_YEARS.
        self.archive_floor = date(max(1, first_day.year - ARCHIVE_REACH_YEARS), 1, 1)
        self._robots = Page(200, render.robots_txt().encode(),
                            content_type=b"text/plain; charset=utf-8")

    # -- entry point ------------------------------------------------------------------------

    def get(self, uri: str, now: float, host: str = "127.0.0.1") -> Page:
        """The page at ``uri`` (path and query, as sent) at simulated time ``now``; ``host``
        (the request's ``Host``) is the authority of the absolute URLs of robots.txt, feeds and
        sitemaps."""
        if uri.startswith(("http://", "https://")):  # absolute-form request target
            uri = "/" + uri.split("/", 3)[3] if uri.count("/") >= 3 else "/"
        i = self.index.by_path.get(uri)
        if i is None and "%" in uri:
            # A client percent-encodes a non-ASCII path that the corpus spells out.
            i = self.index.by_path.get(unquote(uri))
        if i is not None:
            return self._article(uri, i, now)
        path, _, query = uri.partition("?")
        if path == "/":
            return self._home(uri, query, now)
        if path.startswith(("/section/", "/author/")):
            front = self.index.fronts.get(path)
            if front is not None:
                return self._front(uri, front, query, now)
            front = self._feed_by_path.get(path)
            if front is not None:
                return self._feed(uri, front, query, now, f"http://{host}")
        elif path.startswith("/archive/"):
            return self._archive(uri, path, query, now)
        elif path == "/search":
            return self._search(uri, query, now)
        elif path == "/robots.txt" and not query:
            return self._robots_for(host) if self.feeds else self._robots
        elif path == NEWS_SITEMAP_PATH and self.feeds and not query:
            return self._news_sitemap(uri, now, f"http://{host}")
        elif path == SITEMAP_INDEX_PATH and self.feeds and not query:
            return self._sitemap_index(uri, f"http://{host}")
        return self.not_found(uri)

    def body_html(self, i: int) -> str:
        body = self._bodies.get(i)
        if body is None:
            body = self._bodies[i] = self._body(self.index.articles[i].body)
        return body

    def prerender(self, until: float, budget: float) -> int:
        """Render article bodies published by ``until``, newest first, for about ``budget``
        wall seconds; returns how many are left.

        Markdown costs milliseconds per body, ten times a cached page, and a crawl asks for
        most articles once: rendering them ahead, in the reactor's idle time, keeps first
        visits as fast as repeat ones.
        """
        deadline = time.perf_counter() + budget
        upto = self.index.visible_count(until)
        if upto > self._pre_top:  # newer articles appeared: scan again from the newest
            self._pre_top = upto
            self._pre_cursor = upto - 1
        while self._pre_cursor >= 0:
            i = self._pre_cursor
            self._pre_cursor -= 1
            if i not in self._bodies:
                self.body_html(i)
                if time.perf_counter() >= deadline:
                    break
        return self._pre_cursor + 1

    # -- helpers ------------------------------------------------------------------------------

    def _cached(self, uri: str, key: tuple, build: Callable[[], Page]) -> Page:
        hit = self._cache.get(uri)
        if hit is not None and hit[0] == key:
            return hit[1]
        page = build()
        if hit is not None and hit[1].body == page.body:
            page = hit[1]  # the key moved, the content did not: its Last-Modified stands
        if len(self._cache) >= CACHE_LIMIT:
            # Oldest entries first: dicts keep insertion order.
            for stale in list(self._cache)[: CACHE_LIMIT // 10]:
                del self._cache[stale]
        self._cache.pop(uri, None)
        self._cache[uri] = (key, page)
        return page

    def _nav(self, now: float) -> list[tuple[str, str]]:
        return [(f.path, f.name) for f in self._nav_fronts if f.first_ts <= now]

    def _nav_key(self, now: float) -> int:
        return sum(1 for t in self._nav_first if t <= now)

    def _nav_since(self, now: float) -> float:
        """When the navigation bar of every page last changed (a section entered it)."""
        key = self._nav_key(now)
        return self._nav_first[key - 1] if key else -math.inf

    def _html(self, title: str, main: str, now: float, head: str = "") -> bytes:
        return render.layout(self.site_name, title, main, self._nav(now), self._footer,
                             head).encode("utf-8")

    def _story(self, i: int) -> tuple[str, str, datetime]:
        a = self.index.articles[i]
        return a.path, a.title, a.published

    def local_day(self, ts: float) -> date:
        return datetime.fromtimestamp(ts, self.tz).date()

    def archive_path(self, day: date) -> str:
        return f"/archive/{day.year:04d}/{day.month:02d}/{day.day:02d}/"

    def _day_start(self, day: date) -> float:
        return datetime(day.year, day.month, day.day, tzinfo=self.tz).timestamp()

    def not_found(self, uri: str, now: float | None = None) -> Page:
        main = render.not_found_main(uri)
        body = render.layout(self.site_name, "Not found", main, [], self._footer).encode("utf-8")
        return Page(404, body)

    @staticmethod
    def _page_number(query: str) -> int | None:
        """1 for no query, N for ``page=N``; None for anything else (a 404)."""
        if not query:
            return 1
        params = parse_qsl(query, keep_blank_values=True)
        if len(params) != 1 or params[0][0] != "page" or not params[0][1].isdigit():
            return None
        number = int(params[0][1])
        return number if number >= 1 else None

    # -- pages --------------------------------------------------------------------------------

    def _article(self, uri: str, i: int, now: float) -> Page:
        index = self.index
        if index.ts[i] > now:
            return self.not_found(uri)
        n_links = len(index.visible_links(i, now))
        return self._cached(uri, ("a", n_links, self._nav_key(now)),
                            lambda: self._render_article(index.articles[i], now))

    def _render_article(self, a: ReplayArticle, now: float) -> Page:
        index = self.index
        body = self.body_html(a.index)
        links = index.visible_links(a.index, now)
        related = [(index.articles[j].path, index.articles[j].title) for j in links]
        most_read = [(index.articles[j].path, index.articles[j].title)
                     for j in index.most_read[a.index]]
        combos = []
        for section in a.sections:
            for author in a.authors:
                path = index.combo_path(section, author)
                if path is not None and len(combos) < 6:
                    combos.append((path, f"{section} by {author}"))
        day = self.local_day(a.ts)
        day_link = (self.archive_path(day), f"More from {day:%B} {day.day}, {day:%Y}")
        main = render.article_main(
            a.title, a.published, a.summary, body, index.authors_of(a), index.sections_of(a),
            combos, related, most_read, day_link)
        head = render.article_head(a.title, a.published, a.authors, a.sections, a.path, a.summary)
        head += self._feed_links(a.sections)
        # A link to a later article that has appeared since, and a section entering the
        # navigation, are the only changes an article page ever sees
        modified = max([a.ts, self._nav_since(now)] + [index.ts[j] for j in links])
        return Page(200, self._html(a.title, main, now, head), modified)

    def _front(self, uri: str, front: Front, query: str, now: float) -> Page:
        number = self._page_number(query)
        visible = front.visible(now)
        if number is None or visible == 0:
            return self.not_found(uri)
        end = visible - (number - 1) * PER_PAGE  # members[:end] are on this page or older
        if end <= 0:
            return self.not_found(uri)
        return self._cached(uri, ("f", visible, self._nav_key(now)),
                            lambda: self._render_front(front, number, end, now, visible))

    def _render_front(self, front: Front, number: int, end: int, now: float, visible: int) -> Page:
        ids = front.members[max(0, end - PER_PAGE):end][::-1]
        newer = None
        if number == 2:
            newer = front.path
        elif number > 2:
            newer = f"{front.path}?page={number - 1}"
        older = f"{front.path}?page={number + 1}" if end > PER_PAGE else None
        subs = [(sub.path, sub.name) for sub in front.subfronts if sub.first_ts <= now]
        if front.kind == "section":
            heading, sub_heading = front.name, "By author"
        elif front.kind == "author":
            heading, sub_heading = f"Stories by {front.name}", "By section"
        else:
            heading, sub_heading = front.name, ""
        main = render.front_main(heading, [self._story(i) for i in ids], newer, older, subs,
                                 sub_heading)
        title = heading if number == 1 else f"{heading} (page {number})"
        head = self._feed_links([front.name]) if front.kind == "section" else ""
        # every story published in the front moves every one of its pages
        return Page(200, self._html(title, main, now, head),
                    max(front.ts[visible - 1], self._nav_since(now)))

    def _home(self, uri: str, query: str, now: float) -> Page:
        if query:
            return self.not_found(uri)
        # The featured block is an edition, refreshed every FEATURE_REFRESH simulated seconds,
        # so polling the home page is not a feed of the busiest sections.
        edition = (now // FEATURE_REFRESH) * FEATURE_REFRESH
        key = ("h", self.index.visible_count(edition), self._nav_key(now),
               self.local_day(now).toordinal())
        if self.profile == "easy":
            key += (self.index.visible_count(now),)
        return self._cached(uri, key, lambda: self._render_home(edition, now))

    def _render_home(self, edition: float, now: float) -> Page:
        featured: list[int] = []
        for front in self._featured_fronts:
            k = front.visible(edition)
            if k and front.members[k - 1] not in featured:
                featured.append(front.members[k - 1])
        latest = None
        listed = list(featured)
        if self.profile == "easy":
            n = self.index.visible_count(now)
            ids = list(range(n - 1, max(-1, n - 1 - LATEST), -1))
            latest = [self._story(i) for i in ids]
            listed += ids
        sections = [(f.path, f.name) for f in self.index.sections if f.first_ts <= edition
                    or (self.profile == "easy" and f.first_ts <= now)]
        today = self.local_day(now)
        sections.append((self.archive_path(today), "Today's archive"))
        main = render.home_main([self._story(i) for i in featured], latest, sections)
        return Page(200, self._html("Home", main, now), self._home_since(edition, now))

    def _home_since(self, edition: float, now: float) -> float:
        """When the home page's key last changed: the first edition that showed its newest
        featured story, today's start (its link to today's archive), the navigation, and (easy
        profile) the latest story."""
        since = max(self._day_start(self.local_day(now)), self._nav_since(now))
        shown = self.index.visible_count(edition)
        if shown:
            newest = self.index.ts[shown - 1]
            since = max(since, math.ceil(newest / FEATURE_REFRESH) * FEATURE_REFRESH)
        if self.profile == "easy" and self.index.visible_count(now):
            since = max(since, self.index.ts[self.index.visible_count(now) - 1])
        return since

    def _archive(self, uri: str, path: str, query: str, now: float) -> Page:
        match = _ARCHIVE.match(path)
        if match is None or query:
            return self.not_found(uri)
        try:
            day = date(*map(int, match.groups()))
        except ValueError:
            return self.not_found(uri)
        start = self._day_start(day)
        # Today's archive, which the home page links, exists even when a --start far before
        # the corpus puts today below the floor.
        if day < min(self.archive_floor, self.local_day(now)) or start > now:
            return self.not_found(uri)
        end = self._day_start(day + timedelta(days=1))
        lo, hi = self.index.day_range(start, end, now)
        has_next = end <= now
        return self._cached(uri, ("d", hi - lo, has_next, self._nav_key(now)),
                            lambda: self._render_archive(day, lo, hi, has_next, now))

    def _render_archive(self, day: date, lo: int, hi: int, has_next: bool, now: float) -> Page:
        prev_day = day - timedelta(days=1)
        prev = self.archive_path(prev_day) if prev_day >= self.archive_floor else None
        next_day = day + timedelta(days=1)
        next_ = self.archive_path(next_day) if has_next else None
        stories = [self._story(i) for i in range(hi - 1, lo - 1, -1)]
        label = f"{day:%A} {day:%B} {day.day}, {day:%Y}"
        main = render.archive_main(label, stories, prev, next_)
        # The page changes when a story of the day is published or when the next day begins.
        modified = max([self.index.ts[hi - 1]] if hi > lo else [self._day_start(day)])
        if has_next:
            modified = max(modified, self._day_start(next_day))
        modified = max(modified, self._nav_since(now))
        return Page(200, self._html(f"Archive {day.isoformat()}", main, now), modified)

    def _search(self, uri: str, query: str, now: float) -> Page:
        params = dict(parse_qsl(query, keep_blank_values=True))
        q = params.get("q", "").strip()
        page_param = params.get("page", "1")
        number = int(page_param) if page_param.isdigit() and int(page_param) >= 1 else 1
        words = self.vocabulary()
        seed = zlib.crc32(f"{q}\x00{number}".encode())
        more = [(f"/search?q={quote_plus(q)}&page={number + 1}", "More results")]
        for k in range(3):
            word = words[(seed >> (k * 9)) % len(words)]
            refined = f"{q} {word}".strip()
            more.append((f"/search?q={quote_plus(refined)}", refined))
        more.append((f"/search?q={quote_plus(q)}&sort=newest&page={number}", "Newest first"))
        main = render.search_main(q, number, more)
        return Page(200, self._html(f"Search {q}", main, now))

    # -- feeds and sitemaps (feeds > 0) -----------------------------------------------------------

    def _feed_links(self, sections) -> str:
        """The ``<link rel="alternate">`` of the feeds of ``sections`` (names), for a ``<head>``."""
        return "".join(self._alternates[s] for s in sections if s in self._alternates)

    def _robots_for(self, host: str) -> Page:
        # The Sitemap line is an absolute URL (the robots.txt protocol wants one): one
        # robots.txt per Host.
        return self._cached(f"http://{host}/robots.txt", ("r",), lambda: Page(
            200, render.robots_txt(f"http://{host}{SITEMAP_INDEX_PATH}").encode(),
            content_type=b"text/plain; charset=utf-8"))

    def _feed(self, uri: str, front: Front, query: str, now: float, base: str) -> Page:
        visible = front.visible(now)
        if query or visible == 0:  # like the section's front, nothing before its first story
            return self.not_found(uri)
        return self._cached(base + uri, ("rss", visible),
                            lambda: self._render_feed(front, visible, base))

    def _render_feed(self, front: Front, visible: int, base: str) -> Page:
        stories = [self.index.articles[i]
                   for i in front.members[max(0, visible - FEED_ITEMS):visible][::-1]]
        body = rss_feed(base, self.site_name, front,
                        [(a.path, a.title, a.published, a.summary) for a in stories],
                        stories[0].published)
        # the feed changes exactly when its section publishes, as the front does
        return Page(200, body.encode("utf-8"), front.ts[visible - 1], RSS_TYPE)

    def _news_sitemap(self, uri: str, now: float, base: str) -> Page:
        # the feed sections' stories published in (now - NEWS_WINDOW, now], the newest
        # NEWS_MAX of them
        hi = bisect_right(self._news_ts, now)
        dropped = bisect_right(self._news_ts, now - NEWS_WINDOW)  # [0, dropped) are too old
        lo = max(dropped, hi - NEWS_MAX)
        return self._cached(base + uri, ("news", lo, hi),
                            lambda: self._render_news(lo, hi, dropped, base))

    def _render_news(self, lo: int, hi: int, dropped: int, base: str) -> Page:
        stories = [self._story(self._news_ids[k]) for k in range(hi - 1, lo - 1, -1)]
        body = news_sitemap(base, self.site_name, stories)
        # It changes when a story is published, and when one leaves the window (unless the
        # NEWS_MAX newest had pushed it out already); never changed: since the first story.
        changes = [self._news_ts[hi - 1]] if hi else [self.index.ts[0]]
        if dropped and dropped > hi - NEWS_MAX:
            changes.append(self._news_ts[dropped - 1] + NEWS_WINDOW)
        return Page(200, body.encode("utf-8"), max(changes), XML_TYPE)

    def _sitemap_index(self, uri: str, base: str) -> Page:
        # It never changes; it exists since the site's first story.
        return self._cached(base + uri, ("index",), lambda: Page(
            200, sitemap_index(base, [NEWS_SITEMAP_PATH]).encode("utf-8"), self.index.ts[0],
            XML_TYPE))

    def vocabulary(self) -> list[str]:
        if self._vocabulary is None:
            words = {w.lower() for a in self.index.articles[:2000]
                     for w in re.findall(r"[A-Za-z]{4,}", a.title)}
            words.update(f.name.lower() for f in self.index.sections)
            self._vocabulary = sorted(words) or ["news"]
        return self._vocabulary


class ReplayResource(resource.Resource):
    """The whole site as one leaf resource: routing is a dictionary lookup, not a tree walk."""

    isLeaf = True

    def __init__(self, pages: PageBuilder, clock: SimClock):
        super().__init__()
        self.pages = pages
        self.clock = clock

    def render(self, request: server.Request) -> bytes:
        now = self.clock.now_ts()
        request.replay_sim_ts = now
        # when the request arrived (its whole head read): what politeness is measured by; the
        # log is written when the answer is finished, which a large page (or a site's
        # latency, replay/profiles.py, which notes the arrival first) delays
        if getattr(request, "replay_wall", None) is None:
            request.replay_wall = self.clock.wall()
        request.setHeader(b"date", datetimeToString(now))
        if request.method not in (b"GET", b"HEAD"):
            request.setResponseCode(405)
            request.setHeader(b"allow", b"GET, HEAD")
            return b""
        host = _authority(request) if self.pages.feeds else "127.0.0.1"
        page = self.pages.get(request.uri.decode("utf-8", "replace"), now, host)
        request.setResponseCode(page.status)
        if page.status != 200:
            # conditions are evaluated only for a response that would be a 2xx (RFC 9110 13.2.1)
            request.setHeader(b"content-type", page.content_type)
            return page.body
        accepted = request.getHeader(b"accept-encoding")
        gzipped = bool(accepted and _GZIP.search(accepted))
        etag = page.gzip_etag if gzipped else page.etag
        request.setHeader(b"cache-control", b"no-cache")
        request.setHeader(b"vary", b"Accept-Encoding")
        request.setHeader(b"etag", etag)
        headers = request.requestHeaders
        if not_modified(headers.getRawHeaders(b"if-none-match", []),
                        headers.getRawHeaders(b"if-modified-since", []), etag, page.last_modified, now):
            # RFC 9110 15.4.5: Date, ETag, Cache-Control and Vary as a 200 would carry them; no
            # content, no Content-Type, no Content-Length (Twisted would write a 0, which a 304
            # must not say: it is the length of the 200's content or nothing)
            request.setResponseCode(304)
            request.finish()
            return server.NOT_DONE_YET
        request.setHeader(b"content-type", page.content_type)
        if page.last_modified is not None:
            request.setHeader(b"last-modified", datetimeToString(last_modified_value(page.last_modified, now)))
        if gzipped:
            request.setHeader(b"content-encoding", b"gzip")
            return page.gzipped()
        return page.body


def _authority(request: server.Request) -> str:
    """The request's ``Host`` (the site as the client names it), or the address it reached
    when the header is missing or is no host and port."""
    value = request.getHeader(b"host")
    if value is not None:
        host = value.decode("latin-1").strip()
        if _HOST.fullmatch(host):
            return host
    address = request.getHost()
    name = f"[{address.host}]" if ":" in address.host else address.host
    return f"{name}:{address.port}"


class ReplayHTTPSite(server.Site):
    """twisted.web ``Site`` that writes the replay's request log and can drop its connections."""

    def __init__(self, root: resource.Resource, clock: SimClock, request_log: RequestLog, reactor,
                 name: str | None = None):
        super().__init__(root, reactor=reactor)
        self.clock = clock
        self.name = name  # the site's host:port in a many-site replay's log (one log for all)
        self.request_log = request_log
        self.displayTracebacks = False
        self.noisy = False
        self._protocols: weakref.WeakSet = weakref.WeakSet()

    def buildProtocol(self, addr):
        protocol = super().buildProtocol(addr)
        self._protocols.add(protocol)
        return protocol

    def drop_connections(self) -> None:
        """Close every open connection, idle keep-alive ones included."""
        for protocol in list(self._protocols):
            # Twisted's Site builds a wrapper (_GenericHTTPChannelProtocol) whose own
            # ``transport`` stays None: the connection is its channel's
            transport = getattr(protocol, "transport", None) or getattr(getattr(protocol, "_channel", None),
                                                                        "transport", None)
            if transport is not None:
                transport.loseConnection()

    def log(self, request) -> None:
        sim = getattr(request, "replay_sim_ts", None)
        if sim is None:
            sim = self.clock.now_ts()
        forager = request.getHeader(b"x-forager")
        record = {
            "sim_time": datetime.fromtimestamp(sim, timezone.utc).isoformat(),
            "wall_time": round(getattr(request, "replay_wall", None) or self.clock.wall(), 6),
            "method": request.method.decode("latin-1"),
            "path": request.uri.decode("utf-8", "replace"),
            "status": request.code,
            "bytes": request.sentLength,
            "forager": forager.decode("utf-8", "replace") if forager is not None else None,
        }
        if self.name is not None:
            record["host"] = self.name
        held = getattr(request, "replay_held", None)
        if held is not None:  # a site profile's latency (replay/many.py): wall seconds held back
            record["held"] = held
            record["stalled"] = bool(getattr(request, "replay_stalled", False))
        if getattr(request, "replay_abandoned", False):  # the client went before the answer ended
            record["abandoned"] = True
        self.request_log.write(record)
