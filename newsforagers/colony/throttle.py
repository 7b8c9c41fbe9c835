"""One request budget per host for the whole colony.

``FORAGERS_HOST_RATE`` (requests per second, 0: no rate limit) and ``FORAGERS_HOST_CONCURRENCY``
(requests in flight, 0: no limit) hold for all the colony's foragers together, so a colony of 16
never asks a site 16 times harder than one forager would. Starts are spaced evenly, a little
more than ``1/rate`` apart (no bursts: a burst sent at the end of one window and another at the
start of the next would reach a busy site together), and a sliding window caps them at
``⌊rate⌋`` in any second, so a site counting over one-second windows never sees more than
``rate``.

The spacing counts from the last *actual* start: an event loop that wakes a request late
delays every later one by as much, and the colony sends less than the budget allows (45–57 of
57 req/s at a budget of 60, docs/benchmarks.md). Spacing on a timeline of reserved slots
instead recovered that budget but let requests woken late leave closer together, and the
replay then counted 61 requests in one second at a budget of 60: politeness first.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter, deque
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Awaitable, Callable

# Starts are spaced a little wider than 1/rate: the site stamps arrivals, which jitter by a
# few milliseconds after our send times.
_MARGIN = 1.05


class HostBudget:
    def __init__(self, rate: float, concurrency: int, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        if rate < 0 or concurrency < 0:
            raise ValueError("host rate and concurrency must be >= 0 (0: no limit).")
        self.rate = float(rate)
        self.concurrency = int(concurrency)
        self.clock = clock
        self.sleep = sleep
        self._capacity = max(1, math.floor(self.rate)) if self.rate > 0 else 0
        self._window = self._capacity / self.rate * _MARGIN if self.rate > 0 else 0.0
        self._spacing = _MARGIN / self.rate if self.rate > 0 else 0.0
        self._starts: dict[str, deque[float]] = {}
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._pause_until: dict[str, float] = {}
        self.pauses: Counter[str] = Counter()  # pauses asked for, per host
        self.waited = 0.0  # seconds requests spent waiting for the budget

    def _semaphore(self, host: str) -> asyncio.Semaphore | None:
        if not self.concurrency:
            return None
        if host not in self._slots:
            self._slots[host] = asyncio.Semaphore(self.concurrency)
        return self._slots[host]

    async def acquire(self, host: str) -> None:
        """Wait until ``host`` may receive one more request from the colony."""
        began = self.clock()
        semaphore = self._semaphore(host)
        if semaphore is not None:
            await semaphore.acquire()
        try:
            while True:
                delay = self._delay(host)
                if delay <= 0:
                    break
                await self.sleep(delay)
        except BaseException:
            if semaphore is not None:
                semaphore.release()
            raise
        if self.rate > 0:
            self._starts.setdefault(host, deque()).append(self.clock())
        self.waited += self.clock() - began

    def _delay(self, host: str) -> float:
        now = self.clock()
        delay = self._pause_until.get(host, 0.0) - now
        if self.rate > 0:
            starts = self._starts.setdefault(host, deque())
            while starts and now - starts[0] >= self._window:
                starts.popleft()
            if len(starts) >= self._capacity:
                delay = max(delay, starts[0] + self._window - now)
            if starts:
                delay = max(delay, starts[-1] + self._spacing - now)
        return delay

    def release(self, host: str) -> None:
        semaphore = self._slots.get(host)
        if semaphore is not None:
            semaphore.release()

    def pause(self, host: str, seconds: float) -> int:
        """Send nothing to ``host`` for ``seconds`` (a 429 or 503 with ``Retry-After``); returns
        how many pauses ``host`` has asked for so far, this one included. A shorter pause
        never cuts a longer one short."""
        self._pause_until[host] = max(self._pause_until.get(host, 0.0), self.clock() + seconds)
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
    try:
        at = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if at is None or at.tzinfo is None or now.tzinfo is None:
        return None
    return max(0.0, (at - now).total_seconds())
