"""Hedged requests: a scheduled forager's request whose answer stalls is asked a second time.

A response that stalls after its headers (a trickle, an overloaded backend: 2 % of the answers
in issue 31's profiles, for 30 s) held what it would show until Scrapy gave it up
(:func:`~newsforagers.strategies.scheduled.budget.answer_deadline`, 10 s at least) and asked
again: a day archive that lists every story of its host was then not read for 50 simulated
minutes of a site at speed 300, and a story published meanwhile waited as long. Dean and
Barroso's remedy for a latency tail (*The Tail at Scale*, CACM 56(2), 2013, "hedged
requests"): once a request has waited longer than nearly all answers take, send the same
request again and use whichever answer comes first. It costs one request per stalled answer,
under the host's budget like any other.

"Longer than nearly all answers" is per host: :data:`STALL_FACTOR` times the median of the
host's own recent answers (a site answering in 2 s beside one answering in 100 ms is not
stalled at 3 s), and :data:`STALL_FLOOR` at least; a host with fewer than
:data:`MIN_SAMPLES` answers is given the slowest known host's limit (none before a host has
one: a stall then waits for its deadline, as before). The
age counts from when the request left the colony's host budget
(:data:`~newsforagers.scrapy_access.SENT_META`, set by the download handler): a request held
back by the budget (a paused host, the politeness spacing) has not stalled. A GET is asked
again, never anything else; each request at most once.

The first answer of the two is the answer: the mind hears it once, and the other, whenever it
comes (an answer, a failure, the first request's deadline), is dropped (:meth:`Hedges.answer`,
:meth:`Hedges.failure`). The first request is not retried by Scrapy once hedged (its
``dont_retry``): its twin is its retry. Pure bookkeeping: the driver sends the requests.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = ["HEDGE_META", "Hedges"]

from newsforagers.scrapy_access import HEDGE_META, SENT_META
from newsforagers.strategies.scheduled.budget import STALL_FACTOR, STALL_FLOOR

#: A host's recent answers whose median says when its next one has stalled.
SAMPLES = 8
#: Answers a host must have given before one of its requests is hedged.
MIN_SAMPLES = 3
#: Hosts whose recent answers are remembered (all forgotten when more come: they are learnt
#: again in a few answers each).
HOSTS_KEPT = 4_096
#: Fetches hedged and not settled that are remembered (a request Scrapy drops without a
#: callback, an off-site redirect, leaves its pair unsettled: the oldest are let go).
PAIRS_KEPT = 1_024


@dataclass
class _Pair:
    fetch: Any  # (held: its id stays its own while the pair is remembered)
    pending: int = 2  # the requests of the fetch not answered yet
    answered: bool = False  # one of them was


class Hedges:
    """The hedges of one forager: per host, its recent answers' latencies; per fetch hedged, its
    two requests' state. ``hedged``, ``won`` (the hedge answered first), ``late`` (an answer or
    failure dropped: its twin had answered, or may still) count what happened."""

    def __init__(self, factor: float = STALL_FACTOR, floor: float = STALL_FLOOR,
                 min_samples: int = MIN_SAMPLES):
        self.factor, self.floor, self.min_samples = factor, floor, min_samples
        self._latencies: dict[str, deque[float]] = {}
        self._limits: dict[str, float] = {}
        self._slowest: float | None = None  # the largest of _limits (None: to be worked out)
        self._pairs: dict[int, _Pair] = {}  # id(fetch) -> its two requests
        self.hedged = self.won = self.late = 0

    def observe(self, host: str, latency: float) -> None:
        """An answer of ``host`` took ``latency`` wall seconds (to its headers)."""
        if latency < 0 or not math.isfinite(latency):
            return
        recent = self._latencies.get(host)
        if recent is None:
            if len(self._latencies) >= HOSTS_KEPT:
                self._latencies.clear()
                self._limits.clear()
                self._slowest = None
            recent = self._latencies[host] = deque(maxlen=SAMPLES)
        recent.append(latency)
        if len(recent) >= self.min_samples:
            before = self._limits.get(host)
            limit = self._limits[host] = max(self.floor, self.factor * statistics.median(recent))
            if self._slowest is not None:
                if limit >= self._slowest:
                    self._slowest = limit
                elif before is not None and before >= self._slowest:
                    self._slowest = None  # the slowest got faster: worked out again when needed

    def limit(self, host: str) -> float | None:
        """Wall seconds after which a request of ``host`` that left the budget has stalled: by
        its own answers; for a host with too few, the slowest known host's limit (a host not
        known yet is taken for as slow as the slowest one seen); None before any host has one."""
        limit = self._limits.get(host)
        if limit is None and self._limits:
            if self._slowest is None:
                self._slowest = max(self._limits.values())
            limit = self._slowest
        return limit

    def due(self, requests: Iterable[tuple[Any, str, Any]], now: float) -> tuple[Any | None, float]:
        """``(fetch, 0)`` of the first of ``requests`` (``(fetch, host, request)``, in flight)
        that has stalled and may be hedged, or ``(None, seconds)`` until one may have (inf:
        none can; a request the budget has not let go yet is looked at again after its host's
        limit). ``now``: the clock of :data:`SENT_META` (``time.monotonic``)."""
        wait = math.inf
        for fetch, host, request in requests:
            if id(fetch) in self._pairs or request is None or request.method != "GET":
                continue
            limit = self.limit(host)
            if limit is None:
                continue
            sent = request.meta.get(SENT_META)
            if sent is None:
                wait = min(wait, limit)
                continue
            age = now - sent
            if age >= limit:
                return fetch, 0.0
            wait = min(wait, limit - age)
        return None, wait

    def hedge(self, fetch: Any, first: Any) -> None:
        """``fetch``'s request ``first`` stalled: its second request is being sent. Scrapy does
        not retry the first (the second is its retry)."""
        first.meta["dont_retry"] = True
        if len(self._pairs) >= PAIRS_KEPT:
            del self._pairs[next(iter(self._pairs))]
        self._pairs[id(fetch)] = _Pair(fetch)
        self.hedged += 1

    def answer(self, fetch: Any, hedge: bool = False) -> bool:
        """A response of ``fetch`` came (``hedge``: the second request's): True when the mind is
        to read it (the first answer of the fetch, or a fetch never hedged)."""
        pair = self._pairs.get(id(fetch))
        if pair is None:
            return True
        first = not pair.answered
        pair.answered = True
        self._settle(fetch, pair)
        if first:
            self.won += hedge
        else:
            self.late += 1
        return first

    def failure(self, fetch: Any) -> bool:
        """A request of ``fetch`` failed: True when the mind is to hear of it (a fetch never
        hedged, or both of its requests failed); False while its twin may still answer, or
        once it has."""
        pair = self._pairs.get(id(fetch))
        if pair is None:
            return True
        self._settle(fetch, pair)
        if pair.answered or pair.pending:
            self.late += 1
            return False
        return True

    def _settle(self, fetch: Any, pair: _Pair) -> None:
        pair.pending -= 1
        if pair.pending <= 0:
            del self._pairs[id(fetch)]
