"""What every baseline crawler shares: the request budget, the site's clock, reading a page,
the output, the truth file of the oracle, and the arguments' checks."""

from __future__ import annotations

import json
import logging
import math
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from w3lib.url import safe_url_string

from newsforagers.clock import SiteClock, site_time
from newsforagers.config import ForagersConfig
from newsforagers.errors import report_usage_errors_in_one_line
from newsforagers.pages import NotHTML, Page, is_candidate, read_response

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


def load_truth(path: str | Path, *, full: bool = False) -> tuple[list[tuple[str, datetime]], int]:
    """``(path, published)`` of each record of a truth file (``newsforagers replay --truth``),
    in publication order, and the number of lines that were not a usable record. With
    ``full``, a record's absolute ``url`` (a many-site replay's truth names each story's site
    by it) stands for its path when it has one."""
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
            url = record.get("url") if full else None
            if isinstance(url, str) and urlsplit(url).scheme in ("http", "https"):
                article_path = url
            records.append((article_path, published.astimezone(UTC)))
    records.sort(key=lambda record: record[1])
    return records, bad


#: How to give a baseline its start pages, appended to every error about them.
START_USAGE = "-a start=URL[,URL...] or -a start=@FILE (one URL a line)"


def parse_starts(start: str | None, name: str) -> list[str]:
    """The start pages of ``-a start``: one URL, several separated by commas, or ``@FILE`` with
    one URL a line (blank lines and ``#`` comments skipped), as a forager's ``-a seeds``; each
    an absolute http(s) URL, each once, in order. ValueError says what is wrong."""
    if not start or not start.strip():
        raise ValueError(f"{name} needs a start page: {START_USAGE}")
    where = ""
    if start.startswith("@"):
        path = Path(start[1:])
        where = f" in start file {str(path)!r}"
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"{name}: start file {str(path)!r} cannot be read ({exc}); "
                             f"{START_USAGE}") from None
        urls = [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
    else:
        urls = [part.strip() for part in start.split(",") if part.strip()]
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"start ({url!r}){where} must be an absolute http(s) URL; {START_USAGE}")
    if not urls:
        raise ValueError(f"{name} needs a start page: {start!r} has none; {START_USAGE}")
    return list(dict.fromkeys(urls))


def site_of(url: str) -> tuple[str, str]:
    """The site of a URL as a baseline keeps to it: its scheme and ``host:port``."""
    parts = urlsplit(url)
    return parts.scheme, parts.netloc.lower()


def _home(url: str) -> str:
    parts = urlsplit(url)
    return safe_url_string(urlunsplit(parts._replace(path=parts.path or "/", fragment="")))


def positive(value: Any, name: str, *, integer: bool = False, allow_zero: bool = False) -> Any:
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
        starts = parse_starts(start, self.name)
        self.start_url = starts[0]
        # the start pages, as links to them are spelled (safe_url_string, no fragment, a path):
        # one a site (a many-site replay: every site's home page)
        self.homes = list(dict.fromkeys(_home(url) for url in starts))
        self.home = self.homes[0]
        # the sites the crawl stays on, (scheme, host:port) each; the first start page's first
        self.origins = tuple(dict.fromkeys(site_of(url) for url in self.homes))
        self.origin = self.origins[0]
        self.allowed_domains = sorted({urlsplit(url).hostname for url in starts})
        self.rate = None if rate in (None, "") else positive(rate, "rate", allow_zero=True)
        self.clock = SiteClock(1.0 if speed in (None, "") else positive(speed, "speed"))
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
        # The settings are not frozen yet: the budget becomes Scrapy's download delay, which
        # holds per download slot, and a slot is a host name (Downloader.get_slot_key): each
        # site of a many-site replay (its own loopback address) gets the whole budget, as the
        # colony's FORAGERS_HOST_RATE gives each host.
        rate = spider.rate
        if rate is None:
            rate = config.host_rate
        spider.rate = rate
        if rate and rate > 0:
            delay = max(crawler.settings.getfloat("DOWNLOAD_DELAY"), RATE_MARGIN / rate)
            crawler.settings.set("DOWNLOAD_DELAY", delay, priority="cmdline")
            crawler.settings.set("DOWNLOAD_DELAY_JITTER", 0.0, priority="cmdline")
            # the downloader's queue is shared by every host: room for each site's share
            crawler.settings.set("CONCURRENT_REQUESTS",
                                 max(2, math.ceil(rate * QUEUE_SECONDS)) * len(spider.origins),
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
        """Whether ``url`` is on one of the start pages' sites (scheme, host and port)."""
        return site_of(url) in self.origins

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



def compiled(pattern: str, name: str) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"{name} ({pattern!r}) is not a regular expression: {exc}") from None


def path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
