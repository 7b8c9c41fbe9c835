"""The one stall detector of both drivers: when may a forager stop waiting for the requests it
handed Scrapy?

A forager waits for some of its requests (the papers' forager for its step's page and probes,
the step barrier; the scheduled forager for its ``FORAGERS_SCHEDULE_IN_FLIGHT`` unanswered
requests). Two things end the wait before the answers do:

* **dropped** — none of the forager's requests is anywhere in Scrapy (the downloader, retries
  and redirects included, or a callback) for ``DROPPED_AFTER`` seconds: a middleware dropped
  one without an answer (an off-site redirect). The missing ones count as failed at once.
* **timeout** — the number waited for has not moved for ``limit`` seconds (a request lost,
  or a response that stalls): the last resort.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from newsforagers.scrapy_access import FORAGER_META, requests_in_flight

#: Wall seconds for which Scrapy must hold none of a forager's requests before they count as
#: dropped (a response between the downloader and the spider's callback is never seen missing,
#: but a margin costs nothing).
DROPPED_AFTER = 0.2


class StallWatch:
    """Watches what a forager waits for; :meth:`check` says when the wait is over."""

    def __init__(self, crawler: Any, limit: float, *, dropped_after: float = DROPPED_AFTER,
                 clock: Callable[[], float] = time.monotonic):
        self.crawler = crawler
        self.limit = limit
        self.dropped_after = dropped_after
        self.clock = clock
        self._waiting = 0  # what the forager waited for when last checked
        self._moved = clock()  # when that number last changed
        self._missing_since: float | None = None  # when Scrapy was first seen holding none

    def restart(self, waiting: int | None = None) -> None:
        """A new wait begins (a step or a request handed over, for ``waiting`` answers in
        all): its clock starts now."""
        if waiting is not None:
            self._waiting = waiting
        self._moved = self.clock()
        self._missing_since = None

    def check(self, waiting: int) -> tuple[str | None, float]:
        """``(outcome, recheck)`` for a forager that waits for ``waiting`` answers: outcome
        ``"dropped"`` or ``"timeout"`` when the wait is over (the watch starts again), None
        while it is not; ``recheck``: wall seconds until the outcome can change without an
        answer coming back."""
        now = self.clock()
        if waiting != self._waiting:
            self._waiting, self._moved = waiting, now
        if requests_in_flight(self.crawler, FORAGER_META):
            self._missing_since = None
        elif self._missing_since is None:
            self._missing_since = now
        if self._missing_since is not None and now - self._missing_since >= self.dropped_after:
            self.restart()
            return "dropped", 0.0
        if now - self._moved > self.limit:
            self.restart()
            return "timeout", 0.0
        recheck = self._moved + self.limit - now
        if self._missing_since is not None:
            recheck = min(recheck, self._missing_since + self.dropped_after - now)
        return None, max(0.0, recheck)
