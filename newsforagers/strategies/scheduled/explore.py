"""The scheduled strategy's exploration: short TD-valued paths (Alg. 4 on every step) from a
page read recently, to find listings the weblog lacks (a part of
:class:`~newsforagers.strategies.scheduled.mind.ScheduledMind`)."""

from __future__ import annotations

from collections import OrderedDict
from datetime import UTC, datetime, timedelta
from typing import Callable, Sequence

import numpy as np

from newsforagers.pages import is_candidate
from newsforagers.strategies.common import guarded_td_step
from newsforagers.strategies.scheduled.fetch import Fetch

PAGE_LINKS = 2_000  # pages whose links are remembered as starting points of exploration


class Candidates:
    """Candidate listings not visited yet (URL -> the visit that showed them), at most ``size``
    (the oldest forgotten first), kept per host as well: the newest candidate on a host that
    may explore is found by a look at each host's newest, not at every candidate. At 1,000
    sites a forager holds hundreds of candidates on a hundred hosts, most of them with their
    share of exploration spent or waiting for their budgets, and a look at each candidate cost
    as much as the rest of a decision (docs/benchmarks.md)."""

    def __init__(self, size: int, stale: Callable[[str], bool] | None = None):
        self.size = max(0, int(size))
        self.stale = stale  # (a candidate visited since, or met as a listing or an article)
        self.forgotten = 0  # candidates not stale forgotten for the bound
        self._all: OrderedDict[str, tuple[int, str]] = OrderedDict()  # url -> (visit, host)
        self._on: dict[str, dict[str, int]] = {}  # host -> its urls -> when each came (order)
        self._last: dict[str, int] = {}  # host -> when its newest came, stale or not
        self._order = 0
        self._swept = 0  # adds since the stale were last swept out

    def __contains__(self, url: object) -> bool:
        return url in self._all

    def __len__(self) -> int:
        return len(self._all)

    def add(self, url: str, host: str, visit: int) -> None:
        """``url``, on ``host``, shown by ``visit``, becomes the newest (unless known)."""
        if url in self._all:
            return
        self._order += 1
        self._all[url] = (visit, host)
        urls = self._on.pop(host, None)  # (the hosts in the order of their newest)
        if urls is None:
            urls = {}
        self._on[host] = urls
        urls[url] = self._last[host] = self._order
        self._swept += 1
        if len(self._all) > self.size and self.stale is not None and self._swept > self.size // 8:
            self.sweep()
        while len(self._all) > self.size:
            oldest = next(iter(self._all))
            self.forgotten += self.stale is None or not self.stale(oldest)
            self.remove(oldest)

    def sweep(self) -> int:
        """Forget the stale candidates (how many): :meth:`newest` forgets those it meets,
        each host's newest, and a host that may not explore is not looked at further — at the
        bound, its older stale ones would push out candidates still to be tried (at 1,000
        sites a forager meets more candidates than the bound holds: docs/benchmarks.md). Swept
        when the bound is reached, at most once an eighth of ``size`` additions."""
        self._swept = 0
        stale = [url for url in self._all if self.stale(url)]
        for url in stale:
            self.remove(url)
        return len(stale)

    def remove(self, url: str) -> int | None:
        """Forget ``url``; the visit that showed it (None: not a candidate)."""
        known = self._all.pop(url, None)
        if known is None:
            return None
        visit, host = known
        urls = self._on[host]
        del urls[url]
        if not urls:
            del self._on[host]
            del self._last[host]
        return visit

    def newest(self, may: Callable[[str], bool] | None = None) -> str | None:
        """The newest candidate on a host that ``may`` explore (asked only of a host whose
        newest is newer than the best found so far: the hosts are looked at newest first),
        forgetting the stale ones met on the way (each host's newest)."""
        stale = self.stale or (lambda url: False)
        best, best_order, met = None, -1, []
        for host, urls in reversed(self._on.items()):
            if self._last[host] <= best_order:
                break  # this host's candidates and the next hosts' are older than the best
            for url, order in reversed(urls.items()):
                if stale(url):
                    met.append(url)
                    continue
                if order > best_order and (may is None or may(host)):
                    best, best_order = url, order
                break
        for url in met:
            self.remove(url)
        return best


