"""Mouton & Marteau's agents walking a replay site, one page per step (their Sect. III–IV).

Mouton & Marteau, "Population control for multi-agent based topical crawlers" (ISDA 2008),
run many light agents (200 at start) that each fetch one page per step, earn energy from its
relevance, clone when ``E > 1`` and die when ``E < 0`` (their Alg. 1, Menczer's endogenous
fitness model), then add the sigmoid energy and the energy buffer (their Alg. 2). This module
replays that experiment on the pages of our replay site, in one process and without HTTP:

- :func:`build_site_graph`: the site as a graph — every page (by path) with its relevance r
  to the topic, whether it is one of the topic's documents (the ground truth), and its links
  with the relevance of their contexts. The site is rendered at **one fixed simulated time**
  (the benchmark passes the end of the corpus), so the graph is static: a page's text and
  links do not change during a walk, as the pages of the paper's web did not during a crawl.
- :func:`walk`: the agents on that graph. Each step, every live agent picks a link of its
  page — InfoSpiders' stochastic choice, probability ∝ exp(β·context relevance) — "fetches"
  the page, and acts on what :class:`~newsforagers.learning.population.EnergyPolicy` decides
  for that visit (split, retire, teleport). The energy maths is the policy's; this module
  owns only the walk.

Text and links are read as the forager spider reads a page
(:func:`~newsforagers.pages.read.read_page`: ``title + "\\n" + text`` is what
:meth:`~newsforagers.text.topic.Topic.relevance` scores) and the link contexts as
:func:`~newsforagers.pages.links.link_contexts` gives them (Pant & Srinivasan, which the paper
follows). Nothing here imports Scrapy or Twisted: the page source is any object with the
replay's ``get(uri, now)`` (:class:`newsforagers.replay.site.PageBuilder`).
"""

from __future__ import annotations

import itertools
import logging
import math
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import numpy as np
from parsel import Selector

from newsforagers import defaults
from newsforagers.learning.population import EnergyPolicy
from newsforagers.pages.links import base_url, link_contexts
from newsforagers.pages.page import NotHTML
from newsforagers.pages.read import read_page

logger = logging.getLogger(__name__)

#: The host the graph's pages are read under (the replay's absolute URLs use the request's Host).
GRAPH_HOST = "127.0.0.1"
#: How a walk's agents start: the energy of Alg. 1 and Alg. 2 ("Initialize N agents with E = 1").
DEFAULT_AGENTS = 200


class PageSource(Protocol):
    """What :func:`build_site_graph` reads pages from: the replay's ``PageBuilder``."""

    def get(self, uri: str, now: float, host: str = GRAPH_HOST) -> Any:  # a replay Page
        ...


class RelevanceModel(Protocol):
    def relevance(self, text: str) -> float:
        ...


