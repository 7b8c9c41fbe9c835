"""News on a web graph without text: the environment of the selection paper's simulation.

Palotai, Farkas & Lőrincz, "Selection in scale-free small world", Sect. 4.1–4.2.1, replayed a
recorded crawl: every page kept its classifier state vector, pages appeared and "were
refreshed or changed at the same relative time as the changes were detected", a changed page
was a new *page index* under the same *URL index*, and a simulated download took the average
download time of a real page. A graph such as cnr-2000 gives the links but no text and no
times, so this world supplies the rest, keeping every rule the paper states:

- **Documents.** A news event at time τ on node v replaces v's content (a new page index,
  same URL, Sect. 4.1 items 2–3). A forager probing v at time t sees v's *current* document,
  the latest event ≤ t; it may send it when it is not older than 24 h and it has not sent it
  before (Alg. 5). The reinforcing agent rewards the first sender of a document not older than
  24 h (Alg. 7). A document overwritten before anyone probed it is lost, as a changed page was.
- **News arrival.** Events form a Poisson process of ``rate_per_hour`` over the whole run.
  News concentrates where a news site has it (the paper's CNN sections; Sect. 5's "good
  relevant document sources"): ``news_topics`` of the k topics carry news, with Zipf
  popularity 1/rank; within a topic, node v is chosen with probability ∝ in-degree(v) + 1
  (much-linked pages, fronts and indexes, change most often). Only the *site* carries news:
  the first ``site_size`` pages (33,000, about the URLs Table 2's foragers found) that a
  breadth-first crawl from the home page reaches, as the paper's recorded pages were those its
  crawl reached; the rest of the graph is the web around the site, crawlable but without news.
- **States.** Sect. 3.1.2: a page's state is the k = 50 outputs of a PrTFIDF classifier
  squashed by tanh into [−1, 1]. Text-free stand-in with the same shape and the same property
  that linked pages tend to share a topic: the topics are the graph's Voronoi cells around k
  random centres drawn from the site (undirected hop distance), and a page's class probabilities are a Dirichlet
  draw leaning on its cell's topic, squashed by ``tanh((p − 0.5)·40)``
  (:data:`~newsforagers.defaults.FORAGERS_TANH_SCALE`), as in :class:`~newsforagers.sim.world.NewsWorld`.
- **Seeds.** Sect. 4.2.1: RL foragers start from "the starting URL of the Web experiment and
  the first 9 visited URLs"; here the start is the most linked-to page (with out-links) and
  the next 9 are the first pages a breadth-first crawl from it reaches.
- **Rewired control.** Sect. 4.1: only the links change. :meth:`with_graph` keeps the pages'
  states, the news events and the seeds, and swaps in the rewired graph.

URLs are node ids as decimal strings (the weblog stores URL strings).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csgraph

from newsforagers import defaults
from newsforagers.sim.graph import Graph

N_SEEDS = 10  # the starting URL list of Sect. 4.2.1


@dataclass(frozen=True, eq=False)
class NewsEvents:
    """The news arrival process: event ``e`` puts a new document on ``node[e]`` at ``time[e]``
    (events sorted by time; ``e`` is the document's key)."""

    time: np.ndarray   # (E,) float64, sorted
    node: np.ndarray   # (E,) int64
    n: int             # nodes

    def __post_init__(self):
        order = np.lexsort((self.time, self.node))  # by node, then time
        ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.node, minlength=self.n), out=ptr[1:])
        object.__setattr__(self, "_ptr", ptr)
        object.__setattr__(self, "_by_node", order)
        object.__setattr__(self, "_node_times", self.time[order])
        # the time the node changes again after each event (inf: never in this run)
        following = np.full(self.time.shape[0], np.inf)
        same = self.node[order][1:] == self.node[order][:-1]
        following[order[:-1][same]] = self.time[order][1:][same]
        object.__setattr__(self, "next_change", following)

    def __len__(self) -> int:
        return int(self.time.shape[0])

    def count(self, nodes: np.ndarray) -> np.ndarray:
        return self._ptr[nodes + 1] - self._ptr[nodes]

    def current(self, v: int, t: float) -> int | None:
        """The event whose document node ``v`` shows at time ``t`` (None: no news yet)."""
        lo, hi = self._ptr[v], self._ptr[v + 1]
        j = int(np.searchsorted(self._node_times[lo:hi], t, side="right")) - 1
        return None if j < 0 else int(self._by_node[lo + j])


