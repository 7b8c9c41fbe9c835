"""Directed web graphs for the fast simulator: load, rewire, generate, measure.

The selection paper (Palotai, Farkas & Lőrincz, "Selection in scale-free small world") ran its
foragers on the link structure of a recorded crawl (Sect. 4.1, Fig. 1: power-law in- and
out-degrees, clustering coefficient 0.02, diameter 7.29) and on a control in which "two
different random permutations [were applied] to the origin and to the endpoint of the links,
keeping the edge distribution unchanged but randomly rewiring the links" (clustering 0.003,
diameter 8.22): scale-free, but no longer a small world. This module gives

- :func:`load_edge_list`: a ``src<TAB>dst`` edge list (gzipped or not; ``#`` comments), parsed
  with numpy in one pass; malformed lines are counted and skipped with their line numbers;
- :func:`rewire`: the degree-preserving control, by double-edge swaps
  ``(a→b, c→d) → (a→d, c→b)``, which keep every node's in- and out-degree exactly, like the
  paper's permutations, without creating self-loops or parallel links;
- :func:`scale_free_graph`: a synthetic directed scale-free graph (the preferential
  attachment model of Bollobás, Borgs, Chayes & Riordan, "Directed scale-free graphs", SODA
  2003), for tests and for runs without the real graph;
- :func:`clustering_coefficient` and :func:`mean_distance`, sampled, to check that the control
  lost the clustering the small world had.

A :class:`Graph` is immutable: ``n`` nodes ``0..n−1`` and its CSR adjacency (out-links).
"""

from __future__ import annotations

import gzip
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

logger = logging.getLogger(__name__)

MAX_REPORTED_LINES = 20


@dataclass(frozen=True, eq=False)
class Graph:
    """A simple directed graph (no self-loops, no parallel links) in CSR form."""

    indptr: np.ndarray   # (n + 1,) int64: out-links of v are indices[indptr[v]:indptr[v + 1]]
    indices: np.ndarray  # (m,) int32, sorted within each row

    @classmethod
    def from_edges(cls, src, dst, n: int | None = None) -> "Graph":
        """Build from edge arrays; self-loops and repeated links are dropped."""
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        if src.shape != dst.shape or src.ndim != 1:
            raise ValueError("src and dst must be vectors of the same length.")
        if src.size and (src.min() < 0 or dst.min() < 0):
            raise ValueError("node ids must be >= 0.")
        top = int(max(src.max(), dst.max())) + 1 if src.size else 0
        n = top if n is None else n
        if n < top:
            raise ValueError(f"n ({n}) is smaller than the largest node id + 1 ({top}).")
        keep = src != dst
        keys = np.sort(src[keep] * n + dst[keep])  # by (src, dst)
        if keys.size:
            keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
        s, d = np.divmod(keys, n)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(s, minlength=n), out=indptr[1:])
        return cls(indptr, d.astype(np.int32))

    @property
    def n(self) -> int:
        return self.indptr.shape[0] - 1

    @property
    def m(self) -> int:
        return int(self.indices.shape[0])

    def successors(self, v: int) -> np.ndarray:
        return self.indices[self.indptr[v]: self.indptr[v + 1]]

    def out_degree(self) -> np.ndarray:
        return np.diff(self.indptr)

    def in_degree(self) -> np.ndarray:
        return np.bincount(self.indices, minlength=self.n)

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """``(src, dst)`` as int64 arrays, sorted by source then target."""
        src = np.repeat(np.arange(self.n, dtype=np.int64), self.out_degree())
        return src, self.indices.astype(np.int64)

    def adjacency(self) -> sp.csr_matrix:
        data = np.ones(self.m, dtype=np.int8)
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(self.n, self.n))

    def undirected(self) -> sp.csr_matrix:
        """The symmetrised 0/1 adjacency (for distances, clustering and topic cells)."""
        a = self.adjacency()
        u = (a + a.T).tocsr()
        u.data[:] = 1
        return u

    def bfs_order(self, start: int, limit: int | None = None) -> np.ndarray:
        """Nodes in breadth-first order along out-links from ``start`` (``start`` first)."""
        order = csgraph.breadth_first_order(self.adjacency(), start, directed=True,
                                            return_predecessors=False)
        return order if limit is None else order[:limit]

    def __repr__(self) -> str:
        return f"<Graph n={self.n} m={self.m}>"


