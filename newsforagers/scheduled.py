"""The ``scheduled`` forager's mind (``FORAGERS_STRATEGY=scheduled``, issue 7).

Beside the papers' forager (:mod:`newsforagers.forager`, kept exact), the same product parts
used differently (DESIGN.md, "Where the papers fall short"):

- **Harvest.** Every downloaded page is read as an article (it has a publication date) or a
  listing. The links of a listing that the colony has never fetched, except items the listing
  itself dates beyond the novelty window (``Page.listed``), are queued at once, first
  in line: news (dated since the forager began) the oldest first, then the backlog ordered by
  the TD value ``w·s`` of what is known about them (the state of the page itself when the
  colony has read it, else of the listing that shows it); the colony-wide check is the
  ``claim`` callable (the colony store's per-URL records), or ``claim_many`` for all of a
  listing's links at once (one store transaction per page, issue 15). An article, once
  fetched, is never fetched again.
- **The weblog as a scheduler.** :class:`~newsforagers.learning.schedule.HubSchedule` says which
  listing is due; the reinforcing agent's rewards for documents found through a listing's
  visit are credited to that listing. A listing met while harvesting is added to the schedule
  (with the optimistic prior when it was reached from a seed or a listing that has paid, else
  with its parent's rate), and is read at once when everything its parent showed was new (the
  next page of a front whose whole first page is new) or its parent is a seed at its first
  visit (the site's map).
- **Spending the budget.** With ``poll_rate`` (set by the driver from the host budget) the
  schedule's threshold drops until the listing visits use that rate
  (:meth:`~newsforagers.learning.schedule.HubSchedule.budget_threshold`).
- **Exploration.** At most ``FORAGERS_EXPLORE_SHARE`` of the requests walk short paths (at
  most ``FORAGERS_EXPLORE_STEPS`` steps, ending after ``FORAGERS_EXPLORE_PATIENCE`` fruitless
  ones) from a weblog entry along the highest ``w·s``, with a TD(0) step (Alg. 4) on every step
  (profit: the reward of a fresh article not sent before, minus the send cost, plus one per
  listing the step added to the schedule); their job is to find listings the weblog lacks.
- **Feeds and sitemaps** (``FORAGERS_FEEDS``) are listings like any other: the spider reads one
  as a listing whose every entry is dated, and hands over the feeds a site announces
  (:meth:`ScheduledForager.add_feeds`), which join the schedule with the optimistic prior.
- **Conditional revisits.** A listing unchanged since the colony's last copy answers a revisit
  ``304 Not Modified`` (``FORAGERS_CONDITIONAL``; the spider asks with the URL's validators):
  :meth:`ScheduledForager.on_not_modified` counts it a visit that showed no new link.
- **Rhythms** (``FORAGERS_SCHEDULE_RHYTHM``). The dates of listed items and fetched articles,
  each story once, feed the schedule's hour-of-week publication profile
  (:class:`~newsforagers.learning.rhythm.RhythmProfile`): rates become levels × p(t).
- **Idle when nothing is due.** :meth:`ScheduledForager.next_fetch` returns None and
  :attr:`ScheduledForager.wait` says for how many simulated seconds.

Never imports Scrapy: URLs, texts, dates and simulated times (POSIX seconds of the site's
clock) in; URLs and numbers out.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
from collections import OrderedDict, deque
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

import numpy as np

from newsforagers.config import ForagersConfig
from newsforagers.forager import Encoder, ForagerCounters, select_send
from newsforagers.learning import td_step
from newsforagers.learning.schedule import Entry, HubSchedule, shape
from newsforagers.pages import SentMemory, is_candidate

logger = logging.getLogger(__name__)

KINDS = ("listing", "harvest", "candidate", "explore")
_PAGE_LINKS = 2_000  # pages whose links are remembered as starting points of exploration
_BACKLOG = 3  # the harvest queue's last tier, stories dated before the forager began: see _push
# A story of the backlog older than this (simulated seconds) waits while a listing is due.
_BACKLOG_AGE = 3 * 3600.0
# The site's stories per hour (_story_rate): those published in the last this many simulated
# seconds, as the forager met them (at most _STORY_DATES remembered).
_STORY_SPAN = 6 * 3600.0
#: A news request's priority (:class:`Fetch`): above every other request of the colony's.
NEWS_PRIORITY = 1
_STORY_DATES = 20_000
HOUR_SECONDS = 3600.0
# feeds and sitemaps added from one announcement at most (a sitemap index may list thousands;
# the rest wait for its next visit)
_FEEDS_PER_PAGE = 20


@dataclass(frozen=True)
class Fetch:
    """One request of the scheduled forager: what to download, why, and the listing visit it
    came through (``visit``; 0: none) so that rewards can be credited to that listing.
    ``priority``: 1 for news (a story dated since the forager began, a teleport, a request
    resumed in flight), 0 otherwise; the spider puts it in the request's meta
    (``forager_budget_priority``, not Scrapy's ``Request.priority``, which redirects raise), by
    which the colony's host budget lets news go before the listing visits of other foragers."""

    url: str
    kind: str
    visit: int = 0
    priority: int = field(default=0, compare=False)


@dataclass
class ScheduledCounters(ForagerCounters):
    listings: int = 0  # scheduled listing visits made
    harvested: int = 0  # pages fetched from the harvest queue
    explored: int = 0  # exploration steps
    listings_found: int = 0  # listings added to the schedule after the seeds
    idle: int = 0  # times nothing was due
    old_listed: int = 0  # listed items dated beyond the novelty window: never fetched
    given_up: int = 0  # listings never read that failed FORAGERS_START_FAILURES times in a row
    successors: int = 0  # listings that took another's place on a listing (see _read_listing)
    deferred: int = 0  # listing visits made before the backlog waiting in the harvest queue
    feeds_added: int = 0  # feeds and sitemaps the site announced, added to the schedule (add_feeds)
    old_feeds: int = 0  # announced sitemaps last updated beyond the novelty window: not added
    off_topic: int = 0  # novel documents below the topic's relevance threshold: not credited


class _Recent:
    """A bounded set: the oldest members are forgotten first."""

    def __init__(self, size: int):
        self.size = max(1, size)
        self._items: OrderedDict[str, None] = OrderedDict()

    def add(self, key: str) -> None:
        self._items[key] = None
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __contains__(self, key: str) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)


