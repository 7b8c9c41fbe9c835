"""One request budget per host for the whole colony.

``FORAGERS_HOST_RATE`` (requests per second, 0: no rate limit) and ``FORAGERS_HOST_CONCURRENCY``
(requests in flight, 0: no limit) hold for all the colony's foragers together, so a colony of 16
never asks a site 16 times harder than one forager would. Scrapy's own politeness settings act
per crawler, and every forager is a crawler of its own: a user's ``DOWNLOAD_DELAY``,
``CONCURRENT_REQUESTS_PER_DOMAIN``, ``CONCURRENT_REQUESTS``, ``DOWNLOAD_SLOTS`` and AutoThrottle
would let n foragers ask n times what the user set. :class:`Politeness` folds them into this
budget, so that they bind the colony as a whole (docs/settings.md, *Scrapy settings in a
colony*).

Starts are spaced evenly, at least ``1/rate`` apart (no bursts: a burst sent at the end of one
window and another at the start of the next would reach a busy site together), and a sliding
window caps them at ``c = ⌊rate⌋`` in ``_MARGIN · c / rate`` seconds (a little more than one),
so a site counting over one-second windows never sees more than ``rate``, with room for the
few milliseconds by which its stamps of the arrivals jitter after our sends. At one request a
second or less (``c = 1``) the window is the spacing: ``_MARGIN / rate``.

A start is when the budget lets a request go; the site sees it when its bytes leave, which
Scrapy's HTTP/1.1 handler does a few turns of the event loop later (a connection opened, the
request written): at once on an idle loop, but a loop busy reading pages holds those turns, and
on 1,000 sites a request left up to 0.5 s after its start while the next one of its host left
on time — two requests 0.5 s apart at one a second. So each start is *pending* until it has
*settled*: the budget counts :data:`SETTLE_TURNS` turns of the loop after it, and a start whose
turns came late counts as made that much later. The first request a crawler sends a host opens
a connection (every forager is a crawler, with connections of its own), which the site may
accept late (1,000 new hosts at once: it accepts them in batches) while the next request, on an
open connection, arrives on time: such a start is pending until its answer, and counts as made
then (``acquire(opening=True)``, :meth:`HostBudget.opened`: the download handler knows which
requests open a connection). The one-second window counts a pending start as present and a
settled one at when it left, so it holds between the requests as they reach the site.

At one a second or less the spacing is the window: the next start of a host waits until the
last has left and counts from when it did, so a loop that wakes a request late delays every
later one by as much. From two a second it counts on the host's *timeline*: a spacing from when
the last start was due (its limits let it go and a request was waiting), half a spacing at
least (:data:`CATCH_UP`) from when it was made, up to ``c − 1`` starts pending; the window,
counted as the requests left, keeps the rate. A start woken late, settling late or opening a
connection then costs its host once in ``c`` starts instead of holding back every later one:
on 20 hosts at 5 a second, with the crawl near one core, the starts woke 9 ms late and settled
25 ms late on average, and each forager's first request to a host held the host for its answer
(0.5–1.5 s): 0.86–0.87 of the budget sent while work was waiting, against 0.91 on the timeline
(docs/benchmarks.md, *Late starts counted once in a window*). A timeline of reserved slots
without the window counted as the requests left once let a busy loop send 61 requests in one
second at a budget of 60: the window is what keeps the politeness, the timeline only what is
spent.

A colony whose foragers run in several processes or on several machines
(``FORAGERS_SPAWNER=process`` or ``scrapyd``) keeps the starts and the pauses of each host in
the store instead (:class:`SharedStarts`: the store's ``reserve_start`` and ``pause_host``,
one atomic step on the store's clock), so the rate binds every process together; a start that
settled later than the margin covers is moved in the store too (``settle_start``). What is in
flight (``FORAGERS_HOST_CONCURRENCY``, ``CONCURRENT_REQUESTS``) and AutoThrottle's reading of
latencies stay per process.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Awaitable, Callable, Protocol

from newsforagers.clock import http_date

logger = logging.getLogger(__name__)

# Starts are spaced a little wider than 1/rate: the site stamps arrivals, which jitter by a
# few milliseconds after our send times.
_MARGIN = 1.05


#: The request meta key of a request's place in its host's line (an int, higher first; absent:
#: 0). A meta key, not Scrapy's ``Request.priority``: that one orders each crawler's own
#: scheduler, and Scrapy's middlewares move it (a redirect +2 per hop, a retry -1), which
#: would let a redirect loop jump the colony's line.
BUDGET_PRIORITY = "forager_budget_priority"

#: Turns of the event loop after a start by which the request's bytes have left: measured on
#: 1,000 sites with the crawl process near one core (Scrapy 2.19, Twisted 26.10, the asyncio
#: reactor; benchmarks/bench_colony_scale.py), the site saw 78 % of requests within 3 turns of
#: their start, 97.7 % within 8 and 99.7 % within 8 turns and 20 ms (the rest: the first
#: requests to 1,000 new hosts at once, waiting for the site to accept their connections).
SETTLE_TURNS = 8

#: The least share of the spacing between two starts of a host of two requests a second or more:
#: a start the event loop woke late lets the next one catch up with the host's timeline to
#: half a spacing after it (Scrapy's ``RANDOMIZE_DOWNLOAD_DELAY`` spaces requests 0.5 to 1.5
#: times ``DOWNLOAD_DELAY``); the one-second window, counted as the requests left, keeps the rate.
CATCH_UP = 0.5

#: Seconds between two looks at whether a waiting request's crawler is closing.
GONE_CHECK = 0.25

#: Wall seconds of the first back-off of a host that cannot be reached; each further failure
#: in a row doubles it, up to ``FORAGERS_HOST_BACKOFF_MAX``.
BACKOFF_FIRST = 1.0


class BudgetWaitAbandoned(Exception):
    """A request stopped waiting for the budget: its crawler is closing."""


@dataclass(frozen=True)
class AutoThrottle:
    """Scrapy's AutoThrottle rule, applied to a host for the whole colony.

    As Scrapy documents it: a host starts at ``start_delay`` between requests; each response
    sets a target delay of ``latency / target_concurrency``, and the next delay is the mean of
    the current one and the target, never below ``min_delay`` (``DOWNLOAD_DELAY``) nor above
    ``max_delay``; a response that is not a 200 may not shorten the delay (an error page comes
    back fast and would otherwise speed the crawl up on a struggling site).
    """

    start_delay: float
    max_delay: float
    target_concurrency: float
    min_delay: float = 0.0

    def next_delay(self, delay: float, latency: float, status: int) -> float:
        target = latency / self.target_concurrency
        new = max(self.min_delay, min(self.max_delay, (delay + target) / 2.0))
        if status != 200 and new < delay:
            return delay
        return new


@dataclass(frozen=True)
class Politeness:
    """What the whole colony may ask of one host: ``FORAGERS_HOST_*`` with the user's Scrapy
    politeness settings folded in (each one binds the colony, not each forager).

    ``rate`` (requests per second, 0: none), ``concurrency`` (in flight per host, 0: none),
    ``total`` (in flight across all hosts, 0: none), ``hosts`` (``DOWNLOAD_SLOTS``: per host
    ``(rate, concurrency)`` overrides), ``autothrottle`` (None: off) and ``sources`` (which
    setting set what, for the log).
    """

    rate: float = 0.0
    concurrency: int = 0
    total: int = 0
    hosts: dict[str, tuple[float, int]] = field(default_factory=dict)
    autothrottle: AutoThrottle | None = None
    sources: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Any, host_rate: float, host_concurrency: int) -> "Politeness":
        """``settings``: the root crawler's Scrapy settings; ``host_rate``/``host_concurrency``:
        ``FORAGERS_HOST_RATE``/``FORAGERS_HOST_CONCURRENCY`` from the colony's config."""
        sources: list[str] = []
        rate = float(host_rate)
        if rate > 0:
            sources.append(f"FORAGERS_HOST_RATE={rate:g}/s")
        delay = settings.getfloat("DOWNLOAD_DELAY", 0.0)
        if delay > 0 and (rate == 0 or 1.0 / delay < rate):
            rate = 1.0 / delay
            sources.append(f"DOWNLOAD_DELAY={delay:g} s")
        concurrency = int(host_concurrency)
        if concurrency > 0:
            sources.append(f"FORAGERS_HOST_CONCURRENCY={concurrency}")
        for name in ("CONCURRENT_REQUESTS_PER_DOMAIN", "CONCURRENT_REQUESTS_PER_IP"):
            # Scrapy's slots are per domain (or per IP): a colony's budget is per host name,
            # which a per-IP limit binds when every host has an address of its own
            value = settings.getint(name, 0)
            if value > 0 and (concurrency == 0 or value < concurrency):
                concurrency = value
                sources.append(f"{name}={value}")
        total = settings.getint("CONCURRENT_REQUESTS", 0)
        if total > 0:
            sources.append(f"CONCURRENT_REQUESTS={total} (all hosts)")
            if concurrency == 0 or total < concurrency:
                concurrency = total
        hosts: dict[str, tuple[float, int]] = {}
        for host, slot in (settings.getdict("DOWNLOAD_SLOTS") or {}).items():
            # a slot of its own replaces Scrapy's delay and concurrency for that host, but
            # never the colony's own FORAGERS_HOST_* limits
            if not isinstance(slot, dict):
                continue
            slot_rate, slot_concurrency = rate, concurrency
            if "delay" in slot:
                slot_delay = float(slot["delay"] or 0)
                slot_rate = 1.0 / slot_delay if slot_delay > 0 else 0.0
                if host_rate > 0:
                    slot_rate = min(slot_rate, host_rate) if slot_rate > 0 else float(host_rate)
            if int(slot.get("concurrency") or 0) > 0:
                slot_concurrency = int(slot["concurrency"])
                if host_concurrency > 0:
                    slot_concurrency = min(slot_concurrency, int(host_concurrency))
            hosts[str(host).lower()] = (slot_rate, slot_concurrency)
            sources.append(f"DOWNLOAD_SLOTS[{host!r}]")
        autothrottle = None
        if settings.getbool("AUTOTHROTTLE_ENABLED"):
            target = settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY", 1.0)
            if target <= 0:
                raise ValueError(f"AUTOTHROTTLE_TARGET_CONCURRENCY ({target!r}) must be higher than 0.")
            autothrottle = AutoThrottle(
                start_delay=max(delay, settings.getfloat("AUTOTHROTTLE_START_DELAY", 5.0)),
                max_delay=settings.getfloat("AUTOTHROTTLE_MAX_DELAY", 60.0),
                target_concurrency=target, min_delay=delay)
            sources.append(f"AUTOTHROTTLE (target concurrency {target:g})")
        return cls(rate, concurrency, total, hosts, autothrottle, tuple(sources))

    def describe(self) -> str:
        """One line for the log: what binds the colony."""
        parts = [f"{self.rate:g} request(s)/s per host" if self.rate > 0 else "no rate limit",
                 f"{self.concurrency} in flight per host" if self.concurrency else "no limit in flight"]
        if self.total:
            parts.append(f"{self.total} in flight in all")
        if self.autothrottle is not None:
            parts.append(f"AutoThrottle from {self.autothrottle.start_delay:g} s, "
                         f"up to {self.autothrottle.max_delay:g} s")
        if self.hosts:
            parts.append(f"{len(self.hosts)} host(s) of their own (DOWNLOAD_SLOTS)")
        return ", ".join(parts) + (f" ({'; '.join(self.sources)})" if self.sources else "")


