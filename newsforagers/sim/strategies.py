"""Crawling strategies on a :class:`~newsforagers.sim.world.NewsWorld` under one request budget:
adaptive hub polling (the feed crawlers' baseline) and the ``scheduled`` forager,
beside the papers' forager of :mod:`newsforagers.sim.colony`.

Every download costs ``1/budget`` simulated seconds; a crawler that has nothing worth
requesting may idle (time passes without a request). A document counts when it is first
downloaded at most 24 simulated hours after its publication (the reinforcing agent's rule).

``scheduled``: the Scrapy forager's own mind, :class:`newsforagers.strategies.scheduled.ScheduledMind`
(harvest of what listings list, the weblog as a scheduler of listings, bounded TD-valued
exploration, idling when nothing is due; docs/algorithms.md), driven here in simulated time
with the world's page states in place of the text encoder's, so the simulator predicts what
the crawler does.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from newsforagers import defaults
from newsforagers.config import ForagersConfig
from newsforagers.learning import random_weights
from newsforagers.learning.revisit import AdaptiveInterval
from newsforagers.learning.schedule import HubSchedule
from newsforagers.sim.colony import Found
from newsforagers.sim.encoder import WorldStates
from newsforagers.sim.world import NewsWorld
from newsforagers.strategies.scheduled import ScheduledMind, poll_rate, schedule_from_config

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
                 rule: AdaptiveInterval | None = None) -> StrategyResult:
    """Adaptive hub polling as ``scrapy crawl adaptive`` does it, with its rule
    (:class:`~newsforagers.learning.revisit.AdaptiveInterval`, its defaults unless ``rule`` is
    given): the home page and the fronts it links are hubs; a hub's interval shrinks when a poll
    shows a link not seen before and grows when not, from its second poll on; the most overdue
    hub is polled when due; new links are downloaded first."""
    rule = rule or AdaptiveInterval()
    crawl = _Crawl(world, duration, budget, "adaptive")
    seen: set[str] = {world.home_url}
    queue: deque[str] = deque()
    interval: dict[str, float] = {world.home_url: rule.initial}
    last: dict[str, float | None] = {world.home_url: None}
    hubs_known = False
    while crawl.t < duration:
        if queue:
            crawl.fetch(queue.popleft())
            continue
        # the most overdue hub (a hub never polled first), polled when due
        hub = max(last, key=lambda h: rule.overdue(crawl.t, last[h], interval[h]))
        if rule.overdue(crawl.t, last[hub], interval[hub]) < 1:
            due = min(last[h] + interval[h] for h in last)
            if due > crawl.t:  # (a due time within rounding of now is now)
                crawl.wait(due - crawl.t)
                continue
        first = last[hub] is None
        links, _ = crawl.fetch(hub)
        new = [u for u in links if u not in seen]
        if hub == world.home_url and not hubs_known:
            hubs_known = True
            for url in links:
                if world.article(url) is None and url not in interval:
                    interval[url], last[url] = rule.initial, None
        for url in new:
            seen.add(url)
            if url not in interval:
                queue.append(url)
        interval[hub] = rule.after_poll(interval[hub], bool(new), first=first)
        last[hub] = crawl.t
    return crawl.result()


def run_scheduled(world: NewsWorld, duration: float, budget: float, rng: np.random.Generator,
                  config: ForagersConfig | None = None,
                  schedule: HubSchedule | None = None) -> StrategyResult:
    """One ``scheduled`` forager seeded at the home page: the Scrapy forager's own mind
    (:class:`~newsforagers.strategies.scheduled.ScheduledMind`) driven in simulated time. A front
    shows each story's time (as the replay's ``<time>`` does); the reinforcing agent is the
    first-finder rule of :class:`_Crawl`."""
    config = config or ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": world.k})
    crawl = _Crawl(world, duration, budget, "scheduled")
    schedule = schedule_from_config(config, [world.home_url]) if schedule is None else schedule
    if world.home_url not in schedule:
        schedule.add(world.home_url)
    claimed: set[str] = set()

    def claim(url: str) -> bool:
        if url in claimed:
            return False
        claimed.add(url)
        return True

    forager = ScheduledMind("f1", config, schedule, random_weights(world.k, rng), rng,
                               encoder=WorldStates(world), claim=claim, seeds=[world.home_url])
    # the scheduled strategy's poll share of the budget, as the Scrapy driver has it
    forager.poll_rate = poll_rate(config.schedule_poll_share, budget)
    while crawl.t < duration:
        fetch = forager.next_fetch(crawl.t)
        if fetch is None:
            if forager.done or math.isinf(forager.wait):
                break
            crawl.wait(max(forager.wait, crawl.dt))
            continue
        links, novel = crawl.fetch(fetch.url)
        article = world.article(fetch.url)
        published = _when(article.published) if article is not None else None
        listed = {u: _when(a.published) for u in links if (a := world.article(u)) is not None}
        forager.on_page(fetch, crawl.t, text=fetch.url, links=links, published=published,
                        listed=listed if article is None else None)
        if published is not None and forager.should_send(fetch.url, published, _when(crawl.t)):
            profit = (config.reward if novel else 0.0) - config.send_cost
            forager.on_reward(fetch.visit, profit, novel, url=fetch.url)
    counters = forager.counters
    extra = dict(explored=counters.explored, listings_found=counters.listings_found,
                 schedule=len(forager.schedule), listings=counters.listings,
                 harvested=counters.harvested, old_listed=counters.old_listed)
    if forager.schedule.profile is not None:  # the learned rhythm (FORAGERS_SCHEDULE_RHYTHM)
        extra["rhythm"] = tuple(forager.schedule.profile.curve(crawl.t).hourly.tolist())
    return crawl.result(**extra)


def _when(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)