class Exploration:
    """Exploration's share of the requests (mixed into ``ScheduledMind``)."""


    def _explore_due(self) -> bool:
        share = self.config.explore_share
        made = self.counters.listings + self.counters.harvested + self.counters.explored
        return share > 0 and self.counters.explored < share * (made + 1)

    def _explore_due_on(self, host: str) -> bool:
        """Exploration's share holds on ``host`` too: of the requests begun on it, at most
        ``FORAGERS_EXPLORE_SHARE`` explore (a host whose own budget binds spends it on what its
        listings show, not on the links of its pages). None on a host one of whose listings
        shows every story of it (``_subsumed``): a listing found there would not be added
        (``not_needed``), and a story found there that listing shows."""
        share = self.config.explore_share
        return share > 0 and self._host_explored.get(host, 0) < share * (self._host_made.get(host, 0) + 1) \
            and not self._host_complete(host)

    def _try_candidate(self, may: Callable[[str], bool] | None = None) -> Fetch | None:
        """A candidate listing's first visit (exploration's share): the newest first, on a
        host that ``may`` explore now (:meth:`Candidates.newest`)."""
        while True:
            url = self._candidates.newest(may)
            if url is None:
                return None
            visit = self._candidates.remove(url)
            if self.claim(url):
                return Fetch(url, "candidate", visit)

    def _stale_candidate(self, url: str) -> bool:
        return url in self.schedule or url in self._fetched or url in self._articles

    def _explore_step(self, now: float, may: Callable[[str], bool] | None = None) -> Fetch | None:
        """The first step of a new exploration path: from a page read recently (drawn at
        random; its links are remembered, so it is not fetched again), the link of highest
        ``w·s`` that is not known yet, on a host that ``may`` explore now. Harvest follows what
        listings list; exploration goes where only other pages link (an article's tag and
        author pages, say). A page none of whose links' hosts ``may`` explore is passed over
        without a look at its links (what a decision costs while every host waits for its
        budget: the same choice, drawn the same way)."""
        starts = list(self._page_links)
        for _ in range(min(len(starts), 20)):
            start = starts[int(self.rng.integers(len(starts)))]
            self._explore = [start]
            self._explore_previous, self._fruitless = self._states.get(start), 0
            links = self._page_links[start]
            if may is not None:
                hosts = self._page_link_hosts.get(start)
                if hosts is None:
                    hosts = frozenset(self._host(u) for u in links)
                    self._page_link_hosts.put(start, hosts)
                if not any(may(host) for host in hosts):
                    continue
            step = self._choose_step(self._explore_previous, links, now, may)
            if step is not None:
                self._explore.append(step)
                return Fetch(step, "explore")
        self._explore = []
        return None


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
            self.weights = guarded_td_step(self.name, self.config, self.counters, self.weights,
                                           self._explore_previous, profit, state)
        self._explore_previous = state
        if len(self._explore) > self.config.explore_steps or self._fruitless >= self.config.explore_patience:
            self._explore = []
            return
        step = self._choose_step(state, links, now)
        if step is None:
            self._explore = []
            return
        self._explore.append(step)
        self._explore_next = Fetch(step, "explore", fetch.visit)  # when exploration is due again

    def _choose_step(self, state: np.ndarray | None, links: Sequence[str], now: float,
                     may: Callable[[str], bool] | None = None) -> str | None:
        """The link of highest ``w·s`` that is neither a known listing (the schedule polls
        those), nor fetched before, nor on the path, nor naming a day that ended beyond the
        novelty window (:meth:`HubSchedule.of_the_past`: the archive's "previous day" would walk the
        calendar), on a host that ``may`` explore."""
        options = [u for u in links if u not in self._explore and u not in self._articles
                   and u not in self.schedule and u not in self._fetched
                   and (may is None or may(self._host(u))) and not self.schedule.of_the_past(u, now)]
        if not options:
            return None
        parent = self._value(state)
        values = np.array([self._value(self._states.get(u), parent) for u in options])
        values += 1e-9 * self.rng.random(len(values))  # ties broken at random
        return options[int(np.argmax(values))]
