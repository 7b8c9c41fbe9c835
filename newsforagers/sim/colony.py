"""A colony of the papers' foragers on a simulated world, in simulated time.

The simulator drives the crawler's own parts, so that what it measures offline is what the
Scrapy foragers do online: each forager is a :class:`~newsforagers.strategies.paper.PaperMind` (the mind
the Scrapy scheduler and spider drive: the walk of Alg. 11-12, Alg. 2's states, Alg. 5's
bounded sent memory and date checks, the TD step of Alg. 4, the weblog update of Alg. 1), the
reinforcing agent is :class:`~newsforagers.learning.ReinforcingAgent` (Alg. 7 with the rules the
Scrapy pipeline applies, :func:`~newsforagers.learning.reward.judge_send`) and the population
policy is :class:`~newsforagers.learning.ScorePolicy` (Alg. 8). The world stands in for HTTP:
it gives a page's links, its state (through :class:`~newsforagers.sim.encoder.WorldStates`,
the forager's encoder) and the document a probed page holds.

A step goes as in a crawl (:mod:`newsforagers.driver`, :mod:`newsforagers.spiders.forager`):
``next_step()`` (which finishes the previous step: its states, the frontier, its TD step) →
the step page → ``on_step_page()`` says which links to probe → each probe page in turn:
``on_probe_page()``, ``should_send()`` and, for a send, the agent's answer to ``on_reward()``.
Every download costs ``1/budget`` simulated seconds, and is dated by the simulated clock when
it ends. Foragers work in turns (the selection paper's time-sliced foragers, Sect. 3.2 and
Alg. 9: one step per turn by default, or ``slice_seconds`` of downloads per turn, the step
under way being finished) and Alg. 8 decides on the forager after its turn.

A world is any object with (see :class:`~newsforagers.sim.world.NewsWorld` and
:class:`~newsforagers.sim.graphworld.GraphNewsWorld`):

- ``k``: the length of a state vector;
- ``seed_urls()``: the seed URLs of every forager's first weblog (Alg. 10);
- ``links(url, t)``: the URLs a page links to at simulated time ``t``;
- ``states(urls)``: their state vectors, ``(n, k)``;
- ``documents(urls, t)``: ``(url, key, published)`` of the probed pages holding a document,
  ``t`` the time each was downloaded (one number, or one per URL); ``key`` names the document
  (a page's content) for Alg. 5's memory and the reinforcing agent;
- ``dated_pages_change``: True when a page holding a document may hold another one later
  under the same URL (the paper's simulation, Sect. 4.1), so that a forager must probe it
  again rather than reuse its state (``FORAGERS_REUSE_STATES``, whose premise is that a dated
  page is an article and does not change).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Callable, Hashable

import numpy as np

from newsforagers.config import ForagersConfig
from newsforagers.learning import ReinforcingAgent, ScorePolicy, Weblog, random_weights
from newsforagers.sim.encoder import WorldStates
from newsforagers.strategies.common import MODES
from newsforagers.strategies.paper import PaperMind


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
    foragers: list[PaperMind] = field(default_factory=list)  # every forager, in order of birth


def colony_config(world, **settings) -> ForagersConfig:
    """The foragers' configuration for ``world``: the defaults, with its state length and,
    when its dated pages change, no reuse of their states; ``settings`` (``FORAGERS_*``) on top."""
    base = {"FORAGERS_N_CLUSTERS": world.k,
            "FORAGERS_REUSE_STATES": not getattr(world, "dated_pages_change", False)}
    return ForagersConfig.from_settings({**base, **settings})


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
    config: ForagersConfig | None = None,
) -> ColonyResult:
    """Run MIN foragers seeded with the world's seed URLs (Alg. 9, 10) for ``duration``
    simulated seconds.

    Modes (selection paper, Sect. 4.2.1): ``wl`` updates the weblog (Alg. 1) and keeps its
    random weights, a child gets new random weights; ``rl`` keeps the seed weblog and tunes its
    weights by TD (Alg. 4), a child copies the weights and, since "RL foragers had the same
    weblog", the whole seed weblog; ``wlrl`` does both (Alg. 6 for the child).

    ``config`` defaults to :func:`colony_config`; ``policy`` and ``agent`` default to its
    population bounds, scores and reward rules.
    """
    if mode not in MODES:
        raise ValueError(f"mode ({mode!r}) must be one of {', '.join(MODES)}.")
    if budget <= 0:
        raise ValueError(f"budget ({budget!r}) must be > 0 requests per simulated second.")
    if slice_seconds < 0:
        raise ValueError(f"slice_seconds ({slice_seconds!r}) must be >= 0.")
    config = config or colony_config(world)
    if config.n_clusters != world.k:
        raise ValueError(f"FORAGERS_N_CLUSTERS ({config.n_clusters!r}) must be the world's "
                         f"state length ({world.k}).")
    policy = policy or ScorePolicy(config.split_score, config.retire_score, config.min,
                                   config.max, config.score_init)
    agent = agent or ReinforcingAgent(config.reward_rules())
    colony = _Colony(world, config, mode, 1.0 / budget, rng, agent, on_found, on_event)
    seeds = list(world.seed_urls())
    for _ in range(policy.min_foragers):
        colony.born(Weblog.from_seeds(seeds, size=config.weblog_size,
                                      start_size=config.weblog_start_size, beta=config.weblog_beta))
    turn = 0
    while colony.t < duration and colony.alive:
        forager = colony.alive[turn % len(colony.alive)]
        turn += 1
        slice_end = colony.t + slice_seconds
        while True:
            if not colony.step(forager):
                colony.stop(forager)  # nothing left to walk: as a spider whose forager is done
                break
            if colony.t >= slice_end or colony.t >= duration:
                break
        if forager.done:
            colony.population.append((colony.t, len(colony.alive)))
            continue
        # Alg. 8, once the RA has stopped the forager (Alg. 9)
        decision = policy.decide(forager.name, agent.scores[forager.name], len(colony.alive))
        if decision is not None and decision.kind == "split":
            colony.split(forager)
        elif decision is not None and decision.kind == "retire":
            colony.retire(forager)
        colony.population.append((colony.t, len(colony.alive)))
    for forager in colony.alive:
        colony.event("stop", forager.name)
    everyone = colony.everyone
    return ColonyResult(colony.found, sum(f.counters.downloaded for f in everyone),
                        sum(f.counters.sent for f in everyone), colony.events, colony.population,
                        urls=len(colony.downloaded), duration=colony.t, foragers=everyone)


class _Colony:
    """The simulated crawl: the clock, the foragers and the world's answers to their requests."""

    def __init__(self, world, config: ForagersConfig, mode: str, dt: float,
                 rng: np.random.Generator, agent: ReinforcingAgent, on_found, on_event):
        self.world = world
        self.config = config
        self.mode = mode
        self.dt = dt
        self.rng = rng
        self.agent = agent
        self.on_found = on_found
        self.on_event = on_event
        self.encoder = WorldStates(world)
        self.t = 0.0
        self.alive: list[PaperMind] = []  # in turn order
        self.everyone: list[PaperMind] = []
        self.found: list[Found] = []
        self.events: list[tuple[float, str, str, str | None]] = []
        self.population: list[tuple[float, int]] = []
        self.downloaded: set[str] = set()
        self._ids = itertools.count(1)

    def event(self, kind: str, name: str, parent: str | None = None) -> None:
        self.events.append((self.t, kind, name, parent))
        if self.on_event:
            self.on_event(self.t, kind, name, parent)

    def born(self, weblog: Weblog, weights: np.ndarray | None = None,
             parent: PaperMind | None = None) -> PaperMind:
        """A new forager, built as :mod:`newsforagers.assembly` builds one."""
        # every forager draws its own stream from the colony's generator, as in a crawl
        rng = np.random.default_rng(int(self.rng.integers(2**63)))
        config = self.config
        if weights is None:
            weights = random_weights(config.n_clusters, rng)
        forager = PaperMind(f"f{next(self._ids)}", config, weblog, weights, rng, mode=self.mode,
                          encoder=self.encoder, reuse_states=config.reuse_states,
                          state_cache_size=config.state_cache_size,
                          max_start_failures=config.start_failures, max_paths=config.max_paths)
        self.alive.append(forager)
        self.everyone.append(forager)
        self.agent.register(forager.name)
        if parent is None:
            self.event("start", forager.name)
        else:
            self.event("split", forager.name, parent.name)
        return forager

    def step(self, forager: PaperMind) -> bool:
        """One step of ``forager`` as a crawl makes it; False when it has nothing to walk."""
        url = forager.next_step()
        forager.finished_steps.clear()  # (the driver's signal to the energy policy: none here)
        if url is None:
            return False
        step = forager.step
        dt, world = self.dt, self.world
        self.t += dt
        self.downloaded.add(url)
        probes = forager.on_step_page(url, url, world.links(url, self.t))
        if not probes:
            return True
        times = self.t + dt * np.arange(1, len(probes) + 1)
        self.t = float(times[-1])
        self.downloaded.update(probes)
        documents = {u: (key, published) for u, key, published in world.documents(probes, times)}
        for probe, t in zip(probes, times.tolist()):
            document = documents.get(probe)
            if document is None:
                forager.on_probe_page(probe, probe, None)
                continue
            key, published = document
            date = _when(published)
            forager.on_probe_page(probe, probe, date)
            # Alg. 5's memory holds what names a document: its URL on the web (the spider's),
            # the world's key here (the paper's page index: a changed page is a new document)
            if not forager.should_send(str(key), date, _when(t)):
                continue
            outcome = self.agent.receive(forager.name, key, t - published)
            forager.on_reward(step.path_id, step.index, outcome.profit, outcome.rewarded)
            if outcome.rewarded:
                item = Found(probe, forager.name, published, t, key)
                self.found.append(item)
                if self.on_found:
                    self.on_found(item)
        return True

    def split(self, forager: PaperMind) -> PaperMind:
        """Alg. 6 and 8 as the population extension splits a forager (its weblog and weights,
        the parent's rng; for RL, Sect. 4.2.1: every RL forager has the same seed weblog)."""
        weblog, weights = forager.inherit()  # the strategy's rule, the crawler's too
        self.agent.reset(forager.name)
        return self.born(weblog, weights, parent=forager)

    def retire(self, forager: PaperMind) -> None:
        forager.retired = True
        self.alive.remove(forager)
        self.agent.forget(forager.name)
        self.event("retire", forager.name)

    def stop(self, forager: PaperMind) -> None:
        self.alive.remove(forager)
        self.agent.forget(forager.name)
        self.event("stop", forager.name)


def _when(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)
