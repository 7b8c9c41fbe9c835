"""The scheduled forager's driver: a request whenever the mind has one (at most
``FORAGERS_SCHEDULE_IN_FLIGHT`` unanswered), the engine woken when the next listing is due,
the poll share of the host budget, the listing entries shared with the colony (see
:mod:`newsforagers.driver`)."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from scrapy import Request
from scrapy.settings import SETTINGS_PRIORITIES

from newsforagers.colony.handback import ADOPT_EVERY, take_handed_back
from newsforagers.colony.local import SITE_CLOCK, site_time_now
from newsforagers.colony.throttle import Politeness
from newsforagers.driver.base import Driver
from newsforagers.driver.hedge import HEDGE_META, Hedges
from newsforagers.learning.schedule import entry_from, host_of
from newsforagers.store import ColonyStore
from newsforagers.strategies.scheduled import poll_rate
from newsforagers.strategies.scheduled.budget import (
    answer_deadline,
    downloader_room,
    in_flight_cap,
    slow_latency,
    stall_after,
    stalled,
    typical_latency,
)
from newsforagers.text.feedback import stored_query
from newsforagers.topics import topic_state_key, topic_text

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


logger = logging.getLogger(__name__)

#: A listing's weblog entry, shared with the colony: a per-URL record of the store (bounded as
#: they are) under its own key, apart from the URL's own record (whose absence means "not
#: queued by any forager yet").
LISTING_KEY = "listing:"
LISTING_FIELD = "entry"
# ... and the successor a forager took of the listing (the link that took its place), and who
SUCCESSOR_FIELD, SUCCESSOR_BY_FIELD = "successor", "successor_by"
#: Wall seconds between two reads of the colony's topic query in the store (the reinforcing
#: agent fits it again as the colony's documents grow by a tenth: many seconds apart).
_QUERY_EVERY = 5.0
#: Wall seconds between two shares of an unchanged listing demand.
_SHARE_DEMAND_EVERY = 5.0
#: ... and of a changed one whose hosts are the same (at 1,000 sites some host's demand moves
#: at every reckoning: the store written four times a wall second, 4 % of deciding). The others
#: read it at their reckonings; the rates it is made of take many visits to move.
_SHARE_DEMAND_LEAST = 1.0
#: Recent answers whose download latency sizes the in-flight cap (their mean, stalls left out).
LATENCY_SAMPLES = 32
#: Wall seconds between two counts of the hosts a forager's listings are on.
_HOSTS_EVERY = 5.0
#: Wall seconds between two reckonings of the listing visits each host's budget allows
#: (:meth:`ScheduledDriver._set_poll_rates`) and two copies of the counters into the crawler's
#: stats. Each is a pass over the whole weblog (and, for the rates, a read of the colony's
#: members in the store): once a decision, they made a decision cost 4 times more at 1,000
#: sites than at 10 (docs/benchmarks.md). What they follow moves with the listings' rates,
#: which take many visits to change, not with each decision. And while the crawl's process
#: is busy (its CPU over the wall time since the last reckoning at least :data:`_BUSY`: the
#: CPU the reckonings take is then taken from the requests), not more of the deciding than
#: :data:`_RECKONING_SHARE`: the pass grows with the listings and hosts a forager holds, its
#: inputs do not move faster for it, and at 1,000 sites four a wall second were 37 % of the
#: CPU spent deciding (docs/benchmarks.md). After a reckoning that cost c CPU seconds, the next
#: then waits until the decisions between have cost c (1 − share)/share, at most
#: :data:`_RATES_MOST` wall seconds.
_RATES_EVERY = 0.25
_RATES_MOST = 2.0
_RECKONING_SHARE = 0.1
_BUSY = 0.5
_STATS_EVERY = 1.0
#: Seconds a host's budget may still hold a request handed over now (the time its way through
#: Scrapy takes); a host the budget holds longer is passed over until then (_BusyHosts). At
#: least the forager's mean answer: a slot held that long is held no longer than an answer.
READY_MARGIN = 0.02


class _Scores(Mapping):
    """url -> the score of its text, worked out when first asked (:meth:`ScheduledDriver.link_scores`);
    ``texts`` is read no sooner (a :class:`~newsforagers.pages.links.DeferredContexts` walks
    its page then). A url whose text is missing or empty is missing."""

    def __init__(self, texts: Mapping[str, str], score: Callable[[str], float]):
        self._texts, self._score = texts, score
        self._scores: dict[str, float] = {}

    def __getitem__(self, url: str) -> float:
        if url not in self._scores:
            text = self._texts.get(url)
            if not text:
                raise KeyError(url)
            self._scores[url] = self._score(text)
        return self._scores[url]

    def __iter__(self) -> Iterator[str]:
        return (url for url, text in self._texts.items() if text)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def size_downloader(settings: Any, host_rate: float, host_concurrency: int, in_flight: int,
                    seeds: list[str]) -> int | None:
    """Give Scrapy's downloader room for a scheduled colony over the seeds' hosts, when the
    user has not set ``CONCURRENT_REQUESTS`` (Scrapy's default, 16, bounds the whole colony's
    requests in flight: 50 hosts at 1 request/s answering in 300 ms need 17, and each host's
    first request waits for its robots.txt and then for its spacing, holding its room for a
    second or more): ``CONCURRENT_REQUESTS`` becomes
    :func:`~newsforagers.strategies.scheduled.budget.downloader_room` (at the add-on's
    priority; the forager's own cap, Little's law on the latency it measures, decides what is
    in flight under it). Returns the new value, or None when nothing changed (set by the user,
    or already as large). ``settings``: the crawler's, not yet frozen; ``host_rate`` etc.:
    ``FORAGERS_HOST_RATE``, ``FORAGERS_HOST_CONCURRENCY``, ``FORAGERS_SCHEDULE_IN_FLIGHT``."""
    if (settings.getpriority("CONCURRENT_REQUESTS") or 0) > SETTINGS_PRIORITIES["default"]:
        return None
    politeness = Politeness.from_settings(settings, host_rate, host_concurrency)
    hosts = len({host_of(url) for url in seeds})
    room = downloader_room(hosts, politeness.rate, in_flight, politeness.concurrency)
    if room <= settings.getint("CONCURRENT_REQUESTS", 16):
        return None
    settings.set("CONCURRENT_REQUESTS", room, priority="addon")
    return room


class ScheduledDriver(Driver):
    """The driver of a :class:`~newsforagers.strategies.scheduled.ScheduledMind`: no step barrier, a
    request whenever the mind has one, and a wake-up of the engine when the next listing is due
    (the mind idles in simulated time; ``clock`` turns that into wall time)."""

    def __init__(self, crawler: Crawler, spider: Any, forager: Any, step_timeout: float, clock: Any,
                 store: ColonyStore, **where: Any):
        super().__init__(crawler, spider, forager, step_timeout, store, **where)
        self.clock = clock
        # the listing demand and priors last shared in the store, per host
        self._demand: tuple[dict[str, float], dict[str, float]] | None = None
        self._demand_at = float("-inf")  # time.monotonic() when it was
        # the other members' demands and priors per host, and time.monotonic() when read
        self._others: tuple[dict[str, float], dict[str, float]] | None = None
        self._others_at = float("-inf")
        self.in_flight_cap = forager.config.schedule_in_flight  # the least; see _cap()
        # the topical mode: the colony's topic query as last read from the store (None: the
        # topic's own words), when (time.monotonic()), and the store key of the topic's state
        self._query: dict[str, float] | None = None
        self._query_at = float("-inf")
        self._topic_key: str | None = None
        self.concurrency = crawler.settings.getint("CONCURRENT_REQUESTS", 16)
        self._issued: dict[int, tuple[Any, float]] = {}  # id(fetch) -> (fetch, when, the stall clock)
        self._issued_hosts: dict[int, str] = {}  # id(fetch) -> its host
        self._issued_requests: dict[int, Request] = {}  # id(fetch) -> its (last) request
        # a stalled answer's request asked again (FORAGERS_SCHEDULE_HEDGE; driver/hedge.py)
        self.hedges = Hedges() if forager.config.schedule_hedge else None
        self._latencies: deque[float] = deque(maxlen=LATENCY_SAMPLES)  # Scrapy's download_latency
        # their mean (Little's law), their slow end (a host's pace: its harvest's cap) and the
        # age of a stalled request, worked out once an answer comes, not at every request decided
        self._latency, self._slow, self._stall_after = 0.0, 0.0, stall_after(())
        # (the hosts the listings are on, the sum of their rates, when counted)
        self._hosts: tuple[int, float, float] = (1, 0.0, float("-inf"))
        self._seed_hosts: set[str] | None = None  # the seeds' hosts (until the seeds change)
        self._rates_at = self._stats_at = float("-inf")  # time.monotonic() of the last reckonings
        # the CPU seconds of the decision that last reckoned the rates, and of those since; and
        # the process's CPU seconds then
        self._reckoning_cpu = self._since_reckoning = self._process_cpu = 0.0
        self._reckoning = False  # whether the decision under way reckons them
        # An unanswered request holds the forager no longer than Scrapy itself waits for one
        # download: a response that stalls after its headers is Scrapy's to time out, and the
        # forager's next request is decided meanwhile (its retry comes back as any answer)
        download_timeout = crawler.settings.getfloat("DOWNLOAD_TIMEOUT", 0.0)
        self.stall.limit = min(step_timeout, download_timeout) if download_timeout > 0 else step_timeout
        self.download_timeout = download_timeout
        self._deadline = answer_deadline(self._stall_after, download_timeout)  # a download's time
        rate = self._host_rate()
        # while a cap holds, look again about when the host budget lets the next request go
        self._recheck = 1.0 / rate if rate > 0 else 0.05
        forager.colony_entry = self._colony_entry
        forager.colony_successor = self._colony_successor
        forager.share_successor = self._share_successor
        self._adopted_at = float("-inf")  # time.monotonic() of the last look at the hand-back list

    def next_step_request(self) -> Request | None:
        # the CPU seconds the forager spends deciding (its scheduling cost, apart from reading
        # pages): newsforagers/scheduled/decide_cpu
        began = time.thread_time()
        try:
            return self._next_request()
        finally:
            spent = time.thread_time() - began
            self.crawler.stats.inc_value("newsforagers/scheduled/decide_cpu", spent)
            if self._reckoning:
                self._reckoning, self._reckoning_cpu, self._since_reckoning = False, spent, 0.0
                self.crawler.stats.inc_value("newsforagers/scheduled/reckonings")
                self.crawler.stats.inc_value("newsforagers/scheduled/reckoning_cpu", spent)
            else:
                self._since_reckoning += spent

    def _next_request(self) -> Request | None:
        if not self._restored:
            self._restore()
        self._start_checkpoints()
        self._adopt()
        hedge = self._hedge()  # (a stalled answer's twin is no new request: the cap is not its)
        if hedge is not None:
            return hedge
        if self._held():
            return None
        if not self.clock.ready and not self._borrow_clock() and self.mind.in_flight:
            self._wake_in(self._recheck)  # the first answer will say what time the site has
            return None
        now = time.monotonic()
        if self._reckoning_due(now):
            self._rates_at, self._reckoning, self._process_cpu = now, True, time.process_time()
            self._set_poll_rates()
            self.mind.schedule.reckon()  # the mind's reckonings of its budgets follow, at this decision
        # a host with its share in flight (a slow or stalled answer there) is passed over: its
        # work is decided when it has room, and the next host's goes meanwhile
        busy = self._busy_hosts()
        fetch = self.mind.next_fetch(self.clock.now(), busy, busy.harvest)
        if busy.passed:
            self.crawler.stats.inc_value("newsforagers/scheduled/host_busy")
        if self.mind.fit_request is not None:
            self._fit_in_background()
        if now - self._stats_at >= _STATS_EVERY:  # (and at the end: finish)
            self._stats_at = now
            self._update_stats()
        if fetch is None:
            # wake the engine when the next listing is due: its heartbeat (5 s) would be
            # ages on an accelerated site (50 simulated minutes at speed 600)
            if busy.passed:
                self._wake_in(max(0.01, min(self._recheck, busy.soonest)))
            if not self.mind.done:
                self._wake_later(self.mind.wait)
            return None
        self.stall.restart(self.mind.in_flight)
        self._issued[id(fetch)] = (fetch, self.stall.clock())
        self._issued_hosts[id(fetch)] = host_of(fetch.url)
        # (the engine asks again at once: the next call's _hedge() watches this request too)
        request = self._issued_requests[id(fetch)] = self.fetch_request(fetch)
        return request

    def _hedge(self) -> Request | None:
        """The second request of a fetch whose answer stalled (:mod:`newsforagers.driver.hedge`),
        or None (and the engine woken when one may be due)."""
        if self.hedges is None or not self._issued_requests:
            return None
        fetch, wait = self.hedges.due(self._in_flight_requests(), time.monotonic())
        if fetch is None:
            if wait != float("inf"):
                self._wake_in(max(0.05, wait))
            return None
        first = self._issued_requests[id(fetch)]
        self.hedges.hedge(fetch, first)
        request = self.fetch_request(fetch)
        request.meta[HEDGE_META] = True
        self._issued[id(fetch)] = (fetch, self.stall.clock())  # in flight again, on its host
        self._issued_requests[id(fetch)] = request
        self._hedge_stats()
        logger.debug("forager %s: %s asked again (its answer stalled)", self.name, request.url)
        return request

    def _in_flight_requests(self):
        for key, request in self._issued_requests.items():
            entry = self._issued.get(key)
            if entry is not None:
                yield entry[0], self._issued_hosts.get(key, ""), request

    def _hedge_stats(self) -> None:
        hedges = self.hedges
        stats = self.crawler.stats
        stats.set_value("newsforagers/scheduled/hedged", hedges.hedged)
        stats.set_value("newsforagers/scheduled/hedge_won", hedges.won)
        stats.set_value("newsforagers/scheduled/hedge_late", hedges.late)

    def first_answer(self, fetch: Any, response: Any) -> bool:
        """Whether ``response`` is the answer of ``fetch`` the mind reads: False for the later
        of a hedged fetch's two answers (counted ``newsforagers/scheduled/hedge_late``)."""
        if self.hedges is None or not self.hedges.hedged:
            return True
        first = self.hedges.answer(fetch, bool(response.meta.get(HEDGE_META)))
        self._hedge_stats()
        return first

    def failure_counts(self, fetch: Any) -> bool:
        """Whether a failed request of ``fetch`` is a failure the mind hears of: not while the
        other request of a hedged fetch may still answer, nor once it has."""
        if self.hedges is None or not self.hedges.hedged:
            return True
        counts = self.hedges.failure(fetch)
        self._hedge_stats()
        return counts

    @property
    def download_deadline(self) -> float:
        """Wall seconds a download of this forager may take before Scrapy gives it up and asks
        again (:func:`~newsforagers.strategies.scheduled.budget.answer_deadline`): its requests'
        ``download_timeout``, and its host's robots.txt's."""
        return self._deadline

    # -- compartments: the hosts this forager polls -------------------------------------------

    def take_share(self, seeds: list[str]) -> None:
        """The colony dealt this forager ``seeds`` by host (the root: at the population's
        start): its weblog keeps their hosts' listings only."""
        gone = self.mind.keep_share(seeds)
        self.seeds = list(seeds)
        self._forget_hosts()
        logger.info("forager %s: polls %d host(s) of the seeds (%d listing(s) left to the others)",
                    self.name, len({host_of(url) for url in seeds}), gone)

    def hand_back(self) -> list[dict]:
        """A retiring forager's listings (with what it learnt of them) for the others."""
        return self.mind.hand_back()

    def _adopt(self) -> None:
        """Now and then: take over the listings a retiring forager handed back to the colony
        (:mod:`newsforagers.colony.handback`): their hosts would have no forager left."""
        now = time.monotonic()
        if now - self._adopted_at < ADOPT_EVERY or self.mind.retired:
            return
        self._adopted_at = now
        entries, handed_by = take_handed_back(self.store)
        if not entries:
            return
        adopted = self.mind.adopt(entries)
        self._forget_hosts()
        self.crawler.stats.inc_value("newsforagers/scheduled/listings_adopted", adopted)
        logger.info("forager %s: adopted %d listing(s) handed back by %s", self.name, adopted,
                    ", ".join(str(name) for name in handed_by) or "a retired forager")
        self._wake_in(0.0)

    def _busy_hosts(self) -> "_BusyHosts":
        """Which hosts have as many of this forager's requests in flight (stalled ones left
        out) as their own cap allows (:func:`in_flight_cap` on each host's rate): a listing
        visit's at the mean answer (decided as late as can be: what a listing's answer brings
        may be worth more than another visit), the harvest's at the slow answer
        (:func:`slow_latency`: known stories wait for no answer slower than the mean)."""
        now = self.stall.clock()
        counts: dict[str, int] = {}
        for key, (_, issued) in self._issued.items():
            if now - issued <= self._stall_after:
                host = self._issued_hosts.get(key, "")
                counts[host] = counts.get(host, 0) + 1
        budget = getattr(self.colony, "budget", None)
        return _BusyHosts(counts, lambda host: in_flight_cap(self.in_flight_cap, self._rate_of(host),
                                                               self._latency, self.concurrency),
                          budget.ready_in if budget is not None else None, max(READY_MARGIN, self._latency),
                          lambda host: in_flight_cap(self.in_flight_cap, self._rate_of(host),
                                                     self._slow, self.concurrency))

    def fetch_request(self, fetch: Any) -> Request:
        """The Scrapy request of ``fetch`` (the spider builds it); ``revisit``: a listing
        visited before, which may be asked whether it changed (a conditional request)."""
        entry = self.mind.schedule.entry(fetch.url) if fetch.kind == "listing" else None
        request = self.spider.make_fetch_request(fetch, revisit=entry is not None and bool(entry.visits))
        # a stalled answer is given up after ten usual ones and asked again (Scrapy's retry),
        # instead of holding what it would show for DOWNLOAD_TIMEOUT
        request.meta.setdefault("download_timeout", self._deadline)
        return request

    # -- the door: what the spider hands over ------------------------------------------------

    def page(self, fetch: Any, now: float, *, text: str, links: list[str], published: datetime | None,
             listed: dict[str, datetime] | None = None, contexts: Mapping[str, str] | None = None) -> None:
        """The page of ``fetch`` arrived at simulated time ``now``: the mind reads it, and a
        listing's entry is shared with the colony. ``contexts``: in the topical mode, the
        context of each link the page lists (:func:`~newsforagers.pages.links.link_contexts`),
        scored by :meth:`link_scores` for the order of the news it shows (read no sooner than
        the mind asks the first score: a :class:`~newsforagers.pages.links.DeferredContexts`
        walks its page then)."""
        scores = self.link_scores(contexts) if contexts is not None else None
        self.mind.on_page(fetch, now, text=text, links=links, published=published, listed=listed,
                          scores=scores)
        self.page_read(fetch)

    def link_scores(self, contexts: Mapping[str, str] | None) -> Mapping[str, float]:
        """In the topical mode, each link's relevance to the topic by its ``contexts`` (url ->
        text; Pant & Srinivasan's link context): its cosine to the colony's topic query as the
        reinforcing agent last fitted it (the store's topic state: a query moved by what the
        colony read, docs/topics.md), else to the topic's own words (the papers' relevance,
        before the first fit or with ``FORAGERS_TOPIC_FEEDBACK = "off"``). Worked out as the
        mind asks, once a link: it asks for the stories it queues, not the listing's others it
        has met before (a day archive lists the whole day at every visit). Empty without a
        topic."""
        topic = getattr(self.spider, "topic", None)
        if topic is None or contexts is None:
            return {}
        stats = self.crawler.stats

        def score(text: str) -> float:
            stats.inc_value("newsforagers/topic/links_scored")
            return topic.relevance(text, query=self._colony_query())  # (paced: read again once in 5 s)

        return _Scores(contexts, score)

    def _colony_query(self) -> dict[str, float] | None:
        """The colony's topic query from the store, read again once a :data:`_QUERY_EVERY` at
        most; None while there is none (or the state there is not of the right shape: the
        agent counts and replaces it, see ``ForagersPipeline._adopt``)."""
        now = time.monotonic()
        if now - self._query_at < _QUERY_EVERY:
            return self._query
        self._query_at = now
        if self._topic_key is None:
            self._topic_key = topic_state_key(topic_text(self.mind.config.topic))
        state = self.store.get_value(self._topic_key)
        try:
            self._query = stored_query(state.get("query")) if isinstance(state, dict) else None
        except ValueError:
            self._query = None
        return self._query

    def not_modified(self, fetch: Any, now: float) -> None:
        """A conditional revisit answered 304: a visit that showed no new link."""
        self.mind.on_not_modified(fetch, now)
        self.page_read(fetch)

    def fetch_failed(self, fetch: Any, transient: bool = False) -> None:
        """``fetch`` failed; ``transient``: for a while (unreachable, 429, 5xx), not for good."""
        self.mind.on_failed(fetch, transient)

    def answered(self, fetch: Any, latency: float | None) -> None:
        """Scrapy answered ``fetch`` (a response, or a failure: ``latency`` None) after
        ``latency`` wall seconds of download (``download_latency``: from sending the request
        to the response's headers, the downloader's queue left out)."""
        self._issued.pop(id(fetch), None)
        self._issued_requests.pop(id(fetch), None)
        host = self._issued_hosts.pop(id(fetch), None)
        if latency is not None and latency >= 0:
            if self.hedges is not None and host is not None:  # (a request this driver issued)
                self.hedges.observe(host, float(latency))
            self._latencies.append(float(latency))
            self._latency, self._stall_after = typical_latency(self._latencies), stall_after(self._latencies)
            self._slow = max(self._latency, slow_latency(self._latencies))
            self._deadline = answer_deadline(self._stall_after, self.download_timeout)

    def add_feeds(self, urls: list[str], now: float, updated: dict[str, datetime] | None = None) -> int:
        """Feeds and sitemaps the site announces join the weblog as listings (how many did)."""
        return self.mind.add_feeds(urls, now, updated)

    def _borrow_clock(self) -> bool:
        """Set the site's clock from the colony's last reading of it, in the store (a forager
        born in a split has not read it yet: its visits would be dated by the system clock,
        years away from a replay's, and its listings never due again)."""
        now = site_time_now(self.store.get_value(SITE_CLOCK), time.time())
        if now is None:
            return False
        self.clock.observe(datetime.fromisoformat(now))
        return True

    def _colony_entry(self, url: str):
        """The colony's weblog entry for ``url`` as its forager last shared it in the store (a
        listing a split gave away), or None."""
        return entry_from((self.store.get_url(LISTING_KEY + url) or {}).get(LISTING_FIELD))

    def _colony_successor(self, url: str) -> str | None:
        """The successor a live forager of the colony (or this one) took of the listing ``url``
        (:meth:`_share_successor`), or None: one whose forager is gone is no one's to poll,
        and may be taken again."""
        record = self.store.get_url(LISTING_KEY + url) or {}
        successor, by = record.get(SUCCESSOR_FIELD), record.get(SUCCESSOR_BY_FIELD)
        if not isinstance(successor, str) or not successor or not isinstance(by, str):
            return None
        return successor if by == self.name or self.store.is_member(by, time.time()) else None

    def _share_successor(self, old: str, new: str) -> None:
        """This forager took ``new`` as the listing ``old`` was: the colony's other foragers
        learn it from the store (the holder of ``old`` stops polling it; one meeting the same
        link does not take it twice)."""
        self.store.put_url(LISTING_KEY + old, {SUCCESSOR_FIELD: new, SUCCESSOR_BY_FIELD: self.name})

    def page_read(self, fetch: Any) -> None:
        """After a listing visit: share its weblog entry with the colony (the store's per-URL
        record), so that a successor link another forager meets takes it over; and when
        another forager has taken the successor of this listing (it met the link that took its
        place), stop polling it (``ScheduledMind.succeeded_elsewhere``)."""
        if fetch.kind != "listing":
            return
        successor = self._colony_successor(fetch.url)
        if successor is not None:
            self.mind.succeeded_elsewhere(fetch.url, successor)
        entry = self.mind.schedule.entry(fetch.url)
        if entry is not None:
            evicted = self.store.evicted_urls
            self.store.put_url(LISTING_KEY + fetch.url, {LISTING_FIELD: asdict(entry)})
            if self.store.evicted_urls > evicted:
                self.crawler.stats.inc_value("newsforagers/store/url_records_evicted",
                                             self.store.evicted_urls - evicted)

    def _share_demand(self, own: dict[str, float], priors: dict[str, float]) -> None:
        # when it changes, and now and then (a member that joins again after its lease ran
        # out has no fields left); ``demand``: the forager's in all (what a reader of the
        # population wants), ``demands``: per host; ``priors``: its listings' priors per host
        now = time.monotonic()
        shared, age = self._demand, now - self._demand_at
        if shared is None or age >= _SHARE_DEMAND_EVERY:
            due = True
        elif (own, priors) == shared:
            due = False
        else:  # changed: at once when a host came or went, else once a _SHARE_DEMAND_LEAST
            due = age >= _SHARE_DEMAND_LEAST or own.keys() != shared[0].keys() or priors.keys() != shared[1].keys()
        if due:
            self._demand, self._demand_at = (dict(own), dict(priors)), now
            self.store.update_member(self.name, {"demand": sum(own.values()), "demands": own, "priors": priors})

    def _reckoning_due(self, now: float) -> bool:
        """Whether the rates are reckoned again at this decision (``now``: time.monotonic()):
        :data:`_RATES_EVERY` wall seconds after the last reckoning at least, :data:`_RATES_MOST`
        at most, and in between, unless the process has been idle more than busy since (CPU
        under :data:`_BUSY` of the wall time), once the decisions since have cost the CPU that
        keeps the reckonings (the decision that made the last one: its cost) at
        :data:`_RECKONING_SHARE` of the deciding."""
        since = now - self._rates_at
        if since < _RATES_EVERY:
            return False
        # (the process's CPU, a system call, asked last: only while the share would hold it back)
        return since >= _RATES_MOST \
            or self._since_reckoning * _RECKONING_SHARE >= self._reckoning_cpu * (1.0 - _RECKONING_SHARE) \
            or time.process_time() - self._process_cpu < _BUSY * since

    def _set_poll_rates(self) -> None:
        """The mind's listing visits per simulated hour, per host (``poll_rates``) and in
        all (``poll_rate``): on each host its listings are on, ``FORAGERS_SCHEDULE_POLL_SHARE``
        of the colony's budget for that host (``FORAGERS_HOST_RATE`` requests per wall second,
        the site's clock ``speed`` times faster), times this forager's share of the colony's
        listing demand on that host (``HubSchedule.demand``: one threshold per host for the
        whole colony, so a forager holding quiet listings does not spend as much as one holding
        the day's busiest; each forager shares its own, per host, in the store). None (and no
        rates) without a budget, or while none of its listings has paid.

        ``spare_rates``: per host, the same share of the host's budget in proportion to this
        forager's demand *and* its listings' priors there (``HubSchedule.prior_demands``:
        listings visited that have not paid yet, at one story per floor), against the
        colony's: what a forager may spend on the host's listings in all, the threshold's
        visits and the spare ones (a host none of whose listings has paid yet included)."""
        share = self.mind.config.schedule_poll_share
        own = self.mind.schedule.demands()
        priors = self.mind.schedule.prior_demands()
        self._share_demand(own, priors)
        rates: dict[str, float] = {}
        spares: dict[str, float] = {}
        if share > 0 and (own or priors):
            others, others_prior = self._others_demands()
            for host in own.keys() | priors.keys():
                demand, host_rate = own.get(host, 0.0), self._rate_of(host)
                if demand > 0:
                    rate = poll_rate(share, host_rate, self.clock.speed, demand, demand + others.get(host, 0.0))
                    if rate is not None:
                        rates[host] = rate
                mine = demand + priors.get(host, 0.0)
                spare = poll_rate(share, host_rate, self.clock.speed, mine,
                                  mine + others.get(host, 0.0) + others_prior.get(host, 0.0))
                if spare is not None:
                    spares[host] = spare
        self.mind.poll_rates = rates or None
        self.mind.poll_rate = sum(rates.values()) if rates else None
        self.mind.spare_rates = spares or None

    def _others_demands(self) -> tuple[dict[str, float], dict[str, float]]:
        """The other live members' demands and priors, summed per host, as the store has them:
        read again once a ``_SHARE_DEMAND_LEAST`` at most (each shares a change no more often)."""
        now = time.monotonic()
        if self._others is not None and now - self._others_at < _SHARE_DEMAND_LEAST:
            return self._others
        others: dict[str, float] = {}
        others_prior: dict[str, float] = {}
        for name, member in self.store.members(time.time()).items():
            if name == self.name:
                continue
            for field, sums in (("demands", others), ("priors", others_prior)):
                theirs = member.fields.get(field)
                if isinstance(theirs, dict):
                    for host, demand in theirs.items():
                        sums[host] = sums.get(host, 0.0) + float(demand or 0.0)
        self._others, self._others_at = (others, others_prior), now
        return self._others

    def _host_rate(self) -> float:
        """Requests per wall second the colony's budget allows the site (its first seed's
        host): ``FORAGERS_HOST_RATE`` with ``DOWNLOAD_DELAY`` and ``DOWNLOAD_SLOTS`` folded in."""
        budget = getattr(self.colony, "budget", None)
        seeds = self.seeds
        if budget is None or not seeds:
            return self.mind.config.host_rate
        return budget.rate_of(host_of(seeds[0]))

    def _held(self) -> bool:
        """True while the forager has ``FORAGERS_SCHEDULE_IN_FLIGHT`` requests unanswered: its
        next request is decided when one comes back (the budget would only hold it in the
        downloader's queue, behind requests decided earlier). The stall watch ends the wait:
        requests Scrapy dropped without an answer (an off-site redirect) count as failed at
        once; a request never answered (lost, or stalled on a hostile site) holds it for
        ``step_timeout`` or ``DOWNLOAD_TIMEOUT`` wall seconds at most, whichever is shorter."""
        in_flight = self.mind.in_flight
        cap = self._cap()
        if not cap:
            return False
        if in_flight <= 0:
            self._forget_issued()  # every one answered, as the mind counts
        now = self.stall.clock()
        ages = [now - issued for _, issued in self._issued.values()]
        if in_flight - stalled(ages, self._stall_after) < cap:
            return False
        outcome, recheck = self.stall.check(in_flight)
        if outcome == "dropped":
            self._forget_issued()
            lost = self.mind.requests_lost()
            self.crawler.stats.inc_value("newsforagers/scheduled/dropped", lost)
            return False
        if outcome == "timeout":
            # unanswered too long: they keep their requests (Scrapy ends them), not a turn
            self._forget_issued()
            self.crawler.stats.inc_value("newsforagers/scheduled/unanswered")
            return False
        self._wake_in(max(0.05, min(self._recheck, recheck)))
        return True

    def _forget_issued(self) -> None:
        self._issued.clear()
        self._issued_hosts.clear()
        self._issued_requests.clear()

    def _cap(self) -> int:
        """The forager's in-flight cap over all its hosts
        (:func:`~newsforagers.strategies.scheduled.budget.in_flight_cap`): the rate the budget
        allows it — the sum of the host rates of the hosts its listings are on — times the slow
        latency of its recent answers (:func:`slow_latency`: the harvest's, the larger), at
        least ``FORAGERS_SCHEDULE_IN_FLIGHT`` a host, at most ``CONCURRENT_REQUESTS``. Each host
        has its own caps too (:meth:`_busy_hosts`)."""
        hosts, rate = self._listing_hosts()
        cap = in_flight_cap(self.in_flight_cap * hosts, rate, self._slow, self.concurrency)
        self.crawler.stats.set_value("newsforagers/scheduled/in_flight_cap", cap)
        return cap

    def _rate_of(self, host: str) -> float:
        budget = getattr(self.colony, "budget", None)
        return budget.rate_of(host) if budget is not None else self.mind.config.host_rate

    def _listing_hosts(self) -> tuple[int, float]:
        """How many hosts the forager's listings (and seeds) are on (at least 1), and the sum
        of their rates: counted again every few seconds."""
        hosts, rate, at = self._hosts
        now = time.monotonic()
        if now - at >= _HOSTS_EVERY:
            if self._seed_hosts is None:  # (1,000 seeds: parsed once, not every few seconds)
                self._seed_hosts = {host_of(url) for url in self.seeds}
            found = self.mind.schedule.hosts() | self._seed_hosts
            hosts, rate = max(1, len(found)), sum(self._rate_of(host) for host in found or {""})
            self._hosts = (hosts, rate, now)
        return hosts, rate

    def _forget_hosts(self) -> None:
        """The forager's hosts changed (a share taken, listings adopted): they are counted
        again, and the listing visits their budgets allow reckoned again, at the next request."""
        self._hosts = (1, 0.0, float("-inf"))
        self._seed_hosts = None
        self._rates_at = float("-inf")

    def _walk_summary(self) -> str:
        return f"harvest queue of {self.mind.queued} URLs"

    def _wake_later(self, wait: float) -> None:
        if wait == float("inf"):
            return
        self._wake_in(max(0.05, wait / self.clock.speed))

    def reward_received(self, forager: str, origin: Any, profit: float, rewarded: bool,
                        on_topic: bool | None = None, **kwargs) -> None:
        if forager == self.name:
            # the topical mode: a listing is credited for the documents on the topic it led to
            # (the agent's judgement; None without a topic); origin: the listing visit
            self.mind.on_reward(origin, profit, rewarded, on_topic is not False, url=kwargs.get("url"))