@dataclass(frozen=True)
class LoadReport:
    """What :func:`load_edge_list` read: counts, and the first bad line numbers (1-based)."""

    lines: int
    edges: int           # edges kept in the graph
    comments: int
    blank: int
    bad: int
    bad_lines: list[int] = field(default_factory=list)
    self_loops: int = 0
    duplicates: int = 0
    seconds: float = 0.0


def _read_bytes(path: Path) -> bytes:
    with open(path, "rb") as handle:
        magic = handle.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rb") as handle:
        return handle.read()


def parse_edge_bytes(data: bytes) -> tuple[np.ndarray, np.ndarray, dict]:
    """Vectorised parse of ``src<whitespace>dst`` lines.

    A line is good when it holds exactly two runs of ASCII digits separated by tabs or
    spaces (a trailing ``\\r`` is allowed); ``#`` at the start makes a comment; anything else
    (a sign, a letter, one or three fields, a number of more than 18 digits) is a bad line.
    Returns ``(src, dst, info)`` with ``info`` holding ``lines``, ``comments``, ``blank``,
    ``bad`` and ``bad_lines`` (1-based line numbers of every bad line).
    """
    if not data.endswith(b"\n"):
        data += b"\n"
    buf = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(buf == 10)                 # the '\n' of every line
    starts = np.concatenate(([0], ends[:-1] + 1))
    n_lines = ends.shape[0]
    digit = (buf - np.uint8(48)) <= 9                # uint8 wraps below '0'
    space = (buf == 9) | (buf == 32) | (buf == 13) | (buf == 10)
    # lines holding any byte that is neither a digit nor a separator
    odd = np.zeros(n_lines, dtype=bool)
    odd[np.searchsorted(ends, np.flatnonzero(~(digit | space)))] = True
    # digit runs: where each starts and ends, how many each line holds
    run_starts = np.flatnonzero(digit & np.concatenate(([True], ~digit[:-1])))
    run_ends = np.flatnonzero(digit & np.concatenate((~digit[1:], [True])))
    n_runs = np.searchsorted(run_starts, ends) - np.searchsorted(run_starts, starts)
    too_long = np.zeros(n_lines, dtype=bool)
    too_long[np.searchsorted(ends, run_starts[run_ends - run_starts + 1 > 18])] = True
    comment = (ends > starts) & (buf[np.minimum(starts, buf.shape[0] - 1)] == ord("#"))
    good = ~comment & ~odd & ~too_long & (n_runs == 2)
    blank = ~comment & ~odd & (n_runs == 0)
    bad = ~(good | comment | blank)
    # blank out every line that is not an edge, then let numpy's C parser read the numbers
    skip = np.flatnonzero(~good)
    if skip.size:
        writable = buf.copy()
        if skip.size <= 100_000:
            for i in skip.tolist():
                writable[starts[i]: ends[i]] = 32
        else:
            writable[~np.repeat(good, ends - starts + 1) & (writable != 10)] = 32
        data = writable.tobytes()
    # (a string without any number reads as [0], hence the guard)
    values = (np.fromstring(data, dtype=np.int64, sep=" ") if good.any()
              else np.zeros(0, dtype=np.int64))
    if values.size != 2 * int(good.sum()):
        raise RuntimeError("edge list parse out of step: this is a bug.")
    info = {
        "lines": int(n_lines),
        "comments": int(comment.sum()),
        "blank": int(blank.sum()),
        "bad": int(bad.sum()),
        "bad_lines": (np.flatnonzero(bad) + 1).tolist(),
    }
    return values[0::2], values[1::2], info


def load_edge_list(path, n: int | None = None) -> tuple[Graph, LoadReport]:
    """Load a (gzipped) ``src<TAB>dst`` edge list as a :class:`Graph`.

    Bad lines are skipped, counted and logged once with their first line numbers; self-loops
    and repeated links are dropped and counted. ``n`` defaults to the largest id + 1.
    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for a file without
    a single good line.
    """
    path = Path(path)
    t0 = time.perf_counter()
    data = _read_bytes(path)
    src, dst, info = parse_edge_bytes(data)
    if src.size == 0:
        raise ValueError(f"{path}: no edge found ({info['bad']} bad lines).")
    self_loops = int(np.count_nonzero(src == dst))
    graph = Graph.from_edges(src, dst, n)
    report = LoadReport(
        lines=info["lines"], edges=graph.m, comments=info["comments"], blank=info["blank"],
        bad=info["bad"], bad_lines=info["bad_lines"][:MAX_REPORTED_LINES],
        self_loops=self_loops, duplicates=int(src.size - self_loops - graph.m),
        seconds=time.perf_counter() - t0,
    )
    if report.bad:
        logger.warning("%s: skipped %d bad lines (first: %s)", path, report.bad,
                       ", ".join(map(str, report.bad_lines)))
    return graph, report


