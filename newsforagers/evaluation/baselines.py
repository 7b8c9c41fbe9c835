"""The benchmark's baseline crawlers: plain Scrapy spiders, honestly tuned (issue #6).

::

    scrapy crawl bfs      -a start=URL -O out.jsonl -s CLOSESPIDER_TIMEOUT=600
    scrapy crawl hubs     -a start=URL ...
    scrapy crawl adaptive -a start=URL -a speed=600 ...
    scrapy crawl feeds    -a start=URL -a speed=600 ...   (a site with feeds: replay --feeds)
    scrapy crawl random   -a start=URL -a seed=1 ...
    scrapy crawl oracle   -a start=URL -a truth=truth.jsonl -a speed=600 ...
    scrapy crawl best_first -a start=URL -a topic="words" ...   (or -a topic=@FILE)

- ``bfs``: breadth-first re-crawl from the home page (``start``), in rounds; each round re-fetches every
  page within ``depth`` links of the home page (default 2: home, fronts, what the fronts list),
  and the next round starts when the previous one has ended.
- ``hubs``: round-robin polling of the home page and the section fronts it links
  (``hub_pattern``), downloading the links of a hub not seen before (other listings, matched
  by ``skip_pattern``, excepted: stories are read off the hubs as items off a feed).
- ``adaptive``: the same hubs, each with its own revisit interval, halved when a poll showed
  something new and grown ×1.5 when it did not (within ``min_interval``..``max_interval``
  simulated seconds); the most overdue hub is polled next, nothing is polled before it is due.
- ``feeds``: the news-crawl way: ``adaptive``'s polling of the site's RSS/Atom feeds and
  sitemaps only (found through robots.txt's ``Sitemap:`` lines, sitemap indexes, and the
  ``<link rel="alternate">`` feeds of the home page and of the section fronts it links, each
  read once at the start), downloading each entry once.
- ``random``: random walks from the home page, restarting there after ``steps`` steps or at a
  dead end.
- ``oracle``: reads the replay's truth (``-a truth=FILE``, ``newsforagers replay --truth``)
  and requests each article the moment it is published on the site's clock: the limit.
- ``best_first``: the topical baseline (Menczer, Pant & Srinivasan's Best-First): one
  bounded frontier of unvisited URLs ordered by the topic relevance of their link contexts,
  the best taken next, each URL once; its items also carry their own ``relevance``.

All of them use Scrapy's default scheduler (``bfs`` with FIFO queues and ``DEPTH_PRIORITY =
1``, Scrapy's breadth-first recipe), obey robots.txt, request only the start URL's host
(scheme, host and port), send ``X-Forager: <name>`` with every request (robots.txt
included) so that the replay's log attributes their requests, and run until stopped
(``CLOSESPIDER_TIMEOUT``; the oracle also stops when the truth has nothing left to fetch).

They output the forager's item format (``url, title, published, found_at, forager, reward``,
``reward`` null: a baseline has no reinforcing agent) for every article page they download —
a document of its own (``Page.document``: dated, not a listing) — whose date is within ``FORAGERS_NOVELTY_WINDOW``
(24 hours) of the site's clock (the ``Date`` header), each URL once.

Common arguments: ``start`` (the home page, required), ``rate`` (requests per second to the
host; default ``FORAGERS_HOST_RATE``, 0: no limit) and ``speed`` (simulated seconds per wall
second of the site's clock, the replay's ``--speed``; default 1, a live site). See
docs/baselines.md.
"""

from __future__ import annotations

import heapq
import json
import logging
import math
import random
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from w3lib.url import safe_url_string

from newsforagers import defaults
from newsforagers.clock import SiteClock, site_time
from newsforagers.config import ForagersConfig
from newsforagers.corpus import load_corpus
from newsforagers.errors import ForagersUsageError, report_usage_errors_in_one_line
from newsforagers.pages import NotAFeed, NotHTML, Page, is_candidate, read_response
from newsforagers.pages.feeds import read_feed, robots_sitemaps
from newsforagers.pages.links import base_url, link_contexts

logger = logging.getLogger(__name__)

# Starts spaced a little wider than 1/rate, as the colony's HostBudget spaces them: equal
# budgets for every crawler of a benchmark.
RATE_MARGIN = 1.05
DEFAULT_HUB_PATTERN = r"^/section/[^/?#]+/$"
# Listing pages of the replay (fronts and their pages, author pages, archives, search): a
# hub crawler reads stories off its hubs, as a feed crawler reads a feed's items, and does not
# download other listings.
DEFAULT_SKIP_PATTERN = r"^/(?:section|author|archive|search)(?:[/?]|$)"
# Hub crawlers' request priorities (Scrapy's scheduler pops the highest first): links that
# appeared on a hub since its last poll, then the next poll, then the links a hub showed on its
# first poll (the backlog, which must not hold up what is new).
LINK_PRIORITY = 10
POLL_PRIORITY = 5
BACKLOG_PRIORITY = 0
# Under a budget, at most this many wall seconds' worth of requests wait in Scrapy's
# downloader (its queue is first in, first out: a short one keeps the priorities above
# meaningful and a closing crawl quick), and never fewer than two requests.
QUEUE_SECONDS = 0.1
# After this many failed requests in a row (hub polls, walks from the home page), wait this many
# wall seconds before the next: a failing site is not hammered.
FAILURES_BEFORE_PAUSE = 3
FAILURE_PAUSE = 1.0


