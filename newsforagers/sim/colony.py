"""A colony of paper-faithful foragers on a simulated world, in simulated time.

The same learning core the Scrapy foragers use (weblog, path, TD value, reinforcing agent,
score policy), driven in simulated time: every download costs ``1/budget`` simulated seconds,
foragers work in turns (the selection paper's time-sliced foragers, Sect. 3.2 and Alg. 9: one
step per turn by default, or ``slice_seconds`` of downloads per turn, the step under way being
finished) and the population is managed (Alg. 8) after each turn.

A world is any object with (see :class:`~newsforagers.sim.world.NewsWorld` and
:class:`~newsforagers.sim.graphworld.GraphNewsWorld`):

- ``k``: the length of a state vector;
- ``seed_urls()``: the seed URLs of every forager's first weblog (Alg. 10);
- ``links(url, t)``: the URLs a page links to at simulated time ``t``;
- ``state(url)`` and ``states(urls)``: state vectors, one and ``(n, k)``;
- ``documents(urls, t)``: ``(url, key, published)`` of the probed pages holding a document at
  ``t``; ``key`` names the document (a page's content) for Alg. 5 and the reinforcing agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable

import numpy as np

from newsforagers import defaults
from newsforagers.learning import ReinforcingAgent, ScorePolicy, Weblog, copy_weights, random_weights, td_step
from newsforagers.learning.path import ForagerPath

MODES = ("wlrl", "wl", "rl")


@dataclass
class SimForager:
    name: str
    weblog: Weblog
    weights: np.ndarray
    mode: str = "wlrl"
    path: ForagerPath = field(default_factory=ForagerPath)
    sent: set = field(default_factory=set)  # Alg. 5's previously sent pages
    downloads: int = 0
    sends: int = 0
    rewards: int = 0
    last_downloads: int = 0


@dataclass(frozen=True)
class Found:
    """A novel document: first sent by ``forager`` at simulated time ``found_at``."""

    url: str
    forager: str
    published: float
    found_at: float
    document: Hashable = None  # the reinforcing agent's key of the document (None: the URL)


@dataclass
class ColonyResult:
    found: list[Found]
    downloads: int
    sends: int
    events: list[tuple[float, str, str, str | None]]  # (time, event, forager, parent)
    population: list[tuple[float, int]]
    urls: int = 0        # distinct URLs downloaded by the colony ("found URLs", Table 1)
    duration: float = 0.0  # simulated seconds actually run


def run_colony(
    world,
    duration: float,
    rng: np.random.Generator,
    mode: str = "wlrl",
    budget: float = 5.0,
    policy: ScorePolicy | None = None,
    agent: ReinforcingAgent | None = None,
    on_found: Callable[[Found], None] | None = None,
    on_event: Callable[[float, str, str, str | None], None] | None = None,
    slice_seconds: float = 0.0,
) -> ColonyResult:
    """Run MIN foragers seeded with the world's seed URLs (Alg. 9, 10) for ``duration``
    simulated seconds.

    Modes (selection paper, Sect. 4.2.1): ``wl`` updates the weblog (Alg. 1) and keeps its
    random weights, a child gets new random weights; ``rl`` keeps the seed weblog and tunes its
    weights by TD (Alg. 4), a child copies the weights and, since "RL foragers had the same
    weblog", the whole seed weblog; ``wlrl`` does both (Alg. 6 for the child).
    """
    if mode not in MODES:
        raise ValueError(f"mode ({mode!r}) must be one of {', '.join(MODES)}.")
    if budget <= 0:
        raise ValueError(f"budget ({budget!r}) must be > 0 requests per simulated second.")
    if slice_seconds < 0:
        raise ValueError(f"slice_seconds ({slice_seconds!r}) must be >= 0.")
    policy = policy or ScorePolicy()
    agent = agent or ReinforcingAgent()
    dt = 1.0 / budget
    t = 0.0
    counter = iter(range(1, 10**9))
    foragers: list[SimForager] = []
    events: list[tuple[float, str, str, str | None]] = []
    found: list[Found] = []
    population: list[tuple[float, int]] = []

    def event(kind: str, name: str, parent: str | None = None) -> None:
        events.append((t, kind, name, parent))
        if on_event:
            on_event(t, kind, name, parent)

    seeds = list(world.seed_urls())
    downloaded: set = set()
    for _ in range(policy.min_foragers):
        forager = SimForager(f"f{next(counter)}", Weblog.from_seeds(seeds),
                             random_weights(world.k, rng), mode, ForagerPath(world.k))
        foragers.append(forager)
        agent.register(forager.name)
        event("start", forager.name)

    turn = 0
    total_downloads = total_sends = 0
    while t < duration and foragers:
        forager = foragers[turn % len(foragers)]
        turn += 1
        slice_end = t + slice_seconds
        while True:
            total_downloads, total_sends = _step(
                world, forager, t, dt, rng, mode, agent, found, on_found, downloaded,
                total_downloads, total_sends)
            t += forager.last_downloads * dt
            if t >= slice_end or t >= duration:
                break
        # Alg. 8: multiply or retire, once the RA has stopped the forager
        decision = policy.decide(forager.name, agent.scores[forager.name], len(foragers))
        if decision is not None and decision.kind == "split":
            if mode == "rl":  # Sect. 4.2.1: every RL forager has the same (seed) weblog
                child_weblog = Weblog.from_dict(forager.weblog.to_dict())
            else:             # Alg. 6; one URL cannot be halved: both parts then start from it
                child_weblog = (forager.weblog.split(rng) if len(forager.weblog) >= 2
                                else Weblog.from_dict(forager.weblog.to_dict()))
            child = SimForager(
                f"f{next(counter)}", child_weblog,
                copy_weights(forager.weights) if mode != "wl" else random_weights(world.k, rng),
                mode, ForagerPath(world.k),
            )
            foragers.append(child)
            agent.register(child.name)
            agent.reset(forager.name)
            agent.reset(child.name)
            event("split", child.name, forager.name)
        elif decision is not None and decision.kind == "retire":
            foragers.remove(forager)
            agent.forget(forager.name)
            event("retire", forager.name)
        population.append((t, len(foragers)))
    for forager in foragers:
        event("stop", forager.name)
    return ColonyResult(found, total_downloads, total_sends, events, population,
                        urls=len(downloaded), duration=t)


def _step(world, forager: SimForager, t: float, dt: float, rng: np.random.Generator, mode: str,
          agent: ReinforcingAgent, found: list, on_found, downloaded: set,
          total_downloads: int, total_sends: int) -> tuple[int, int]:
    """One step of Alg. 12 at simulated time ``t``; sets ``forager.last_downloads``."""
    path = forager.path
    # a new path when the previous one is over (Alg. 11)
    if not path.steps or path.finished:
        if path.steps and mode != "rl":
            forager.weblog.update(path.steps, path.profits)
        start = forager.weblog.choose_start(rng)
        path.begin(start, world.state(start))
        step = start
    else:
        step = path.choose_next(forager.weights)
    # download the step page and probe its not-yet-visited neighbours
    links = [u for u in world.links(step, t) if u not in path.visited]
    downloads = 1 + len(links)
    t += downloads * dt
    forager.last_downloads = downloads
    forager.downloads += downloads
    total_downloads += downloads
    downloaded.add(step)
    downloaded.update(links)
    if links:
        path.add_frontier(links, world.states(links))
    # Alg. 5: send the probed documents not older than 24 h and not sent before
    for url, key, published in world.documents(links, t):
        if key in forager.sent:
            continue
        age = t - published
        if age > defaults.FORAGERS_NOVELTY_WINDOW:
            continue
        forager.sent.add(key)
        forager.sends += 1
        total_sends += 1
        outcome = agent.receive(forager.name, key, age)
        path.add_profit(outcome.profit)
        if outcome.rewarded:
            forager.rewards += 1
            item = Found(url, forager.name, published, t, key)
            found.append(item)
            if on_found:
                on_found(item)
    # Alg. 4: TD update of the transition into this step, with its profit
    transition = path.last_transition()
    if transition is not None and mode != "wl":
        forager.weights = td_step(forager.weights, *transition)
    return total_downloads, total_sends