class _Pending:
    """A start of a host not known to have left yet: when it left so far (moved later if its
    turns came late, or to its answer if it opened a connection), whether it still waits for
    that answer, and whether its turns have come."""

    __slots__ = ("left", "opening", "settled")

    def __init__(self, left: float, opening: bool):
        self.left, self.opening, self.settled = left, opening, False


class _HostLimits:
    """One host's share of the budget: its spacing, its one-second window, its slots, its
    starts, and the line of requests waiting for it."""

    __slots__ = ("capacity", "window", "spacing", "slack", "covered", "semaphore", "starts", "pending", "count",
                 "newest", "made", "due", "line", "moved", "arrivals", "changed", "settling_loop")

    def __init__(self, rate: float, concurrency: int):
        self.capacity = max(1, math.floor(rate)) if rate > 0 else 0
        self.window = self.capacity / rate * _MARGIN if rate > 0 else 0.0
        # the window keeps the rate from two a second (see the module's docstring); at one a
        # second or less the spacing is the window
        self.spacing = (1.0 if self.capacity >= 2 else _MARGIN) / rate if rate > 0 else 0.0
        # seconds a start may settle late unmoved (what the margin covers), and how much of it a
        # start moved later may keep (HostBudget._settle): none at one a second or less
        self.slack = (_MARGIN - 1.0) / rate if rate > 0 else 0.0
        self.covered = self.slack if self.capacity >= 2 else 0.0
        self.semaphore = asyncio.Semaphore(concurrency) if concurrency > 0 else None
        # the starts known to have left, at when they left (moved later when they settled late
        # or opened a connection), within the window; and the starts not known to have left
        # yet, by number
        self.starts: list[float] = []
        self.pending: dict[int, _Pending] = {}
        self.count = 0  # starts made (the next one's number)
        self.newest = 0.0  # the newest start, as it left (so far)
        self.made: float | None = None  # the newest start, as it was made
        # when the newest start was due: when its host's limits let it go, or when it came to
        # the head of the line if that was later (never after the start itself)
        self.due = 0.0
        # the requests waiting for this host, a heap of [-priority, arrival]: only the head
        # takes the slots and waits for a start (with a shared budget: asks the store), so the
        # highest priority goes next and equal ones go in their order of arrival
        self.line: list[list[float]] = []
        self.moved = asyncio.Event()  # set (and replaced) whenever the head leaves the line
        self.arrivals = itertools.count()
        self.changed = asyncio.Event()  # set (and replaced) whenever a pending start has left
        self.settling_loop: asyncio.AbstractEventLoop | None = None