def load_truth(path: str | Path) -> tuple[list[tuple[str, datetime]], int]:
    """``(path, published)`` of each record of a truth file (``newsforagers replay --truth``),
    in publication order, and the number of lines that were not a usable record."""
    records, bad = [], 0
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                published = datetime.fromisoformat(record["published"])
                article_path = record["path"]
                if (published.utcoffset() is None or not isinstance(article_path, str)
                        or not article_path.startswith("/")):
                    raise ValueError("bad record")
            except (ValueError, KeyError, TypeError):
                bad += 1
                continue
            records.append((article_path, published.astimezone(UTC)))
    records.sort(key=lambda record: record[1])
    return records, bad


def _positive(value: Any, name: str, *, integer: bool = False, allow_zero: bool = False) -> Any:
    try:
        number = int(value) if integer else float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} ({value!r}) must be a number") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"{name} ({value!r}) must be a finite number")
    if number < 0 or (number == 0 and not allow_zero):
        raise ValueError(f"{name} ({value!r}) must be {'0 or more' if allow_zero else 'higher than 0'}")
    return number


# -- the common part ---------------------------------------------------------------------------


class BaselineSpider(scrapy.Spider):
    """What every baseline shares: arguments, site restriction, clock, reading and output."""

    custom_settings = {"ROBOTSTXT_OBEY": True}

    @classmethod
    def update_settings(cls, settings) -> None:
        super().update_settings(settings)
        # Default headers reach every request, robots.txt included, so that the replay's log
        # attributes all of this crawler's requests to it.
        headers = dict(settings.getdict("DEFAULT_REQUEST_HEADERS"))
        headers["X-Forager"] = cls.name
        settings.set("DEFAULT_REQUEST_HEADERS", headers, priority="spider")

    def __init__(self, start: str | None = None, rate: str | float | None = None,
                 speed: str | float | None = None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not start:
            raise ValueError(f"{self.name} needs a start page: -a start=URL")
        parts = urlsplit(start)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"start ({start!r}) must be an absolute http(s) URL")
        self.start_url = start
        # the start page, as links to it are spelled (safe_url_string, no fragment, a path)
        self.home = safe_url_string(urlunsplit(parts._replace(path=parts.path or "/", fragment="")))
        self.origin = (parts.scheme, parts.netloc.lower())
        self.allowed_domains = [parts.hostname]
        self.rate = None if rate in (None, "") else _positive(rate, "rate", allow_zero=True)
        self.clock = SiteClock(1.0 if speed in (None, "") else _positive(speed, "speed"))
        self.output_urls: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        # a FORAGERS_* setting that is wrong (a typo, a bad value) is one line, not a traceback
        report_usage_errors_in_one_line()
        config = ForagersConfig.from_settings(crawler.settings)
        spider = super().from_crawler(crawler, *args, **kwargs)
        # what counts as news follows the settings, as the foragers' reinforcing agent does
        spider.novelty_window = timedelta(seconds=config.novelty_window)
        spider.future_skew = timedelta(seconds=config.future_skew)
        # The settings are not frozen yet: the budget becomes Scrapy's per-host download delay.
        rate = spider.rate
        if rate is None:
            rate = config.host_rate
        spider.rate = rate
        if rate and rate > 0:
            delay = max(crawler.settings.getfloat("DOWNLOAD_DELAY"), RATE_MARGIN / rate)
            crawler.settings.set("DOWNLOAD_DELAY", delay, priority="cmdline")
            crawler.settings.set("DOWNLOAD_DELAY_JITTER", 0.0, priority="cmdline")
            crawler.settings.set("CONCURRENT_REQUESTS", max(2, math.ceil(rate * QUEUE_SECONDS)),
                                 priority="spider")
        crawler.signals.connect(spider._idle, signal=signals.spider_idle)
        crawler.signals.connect(spider._closed, signal=signals.spider_closed)
        return spider

    # -- hooks -----------------------------------------------------------------------------

    def _idle(self, spider=None) -> None:
        """The engine has nothing left to do; baselines run until stopped."""
        if self.on_idle():
            raise DontCloseSpider

    def on_idle(self) -> bool:
        """Called when the engine is idle; True keeps the crawl open."""
        return True

    def _closed(self, spider=None, reason=None) -> None:
        self.on_close()

    def on_close(self) -> None:
        pass

    # -- helpers ---------------------------------------------------------------------------

    def on_site(self, url: str) -> bool:
        parts = urlsplit(url)
        return (parts.scheme, parts.netloc.lower()) == self.origin

    def request(self, url: str, callback, *, errback=None, meta: dict | None = None,
                priority: int = 0, dont_filter: bool = False) -> scrapy.Request:
        return scrapy.Request(url, callback=callback, errback=errback, meta=meta or {},
                              priority=priority, dont_filter=dont_filter,
                              headers={"X-Forager": self.name})

    def read(self, response, now: datetime | None = None) -> Page | None:
        """The page of a response, or None (counted) when it is not HTML. ``now`` is the
        site's clock (:meth:`site_now`, read first): dates are judged on it."""
        try:
            return read_response(response, now)
        except NotHTML as exc:
            self.crawler.stats.inc_value("baselines/not_html")
            logger.debug("%s", exc)
            return None

    def page_and_item(self, response) -> tuple[Page | None, dict | None]:
        """The page of a response (None when it is not one) and the item to output for it
        (None: not a novel article), on the site's clock of that response."""
        now = self.site_now(response)
        page = self.read(response, now)
        return page, self.output(response, page, now)

    def links(self, page: Page) -> list[str]:
        return [link for link in page.links if self.on_site(link)]

    def site_now(self, response) -> datetime:
        """The site's clock from the ``Date`` header (observed by ``self.clock``); a junk or
        implausible one is replaced by the clock's estimate, a missing one by the system clock
        (both counted)."""
        now = site_time(response)
        if now is not None and self.clock.observe(now):
            return now
        headers = getattr(response, "headers", None)
        if headers is not None and headers.get(b"Date"):
            # junk, or far from what the site's other answers say: the clock's estimate stands in
            self.crawler.stats.inc_value("baselines/clock/implausible_date")
            if self.clock.ready:
                return datetime.fromtimestamp(self.clock.now(), UTC)
        else:
            self.crawler.stats.inc_value("baselines/clock/no_date_header")
        return datetime.now(UTC)

    def output(self, response, page: Page | None, now: datetime) -> dict | None:
        """The output item of an article page within the novelty window of ``now`` (set from
        ``FORAGERS_NOVELTY_WINDOW`` and ``FORAGERS_FUTURE_SKEW`` by :meth:`from_crawler`), once
        per URL: a document of its own (``Page.document``), as the foragers send."""
        if page is None or not page.document:
            return None
        url = response.url
        if url in self.output_urls or not is_candidate(page.published, now, self.novelty_window,
                                                       skew=self.future_skew):
            return None
        self.output_urls.add(url)
        self.crawler.stats.inc_value("baselines/output")
        return {"url": url, "title": page.title, "published": page.published.isoformat(),
                "found_at": now.isoformat(), "forager": self.name, "reward": None}

    def count_failure(self, failure) -> None:
        self.crawler.stats.inc_value(f"baselines/failed/{failure.type.__name__}")
        logger.debug("%s: %s failed: %s", self.name, failure.request.url, failure.getErrorMessage())

    def call_later(self, delay: float, function, *args):
        from twisted.internet import reactor

        return reactor.callLater(max(0.0, delay), function, *args)

    def schedule(self, request: scrapy.Request) -> None:
        """Hand a request to the engine from outside a callback (a timer)."""
        engine = getattr(self.crawler, "engine", None)
        if engine is not None and engine.spider is not None:
            engine.crawl(request)