@dataclass(frozen=True)
class RewireReport:
    swaps: int           # successful double-edge swaps
    proposed: int
    rounds: int
    changed: float       # share of the original links no longer in the graph
    seconds: float


def rewire(graph: Graph, rng: np.random.Generator, swaps_per_edge: float = 2.0,
           max_rounds: int = 200) -> tuple[Graph, RewireReport]:
    """The degree-preserving rewired control: ``swaps_per_edge · m`` double-edge swaps.

    Each round pairs up all links at random and swaps the targets of every pair,
    ``(a→b, c→d) → (a→d, c→b)``, unless that would make a self-loop or a link the graph
    already has (or that another swap of the same round makes): sources stay, targets move
    between links, so every out-degree and every in-degree is unchanged. Selection paper,
    Sect. 4.1 and 5: the rewired graph is scale-free but not a small world.
    """
    if swaps_per_edge <= 0:
        raise ValueError(f"swaps_per_edge ({swaps_per_edge!r}) must be > 0.")
    t0 = time.perf_counter()
    n = graph.n
    src, dst = graph.edges()
    dst = dst.copy()
    m = src.shape[0]
    original = src * n + dst
    keys = np.sort(original)
    target = int(round(swaps_per_edge * m))
    done = proposed = rounds = 0
    while done < target and rounds < max_rounds and m >= 2:
        rounds += 1
        perm = rng.permutation(m)
        half = m // 2
        i, j = perm[:half], perm[half: 2 * half]
        a, b, c, d = src[i], dst[i], src[j], dst[j]
        new1, new2 = a * n + d, c * n + b
        ok = (a != d) & (c != b) & (a != c) & (b != d)
        ok &= ~_member(new1, keys) & ~_member(new2, keys)
        # two swaps of this round must not make the same link
        cand = np.concatenate((new1[ok], new2[ok]))
        cand.sort()
        clash = cand[1:][cand[1:] == cand[:-1]]
        if clash.size:
            ok &= ~(_member(new1, clash) | _member(new2, clash))
        accepted = np.flatnonzero(ok)[: target - done]
        proposed += half
        dst[i[accepted]] = d[accepted]
        dst[j[accepted]] = b[accepted]
        done += accepted.size
        keys = np.sort(src * n + dst)
        if accepted.size == 0:
            break
    changed = 1.0 - float(np.count_nonzero(_member(original, keys))) / max(m, 1)
    rewired = Graph.from_edges(src, dst, n)
    return rewired, RewireReport(done, proposed, rounds, changed, time.perf_counter() - t0)


