"""``hubs`` and ``adaptive``: polling the home page and the section fronts it links (on several
sites, each site's own, each site polled on its own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import scrapy
from scrapy.exceptions import IgnoreRequest

from newsforagers.evaluation.baselines.common import (
    BACKLOG_PRIORITY,
    DEFAULT_HUB_PATTERN,
    DEFAULT_SKIP_PATTERN,
    FAILURE_PAUSE,
    FAILURES_BEFORE_PAUSE,
    LINK_PRIORITY,
    POLL_PRIORITY,
    BaselineSpider,
    compiled,
    path_and_query,
    positive,
    site_of,
)
from newsforagers.learning.revisit import AdaptiveInterval

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

    @property
    def site(self) -> tuple[str, str]:
        return site_of(self.url)


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

    With several start pages (several sites), each site's home page and fronts are its hubs,
    and each site is polled on its own: one poll in flight per site, its own timer and its own
    failures, so that one site's budget (Scrapy's download delay holds per host) never waits
    for another's poll.
    """

    name = "hubs"

    def __init__(self, start: str | None = None, hub_pattern: str | None = None,
                 skip_pattern: str | None = None, interval: str | float = 0.0, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        # simulated seconds between two polls of one hub at least (0: as the budget allows);
        # the cost knob of newsforagers bench --sweep
        self.interval = positive(interval, "interval", allow_zero=True)
        self.hub_pattern = compiled(hub_pattern or DEFAULT_HUB_PATTERN, "hub_pattern")
        if skip_pattern is None:
            skip_pattern = DEFAULT_SKIP_PATTERN
        self.skip_pattern = compiled(skip_pattern, "skip_pattern") if skip_pattern else None
        self.hubs: dict[str, Hub] = {}
        self.seen: set[str] = set()  # non-hub links requested once
        # each site's poll in flight, failed polls in a row and timer (a site: scheme, host:port)
        self.polling: set[tuple[str, str]] = set()
        self.failures: dict[tuple[str, str], int] = {}
        self._timers: dict[tuple[str, str], Any] = {}
        for home in self.homes:
            self.add_hub(home)

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
        return bool(self.hub_pattern.search(path_and_query(url)))

    def is_skipped(self, url: str) -> bool:
        return self.skip_pattern is not None and bool(self.skip_pattern.search(path_and_query(url)))

    async def start(self):
        for request in self.next_polls():
            yield request

    # -- choosing ---------------------------------------------------------------------------

    def site_hubs(self, site: tuple[str, str]) -> list[Hub]:
        return [hub for hub in self.hubs.values() if hub.site == site]

    def choose(self, now: float, site: tuple[str, str] | None = None) -> tuple[Hub | None, float]:
        """The hub of ``site`` (default: the first start page's) to poll next and how many
        simulated seconds until it is due (0: now)."""
        # round robin: the hub polled longest ago (never polled first, in discovery order)
        hub = min(self.site_hubs(site or self.origin),
                  key=lambda h: -1e300 if h.last_poll is None else h.last_poll, default=None)
        if hub is None or hub.last_poll is None or not self.interval:
            return hub, 0.0
        return hub, max(0.0, hub.last_poll + self.interval - now)

    def next_polls(self) -> list[scrapy.Request]:
        """:meth:`next_poll` of every site."""
        return [request for site in self.origins if (request := self.next_poll(site)) is not None]

    def next_poll(self, site: tuple[str, str] | None = None) -> scrapy.Request | None:
        """The next poll's request of ``site`` (default: the first start page's) if one of its
        hubs is due now; else a timer wakes it when one is."""
        site = site or self.origin
        if site in self.polling or site in self._timers:
            return None
        now = self.clock.now()
        hub, wait = self.choose(now, site)
        if hub is None:
            return None
        if wait > 0:
            self._timers[site] = self.call_later(wait / self.clock.speed, self._wake, site)
            return None
        self.polling.add(site)
        return self.request(hub.url, self.parse_hub, errback=self.hub_failed, dont_filter=True,
                            priority=POLL_PRIORITY, meta={"hub": hub.url})

    def _wake(self, site: tuple[str, str]) -> None:
        self._timers.pop(site, None)
        request = self.next_poll(site)
        if request is not None:
            self.schedule(request)

    def after_poll(self, hub: Hub, now: float, changed: bool) -> None:
        """Book-keeping of a poll (adaptive: the interval)."""
        hub.last_poll = now
        hub.polls += 1
        hub.changes += changed

    # -- callbacks --------------------------------------------------------------------------

    def parse_hub(self, response):
        hub = self.hubs[response.meta["hub"]]
        self.polling.discard(hub.site)
        self.failures[hub.site] = 0
        now = self.site_now(response)
        self.crawler.stats.inc_value("baselines/polls")
        page = self.read(response, now)
        new: list[str] = []
        if page is not None:
            item = self.output(response, page, now)
            if item is not None:
                yield item
            links = self.links(page)
            if hub.url in self.homes:
                for link in links:
                    if self.is_hub(link):
                        self.add_hub(link)
            new = [link for link in links if link not in self.seen and link not in self.hubs
                   and not self.is_skipped(link)]
        priority = LINK_PRIORITY if hub.polls else BACKLOG_PRIORITY
        self.after_poll(hub, now.timestamp(), bool(new))
        yield from self.fetch_then_poll(new, priority, hub.site)

    def fetch_then_poll(self, new: list[str], priority: int, site: tuple[str, str] | None = None):
        """The requests of a poll's new links (each once), then the next poll of ``site`` if
        one is due."""
        for link in new:
            self.seen.add(link)
            yield self.request(link, self.parse_page, errback=self.count_failure, priority=priority)
        request = self.next_poll(site)
        if request is not None:
            yield request

    def hub_failed(self, failure):
        url = failure.request.meta["hub"]
        site = site_of(url)
        self.polling.discard(site)
        self.failures[site] = self.failures.get(site, 0) + 1
        self.count_failure(failure)
        if failure.check(IgnoreRequest) and url not in self.homes:
            self.hubs.pop(url, None)  # robots.txt forbids it: not a hub for us
        elif url in self.hubs:
            self.after_poll(self.hubs[url], self.clock.now(), False)
        if self.failures[site] < FAILURES_BEFORE_PAUSE:
            request = self.next_poll(site)
            if request is not None:
                yield request
        elif site not in self._timers:
            # a failing site is not hammered: after a few failures in a row, its polls pause
            self._timers[site] = self.call_later(FAILURE_PAUSE, self._wake, site)

    def parse_page(self, response):
        now = self.site_now(response)
        item = self.output(response, self.read(response, now), now)
        if item is not None:
            yield item

    def on_idle(self) -> bool:
        # Idle means nothing is in flight: a poll still marked as such was lost on the way
        # (dropped by a middleware without an errback); polling resumes.
        self.polling.clear()
        for request in self.next_polls():
            self.schedule(request)
        return True

    def on_close(self) -> None:
        for timer in self._timers.values():
            if timer.active():
                timer.cancel()
        self._timers.clear()


class AdaptiveSpider(HubsSpider):
    """Hub polling with a revisit interval per hub, as feed crawlers keep one per feed.

    A hub's interval (simulated seconds) starts at ``initial_interval``; after each poll it
    is halved when the hub showed a link not seen before and multiplied by 1.5 when it did
    not, within ``[min_interval, max_interval]``. The next poll goes to the most overdue hub
    (largest time since its last poll / its interval; a new hub first); when no hub is due
    the spider waits, on the site's clock (``speed``), until one is.
    """

    name = "adaptive"

    def __init__(self, start: str | None = None, initial_interval: str | float | None = None,
                 min_interval: str | float | None = None, max_interval: str | float | None = None,
                 shrink: str | float | None = None, grow: str | float | None = None, *args, **kwargs):
        rule = AdaptiveInterval()  # its defaults, where an argument is not given
        given = {name: rule_default if value in (None, "") else positive(value, argument)
                 for name, argument, value, rule_default in (
                     ("initial", "initial_interval", initial_interval, rule.initial),
                     ("minimum", "min_interval", min_interval, rule.minimum),
                     ("maximum", "max_interval", max_interval, rule.maximum),
                     ("shrink", "shrink", shrink, rule.shrink), ("grow", "grow", grow, rule.grow))}
        if not given["minimum"] <= given["initial"] <= given["maximum"]:
            raise ValueError("min_interval <= initial_interval <= max_interval must hold")
        if not given["shrink"] <= 1 <= given["grow"]:
            raise ValueError("shrink <= 1 <= grow must hold")
        self.rule = AdaptiveInterval(**given)
        super().__init__(start, *args, **kwargs)

    def initial_interval(self) -> float:
        return self.rule.initial

    def choose(self, now: float, site: tuple[str, str] | None = None) -> tuple[Hub | None, float]:
        hubs = self.site_hubs(site or self.origin)
        best, best_ratio = None, float("-inf")
        for hub in hubs:
            ratio = self.rule.overdue(now, hub.last_poll, hub.interval)
            if ratio > best_ratio:
                best, best_ratio = hub, ratio
        if best is None:
            return None, 0.0
        if best_ratio >= 1:
            return best, 0.0
        return best, min(h.due() for h in hubs) - now

    def after_poll(self, hub: Hub, now: float, changed: bool) -> None:
        # the first poll shows everything as new: it says nothing of the rate
        hub.interval = self.rule.after_poll(hub.interval, changed, first=not hub.polls)
        super().after_poll(hub, now, changed)