@dataclass(frozen=True, eq=False)
class SiteGraph:
    """A static site: page ``i`` is ``paths[i]``; its links are
    ``targets[indptr[i]:indptr[i + 1]]`` with the relevance of each link's context in
    ``context`` (same slice). ``relevance[i]`` is the page's r, ``topical[i]`` whether it is a
    topic document. ``skipped`` counts what the walk that built it left out (``off_site``,
    ``robots``, ``error``, ``not_html``: pages; ``beyond_cap``: links to pages past the page
    cap). ``now`` is the simulated time the site was rendered at."""

    paths: tuple[str, ...]
    relevance: np.ndarray  # (n,) float64
    topical: np.ndarray    # (n,) bool
    indptr: np.ndarray     # (n + 1,) int64
    targets: np.ndarray    # (m,) int64
    context: np.ndarray    # (m,) float64
    now: float = 0.0
    skipped: dict[str, int] = field(default_factory=dict)
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self):
        n = len(self.paths)
        if not (self.relevance.shape == (n,) and self.topical.shape == (n,)
                and self.indptr.shape == (n + 1,) and self.targets.shape == self.context.shape
                and int(self.indptr[-1]) == self.targets.shape[0]):
            raise ValueError("inconsistent graph arrays: paths, relevance, topical, indptr, "
                             "targets and context must describe the same pages and links.")
        if self.targets.size and (self.targets.min() < 0 or self.targets.max() >= n):
            raise ValueError("a link points outside the graph.")
        object.__setattr__(self, "index", {p: i for i, p in enumerate(self.paths)})

    @property
    def n(self) -> int:
        return len(self.paths)

    @property
    def m(self) -> int:
        return int(self.targets.shape[0])

    def links(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Page ``i``'s link targets and their context relevances."""
        lo, hi = self.indptr[i], self.indptr[i + 1]
        return self.targets[lo:hi], self.context[lo:hi]

    @classmethod
    def from_links(cls, relevance: Sequence[float], topical: Sequence[bool],
                   links: Sequence[Sequence[tuple[int, float]]],
                   paths: Sequence[str] | None = None) -> "SiteGraph":
        """A hand-made graph: ``links[i]`` lists page i's ``(target, context relevance)``."""
        n = len(relevance)
        if len(topical) != n or len(links) != n:
            raise ValueError("relevance, topical and links must have one entry per page.")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([len(out) for out in links], out=indptr[1:])
        targets = np.array([t for out in links for t, _ in out], dtype=np.int64)
        context = np.array([c for out in links for _, c in out], dtype=np.float64)
        return cls(tuple(paths) if paths is not None else tuple(f"/{i}" for i in range(n)),
                   np.asarray(relevance, dtype=np.float64), np.asarray(topical, dtype=bool),
                   indptr, targets, context)


def _robots(pages: PageSource, now: float) -> RobotFileParser | None:
    page = pages.get("/robots.txt", now, GRAPH_HOST)
    if getattr(page, "status", 0) != 200:
        return None
    parser = RobotFileParser()
    parser.parse(page.body.decode("utf-8", "replace").splitlines())
    return parser


def _site_path(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or parts.netloc != GRAPH_HOST:
        return None
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def build_site_graph(pages: PageSource, topic: RelevanceModel, *, now: float,
                     documents: Iterable[str] = (), max_pages: int = 5000, start: str = "/",
                     max_links: int = defaults.FORAGERS_MAX_LINKS) -> SiteGraph:
    """The site as served at simulated time ``now``, walked breadth-first from ``start``.

    The replay renders every page at the one time ``now`` (pass the end of the corpus: every
    article is published, every front lists them all), so the graph is a snapshot of a static
    site. The walk follows the links :func:`link_contexts` reads, on the site's own host only,
    and those robots.txt allows (the replay disallows its search pages, as the forager spider
    obeys); it stops after ``max_pages`` HTML pages. Off-site links, disallowed links, error
    and non-HTML pages are skipped and counted in ``skipped``; links to pages the cap left out
    are dropped and counted as ``beyond_cap``.

    Every page is read and scored once, here: the walks reuse the graph. A page's r is
    ``topic.relevance(title + "\\n" + text)``; a link's weight is ``topic.relevance`` of its
    context (a context shared by many links, a navigation label, is scored once).
    ``documents`` are the paths of the topic's documents (the ground truth).
    """
    if isinstance(max_pages, bool) or not isinstance(max_pages, int) or max_pages < 1:
        raise ValueError(f"max_pages ({max_pages!r}) must be an integer higher than 0.")
    documents = set(documents)
    robots = _robots(pages, now)
    skipped: Counter[str] = Counter()
    context_cache: dict[str, float] = {}
    paths: list[str] = []
    relevance: list[float] = []
    out_links: list[list[tuple[str, float]]] = []
    queue, queued = deque([start]), {start}
    while queue and len(paths) < max_pages:
        path = queue.popleft()
        page = pages.get(path, now, GRAPH_HOST)
        if page.status != 200:
            skipped["error"] += 1
            continue
        url = f"http://{GRAPH_HOST}{path}"
        try:
            read = read_page(url, page.body, headers={"Content-Type": page.content_type},
                             max_links=max_links)
        except NotHTML:
            skipped["not_html"] += 1
            continue
        root = Selector(text=page.body.decode("utf-8", "replace"), type="html").root
        links = []
        for link, context in link_contexts(base_url(url, root), root, max_links).items():
            target = _site_path(link)
            if target is None:
                skipped["off_site"] += 1
                continue
            if robots is not None and not robots.can_fetch("*", link):
                skipped["robots"] += 1
                continue
            weight = context_cache.get(context)
            if weight is None:
                weight = context_cache[context] = topic.relevance(context)
            links.append((target, weight))
            if target not in queued:
                queued.add(target)
                queue.append(target)
        paths.append(path)
        relevance.append(topic.relevance(f"{read.title}\n{read.text}"))
        out_links.append(links)
    index = {p: i for i, p in enumerate(paths)}
    numbered = []
    for links in out_links:
        kept = {}
        for target, weight in links:
            j = index.get(target)
            if j is None:
                skipped["beyond_cap"] += 1
            elif j not in kept:
                kept[j] = weight
        numbered.append(list(kept.items()))
    graph = replace(SiteGraph.from_links(relevance, [p in documents for p in paths], numbered,
                                         paths), now=now, skipped=dict(skipped))
    logger.info("site graph: %d pages, %d links, %d topic documents; skipped %s",
                graph.n, graph.m, int(graph.topical.sum()), dict(skipped))
    return graph


@dataclass
class WalkResult:
    """What a walk recorded, one entry per fetched page (``k`` = fetches so far − 1):
    ``population[k]`` after that visit, the page's ``relevance[k]``, whether it was a topic
    document (``topical``) and the first visit of it by any agent (``new``).

    ``died_at``: the fetch after which no agent was left (None: never); ``capped_at``: the
    fetch after which the population passed ``max_agents`` and the walk stopped (None: never).
    """

    population: np.ndarray
    relevance: np.ndarray
    topical: np.ndarray
    new: np.ndarray
    died_at: int | None = None
    capped_at: int | None = None
    counts: dict[str, float] = field(default_factory=dict)

    @property
    def fetched(self) -> int:
        return int(self.population.shape[0])

    def precision(self) -> np.ndarray:
        """Cumulative precision per fetch: topic documents among the fetches so far, a page
        counted again at every revisit."""
        return np.cumsum(self.topical) / np.arange(1, self.fetched + 1)

    def window_precision(self, window: int) -> np.ndarray:
        """Topic documents among the last ``window`` fetches (fewer at the start)."""
        return _moving_mean(self.topical.astype(np.float64), window)

    def distinct_precision(self) -> np.ndarray:
        """Topic documents among the distinct pages fetched so far (a page counted once, on
        its first visit; NaN before the first new page): the precision of what the crawler
        has collected, Alg. 2's document base."""
        return self._over_collected(self.topical.astype(np.float64))

    def mean_relevance(self, window: int) -> np.ndarray:
        """Mean r of the last ``window`` fetched pages."""
        return _moving_mean(self.relevance.astype(np.float64), window)

    def collected(self) -> np.ndarray:
        """Distinct pages fetched so far, per fetch: the size of Alg. 2's document base DB,
        the "pages" of the paper's crawls (a revisit is read from DB, not crawled)."""
        return np.cumsum(self.new)

    def collected_relevance(self) -> np.ndarray:
        """Mean r of the distinct pages fetched so far (each page counted once, on its first
        visit; NaN before the first new page): the crawler's own judgement of what it has
        collected, with no ground truth."""
        return self._over_collected(self.relevance.astype(np.float64))

    def _over_collected(self, values: np.ndarray) -> np.ndarray:
        """Per fetch, the mean of ``values`` over the distinct pages fetched so far, each read
        at its first visit; NaN before the first new page."""
        new = np.cumsum(self.new)
        total = np.cumsum(np.where(self.new, values, 0.0))
        return np.where(new > 0, total / np.maximum(new, 1), np.nan)

    def at_collected(self, values: np.ndarray, pages: Sequence[int]) -> list[float | None]:
        """``values`` (one per fetch) read when the ``pages[j]``-th distinct page was fetched;
        None for a count the walk never reached. Puts walks on the x-axis of pages collected."""
        where = np.searchsorted(self.collected(), np.asarray(pages), side="left")
        return [float(values[k]) if k < self.fetched else None for k in where.tolist()]

    def summary(self) -> dict[str, Any]:
        """The run's numbers (JSON-able)."""
        pop = self.population
        precision = self.precision()
        distinct = self.distinct_precision()
        collected_r = self.collected_relevance()
        return {
            "fetched": self.fetched,
            "distinct_pages": int(self.new.sum()),
            "final_population": int(pop[-1]) if pop.size else 0,
            "max_population": int(pop.max()) if pop.size else 0,
            "min_population": int(pop.min()) if pop.size else 0,
            "died_at": self.died_at,
            "capped_at": self.capped_at,
            "precision": float(precision[-1]) if pop.size else None,
            "distinct_precision": (float(distinct[-1]) if pop.size and np.isfinite(distinct[-1])
                                   else None),
            "mean_relevance": float(self.relevance.mean()) if pop.size else None,
            "collected_relevance": (float(collected_r[-1])
                                    if pop.size and np.isfinite(collected_r[-1]) else None),
            **self.counts,
        }


def _moving_mean(values: np.ndarray, window: int) -> np.ndarray:
    if window < 1:
        raise ValueError(f"window ({window!r}) must be an integer higher than 0.")
    total = np.cumsum(values)
    lagged = np.zeros_like(total)
    lagged[window:] = total[:-window]
    counts = np.minimum(np.arange(1, values.size + 1), window)
    return (total - lagged) / counts


def link_probabilities(context: np.ndarray, beta: float) -> np.ndarray:
    """InfoSpiders' stochastic link choice: ``P(l) = exp(β·c_l) / Σ_l' exp(β·c_l')`` over a
    page's links, ``c_l`` the relevance of link l's context (β = 0: uniform)."""
    z = beta * np.asarray(context, dtype=np.float64)
    z = np.exp(z - z.max()) if z.size else z
    return z / z.sum() if z.size else z


class _Agent:
    __slots__ = ("name", "page", "came_from", "jump")

    def __init__(self, name: str, page: int, came_from: int | None = None):
        self.name = name
        self.page = page
        self.came_from = came_from  # the page it came from: a dead end sends it back there
        self.jump: int | None = None  # a teleport or remnant walk: the next page, not a link




def walk(graph: SiteGraph, policy: EnergyPolicy, seeds: Sequence[int], *, pages: int,
         agents: int = DEFAULT_AGENTS, beta: float = 5.0, buffer: bool = True,
         remnant_walk: float = 0.0, max_agents: int = 5000,
         seed: int | np.random.Generator = 0,
         on_fetch: Callable[[int, int], None] | None = None) -> WalkResult:
    """``agents`` agents start on the ``seeds`` (page numbers, round robin; the paper's
    "manually selected highly relevant pages") with the policy's initial energy, then walk
    until ``pages`` pages have been fetched, every agent gone, or more than ``max_agents``.

    A step: every agent alive at its start, in turn, fetches one page — a link of its page
    chosen by :func:`link_probabilities` with ``beta`` (a page without links sends it back
    to the page it came from), or the page a teleport or remnant walk named — and
    ``policy.visit`` decides: ``split`` puts the clones on the same page with the energy the
    policy gives (they walk from the next step), ``retire`` forgets the agent, ``teleport``
    names its next page (the page holding the most energy; none: it walks on). How a split
    shares energy and how UB and LB act are the policy's (its ``split`` and ``bounds``).

    ``buffer`` False is Alg. 1, which has no buffer and no floor: pass a policy with a huge UB
    and LB = 1, and a teleport the policy decides is a death here (under ``bounds="strict"``
    the policy keeps its last agent in debt alive for a teleport; under ``"paper"`` a population
    of 1 is not below LB = 1, so it decides the death itself), and the walk ends when the last
    agent dies (``died_at``). ``remnant_walk`` (with the buffer only) is the chance that an
    agent's next page is the remnant page holding the most energy instead of a link: Alg. 2's
    "random walk toward these pages", so that no remnant is left behind for too long.

    ``max_agents`` guards against the runaway population of the original model: the walk stops
    when the population passes it (``capped_at``), which is the "increase brutally" curve.

    Counted in ``counts`` besides splits, clones, retirements and walks: ``teleports`` (to a
    remnant) and ``teleports_nowhere`` (no remnant left: the agent walks on), ``charged`` (visits
    above UB, which pay ``|C|``), ``deferred`` (of those, visits that left a page holding
    energy: a remnant made or kept), ``remnants_taken`` (visits below UB that took the energy
    a page kept from an earlier visit), ``above_ub`` (fetches after which the population was
    above UB), and at the end ``remnant_pages`` and ``remnant_energy`` (what the buffer holds).

    Deterministic for a ``seed`` (a numpy Generator draws every choice). ``on_fetch(k,
    population)``, if given, is called after each fetch.
    """
    if not seeds:
        raise ValueError("a walk needs at least one seed page.")
    if any(not 0 <= s < graph.n for s in seeds):
        raise ValueError(f"seed pages ({list(seeds)!r}) must be pages of the graph (0..{graph.n - 1}).")
    if not buffer and remnant_walk:
        raise ValueError(f"remnant_walk ({remnant_walk!r}) needs the energy buffer (buffer=True).")
    if not 0.0 <= remnant_walk <= 1.0:
        raise ValueError(f"remnant_walk ({remnant_walk!r}) must be between 0 and 1.")
    if pages < 1 or agents < 1 or max_agents < agents:
        raise ValueError(f"pages ({pages!r}) and agents ({agents!r}) must be higher than 0 and "
                         f"max_agents ({max_agents!r}) at least agents.")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    cumulative: dict[int, np.ndarray] = {}  # per page, its links' cumulative probabilities

    def choose(i: int) -> int | None:
        targets, context = graph.links(i)
        if not targets.size:
            return None
        cdf = cumulative.get(i)
        if cdf is None:
            cdf = cumulative[i] = np.cumsum(link_probabilities(context, beta))
        k = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
        return int(targets[min(k, targets.size - 1)])

    names = itertools.count()
    live: dict[str, _Agent] = {}
    for k in range(agents):
        agent = _Agent(f"a{next(names)}", int(seeds[k % len(seeds)]))
        live[agent.name] = agent
        policy.register(agent.name)
    population = np.zeros(pages, dtype=np.int32)
    relevance = np.zeros(pages, dtype=np.float32)
    topical = np.zeros(pages, dtype=bool)
    new = np.zeros(pages, dtype=bool)
    seen: set[int] = set()
    counts = Counter(splits=0, clones=0, retired=0, teleports=0, teleports_nowhere=0,
                     remnant_walks=0, dead_ends=0, stuck=0, charged=0, deferred=0,
                     remnants_taken=0, above_ub=0)
    died_at = capped_at = None
    fetched = 0
    while fetched < pages and live and capped_at is None:
        for agent in list(live.values()):
            if fetched >= pages or capped_at is not None:
                break
            if agent.jump is not None:
                target, agent.jump = agent.jump, None
            else:
                target = choose(agent.page)
                if target is None and agent.came_from is not None:
                    counts["dead_ends"] += 1
                    target = choose(agent.came_from)
                if target is None:
                    counts["stuck"] += 1  # no link here nor back: it fetches nothing this step
                    continue
            agent.came_from, agent.page = agent.page, target
            over = policy.population > policy.upper_bound
            kept = policy.page_energy.get(target, 0.0)  # a page seen before: what it still holds
            decisions = policy.visit(agent.name, target, float(graph.relevance[target]))
            if over:
                counts["charged"] += 1
                counts["deferred"] += policy.page_energy.get(target, 0.0) > 0
            elif kept > 0:
                counts["remnants_taken"] += 1
            relevance[fetched] = graph.relevance[target]
            topical[fetched] = graph.topical[target]
            new[fetched] = target not in seen
            seen.add(target)
            for decision in decisions:
                if decision.kind == "split":
                    counts["splits"] += 1
                    counts["clones"] += decision.clones
                    for _ in range(decision.clones):
                        clone = _Agent(f"a{next(names)}", agent.page, agent.came_from)
                        live[clone.name] = clone
                        policy.register(clone.name, decision.energy)
                elif decision.kind == "retire" or (decision.kind == "teleport" and not buffer):
                    counts["retired"] += 1
                    policy.forget(agent.name)
                    del live[agent.name]
                elif decision.kind == "teleport":
                    counts["teleports" if decision.target is not None else "teleports_nowhere"] += 1
                    agent.jump = decision.target  # None: no remnant left, it walks on
            if buffer and agent.name in live and agent.jump is None and remnant_walk \
                    and rng.random() < remnant_walk:
                remnant = policy.best_remnant()
                if remnant is not None:
                    counts["remnant_walks"] += 1
                    agent.jump = int(remnant)
            population[fetched] = len(live)
            counts["above_ub"] += len(live) > policy.upper_bound
            if on_fetch is not None:
                on_fetch(fetched, len(live))
            fetched += 1
            if not live:
                died_at = fetched
                break
            if len(live) > max_agents:
                capped_at = fetched
    remnants = policy.remnants()
    counts["remnant_pages"] = len(remnants)
    return WalkResult(population[:fetched], relevance[:fetched], topical[:fetched],
                      new[:fetched], died_at, capped_at,
                      {**counts, "remnant_energy": round(float(sum(remnants.values())), 6)})


def page_quantiles(graph: SiteGraph, qs: Sequence[float] = (0.5, 0.9, 0.99)) -> dict[str, float]:
    """The relevance distribution of the graph's pages (mean and quantiles): what the gain rate
    ρ of the original model must be scaled to ("the range of ρ depends on the order of the
    similarity metric")."""
    r = graph.relevance
    out = {"mean": float(r.mean()) if r.size else math.nan}
    out.update({f"q{round(q * 100):02d}": float(np.quantile(r, q)) if r.size else math.nan
                for q in qs})
    return out


__all__ = ["DEFAULT_AGENTS", "GRAPH_HOST", "PageSource", "SiteGraph", "WalkResult",
           "build_site_graph", "link_probabilities", "page_quantiles", "walk"]