# -- bfs -------------------------------------------------------------------------------------


class BfsSpider(BaselineSpider):
    """Breadth-first re-crawl from the home page, in rounds of depth ``depth``."""

    name = "bfs"
    custom_settings = {
        **BaselineSpider.custom_settings,
        # Scrapy's breadth-first order: FIFO queues, shallower requests first.
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
    }

    def __init__(self, start: str | None = None, depth: str | int = 2, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        self.max_depth = _positive(depth, "depth", integer=True)
        self.round = 0
        self.round_seen: set[str] = set()

    async def start(self):
        yield self.new_round()

    def new_round(self) -> scrapy.Request:
        self.round += 1
        self.crawler.stats.set_value("baselines/bfs/rounds", self.round)
        self.round_seen = {self.home}
        # dont_filter: every round re-fetches; within a round, round_seen keeps URLs unique.
        return self.request(self.home, self.parse_page, errback=self.failed, dont_filter=True,
                            meta={"bfs_round": self.round})

    def parse_page(self, response):
        now = self.site_now(response)
        page = self.read(response, now)
        item = self.output(response, page, now)
        if item is not None:
            yield item
        depth = response.meta.get("depth", 0)  # Scrapy's DepthMiddleware: 0 for the home page
        if page is None or depth >= self.max_depth or response.meta.get("bfs_round") != self.round:
            return
        for link in self.links(page):
            if link not in self.round_seen:
                self.round_seen.add(link)
                yield self.request(link, self.parse_page, errback=self.failed, dont_filter=True,
                                   meta={"bfs_round": self.round})

    def failed(self, failure):
        self.count_failure(failure)

    def on_idle(self) -> bool:
        # The round has ended: nothing scheduled, downloading or being parsed.
        self.schedule(self.new_round())
        return True


# -- hubs and adaptive ------------------------------------------------------------------------


@dataclass
class Hub:
    url: str
    interval: float  # simulated seconds (adaptive)
    last_poll: float | None = None  # the site's time of the last poll (None: never polled)
    polls: int = 0
    changes: int = 0

    def due(self) -> float:
        return float("-inf") if self.last_poll is None else self.last_poll + self.interval


class HubsSpider(BaselineSpider):
    """Round-robin polling of the home page and the section fronts it links.

    One poll is in flight at a time; the links of a polled hub not seen before are
    downloaded (once, ahead of the next poll) and the next hub in turn is polled as soon as
    the budget allows. Hubs are the home page and the home page's links whose path matches
    ``hub_pattern`` (a regular expression, default ``^/section/[^/?#]+/$``); hubs that appear
    on the home page later join the rotation. Links whose path matches ``skip_pattern``
    (default: the replay's listing pages, ``/section/...``, ``/author/...``, ``/archive/...``,
    ``/search``; empty: none) are not downloaded. Links a hub shows on its first poll (its
    backlog) wait behind new links and polls.
    """

    name = "hubs"

    def __init__(self, start: str | None = None, hub_pattern: str | None = None,
                 skip_pattern: str | None = None, interval: str | float = 0.0, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        # simulated seconds between two polls of one hub at least (0: as the budget allows);
        # the cost knob of newsforagers bench --sweep
        self.interval = _positive(interval, "interval", allow_zero=True)
        self.hub_pattern = _regex(hub_pattern or DEFAULT_HUB_PATTERN, "hub_pattern")
        if skip_pattern is None:
            skip_pattern = DEFAULT_SKIP_PATTERN
        self.skip_pattern = _regex(skip_pattern, "skip_pattern") if skip_pattern else None
        self.hubs: dict[str, Hub] = {}
        self.seen: set[str] = set()  # non-hub links requested once
        self.polling = False
        self.failures = 0  # failed polls in a row
        self._timer = None
        self.add_hub(self.home)

    def initial_interval(self) -> float:
        return 0.0

    def add_hub(self, url: str) -> None:
        if url not in self.hubs:
            self.hubs[url] = Hub(url, self.initial_interval())
            self.crawler_stats_set("baselines/hubs", len(self.hubs))

    def crawler_stats_set(self, key: str, value) -> None:
        crawler = getattr(self, "crawler", None)
        if crawler is not None and crawler.stats is not None:
            crawler.stats.set_value(key, value)

    def is_hub(self, url: str) -> bool:
        return bool(self.hub_pattern.search(_path_and_query(url)))

    def is_skipped(self, url: str) -> bool:
        return self.skip_pattern is not None and bool(self.skip_pattern.search(_path_and_query(url)))

    async def start(self):
        request = self.next_poll()
        if request is not None:
            yield request

    # -- choosing ---------------------------------------------------------------------------

    def choose(self, now: float) -> tuple[Hub | None, float]:
        """The hub to poll next and how many simulated seconds until it is due (0: now)."""
        # round robin: the hub polled longest ago (never polled first, in discovery order)
        hub = min(self.hubs.values(), key=lambda h: -1e300 if h.last_poll is None else h.last_poll,
                  default=None)
        if hub is None or hub.last_poll is None or not self.interval:
            return hub, 0.0
        return hub, max(0.0, hub.last_poll + self.interval - now)

    def next_poll(self) -> scrapy.Request | None:
        """The next poll's request if a hub is due now; else a timer wakes us when one is."""
        if self.polling or self._timer is not None:
            return None
        now = self.clock.now()
        hub, wait = self.choose(now)
        if hub is None:
            return None
        if wait > 0:
            self._timer = self.call_later(wait / self.clock.speed, self._wake)
            return None
        self.polling = True
        return self.request(hub.url, self.parse_hub, errback=self.hub_failed, dont_filter=True,
                            priority=POLL_PRIORITY, meta={"hub": hub.url})

    def _wake(self) -> None:
        self._timer = None
        request = self.next_poll()
        if request is not None:
            self.schedule(request)

    def after_poll(self, hub: Hub, now: float, changed: bool) -> None:
        """Book-keeping of a poll (adaptive: the interval)."""
        hub.last_poll = now
        hub.polls += 1
        hub.changes += changed

    # -- callbacks --------------------------------------------------------------------------

    def parse_hub(self, response):
        self.polling = False
        self.failures = 0
        hub = self.hubs[response.meta["hub"]]
        now = self.site_now(response)
        self.crawler.stats.inc_value("baselines/polls")
        page = self.read(response, now)
        new: list[str] = []
        if page is not None:
            item = self.output(response, page, now)
            if item is not None:
                yield item
            links = self.links(page)
            if hub.url == self.home:
                for link in links:
                    if self.is_hub(link):
                        self.add_hub(link)
            new = [link for link in links if link not in self.seen and link not in self.hubs
                   and not self.is_skipped(link)]
        priority = LINK_PRIORITY if hub.polls else BACKLOG_PRIORITY
        self.after_poll(hub, now.timestamp(), bool(new))
        yield from self.fetch_then_poll(new, priority)

    def fetch_then_poll(self, new: list[str], priority: int):
        """The requests of a poll's new links (each once), then the next poll if one is due."""
        for link in new:
            self.seen.add(link)
            yield self.request(link, self.parse_page, errback=self.count_failure, priority=priority)
        request = self.next_poll()
        if request is not None:
            yield request

    def hub_failed(self, failure):
        self.polling = False
        self.failures += 1
        self.count_failure(failure)
        url = failure.request.meta["hub"]
        if failure.check(IgnoreRequest) and url != self.home:
            self.hubs.pop(url, None)  # robots.txt forbids it: not a hub for us
        elif url in self.hubs:
            self.after_poll(self.hubs[url], self.clock.now(), False)
        if self.failures < FAILURES_BEFORE_PAUSE:
            request = self.next_poll()
            if request is not None:
                yield request
        elif self._timer is None:
            # a failing site is not hammered: after a few failures in a row, polls pause
            self._timer = self.call_later(FAILURE_PAUSE, self._wake)

    def parse_page(self, response):
        now = self.site_now(response)
        item = self.output(response, self.read(response, now), now)
        if item is not None:
            yield item

    def on_idle(self) -> bool:
        # Idle means nothing is in flight: a poll still marked as such was lost on the way
        # (dropped by a middleware without an errback); polling resumes.
        self.polling = False
        if self._timer is None:
            request = self.next_poll()
            if request is not None:
                self.schedule(request)
        return True

    def on_close(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None


class AdaptiveSpider(HubsSpider):
    """Hub polling with a revisit interval per hub, as feed crawlers keep one per feed.

    A hub's interval (simulated seconds) starts at ``initial_interval``; after each poll it
    is halved when the hub showed a link not seen before and multiplied by 1.5 when it did
    not, within ``[min_interval, max_interval]``. The next poll goes to the most overdue hub
    (largest time since its last poll / its interval; a new hub first); when no hub is due
    the spider waits, on the site's clock (``speed``), until one is.
    """

    name = "adaptive"

    def __init__(self, start: str | None = None, initial_interval: str | float = 600.0,
                 min_interval: str | float = 60.0, max_interval: str | float = 3600.0,
                 shrink: str | float = 0.5, grow: str | float = 1.5, *args, **kwargs):
        self._initial = _positive(initial_interval, "initial_interval")
        self.min_interval = _positive(min_interval, "min_interval")
        self.max_interval = _positive(max_interval, "max_interval")
        if not self.min_interval <= self._initial <= self.max_interval:
            raise ValueError("min_interval <= initial_interval <= max_interval must hold")
        self.shrink = _positive(shrink, "shrink")
        self.grow = _positive(grow, "grow")
        if not self.shrink <= 1 <= self.grow:
            raise ValueError("shrink <= 1 <= grow must hold")
        super().__init__(start, *args, **kwargs)

    def initial_interval(self) -> float:
        return self._initial

    def choose(self, now: float) -> tuple[Hub | None, float]:
        best, best_ratio = None, float("-inf")
        for hub in self.hubs.values():
            ratio = float("inf") if hub.last_poll is None else (now - hub.last_poll) / hub.interval
            if ratio > best_ratio:
                best, best_ratio = hub, ratio
        if best is None:
            return None, 0.0
        if best_ratio >= 1:
            return best, 0.0
        return best, min(h.due() for h in self.hubs.values()) - now

    def after_poll(self, hub: Hub, now: float, changed: bool) -> None:
        if hub.polls:  # the first poll shows everything as new: it says nothing of the rate
            factor = self.shrink if changed else self.grow
            hub.interval = min(self.max_interval, max(self.min_interval, hub.interval * factor))
        super().after_poll(hub, now, changed)


# -- feeds -----------------------------------------------------------------------------------

# Entries read from one feed or sitemap at most (a news sitemap holds up to 1,000).
MAX_FEED_ENTRIES = 1000


class FeedsSpider(AdaptiveSpider):
    """The news-crawl way: adaptive polling of a site's feeds and sitemaps, and nothing else.

    At the start it requests robots.txt itself (Scrapy's robots.txt middleware does not share
    its copy) for its ``Sitemap:`` lines, and the home page and the section fronts it links (paths
    matching ``hub_pattern``), each once, for the feeds they announce (``<link
    rel="alternate">`` of an RSS or Atom type). Those feeds and sitemaps, the sitemaps the
    sitemap indexes among them list, and the feeds announced by the articles it downloads, are
    its hubs, polled by :class:`AdaptiveSpider`'s rule (its arguments: ``initial_interval``,
    ``min_interval``, ``max_interval``, ``shrink``, ``grow``); the home page and the fronts are
    never polled. Each entry of a feed or sitemap is downloaded once, in ``adaptive``'s order
    (entries new since the hub's previous poll, then the next poll, then the entries a hub
    listed at its first poll), except entries matching ``skip_pattern`` and entries the feed
    dates beyond the novelty window (too old to be news).
    """

    name = "feeds"

    def __init__(self, start: str | None = None, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        self.hubs.clear()  # the home page is read once for the feeds it announces, not polled
        self.found_feeds: set[str] = set()  # every feed and sitemap ever made a hub
        self.scanned: set[str] = set()  # the home page and the fronts read for their feeds

    async def start(self):
        robots = f"{self.origin[0]}://{self.origin[1]}/robots.txt"
        yield self.request(robots, self.parse_robots, errback=self.count_failure,
                           priority=POLL_PRIORITY)
        self.scanned.add(self.home)
        yield self.request(self.home, self.parse_home, errback=self.count_failure,
                           priority=POLL_PRIORITY)

    # -- finding feeds ------------------------------------------------------------------------

    def add_feeds(self, urls) -> bool:
        """Make the feeds and sitemaps ``urls`` (those on the site never seen before) hubs;
        whether there was one."""
        added = False
        for url in urls:
            if self.on_site(url) and url not in self.found_feeds:
                self.found_feeds.add(url)
                self.add_hub(url)
                added = True
        return added

    def discovered(self, urls) -> scrapy.Request | None:
        """:meth:`add_feeds`, and the poll of a new hub (due at once) unless one is in flight."""
        if not self.add_feeds(urls):
            return None
        if self._timer is not None and self.failures < FAILURES_BEFORE_PAUSE:
            # waiting for a known hub to be due; a new one is due now (a failure pause stands)
            if self._timer.active():
                self._timer.cancel()
            self._timer = None
        return self.next_poll()

    def parse_robots(self, response):
        self.site_now(response)
        # Scrapy's reader of Sitemap: lines (sitemap_urls_from_robots), as the pages read them
        request = self.discovered(robots_sitemaps(response.url, response.body))
        if request is not None:
            yield request

    def parse_home(self, response):
        now = self.site_now(response)
        page = self.read(response, now)
        if page is None:
            return
        request = self.discovered(page.feeds)
        if request is not None:
            yield request
        for link in self.links(page):
            if self.is_hub(link) and link not in self.scanned:
                self.scanned.add(link)
                yield self.request(link, self.parse_front, errback=self.count_failure,
                                   priority=POLL_PRIORITY)

    def parse_front(self, response):
        page = self.read(response, self.site_now(response))
        request = self.discovered(page.feeds) if page is not None else None
        if request is not None:
            yield request

    # -- polling ------------------------------------------------------------------------------

    def parse_hub(self, response):
        self.polling = False
        self.failures = 0
        hub = self.hubs.get(response.meta["hub"])
        now = self.site_now(response)
        self.crawler.stats.inc_value("baselines/polls")
        new: list[str] = []
        changed = False
        try:
            page = read_feed(response.url, response.body, headers=response.headers, now=now,
                             max_items=MAX_FEED_ENTRIES)
        except NotAFeed as exc:
            self.crawler.stats.inc_value("baselines/feeds/not_a_feed")
            logger.debug("%s: %s", self.name, exc)
            page = None
        if page is not None:
            # Entries (and a sitemap index's sitemaps) dated beyond the novelty window hold no
            # news: never downloaded, never polled.
            oldest = now - self.novelty_window
            stale = {link for link, when in page.listed + page.feeds_listed if when < oldest}
            self.seen.update(link for link in page.links if link in stale)
            changed = self.add_feeds(feed for feed in page.feeds if feed not in stale)
            new = [link for link in page.links if self.on_site(link) and link not in self.seen
                   and link not in stale and link not in self.found_feeds
                   and not self.is_skipped(link)]
            changed = changed or bool(new)
        priority = LINK_PRIORITY if hub is not None and hub.polls else BACKLOG_PRIORITY
        if hub is not None:
            self.after_poll(hub, now.timestamp(), changed)
        yield from self.fetch_then_poll(new, priority)

    def parse_page(self, response):
        page, item = self.page_and_item(response)
        if item is not None:
            yield item
        # an article announces its section's feed too (a feed crawler learns feeds as it goes)
        request = self.discovered(page.feeds) if page is not None else None
        if request is not None:
            yield request


# -- random ----------------------------------------------------------------------------------


class RandomSpider(BaselineSpider):
    """Random walks: each step follows a link of the current page chosen uniformly.

    ``walkers`` walks run at once (default 1). A walk restarts at the home page after
    ``steps`` steps (default 10) or at a dead end (no link on the site). A step that fails
    (an error, a page robots.txt forbids, a non-HTML body) is replaced by another link of
    the same page, drawn among the ones not yet tried. ``seed`` fixes the draws.
    """

    name = "random"

    def __init__(self, start: str | None = None, steps: str | int = 10, walkers: str | int = 1,
                 seed: str | int | None = None, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        self.steps = _positive(steps, "steps", integer=True)
        self.walkers = _positive(walkers, "walkers", integer=True)
        self.rng = random.Random(None if seed in (None, "") else int(seed))
        self.restarts = 0

    async def start(self):
        for walker in range(self.walkers):
            yield self.restart(walker)

    def restart(self, walker: int) -> scrapy.Request:
        self.restarts += 1
        self.crawler.stats.set_value("baselines/random/restarts", self.restarts)
        return self.request(self.home, self.parse_page, errback=self.failed, dont_filter=True,
                            meta={"walker": walker, "step": 0, "alternatives": []})

    def step_to(self, walker: int, step: int, choices: list[str]) -> scrapy.Request:
        if step >= self.steps or not choices:
            return self.restart(walker)
        link = self.rng.choice(choices)
        alternatives = [c for c in choices if c != link]
        return self.request(link, self.parse_page, errback=self.failed, dont_filter=True,
                            meta={"walker": walker, "step": step, "alternatives": alternatives})

    def parse_page(self, response):
        now = self.site_now(response)
        page = self.read(response, now)
        meta = response.meta
        if page is None:
            yield self.step_to(meta["walker"], meta["step"], meta["alternatives"])
            return
        item = self.output(response, page, now)
        if item is not None:
            yield item
        links = [link for link in self.links(page) if link != response.url]
        yield self.step_to(meta["walker"], meta["step"] + 1, links)

    def failed(self, failure):
        self.count_failure(failure)
        meta = failure.request.meta
        if meta["step"] == 0:
            # the home page itself failed: a failing site is not hammered
            request = self.restart(meta["walker"])
            self.call_later(FAILURE_PAUSE, self.schedule, request)
            return
        yield self.step_to(meta["walker"], meta["step"], meta["alternatives"])


# -- oracle ----------------------------------------------------------------------------------


class OracleSpider(BaselineSpider):
    """The limit: each article requested the moment it is published on the site's clock.

    It reads the replay's truth (``truth``, JSON lines with ``path`` and ``published``),
    fetches the home page once to read the site's clock (``Date``) and maps wall time to the
    site's time with ``speed``. Then each article published since the crawl started (and,
    with ``backlog`` hours, those published that long before) is requested when the site's
    clock reaches its publication time plus ``margin`` simulated seconds (at once for those
    published while robots.txt and the home page were fetched). An article that is not
    there yet (404: the clock estimate ran ahead) is asked again ``retry_delay`` wall seconds
    later, up to ``retries`` times. The crawl ends when every article is done.
    """

    name = "oracle"

    def __init__(self, start: str | None = None, truth: str | None = None,
                 margin: str | float = 0.0, backlog: str | float = 0.0,
                 retries: str | int = 20, retry_delay: str | float = 0.05, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        if not truth:
            raise ValueError("oracle needs the replay's truth: -a truth=FILE")
        if not Path(truth).is_file():
            raise ValueError(f"truth file {truth!r} does not exist")
        self.truth, self.bad_truth = load_truth(truth)
        if not self.truth:
            raise ValueError(f"truth file {truth!r} has no usable record")
        self.margin = _positive(margin, "margin", allow_zero=True)
        self.backlog = timedelta(hours=_positive(backlog, "backlog", allow_zero=True))
        self.retries = _positive(retries, "retries", integer=True, allow_zero=True)
        self.retry_delay = _positive(retry_delay, "retry_delay", allow_zero=True)
        self.next_index: int | None = None  # into self.truth: the next article to request
        self.started_wall = time.time()
        self.outstanding = 0  # article requests scheduled and not yet answered
        self._timer = None
        self._retry_timers: set = set()

    async def start(self):
        self.started_wall = time.time()
        yield self.request(self.home, self.parse_home, errback=self.home_failed, dont_filter=True)

    def parse_home(self, response):
        now = self.site_now(response)
        if self.bad_truth:
            self.crawler.stats.set_value("baselines/oracle/bad_truth_lines", self.bad_truth)
        # from the moment the crawl started (robots.txt and the home page took a little of the
        # site's time already), on the clock just learnt
        started = datetime.fromtimestamp(self.clock.now() - self.clock.speed
                                         * (time.time() - self.started_wall), UTC)
        begin = min(now, started) - self.backlog
        self.next_index = next((i for i, (_, published) in enumerate(self.truth)
                                if published >= begin), len(self.truth))
        logger.info("oracle: %d articles to fetch from %s", len(self.truth) - self.next_index,
                    begin.isoformat())
        self._release()

    def home_failed(self, failure):
        self.count_failure(failure)
        raise scrapy.exceptions.CloseSpider("oracle_no_clock")

    def _release(self) -> None:
        """Request every article whose time has come; set a timer for the next one."""
        self._timer = None
        if self.next_index is None:
            return
        now = self.clock.now()
        while self.next_index < len(self.truth):
            path, published = self.truth[self.next_index]
            if published.timestamp() + self.margin > now:
                break
            self.next_index += 1
            self.outstanding += 1
            self.schedule(self.article_request(path, published, 0))
        if self.next_index < len(self.truth):
            published = self.truth[self.next_index][1]
            self._timer = self.call_later(self.clock.wall_delay(published.timestamp() + self.margin),
                                          self._release)

    def article_request(self, path: str, published: datetime, attempt: int) -> scrapy.Request:
        url = f"{self.origin[0]}://{self.origin[1]}{path}"
        return self.request(url, self.parse_article, errback=self.article_failed, dont_filter=True,
                            meta={"path": path, "published": published, "attempt": attempt,
                                  "handle_httpstatus_list": [404]})

    def parse_article(self, response):
        now = self.site_now(response)
        meta = response.meta
        if response.status == 404:
            self.crawler.stats.inc_value("baselines/oracle/early")
            self._retry(meta)
            return
        self.outstanding -= 1
        item = self.output(response, self.read(response, now), now)
        if item is not None:
            yield item

    def _retry(self, meta: dict) -> None:
        if meta["attempt"] >= self.retries:
            self.outstanding -= 1
            self.crawler.stats.inc_value("baselines/oracle/gave_up")
            return
        request = self.article_request(meta["path"], meta["published"], meta["attempt"] + 1)

        def fire():
            self._retry_timers.discard(timer)
            self.schedule(request)

        timer = self.call_later(self.retry_delay, fire)
        self._retry_timers.add(timer)

    def article_failed(self, failure):
        self.count_failure(failure)
        self.outstanding -= 1

    def on_idle(self) -> bool:
        # open while articles remain to be published, requested or retried
        if self.next_index is None:
            return False  # the clock request failed: nothing to schedule against
        return self.next_index < len(self.truth) or self.outstanding > 0 or bool(self._retry_timers)

    def on_close(self) -> None:
        for timer in [self._timer, *self._retry_timers]:
            if timer is not None and timer.active():
                timer.cancel()
        self._timer = None
        self._retry_timers.clear()


# -- best_first ------------------------------------------------------------------------------

#: URLs the best-first frontier holds at most (``-a frontier=N``).
DEFAULT_FRONTIER = 10_000
TOPIC_USAGE = '-a topic="some words" or -a topic=@FILE (a text file)'


class Frontier:
    """A best-first crawler's frontier: unvisited URLs by score, at most ``size`` of them.

    :meth:`pop` gives the URL of highest score (ties: the one pushed first) and marks it
    visited; a visited URL is never pushed again. A URL pushed again keeps its best score
    (and its place among ties). When more than ``size`` URLs wait, the lowest (ties: the one
    pushed last) is dropped and counted in ``dropped``; a dropped URL, never visited, may be
    pushed again by a later link to it.

    Two heaps with lazy deletion: an entry is live while ``_entries`` maps its URL to the same
    ``(score, order)``; stale entries are swept out when they outnumber the live ones.
    """

    def __init__(self, size: int = DEFAULT_FRONTIER):
        self.size = size
        self.visited: set[str] = set()
        self.dropped = 0
        self._entries: dict[str, tuple[float, int]] = {}
        self._best: list[tuple[float, int, str]] = []  # (-score, order, url)
        self._worst: list[tuple[float, int, str]] = []  # (score, -order, url)
        self._pushed = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, url: str) -> bool:
        return url in self._entries

    def score(self, url: str) -> float | None:
        entry = self._entries.get(url)
        return None if entry is None else entry[0]

    def push(self, url: str, score: float) -> bool:
        """Offer ``url`` at ``score``; whether it is waiting in the frontier afterwards."""
        if url in self.visited:
            return False
        entry = self._entries.get(url)
        if entry is not None and score <= entry[0]:
            return True
        order = self._pushed if entry is None else entry[1]
        self._pushed += entry is None
        self._entries[url] = (score, order)
        heapq.heappush(self._best, (-score, order, url))
        heapq.heappush(self._worst, (score, -order, url))
        if len(self._entries) > self.size:
            self._drop()
        self._sweep()
        return url in self._entries

    def pop(self) -> tuple[str, float]:
        """The waiting URL of highest score and its score, marked visited; IndexError when
        none waits."""
        while self._best:
            negative, order, url = heapq.heappop(self._best)
            if self._entries.get(url) == (-negative, order):
                del self._entries[url]
                self.visited.add(url)
                return url, -negative
        raise IndexError("pop from an empty frontier")

    def visit(self, url: str) -> None:
        """Mark ``url`` visited (requested by other means): it leaves the frontier for good."""
        self._entries.pop(url, None)
        self.visited.add(url)

    def _drop(self) -> None:
        while self._worst:
            score, negative_order, url = heapq.heappop(self._worst)
            if self._entries.get(url) == (score, -negative_order):
                del self._entries[url]
                self.dropped += 1
                return

    def _sweep(self) -> None:
        if len(self._best) + len(self._worst) <= 4 * len(self._entries) + 64:
            return
        self._best = [(-score, order, url) for url, (score, order) in self._entries.items()]
        self._worst = [(score, -order, url) for url, (score, order) in self._entries.items()]
        heapq.heapify(self._best)
        heapq.heapify(self._worst)


def read_topic(topic: str | None) -> str:
    """The topic text of ``-a topic``: the words given, or a file's text for ``@PATH``;
    :class:`ForagersUsageError` when there is none."""
    if topic is None or not topic.strip():
        raise ForagersUsageError(f"best_first needs a topic: {TOPIC_USAGE}")
    if not topic.startswith("@"):
        return topic
    path = Path(topic[1:])
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ForagersUsageError(f"topic file {str(path)!r} cannot be read ({exc}); "
                                 f"{TOPIC_USAGE}") from None
    if not text.strip():
        raise ForagersUsageError(f"topic file {str(path)!r} is empty; {TOPIC_USAGE}")
    return text


class BestFirstSpider(BaselineSpider):
    """Best-first topical crawl: the frontier's best link next (Menczer, Pant & Srinivasan).

    F. Menczer, G. Pant and P. Srinivasan, "Topical web crawlers: evaluating adaptive
    algorithms", *ACM TOIT* 4(4), 2004: the Best-First crawler keeps one frontier of unvisited
    URLs, ordered by an estimate of their relevance to the topic, and fetches the best next.
    The estimate here is the tf·idf cosine (:class:`~newsforagers.text.topic.Topic`) of the
    link's context — its anchor text and ten words on each side, Pant & Srinivasan's
    (:func:`~newsforagers.pages.links.link_contexts`) — on the page that linked it; a URL
    linked from several pages keeps its best score. The home page is fetched first.

    The frontier lives in the spider (:class:`Frontier`, ``frontier`` URLs at most, the lowest
    dropped and counted), which hands Scrapy a request only when one of its
    ``CONCURRENT_REQUESTS`` slots is free (set from ``rate`` as for every baseline): the
    choice of the next URL is made as late as possible, over every link found so far, and
    Scrapy's scheduler never holds a queue whose order could go stale.

    Each page read is observed for online idf before it is scored, unless ``corpus`` (a
    newsforagers corpus file) gives idf from its articles' texts. Items carry ``relevance``:
    the page's own (title and text) relevance to the topic.
    """

    name = "best_first"

    def __init__(self, start: str | None = None, topic: str | None = None,
                 frontier: str | int = DEFAULT_FRONTIER, corpus: str | None = None,
                 *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        text = read_topic(topic)
        # Imported here: Topic brings scikit-learn, and Scrapy imports this module for every
        # crawl of this project (SPIDER_MODULES), the forager's and the other baselines' too.
        from newsforagers.text.topic import Topic

        try:
            size = _positive(frontier, "frontier", integer=True)
            texts = None
            if corpus:
                texts = [article.text for article in load_corpus(corpus)]
            self.topic = Topic(text, corpus=texts)
        except ValueError as exc:
            raise ForagersUsageError(str(exc)) from None
        self.frontier = Frontier(size)
        self.in_flight = 0  # requests handed to Scrapy and not yet answered
        self.slots = 2  # CONCURRENT_REQUESTS, read by from_crawler

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        # set by BaselineSpider.from_crawler from the rate: so many requests in flight at most
        spider.slots = max(1, crawler.settings.getint("CONCURRENT_REQUESTS"))
        return spider

    async def start(self):
        self.crawler.stats.set_value("baselines/best_first/idf", self.topic.idf_source)
        self.frontier.visit(self.home)
        self.in_flight += 1
        yield self.request(self.home, self.parse_page, errback=self.failed, dont_filter=True)

    def next_requests(self):
        """Requests for the frontier's best URLs, as many as there are free slots."""
        while self.in_flight < self.slots and len(self.frontier):
            url, _ = self.frontier.pop()
            self.in_flight += 1
            # dont_filter: the frontier requests each URL once; Scrapy's duplicate filter
            # would drop a request without a callback, and its slot with it.
            yield self.request(url, self.parse_page, errback=self.failed, dont_filter=True)
        self.crawler.stats.set_value("baselines/best_first/frontier", len(self.frontier))
        self.crawler.stats.set_value("baselines/best_first/dropped", self.frontier.dropped)

    def parse_page(self, response):
        self.in_flight = max(0, self.in_flight - 1)
        self.frontier.visit(response.url)  # a redirect's target, too
        now = self.site_now(response)
        page = self.read(response, now)
        if page is not None:
            own = f"{page.title}\n{page.text}"
            self.topic.observe(own)
            item = self.output(response, page, now)
            if item is not None:
                item["relevance"] = self.topic.relevance(own)
                yield item
            self.add_links(response, page)
        yield from self.next_requests()

    def add_links(self, response, page: Page) -> None:
        """Push the page's unvisited links on the site, scored by their contexts."""
        root = response.selector.root  # the tree read_response read the page from
        contexts = link_contexts(base_url(response.url, root), root,
                                 max_links=defaults.FORAGERS_MAX_LINKS)
        for link in self.links(page):
            if link not in self.frontier.visited:
                self.frontier.push(link, self.topic.relevance(contexts.get(link, "")))

    def failed(self, failure):
        self.in_flight = max(0, self.in_flight - 1)
        self.count_failure(failure)
        yield from self.next_requests()

    def on_idle(self) -> bool:
        # Idle: nothing in flight (a request dropped on the way, without an errback, freed
        # its slot here); the frontier feeds the free slots.
        self.in_flight = 0
        for request in self.next_requests():
            self.schedule(request)
        return True


def _regex(pattern: str, name: str) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{name} ({pattern!r}) is not a regular expression: {exc}") from None


def _path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


BASELINES = ("bfs", "hubs", "adaptive", "feeds", "random", "oracle", "best_first")

__all__ = [
    "BASELINES", "AdaptiveSpider", "BaselineSpider", "BestFirstSpider", "BfsSpider", "FeedsSpider",
    "Frontier", "Hub", "HubsSpider", "OracleSpider", "RandomSpider", "SiteClock", "load_truth",
    "read_topic", "site_time",
]
