"""The scheduled strategy's requests (:class:`Fetch`) and counters."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Callable, Iterator

from newsforagers.strategies.common import ForagerCounters

KINDS = ("listing", "harvest", "candidate", "explore")
#: A news request's priority (:class:`Fetch`): above every other request of the colony's.
NEWS_PRIORITY = 1


@dataclass(frozen=True)
class Fetch:
    """One request of the scheduled forager: what to download, why, and the listing visit it
    came through (``visit``; 0: none) so that rewards can be credited to that listing.
    ``priority``: 1 for news (a story dated since the forager began, a teleport, a request
    resumed in flight), 0 otherwise; the spider puts it in the request's meta
    (``forager_budget_priority``, not Scrapy's ``Request.priority``, which redirects raise), by
    which the colony's host budget lets news go before the listing visits of other foragers.
    ``score``: in the topical mode, the relevance to the topic of the link's context on the
    listing that showed it (the news waiting on a host goes in its order, then the oldest
    first: ``ScheduledMind._push``); 0 otherwise."""

    url: str
    kind: str
    visit: int = 0
    priority: int = field(default=0, compare=False)
    score: float = field(default=0.0, compare=False)


@dataclass
class ScheduledCounters(ForagerCounters):
    listings: int = 0  # scheduled listing visits made
    spare_visits: int = 0  # ... of them, due by the spare budget alone (quiet listings)
    harvested: int = 0  # pages fetched from the harvest queue
    explored: int = 0  # exploration steps
    listings_found: int = 0  # listings added to the schedule after the seeds
    idle: int = 0  # times nothing was due
    old_listed: int = 0  # listed items dated beyond the novelty window: never fetched
    given_up: int = 0  # listings never read that failed FORAGERS_START_FAILURES times in a row
    successors: int = 0  # listings that took another's place on a listing (see _read_listing)
    next_days: int = 0  # links to today's archive met on an earlier day's (ScheduledMind._next_day)
    # listings whose successor another forager took: their rate 0 (ScheduledMind.succeeded_elsewhere)
    successors_elsewhere: int = 0
    deferred: int = 0  # listing visits made before the old backlog or a seed's map waiting in the harvest queue
    tried_later: int = 0  # stories asked for again later after a transient failure (on_failed)
    feeds_added: int = 0  # feeds and sitemaps the site announced, added to the schedule (add_feeds)
    old_feeds: int = 0  # announced sitemaps last updated beyond the novelty window: not added
    listings_adopted: int = 0  # listings a retiring forager handed back, taken over (adopt)
    off_topic: int = 0  # novel documents below the topic's relevance threshold: not credited
    # ... but credited while the forager had found none on the topic (see ScheduledMind.on_reward)
    topic_unfound: int = 0
    # stories queued as news with a link on the topic (a positive score: ScheduledMind._push)
    topic_links: int = 0
    past_links: int = 0  # links naming a day that ended beyond the novelty window: never fetched
    listed_credits: int = 0  # novel documents credited to a listing that showed them after another
    subsumed: int = 0  # listing visits while another listing of the host shows every story
    not_needed: int = 0  # listings met on a host with a complete listing: not added
    candidates_forgotten: int = 0  # candidate listings never tried, forgotten for the bound (Candidates)
    first_visits: int = 0  # listings never visited (seeds) visited before any harvest but news
    family_complete: int = 0  # day archives taken as complete on their family's proof on other hosts
    days_closed: int = 0  # past days' pages read after their site moved on: never polled again
    complete_released: int = 0  # complete listings made barren or dropped: their host's others due again


class HostQueues:
    """The harvest queue, one heap per host: the head of the whole queue is the best of the
    hosts' heads, and a host that has its share in flight is passed over by looking at its head
    alone (its entries stay where they are). Entries are tuples compared as the mind orders
    them (``(tier, key, order, ...)``, ``order`` unique)."""

    def __init__(self) -> None:
        self._heaps: dict[str, list[tuple]] = {}
        self._size = 0

    def push(self, host: str, entry: tuple) -> None:
        heapq.heappush(self._heaps.setdefault(host, []), entry)
        self._size += 1

    def head(self, busy: Callable[[str], bool] | None = None) -> tuple[str, tuple] | None:
        """``(host, entry)`` of the first entry of a host that is not ``busy``, or None."""
        best: tuple[str, tuple] | None = None
        for host, heap in self._heaps.items():
            if (best is None or heap[0] < best[1]) and (busy is None or not busy(host)):
                best = (host, heap[0])
        return best

    def pop(self, host: str) -> tuple:
        """Remove and return ``host``'s first entry."""
        heap = self._heaps[host]
        entry = heapq.heappop(heap)
        if not heap:
            del self._heaps[host]
        self._size -= 1
        return entry

    def __len__(self) -> int:
        return self._size

    def has(self, host: str) -> bool:
        """Whether ``host`` has entries queued."""
        return host in self._heaps

    def __iter__(self) -> Iterator[tuple]:
        """Every entry, in no order."""
        for heap in self._heaps.values():
            yield from heap
