"""The scheduled forager's mind: harvest, the weblog as a scheduler, conditional revisits,
feeds; its budget rules and exploration are :mod:`.budget` and :mod:`.explore` (see the
package's docstring)."""

from __future__ import annotations

import heapq
import itertools
import logging
import math
from collections import deque
from dataclasses import asdict, replace
from datetime import datetime
from typing import Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

import numpy as np

from newsforagers.config import ForagersConfig
from newsforagers.learning.bounded import Bounded
from newsforagers.learning.schedule import Entry, HubSchedule, host_of, shape
from newsforagers.pages import SentMemory
from newsforagers.strategies.common import Encoder, EncoderBootstrap, Mind
from newsforagers.strategies.scheduled.budget import BACKLOG, BACKLOG_AGE, NEWS, STORY_DATES, BudgetRules, listed_rate
from newsforagers.strategies.scheduled.explore import PAGE_LINKS, Candidates, Exploration
from newsforagers.strategies.scheduled.fetch import NEWS_PRIORITY, Fetch, HostQueues, ScheduledCounters

logger = logging.getLogger(__name__)

# feeds and sitemaps added from one announcement at most (a sitemap index may list thousands;
# the rest wait for its next visit)
_FEEDS_PER_PAGE = 20
# hosts whose requests a forager counts for exploration's share per host, at most
_HOSTS_COUNTED = 10_000
# A story whose request failed for a while (its host unreachable, a 429 or a 5xx, after Scrapy's
# own retries) is asked for again FORAGERS_SCHEDULE_MIN_INTERVAL later, then 4, 16, ... times
# that, as long as it can still be novel (inside the novelty window), at most this many times.
LATER_TRIES = 4