def _member(queries: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    if sorted_keys.size == 0:
        return np.zeros(queries.shape, dtype=bool)
    # sorted queries make searchsorted walk memory in order: ~10x faster on millions of keys
    order = np.argsort(queries, kind="stable")
    ordered = queries[order]
    at = np.minimum(np.searchsorted(sorted_keys, ordered), sorted_keys.size - 1)
    found = np.empty(queries.shape, dtype=bool)
    found[order] = sorted_keys[at] == ordered
    return found


def scale_free_graph(n: int, rng: np.random.Generator, alpha: float = 0.1, beta: float = 0.85,
                     gamma: float = 0.05, delta_in: float = 0.2,
                     delta_out: float = 0.2) -> Graph:
    """A directed scale-free graph of ``n`` nodes (Bollobás, Borgs, Chayes & Riordan 2003).

    From two nodes linked both ways, each step adds one link:

    - with probability α a new node v and a link v → w;
    - with probability β a link v → w between existing nodes;
    - with probability γ a new node w and a link v → w;

    where w is drawn with probability ∝ d_in(w) + δ_in and v with probability
    ∝ d_out(v) + δ_out. In- and out-degrees follow power laws with exponents
    ``1 + (1 + δ_in·(α+γ))/(α+β)`` and ``1 + (1 + δ_out·(α+γ))/(β+γ)``; the defaults give
    2.08 and 2.14 (cnr-2000: about 1.96 and 2.15). About 6.7 links are drawn per node; many
    repeat a link between two hubs and are dropped, leaving about 3 per node.
    """
    if n < 2:
        raise ValueError(f"n ({n!r}) must be >= 2.")
    if min(alpha, beta, gamma) < 0 or abs(alpha + beta + gamma - 1.0) > 1e-9:
        raise ValueError("alpha, beta and gamma must be >= 0 and sum to 1.")
    if alpha + gamma <= 0:
        raise ValueError("alpha + gamma must be > 0, or the graph never grows.")
    if delta_in <= 0 and alpha == 0:
        raise ValueError("delta_in must be > 0 when alpha is 0.")
    expected = int((n - 2) / (alpha + gamma) * 1.2) + 16
    src = np.empty(expected, dtype=np.int64)
    dst = np.empty(expected, dtype=np.int64)
    src[:2], dst[:2] = (0, 1), (1, 0)
    t, nodes = 2, 2
    chunk = 4096
    while nodes < n:
        kinds = rng.random(chunk)
        u_in = rng.random(chunk)
        u_out = rng.random(chunk)
        for kind, ui, uo in zip(kinds.tolist(), u_in.tolist(), u_out.tolist()):
            if nodes >= n:
                break
            if t == src.shape[0]:
                src = np.concatenate((src, np.empty_like(src)))
                dst = np.concatenate((dst, np.empty_like(dst)))
            if kind < alpha:           # new node v → existing w
                w = _pick(ui, t, nodes, delta_in, dst)
                v = nodes
                nodes += 1
            elif kind < alpha + beta:  # existing v → existing w
                v = _pick(uo, t, nodes, delta_out, src)
                w = _pick(ui, t, nodes, delta_in, dst)
            else:                      # existing v → new node w
                v = _pick(uo, t, nodes, delta_out, src)
                w = nodes
                nodes += 1
            src[t], dst[t] = v, w
            t += 1
    return Graph.from_edges(src[:t], dst[:t], n)


def _pick(u: float, t: int, nodes: int, delta: float, ends: np.ndarray) -> int:
    # P(x) = (d(x) + δ) / (t + δ·nodes): the end of a uniformly drawn past link has
    # probability ∝ d(x); with the remaining mass, a uniformly drawn node.
    x = u * (t + delta * nodes)
    if x < t:
        return int(ends[int(x)])
    return min(int((x - t) / delta), nodes - 1)


def tail_exponent(degrees, x_min: int) -> float:
    """The maximum-likelihood power-law exponent of the degrees ≥ ``x_min`` (Clauset, Shalizi
    & Newman 2009, discrete approximation ``1 + k / Σ ln(x / (x_min − ½))``)."""
    x = np.asarray(degrees, dtype=np.float64)
    x = x[x >= x_min]
    if x.size < 2:
        raise ValueError(f"fewer than 2 degrees >= x_min ({x_min}).")
    return 1.0 + x.size / float(np.log(x / (x_min - 0.5)).sum())


def clustering_coefficient(graph: Graph, rng: np.random.Generator, sample: int = 2000) -> float:
    """Mean local clustering coefficient of the undirected graph (Watts & Strogatz 1998),
    over a uniform sample of the nodes with at least two neighbours."""
    u = graph.undirected()
    degree = np.diff(u.indptr)
    candidates = np.flatnonzero(degree >= 2)
    if candidates.size == 0:
        return 0.0
    chosen = rng.choice(candidates, size=min(sample, candidates.size), replace=False)
    values = []
    for v in chosen.tolist():
        neighbours = u.indices[u.indptr[v]: u.indptr[v + 1]]
        links = u[neighbours][:, neighbours].nnz / 2
        k = neighbours.size
        values.append(links / (k * (k - 1) / 2))
    return float(np.mean(values))


def mean_distance(graph: Graph, rng: np.random.Generator, sources: int = 10) -> float:
    """Mean shortest-path length (undirected) from a few random sources to every node they
    reach: the quantity the selection paper calls the graph's diameter (7.29 vs 8.22)."""
    u = graph.undirected()
    degree = np.diff(u.indptr)
    candidates = np.flatnonzero(degree > 0)
    chosen = rng.choice(candidates, size=min(sources, candidates.size), replace=False)
    dist = csgraph.shortest_path(u, directed=False, unweighted=True, indices=chosen)
    finite = dist[np.isfinite(dist) & (dist > 0)]
    return float(finite.mean()) if finite.size else float("nan")
