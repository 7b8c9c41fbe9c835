"""Principal Direction Divisive Partitioning (Boley 1998).

D. L. Boley, "Principal Direction Divisive Partitioning", *Data Mining and Knowledge Discovery*
2 (1998), 325-344. The news-forager papers (Palotai, Mandusitz & Lőrincz 2003; Palotai, Farkas &
Lőrincz) build their k = 50 text classes with it ("Boley's clustering algorithm").

A leaf holding the documents ``M`` (one row per document) with centroid ``w`` is cut in two by
the hyperplane through ``w`` orthogonal to the leading right singular vector ``u`` of the
centred matrix ``M - e wᵀ``: document ``d`` goes left when ``(d - w)·u <= 0`` and right
otherwise. The leaf cut next is always the one with the largest scatter
``‖M - e wᵀ‖_F² = Σ_d ‖d - w‖²``. The centred matrix is never formed: it would be
dense.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, svds
from threadpoolctl import threadpool_limits  # a scikit-learn dependency

__all__ = ["pddp"]

# When a leaf has at most this many documents (or the matrix this many terms), the leading
# singular vector comes from a small dense symmetric matrix (n x n or terms x terms: exact
# and cheap); otherwise from ARPACK on an implicit centred operator, whose cost grows with the
# non-zeros instead of n².
_DENSE_MAX = 256

# A scatter this small relative to Σ‖d‖² is rounding noise: the documents are identical.
_ZERO_SCATTER_RTOL = 1e-10


@dataclass(frozen=True)
class _Leaf:
    rows: np.ndarray  # indices into X, ascending
    path: tuple[int, ...]  # 0 = left, 1 = right, from the root: orders the final labels
    scatter: float


def _scatter(M: sp.csr_matrix) -> tuple[float, np.ndarray, float]:
    """Scatter, centroid and Σ‖d‖² of the rows of ``M``."""
    n = M.shape[0]
    centroid = np.asarray(M.mean(axis=0)).ravel()
    total = float(M.multiply(M).sum())
    # Σ‖d - w‖² = Σ‖d‖² - n‖w‖²: no centred matrix needed.
    return max(total - n * float(centroid @ centroid), 0.0), centroid, total


def _fix_sign(u: np.ndarray) -> np.ndarray:
    # A singular vector is defined up to its sign; pinning it makes left/right reproducible.
    return -u if u[np.argmax(np.abs(u))] < 0 else u


def _direction_dense(M: sp.csr_matrix, centroid: np.ndarray) -> np.ndarray:
    """Leading right singular vector of ``M - e wᵀ`` from its smaller symmetric square."""
    n, n_terms = M.shape
    if n_terms < n:
        # (M - e wᵀ)ᵀ(M - e wᵀ) = MᵀM - n wwᵀ: the scatter matrix, terms x terms.
        scatter = (M.T @ M).toarray() - n * np.outer(centroid, centroid)
        return np.linalg.eigh(scatter)[1][:, -1]
    gram = (M @ M.T).toarray()
    # H G H with H = I - eeᵀ/n is (M - e wᵀ)(M - e wᵀ)ᵀ.
    row_mean = gram.mean(axis=1)
    centred = gram - row_mean[:, None] - row_mean[None, :] + row_mean.mean()
    _, vectors = np.linalg.eigh(centred)
    left = vectors[:, -1]
    # The left vector is orthogonal to e, so (M - e wᵀ)ᵀ left = Mᵀ left.
    u = np.asarray(M.T @ left).ravel() - centroid * left.sum()
    return u / np.linalg.norm(u)


def _direction_arpack(M: sp.csr_matrix, centroid: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
    """Leading right singular vector of ``M - e wᵀ`` by ARPACK on an implicit operator."""
    n, n_terms = M.shape
    MT = M.T.tocsr()

    def matvec(x):
        x = np.ravel(x)
        return M @ x - float(centroid @ x)

    def rmatvec(y):
        y = np.ravel(y)
        return MT @ y - centroid * y.sum()

    centred = LinearOperator((n, n_terms), matvec=matvec, rmatvec=rmatvec, dtype=np.float64)
    v0 = rng.standard_normal(min(n, n_terms))
    _, _, vt = svds(centred, k=1, v0=v0, solver="arpack")
    u = vt[0]
    return u / np.linalg.norm(u)


def _split(X: sp.csr_matrix, leaf: _Leaf, rng: np.random.Generator) -> tuple[_Leaf, _Leaf] | None:
    M = X[leaf.rows]
    _, centroid, _ = _scatter(M)
    if min(M.shape) <= _DENSE_MAX:
        u = _direction_dense(M, centroid)
    else:
        u = _direction_arpack(M, centroid, rng)
    u = _fix_sign(u)
    projection = M @ u - float(centroid @ u)
    right = projection > 0
    if right.all() or not right.any():
        # Only possible when the scatter is barely above rounding noise.
        return None
    children = []
    for side, mask in ((0, ~right), (1, right)):
        rows = leaf.rows[mask]
        scatter, _, total = _scatter(X[rows])
        if scatter <= _ZERO_SCATTER_RTOL * total:
            scatter = 0.0
        children.append(_Leaf(rows=rows, path=leaf.path + (side,), scatter=scatter))
    return children[0], children[1]


def _splittable(leaf: _Leaf) -> bool:
    return len(leaf.rows) >= 2 and leaf.scatter > 0.0


def pddp(X, n_clusters: int, random_state=None) -> np.ndarray:
    """Cluster the rows of ``X`` into ``n_clusters`` non-empty clusters by PDDP (Boley 1998).

    Parameters
    ----------
    X : sparse matrix (or array) of shape (n_documents, n_terms)
        Typically tf-idf rows scaled to unit length. Never densified.
    n_clusters : int
        Number of leaves to grow, ``1 <= n_clusters <= n_documents``.
    random_state : None, int or numpy.random.Generator
        Seeds the ARPACK starting vectors through ``numpy.random.default_rng``; with the
        sign of every principal direction pinned (largest-magnitude component positive),
        an int gives the same labels on every run.

    Returns
    -------
    labels : ndarray of int64, shape (n_documents,)
        Cluster of each row, ``0 .. n_clusters - 1``, numbered left to right along the
        bisection tree (siblings get neighbouring numbers). Every cluster is non-empty.

    Raises
    ------
    ValueError
        Bad ``X`` or ``n_clusters``, or fewer splittable leaves than needed: a leaf with fewer
        than 2 documents or with identical documents (zero scatter) cannot be split.
    """
    shape = X.shape if sp.issparse(X) else np.shape(X)
    if len(shape) != 2:
        raise ValueError(f"pddp: X must be 2-dimensional, got shape {shape}")
    X = sp.csr_matrix(X, dtype=np.float64)
    if not np.isfinite(X.data).all():
        raise ValueError("pddp: X contains NaN or infinite values")
    n_docs = X.shape[0]
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, (int, np.integer)):
        raise ValueError(f"pddp: n_clusters ({n_clusters!r}) must be an integer")
    if not 1 <= n_clusters <= n_docs:
        raise ValueError(
            f"pddp: n_clusters ({n_clusters}) must be between 1 and the number of "
            f"documents ({n_docs})"
        )
    rng = np.random.default_rng(random_state)

    scatter, _, total = _scatter(X)
    root = _Leaf(rows=np.arange(n_docs), path=(), scatter=scatter)
    if root.scatter <= _ZERO_SCATTER_RTOL * total:
        root = _Leaf(rows=root.rows, path=(), scatter=0.0)

    done: list[_Leaf] = []  # leaves that will not be split (any more)
    order = itertools.count()  # ties between equal scatters go to the older leaf
    heap: list[tuple[float, int, _Leaf]] = []

    def push(leaf: _Leaf) -> None:
        if _splittable(leaf):
            heapq.heappush(heap, (-leaf.scatter, next(order), leaf))
        else:
            done.append(leaf)

    push(root)
    # The dense problems here are at most 256 x 256: BLAS threads cannot speed them up, and
    # on a busy machine (a crawler colony) their spin-waiting made the fit 5x slower.
    with threadpool_limits(limits=1, user_api="blas"):
        while len(done) + len(heap) < n_clusters:
            if not heap:
                raise ValueError(
                    f"pddp: reached only {len(done)} clusters of the {n_clusters} asked: "
                    f"every remaining leaf has fewer than 2 documents or identical documents"
                )
            _, _, leaf = heapq.heappop(heap)
            children = _split(X, leaf, rng)
            if children is None:
                done.append(_Leaf(rows=leaf.rows, path=leaf.path, scatter=0.0))
                continue
            for child in children:
                push(child)

    leaves = sorted(done + [item[2] for item in heap], key=lambda leaf: leaf.path)
    labels = np.empty(n_docs, dtype=np.int64)
    for label, leaf in enumerate(leaves):
        labels[leaf.rows] = label
    return labels
