"""Crawling strategies on a :class:`~newsforagers.sim.world.NewsWorld` under one request budget
(issue 7): adaptive hub polling (the feed crawlers' baseline) and the ``scheduled`` forager,
beside the papers' forager of :mod:`newsforagers.sim.colony`.

Every download costs ``1/budget`` simulated seconds; a crawler that has nothing worth
requesting may idle (time passes without a request). A document counts when it is first
downloaded at most 24 simulated hours after its publication (the reinforcing agent's rule).

``scheduled`` (DESIGN.md, "Where the papers fall short"):

- **harvest**: a listing page's links not seen before are fetched at once, first in line; a
  fetched page is an article (it has a publication date: never fetched again) or a listing
  (added to the schedule);
- **weblog as a scheduler**: :class:`~newsforagers.learning.schedule.HubSchedule` says which
  listing is due (novelty rate × time since the last visit, optimistic prior, minimum interval,
  floor, barren URLs); a listing's novelty at a visit is the number of its links not seen before;
- **exploration**: a bounded share of the requests walks short TD-valued paths (the papers'
  value ``w·s`` and TD(0) step, one step at a time, crediting each step) to find listings the
  schedule does not know; a path ends after ``explore_steps`` steps or ``explore_patience``
  fruitless ones;
- **idle** when nothing is due and nothing waits to be harvested.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from newsforagers import defaults
from newsforagers.learning import random_weights, td_step
from newsforagers.learning.schedule import HubSchedule
from newsforagers.sim.colony import Found
from newsforagers.sim.world import NewsWorld

WINDOW = defaults.FORAGERS_NOVELTY_WINDOW


@dataclass
class StrategyResult:
    name: str
    found: list[Found]
    downloads: int
    idle: float = 0.0  # simulated seconds without a request
    extra: dict = field(default_factory=dict)

    def recall(self, world: NewsWorld, duration: float) -> float:
        published = world.published_between(0.0, duration)
        return len({f.url for f in self.found}) / max(len(published), 1)

    def lags(self) -> list[float]:
        return sorted((f.found_at - f.published) / 60.0 for f in self.found)


class _Crawl:
    """The clock, the budget and the first-finder bookkeeping every strategy shares."""

    def __init__(self, world: NewsWorld, duration: float, budget: float, name: str):
        if budget <= 0:
            raise ValueError(f"budget ({budget!r}) must be > 0 requests per simulated second.")
        self.world = world
        self.duration = duration
        self.dt = 1.0 / budget
        self.t = 0.0
        self.name = name
        self.downloads = 0
        self.idle = 0.0
        self.found: list[Found] = []
        self._found_urls: set[str] = set()

    def fetch(self, url: str) -> tuple[list[str], bool]:
        """Download ``url``: its links, and whether it was a novel document (first, fresh)."""
        self.t += self.dt
        self.downloads += 1
        article = self.world.article(url)
        novel = False
        if article is not None and url not in self._found_urls and 0 <= self.t - article.published <= WINDOW:
            self._found_urls.add(url)
            self.found.append(Found(url, self.name, article.published, self.t))
            novel = True
        return self.world.links(url, self.t), novel

    def wait(self, seconds: float) -> None:
        seconds = min(seconds, self.duration - self.t)
        self.t += seconds
        self.idle += seconds

    def result(self, **extra) -> StrategyResult:
        return StrategyResult(self.name, self.found, self.downloads, self.idle, extra)


def run_adaptive(world: NewsWorld, duration: float, budget: float,
                 min_interval: float = 60.0, max_interval: float = 6 * 3600.0) -> StrategyResult:
    """Adaptive hub polling (as ``scrapy crawl adaptive``): the home page and the fronts it
    links are hubs; a hub's interval halves when a poll shows a link not seen before and grows
    ×1.5 when not; the most overdue hub is polled when due; new links are downloaded first."""
    crawl = _Crawl(world, duration, budget, "adaptive")
    seen: set[str] = {world.home_url}
    queue: deque[str] = deque()
    interval: dict[str, float] = {world.home_url: min_interval}
    due: dict[str, float] = {world.home_url: 0.0}
    hubs_known = False
    while crawl.t < duration:
        if queue:
            crawl.fetch(queue.popleft())
            continue
        hub = min(due, key=due.get)
        if due[hub] > crawl.t:
            crawl.wait(due[hub] - crawl.t)
            continue
        links, _ = crawl.fetch(hub)
        new = [u for u in links if u not in seen]
        if hub == world.home_url and not hubs_known:
            hubs_known = True
            for url in links:
                if world.article(url) is None and url not in interval:
                    interval[url], due[url] = min_interval, crawl.t
        for url in new:
            seen.add(url)
            if url not in interval:
                queue.append(url)
        grown = interval[hub] / 2.0 if new else interval[hub] * 1.5
        interval[hub] = min(max(grown, min_interval), max_interval)
        due[hub] = crawl.t + interval[hub]
    return crawl.result()


def run_scheduled(world: NewsWorld, duration: float, budget: float, rng: np.random.Generator,
                  explore_share: float = defaults.FORAGERS_EXPLORE_SHARE,
                  explore_steps: int = defaults.FORAGERS_EXPLORE_STEPS,
                  explore_patience: int = defaults.FORAGERS_EXPLORE_PATIENCE,
                  schedule: HubSchedule | None = None,
                  td_alpha: float = defaults.FORAGERS_TD_ALPHA,
                  td_gamma: float = defaults.FORAGERS_TD_GAMMA,
                  reward: float = defaults.FORAGERS_REWARD,
                  send_cost: float = defaults.FORAGERS_SEND_COST) -> StrategyResult:
    """One ``scheduled`` forager seeded at the home page (see the module docstring)."""
    if not 0.0 <= explore_share < 1.0:
        raise ValueError(f"explore_share ({explore_share!r}) must be in [0, 1).")
    crawl = _Crawl(world, duration, budget, "scheduled")
    schedule = HubSchedule() if schedule is None else schedule
    schedule.add(world.home_url)
    seeds = {world.home_url}
    weights = random_weights(world.k, rng)
    seen: set[str] = {world.home_url}
    articles: set[str] = set()  # fetched pages with a publication date: never fetched again
    harvest: deque[tuple[str, str | None]] = deque()  # (url, the listing that showed it)
    requests = explored = 0
    path: list[str] = []  # the exploration path's steps
    fruitless = 0
    listings_found = 0

    def add_listing(url: str, source: str | None) -> None:
        # a listing found through a page that never paid starts with that page's rate, so
        # chains of such pages (archives, calendars) are not walked at full speed
        nonlocal listings_found
        entry = schedule.entry(source) if source is not None else None
        trusted = source is None or source in seeds or (entry is not None and entry.paid > 0)
        added = (schedule.add(url) if trusted
                 else schedule.add(url, now=crawl.t, rate=entry.rate if entry and entry.rate else 0.0))
        listings_found += added

    def read_listing(url: str, links: list[str]) -> None:
        """A listing's page arrived: queue the links it shows that were never seen."""
        new = [u for u in links if u not in seen]
        for link in new:
            seen.add(link)
            harvest.append((link, url))
        schedule.visited(url, len(new))

    def read(url: str, links: list[str], novel: bool, source: str | None) -> None:
        if novel and source is not None:
            schedule.credit(source)
        if world.article(url) is not None:
            articles.add(url)
            for link in links:  # an article links its front and the home page
                if world.article(link) is None and link not in schedule:
                    add_listing(link, source)
        elif url not in schedule:
            add_listing(url, source)

    while crawl.t < duration:
        if harvest:
            url, source = harvest.popleft()
            if url in articles:
                continue
            links, novel = crawl.fetch(url)
            requests += 1
            read(url, links, novel, source)
            continue
        if explore_share > 0 and explored < explore_share * (requests + explored + 1):
            # one exploration step: the papers' value w·s over the current page's links
            if not path or len(path) >= explore_steps or fruitless >= explore_patience:
                starts = schedule.urls()
                if not starts:
                    break
                path, fruitless = [starts[int(rng.integers(len(starts)))]], 0
            current = path[-1]
            options = [u for u in world.links(current, crawl.t) if u not in path and u not in articles]
            explored += 1
            if not options:
                path = []
                continue
            states = np.stack([world.state(u) for u in options])
            step = options[int(np.argmax(states @ weights))]
            known_before = len(schedule)
            links, novel = crawl.fetch(step)
            seen.add(step)
            read(step, links, novel, current if current in schedule else None)
            profit = (reward if novel else 0.0) - send_cost * (world.article(step) is not None)
            paid = novel or len(schedule) > known_before
            fruitless = 0 if paid else fruitless + 1
            weights = td_step(weights, world.state(current), profit, world.state(step), td_alpha, td_gamma)
            path.append(step)
            continue
        url, wait = schedule.next_due(crawl.t)
        if url is None:
            if math.isinf(wait):
                break
            crawl.wait(max(wait, crawl.dt))
            continue
        schedule.begin(url, crawl.t)
        links, novel = crawl.fetch(url)
        requests += 1
        read_listing(url, links)
    return crawl.result(explored=explored, listings_found=listings_found, schedule=len(schedule))
