"""A colony of paper-faithful foragers on a :class:`~newsforagers.sim.world.NewsWorld`.

The same learning core the Scrapy foragers use (weblog, path, TD value, reinforcing agent,
score policy), driven in simulated time: every download costs ``1/budget`` simulated seconds,
foragers take steps in turn (the papers' time-sliced foragers, one step per turn).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from newsforagers import defaults
from newsforagers.learning import ReinforcingAgent, ScorePolicy, Weblog, copy_weights, random_weights, td_step
from newsforagers.learning.path import ForagerPath
from newsforagers.sim.world import NewsWorld

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


@dataclass(frozen=True)
class Found:
    """A novel document: first sent by ``forager`` at simulated time ``found_at``."""

    url: str
    forager: str
    published: float
    found_at: float


@dataclass
class ColonyResult:
    found: list[Found]
    downloads: int
    sends: int
    events: list[tuple[float, str, str, str | None]]  # (time, event, forager, parent)
    population: list[tuple[float, int]]


def run_colony(
    world: NewsWorld,
    duration: float,
    rng: np.random.Generator,
    mode: str = "wlrl",
    budget: float = 5.0,
    policy: ScorePolicy | None = None,
    agent: ReinforcingAgent | None = None,
    on_found: Callable[[Found], None] | None = None,
    on_event: Callable[[float, str, str, str | None], None] | None = None,
) -> ColonyResult:
    """Run MIN foragers seeded at the home page (Alg. 9) for ``duration`` simulated seconds."""
    if mode not in MODES:
        raise ValueError(f"mode ({mode!r}) must be one of {', '.join(MODES)}.")
    if budget <= 0:
        raise ValueError(f"budget ({budget!r}) must be > 0 requests per simulated second.")
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

    for _ in range(policy.min_foragers):
        forager = SimForager(f"f{next(counter)}", Weblog.from_seeds([world.home_url]),
                             random_weights(world.k, rng), mode, ForagerPath(world.k))
        foragers.append(forager)
        agent.register(forager.name)
        event("start", forager.name)

    turn = 0
    total_downloads = total_sends = 0
    while t < duration and foragers:
        forager = foragers[turn % len(foragers)]
        turn += 1
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
        forager.downloads += downloads
        total_downloads += downloads
        if links:
            path.add_frontier(links, np.stack([world.state(u) for u in links]))
        # Alg. 5: send the probed articles not older than 24 h and not sent before
        for url in links:
            article = world.article(url)
            if article is None or url in forager.sent:
                continue
            age = t - article.published
            if age > defaults.FORAGERS_NOVELTY_WINDOW:
                continue
            forager.sent.add(url)
            forager.sends += 1
            total_sends += 1
            outcome = agent.receive(forager.name, url, age)
            path.add_profit(outcome.profit)
            if outcome.rewarded:
                forager.rewards += 1
                item = Found(url, forager.name, article.published, t)
                found.append(item)
                if on_found:
                    on_found(item)
        # Alg. 4: TD update of the transition into this step, with its profit
        transition = path.last_transition()
        if transition is not None and mode != "wl":
            forager.weights = td_step(forager.weights, *transition)
        # Alg. 8: multiply or retire
        decision = policy.decide(forager.name, agent.scores[forager.name], len(foragers))
        if decision is not None and decision.kind == "split":
            # one URL cannot be halved: both parts then start from it
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
    return ColonyResult(found, total_downloads, total_sends, events, population)