def topic_cells(graph: Graph, k: int, rng: np.random.Generator,
                among: np.ndarray | None = None) -> np.ndarray:
    """Each node's topic: the nearest of k random centres (drawn from ``among``, default all
    nodes) by undirected hops (Voronoi cells); nodes no centre reaches get a random topic."""
    pool = np.arange(graph.n) if among is None else np.asarray(among)
    if not 1 <= k <= pool.size:
        raise ValueError(f"k ({k!r}) must be between 1 and the number of candidate centres "
                         f"({pool.size}).")
    centres = rng.choice(pool, size=k, replace=False)
    u = graph.undirected().astype(np.float64)
    _, _, sources = csgraph.dijkstra(u, directed=False, indices=centres, min_only=True,
                                     return_predecessors=True)
    topic = np.full(graph.n, -1, dtype=np.int64)
    reached = sources >= 0
    lookup = np.full(graph.n, -1, dtype=np.int64)
    lookup[centres] = np.arange(k)
    topic[reached] = lookup[sources[reached]]
    unreached = ~reached
    topic[unreached] = rng.integers(0, k, size=int(unreached.sum()))
    return topic


def topic_states(topic: np.ndarray, k: int, rng: np.random.Generator, lean: float = 2.0,
                 spread: float = 0.05) -> np.ndarray:
    """``tanh((p − 0.5)·40)`` of Dirichlet class probabilities leaning on each node's topic
    (concentration ``lean`` on it, ``spread`` elsewhere), as float32 ``(n, k)``."""
    n = topic.shape[0]
    concentration = np.full((n, k), spread)
    concentration[np.arange(n), topic] = lean
    p = rng.standard_gamma(concentration).astype(np.float32)
    p /= np.maximum(p.sum(axis=1, keepdims=True), np.finfo(np.float32).tiny)
    return np.tanh((p - defaults.PAPER_TANH_OFFSET) * defaults.FORAGERS_TANH_SCALE)


