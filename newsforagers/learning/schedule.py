"""The weblog run as a scheduler: when to revisit which listing page (``scheduled``).

Beyond the papers (DESIGN.md, "Where the papers fall short"): the papers draw a path's start
at random from the weblog's top 10, blind to how long a listing has gone unvisited. Here each
weblog entry (a listing page: a home page, a section front, a tag page) keeps

- ``rate``: its *novelty rate*, novel documents per simulated hour found through it. A visit
  whose listed links gave ``n`` novel documents ``Δ`` hours after the previous visit observes
  ``n / Δ``, and ``rate ← (1 − β)·rate + β·n/Δ`` (the weblog's β). The update is linear in
  ``n``, so it is applied piecewise: ``(1 − β)·rate`` when the visit's page arrives
  (:meth:`HubSchedule.visited`), ``+ β/Δ`` for each novel document credited to it later
  (:meth:`HubSchedule.credit`), as the listed links are fetched. The first visit observes
  ``n / window`` (β = 1): a listing showing ``n`` documents younger than the novelty window
  (24 h) publishes at least that many a window — or the rate the page's own dates show of
  its stories within the window (``fresh_rate``), when that is higher: it holds from the
  page's arrival, where the credits come as the listed stories are fetched;
- ``last``: the simulated time of its last visit (set when the visit is *begun*, so a listing
  is never requested twice at once).

At time ``t`` an entry's expected return is ``rate·(t − last)`` (novel documents waiting on it).
The next visit goes to the entry with the highest expected return among those

- not visited for at least ``min_interval`` seconds (politeness: a URL is never polled faster),
- whose expected return reaches ``threshold`` — *or* that have waited ``max_interval``
  seconds (the floor: nothing starves, and a listing whose rate was underestimated is seen
  again; for a listing that has never paid, as long as its own dates say one new story takes
  on it, between ``max_interval`` and the novelty window, or, when it dates nothing,
  ``max_interval`` doubled after each visit, up to the window — but ``max_interval`` for
  today's page of a day family another page of which paid: today's archive, empty at dawn).

An entry added without a prior is never visited yet and goes first (the optimistic prior); an
entry may also be added with a prior rate (a listing found on a page that never paid starts
with that page's rate, so a chain of archive pages is not walked at full speed). When nothing is
due, :meth:`HubSchedule.next_due` says how long until something is, and the forager idles: no
request without an expected return. A visit that showed links not seen before and got no
novel document for them is *wasted*; an entry with ``barren_after`` wasted visits and no novel
document ever (archive chains, calendar traps) is *barren*: remembered, so it is not added
again, and never visited. A novel document off the topic (the topical mode: not credited,
:meth:`HubSchedule.off_topic`) is a novel document all the same: its listing lists news, and is
no trap. Visits that showed nothing new (a quiet front) are no evidence.
Traps come in families (one archive page per day, one calendar page per month): URLs of one
*shape* (the path with every run of digits as ``N``: ``/archive/N/N/N/``) of which
``barren_after`` are barren and none ever paid are not added any more.

A day's page (its URL names a day: ``/archive/2024/03/05/``) is *closed* after a visit begun
once another page of its family (same host, same shape) naming a later day had shown dated
stories: the site has moved on to a later day, every story of the earlier one was published
before, so that visit saw all the page will ever list (yesterday's archive beside today's);
also, with no further visit, when the earliest story the later day's page dates was published
before that page's last visit began (:meth:`HubSchedule.visited`'s ``earliest``).
A closed listing is remembered, like a barren one, and never visited again; it is no evidence
against its family. The day is the site's own (a page of the later day showing stories), not
the UTC day: a site west of Greenwich publishes into its day for hours after UTC's midnight.
Where a day ends in time (:meth:`HubSchedule.day_end`: today's page, a day's page that can no
longer grow, a day beyond the window) is the site's midnight, its UTC offset learnt from the
days its stories' URLs name (:meth:`HubSchedule.observe_day`, :mod:`newsforagers.learning.siteday`).

A listing that has never been read (a seed, a link never fetched) and whose visits failed
``give_up_after`` times in a row (connection refused, an error status, not HTML) is given up:
remembered like a barren one (:meth:`HubSchedule.failed`), as the papers' forager drops a
starting URL that keeps failing (``FORAGERS_START_FAILURES``). Until then it is tried again at
once (its request already went through Scrapy's retries): a forager whose every seed is dead
is left with an empty schedule and ends. A listing that was read before is never given up for
failing: it waits its floor, as after a wasted visit.

A threshold that follows the budget (docs/algorithms.md): with ``poll_rate`` ``P``
(visits per simulated hour the forager may spend on listings) :meth:`HubSchedule.next_due`
lowers the threshold to the one at which the expected visits use that rate. Visiting each
listing when ``rate·Δ²/2 = θ`` makes ``Σ √(rate_i / 2θ)`` visits an hour, so
``θ = (Σ √rate_i)² / (2·P²)`` (``return``: ``rate·Δ = θ``, ``θ = Σ rate_i / P``). Spare budget
goes to the listings that pay, in the proportions that minimise the mean lag, instead of
idling; a scarce budget keeps the configured threshold. Foragers sharing one budget split it in
proportion to their :meth:`HubSchedule.demand`, which gives all of them the same threshold.

The spare budget (docs/algorithms.md, "Quiet listings: the spare budget"): the visits a budget
allows beyond what the threshold is given (``next_due``'s ``spare``; the caller's yield bound
withheld them, or no listing has paid yet) are spent after everything due, on the visited
listings at their *spare rate* ``max(rate, one story per floor)`` (:meth:`HubSchedule.spare_rate`),
each due after ``Σ√ρ_i / (S·√ρ)`` hours: a quiet listing waits minutes, not its floor's hours,
when its host has the budget.

Daily and weekly rhythms (``rhythm``; :mod:`newsforagers.learning.rhythm`): the
schedule keeps the site's hour-of-week publication profile ``p`` (:attr:`HubSchedule.profile`,
fed by the forager with the dates it sees) and ``rate`` is a *level*: stories per average hour,
the rate at ``t`` being ``rate·p(t)``. Intervals are counted in average hours (``∫ p``): a visit
observes ``n / ∫_a^b p``; the expected return is ``rate·∫_{last}^{t} p`` and the waiting lag
``rate·∫_{last}^{t} p(s)(t − s) ds``; the budget's threshold and the yield bound use the rates of
the hour; the floor counts hours of ``√p``. Without a profile, or with a flat one (no dated story
yet), every number is the constant-rate one above.

Pure: times are numbers (simulated seconds) passed in; random choices take an explicit
``numpy.random.Generator``.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from dataclasses import fields as dataclass_fields
from datetime import UTC
from heapq import heapify, heappop, heappush
from typing import Callable, Iterable, Iterator, Mapping
from urllib.parse import urlsplit

import numpy as np

from newsforagers import defaults
from newsforagers.learning.rhythm import Rhythm, RhythmProfile
from newsforagers.learning.siteday import DAY, SiteDays
from newsforagers.learning.urldays import url_day

HOUR = 3600.0
PRIORITIES = ("return", "lag")
_SPARE = -0.5  # the first item of a due key set by the spare budget: below the floor's 0
#: Simulated seconds for which the thresholds and spare factors reckoned for one mapping of
#: host budgets hold (HubSchedule._reckon_hosts), as long as the budgets are the same; the
#: stories' rate of the scheduled strategy's budget is reckoned as often.
RECKONING = 60.0
#: Simulated seconds within which a due time kept between decisions is not trusted to say a
#: listing is not due yet (worked out again, exactly): far above the floats' rounding.
_DUE_MARGIN = 1e-3
_UNSET = object()  # (an argument not given: None is a value of it)


@dataclass
class Entry:
    url: str
    rate: float | None = None  # novel documents per simulated hour; None: never visited
    last: float | None = None  # simulated time of the last visit begun (or of its prior)
    visits: int = 0
    paid: int = 0  # novel documents credited to it in all
    evidence: int = 0  # visits that showed links not seen before
    barren: bool = False
    in_flight: bool = False
    interval: float | None = None  # hours between the last visit and the one before (None: first)
    credited: int = 0  # novel documents credited to the last visit
    listed_rate: float | None = None  # stories per hour its own dates showed at the last visit
    failures: int = 0  # visits in a row that could not be made
    covered: bool = False  # the fresh links of its last visit were all another forager's
    closed: bool = False  # a past day's page read after its site moved on: nothing more to list
    subsumed: bool = False  # at its last visit another listing of its host showed every story
    since: float | None = None  # the start of the span the visit begun covers (the last one read)
    off_topic: int = 0  # novel documents found through it off the topic (not credited): news, no trap

    # Not fields (never saved): the due time HubSchedule.next_due kept for it, the set of URLs
    # its schedule looks at again at its next decision, and its place in the schedule's order.
    _due = None
    _sink = None
    _order = None

    def __setattr__(self, name: str, value) -> None:
        # Any field set forgets the due time HubSchedule.next_due kept for it: whatever sets
        # it, the next decision works it out again.
        # (object.__setattr__, not __dict__: its instances keep CPython's fast attribute reads)
        object.__setattr__(self, name, value)
        object.__setattr__(self, "_due", None)
        sink = self._sink
        if sink is not None:
            sink.add(self.url)

    def expected(self, now: float) -> float:
        """Novel documents expected on it at ``now`` (infinite before the first visit)."""
        if self.rate is None or self.last is None:
            return math.inf
        return self.rate * max(0.0, now - self.last) / HOUR

    def waiting_lag(self, now: float) -> float:
        """Document-hours of discovery lag waiting on it at ``now``: ``rate·Δ²/2``."""
        if self.rate is None or self.last is None:
            return math.inf
        hours = max(0.0, now - self.last) / HOUR
        return self.rate * hours * hours / 2.0


class HubSchedule:
    """Listing pages and when each is due (see the module docstring)."""

    def __init__(
        self,
        capacity: int = defaults.FORAGERS_SCHEDULE_SIZE,
        beta: float = defaults.FORAGERS_WEBLOG_BETA,
        min_interval: float = defaults.FORAGERS_SCHEDULE_MIN_INTERVAL,
        max_interval: float = defaults.FORAGERS_SCHEDULE_MAX_INTERVAL,
        threshold: float = defaults.FORAGERS_SCHEDULE_THRESHOLD,
        barren_after: int = defaults.FORAGERS_SCHEDULE_BARREN_AFTER,
        window: float = defaults.FORAGERS_NOVELTY_WINDOW,
        priority: str = defaults.FORAGERS_SCHEDULE_PRIORITY,
        give_up_after: int = defaults.FORAGERS_START_FAILURES,
        rhythm: bool = defaults.FORAGERS_SCHEDULE_RHYTHM,
    ):
        if not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"schedule capacity ({capacity!r}) must be an integer of at least 1.")
        if not 0.0 < beta <= 1.0:
            raise ValueError(f"schedule beta ({beta!r}) must be in (0, 1].")
        if min_interval < 0 or max_interval <= 0 or min_interval > max_interval:
            raise ValueError(f"schedule intervals ({min_interval!r}, {max_interval!r}) must satisfy "
                             "0 <= min_interval <= max_interval, max_interval > 0.")
        if threshold < 0:
            raise ValueError(f"schedule threshold ({threshold!r}) must be >= 0.")
        if not isinstance(barren_after, int) or barren_after < 1:
            raise ValueError(f"barren_after ({barren_after!r}) must be an integer of at least 1.")
        if window <= 0:
            raise ValueError(f"novelty window ({window!r}) must be > 0.")
        if not isinstance(give_up_after, int) or give_up_after < 1:
            raise ValueError(f"give_up_after ({give_up_after!r}) must be an integer of at least 1.")
        if priority not in PRIORITIES:
            raise ValueError(f"schedule priority ({priority!r}) must be one of {', '.join(PRIORITIES)}.")
        self.capacity = capacity
        self.beta = float(beta)
        self.min_interval = float(min_interval)
        self.max_interval = float(max_interval)
        self.threshold = float(threshold)
        self.barren_after = barren_after
        self.window = float(window)
        self.priority = priority
        self.give_up_after = give_up_after
        self._entries: dict[str, Entry] = {}
        self._unvisited = False  # may a listing never visited be in _entries (first_visit)
        # the floor's stretch under a scarce budget (next_due sets it; 1: max_interval as set)
        self._stretch = 1.0
        self._min_yield = 0.0  # the documents a visit due by the threshold expects (next_due sets it)
        self._last_threshold = math.inf  # the budget's threshold at the last next_due
        # with a budget per host (next_due's ``budgets``): each host's threshold and floor
        # stretch at the last next_due
        self._thresholds: dict[str, float] = {}
        self._stretches: dict[str, float] = {}
        self._hosts: dict[str, str] = {}  # url -> its host (a cache)
        self._shapes: dict[str, list[int]] = {}  # shape -> [barren entries, paying entries]
        # the site's publication profile: rates are levels × p(t); None: constant
        self.profile: RhythmProfile | None = RhythmProfile() if rhythm else None
        self._floors: dict[str, tuple[tuple, float]] = {}  # url -> (what its floor was computed from, floor)
        self._day_ends: dict[str, float | None] = {}  # url -> the UTC end of the date it names (day_end)
        # each host's UTC offset, from the days its stories' URLs name (observe_day)
        self.site_days = SiteDays(max_hosts=max(1_000, 4 * capacity))
        # (host, shape) of a day family -> the latest end of a day whose page showed dated stories
        self._family_days: dict[tuple[str, str], float] = {}
        self._closing: set[str] = set()  # visits in flight that close their day's page when read
        # listings made barren (closed ones aside) or dropped since the caller last asked (gone())
        self._gone: dict[str, None] = {}
        # whether the listing the last next_due returned was due by the spare budget alone
        self.spare_due = False
        # the hosts' thresholds and the spare budget's factors reckoned for the last budgets
        # (_reckon_hosts, _reckon_spare)
        self._host_reckoning: tuple | None = None
        self._spare_reckoning: tuple | None = None
        # who paces those reckonings: the simulated clock (every RECKONING seconds, as long as
        # the budgets are the same), or, once ``paced``, whoever calls reckon() (a crawler's
        # driver, by the CPU they cost it): then a reckoning holds until the next call
        self.paced = False
        self._reckonings = 0
        # what a listing's due time kept between decisions was worked out under (next_due,
        # _due_stamp): this schedule, a count of what changed since (a reckoning, the curve,
        # the families' pays, a site's day), the min_yield, and whether the spare budget was in
        self._token = object()
        self._changes = 0
        self._stamp_curve: Rhythm | None = None
        # per host, a count of the reckonings that changed what its listings' due times are
        # worked out from (its threshold, floor stretch, spare factor, its listings' spare
        # rates): a reckoning that leaves a host's numbers as they were keeps its due times
        self._host_changes: dict[str, int] = {}
        # The kept due times in order (next_due, _due_candidates): a heap of
        # (when it is to be looked at again, its order, url, the due time kept), the URLs to
        # be looked at at the next decision (a field set, a host's numbers changed, not kept),
        # the hosts whose numbers changed since the last decision, what the kept ones were
        # worked out under, and the listings' order (that of _entries) under a token
        self._kept: list[tuple] = []
        self._watch: set[str] = set()
        # host -> {url: entry} of the listings found due (or never visited) while their host was
        # to be skipped: passed over unseen at the decisions that follow while it still is
        self._parked: dict[str, dict[str, Entry]] = {}
        self._changed_hosts: set[str] = set()
        self._kept_stamp: tuple | None = None
        self._order_token = object()
        self._order_next = 0
        self._live: str | None = None  # a live entry's URL (__bool__)

    def _parameters(self) -> dict:
        return dict(capacity=self.capacity, beta=self.beta, min_interval=self.min_interval,
                    max_interval=self.max_interval, threshold=self.threshold,
                    barren_after=self.barren_after, window=self.window, priority=self.priority,
                    give_up_after=self.give_up_after, rhythm=self.profile is not None)

    # -- the rhythm --------------------------------------------------------------------

    def _curve(self, now: float | None) -> Rhythm | None:
        # the profile (estimated again at ``now`` when due; None: the one in use), or None
        # when rates are constant (no profile, or a flat one: then every number is computed
        # exactly as without a profile)
        if self.profile is None:
            return None
        curve = self.profile.curve(now)
        return None if curve.flat else curve

    def hours(self, start: float, end: float) -> float:
        """Average hours from ``start`` to ``end`` (POSIX seconds): ``∫ p`` with the rhythm,
        plain hours without one. A level times it is the stories expected."""
        curve = self._curve(end)
        if curve is None:
            return max(0.0, end - start) / HOUR
        return curve.integral(start, end)

    def rate_at(self, url: str, now: float) -> float | None:
        """``λ(now) = ℓ·p(now)``: the novelty rate of ``url`` at ``now`` (None before a visit)."""
        entry = self._entries.get(url)
        if entry is None or entry.rate is None:
            return None
        return entry.rate * self._scale(now)

    def _scale(self, now: float | None) -> float:
        curve = self._curve(now) if now is not None else None
        return 1.0 if curve is None else curve.at(now)

    # -- membership ------------------------------------------------------------------------

    def __len__(self) -> int:
        return sum(1 for e in self._entries.values() if not e.barren)

    def __bool__(self) -> bool:
        """Whether a live entry is left (``len(self) > 0``, without counting them all: the one
        found live last time first — a forager asks at every decision, and a weblog's first
        entries may be day pages closed long ago)."""
        entry = self._entries.get(self._live) if self._live is not None else None
        if entry is not None and not entry.barren:
            return True
        for entry in self._entries.values():
            if not entry.barren:
                self._live = entry.url
                return True
        return False

    def __contains__(self, url: str) -> bool:
        return url in self._entries

    def in_flight(self) -> list[str]:
        """Entries whose visit was begun and neither arrived nor failed."""
        return [e.url for e in self._entries.values() if e.in_flight]

    def entry(self, url: str) -> Entry | None:
        return self._entries.get(url)

    def urls(self) -> list[str]:
        """Live (not barren) entries, the highest rate first (never visited ones before all)."""
        live = [e for e in self._entries.values() if not e.barren]
        live.sort(key=lambda e: -(e.rate if e.rate is not None else math.inf))
        return [e.url for e in live]

    def entries(self) -> list[tuple[str, float]]:
        """``(url, rate)`` of the live entries, as :meth:`urls` orders them (0 before a visit)."""
        return [(url, self._entries[url].rate or 0.0) for url in self.urls()]

    def clone(self) -> "HubSchedule":
        return HubSchedule.from_dict(self.to_dict(), **self._parameters())

    def add(self, url: str, now: float | None = None, rate: float | None = None,
            seen_at: float | None = None) -> bool:
        """A new listing page: with the optimistic prior, or with a prior ``rate`` as if
        visited at ``now``. ``seen_at``: the page was just downloaded (met while harvesting),
        so its first visit waits for the minimum interval, then goes first. False if known
        (barren included) or if every entry of a full schedule pays."""
        if url in self._entries:
            return False
        barren, paying = self._shapes.get(shape(url), (0, 0))
        if barren >= self.barren_after and not paying:
            return False  # a family of traps
        if rate is not None and (now is None or rate < 0):
            raise ValueError("a prior rate needs the time it applies from, and must be >= 0.")
        if len(self._entries) >= self.capacity and not self._evict():
            return False
        entry = self._entries[url] = Entry(url, rate=rate, last=now if rate is not None else seen_at)
        object.__setattr__(entry, "_order", (self._order_token, self._order_next))
        object.__setattr__(entry, "_sink", self._watch)
        self._order_next += 1
        self._watch.add(url)
        self._unvisited = self._unvisited or entry.last is None
        return True

    @property
    def unvisited(self) -> bool:
        """Whether a listing never visited may be in the schedule (:meth:`first_visit`)."""
        return self._unvisited

    def first_visit(self, skip: Callable[[str], bool] | None = None, now: float | None = None) -> str | None:
        """A listing never visited and not asked for yet (the optimistic prior: a seed, its
        host's first contact), on a host ``skip`` does not pass over; None when there is none.
        The first of them in the order they were added, a page of the day ``now`` is in
        first (:meth:`today_page`)."""
        if not self._unvisited:
            return None
        left, first = False, None
        for entry in self._entries.values():
            if entry.last is None and not entry.barren:
                left = True
                if entry.subsumed:
                    continue  # (another listing of its host shows every story: subsume_host)
                if not entry.in_flight and (skip is None or not skip(self.host(entry.url))):
                    if now is None or self.today_page(entry.url, now):
                        return entry.url
                    if first is None:
                        first = entry.url
        self._unvisited = left  # (checked again once a listing never visited is added)
        return first

    def today_page(self, url: str, now: float) -> bool:
        """Whether ``url`` names the day ``now`` is in: today's day archive. Of the
        listings never visited, it is read first (:meth:`first_visit`, :meth:`next_due`):
        what a page named for today lists is what today published — the news sought, the
        whole day of it on a site's archive, where a section shows its share of it among
        older stories. At a site's first visit its navigation came in page order, sections
        first, one request each at the host's pace; on 50 synthetic sites today's archive,
        last of a dozen, was read up to 15 simulated minutes after the home page, and what
        it shows makes most sections' first visits needless (:meth:`subsume_host`). The day
        is the site's: where its stories' URLs show its days to begin (:meth:`observe_day`),
        else in any time zone (UTC−12 to UTC+14)."""
        end = self.day_end(url)
        if end is None:
            return False
        if self.site_days.known(self.host(url)):  # its days observed: where the site's day is
            return end - DAY <= now < end
        return end - DAY - 14 * HOUR <= now < end + 12 * HOUR

    def _evict(self) -> bool:
        # make room: the barren first, then the entry that paid least (never a paying one)
        for url, entry in self._entries.items():
            if entry.barren:
                del self._entries[url]
                return True
        idle = [e for e in self._entries.values() if e.paid == 0 and e.visits and not e.in_flight]
        if idle:  # (one that showed news off the topic last)
            self.remove(max(idle, key=lambda e: (not e.off_topic, e.evidence, e.visits)).url)
            return True
        return False

    def succeed(self, old: str, new: str, entry: Entry | None = None) -> bool:
        """``new`` took ``old``'s place (today's archive after midnight): it gets ``old``'s
        rate, visits, credits and last visit, so it is due as ``old`` would have been, and
        ``old`` keeps its entry with a rate of 0 (its floor still visits it, and a rate again
        if it pays). ``entry``: ``old``'s entry in another forager's weblog, copied (and left
        as it is) when this one lacks it. False if ``old`` is unknown or ``new`` is not added
        (see :meth:`add`)."""
        mine = self._entries.get(old)
        entry = mine if mine is not None else entry
        if entry is None or new in self._entries or not self.add(new):
            return False
        successor = self._entries[new]
        for name in ("rate", "last", "visits", "paid", "evidence", "interval", "listed_rate", "off_topic"):
            setattr(successor, name, getattr(entry, name))
        if mine is not None and mine.rate is not None:
            mine.rate = 0.0
        return True

    def succeeded_elsewhere(self, old: str) -> bool:
        """``old``'s successor is in another weblog (another forager met the link that took its
        place and took over its entry, :meth:`succeed`): ``old`` keeps its entry with a rate of
        0, as after a succession of its own, and is ``covered`` until its next visit (another
        forager reads its place first): its spare rate is its own, 0 (:meth:`spare_rate`), so
        neither the threshold nor the spare budget polls it — its floor alone does (the
        caller marks it again after each visit). True if its rate was above 0."""
        entry = self._entries.get(old)
        if entry is None:
            return False
        entry.covered = True
        if not entry.rate:
            return False
        entry.rate = 0.0
        return True

    def remove(self, url: str) -> None:
        if self._entries.pop(url, None) is not None:
            self._went(url)

    def _went(self, url: str) -> None:
        if len(self._gone) >= 2 * self.capacity:  # (a caller that never asks: the oldest forgotten)
            del self._gone[next(iter(self._gone))]
        self._gone[url] = None

    def gone(self) -> list[str]:
        """The listings made barren (a trap, or given up; not a day's page closed) or dropped
        from the schedule since the last call, in that order: a listing another's visits stood
        for (the host's complete listing, ``ScheduledMind``) no longer does."""
        if not self._gone:
            return []
        gone, self._gone = list(self._gone), {}
        return gone

    # -- the schedule ----------------------------------------------------------------------

    def host(self, url: str) -> str:
        """The host of ``url`` (lower case; "" when it has none): the unit of the politeness
        budget a schedule may be given per host (:meth:`next_due`'s ``budgets``)."""
        host = self._hosts.get(url)
        if host is None:
            if len(self._hosts) >= 4 * self.capacity:
                self._hosts.clear()
            host = self._hosts[url] = host_of(url)
        return host

    def hosts(self) -> set[str]:
        """The hosts of the live entries."""
        return {self.host(e.url) for e in self._entries.values() if not e.barren}

    def demand(self, now: float | None = None, host: str | None = None) -> float:
        """``Σ √rate_i`` (``lag``) or ``Σ rate_i`` (``return``) over the live listings (of
        ``host`` only, when given): visits spent in proportion to it give several schedules one
        threshold (a colony's foragers share the host budget this way). With the rhythm and
        ``now``: the rates at ``now``, ``λ_i(now) = ℓ_i·p(now)``; without ``now``: the levels
        (the week's average rates). With a ``min_yield`` at the last :meth:`next_due` (``lag``),
        a listing counts no more than the visits its yield allows at the last threshold θ (its
        host's, with a budget per host) (``λ·√(2θ)/min_yield`` in the same units): a forager
        holding listings of low rate does not claim budget it cannot spend."""
        return self._demand(list(self._live_rates(host)), now,
                            self._thresholds.get(host, self._last_threshold) if host is not None
                            else self._last_threshold)

    def demands(self, now: float | None = None) -> dict[str, float]:
        """:meth:`demand` of each host that has a live listing with a rate: what a forager
        shares with the colony when the budget is per host."""
        return {host: self._demand(rates, now, self._thresholds.get(host, self._last_threshold))
                for host, rates in self._rate_groups().items()}

    def _demand(self, rates: list[float], now: float | None, threshold: float) -> float:
        if self.priority != "lag":
            return sum(rates) * self._scale(now)
        scale = self._scale(now)
        if self._min_yield <= 0 or not math.isfinite(threshold) or threshold <= 0:
            return sum(math.sqrt(r) for r in rates) * math.sqrt(scale)
        cap = math.sqrt(2.0 * threshold) / self._min_yield
        return sum(min(math.sqrt(r * scale), r * scale * cap) for r in rates)

    def novelty(self, now: float | None = None, host: str | None = None) -> float:
        """``Σ rate_i`` over the live listings (of ``host`` only, when given): novel documents
        per simulated hour they are expected to show (a story on two listings counts twice);
        at ``now`` with the rhythm."""
        return sum(self._live_rates(host)) * self._scale(now)

    def novelties(self) -> dict[str, float]:
        """:meth:`novelty`'s levels (without ``now``) of each host that has a live listing with
        a rate, in one pass; times :meth:`rate_scale` they are the rates at a time."""
        return {host: sum(rates) for host, rates in self._rate_groups().items()}

    def rate_scale(self, now: float | None) -> float:
        """What a level is multiplied by at ``now``: the rhythm's ``p(now)`` (1 without one)."""
        return self._scale(now)

    def _live_rates(self, host: str | None = None, subsumed: bool = True) -> Iterator[float]:
        """The rates of the live listings that have one (of ``host`` only, when given;
        ``subsumed``: with those another listing of their host shows every story of)."""
        return (e.rate for e in self._entries.values() if not e.barren and e.rate
                and (subsumed or not e.subsumed) and (host is None or self.host(e.url) == host))

    def _rate_groups(self) -> dict[str, list[float]]:
        groups: dict[str, list[float]] = {}
        for entry in self._entries.values():
            if not entry.barren and entry.rate:
                groups.setdefault(self.host(entry.url), []).append(entry.rate)
        return groups

    def budget_threshold(self, poll_rate: float, now: float | None = None,
                         min_yield: float = 0.0, host: str | None = None) -> float:
        """The threshold at which visits due by it come at ``poll_rate`` per simulated hour
        (see the module docstring; with the rhythm, at the rates of ``now``; over the listings
        of ``host`` only, when given); ``math.inf`` when no listing has paid yet.

        With ``min_yield`` (``lag`` priority) a listing is visited only once it expects that
        many novel documents, at most ``λ/min_yield`` visits an hour: the visits a listing of
        low rate cannot take go to the others (water-filling: the listings whose share
        ``√(λ/2θ)`` would pass their cap take their cap, ``θ`` is solved again over the
        rest)."""
        return self._budget_threshold(list(self._live_rates(host)), poll_rate, now, min_yield)

    def _budget_threshold(self, rates: list[float], poll_rate: float, now: float | None,
                          min_yield: float) -> float:
        if poll_rate <= 0:
            raise ValueError(f"poll_rate ({poll_rate!r}) must be > 0 visits per hour.")
        scale = self._scale(now)
        if self.priority != "lag":
            demand = sum(rates) * scale
            return demand / poll_rate if demand > 0 else math.inf
        demand = sum(math.sqrt(r) for r in rates) * math.sqrt(scale)
        if demand <= 0:
            return math.inf
        plain = demand ** 2 / (2.0 * poll_rate * poll_rate)
        if min_yield <= 0:
            return plain
        rates = sorted(r * scale for r in rates)
        capped, threshold = 0, plain
        spare, rest = poll_rate, demand  # (running: the budget left, Σ√λ of the uncapped)
        # the listings of lowest rate pass their cap first: cap them one by one until none does
        while capped < len(rates) and rates[capped] < min_yield * min_yield / (2.0 * threshold):
            spare -= rates[capped] / min_yield
            rest -= math.sqrt(rates[capped])
            capped += 1
            if spare <= 0 or rest <= 1e-12:
                return plain  # the caps alone take the budget: every listing at its yield
            threshold = rest * rest / (2.0 * spare * spare)
        return threshold

    def next_due(self, now: float, poll_rate: float | None = None,
                 scarce_rate: float | None = None, min_yield: float = 0.0,
                 budgets: Mapping[str, tuple[float | None, float | None]] | None = None,
                 skip: Callable[[str], bool] | None = None,
                 spare: float | Mapping[str, float] | None = None) -> tuple[str | None, float]:
        """``(url, 0)`` of the entry to visit now, or ``(None, seconds)`` until one is due
        (``math.inf`` when the schedule is empty). ``poll_rate``: visits per simulated hour
        the budget allows, which may lower the threshold (:meth:`budget_threshold`);
        ``scarce_rate``: visits per simulated hour a scarce budget leaves after fetching what
        the listings show, which may raise it (fewer, fuller visits); ``min_yield``: the novel
        documents a visit due by the threshold must expect (its floor aside): a listing of low
        rate waits for them, and the budget's threshold gives its visits to the others.

        ``budgets``: the budget per host instead, ``host -> (poll_rate, scarce_rate)``, each
        host's listings under their own (``poll_rate`` and ``scarce_rate`` are then not
        used): one threshold and one floor stretch per host, as above over that host's
        listings (a host missing from it: the configured threshold alone). ``skip``: hosts
        whose listings are not to be visited now (their host has its share in flight):
        passed over, and their due times not counted in the wait.

        ``spare``: listing visits per simulated hour the budget has beyond what the threshold
        is given to spend (what the yield bound withheld; a host none of whose listings has
        paid yet has all of its budget spare), for all the listings or per host: spent on the
        visited listings at their spare rates (:meth:`spare_rate`: their rate, or their prior
        when it is larger), in the proportions that minimise the mean lag, after every listing
        due by the threshold or its floor."""
        if min_yield < 0:
            raise ValueError(f"min_yield ({min_yield!r}) must be >= 0.")
        threshold = self.threshold
        self._min_yield = min_yield if self.priority == "lag" else 0.0
        self._stretch = 1.0
        thresholds: dict[str, float] = {}
        if budgets is not None:
            thresholds = self._reckon_hosts(budgets, now)
        else:
            self._stretches = {}
            # (the listings a complete one subsumes are due by their floor alone: the threshold
            # spends the visits over the others)
            threshold, budget, self._stretch = self._threshold(poll_rate, scarce_rate,
                                                               list(self._live_rates(subsumed=False)), len(self), now)
            if budget is not None:
                self._last_threshold = budget
        best: Entry | None = None
        best_key: tuple = (-1,)
        wait = math.inf
        curve = self._curve(now)
        per_host = isinstance(spare, Mapping)
        spares, spare_rates = (self._reckon_spare(spare, now) if per_host else self._spare_factors(spare, now)) \
            if spare else ({}, {})
        factor = spares.get("") if spares and not per_host else None
        # With the hosts' budgets reckoned (and the spare budget's, when given), a listing's
        # due time stays what it was until the listing or the reckoning changes: kept between
        # decisions, it tells a listing that is not due yet, and that cannot shorten the wait,
        # without its floor and threshold worked out again (at 1,000 sites most of a forager's
        # listings, at every decision). Near or past it, everything is worked out as always.
        stamp = self._due_stamp(curve, bool(spare)) if budgets is not None and (not spare or per_host) else None
        host: str | None = None
        hosts = self._hosts
        changes = self._host_changes
        # Kept, the listings are looked at in two rounds: those whose due time is not kept or
        # comes within the margin (in the schedule's order: ties go to the first, as over all),
        # then, when none of them is due, the kept ones in the order of their due times while
        # one may shorten the wait (_kept_near); the others are passed over unseen.
        indexed = stamp is not None
        first = self._due_candidates(stamp, now, skip) if indexed else self._entries.values()
        parked = self._parked
        near: list[Entry] = []
        rounds = [first]
        for pending in rounds:  # (a second round may be added as the first ends)
            for entry in pending:
                if entry.barren or entry.in_flight:
                    continue
                if budgets is not None or skip is not None or per_host or self._stretches:
                    host = hosts.get(entry.url) or self.host(entry.url)
                    if budgets is not None:
                        threshold = thresholds.get(host, self.threshold)
                    if per_host:
                        factor = spares.get(host)
                if entry.last is None:
                    if entry.subsumed:
                        continue  # another listing of its host shows every story it would (subsume_host)
                    if skip is not None and skip(host):
                        if indexed:  # (due, and passed over while its host is to be skipped)
                            parked.setdefault(host, {})[entry.url] = entry
                        continue
                    # the optimistic prior: never visited goes first, today's page before the others
                    key = (2, -entry.visits, self.today_page(entry.url, now))
                else:
                    elapsed = now - entry.last
                    if entry.paid == 0 and not entry.off_topic and entry.evidence >= self.barren_after \
                            and elapsed >= self.min_interval:
                        # the credits of its last visit had min_interval to arrive: none did
                        if skip is None or not skip(host):
                            self._mark_barren(entry)
                        elif indexed:  # (marked when its host is not skipped)
                            parked.setdefault(host, {})[entry.url] = entry
                        continue
                    if stamp is not None:
                        due = entry._due
                        if due is not None and due[0] == stamp and due[1] == changes.get(host, 0) \
                                and due[2] > now + _DUE_MARGIN \
                                and (best is not None or due[2] - now > wait + _DUE_MARGIN):
                            continue
                    # (a listing another of its host's shows every story of: due by its floor alone)
                    floor = None
                    expected = -math.inf if entry.subsumed else self._due_measure(entry, now, curve)
                    if expected >= threshold and self._yields(entry, now, curve):
                        key = (1, expected)
                    else:
                        floor = self._floor(entry, host, curve)
                        key = (0, elapsed) if elapsed >= floor else None  # the floor: overdue, whatever it holds
                    spare_in = math.inf
                    if key is None and factor is not None:
                        spare_in = self._spare_interval(spare_rates.get(entry.url, 0.0), factor)
                        if elapsed >= spare_in:
                            key = (_SPARE, elapsed / spare_in)  # the spare budget's: after all the others
                    # Not due, and something is due that this one could not pass even if due to
                    # the second (below): whether its host is to be skipped is not needed (a look
                    # at the host's budget). Else passed over when its host is to be skipped:
                    # due, it stays due (the measures grow with the time since its last visit,
                    # the rest is in the stamp) and waits, parked, while its host is skipped
                    # (_due_candidates). Either way not counted in the wait; a due time is kept
                    # for the decisions to come (else, with the rhythm, costly: not worked out).
                    passed = key is None and best is not None and (curve is not None or best_key >= (0, elapsed))
                    if passed or (skip is not None and skip(host)):
                        if stamp is None:
                            continue
                        if key is not None:
                            parked.setdefault(host, {})[entry.url] = entry
                            continue
                        due_in = self._due_in(entry, now, elapsed, threshold, floor, spare_in, curve)
                        if due_in > 0:
                            object.__setattr__(entry, "_due", (stamp, changes.get(host, 0), now + due_in))
                        continue
                    due_in = self._due_in(entry, now, elapsed, threshold, floor, spare_in, curve, key is not None)
                    if due_in > 0:
                        wait = min(wait, due_in)
                        if stamp is not None:
                            object.__setattr__(entry, "_due", (stamp, changes.get(host, 0), now + due_in))
                        continue
                    key = key if key is not None else (0, elapsed)  # due to the second
                if key > best_key:
                    best, best_key = entry, key
            if indexed and len(rounds) == 1 and best is None and self._kept:
                rounds.append(self._kept_near(now, wait, stamp, near, skip))
        if indexed:
            self._keep_due(first, stamp)
            self._keep_due(near, stamp)
        self.spare_due = best is not None and best_key[0] == _SPARE
        if best is not None:
            return best.url, 0.0
        return None, wait

    def _due_in(self, entry: Entry, now: float, elapsed: float, threshold: float, floor: float | None,
                spare_in: float, curve: Rhythm | None, due: bool = False) -> float:
        """:meth:`next_due`'s seconds until ``entry`` (visited ``elapsed`` seconds before
        ``now``) is due: by ``threshold``, its ``floor`` (None: worked out) or the spare
        budget's ``spare_in``; 0 when it is (``due``), but never sooner than ``min_interval``
        after its last visit."""
        due_in = 0.0 if due else min(self._until_due(entry, now, threshold, floor, curve), spare_in - elapsed)
        if entry.rate is not None or not entry.failures:  # (a failed first visit: at once)
            due_in = max(due_in, self.min_interval - elapsed)  # never polled faster
        return due_in

    def prior_rate(self, entry: Entry) -> float:
        """The *prior* of a listing that has been visited and has not paid yet: one story per
        its floor (:meth:`_floor`: as long as its own dates say one new story takes on it, or
        the floor doubled after each visit that showed none), in novel documents per simulated
        hour — what the schedule already trusts it to hold at its floor's visits; the spare
        budget (:meth:`next_due`'s ``spare``) counts it (:meth:`spare_rate`). 0 for
        a listing never visited (it goes first anyway), that has a rate (it paid, or was
        given one: the threshold and the yield bound see to it), or whose fresh links another
        forager of the colony claimed first at its last visit (``covered``: that one reads it)."""
        if entry.rate is None or entry.rate > 0 or entry.last is None or entry.paid or entry.barren \
                or entry.covered or entry.subsumed:
            return 0.0
        return HOUR / max(self._floor(entry), 1.0)

    def spare_rate(self, entry: Entry, now: float | None = None) -> float:
        """Novel documents per simulated hour the spare budget (:meth:`next_due`'s ``spare``)
        expects of a visited listing: the larger of its rate (at ``now``, with the rhythm)
        and one story per its floor (its prior, :meth:`prior_rate`; for a listing that has
        paid, the floor it is trusted to hold at); for a listing another forager of the
        colony reads first (``covered``), its rate alone. 0 for one never visited.

        Today's page (:meth:`today_page` at ``now``), which lists the whole day as it is
        published, expects at least the stories its own dates show appearing
        (``listed_rate``, with the rhythm at ``now``): whether its visits find a story before
        a section does is chance when both are polled as seldom (on a quiet site at night,
        runs in which it found stories first polled it hourly, the others at its floor of
        hours, and a tenth of the night's stories waited 50 minutes instead of 20:
        docs/benchmarks.md)."""
        if entry.rate is None or entry.last is None or entry.barren or entry.subsumed:
            return 0.0  # (subsumed: another listing of its host shows every story it would)
        if entry.covered:  # another forager reads it first: its own rate
            return entry.rate * self._scale(now)
        scale = self._scale(now)
        rate = max(entry.rate * scale, HOUR / max(self._floor(entry), 1.0))
        if entry.listed_rate and now is not None and entry.listed_rate * scale > rate \
                and self.today_page(entry.url, now):
            rate = entry.listed_rate * scale
        return rate

    def prior_demands(self) -> dict[str, float]:
        """Per host, :meth:`demand`'s sum over the listings that have a prior
        (:meth:`prior_rate`): the share of a host's budget a forager claims for them (the
        colony's foragers share it per host as they share the demand)."""
        priors: dict[str, float] = {}
        for entry in self._entries.values():
            rate = self.prior_rate(entry)
            if rate > 0:
                host = self.host(entry.url)
                priors[host] = priors.get(host, 0.0) + (math.sqrt(rate) if self.priority == "lag" else rate)
        return priors

    def _spare_factors(self, spare: float | Mapping[str, float],
                       now: float) -> tuple[dict[str, float], dict[str, float]]:
        """Per host ("" for all, when ``spare`` is one number), the spare budget's factor
        ``c``: a listing of spare rate ``ρ`` is due by it after ``c/√ρ`` hours (``lag``:
        ``ρ·Δ²/2`` reaching the threshold ``(Σ√ρ)²/(2S²)`` at which the visits use ``S``
        an hour, as :meth:`budget_threshold`) or ``c/ρ`` (``return``: ``Σρ/S``); and each
        listing's spare rate, worked out once a call (``url -> ρ``)."""
        per_host = isinstance(spare, Mapping)
        sums: dict[str, float] = {}
        rates: dict[str, float] = {}
        for entry in self._entries.values():
            if entry.barren or entry.rate is None or entry.last is None or entry.subsumed:
                continue
            key = self.host(entry.url) if per_host else ""
            if per_host and spare.get(key, 0.0) <= 0:
                continue
            rate = rates[entry.url] = self.spare_rate(entry, now)
            sums[key] = sums.get(key, 0.0) + (math.sqrt(rate) if self.priority == "lag" else rate)
        budget = (lambda key: spare.get(key, 0.0)) if per_host else (lambda key: float(spare))
        factors = {key: total / budget(key) for key, total in sums.items() if total > 0 and budget(key) > 0}
        return factors, rates

    def _spare_interval(self, rate: float, factor: float) -> float:
        """Seconds after its last visit at which the spare budget makes a listing of spare
        rate ``rate`` due."""
        if rate <= 0:
            return math.inf
        return factor / (math.sqrt(rate) if self.priority == "lag" else rate) * HOUR

    def _threshold(self, poll_rate: float | None, scarce_rate: float | None, rates: list[float],
                   listings: int, now: float) -> tuple[float, float | None, float]:
        """``(threshold, the budget's threshold or None, the floor's stretch)`` a budget makes of
        the configured threshold over the listings of ``rates`` (``listings`` live ones): lowered
        to where the visits use ``poll_rate``, raised to where they fit in ``scarce_rate``."""
        threshold, budget, stretch = self.threshold, None, 1.0
        if poll_rate is not None:
            budget = self._budget_threshold(rates, poll_rate, now, self._min_yield)
            threshold = min(threshold, budget)
        if scarce_rate is not None and scarce_rate > 0:
            scarce = self._budget_threshold(rates, scarce_rate, now, 0.0)
            if math.isfinite(scarce):
                threshold = max(threshold, scarce)
            # the floor's visits (every live listing each max_interval) must fit in it too
            stretch = max(1.0, listings * HOUR / self.max_interval / scarce_rate)
        return threshold, budget, stretch

    def _reckon_hosts(self, budgets: Mapping[str, tuple[float | None, float | None]],
                      now: float) -> dict[str, float]:
        """:meth:`_host_thresholds`, reckoned once for the ``budgets`` (the same mapping, not an
        equal one) as long as the ``min_yield`` and the rhythm's curve are the same and less
        than :data:`RECKONING` simulated seconds have passed: the hosts' budgets are reckoned
        now and then (a crawler's driver: four times a wall second), and the thresholds they
        give with them, not at every decision (a pass over every listing of every host)."""
        curve = self._curve(now)
        cached = self._host_reckoning
        if cached is not None and cached[0] is budgets and cached[1] == self._min_yield and cached[2] is curve \
                and self.fresh(cached[3], now):
            self._thresholds, self._stretches = cached[5], cached[6]
            return cached[4]
        self._stretches = {}
        thresholds = self._host_thresholds(budgets, now)
        if cached is not None and cached[1] == self._min_yield and cached[2] is curve:
            # the same yield and curve: only the hosts whose numbers moved have new due times
            self._hosts_changed(cached[4], thresholds)
            self._hosts_changed(cached[6], self._stretches)
        else:
            self._changes += 1
        self._host_reckoning = (budgets, self._min_yield, curve, self.reckoned_at(now), thresholds,
                                self._thresholds, self._stretches)
        return thresholds

    def reckon(self) -> None:
        """From now on the reckonings of the hosts' thresholds and of the spare budget (and the
        budgets' own, :meth:`fresh`) are paced by these calls, not by the simulated clock: each
        holds until the next call (as long as the budgets it was reckoned for are the same)."""
        self.paced = True
        self._reckonings += 1

    def reckoned_at(self, now: float) -> tuple[float, int]:
        """When a reckoning is made, for :meth:`fresh` to judge it later."""
        return now, self._reckonings

    def fresh(self, at: tuple[float, int], now: float) -> bool:
        """Whether a reckoning made :meth:`reckoned_at` ``at`` still holds at ``now``: until
        the next :meth:`reckon` once paced, else for :data:`RECKONING` simulated seconds."""
        if self.paced:
            return at[1] == self._reckonings
        return 0.0 <= now - at[0] < RECKONING

    def _hosts_changed(self, before: Mapping[str, float], after: Mapping[str, float],
                       host: Callable[[str], str] | None = None) -> None:
        """Counts a change of every host (``host`` of each key, when the keys are URLs) whose
        number in ``after`` is not the one in ``before`` (or that is in one of them only):
        their listings' kept due times are worked out again (:meth:`_due_stamp`)."""
        for key in before.keys() | after.keys():
            if before.get(key) != after.get(key):
                self._host_changed(key if host is None else host(key))

    def _host_changed(self, host: str) -> None:
        """What ``host``'s listings' due times are worked out from changed: those kept are
        worked out again (:meth:`_due_candidates`)."""
        self._host_changes[host] = self._host_changes.get(host, 0) + 1
        self._changed_hosts.add(host)

    def _reckon_spare(self, spare: Mapping[str, float], now: float) -> tuple[dict[str, float], dict[str, float]]:
        """:meth:`_spare_factors` of a spare budget per host, reckoned once for ``spare`` (the
        same mapping) as :meth:`_reckon_hosts` reckons the thresholds."""
        curve = self._curve(now)
        cached = self._spare_reckoning
        if cached is not None and cached[0] is spare and cached[1] is curve and self.fresh(cached[2], now):
            return cached[3]
        factors = self._spare_factors(spare, now)
        if cached is not None and cached[1] is curve:
            self._hosts_changed(cached[3][0], factors[0])
            self._hosts_changed(cached[3][1], factors[1], self.host)
        else:
            self._changes += 1
        self._spare_reckoning = (spare, curve, self.reckoned_at(now), factors)
        return factors

    def _due_stamp(self, curve: Rhythm | None, spare: bool) -> tuple:
        """What a due time worked out now holds under (see ``_token``): after the hosts'
        reckoning and the spare budget's of this call."""
        if curve is not self._stamp_curve:
            self._stamp_curve = curve
            self._changes += 1
        return self._token, self._changes, self._min_yield, spare

    def _due_candidates(self, stamp: tuple, now: float, skip: Callable[[str], bool] | None = None) -> list[Entry]:
        """The listings :meth:`next_due` looks at first under ``stamp``, in the schedule's
        order: every one after a change of the stamp; else those whose due time is not kept
        (a field set, added, a host's numbers changed since, or not kept at the last decision),
        those whose kept due time (or the moment their visit's credits are late: barren)
        comes within the margin of ``now``, and those parked due on a host that ``skip`` no
        longer passes over (asked once a host)."""
        entries = self._entries
        watch = self._watch
        if stamp != self._kept_stamp:
            self._kept_stamp = stamp
            self._kept = []
            watch.clear()
            self._changed_hosts.clear()
            self._parked = {}
            token = self._order_token = object()
            for n, entry in enumerate(entries.values()):
                object.__setattr__(entry, "_order", (token, n))
                object.__setattr__(entry, "_sink", watch)
            self._order_next = len(entries)
            return list(entries.values())
        if self._changed_hosts:
            changed, hosts = self._changed_hosts, self._hosts
            watch.update(url for url in entries if (hosts.get(url) or self.host(url)) in changed)
            changed.clear()
        picked = {url: entries[url] for url in watch if url in entries}
        watch.clear()
        parked = self._parked
        for host in [host for host in parked if skip is None or not skip(host)]:
            for url, entry in parked.pop(host).items():
                if entries.get(url) is entry:
                    picked[url] = entry
        kept = self._kept
        while kept and kept[0][0] <= now + _DUE_MARGIN:
            url, due = heappop(kept)[2:]
            entry = entries.get(url)
            if entry is not None and entry._due is due:
                picked[url] = entry
        return sorted(picked.values(), key=self._order_of)

    def _order_of(self, entry: Entry) -> int:
        order = entry._order
        if order is None or order[0] is not self._order_token:  # (not seen since the last order)
            order = (self._order_token, self._order_next)
            object.__setattr__(entry, "_order", order)
            self._order_next += 1
        return order[1]

    def _kept_near(self, now: float, wait: float, stamp: tuple, near: list[Entry],
                   skip: Callable[[str], bool] | None = None) -> Iterator[Entry]:
        """The listings whose kept due time may shorten ``wait`` (seconds from ``now``), the
        nearest first, as long as one may (each added to ``near``). One on a host that ``skip``
        passes over is not given: it can be neither chosen nor counted in the wait, and its
        kept due time stands (its barren verdict, if one is due, waits for its host too)."""
        kept, entries, changes, hosts = self._kept, self._entries, self._host_changes, self._hosts
        while kept and kept[0][0] - now <= wait + _DUE_MARGIN:
            url, due = heappop(kept)[2:]
            entry = entries.get(url)
            host = hosts.get(url) or self.host(url)
            if entry is None or entry._due is not due or due[0] != stamp or due[1] != changes.get(host, 0):
                continue
            near.append(entry)
            if skip is not None and skip(host):
                continue
            yield entry
            worked = entry._due
            if worked is not None and worked is not due and worked[0] == stamp:
                wait = min(wait, worked[2] - now)

    def _keep_due(self, looked: Iterable[Entry], stamp: tuple) -> None:
        """After a decision: the ``looked`` at listings whose due time is kept go in order of it
        (of the moment their visit's credits are late, when sooner); those that may be due at
        the next decision are looked at again then; the barren, those in flight and those
        subsumed before their first visit wait for a field set."""
        entries, kept, watch, changes, hosts = self._entries, self._kept, self._watch, self._host_changes, self._hosts
        parked = self._parked
        for entry in looked:
            url = entry.url
            if entries.get(url) is not entry or entry.barren or entry.in_flight \
                    or (entry.last is None and entry.subsumed):
                continue
            host = hosts.get(url) or self.host(url)
            if parked and parked.get(host, {}).get(url) is entry:
                continue  # (looked at again when its host is not skipped, or a field is set)
            due = entry._due
            if due is not None and due[0] == stamp and due[1] == changes.get(host, 0):
                at = due[2]
                if entry.paid == 0 and not entry.off_topic and entry.evidence >= self.barren_after:
                    at = min(at, entry.last + self.min_interval)
                heappush(kept, (at, self._order_of(entry), url, due))
            else:
                watch.add(url)
        if len(kept) > 2 * len(entries) + 64:  # (due times forgotten or worked out again since)
            self._kept = [item for item in kept if (entry := entries.get(item[2])) is not None
                          and entry._due is item[3]]
            heapify(self._kept)

    def _host_thresholds(self, budgets: Mapping[str, tuple[float | None, float | None]],
                         now: float) -> dict[str, float]:
        """Each host's threshold under its own budget (its budget's threshold in
        ``_thresholds``, its floor's stretch in ``_stretches``)."""
        groups: dict[str, list[float]] = {}  # host -> the rates of its live listings that have one
        counts: dict[str, int] = {}  # host -> its live listings
        for entry in self._entries.values():
            if not entry.barren:
                host = self.host(entry.url)
                counts[host] = counts.get(host, 0) + 1
                if entry.rate and not entry.subsumed:
                    groups.setdefault(host, []).append(entry.rate)
        thresholds: dict[str, float] = {}
        self._thresholds = {}
        for host, (poll, scarce) in budgets.items():
            if host not in counts:
                continue
            thresholds[host], budget, self._stretches[host] = self._threshold(
                poll, scarce, groups.get(host, []), counts[host], now)
            if budget is not None:
                self._thresholds[host] = budget
        return thresholds

    def _yields(self, entry: Entry, now: float, curve: Rhythm | None | object = _UNSET) -> bool:
        """Whether ``entry`` expects the ``min_yield`` of :meth:`next_due` novel documents
        (``curve``: :meth:`_curve` at ``now``, when the caller has it)."""
        if self._min_yield <= 0:
            return True
        if entry.rate is None or entry.last is None:
            return True
        if curve is _UNSET:
            curve = self._curve(now)
        if curve is None:
            return entry.expected(now) >= self._min_yield
        return entry.rate * curve.integral(entry.last, now) >= self._min_yield

    def _mark_barren(self, entry: Entry) -> None:
        # (its family's count of barren pages bars new ones, add(): no other's due time moves)
        entry.barren = True
        self._went(entry.url)
        self._shapes.setdefault(shape(entry.url), [0, 0])[0] += 1

    def _due_measure(self, entry: Entry, now: float, curve: Rhythm | None | object = _UNSET) -> float:
        if curve is _UNSET:
            curve = self._curve(now)
        if curve is None:
            if self.priority == "lag":
                return entry.waiting_lag(now)
            return entry.expected(now)
        if entry.rate is None or entry.last is None:
            return math.inf
        # the value of a poll over the interval since the last visit: ℓ·∫ p(s)(t − s) ds
        # (document-hours) or ℓ·∫ p (documents)
        if self.priority == "lag":
            return entry.rate * curve.lag_integral(entry.last, now)
        return entry.rate * curve.integral(entry.last, now)

    def _floor(self, entry: Entry, host: str | None = None, curve: Rhythm | None | object = _UNSET) -> float:
        # (``host``: its host, ``curve``: the curve in use, when the caller has them)
        # A listing that has never paid waits as long as its own dates say one new story takes
        # to appear on it (one author's stories in one section: days), or, when it dates
        # nothing, twice as long after each visit; up to the novelty window (a visit a window
        # apart still finds every story it lists in time): hundreds of sub-listings (authors,
        # tags, older pages) must not take the budget.
        if entry.subsumed and not self._day_open(entry):
            # another listing of its host shows every story: read once a window — but today's
            # page, which lists the whole day by what it is, keeps its floor: a check of the
            # complete listing's proof (a news sitemap of the sections with feeds, proven on a
            # host whose other sections were silent for a day, showed no hole until they
            # published; on a digital.gov site, 9 stories lost in a run)
            return self.window
        stories = False
        stretch = self._stretches.get(host or self.host(entry.url), 1.0) if self._stretches else self._stretch
        if entry.paid:
            span = min(self.window, self.max_interval * stretch)
        elif entry.listed_rate is not None and (entry.listed_rate > 0 or not self._day_open(entry)):
            # (one story dated, a listed rate of 0, on today's page — whose day had not ended
            # at its last visit — says only that the day had just begun: the floor, below)
            if entry.listed_rate <= 0:  # one story dated: no rate
                return self.window
            span = min(self.window, max(self.max_interval, HOUR / entry.listed_rate))
            stories = span > self.max_interval  # the time one story takes
        elif entry.visits <= 1 or self._family_pays(entry):
            # (today's page of a day family of which another page paid — today's day archive,
            # still empty at dawn, beside yesterday's — will list as its siblings do: its empty
            # list is no sign that it stays so, not the whole window)
            span = min(self.window, self.max_interval * stretch)
        else:
            span = min(self.window, self.max_interval * stretch * 2.0 ** (entry.visits - 1))
        if curve is _UNSET:
            curve = self._curve(None)
        if curve is None or span >= self.window:
            return span
        # With the rhythm the floor is in average hours, never beyond the window: the time one
        # story takes (listed_rate is a level) in hours of p; the floor's polls in hours of √p
        # (shorter at the peak, longer at night, as many a week: spread in proportion to √λ,
        # the spread that minimises the mean lag for a number of polls)
        if not stories:
            curve = curve.root
        key = (entry.last, span, curve)
        cached = self._floors.get(entry.url)
        if cached is None or cached[0] != key:  # the same until the next visit or estimate
            if len(self._floors) >= 2 * self.capacity:
                self._floors.clear()
            floor = curve.reach(entry.last, 1.0, span / HOUR, self.window, lag=False)
            cached = self._floors[entry.url] = (key, floor)
        return cached[1]

    def _day_open(self, entry: Entry) -> bool:
        """Whether ``entry`` is the page of a day that had not ended at its last visit."""
        end = self.day_end(entry.url)
        return end is not None and entry.last is not None and entry.last < end

    def _family_pays(self, entry: Entry) -> bool:
        """Whether ``entry`` is the page of a day (its URL names one, :func:`url_day_end`) that
        had not ended at its last visit, of a family (:func:`shape`) of which a page has paid:
        today's day archive beside yesterday's. Families of counters (numbered sections, tags)
        are not: most of their pages list little of what their siblings list."""
        end = self.day_end(entry.url)
        if end is None or (entry.last is not None and entry.last >= end):
            return False
        return self._shapes.get(shape(entry.url), (0, 0))[1] > 0

    def day_end(self, url: str) -> float | None:
        """When the day ``url`` names ends where its site is (:func:`url_day_end` less the
        host's UTC offset, :attr:`site_days`), or None when it names none."""
        end = self._utc_day_end(url)
        return None if end is None else end - self.site_days.offset(self.host(url))

    def _utc_day_end(self, url: str) -> float | None:
        """:func:`url_day_end` of ``url``, read once a URL (asked at every decision)."""
        if url not in self._day_ends:
            if len(self._day_ends) >= 2 * self.capacity:
                self._day_ends.clear()
            self._day_ends[url] = url_day_end(url)
        return self._day_ends[url]

    def of_the_past(self, url: str, now: float) -> bool:
        """:func:`of_the_past` with the novelty window, at the end of the day ``url`` names
        where its site is (:meth:`day_end`)."""
        end = self.day_end(url)
        return end is not None and end < now - self.window

    def observe_day(self, url: str, published: float) -> bool:
        """A story published at ``published`` (simulated seconds) is of the day ``url`` names
        where its site is: ``url`` is the story's, or a day's page that dates it. Its host's
        UTC offset learns from it (:class:`~newsforagers.learning.siteday.SiteDays`); False
        when ``url`` names no day or the observation tells nothing."""
        end = url_day_end(url)
        if end is None:
            return False
        host, days = self.host(url), self.site_days
        before = (days.known(host), days.offset(host))
        crowded = len(days) >= days.max_hosts  # (a host's votes may be forgotten for this one's)
        changed = days.observe(host, end - DAY, published)
        if changed and crowded:
            self._changes += 1  # (a day's page's floor: _day_open)
        elif changed and (days.known(host), days.offset(host)) != before:
            self._host_changed(host)  # (its day's pages' floors)
        return changed

    def _family(self, url: str) -> tuple[str, str]:
        return self.host(url), shape(url)

    def _until_due(self, entry: Entry, now: float, threshold: float, floor: float | None = None,
                   curve: Rhythm | None | object = _UNSET) -> float:
        # (``floor``: its floor, ``curve``: the curve at ``now``, when the caller has them)
        if curve is _UNSET:
            curve = self._curve(now)
        elapsed = now - entry.last
        until = (self._floor(entry, curve=curve) if floor is None else floor) - elapsed
        if entry.subsumed:
            pass  # due by its floor alone
        elif entry.rate and entry.rate > 0 and curve is not None:
            # ℓ·∫_last^{last+Δ} p(s)(last + Δ − s) ds = threshold (or ℓ·∫ p = threshold), searched
            # no further than the floor, which comes first beyond it
            limit = elapsed + max(0.0, until)
            due_at = curve.reach(entry.last, entry.rate, threshold, limit, lag=self.priority == "lag")
            if self._min_yield > 0:  # and the yield a visit must expect
                due_at = max(due_at, curve.reach(entry.last, entry.rate, self._min_yield, limit, lag=False))
            until = min(until, due_at - elapsed)
        elif entry.rate and entry.rate > 0:
            if self.priority == "lag":  # rate·Δ²/2 = threshold (document-hours)
                due_at = math.sqrt(2.0 * threshold / entry.rate) * HOUR
            else:  # rate·Δ = threshold (documents)
                due_at = threshold / entry.rate * HOUR
            if self._min_yield > 0:  # and the yield a visit must expect: rate·Δ = min_yield
                due_at = max(due_at, self._min_yield / entry.rate * HOUR)
            until = min(until, due_at - elapsed)
        return max(0.0, until)

    def begin(self, url: str, now: float) -> None:
        """A visit of ``url`` is requested at ``now``."""
        entry = self._entries[url]
        entry.in_flight = True
        curve = self._curve(now)
        # (after a transient failure, the span since the last visit read: what this one shows)
        start = entry.since if entry.since is not None else entry.last
        if entry.visits == 0:
            entry.interval = None
        elif curve is None:
            entry.interval = max(now - start, 1.0) / HOUR
        else:  # average hours: n novel documents over it observe the level ℓ = n / ∫ p
            entry.interval = max(curve.integral(start, now), 1.0 / HOUR)
        entry.since = start
        entry.last = now
        end = self._utc_day_end(url)
        if end is not None and self._family_days.get(self._family(url), -math.inf) > end:
            self._closing.add(url)  # its site has moved on to a later day: this visit sees all
        else:
            self._closing.discard(url)

    def visited(self, url: str, new_links: int, listed_rate: float | None = None,
                now: float | None = None, overflowed: bool = False, covered: bool = False,
                subsumed: bool = False, earliest: float | None = None,
                fresh_rate: float | None = None) -> int:
        """The page of the visit begun earlier arrived (at ``now``) and showed ``new_links``
        links not seen before; novel documents among them come later, through :meth:`credit`.
        ``listed_rate``: stories per hour the page's own dates show (None: it dates none). A
        visit begun "after" ``now`` (the site's clock was not known yet) counts as begun now.
        ``overflowed``: every item the page dates was new at a visit after its first, so more
        came since the last visit than the page shows: what the credits will count is a lower
        bound, and the rate is raised to at least ``listed_rate`` (a busy front polled too
        rarely would otherwise learn a rate from what fits on one page, be polled more rarely
        still, and lose more). ``covered``: the page's fresh links were all claimed by other
        foragers of the colony first: the visit is no evidence of a barren listing (another
        forager reads it), and the listing gets no spare visits (:meth:`prior_rate`) until a
        visit shows a link of its own. ``earliest``: when the earliest story the page dates
        was published. ``fresh_rate``: ``listed_rate`` over the stories the page dates within
        the novelty window only: a first visit's rate is at least that (unless ``covered``).
        Returns how many past days' pages the visit closed (the module's
        docstring): its own, when begun after a later day's page of its family had shown dated
        stories; and, the first time a page of a day shows dated stories, each page of its family
        naming an earlier day whose last visit began after ``earliest`` — its site had moved on
        to the later day by then, so that visit saw every story the page will list (read before
        today's archive at a site's first visit, yesterday's took one more visit to be closed)."""
        entry = self._entries.get(url)
        if entry is None:
            return 0
        if new_links < 0:
            raise ValueError(f"new_links ({new_links!r}) must be >= 0.")
        if now is not None and entry.last is not None and entry.last > now:
            entry.last = now
        entry.in_flight = False
        entry.since = None
        entry.visits += 1
        entry.failures = 0
        entry.credited = 0
        entry.covered = covered
        entry.subsumed = subsumed
        entry.evidence += 1 if new_links and not covered else 0
        if listed_rate is not None:
            if listed_rate < 0:
                raise ValueError(f"listed_rate ({listed_rate!r}) must be >= 0.")
            entry.listed_rate = listed_rate
        if entry.interval is None or entry.rate is None:
            # the first visit: n / window, credited piece by piece; until then, and at least,
            # the rate its own dates show of the stories within the window (a day archive's
            # are credited as they are fetched, the backlog last: at n / window alone its
            # revisits waited for them; a section's stories of past days are no news) — unless
            # another forager claimed its fresh links first (covered): not its stories
            entry.rate = 0.0 if covered else fresh_rate or 0.0
        else:
            entry.rate *= 1.0 - self.beta
            if overflowed and listed_rate:
                entry.rate = max(entry.rate, listed_rate)
        end = self._utc_day_end(url)
        closed = 0
        if end is not None and listed_rate is not None:  # a day's page showing dated stories
            family = self._family(url)
            if end > self._family_days.get(family, -math.inf):
                self._family_days[family] = end
                if earliest is not None:
                    closed += self._close_earlier_days(family, end, earliest)
        if url in self._closing:
            self._closing.discard(url)
            entry.closed = entry.barren = True  # (not counted against its family: _count_shapes)
            closed += 1
        return closed

    def _close_earlier_days(self, family: tuple[str, str], end: float, moved: float) -> int:
        """Close the pages of ``family`` naming a day that ended before ``end`` whose last
        visit began at or after ``moved`` (and is not in flight): see :meth:`visited`."""
        closed = 0
        for entry in self._entries.values():
            if entry.barren or entry.in_flight or entry.last is None or entry.last < moved:
                continue
            other = self._utc_day_end(entry.url)
            if other is None or other >= end or self._family(entry.url) != family:
                continue
            entry.closed = entry.barren = True
            closed += 1
        return closed

    def raise_rate(self, url: str, rate: float) -> None:
        """The listing ``url`` holds at least ``rate`` novel documents an hour (a level, as
        ``Entry.rate``): another listing it shows every story of has that rate
        (docs/algorithms.md, *A listing that shows every story of its host*). Its rate becomes
        the larger of the two; a listing never visited, or unknown, is left alone."""
        entry = self._entries.get(url)
        if entry is not None and entry.rate is not None and rate > entry.rate:
            entry.rate = rate

    def subsume_host(self, complete: str, subsumed: bool = True) -> int:
        """The listing ``complete`` shows every story of its host (``subsumed``), or no longer
        does: every other listing of the host is marked so at once, not at its own next visit
        (which, for a listing the spare budget kept polling, would be one visit each that adds
        nothing); when subsumed, ``complete``'s rate is raised to theirs (:meth:`raise_rate`).
        A listing never visited (a feed a page announced, a section of the seed's map) is not
        visited while it is subsumed: its first visit would show what ``complete`` shows (on a
        digital.gov site of 20 sections and 14 feeds, their first visits held its day archive's
        polls back for three simulated hours); when no longer, it goes first again. Returns
        how many listings changed."""
        host = self.host(complete)
        changed = 0
        for entry in self._entries.values():
            if entry.url == complete or entry.in_flight or entry.barren or entry.subsumed == subsumed \
                    or self.host(entry.url) != host:
                continue
            entry.subsumed = subsumed
            changed += 1
            if entry.last is None and not subsumed:
                self._unvisited = True
            if subsumed and entry.rate:
                self.raise_rate(complete, entry.rate)
        return changed

    def credit(self, url: str, novel: int = 1) -> None:
        """``novel`` novel documents were found through the last visit of ``url``."""
        entry = self._entries.get(url)
        if entry is None or entry.rate is None or novel <= 0:
            return
        if entry.paid == 0:
            counts = self._shapes.setdefault(shape(entry.url), [0, 0])
            counts[1] += 1
            if counts[1] == 1:
                self._changes += 1  # (a family's first pay: its day pages' floors, _family_pays)
        entry.paid += novel
        entry.credited += novel
        if entry.interval is None:
            curve = self._curve(None)
            if curve is None or entry.last is None:
                observed = entry.credited * HOUR / self.window
            else:  # n fresh documents over the window before the visit: ℓ = n / ∫ p over it
                observed = entry.credited / max(curve.integral(entry.last - self.window, entry.last), 1.0 / HOUR)
            entry.rate = max(entry.rate, observed)
        else:
            entry.rate += self.beta * novel / entry.interval

    def off_topic(self, url: str, novel: int = 1) -> None:
        """``novel`` novel documents off the topic were found through the last visit of ``url``
        (the topical mode): not credited (its rate counts the topic's), but its visit was not
        wasted: a listing whose new links lead to news is no trap, and is never made barren
        (today's day archive lists the whole day, the topic's few stories among the others; in
        a run on digital.gov, three of its visits in a row whose new stories were all off the
        topic made it barren at 00:45 of its day, and the forager holding it lost its day)."""
        entry = self._entries.get(url)
        if entry is not None and entry.rate is not None and novel > 0:
            entry.off_topic += novel

    def failed(self, url: str, transient: bool = False) -> bool:
        """The visit could not be made (error, timeout): wasted, as one that showed new links.
        True when ``url`` was never read and has now failed ``give_up_after`` times in a row:
        it is given up (barren: remembered, never visited or added again). ``transient``: its
        host could not answer for a while (unreachable, 429, 5xx): for a listing read before,
        no visit at all — nothing learnt of the listing, so no evidence towards barren and no
        lower rate (a site down for three simulated hours made its day archive, whose stories
        the colony had met first elsewhere, barren: never read again once the site was back,
        9 stories lost a run); it is due again as it was, from this attempt on, and the visit
        that reads it next observes its documents over the time since the last visit read
        (not since this attempt: its rate once as many times too high)."""
        entry = self._entries.get(url)
        if entry is None:
            return False
        entry.in_flight = False
        self._closing.discard(url)
        if transient and entry.rate is not None:
            entry.failures += 1
            return False
        entry.since = None
        entry.visits += 1
        entry.evidence += 1
        entry.failures += 1
        if entry.rate is None:
            if entry.failures >= self.give_up_after and not entry.barren:
                self._mark_barren(entry)
                return True
            return False
        entry.rate *= 1.0 - self.beta
        return False

    # -- the colony ------------------------------------------------------------------------

    def split(self, rng: np.random.Generator) -> "HubSchedule":
        """Alg. 6 for a schedule: a random half of the live entries moves to a new schedule
        (the child's), the rest stays; barren memories stay with both. Entries on two hosts or
        more move *by host* (a random half of the hosts, each with all its entries): a host's
        listings stay in one weblog, polled under one share of its budget (compartments)."""
        live = [u for u, e in self._entries.items() if not e.barren]
        by_host: dict[str, list[str]] = {}
        for url in live:
            by_host.setdefault(self.host(url), []).append(url)
        if len(by_host) >= 2:
            hosts = list(by_host)
            chosen = rng.permutation(len(hosts))[: len(hosts) // 2].tolist()
            moved_urls = {url for index in chosen for url in by_host[hosts[index]]}
        else:
            moved_urls = {live[i] for i in rng.permutation(len(live))[: len(live) // 2].tolist()}
        child = HubSchedule(**self._parameters())
        if self.profile is not None:  # the site is the same: the child starts from a copy
            child.profile = self.profile.copy()
        child.site_days = self.site_days.copy()
        for url in live:
            if url in moved_urls:
                child._entries[url] = self._entries.pop(url)
        child._unvisited = True
        for url, entry in self._entries.items():
            if entry.barren:
                child._entries[url] = Entry(**_fields(entry))
        self._count_shapes()
        child._count_shapes()
        return child

    def keep_hosts(self, hosts: Iterable[str]) -> int:
        """Forget the live entries whose host is not in ``hosts`` (a deal gave those hosts to
        other foragers: :func:`deal`); barren memories stay. How many went."""
        keep = {h.lower() for h in hosts}
        gone = [u for u, e in self._entries.items() if not e.barren and self.host(u) not in keep]
        for url in gone:
            del self._entries[url]
        self._count_shapes()
        return len(gone)

    def hand_back(self) -> list[dict]:
        """The live entries, as :meth:`to_dict` keeps them (a retiring forager's listings, for
        the colony's other foragers to :meth:`adopt`)."""
        return [saved_entry(e) for e in self._entries.values() if not e.barren]

    def adopt(self, entries: Iterable[Mapping]) -> list[str]:
        """Take over entries another weblog handed back (:meth:`hand_back`), as they were
        learnt (rate, last visit, credits): the URLs added. Known URLs are left as they are;
        malformed entries are skipped. The capacity grows to hold them: a forager's user-given
        and handed-over listings are never clipped (its own finds still are)."""
        added = []
        for fields in entries:
            entry = entry_from(fields)
            if entry is None or not isinstance(entry.url, str) or not entry.url or entry.url in self._entries:
                continue
            entry.in_flight = False
            self._entries[entry.url] = entry
            added.append(entry.url)
        self.capacity = max(self.capacity, len(self._entries))
        self._count_shapes()
        self._unvisited = True
        return added

    def _count_shapes(self) -> None:
        self._changes += 1
        self._shapes = {}
        for entry in self._entries.values():
            counts = self._shapes.setdefault(shape(entry.url), [0, 0])
            counts[0] += entry.barren and not entry.closed
            counts[1] += entry.paid > 0

    # -- persistence -----------------------------------------------------------------------

    def to_dict(self) -> dict:
        data = {"entries": [saved_entry(e) for e in self._entries.values()]}
        if self.profile is not None:
            data["rhythm"] = self.profile.to_dict()
        if len(self.site_days):
            data["site_days"] = self.site_days.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict, **kwargs) -> "HubSchedule":
        schedule = cls(**kwargs)
        if schedule.profile is not None and data.get("rhythm"):
            schedule.profile = RhythmProfile.from_dict(data["rhythm"], **schedule.profile.parameters())
        if data.get("site_days"):  # (a bad state file raises)
            schedule.site_days = SiteDays.from_dict(data["site_days"], schedule.site_days.max_hosts)
        for fields in data.get("entries", []):
            entry = Entry(**{k: fields[k] for k in _FIELDS if k in fields})  # a bad state file raises
            schedule._entries[entry.url] = entry
        schedule._count_shapes()
        schedule._unvisited = True
        return schedule

    @classmethod
    def from_seeds(cls, urls: Iterable[str], **kwargs) -> "HubSchedule":
        schedule = cls(**kwargs)
        for url in urls:
            schedule.add(url)
        return schedule


ENTRY_FIELDS = tuple(f.name for f in dataclass_fields(Entry))
_FIELDS = ENTRY_FIELDS


def _fields(entry: Entry) -> dict:
    return asdict(entry)


def saved_entry(entry: Entry) -> dict:
    """``entry`` as a weblog's state keeps it (and hands it to another weblog): not in flight."""
    return _fields(entry) | {"in_flight": False}


def entry_from(fields: object) -> Entry | None:
    """The entry another weblog saved or shared (:func:`saved_entry`, or a listing's record in
    the store), its unknown fields left out; None when it cannot be one."""
    if not isinstance(fields, Mapping):
        return None
    try:
        return Entry(**{name: fields[name] for name in ENTRY_FIELDS if name in fields})
    except TypeError:
        return None


_DIGITS = re.compile(r"[0-9]+")


def host_of(url: str) -> str:
    """The host of ``url``, lower case ("" when it has none)."""
    return (urlsplit(url).hostname or "").lower()


def deal(urls: Iterable[str], n: int) -> list[list[str]]:
    """``urls`` dealt to ``n`` foragers by host: the hosts, in the order of their first URL,
    go round (host ``i`` to forager ``i mod n``), each with all its URLs in their order.
    Fewer hosts than foragers: every forager gets every URL (one site's listings are shared
    as before; nothing to divide by host). Compartments: one forager polls a host."""
    urls = list(dict.fromkeys(urls))
    if n < 1:
        raise ValueError(f"cannot deal to {n!r} foragers")
    by_host: dict[str, list[str]] = {}
    for url in urls:
        by_host.setdefault(host_of(url), []).append(url)
    if n == 1 or len(by_host) < n:
        return [list(urls) for _ in range(n)]
    shares: list[list[str]] = [[] for _ in range(n)]
    for index, host_urls in enumerate(by_host.values()):
        shares[index % n].extend(host_urls)
    return shares


def shape(url: str) -> str:
    """The URL's path with every run of digits as ``N`` (``/archive/N/N/N/``): a family of
    pages built from one template and a counter or a date."""
    parts = urlsplit(url)
    return _DIGITS.sub("N", parts.path or "/")


def url_day_end(url: str) -> float | None:
    """The end (UTC, POSIX seconds) of the day a URL names (``/archive/2024/03/05/``:
    2024-03-06 00:00; :func:`~newsforagers.learning.urldays.url_day`), or None."""
    day = url_day(url)
    return None if day is None else day.replace(tzinfo=UTC).timestamp() + 86_400.0


def of_the_past(url: str, now: float, window: float) -> bool:
    """Whether ``url`` names a day that ended more than ``window`` seconds before ``now``: a day
    archive of a past day, a story of a past day. Nothing on it can be novel any more, and a
    past day gets no new stories: neither a story to fetch nor a listing to poll."""
    end = url_day_end(url)
    return end is not None and end < now - window
