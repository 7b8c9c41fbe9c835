"""``feeds``: adaptive polling of a site's feeds and sitemaps (the news-crawl way)."""

from __future__ import annotations

import logging

import scrapy

from newsforagers.evaluation.baselines.common import (
    BACKLOG_PRIORITY,
    FAILURES_BEFORE_PAUSE,
    LINK_PRIORITY,
    POLL_PRIORITY,
    site_of,
)
from newsforagers.evaluation.baselines.hubs import AdaptiveSpider
from newsforagers.pages import NotAFeed
from newsforagers.pages.feeds import read_feed, robots_sitemaps

logger = logging.getLogger(__name__)

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
    dates beyond the novelty window (too old to be news). With several start pages (several
    sites), each site's robots.txt and home page are read, and each site's feeds polled on
    their own (:class:`~newsforagers.evaluation.baselines.hubs.HubsSpider`).
    """

    name = "feeds"

    def __init__(self, start: str | None = None, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        self.hubs.clear()  # the home page is read once for the feeds it announces, not polled
        self.found_feeds: set[str] = set()  # every feed and sitemap ever made a hub
        self.scanned: set[str] = set()  # the home page and the fronts read for their feeds

    async def start(self):
        for scheme, netloc in self.origins:
            yield self.request(f"{scheme}://{netloc}/robots.txt", self.parse_robots,
                               errback=self.count_failure, priority=POLL_PRIORITY)
        for home in self.homes:
            self.scanned.add(home)
            yield self.request(home, self.parse_home, errback=self.count_failure,
                               priority=POLL_PRIORITY)

    # -- finding feeds ------------------------------------------------------------------------

    def add_feeds(self, urls) -> set[tuple[str, str]]:
        """Make the feeds and sitemaps ``urls`` (those on the sites never seen before) hubs;
        the sites that gained one."""
        added = set()
        for url in urls:
            if self.on_site(url) and url not in self.found_feeds:
                self.found_feeds.add(url)
                self.add_hub(url)
                added.add(site_of(url))
        return added

    def discovered(self, urls) -> list[scrapy.Request]:
        """:meth:`add_feeds`, and the poll of each site that gained a hub (due at once) unless
        one is in flight there."""
        requests = []
        for site in sorted(self.add_feeds(urls)):
            timer = self._timers.get(site)
            if timer is not None and self.failures.get(site, 0) < FAILURES_BEFORE_PAUSE:
                # waiting for a known hub to be due; a new one is due now (a failure pause stands)
                if timer.active():
                    timer.cancel()
                del self._timers[site]
            request = self.next_poll(site)
            if request is not None:
                requests.append(request)
        return requests

    def parse_robots(self, response):
        self.site_now(response)
        # Scrapy's reader of Sitemap: lines (sitemap_urls_from_robots), as the pages read them
        yield from self.discovered(robots_sitemaps(response.url, response.body))

    def parse_home(self, response):
        now = self.site_now(response)
        page = self.read(response, now)
        if page is None:
            return
        yield from self.discovered(page.feeds)
        for link in self.links(page):
            if self.is_hub(link) and link not in self.scanned:
                self.scanned.add(link)
                yield self.request(link, self.parse_front, errback=self.count_failure,
                                   priority=POLL_PRIORITY)

    def parse_front(self, response):
        page = self.read(response, self.site_now(response))
        if page is not None:
            yield from self.discovered(page.feeds)

    # -- polling ------------------------------------------------------------------------------

    def parse_hub(self, response):
        site = site_of(response.meta["hub"])
        self.polling.discard(site)
        self.failures[site] = 0
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
            changed = bool(self.add_feeds(feed for feed in page.feeds if feed not in stale))
            new = [link for link in page.links if self.on_site(link) and link not in self.seen
                   and link not in stale and link not in self.found_feeds
                   and not self.is_skipped(link)]
            changed = changed or bool(new)
        priority = LINK_PRIORITY if hub is not None and hub.polls else BACKLOG_PRIORITY
        if hub is not None:
            self.after_poll(hub, now.timestamp(), changed)
        yield from self.fetch_then_poll(new, priority, site)

    def parse_page(self, response):
        page, item = self.page_and_item(response)
        if item is not None:
            yield item
        # an article announces its section's feed too (a feed crawler learns feeds as it goes)
        if page is not None:
            yield from self.discovered(page.feeds)