class ScheduledMind(Mind, BudgetRules, Exploration):
    """One scheduled forager (see :mod:`newsforagers.strategies.scheduled`). ``rng`` drives every random choice."""

    strategy = "scheduled"

    def __init__(self, name: str, config: ForagersConfig, schedule: HubSchedule, weights: np.ndarray,
                 rng: np.random.Generator, mode: str = "wlrl", encoder: Encoder | None = None,
                 claim: Callable[[str], bool] | None = None, seeds: Iterable[str] = (),
                 bootstrap: Callable[[list[str]], Encoder] | None = None, memory_size: int = 100_000,
                 claim_many: Callable[[list[str]], Iterable[str]] | None = None):
        Mind.__init__(self, name, config, weights, rng, mode, encoder)
        self.schedule = schedule
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
        # ... per host (host -> visits per simulated hour), when the driver knows each host's
        # budget: each host's listings are scheduled under their own (None: one for all)
        self.poll_rates: dict[str, float] | None = None
        # ... and the listing visits per simulated hour each host's budget allows this forager
        # in all, its listings that have not paid yet included (host -> visits; None: not known
        # per host): what the threshold does not spend of it is spare (BudgetRules._spare)
        self.spare_rates: dict[str, float] | None = None
        # (the rates above, when, and the host budgets and spare budget reckoned of them: see
        # BudgetRules._budgets)
        self._budgets_cache: tuple | None = None
        # the weblog entry another forager of the colony holds for a URL (None: none does);
        # the driver sets it
        self.colony_entry: Callable[[str], Entry | None] = lambda url: None
        # the successor a forager of the colony took of a listing (None: none), and how this
        # forager tells the colony it took one (see _succeed); the driver sets them
        self.colony_successor: Callable[[str], str | None] = lambda url: None
        self.share_successor: Callable[[str, str], None] = lambda old, new: None
        self.in_flight = 0
        self._topical = bool(config.topic.strip())  # the topical mode: its news in its own order (_push)
        # heap of (tier, key, order, fetch, value, published): see _push
        self._harvest = HostQueues()  # per host: (tier, key, order, fetch, value, published)
        # (published, url) of the dated backlog in the harvest queue, the oldest first: when it
        # must go (_backlog_urgent)
        self._backlog_dates: list[tuple[float, str]] = []
        self._began: float | None = None  # simulated time of the first next_fetch()
        # harvest and exploration requests not answered yet: a checkpoint puts them back in
        # the harvest queue (the colony store says they were queued: nobody else fetches them)
        self._flying: dict[str, Fetch] = {}
        self._order = itertools.count()
        self._articles: Bounded[str, None] = Bounded(max(1, memory_size))  # fetched articles: never fetched again
        self._seen: Bounded[str, None] = Bounded(max(1, memory_size))  # URLs this forager queued or fetched
        # the navigation of a seed's map queued for harvest (its sections, its day archives)
        self._map_links: Bounded[str, None] = Bounded(max(1, memory_size))
        self._map_quiet: Bounded[str, float] = Bounded(max(1, memory_size))  # host -> no listing due before
        self._dated: Bounded[str, None] = Bounded(max(1, memory_size))  # stories met (a listing dated them, or fetched)
        # publication times of the stories met, as met: the site's stories per hour
        self._story_dates: deque[tuple[float, str]] = deque(maxlen=STORY_DATES)  # (published, host)
        # None -> (computed at, stories per hour); "hosts" -> (computed at, {host: stories per hour})
        self._story_rate: dict[str | None, tuple] = {}
        # requests begun per host, and exploration's among them: exploration's share holds on
        # each host (a busy host's links must not spend its own budget on exploring)
        self._host_made: dict[str, int] = {}
        self._host_explored: dict[str, int] = {}
        # stories to ask for again after a transient failure: heap of (due, order, fetch, value,
        # published); the tries so far per URL; the value and date of the harvest in flight
        self._later: list[tuple[float, int, Fetch, float, float | None]] = []
        self._tries: Bounded[str, int] = Bounded(max(1, memory_size))
        self._harvest_meta: Bounded[str, tuple[float, float | None]] = Bounded(max(1, memory_size))
        self._now: float | None = None  # simulated time of the last next_fetch()
        self._hosts: Bounded[str, str] = Bounded(max(1, memory_size))  # url -> its host (a memo)
        # exploration found nothing it may do at this many requests begun and answered: it is
        # not looked for again until one more is (no host's share or room changed meanwhile)
        self._explore_futile: int | None = None
        self._moves = 0  # requests begun and answered so far
        self._fetched: Bounded[str, None] = Bounded(max(1, memory_size))  # URLs requested outside listing visits
        self._states: Bounded[str, np.ndarray] = Bounded(max(1, config.state_cache_size))  # states of read pages
        self._visits: Bounded[int, tuple[str, bool]] = Bounded(10_000)  # visit -> (listing, all new)
        self._visit_ids = itertools.count(1)
        self._explore: list[str] = []  # the exploration path's steps
        self._explore_next: Fetch | None = None  # its next step, made when exploration is due
        self._page_links: Bounded[str, tuple[str, ...]] = Bounded(PAGE_LINKS)  # links of recent pages
        # the hosts of a recent page's links, when exploration first drew it (_explore_step)
        self._page_link_hosts: Bounded[str, frozenset[str]] = Bounded(PAGE_LINKS)
        # listings to try -> visit that showed them; as many as the schedule holds, as the two below
        self._candidates = Candidates(schedule.capacity, self._stale_candidate)
        # listing -> the navigation links it showed at its last visit (see _read_listing)
        self._navigation: Bounded[str, frozenset[str]] = Bounded(schedule.capacity)
        # listing -> the dates of its items at its last read (a 304 shows them again)
        self._listed: Bounded[str, tuple[datetime, ...]] = Bounded(schedule.capacity)
        # FORAGERS_SCHEDULE_CREDIT = "listed" (see _cover): listing -> the links it showed at
        # its last read; stories this forager queued, not paid for yet -> the other listings
        # that showed them since; stories paid for as novel
        self._shown: Bounded[str, frozenset[str]] = Bounded(schedule.capacity)
        self._unpaid: Bounded[str, list[str]] = Bounded(max(1, memory_size))
        # completeness (see _subsumed): listing -> (when its last visit began, visits without a
        # hole that checked another listing's story, visits with a hole); host -> the stories its
        # listings dated inside the novelty window (url -> (published, the listing that dated it
        # first)), and its complete listing
        self._completeness: Bounded[str, tuple[float, int, int]] = Bounded(schedule.capacity)
        self._host_dated: dict[str, dict[str, tuple[float, str]]] = {}
        self._complete: dict[str, str] = {}
        # a URL family's (shape's) completeness over the hosts: (its listings' visits without a
        # hole that checked another listing's story, their visits with a hole, up to three of
        # the hosts of the former)
        self._family_checks: Bounded[str, tuple[int, int, frozenset[str]]] = Bounded(schedule.capacity)
        self._novel: Bounded[str, None] = Bounded(max(1, memory_size))
        self._explore_previous: np.ndarray | None = None
        self._fruitless = 0
        self.bootstrap = EncoderBootstrap(bootstrap, config.bootstrap_pages)
        for url in schedule.urls():
            self._seen.add(url)

    # -- what the product's other parts ask of a forager ----------------------------------

    @property
    def weblog(self) -> HubSchedule:
        """The weblog, run as a scheduler (the population extension splits it, Alg. 6)."""
        return self.schedule

    @property
    def done(self) -> bool:
        return self.retired or (not self.schedule and not self._harvest and not self._later
                                and self.in_flight == 0)

    @property
    def busy(self) -> bool:
        return False  # no step barrier: every request stands alone

    @property
    def queued(self) -> int:
        """Requests waiting in the harvest queue."""
        return len(self._harvest)

    def teleport(self, url: str) -> None:
        """Energy policy: visit ``url`` next (as a new listing if the weblog lacks it)."""
        self.schedule.add(url)
        self._push(Fetch(url, "harvest"), math.inf)

    # -- compartments: the hosts this forager polls ------------------------------------------

    def keep_share(self, seeds: Iterable[str]) -> int:
        """The colony dealt this forager ``seeds`` (its hosts' share of the user's seeds,
        :func:`~newsforagers.learning.schedule.deal`): the listings of other hosts leave its
        weblog (their foragers hold them). How many left."""
        seeds = list(seeds)
        self.seeds = set(seeds)
        for url in seeds:
            self.schedule.add(url)  # the root's weblog holds them already: nothing added
            self._seen.add(url)
        return self.schedule.keep_hosts({host_of(url) for url in seeds})

    def hand_back(self) -> list[dict]:
        """A retiring forager's listings, as learnt, for the colony's others to adopt."""
        return self.schedule.hand_back()

    def succeeded_elsewhere(self, url: str, successor: str) -> bool:
        """Another forager of the colony took ``successor`` as the listing ``url`` was (it met
        the link that took ``url``'s place, :meth:`_succeed`): unless this forager polls
        ``successor`` itself, its entry for ``url`` keeps its floor with a rate of 0, as after
        a succession of its own, and no spare visit (``HubSchedule.succeeded_elsewhere``) — the
        one that took the place polls it, with ``url``'s rate, and the host budget this
        forager's demand for ``url`` held goes there. The driver calls it after each visit of
        ``url``. True when the rate changed (counted in ``successors_elsewhere``)."""
        if successor in self.schedule or not self.schedule.succeeded_elsewhere(url):
            return False
        self.counters.successors_elsewhere += 1
        return True

    def adopt(self, entries: Iterable[Mapping]) -> int:
        """Take over listings a retiring forager handed back (:meth:`hand_back`). How many."""
        added = self.schedule.adopt(entries)
        for url in added:
            self._seen.add(url)
        self.counters.listings_adopted += len(added)
        return len(added)

    # -- the scheduler's side ---------------------------------------------------------------

    def next_fetch(self, now: float, busy: Callable[[str], bool] | None = None,
                   harvest_busy: Callable[[str], bool] | None = None) -> Fetch | None:
        """The next request at simulated time ``now``, or None (``wait`` says until when).
        ``busy``: whether a host has its share of requests in flight for a listing visit; its
        work is passed over (it stays queued, decided when the host has room) and the next
        host's goes. ``harvest_busy``: the same for the harvest queue's fetches (a host may hold
        more of them: ``busy`` when not given)."""
        if self.done:
            return None
        if self._began is None:
            self._began = now
        self._now = now
        while self._later and self._later[0][0] <= now:
            _, _, fetch, value, published = heapq.heappop(self._later)
            self._push(fetch, value, published)
        if harvest_busy is None:
            harvest_busy = busy
        head = self._harvest.head(harvest_busy) if self.schedule.unvisited else None  # (in steady state: none)
        if self.schedule.unvisited and (head is None or head[1][0] > NEWS):
            # No news waits on a host that has room: a listing never visited on a host with
            # nothing queued (a seed: its host's first contact) goes before another host's
            # undated links or backlog. Each host has its own budget; what they share is the
            # forager's requests in flight, and a seed host's first visit waited behind other
            # hosts' navigation and backlog for up to 50 simulated minutes at the start of 50
            # sites (docs/benchmarks.md). (A host's own queue goes first on it, as before.)
            harvest = self._harvest
            url = self.schedule.first_visit(
                lambda host: harvest.has(host) or (busy is not None and busy(host)), now)
            if url is not None:
                self.counters.first_visits += 1
                return self._visit(url, now)
        fetch = self._next_harvest(now, busy, harvest_busy)
        if fetch is not None:
            return fetch
        if self._explore_due() and self._explore_futile != self._moves:
            def may_explore(host: str) -> bool:
                # (the share first: a dictionary's look, the budget's a reckoning)
                return self._explore_due_on(host) and (busy is None or not busy(host))

            fetch = self._try_candidate(may_explore)
            if fetch is None:
                step = self._explore_next
                if step is not None and step.url not in self._articles:
                    if may_explore(self._host(step.url)):
                        fetch, self._explore_next = step, None
                    # (else the path's next step waits until its host may explore)
                else:
                    self._explore_next = None
                    fetch = self._explore_step(now, may_explore)
            if fetch is not None:
                return self._begin(fetch)
            self._explore_futile = self._moves
        url, wait = self._next_listing(now, busy)
        if url is None:
            self.wait = wait
            self.counters.idle += 1
            return None
        return self._visit(url, now)

    def _next_harvest(self, now: float, busy: Callable[[str], bool] | None,
                      harvest_busy: Callable[[str], bool] | None) -> Fetch | None:
        """The next fetch of the harvest queue (or a listing due before an old backlog), or
        None; the entries of a busy host (``harvest_busy``) stay queued."""
        while (head := self._harvest.head(harvest_busy)) is not None:
            host, (tier, _, _, fetch, value, published) = head
            if self._done_with(fetch.url):
                self._harvest.pop(host)
                continue  # an article (or a page in flight) is never fetched twice
            if fetch.url in self._map_links and self._has_complete(fetch.url):
                # a section of a seed's map on a host one of whose listings shows every story:
                # it would show stories that listing shows and not be added (_add_listing)
                self._harvest.pop(host)
                self.counters.not_needed += 1
                continue
            if tier == BACKLOG and now - published > BACKLOG_AGE and not self._backlog_urgent(now):
                # a story of the backlog hours old waits while a listing is due: what a visit
                # shows now is news
                url, _ = self._next_listing(now, busy)
                if url is not None:
                    self.counters.deferred += 1
                    return self._visit(url, now)
            elif fetch.url in self._map_links and now >= self._map_quiet.get(host, -math.inf):
                # so does a page of a seed's map while a listing of its host is due (a site of
                # twenty sections and as many feeds kept its day archive waiting three simulated
                # hours), but not for the spare budget's visits, nor another host's (the map is
                # its host's: the other hosts' listings would hold it back as long as any is due).
                # None due: not asked again before the first is (a pass over the schedule a map
                # page cost 0.44 ms a request at 1,000 sites)
                url, wait = self._next_listing(now, lambda other, own=host: other != own, spare=False)
                if url is not None:
                    self.counters.deferred += 1
                    return self._visit(url, now)
                self._map_quiet.put(host, now + wait)
            self._harvest.pop(host)
            if fetch.kind == "harvest":
                self._harvest_meta.put(fetch.url, (value, published))
            return self._begin(fetch)
        return None

    def _next_listing(self, now: float, busy: Callable[[str], bool] | None = None,
                      spare: bool = True) -> tuple[str | None, float]:
        """The schedule's next due listing under the budget (each host's, when known);
        ``spare``: the spare budget's visits too."""
        # (a listing made barren at the last decision, or dropped since: released before this one)
        self._release(self.schedule.gone())
        budgets, spare_budget = self._budgets(now)
        if budgets is not None:  # (each host's listings under their own: no budget for all of them)
            return self.schedule.next_due(now, min_yield=self._visit_yield(), budgets=budgets, skip=busy,
                                          spare=spare_budget if spare else None)
        return self.schedule.next_due(now, self._visit_budget(now), self._scarce_rate(now), self._visit_yield(),
                                      skip=busy, spare=spare_budget if spare else None)

    def _release(self, gone: Sequence[str]) -> None:
        """The listings ``gone`` were made barren or dropped (:meth:`HubSchedule.gone`): one that
        was its host's complete listing stands for the host's others no longer, which are due as
        before at once (``complete_released``), not at the window's floor their mark gave them
        (a day archive made barren at 00:45 of its day left a forager's 33 sections of its host
        marked for seven simulated hours, its whole spare budget on the one listing not marked,
        polled every 2.5 minutes)."""
        for url in gone:
            host = self._host(url)
            if self._complete.get(host) == url:
                del self._complete[host]
                self.schedule.subsume_host(url, subsumed=False)
                self.counters.complete_released += 1

    def _host(self, url: str) -> str:
        host = self._hosts.get(url)
        if host is None:
            host = host_of(url)
            self._hosts.put(url, host)
        return host

    def _done_with(self, url: str) -> bool:
        return url in self._articles or (url in self._fetched and url not in self.schedule)

    def _visit(self, url: str, now: float) -> Fetch:
        """Begin a visit of the listing ``url`` (the schedule said it is due)."""
        self.schedule.begin(url, now)
        visit = next(self._visit_ids)
        self._visits[visit] = (url, False)
        self.counters.listings += 1
        self.counters.spare_visits += self.schedule.spare_due
        return self._begin(Fetch(url, "listing", visit))

    def _begin(self, fetch: Fetch) -> Fetch:
        self.in_flight += 1
        self._moves += 1
        host = self._host(fetch.url)
        if host not in self._host_made and len(self._host_made) >= _HOSTS_COUNTED:
            self._host_made.clear()
            self._host_explored.clear()
        self._host_made[host] = self._host_made.get(host, 0) + 1
        if fetch.kind in ("candidate", "explore"):
            self._host_explored[host] = self._host_explored.get(host, 0) + 1
        if fetch.kind != "listing":
            self._flying[fetch.url] = fetch
        self._seen.add(fetch.url)
        if fetch.kind != "listing":
            self._fetched.add(fetch.url)
        return fetch

    # -- the spider's side -------------------------------------------------------------------

    def on_page(self, fetch: Fetch, now: float, *, text: str, links: Sequence[str],
                published: datetime | None, listed: Mapping[str, datetime] | None = None,
                scores: Mapping[str, float] | None = None) -> None:
        """The page of ``fetch`` arrived: harvest, schedule, explore (see the package docstring).
        ``scores``: in the topical mode, the relevance to the topic of the context of each link
        the page lists (the driver's, :meth:`ScheduledDriver.link_scores`; missing: 0) — the
        order the news it shows waits in (:meth:`_push`)."""
        self.in_flight = max(0, self.in_flight - 1)
        self._moves += 1
        self._flying.pop(fetch.url, None)
        self.counters.downloaded += 1
        if self._began is None or self._began > now:
            self._began = now  # begun before the site's clock was known
        state = self._state(fetch.url, text)
        self._page_links.put(fetch.url, tuple(links))
        self._page_link_hosts.pop(fetch.url, None)
        if published is not None:
            self._articles.add(fetch.url)
            self._observe_dates({fetch.url: published}, now)
        if fetch.kind == "listing":
            if published is not None:
                # a dated page is an article, not a listing: it leaves the weblog
                self.schedule.remove(fetch.url)
                return
            self._read_listing(fetch, links, state, now, listed, scores)
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
                self._read_listing(Fetch(fetch.url, "listing", visit), links, state, now, listed, scores)
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
            if self._has_complete(url):  # a listing of its host shows every story it would
                self.counters.not_needed += 1  # (not seen: added when the host has none again)
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
        self._moves += 1
        self._flying.pop(fetch.url, None)
        if self._began is None or self._began > now:
            self._began = now
        if fetch.kind != "listing":
            return
        listing, _ = self._visits.get(fetch.visit, (fetch.url, False))
        self._visits[fetch.visit] = (listing, False)
        # (unchanged since its last read: still subsumed while its host's complete listing is)
        self._take_complete(fetch.url)
        self.counters.days_closed += self.schedule.visited(
            fetch.url, 0, listed_rate(self._listed.get(fetch.url, ()), now, self._hours()), now=now,
            subsumed=self._subsumed_by_complete(fetch.url))

    def on_failed(self, fetch: Fetch, transient: bool = False) -> None:
        """The request of ``fetch`` failed; ``transient``: for a while (its host unreachable, a
        429 or a 5xx, after Scrapy's own retries), so a story is asked for again later
        (:data:`LATER_TRIES`) instead of being lost."""
        self.in_flight = max(0, self.in_flight - 1)
        self._moves += 1
        self._flying.pop(fetch.url, None)
        if transient and fetch.kind == "harvest":
            self._try_later(fetch)
        if fetch.kind == "listing":
            entry = self.schedule.entry(fetch.url)
            if entry is not None and entry.rate is None:
                self.counters.start_failures += 1  # a listing never read yet (a seed, say)
            if self.schedule.failed(fetch.url, transient):
                self.counters.given_up += 1
                # the papers' forager's words for a seed; a link that never answered is routine
                level = logging.WARNING if fetch.url in self.seeds else logging.DEBUG
                logger.log(level, "forager %s: start URL %s failed %d times, removed from the weblog",
                           self.name, fetch.url, self.schedule.give_up_after)
        if fetch.kind == "explore":
            self._fruitless += 1
            self._explore = self._explore[:-1] if len(self._explore) > 1 else []

    def _try_later(self, fetch: Fetch) -> None:
        value, published = self._harvest_meta.pop(fetch.url, (0.0, None))
        tries = self._tries.get(fetch.url, 0)
        now = self._now
        if now is None or tries >= LATER_TRIES:
            return
        due = now + self.config.schedule_min_interval * 4.0 ** tries
        if published is not None and due > published + self.config.novelty_window:
            return  # it could no longer be novel
        self._tries.put(fetch.url, tries + 1)
        self._fetched.pop(fetch.url, None)  # not done with: asked for again
        heapq.heappush(self._later, (due, next(self._order), fetch, value, published))
        self.counters.tried_later += 1

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

    def on_reward(self, visit: int, profit: float, rewarded: bool, on_topic: bool = True,
                  url: str | None = None) -> None:
        """The reinforcing agent paid (or not) for document ``url`` found through listing visit
        ``visit``. In the topical mode a novel document ``on_topic`` is false for (below the
        topic's threshold) is counted (``off_topic``), not credited (its listing is told it found
        news, :meth:`HubSchedule.off_topic`: no trap) — unless the forager has
        found no document on the topic yet (``topic_unfound``): until then no listing can be
        told from another by the topic, and a forager crediting none would poll only at its
        listings' floors, read a few dozen documents and never meet the topic (a tag of 8 %
        of digital.gov's posts, by name: 99 requests in 100 s at a budget of 20 a second,
        none of its 30 stories found); it reads the site as the news crawler does until its
        first. With
        ``FORAGERS_SCHEDULE_CREDIT = "listed"`` the other listings that showed ``url`` while it
        was on its way are credited too (:meth:`_cover`)."""
        others = self._unpaid.pop(url, None) if url is not None else None
        if not rewarded:
            return
        if not on_topic:
            self.counters.off_topic += 1
            if self.counters.rewarded:
                source = self._visits.get(visit)
                if source is not None:  # (news all the same: its listing is no trap)
                    self.schedule.off_topic(source[0])
                return
            self.counters.topic_unfound += 1
        else:
            self.counters.rewarded += 1
        source = self._visits.get(visit)
        if source is not None:
            self.schedule.credit(source[0])
        else:
            self.counters.late_rewards += 1
        if url is not None and self.config.schedule_credit == "listed":
            self._novel.add(url)
            for listing in others or ():
                self.schedule.credit(listing)
                self.counters.listed_credits += 1

    # -- internals ---------------------------------------------------------------------------

    def _read_listing(self, fetch: Fetch, links: Sequence[str], state: np.ndarray | None,
                      now: float, listed: Mapping[str, datetime] | None,
                      scores: Mapping[str, float] | None = None) -> None:
        new = [u for u in links if u not in self._seen and u not in self._articles]
        # a link naming a day that ended beyond the novelty window (yesterday's yesterday's
        # archive, an old story): nothing on it can be novel, and no story will join it
        past = [u for u in new if self.schedule.of_the_past(u, now)]
        if past:
            for url in past:
                self._seen.add(url)
            self.counters.past_links += len(past)
            gone = set(past)
            new = [u for u in new if u not in gone]
        # an item the listing dates beyond the novelty window cannot be novel: not fetched
        oldest = now - self.config.novelty_window
        listed = listed or {}
        self._observe_dates(listed, now, listing=True, page=fetch.url)
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
        # candidate, it would wait behind every newer one). So is a day archive's link to a
        # later day of its own family that is today (its "next day" link after midnight):
        # today's archive took its place.
        replaced = self._replaced(fetch.url, links, listed) if listed else {}
        for url in navigation:
            if mapping or (all_new and continues(fetch.url, url)):
                items.append(url)
                if mapping:
                    self._map_links.add(url)
            elif shape(url) in replaced and url not in self.schedule:
                self._succeed(replaced[shape(url)], url, fetch.visit)
            elif url not in self.schedule and self._next_day(fetch.url, url, now):
                self.counters.next_days += 1
                self._succeed([fetch.url], url, fetch.visit)
            else:
                self._candidate(url, fetch.visit)
        value = self._value(state)
        claimed = self._claim_all(items)
        # every fresh link it showed was another forager's first: that one reads this listing
        covered = bool(items) and not claimed
        subsumed = self._subsumed(fetch.url, links, listed, now)
        self.counters.subsumed += subsumed
        for url in claimed:
            self._seen.add(url)
            published = listed[url].timestamp() if url in listed else None
            # (a seed's map: today's page first of its links no listing dates, see _push)
            score = _finite(scores.get(url, 0.0)) if scores is not None else 0.0
            self._push(Fetch(url, "harvest", fetch.visit, score=score),
                       self._value(self._states.get(url), value),
                       published, first=mapping and self.schedule.today_page(url, now))
        listing, _ = self._visits.get(fetch.visit, (fetch.url, False))
        self._visits[fetch.visit] = (listing, all_new or (not listed and bool(new) and len(new) == len(links)))
        self._listed.put(fetch.url, tuple(listed.values()))
        self.counters.days_closed += self.schedule.visited(
            fetch.url, len(new), listed_rate(listed.values(), now, self._hours()), now=now,
            overflowed=all_new and not mapping and self.config.schedule_scarce_floor > 0, covered=covered,
            subsumed=subsumed, earliest=min((d.timestamp() for d in listed.values()), default=None),
            fresh_rate=self._fresh_rate(fetch.url, listed.values(), now))
        if self.config.schedule_credit == "listed":
            for url in claimed:
                self._unpaid.put(url, [])
            self._cover(fetch.url, links, new)

    def _fresh_rate(self, url: str, dates: Iterable[datetime], now: float) -> float | None:
        """``listed_rate`` of the ``dates`` within the novelty window, for a listing's first
        visit only (``HubSchedule.visited``'s ``fresh_rate``: the only visit that reads it)."""
        entry = self.schedule.entry(url)
        if entry is None or (entry.rate is not None and entry.interval is not None):
            return None
        oldest = now - self.config.novelty_window
        return listed_rate([d for d in dates if d.timestamp() >= oldest], now, self._hours())

    def _subsumed(self, listing: str, links: Sequence[str], listed: Mapping[str, datetime],
                  now: float) -> bool:
        """Whether another listing of ``listing``'s host shows every story of the host as it
        appears (it is *complete*): then this one's visits add nothing a visit of that one would
        not (docs/algorithms.md, *A listing that shows every story of its host*). A visit has a
        hole when a story of the host this forager met (any listing dated it), published since
        the oldest story the listing shows (since its previous visit when it dates nothing) and
        before the visit began, is not on it. A listing is complete once two of its visits had
        no hole while checking a story another listing dated first (its own stories prove
        nothing), and none had a hole; a day's page also when its family is proven on other
        hosts (:meth:`_proven`)."""
        host = self._host(listing)
        entry = self.schedule.entry(listing)
        begun = entry.last if entry is not None and entry.last is not None else now
        known = self._host_dated.setdefault(host, {})
        shown = set(links)
        record = self._completeness.get(listing)
        evidence = misses = 0
        hole: bool | None = None  # what this visit proved: a hole, or another listing's story shown
        if record is not None:
            since, evidence, misses = record
            if listed:
                since = min(since, min(d.timestamp() for d in listed.values()))
            expected = [(url, by) for url, (published, by) in known.items() if since <= published <= begun]
            if any(url not in shown for url, _ in expected):
                misses, hole = misses + 1, True
            elif any(by != listing for _, by in expected):
                evidence, hole = evidence + 1, False
        self._completeness.put(listing, (begun, evidence, misses))
        day_end = self.schedule.day_end(listing)
        if hole is not None and day_end is not None and begun < day_end:
            # the family of a day's page, while its day lasts (read after its day ended, it
            # shows no later story: no hole of its family); pages of other families (home
            # pages, sections) showing every story of a host of few stories prove little
            family = shape(listing)
            family_evidence, family_misses, hosts = self._family_checks.get(family, (0, 0, frozenset()))
            if hole:
                family_misses += 1
            else:
                family_evidence += 1
                hosts = hosts if len(hosts) >= 3 else hosts | {host}
            self._family_checks.put(family, (family_evidence, family_misses, hosts))
        oldest = now - self.config.novelty_window
        for url, published in listed.items():
            if url not in known and published.timestamp() >= oldest:
                known[url] = (published.timestamp(), listing)
        if len(known) > 4 * self.schedule.capacity:
            for url in [u for u, (t, _) in known.items() if t < oldest]:
                del known[url]
        if misses and self._complete.get(host) == listing:
            del self._complete[host]
            self.schedule.subsume_host(listing, subsumed=False)  # its host's listings are due as before
        else:
            self._take_complete(listing)
        return self._subsumed_by_complete(listing)

    def _subsumed_by_complete(self, listing: str) -> bool:
        """Whether ``listing``'s visits add nothing: a listing of its host shows every story of
        the host (:meth:`_has_complete`), as soon as it appears. The complete listing then
        holds at least as many novel documents an hour as ``listing`` (every story ``listing``
        shows, it shows): its rate is raised to ``listing``'s when lower
        (:meth:`HubSchedule.raise_rate`), so the host's visits are not left to a rate not learnt
        yet (a sitemap proven complete on its first visits, credited one story per window; a
        day archive whose stories a home page or a section showed first at the start)."""
        if not self._has_complete(listing):
            return False
        entry = self.schedule.entry(listing)
        complete = self._complete[self._host(listing)]
        if complete not in self.schedule:
            return False
        if entry is not None and entry.rate:
            self.schedule.raise_rate(complete, entry.rate)
        return True

    def _take_complete(self, listing: str) -> None:
        """``listing`` becomes its host's complete listing if it is proven and the host has
        none (a listing's unchanged answer, a 304, may find its family proven since)."""
        host = self._host(listing)
        complete = self._complete.get(host)
        if self._proven(listing) and (complete is None or not self._proven(complete)):
            self._complete[host] = listing
            # the host's other listings add nothing from now on: marked at once (and their rates
            # are the complete one's at least), not each at a visit of its own
            self.schedule.subsume_host(listing)
            record = self._completeness.get(listing)
            self.counters.family_complete += record is not None and record[1] < 2

    def _proven(self, listing: str) -> bool:
        """Whether ``listing`` is complete (``_subsumed``): never a hole, its day not ended when
        its URL names one, and two visits that checked another listing's story. Or, for a day's
        page (its URL names a day: a day archive), one visit checked, with nothing to check on a
        host of few stories, while its URL family was proven on two other hosts or more, never
        with a hole (``FORAGERS_SCHEDULE_FAMILY_COMPLETE``): a day archive built by one
        publishing software lists every story of the day on every site that runs it."""
        record = self._completeness.get(listing)
        if record is None or record[2] or not self._live(listing):
            return False
        day_end = self.schedule.day_end(listing)
        now = record[0] if self._now is None else max(record[0], self._now)
        if day_end is not None and now >= day_end:
            return False  # a day's page once its day has ended: it shows no later story
        if record[1] >= 2:
            return True
        if day_end is None or not self.config.schedule_family_complete:
            return False
        evidence, misses, hosts = self._family_checks.get(shape(listing), (0, 0, frozenset()))
        return not misses and evidence >= 2 and len(hosts - {self._host(listing)}) >= 2

    def _cover(self, listing: str, links: Sequence[str], new: Sequence[str]) -> None:
        """Credit ``listing`` with the novel documents it showed that it did not show at its
        previous read but that this forager had queued already, through another listing (its
        *coverage*): its rate counts what appears on it, not only what it showed first. The
        documents still on their way are credited when the reinforcing agent pays for them
        (:meth:`on_reward`). On a first read every novel document it shows counts, as the
        first visit's own fresh ones do (n per novelty window)."""
        before = self._shown.get(listing)
        self._shown.put(listing, frozenset(links))
        fresh = set(new)
        covered = 0
        for url in dict.fromkeys(links):
            if url in fresh or (before is not None and url in before):
                continue
            if url in self._novel:
                covered += 1
            elif (others := self._unpaid.get(url)) is not None and listing not in others:
                others.append(listing)
        if covered:
            self.schedule.credit(listing, covered)
            self.counters.listed_credits += covered

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
        gone: dict[str, list[str]] = {}
        for url in sorted(before - now) if before else ():
            gone.setdefault(shape(url), []).append(url)
        return gone

    def _next_day(self, listing: str, url: str, now: float) -> bool:
        """Whether ``url``, a link on the listing ``listing``, is a later day's page of the
        same family (``/archive/N/N/N/``) than the day ``listing`` names, and that day is today
        where the site is (:meth:`HubSchedule.today_page`, the site's midnight known from its
        stories' URLs: a calendar may link tomorrow before it begins, and midnight in some
        time zone is no sign): a day archive's "next day" link once the site's midnight has
        passed. The forager polling yesterday's archive then meets today's there, not only on
        a front page it may poll rarely at night (on digital.gov, a forager holding
        yesterday's archive polled it every 2.4 simulated minutes for 85 minutes past
        midnight while today's news waited, its "next day" link on every visit)."""
        if shape(url) != shape(listing) or not self.schedule.site_days.known(self._host(url)) \
                or not self.schedule.today_page(url, now):
            return False
        day, own = self.schedule.day_end(url), self.schedule.day_end(listing)
        return day is not None and own is not None and day > own

    def _succeed(self, old: list[str], url: str, visit: int) -> None:
        # another forager of the colony took this successor already (it met the link first):
        # this one's old entry, if it holds one, stops paying for the old page (that one polls
        # its place), and the successor is not polled twice
        taken = [u for u in old if self.colony_successor(u) == url]
        if taken:
            for u in taken:
                self.succeeded_elsewhere(u, url)
            self._seen.add(url)
            return
        # the old entry, from this forager's weblog or else another forager's (a split gave it away)
        held = [(u, e) for u in old if (e := self.schedule.entry(u) or self.colony_entry(u)) is not None]
        if held:
            best, entry = max(held, key=lambda pair: pair[1].rate or 0.0)
            if not self.schedule.succeed(best, url, entry=entry):
                return  # a family of barren pages, or a full weblog of paying ones
            # the colony learns who polls the old page's place: its holder, if another
            # forager, stops polling the old page at its next visit (succeeded_elsewhere)
            self.share_successor(best, url)
        elif self.claim(url):
            self._push(Fetch(url, "candidate", visit), math.inf)
        else:
            return
        self._seen.add(url)
        self.counters.successors += 1

    def _host_complete(self, host: str) -> bool:
        """Whether one of ``host``'s listings shows every story of it (``_subsumed``)."""
        complete = self._complete.get(host)
        return complete is not None and self._proven(complete)

    def _has_complete(self, url: str) -> bool:
        """Whether a listing of ``url``'s host shows every story of the host (``_subsumed``): a
        new listing there would add nothing that listing's visits do not."""
        host = self._host(url)
        return self._complete.get(host) != url and self._host_complete(host)

    def _live(self, listing: str) -> bool:
        entry = self.schedule.entry(listing)
        return entry is not None and not entry.barren

    def _candidate(self, url: str, visit: int) -> None:
        if url in self.schedule or url in self._candidates:
            return
        if self._has_complete(url):
            self.counters.not_needed += 1
            return
        forgotten = self._candidates.forgotten
        self._candidates.add(url, self._host(url), visit)
        self.counters.candidates_forgotten += self._candidates.forgotten - forgotten

    def _add_listing(self, url: str, source: tuple[str, bool] | None, now: float) -> int:
        if url in self.schedule or self.schedule.of_the_past(url, now):
            return 0
        if self._has_complete(url):
            self.counters.not_needed += 1
            return 0
        parent = self.schedule.entry(source[0]) if source is not None else None
        trusted = source is None or source[0] in self.seeds or (parent is not None and parent.paid > 0)
        if trusted:
            added = self.schedule.add(url, seen_at=now)  # downloaded just now: polite revisit
        else:
            added = self.schedule.add(url, now=now, rate=parent.rate if parent and parent.rate else 0.0)
        self.counters.listings_found += added
        return int(added)

    def _push(self, fetch: Fetch, value: float, published: float | None = None, first: bool = False) -> None:
        """Queue ``fetch`` for harvest. First in line: what must go next (``value`` infinite:
        a teleport, a request in flight at a checkpoint). Then news: stories a listing dates
        at or after the forager began (``published``), the oldest first, so none waits
        behind the backlog a listing's first visit shows or behind newer news. Then what no
        listing dates (a listing without item times: its new links may be news), the highest
        TD value ``w·s`` first. Last the *backlog*, stories dated before the forager began,
        the highest ``w·s`` first; a story of it more than ``BACKLOG_AGE`` old waits while a
        listing is due, unless the backlog's oldest story would leave the novelty window
        before it is done (:meth:`next_fetch`, :meth:`_backlog_urgent`). ``first``: first of
        what no listing dates, whatever its value — today's page in a seed's map
        (:meth:`HubSchedule.today_page`: it shows the whole day's news, which the sections
        show in shares, one request each at the host's pace).

        In the topical mode the news goes by its link's relevance to the topic first (the
        fetch's ``score``: its context on the listing, Pant & Srinivasan's link context as a
        focused crawler's best-first order), then the oldest first: when a host's news comes
        faster than its budget fetches it (a burst), the stories a user asked for do not wait
        behind the burst's others (docs/algorithms.md, "The topical mode's news order")."""
        if value == math.inf:
            tier, key = 0, 0.0
            fetch = replace(fetch, priority=NEWS_PRIORITY)
        elif published is not None and self._began is not None and published >= self._began:
            tier, key = NEWS, (-fetch.score, published) if self._topical else published
            fetch = replace(fetch, priority=NEWS_PRIORITY)
            if self._topical and fetch.score > 0:
                self.counters.topic_links += 1
        elif published is None:
            tier, key = 2, -math.inf if first else -value
        else:
            tier, key = BACKLOG, -value
            heapq.heappush(self._backlog_dates, (published, fetch.url))
        self._harvest.push(self._host(fetch.url), (tier, key, next(self._order), fetch, value, published))

    def _value(self, state: np.ndarray | None, default: float = 0.0) -> float:
        if state is None:
            return default
        return float(np.dot(self.weights, state))

    def _state(self, url: str, text: str) -> np.ndarray | None:
        if self.encoder is None:
            if self.bootstrap.possible:
                self.bootstrap.add([text])
            return None
        state = np.asarray(self.encoder.transform([text])[0], dtype=np.float32)
        self._states.put(url, state)
        return state

    # -- the encoder's bootstrap (the driver fits it on a thread) -------------------------

    def encoder_fitted(self, encoder: Encoder, n_texts: int) -> None:
        self.bootstrap.done()
        self.encoder = encoder
        logger.info("forager %s: state encoder fitted on %d pages", self.name, n_texts)

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
            queue += [[e[3].url, e[3].kind, e[3].visit, e[4], e[5], e[3].score] for e in sorted(self._harvest)]
            queue += [[e[2].url, e[2].kind, e[2].visit, e[3], e[4], e[2].score] for e in sorted(self._later)]
            state["harvest"] = queue
            state["articles"] = list(self._articles)
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
        paced = self.schedule.paced  # (who paces its reckonings is the crawler's, not the state's)
        self.schedule = HubSchedule.from_dict(state["weblog"], **self.schedule._parameters())
        self.schedule.paced = paced
        self._budgets_cache = None
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
        for url, _kind, visit, value, *rest in state.get("harvest", []):
            # what was in flight has no value saved: it goes first, as it nearly went (an
            # exploration step comes back as a plain fetch: its path is gone); a story's score
            # (the topical mode's order) was saved after its publication time
            self._push(Fetch(url, "harvest", int(visit), score=_finite(rest[1]) if len(rest) > 1 else 0.0),
                       math.inf if value is None else float(value), rest[0] if rest else None)
            self._seen.add(url)