class _BusyHosts:
    """Whether a host has its share of a forager's requests in flight: ``counts`` (host ->
    requests in flight, stalled ones left out) against ``cap(host)``, each host's cap worked
    out once; or whether the colony's host budget lets no request go to it for more than
    ``margin`` seconds (``ready_in(host)``: its spacing, a pause): a request handed over now
    would wait in the budget, holding one of the forager's requests in flight (at most
    ``CONCURRENT_REQUESTS``) that another host could use now, and committed to before it can
    go. ``passed``: whether any host was found busy; ``soonest``: the seconds until the first
    host found waiting for its budget is ready (inf: none). Called, it answers for a listing
    visit (``cap``); :meth:`harvest` for the harvest queue's fetches (``harvest_cap``, as large
    or larger; ``cap`` when not given)."""

    def __init__(self, counts: dict[str, int], cap: Callable[[str], int],
                 ready_in: Callable[[str], float] | None = None, margin: float = 0.0,
                 harvest_cap: Callable[[str], int] | None = None):
        self.counts, self.cap = counts, cap
        self.harvest_cap = harvest_cap if harvest_cap is not None else cap
        self.ready_in, self.margin = ready_in, margin
        self.passed = False
        self.soonest = float("inf")
        self._answers: dict[str, bool] = {}
        self._harvest_answers: dict[str, bool] = {}
        self._waiting: dict[str, bool] = {}

    def __call__(self, host: str) -> bool:
        return self._busy(host, self._answers, self.cap)

    def harvest(self, host: str) -> bool:
        return self._busy(host, self._harvest_answers, self.harvest_cap)

    def _busy(self, host: str, answers: dict[str, bool], cap: Callable[[str], int]) -> bool:
        busy = answers.get(host)
        if busy is None:
            held = self.counts.get(host, 0)
            limit = cap(host) if held else 0
            busy = answers[host] = bool(held and limit and held >= limit) or self._waits(host)
        self.passed = self.passed or busy
        return busy

    def _waits(self, host: str) -> bool:
        """Whether the host's budget holds a request handed over now longer than ``margin``
        (asked once a host, for the listing visits and the harvest alike)."""
        waits = self._waiting.get(host)
        if waits is None:
            waits = False
            if self.ready_in is not None:
                wait = self.ready_in(host)
                if wait > self.margin:
                    waits = True
                    self.soonest = min(self.soonest, wait)
            self._waiting[host] = waits
        return waits
