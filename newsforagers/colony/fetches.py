"""Recent downloads shared by the colony's foragers.

Foragers that probe the same page within ``FORAGERS_FETCH_TTL`` seconds reuse one download:
a page another forager is downloading right now is waited for, a page downloaded less than the
TTL ago is served from memory. Fewer requests to the site per document found.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from newsforagers.learning.bounded import Bounded


class SharedFetches:
    def __init__(self, ttl: float, size: int, clock: Callable[[], float] = time.monotonic):
        self.ttl = float(ttl)
        self.size = int(size)
        self.clock = clock
        self._done: Bounded[str, tuple[float, Any]] = Bounded(max(0, self.size))
        self._in_flight: dict[str, asyncio.Future] = {}

    def _oldest(self) -> float:
        return self._done[self._done.oldest()][0]

    def __len__(self) -> int:
        return len(self._done)

    @property
    def enabled(self) -> bool:
        return self.ttl > 0 and self.size > 0

    def recent(self, url: str) -> Any | None:
        entry = self._done.get(url)
        if entry is None:
            return None
        stamp, response = entry
        if self.clock() - stamp > self.ttl:
            del self._done[url]
            return None
        return response

    def in_flight(self, url: str) -> asyncio.Future | None:
        return self._in_flight.get(url)

    def begin(self, url: str) -> None:
        if url not in self._in_flight:
            self._in_flight[url] = asyncio.get_event_loop().create_future()

    def finish(self, url: str, response: Any | None) -> None:
        """The download of ``url`` ended: remember a good response, wake the waiters."""
        if response is not None:
            now = self.clock()
            self._done.put(url, (now, response))  # the newest; past the size cap the oldest go
            # oldest first: drop what has expired (a response is held for the TTL at most)
            while self._done and now - self._oldest() > self.ttl:
                self._done.pop(self._done.oldest())
        future = self._in_flight.pop(url, None)
        if future is not None and not future.done():
            future.set_result(response)