def _finite(score: object) -> float:
    """A story's score (:attr:`Fetch.score`) as a finite number; 0 (no relevance known) for
    anything else."""
    try:
        value = float(score)
    except (TypeError, ValueError):
        return 0.0
    return value if math.isfinite(value) else 0.0


def continues(listing: str, url: str) -> bool:
    """``url`` is a continuation of ``listing``: the same path with another query (``?page=2``)."""
    a, b = urlsplit(listing), urlsplit(url)
    return a.netloc == b.netloc and a.path == b.path and a.query != b.query


def schedule_from_config(config: ForagersConfig, seeds: Iterable[str] = (),
                         saved: dict | None = None) -> HubSchedule:
    """The weblog of a scheduled forager, with the ``FORAGERS_SCHEDULE_*`` settings. It holds
    at least every seed: ``FORAGERS_SCHEDULE_SIZE`` bounds the listings a forager finds, not the
    ones its user gave (1,000 sites' home pages are 1,000 listings)."""
    seeds = list(dict.fromkeys(seeds))
    parameters = dict(capacity=max(config.schedule_size, len(seeds)), beta=config.weblog_beta,
                      min_interval=config.schedule_min_interval, max_interval=config.schedule_max_interval,
                      threshold=config.schedule_threshold, barren_after=config.schedule_barren_after,
                      window=config.novelty_window, priority=config.schedule_priority,
                      give_up_after=config.start_failures, rhythm=config.schedule_rhythm)
    if saved is not None:
        return HubSchedule.from_dict(saved, **parameters)
    return HubSchedule.from_seeds(seeds, **parameters)