class ScheduledForager:
    """One scheduled forager (see the module docstring). ``rng`` drives every random choice."""

    strategy = "scheduled"

    def __init__(self, name: str, config: ForagersConfig, schedule: HubSchedule, weights: np.ndarray,
                 rng: np.random.Generator, mode: str = "wlrl", encoder: Encoder | None = None,
                 claim: Callable[[str], bool] | None = None, seeds: Iterable[str] = (),
                 bootstrap: Callable[[list[str]], Encoder] | None = None, memory_size: int = 100_000,
                 claim_many: Callable[[list[str]], Iterable[str]] | None = None):
        self.name = name
        self.config = config
        self.schedule = schedule
        self.weights = np.asarray(weights, dtype=np.float64)
        self.rng = rng
        self.mode = mode
        self.encoder = encoder
        self.claim = claim if claim is not None else (lambda url: True)
        # the URLs of a list that this call claimed (a store's claim_urls); None: claim them
        # one by one
        self.claim_many = claim_many
        self.seeds = set(seeds)
        self.sent = SentMemory(config.sent_memory_size)
        self.counters = ScheduledCounters()
        self.retired = False
        self.wait = 0.0  # simulated seconds until something is due, after next_fetch() gave None
        # listing visits per simulated hour the host budget leaves this forager (None: unknown,
        # the configured threshold alone says when a listing is due); the driver sets it
        self.poll_rate: float | None = None
        # the weblog entry another forager of the colony holds for a URL (None: none does);
        # the driver sets it
        self.colony_entry: Callable[[str], Entry | None] = lambda url: None
        self.in_flight = 0
        # heap of (tier, key, order, fetch, value, published): see _push
        self._harvest: list[tuple[int, float, int, Fetch, float, float | None]] = []
        # (published, url) of the dated backlog in the harvest queue, the oldest first: when it
        # must go (_backlog_urgent)
        self._backlog_dates: list[tuple[float, str]] = []
        self._began: float | None = None  # simulated time of the first next_fetch()
        # harvest and exploration requests not answered yet: a checkpoint puts them back in
        # the harvest queue (the colony store says they were queued: nobody else fetches them)
        self._flying: dict[str, Fetch] = {}
        self._order = itertools.count()
        self._articles = _Recent(memory_size)  # fetched articles: never fetched again
        self._seen = _Recent(memory_size)  # URLs this forager queued or fetched
        self._dated = _Recent(memory_size)  # stories met (a listing dated them, or fetched)
        # publication times of the stories met, as met: the site's stories per hour
        self._story_dates: deque[float] = deque(maxlen=_STORY_DATES)
        self._story_rate: tuple[float, float] | None = None  # (computed at, stories per hour)
        self._fetched = _Recent(memory_size)  # URLs requested outside listing visits
        self._states: OrderedDict[str, np.ndarray] = OrderedDict()  # states of read pages
        self._state_cache_size = max(1, config.state_cache_size)
        self._visits: OrderedDict[int, tuple[str, bool]] = OrderedDict()  # visit -> (listing, all new)
        self._visit_ids = itertools.count(1)
        self._explore: list[str] = []  # the exploration path's steps
        self._explore_next: Fetch | None = None  # its next step, made when exploration is due
        self._page_links: OrderedDict[str, tuple[str, ...]] = OrderedDict()  # links of recent pages
        self._candidates: OrderedDict[str, int] = OrderedDict()  # listings to try -> visit that showed them
        # listing -> the navigation links it showed at its last visit (see _read_listing)
        self._navigation: OrderedDict[str, frozenset[str]] = OrderedDict()
        # listing -> the dates of its items at its last read (a 304 shows them again)
        self._listed: OrderedDict[str, tuple[datetime, ...]] = OrderedDict()
        self._explore_previous: np.ndarray | None = None
        self._fruitless = 0
        self._texts: list[str] = []  # texts for the encoder's bootstrap
        self.fit_request: list[str] | None = None
        self._fitting = False
        self.bootstrap_pages = config.bootstrap_pages
        self._bootstrap = bootstrap
        for url in schedule.urls():
            self._seen.add(url)

    # -- what the product's other parts ask of a forager ----------------------------------

    @property
    def weblog(self) -> HubSchedule:
        """The weblog, run as a scheduler (the population extension splits it, Alg. 6)."""
        return self.schedule

    @property
    def done(self) -> bool:
        return self.retired or (len(self.schedule) == 0 and not self._harvest and self.in_flight == 0)

    @property
    def busy(self) -> bool:
        return False  # no step barrier: every request stands alone

    def teleport(self, url: str) -> None:
        """Energy policy: visit ``url`` next (as a new listing if the weblog lacks it)."""
        self.schedule.add(url)
        self._push(Fetch(url, "harvest"), math.inf)

    # -- the scheduler's side ---------------------------------------------------------------

    def next_fetch(self, now: float) -> Fetch | None:
        """The next request at simulated time ``now``, or None (``wait`` says until when)."""
        if self.done:
            return None
        if self._began is None:
            self._began = now
        while self._harvest:
            tier, fetch, published = self._harvest[0][0], self._harvest[0][3], self._harvest[0][5]
            if self._done_with(fetch.url):
                heapq.heappop(self._harvest)
                continue  # an article (or a page in flight) is never fetched twice
            if tier == _BACKLOG and now - published > _BACKLOG_AGE and not self._backlog_urgent(now):
                # a story of the backlog hours old waits while a listing is due: what a visit
                # shows now is news
                url, _ = self.schedule.next_due(now, self._visit_budget(now), self._scarce_rate(now), self._visit_yield())
                if url is not None:
                    self.counters.deferred += 1
                    return self._visit(url, now)
            heapq.heappop(self._harvest)
            return self._begin(fetch)
        if self._explore_due():
            fetch = self._try_candidate()
            if fetch is None:
                fetch, self._explore_next = self._explore_next, None
                if fetch is None or fetch.url in self._articles:
                    fetch = self._explore_step(now)
            if fetch is not None:
                return self._begin(fetch)
        url, wait = self.schedule.next_due(now, self._visit_budget(now), self._scarce_rate(now), self._visit_yield())
        if url is None:
            self.wait = wait
            self.counters.idle += 1
            return None
        return self._visit(url, now)

    def _done_with(self, url: str) -> bool:
        return url in self._articles or (url in self._fetched and url not in self.schedule)

    def _backlog_urgent(self, now: float) -> bool:
        """Whether the backlog must go now to be fetched in time: its oldest dated story would
        leave the novelty window before the backlog, fetched at the budget's pace
        (``poll_rate`` over ``FORAGERS_SCHEDULE_POLL_SHARE`` requests an hour), is done —
        twice over, for the visits in between. Without a known budget it never is: a forager
        without one is not short of requests."""
        while self._backlog_dates and self._done_with(self._backlog_dates[0][1]):
            heapq.heappop(self._backlog_dates)
        share = self.config.schedule_poll_share
        if not self._backlog_dates or self.poll_rate is None or share <= 0:
            return False
        spacing = HOUR_SECONDS * share / self.poll_rate  # simulated seconds per request
        pending = sum(1 for entry in self._harvest if entry[0] == _BACKLOG)
        deadline = self._backlog_dates[0][0] + self.config.novelty_window
        return now + 2.0 * pending * spacing >= deadline

    def _visit(self, url: str, now: float) -> Fetch:
        """Begin a visit of the listing ``url`` (the schedule said it is due)."""
        self.schedule.begin(url, now)
        visit = next(self._visit_ids)
        self._visits[visit] = (url, False)
        while len(self._visits) > 10_000:
            self._visits.popitem(last=False)
        self.counters.listings += 1
        return self._begin(Fetch(url, "listing", visit))

    def _begin(self, fetch: Fetch) -> Fetch:
        self.in_flight += 1
        if fetch.kind != "listing":
            self._flying[fetch.url] = fetch
        self._seen.add(fetch.url)
        if fetch.kind != "listing":
            self._fetched.add(fetch.url)
        return fetch

    def _explore_due(self) -> bool:
        share = self.config.explore_share
        made = self.counters.listings + self.counters.harvested + self.counters.explored
        return share > 0 and self.counters.explored < share * (made + 1)

    def _try_candidate(self) -> Fetch | None:
        """A candidate listing's first visit (exploration's share): the newest first."""
        while self._candidates:
            url, visit = self._candidates.popitem(last=True)
            if url in self.schedule or url in self._fetched or url in self._articles:
                continue
            if not self.claim(url):
                continue
            return Fetch(url, "candidate", visit)
        return None

    def _explore_step(self, now: float) -> Fetch | None:
        """The first step of a new exploration path: from a page read recently (drawn at
        random; its links are remembered, so it is not fetched again), the link of highest
        ``w·s`` that is not known yet. Harvest follows what listings list; exploration goes
        where only other pages link (an article's tag and author pages, say)."""
        starts = list(self._page_links)
        for _ in range(min(len(starts), 20)):
            start = starts[int(self.rng.integers(len(starts)))]
            self._explore = [start]
            self._explore_previous, self._fruitless = self._states.get(start), 0
            step = self._choose_step(self._explore_previous, self._page_links[start])
            if step is not None:
                self._explore.append(step)
                return Fetch(step, "explore")
        self._explore = []
        return None

    # -- the spider's side -------------------------------------------------------------------

    def on_page(self, fetch: Fetch, now: float, *, text: str, links: Sequence[str],
                published: datetime | None, listed: Mapping[str, datetime] | None = None) -> None:
        """The page of ``fetch`` arrived: harvest, schedule, explore (see the module docstring)."""
        self.in_flight = max(0, self.in_flight - 1)
        self._flying.pop(fetch.url, None)
        self.counters.downloaded += 1
        if self._began is None or self._began > now:
            self._began = now  # begun before the site's clock was known
        state = self._state(fetch.url, text)
        self._page_links[fetch.url] = tuple(links)
        self._page_links.move_to_end(fetch.url)
        while len(self._page_links) > _PAGE_LINKS:
            self._page_links.popitem(last=False)
        if published is not None:
            self._articles.add(fetch.url)
            self._observe_dates({fetch.url: published}, now)
        if fetch.kind == "listing":
            if published is not None:
                # a dated page is an article, not a listing: it leaves the weblog
                self.schedule.remove(fetch.url)
                return
            self._read_listing(fetch, links, state, now, listed)
            return
        if fetch.kind == "harvest":
            self.counters.harvested += 1
        elif fetch.kind == "candidate":
            self.counters.explored += 1  # a candidate listing's first visit: exploration's share
        source = self._visits.get(fetch.visit)
        added = 0
        if published is None:
            added += self._add_listing(fetch.url, source, now)
            first_visit = fetch.kind == "candidate" or (source is not None and source[1])
            if first_visit and fetch.url in self.schedule:
                # a candidate's first visit, or everything its parent showed was new (the
                # next page): read it at once
                self.schedule.begin(fetch.url, now)
                visit = next(self._visit_ids)
                self._visits[visit] = (fetch.url, False)
                self._read_listing(Fetch(fetch.url, "listing", visit), links, state, now, listed)
        if fetch.kind == "explore":
            self._explored(fetch, now, text, links, published, state, added)

    def add_feeds(self, urls: Sequence[str], now: float,
                  updated: Mapping[str, datetime] | None = None) -> int:
        """Feeds and sitemaps the site announces (a page's ``<link rel="alternate">``, the
        ``Sitemap:`` lines of robots.txt, a sitemap index's sitemaps) join the schedule as
        listings with the optimistic prior: each is read when next due (at once), then polled at
        the rate it shows. A URL this forager met before, or that the colony holds (``claim``),
        is left alone; a sitemap whose ``updated`` time (its index's ``<lastmod>``) lies beyond
        the novelty window holds no news and is not added. At most ``_FEEDS_PER_PAGE`` a call,
        the most recently updated first. Returns how many were added."""
        updated = updated or {}
        oldest = now - self.config.novelty_window
        fresh = []
        for url in dict.fromkeys(urls):
            if url in self._seen or url in self.schedule or url in self._articles:
                continue
            if url in updated and updated[url].timestamp() < oldest:
                self._seen.add(url)
                self.counters.old_feeds += 1
                continue
            fresh.append(url)
        # the most recently updated first, then the undated in their order (the sort is stable)
        fresh.sort(key=lambda url: -updated[url].timestamp() if url in updated else math.inf)
        fresh = fresh[:_FEEDS_PER_PAGE]
        added = sum(self.schedule.add(url) for url in self._claim_all(fresh))
        for url in fresh:
            self._seen.add(url)
        self.counters.feeds_added += added
        return added

    def on_not_modified(self, fetch: Fetch, now: float) -> None:
        """The site answered ``fetch`` (a conditional revisit of a listing) 304 Not Modified at
        simulated time ``now``: the page is the copy the colony read last, so the visit showed
        no new link. A visit, not a failure; nothing is read again (the listed rate comes from
        the dates the listing showed at its last read, at ``now``)."""
        self.in_flight = max(0, self.in_flight - 1)
        self._flying.pop(fetch.url, None)
        if self._began is None or self._began > now:
            self._began = now
        if fetch.kind != "listing":
            return
        listing, _ = self._visits.get(fetch.visit, (fetch.url, False))
        self._visits[fetch.visit] = (listing, False)
        self.schedule.visited(fetch.url, 0, listed_rate(self._listed.get(fetch.url, ()), now, self._hours()),
                              now=now)

    def on_failed(self, fetch: Fetch) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self._flying.pop(fetch.url, None)
        if fetch.kind == "listing":
            entry = self.schedule.entry(fetch.url)
            if entry is not None and entry.rate is None:
                self.counters.start_failures += 1  # a listing never read yet (a seed, say)
            if self.schedule.failed(fetch.url):
                self.counters.given_up += 1
                # the papers' forager's words for a seed; a link that never answered is routine
                level = logging.WARNING if fetch.url in self.seeds else logging.DEBUG
                logger.log(level, "forager %s: start URL %s failed %d times, removed from the weblog",
                           self.name, fetch.url, self.schedule.give_up_after)
        if fetch.kind == "explore":
            self._fruitless += 1
            self._explore = self._explore[:-1] if len(self._explore) > 1 else []

    def requests_lost(self) -> int:
        """Nothing this forager asked for is in flight any more, though some were never
        answered (dropped without an errback): each counts as failed. Returns how many."""
        lost = self.in_flight
        for fetch in list(self._flying.values()):
            self.on_failed(fetch)
        for url in self.schedule.in_flight():
            self.on_failed(Fetch(url, "listing"))
        self.in_flight = 0
        return lost

    def should_send(self, url: str, published: datetime | None, now: datetime) -> bool:
        """Alg. 5: a candidate (≤ 24 h old, not dated ahead) not sent before by this forager."""
        return select_send(self.config, self.sent, self.counters, url, published, now)

    def on_reward(self, visit: int, profit: float, rewarded: bool, on_topic: bool = True) -> None:
        """The reinforcing agent paid (or not) for a document found through listing visit
        ``visit``. In the topical mode a novel document ``on_topic`` is false for (below
        ``FORAGERS_TOPIC_MIN_RELEVANCE``) is counted (``off_topic``), not credited."""
        if not rewarded:
            return
        if not on_topic:
            self.counters.off_topic += 1
            return
        self.counters.rewarded += 1
        source = self._visits.get(visit)
        if source is not None:
            self.schedule.credit(source[0])
        else:
            self.counters.late_rewards += 1

    # -- internals ---------------------------------------------------------------------------

    def _read_listing(self, fetch: Fetch, links: Sequence[str], state: np.ndarray | None,
                      now: float, listed: Mapping[str, datetime] | None) -> None:
        new = [u for u in links if u not in self._seen and u not in self._articles]
        # an item the listing dates beyond the novelty window cannot be novel: not fetched
        oldest = now - self.config.novelty_window
        listed = listed or {}
        self._observe_dates(listed, now, listing=True)
        old = {u for u in new if u in listed and listed[u].timestamp() < oldest}
        for url in old:
            self._seen.add(url)
        self.counters.old_listed += len(old)
        items = [u for u in new if u not in old and (not listed or u in listed)]
        # every dated item new and fresh: the listing's next pages probably hold more
        all_new = bool(listed) and bool(items) and all(
            u in items for u in links if u in listed)
        # A listing that dates its items tells stories from navigation (other listings:
        # pages 2.., sections, authors). Its fresh stories are fetched at once; the other
        # links wait as candidate listings for exploration's share (their first visit), so
        # hundreds of sub-listings do not eat the budget before they have shown any news.
        # Two exceptions are fetched at once: when every dated item is new, its continuations
        # (the same page with another query: page 2; not one section by one author, not the
        # day before: those list what it lists), and a seed's whole navigation at its first
        # visit (the site's map: its fronts and "today" lists, which exploration's share
        # would reach one by one over hours).
        entry = self.schedule.entry(fetch.url)
        mapping = fetch.url in self.seeds and entry is not None and entry.visits == 0
        all_new = all_new or mapping
        navigation = [u for u in new if u not in old and listed and u not in listed]
        # A link that took the place of another of its shape since this listing's last visit
        # (/archive/N/N/N/: today's archive after midnight; a new edition) is the listing the
        # old one was: it takes over the old one's entry in the weblog (its rate: due as the
        # old one would have been; copied from the forager of the colony that holds it), or,
        # when no forager holds the old one, it is read at once, first in line (as a
        # candidate, it would wait behind every newer one).
        replaced = self._replaced(fetch.url, links, listed) if listed else {}
        for url in navigation:
            if mapping or (all_new and continues(fetch.url, url)):
                items.append(url)
            elif shape(url) in replaced and url not in self.schedule:
                self._succeed(replaced[shape(url)], url, fetch.visit)
            else:
                self._candidate(url, fetch.visit)
        value = self._value(state)
        for url in self._claim_all(items):
            self._seen.add(url)
            published = listed[url].timestamp() if url in listed else None
            self._push(Fetch(url, "harvest", fetch.visit), self._value(self._states.get(url), value),
                       published)
        listing, _ = self._visits.get(fetch.visit, (fetch.url, False))
        self._visits[fetch.visit] = (listing, all_new or (not listed and bool(new) and len(new) == len(links)))
        self._listed[fetch.url] = tuple(listed.values())
        self._listed.move_to_end(fetch.url)
        while len(self._listed) > self.schedule.capacity:
            self._listed.popitem(last=False)
        self.schedule.visited(fetch.url, len(new), listed_rate(listed.values(), now, self._hours()), now=now,
                              overflowed=all_new and not mapping and self.config.schedule_scarce_floor > 0)

    def _claim_all(self, urls: list[str]) -> list[str]:
        """The URLs of ``urls`` this forager may queue (claimed now, for the whole colony), in
        their order: one ``claim_many`` call for all of them when there is one."""
        if not urls:
            return []
        if self.claim_many is None:
            return [url for url in urls if self.claim(url)]
        claimed = set(self.claim_many(urls))
        return [url for url in urls if url in claimed]

    def _replaced(self, listing: str, links: Sequence[str],
                  listed: Mapping[str, datetime]) -> dict[str, list[str]]:
        """The navigation links ``listing`` showed at its last visit and shows no more, by
        shape; remembers what it shows now (for as many listings as the schedule holds)."""
        now = frozenset(u for u in links if u not in listed and u not in self._articles)
        before = self._navigation.pop(listing, None)
        self._navigation[listing] = now
        while len(self._navigation) > self.schedule.capacity:
            self._navigation.popitem(last=False)
        gone: dict[str, list[str]] = {}
        for url in sorted(before - now) if before else ():
            gone.setdefault(shape(url), []).append(url)
        return gone

    def _succeed(self, old: list[str], url: str, visit: int) -> None:
        # the old entry, from this forager's weblog or else another forager's (a split gave it away)
        held = [(u, e) for u in old if (e := self.schedule.entry(u) or self.colony_entry(u)) is not None]
        if held:
            best, entry = max(held, key=lambda pair: pair[1].rate or 0.0)
            if not self.schedule.succeed(best, url, entry=entry):
                return  # a family of barren pages, or a full weblog of paying ones
        elif self.claim(url):
            self._push(Fetch(url, "candidate", visit), math.inf)
        else:
            return
        self._seen.add(url)
        self.counters.successors += 1

    def _candidate(self, url: str, visit: int) -> None:
        if url in self.schedule or url in self._candidates:
            return
        self._candidates[url] = visit
        while len(self._candidates) > self.schedule.capacity:
            self._candidates.popitem(last=False)

    def _add_listing(self, url: str, source: tuple[str, bool] | None, now: float) -> int:
        if url in self.schedule:
            return 0
        parent = self.schedule.entry(source[0]) if source is not None else None
        trusted = source is None or source[0] in self.seeds or (parent is not None and parent.paid > 0)
        if trusted:
            added = self.schedule.add(url, seen_at=now)  # downloaded just now: polite revisit
        else:
            added = self.schedule.add(url, now=now, rate=parent.rate if parent and parent.rate else 0.0)
        self.counters.listings_found += added
        return int(added)

    def _explored(self, fetch: Fetch, now: float, text: str, links: Sequence[str],
                  published: datetime | None, state: np.ndarray | None, added: int) -> None:
        self.counters.explored += 1
        fresh = published is not None and fetch.url not in self.sent and is_candidate(
            published, datetime.fromtimestamp(now, UTC),
            timedelta(seconds=self.config.novelty_window), skew=timedelta(seconds=self.config.future_skew))
        profit = (self.config.reward - self.config.send_cost) if fresh else 0.0
        profit += added
        self._fruitless = 0 if profit > 0 else self._fruitless + 1
        if state is not None and self._explore_previous is not None and self.mode != "wl":
            try:
                self.weights = td_step(self.weights, self._explore_previous, profit, state,
                                       self.config.td_alpha, self.config.td_gamma)
                self.counters.td_updates += 1
            except ValueError:
                self.counters.td_overflows += 1
        self._explore_previous = state
        if len(self._explore) > self.config.explore_steps or self._fruitless >= self.config.explore_patience:
            self._explore = []
            return
        step = self._choose_step(state, links)
        if step is None:
            self._explore = []
            return
        self._explore.append(step)
        self._explore_next = Fetch(step, "explore", fetch.visit)  # when exploration is due again

    def _choose_step(self, state: np.ndarray | None, links: Sequence[str]) -> str | None:
        """The link of highest ``w·s`` that is neither a known listing (the schedule polls
        those), nor fetched before, nor on the path."""
        options = [u for u in links if u not in self._explore and u not in self._articles
                   and u not in self.schedule and u not in self._fetched]
        if not options:
            return None
        parent = self._value(state)
        values = np.array([self._value(self._states.get(u), parent) for u in options])
        values += 1e-9 * self.rng.random(len(values))  # ties broken at random
        return options[int(np.argmax(values))]

    def _visit_budget(self, now: float | None = None) -> float | None:
        """The listing visits per simulated hour the budget allows (``poll_rate``), at most as
        many as expect ``FORAGERS_SCHEDULE_POLL_YIELD`` novel documents each on average
        (``HubSchedule.novelty`` over that yield, at ``now``'s rates with the rhythm): a larger
        budget buys polls only while they still pay."""
        rate, floor = self.poll_rate, self.config.schedule_poll_yield
        if rate is None or floor <= 0:
            return rate
        novelty = self.schedule.novelty(now)
        if self.config.topic.strip():
            # The topical mode credits listings for on-topic documents only, so their rates
            # are the topic's share of the news. The bound counts every story the forager meets
            # instead: a topic's listings get the visits the site's news would buy, and the
            # threshold spends them on the listings that show the topic (measured: bounded by
            # the topic's rates, a sports topic on the synthetic site got a third of the
            # default's visits and a median lag of 14.5 simulated minutes against the default
            # colony's 2.7 for the same stories; docs/benchmarks.md, "Topical mode").
            novelty = max(novelty, self._stories_per_hour(now))
        return min(rate, novelty / floor) or None

    def _visit_yield(self) -> float:
        """The novel documents a listing's visit must expect (``HubSchedule.next_due``'s
        ``min_yield``): ``FORAGERS_SCHEDULE_VISIT_YIELD`` while the budget sets the poll rate,
        so that listings of low rate (a front whose stories a busier listing shows first) do
        not take the visits of the listings that pay; in the topical mode, times the topic's
        share of the novel documents met, ``(on + 1)/(on + off + 1)`` (its listings' rates
        count the topic's documents only). 0 without a budget."""
        floor = self.config.schedule_visit_yield
        if self.poll_rate is None or floor <= 0:
            return 0.0
        if self.config.topic.strip():
            on = self.counters.rewarded
            floor *= (on + 1.0) / (on + self.counters.off_topic + 1.0)
        return floor

    def _hours(self) -> Callable[[float, float], float] | None:
        # with the rhythm, a listing's own dates tell a level (stories per average hour)
        return self.schedule.hours if self.schedule.profile is not None else None

    def _observe_dates(self, dates: Mapping[str, datetime], now: float, listing: bool = False) -> None:
        """Every dated story is a sample of the site's publishing rhythm (issue 19): each story
        once, whether a listing dated it or it was fetched; a listing's dates are its window
        (see :meth:`~newsforagers.learning.rhythm.RhythmProfile.observe_listing`)."""
        if not dates:
            return
        first = [d.timestamp() for u, d in dates.items() if u not in self._dated]
        for url in dates:
            self._dated.add(url)
        self._story_dates.extend(first)
        profile = self.schedule.profile
        if profile is None:
            return
        if listing:
            profile.observe_listing(first, [d.timestamp() for d in dates.values()], now)
        else:
            for stamp in first:
                profile.observe(stamp, now)

    def _stories_per_hour(self, now: float | None) -> float:
        """The site's stories per simulated hour as this forager meets them: the distinct
        stories (a listing dated them, or fetched) published in the last ``_STORY_SPAN``, over
        it; computed at most once a simulated minute."""
        if now is None or not self._story_dates:
            return 0.0
        if self._story_rate is not None and 0.0 <= now - self._story_rate[0] < 60.0:
            return self._story_rate[1]
        since = now - _STORY_SPAN
        rate = sum(1 for t in self._story_dates if since <= t <= now) * HOUR_SECONDS / _STORY_SPAN
        self._story_rate = (now, rate)
        return rate

    def _scarce_rate(self, now: float | None = None) -> float | None:
        """Listing visits per simulated hour the budget leaves once the stories the listings
        are expected to show are fetched (crawl against recrawl, by what each request is
        expected to bring): ``B·(1 − explore share) − Λ``, ``Λ`` the stories per hour to
        fetch: the site's distinct stories per hour as the forager meets them
        (:meth:`_stories_per_hour`), or the listings' credited rates when those say more (a
        story on five listings is one story: their own dates would count it five times) with
        ``B`` this forager's
        requests per hour (``poll_rate`` over ``FORAGERS_SCHEDULE_POLL_SHARE``), at least
        ``FORAGERS_SCHEDULE_SCARCE_FLOOR`` of ``B``. Where the budget is plentiful it is far
        above what the threshold asks and changes nothing; where it is scarce the threshold
        rises until visits fit in it: fewer visits, each showing more stories, so the budget
        goes to stories rather than to looking for them. None without a budget."""
        share, floor = self.config.schedule_poll_share, self.config.schedule_scarce_floor
        if self.poll_rate is None or share <= 0 or floor <= 0:
            return None
        budget = self.poll_rate / share
        # levels, not the rates of this hour: a peak's stories are fetched over the quiet
        # hours after it too, so the budget is shared out over the day
        stories = max(self.schedule.novelty(), self._stories_per_hour(now))
        spare = budget * (1.0 - self.config.explore_share) - stories
        return max(spare, floor * budget)

    def _push(self, fetch: Fetch, value: float, published: float | None = None) -> None:
        """Queue ``fetch`` for harvest. First in line: what must go next (``value`` infinite:
        a teleport, a request in flight at a checkpoint). Then news: stories a listing dates
        at or after the forager began (``published``), the oldest first, so none waits
        behind the backlog a listing's first visit shows or behind newer news. Then what no
        listing dates (a listing without item times: its new links may be news), the highest
        TD value ``w·s`` first. Last the *backlog*, stories dated before the forager began,
        the highest ``w·s`` first; a story of it more than ``_BACKLOG_AGE`` old waits while a
        listing is due, unless the backlog's oldest story would leave the novelty window
        before it is done (:meth:`next_fetch`, :meth:`_backlog_urgent`)."""
        if value == math.inf:
            tier, key = 0, 0.0
            fetch = replace(fetch, priority=NEWS_PRIORITY)
        elif published is not None and self._began is not None and published >= self._began:
            tier, key = 1, published
            fetch = replace(fetch, priority=NEWS_PRIORITY)
        elif published is None:
            tier, key = 2, -value
        else:
            tier, key = _BACKLOG, -value
            heapq.heappush(self._backlog_dates, (published, fetch.url))
        heapq.heappush(self._harvest, (tier, key, next(self._order), fetch, value, published))

    def _value(self, state: np.ndarray | None, default: float = 0.0) -> float:
        if state is None:
            return default
        return float(np.dot(self.weights, state))

    def _state(self, url: str, text: str) -> np.ndarray | None:
        if self.encoder is None:
            if self._bootstrap is None:
                return None
            self._texts.append(text)
            if len(self._texts) >= self.bootstrap_pages and not self._fitting:
                self._fitting = True
                self.fit_request, self._texts = self._texts, []
            return None
        state = np.asarray(self.encoder.transform([text])[0], dtype=np.float32)
        self._states[url] = state
        self._states.move_to_end(url)
        while len(self._states) > self._state_cache_size:
            self._states.popitem(last=False)
        return state

    # -- the encoder's bootstrap (the driver fits it on a thread) -------------------------

    def fit(self, texts: list[str]) -> Encoder:
        """Fit an encoder on ``texts`` (pure: the driver runs it on a thread)."""
        return self._bootstrap(texts)

    def encoder_fitted(self, encoder: Encoder, n_texts: int) -> None:
        self._fitting = False
        self.encoder = encoder
        logger.info("forager %s: state encoder fitted on %d pages", self.name, n_texts)

    def encoder_failed(self, texts: list[str], exc: Exception) -> None:
        self._fitting = False
        logger.info("forager %s: encoder bootstrap postponed (%s)", self.name, exc)
        self._texts = list(texts) + self._texts
        self.bootstrap_pages = len(texts) * 2

    # -- persistence (spider state, checkpoints) ------------------------------------------

    def to_state(self, path: bool = True) -> dict:
        """The forager's memory as JSON-able data: the schedule (weblog), weights, sent memory,
        counters and, with ``path``, the harvest queue (requests in flight included, first in
        line) and the articles fetched (never fetched again)."""
        state = {"name": self.name, "mode": self.mode, "strategy": self.strategy,
                 "weblog": self.schedule.to_dict(), "weights": self.weights.tolist(),
                 "sent": self.sent.to_list(), "retired": self.retired,
                 "counters": asdict(self.counters)}
        if path:
            queue = [[f.url, f.kind, f.visit, None] for f in self._flying.values()]
            queue += [[e[3].url, e[3].kind, e[3].visit, e[4], e[5]] for e in sorted(self._harvest)]
            state["harvest"] = queue
            state["articles"] = list(self._articles._items)
        return state

    def restore(self, state: dict, path: bool = True) -> None:
        """Take back :meth:`to_state`'s memory. The harvest queue comes back whatever ``path``
        says: its URLs are claimed in the colony store, and no other forager would fetch them
        (without the encoder that valued them, only their order is off)."""
        if state.get("strategy") != self.strategy:
            raise ValueError("saved state is not a scheduled forager's.")
        weights = np.asarray(state["weights"], dtype=np.float64)
        if weights.shape != self.weights.shape or not np.all(np.isfinite(weights)):
            raise ValueError("saved forager weights do not fit this forager.")
        self.schedule = HubSchedule.from_dict(state["weblog"], **self.schedule._parameters())
        self.weights = weights
        self.sent = SentMemory.from_list(state.get("sent", []), self.config.sent_memory_size)
        self.retired = bool(state.get("retired", False))
        counters = state.get("counters") or {}
        for name in ScheduledCounters.__dataclass_fields__:
            if name in counters:
                setattr(self.counters, name, type(getattr(self.counters, name))(counters[name]))
        for url in self.schedule.urls():
            self._seen.add(url)
        for url in state.get("articles", []):
            self._articles.add(url)
            self._seen.add(url)
        for url, _kind, visit, value, *published in state.get("harvest", []):
            # what was in flight has no value saved: it goes first, as it nearly went (an
            # exploration step comes back as a plain fetch: its path is gone)
            self._push(Fetch(url, "harvest", int(visit)), math.inf if value is None else float(value),
                       published[0] if published else None)
            self._seen.add(url)