class GraphNewsWorld:
    """A web graph with news arriving on its pages, in simulated time (module docstring)."""

    def __init__(self, graph: Graph, topic: np.ndarray, state_rows: np.ndarray,
                 events: NewsEvents, seeds: list[int], news_topics: np.ndarray):
        if state_rows.shape[0] != graph.n or topic.shape[0] != graph.n or events.n != graph.n:
            raise ValueError("graph, topics, states and news events must cover the same nodes.")
        self.graph = graph
        self.topic = topic
        self.k = int(state_rows.shape[1])
        self._states = state_rows
        self.events = events
        self.seeds = list(seeds)
        self.news_topics = news_topics

    @classmethod
    def build(cls, graph: Graph, duration: float, rng: np.random.Generator,
              rate_per_hour: float = 10.0, news_topics: int = 10, site_size: int = 33_000,
              k: int = defaults.FORAGERS_N_CLUSTERS) -> "GraphNewsWorld":
        """Topics, states, news events and seeds for ``graph`` over ``duration`` seconds."""
        if duration <= 0 or rate_per_hour <= 0:
            raise ValueError("a graph news world needs duration > 0 and rate_per_hour > 0.")
        if not 1 <= news_topics <= k:
            raise ValueError(f"news_topics ({news_topics!r}) must be between 1 and k ({k}).")
        if site_size < 1:
            raise ValueError(f"site_size ({site_size!r}) must be >= 1.")
        seeds = seed_nodes(graph)
        # the news site: the first site_size pages a breadth-first crawl from its home page
        # reaches (the paper's recorded site: its foragers found 31-33k URLs, Table 2)
        site_nodes = graph.bfs_order(seeds[0], site_size)
        site = np.zeros(graph.n, dtype=bool)
        site[site_nodes] = True
        topic = topic_cells(graph, min(k, site_nodes.size), rng, among=site_nodes)
        state_rows = topic_states(topic, k, rng)
        # news: Zipf popularity over a random subset of the site's topics, in-degree + 1
        # within a topic
        present = np.flatnonzero(np.bincount(topic[site], minlength=k))
        newsy = rng.permutation(present)[:news_topics]
        popularity = np.zeros(k)
        popularity[newsy] = 1.0 / np.arange(1, newsy.size + 1)
        weight = (graph.in_degree().astype(np.float64) + 1.0) * site
        per_topic = np.bincount(topic, weights=weight, minlength=k)
        p = popularity[topic] * weight / np.where(per_topic > 0, per_topic, 1.0)[topic]
        p /= p.sum()
        n_events = int(rng.poisson(rate_per_hour * duration / 3600.0))
        times = np.sort(rng.uniform(0.0, duration, size=n_events))
        nodes = rng.choice(graph.n, size=n_events, p=p).astype(np.int64)
        events = NewsEvents(times, nodes, graph.n)
        return cls(graph, topic, state_rows, events, seeds, newsy)

    def with_graph(self, graph: Graph) -> "GraphNewsWorld":
        """The same pages (states, news, seeds) on other links: the rewired control."""
        if graph.n != self.graph.n:
            raise ValueError(f"the new graph has {graph.n} nodes, this world {self.graph.n}.")
        return GraphNewsWorld(graph, self.topic, self._states, self.events, self.seeds,
                              self.news_topics)

    # -- the world protocol of run_colony -----------------------------------------------

    #: a news event replaces a page's content under the same URL (Sect. 4.1): a forager must
    #: probe a page again to see its next document, not reuse its state
    dated_pages_change = True

    def seed_urls(self) -> list[str]:
        return [str(v) for v in self.seeds]

    def links(self, url: str, t: float) -> list[str]:
        return [str(v) for v in self.graph.successors(int(url)).tolist()]

    def state(self, url: str) -> np.ndarray:
        return self._states[int(url)]

    def states(self, urls) -> np.ndarray:
        return self._states[np.fromiter((int(u) for u in urls), dtype=np.int64, count=len(urls))]

    def documents(self, urls, t):
        """``(url, event, published)`` of the pages of ``urls`` holding a document when
        downloaded at ``t`` (one time, or one per URL)."""
        if not len(urls):
            return
        nodes = np.fromiter((int(u) for u in urls), dtype=np.int64, count=len(urls))
        times = np.broadcast_to(np.asarray(t, dtype=np.float64), nodes.shape)
        for i in np.flatnonzero(self.events.count(nodes)).tolist():
            e = self.events.current(int(nodes[i]), float(times[i]))
            if e is not None:
                yield urls[i], e, float(self.events.time[e])

    def published_between(self, start: float, end: float) -> int:
        time = self.events.time
        return int(np.searchsorted(time, end, side="right") - np.searchsorted(time, start))


def seed_nodes(graph: Graph, n_seeds: int = N_SEEDS) -> list[int]:
    """The site's "home page" and the first pages a breadth-first crawl from it reaches.

    The home page is the most linked-to page of the largest strongly connected component: it
    reaches that whole component and the component reaches it back, as a site's home page
    does (the most linked-to page overall may be a dead end: cnr-2000's reaches 11 % of it).
    """
    if graph.m == 0:
        raise ValueError("the graph has no link: no seed to start from.")
    _, label = csgraph.connected_components(graph.adjacency(), directed=True,
                                            connection="strong")
    members = np.flatnonzero(label == np.argmax(np.bincount(label)))
    start = int(members[np.argmax(graph.in_degree()[members])])
    return [int(v) for v in graph.bfs_order(start, n_seeds)]