class SharedStarts(Protocol):
    """Where the starts and pauses of every host live when the budget binds many processes: a
    colony store (:meth:`~newsforagers.store.ColonyStore.reserve_start`, ``pause_host``)."""

    def reserve_start(self, host: str, capacity: int, window: float, spacing: float) -> float: ...

    def settle_start(self, host: str) -> None: ...

    def pause_host(self, host: str, seconds: float) -> None: ...


class HostBudget:
    def __init__(self, rate: float, concurrency: int, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, *, total: int = 0,
                 hosts: dict[str, tuple[float, int]] | None = None,
                 autothrottle: AutoThrottle | None = None, shared: SharedStarts | None = None):
        if rate < 0 or concurrency < 0 or total < 0:
            raise ValueError("host rate and concurrency must be >= 0 (0: no limit).")
        self.rate = float(rate)
        self.concurrency = int(concurrency)
        self.total = int(total)
        self.clock = clock
        self.sleep = sleep
        self.autothrottle = autothrottle
        # the starts and pauses of every process of the colony (None: this process's alone)
        self.shared = shared
        self._overrides = dict(hosts or {})
        self._hosts: dict[str, _HostLimits] = {}
        self._all = asyncio.Semaphore(self.total) if self.total > 0 else None
        self._pause_until: dict[str, float] = {}
        self._delay_of: dict[str, float] = {}  # AutoThrottle's delay per host
        self._unreachable: Counter[str] = Counter()  # connection failures in a row, per host
        self.pauses: Counter[str] = Counter()  # pauses asked for, per host
        self.sent: Counter[str] = Counter()  # requests let through, per host
        self.waited = 0.0  # seconds requests spent waiting for the budget
        self.displaced = 0  # heads of a line that a request of a higher priority went before
        self.settled_late = 0  # starts moved later: their turns of the event loop came late
        self.settled_seconds = 0.0  # ... by this many seconds in all

    @classmethod
    def from_politeness(cls, politeness: Politeness, **kwargs: Any) -> "HostBudget":
        return cls(politeness.rate, politeness.concurrency, total=politeness.total,
                   hosts=politeness.hosts, autothrottle=politeness.autothrottle, **kwargs)

    def rate_of(self, host: str) -> float:
        """Requests per second ``host`` may receive (0: no limit)."""
        return self._overrides.get(host, (self.rate, self.concurrency))[0]

    def _limits(self, host: str) -> _HostLimits:
        limits = self._hosts.get(host)
        if limits is None:
            rate, concurrency = self._overrides.get(host, (self.rate, self.concurrency))
            limits = self._hosts[host] = _HostLimits(rate, concurrency)
        return limits

    async def acquire(self, host: str, gone: Callable[[], bool] | None = None,
                      priority: int = 0, opening: bool = False) -> int:
        """Wait until ``host`` may receive one more request from the colony; returns the start's
        number (for :meth:`opened`).

        Among the requests waiting for ``host`` (in this process), the one of the highest
        ``priority`` (a request's :data:`BUDGET_PRIORITY` meta) starts first, equal ones in their
        order of arrival: a story one forager found is not kept waiting behind the listing
        visits other foragers queued before it. A higher one that arrives while the head waits
        for its start takes the head's place (the head lets its slots go and waits again, at
        the head of the rest: ``displaced`` counts it), so it leaves at the next start.

        ``gone``: asked at least every :data:`GONE_CHECK` seconds while waiting; once it says
        True (the request's crawler is closing), the wait ends with :class:`BudgetWaitAbandoned`
        instead of holding the crawler's close for as long as the queue before it.

        ``opening``: the request opens a new connection (its crawler has had no answer from
        ``host`` yet), which the site may accept late: the start counts as not yet left until
        :meth:`opened` (its answer, or its failure) — in the host's window as present, and at
        one a second or less (or with a shared budget) the host's next start waits for it."""
        began = self.clock()
        limits = self._limits(host)
        place = [-float(priority), float(next(limits.arrivals))]
        heapq.heappush(limits.line, place)
        try:
            while True:
                await self._wait_for_head(limits, place, gone)
                held: list[asyncio.Semaphore] = []
                try:
                    for semaphore in (self._all, limits.semaphore):
                        if semaphore is not None:
                            await self._take(semaphore, gone)
                            held.append(semaphore)
                    due = await self._wait_for_start(host, limits, gone, place)
                    started = due is not None
                except BaseException:
                    for semaphore in held:
                        semaphore.release()
                    raise
                if started:
                    break
                # a request of a higher priority arrived before this one's start: it goes
                # first, this one waits at the head of the rest
                for semaphore in held:
                    semaphore.release()
                self.displaced += 1
        finally:
            self._leave_line(limits, place)
        start = self.clock()
        number = limits.count
        if limits.capacity or self.autothrottle is not None:
            limits.count += 1
            limits.due, limits.made, limits.newest = min(start, due), start, start
            limits.pending[number] = _Pending(start, opening)
            self._settle(host, limits, start, number)
        self.sent[host] += 1
        self.waited += self.clock() - began
        return number

    def _settle(self, host: str, limits: _HostLimits, start: float, number: int) -> None:
        """Count :data:`SETTLE_TURNS` turns of the event loop from the start just made (at
        ``start``, this budget's clock; the host's start ``number``); if they took longer than
        the window's margin covers (the loop was busy, and the request may have left that much
        later), the start counts as made at the last turn, less the part of the margin the
        window keeps (``covered``: ``(_MARGIN − 1) / rate`` from two requests a second, else
        0; with a shared budget the store's newest start moves to the store's now in full).

        Until then the start is *pending*: in its host's one-second window it counts as
        present, and the host's next start waits for it where the spacing counts from the last
        start as it left (:meth:`_pending_cap`). Any ``c + 1`` requests as they left (``c =
        ⌊rate⌋``) are then at least ``_MARGIN − (_MARGIN − 1) / c`` seconds apart at an integer
        rate: 1.025 s for ``c ≥ 2`` (a site counting one-second windows sees ``c`` at most), 1.0
        s for ``c = 1`` (no room for the site's jitter: moved in full). Moved to the last turn
        in full, a start that settled 11 ms late cost its host 21 ms: on 20 hosts at 5 requests
        a second each, four starts in ten settled late (docs/benchmarks.md, *Encoder fits in a
        worker process*)."""
        loop = limits.settling_loop = asyncio.get_running_loop()
        turns = [0]

        def turn() -> None:
            turns[0] += 1
            if turns[0] < SETTLE_TURNS:
                loop.call_soon(turn)
                return
            entry = limits.pending.get(number)
            if entry is None:  # forgotten: its event loop had ended
                return
            try:
                late = self.clock() - start
                if late > limits.slack:
                    self.settled_seconds += late
                    self.settled_late += 1
                    if self.shared is not None:
                        self.shared.settle_start(host)
                    entry.left = max(entry.left, self.clock() - limits.covered)
            except Exception:  # a shared store that failed: its own log says why; the line goes on
                logger.exception("host %s: a start that left late could not be moved in the store", host)
            finally:
                entry.settled = True
                if not entry.opening:
                    self._left(limits, number)

        loop.call_soon(turn)

    def _left(self, limits: _HostLimits, number: int) -> None:
        """Start ``number`` of the host is known to have left (settled, and answered if it
        opened a connection): it counts in the window at when it left."""
        entry = limits.pending.pop(number)
        if limits.capacity and self.shared is None:
            limits.starts.append(entry.left)
        if number == limits.count - 1:
            limits.newest = entry.left
        limits.changed.set()
        limits.changed = asyncio.Event()

    def _pending_cap(self, limits: _HostLimits) -> int:
        """How many starts of a host may be pending (not known to have left) when the next is
        made: ``⌊rate⌋`` where its one-second window, which counts them as present, keeps the
        rate and the spacing counts from when the last start was due (two a second or more, in
        this process); else 1: the next start counts from the last as it left (at one a second
        or less the spacing is the window; with a shared budget the store holds the starts)."""
        return limits.capacity if self.shared is None and limits.capacity >= 2 else 1

    def _forget_pending(self, limits: _HostLimits) -> None:
        """Starts made in an event loop that has ended: their turns and answers will never
        come; they count at when they left so far."""
        for number in sorted(limits.pending):
            self._left(limits, number)

    @staticmethod
    async def _wait_for_head(limits: _HostLimits, place: list[float],
                             gone: Callable[[], bool] | None) -> None:
        while limits.line[0] is not place:
            if gone is not None and gone():
                raise BudgetWaitAbandoned("")
            moved = limits.moved.wait()
            if gone is None:
                await moved
                continue
            try:
                await asyncio.wait_for(moved, GONE_CHECK)
            except asyncio.TimeoutError:
                continue

    @staticmethod
    def _leave_line(limits: _HostLimits, place: list[float]) -> None:
        line = limits.line
        if line[0] is place:
            heapq.heappop(line)
            limits.moved.set()  # the next in line is the head now
            limits.moved = asyncio.Event()
        else:  # abandoned while waiting (its crawler is closing): the head is unchanged
            line.remove(place)
            heapq.heapify(line)

    async def _wait_for_start(self, host: str, limits: _HostLimits,
                              gone: Callable[[], bool] | None, place: list[float]) -> float | None:
        """Wait for ``host``'s next start and return when it was due (when the limits let it
        go, or when this request came to the head of the line, the later); None when, before
        it, a request of a higher priority took the head of the line (``place`` is this
        request's)."""
        came = due = self.clock()
        while True:
            if gone is not None and gone():
                raise BudgetWaitAbandoned(host)
            if limits.line[0] is not place:
                return None
            if len(limits.pending) >= self._pending_cap(limits):
                if limits.settling_loop is asyncio.get_running_loop():
                    # a start the next one counts from may not have left yet: it settles within
                    # a few turns of the loop (and may move later), or, opening a connection,
                    # with its answer
                    try:
                        await asyncio.wait_for(limits.changed.wait(), GONE_CHECK)
                    except asyncio.TimeoutError:
                        pass
                    continue
                self._forget_pending(limits)  # made in an event loop that has ended
            delay = self._delay(host, limits)
            if delay <= 0:
                return due
            due = max(came, self.clock() + delay)  # when the limits let it go, as of now
            await self.sleep(delay if gone is None else min(delay, GONE_CHECK))

    @staticmethod
    async def _take(semaphore: asyncio.Semaphore, gone: Callable[[], bool] | None) -> None:
        if gone is None:
            await semaphore.acquire()
            return
        while True:
            if gone():
                raise BudgetWaitAbandoned("")
            try:
                await asyncio.wait_for(semaphore.acquire(), GONE_CHECK)
                return
            except asyncio.TimeoutError:
                continue

    def _delay(self, host: str, limits: _HostLimits) -> float:
        """Seconds to wait before ``host`` may receive a request; 0 or less: it may now (with
        a shared budget, the start is then already recorded in the store)."""
        now = self.clock()
        delay = self._pause_until.get(host, 0.0) - now
        spacing = self._spacing(host, limits)
        if self.shared is not None:
            if delay > 0:
                return delay
            if not limits.capacity and spacing <= 0:
                return 0.0  # no rate to keep: nothing to record
            return self.shared.reserve_start(host, limits.capacity, limits.window, spacing)
        return max(delay, self._start_wait(limits, spacing, now))

    def _spacing(self, host: str, limits: _HostLimits) -> float:
        """Seconds between two starts of ``host``: its rate's, or AutoThrottle's when longer."""
        if self.autothrottle is None:
            return limits.spacing
        return max(limits.spacing, self._delay_of.get(host, self.autothrottle.start_delay))

    @staticmethod
    def _start_wait(limits: _HostLimits, spacing: float, now: float) -> float:
        """Seconds until this process's own starts of a host let another go (its one-second
        window, its spacing); 0 or less: now."""
        wait = -math.inf
        if limits.capacity:
            starts = limits.starts
            if starts and now - min(starts) >= limits.window:
                starts[:] = [start for start in starts if now - start < limits.window]
            present = len(starts) + len(limits.pending)  # a pending start is in the window
            if present >= limits.capacity:
                # the start that must leave the window first (pending ones have not left yet:
                # at most ⌊rate⌋ − 1 of them when a start is made, :meth:`_pending_cap`)
                ordered = sorted(starts)
                first = present - limits.capacity
                wait = ordered[first] + limits.window - now if first < len(ordered) else limits.window
        if spacing > 0 and limits.made is not None:
            if limits.capacity >= 2:
                # the window keeps the rate as the requests left: the spacing counts from when
                # the newest start was due, and half a spacing at least from when it was made
                wait = max(wait, limits.due + spacing - now, limits.made + CATCH_UP * spacing - now)
            else:  # the newest start as it left (set with ``made``)
                wait = max(wait, limits.newest + spacing - now)
        return wait

    def ready_in(self, host: str) -> float:
        """Seconds until ``host`` may receive a request, by what this process knows: a pause,
        the spacing after its last start, its one-second window, and the requests already
        waiting for it (each a spacing); 0 when one may go now. A read, unlike a start: a
        scheduled forager passes a host over until it is ready (a request handed over earlier
        would hold one of the forager's requests in flight while it waits; with a shared
        budget the other processes' starts are not seen, and the store's start decides)."""
        now = self.clock()
        wait = self._pause_until.get(host, 0.0) - now
        limits = self._hosts.get(host)
        if limits is None:
            return max(0.0, wait)
        spacing = self._spacing(host, limits)
        wait = max(wait, self._start_wait(limits, spacing, now))
        if limits.line:
            wait = max(wait, 0.0) + len(limits.line) * spacing
        return max(0.0, wait)

    def release(self, host: str) -> None:
        limits = self._hosts.get(host)
        if limits is not None and limits.semaphore is not None:
            limits.semaphore.release()
        if self._all is not None:
            self._all.release()

    def observe(self, host: str, latency: float, status: int) -> None:
        """A response from ``host`` came back after ``latency`` seconds (AutoThrottle); it
        ends the host's back-off series (:meth:`unreachable`)."""
        self._unreachable.pop(host, None)
        if self.autothrottle is None or latency is None or latency < 0:
            return
        current = self._delay_of.get(host, self.autothrottle.start_delay)
        self._delay_of[host] = self.autothrottle.next_delay(current, latency, status)

    def opened(self, host: str, answered: bool, number: int | None = None) -> None:
        """A request :meth:`acquire` was told was ``opening`` a connection (its start
        ``number``, as :meth:`acquire` returned it; None: the newest such) has ended:
        ``answered`` (the site had it by now, however late it accepted the connection: the
        start counts as made now, in full; with a shared budget the store's newest start moves
        to the store's now), or failed (it counts as made when it settled)."""
        limits = self._hosts.get(host)
        if limits is None or not (limits.capacity or self.autothrottle is not None):
            return
        if number is None:
            number = max((n for n, entry in limits.pending.items() if entry.opening), default=None)
        entry = limits.pending.get(number) if number is not None else None
        if entry is None or not entry.opening:
            return
        entry.opening = False
        if answered:
            if self.shared is not None:
                self.shared.settle_start(host)
            entry.left = max(entry.left, self.clock())
            self.settled_late += 1
        if entry.settled:
            self._left(limits, number)

    def delay_of(self, host: str) -> float | None:
        """AutoThrottle's current delay for ``host`` (None when it is off)."""
        if self.autothrottle is None:
            return None
        return self._delay_of.get(host, self.autothrottle.start_delay)

    def unreachable(self, host: str, cap: float) -> float:
        """``host`` could not be reached (connection refused or timed out, no address): the
        colony sends it nothing for a back-off that doubles with each failure in a row (1, 2,
        4, ... s, at most ``cap``; 0: no back-off), so a host that is down costs a request now
        and then, not the budget's every turn; its first answer ends the series. Returns the
        back-off. A failure during the back-off (a request sent before it began, failing now)
        does not lengthen it: the series counts the tries after each pause."""
        now = self.clock()
        until = self._pause_until.get(host, 0.0)
        if self._unreachable[host] and now < until:
            return until - now
        self._unreachable[host] += 1
        seconds = min(cap, BACKOFF_FIRST * 2.0 ** (self._unreachable[host] - 1))
        if seconds > 0:
            self._pause_until[host] = max(self._pause_until.get(host, 0.0), self.clock() + seconds)
            if self.shared is not None:
                self.shared.pause_host(host, seconds)
        return seconds

    def pause(self, host: str, seconds: float) -> int:
        """Send nothing to ``host`` for ``seconds`` (a 429 or 503 with ``Retry-After``); returns
        how many pauses ``host`` has asked for so far, this one included. A shorter pause
        never cuts a longer one short."""
        self._pause_until[host] = max(self._pause_until.get(host, 0.0), self.clock() + seconds)
        if self.shared is not None:
            self.shared.pause_host(host, seconds)
        self.pauses[host] += 1
        return self.pauses[host]


def retry_after_seconds(value: str | bytes | None, now: datetime) -> float | None:
    """Seconds a ``Retry-After`` header value asks for (RFC 9110, 10.2.3), or None.

    ``value`` is either a number of seconds or an HTTP date; a date is read against ``now``,
    which should be the response's own ``Date`` (the server's clock: a replay's simulated one,
    or a server whose clock is off) and otherwise an aware UTC time of this machine. A date in
    the past is 0; a value that is neither (or a negative number) is None: no pause.
    """
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        # not in the RFC's grammar, but sent: "1.5"; a negative or infinite one is garbage
        return seconds if 0 <= seconds < math.inf else None
    at = http_date(value)
    if at is None or now.tzinfo is None:
        return None
    return max(0.0, (at - now).total_seconds())