def continues(listing: str, url: str) -> bool:
    """``url`` is a continuation of ``listing``: the same path with another query (``?page=2``)."""
    a, b = urlsplit(listing), urlsplit(url)
    return a.netloc == b.netloc and a.path == b.path and a.query != b.query


def listed_rate(dates: Iterable[datetime], now: float,
                hours: Callable[[float, float], float] | None = None) -> float | None:
    """Stories per simulated hour a listing's own dates show, whoever found them first: the
    ``n − 1`` stories that came after the oldest it dates, over the time from that one to
    ``now`` (None when it dates none; 0 for one story: one date says nothing of a rate). A
    front showing its latest 21 stories of the past week publishes about 20 a week. ``hours``:
    the schedule's average hours between two times (``HubSchedule.hours``; with the rhythm, a
    level: stories per average hour)."""
    stamps = [d.timestamp() for d in dates]
    if not stamps:
        return None
    span = max(now - min(stamps), 60.0) / 3600.0
    if hours is not None:
        span = hours(now - span * 3600.0, now)
    return (len(stamps) - 1) / span if span > 0 else 0.0


def schedule_from_config(config: ForagersConfig, seeds: Iterable[str] = (),
                         saved: dict | None = None) -> HubSchedule:
    """The weblog of a scheduled forager, with the ``FORAGERS_SCHEDULE_*`` settings."""
    parameters = dict(capacity=config.schedule_size, beta=config.weblog_beta,
                      min_interval=config.schedule_min_interval, max_interval=config.schedule_max_interval,
                      threshold=config.schedule_threshold, barren_after=config.schedule_barren_after,
                      window=config.novelty_window, priority=config.schedule_priority,
                      give_up_after=config.start_failures, rhythm=config.schedule_rhythm)
    if saved is not None:
        return HubSchedule.from_dict(saved, **parameters)
    return HubSchedule.from_seeds(seeds, **parameters)
