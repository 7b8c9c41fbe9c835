"""PDDP (Boley 1998) on tiny synthetic data."""

import numpy as np
import pytest
import scipy.sparse as sp

from newsforagers.text import pddp
from newsforagers.text.pddp import _DENSE_MAX, _direction_arpack, _direction_dense, _scatter


def _groups(centres, sizes, spread, seed=0):
    """Points around ``centres`` (one group each) with a little Gaussian noise."""
    rng = np.random.default_rng(seed)
    rows = [c + spread * rng.standard_normal((n, len(c))) for c, n in zip(centres, sizes)]
    return np.vstack(rows)


def _same_partition(a, b):
    # Labels are names: compare the partitions, not the numbers.
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_two_well_separated_groups_are_split_apart():
    X = _groups([np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])], [7, 5], 0.05)
    labels = pddp(sp.csr_matrix(X), 2, random_state=0)
    assert _same_partition(labels, np.repeat([0, 1], [7, 5]))


def test_largest_scatter_leaf_is_split_first_not_largest_leaf():
    # Group A (10 points, two sub-groups at x = -12 and -8) has scatter about 10 * 2² = 40;
    # group B (30 points, sub-groups at 9.5 and 10.5) has about 30 * 0.5² = 7.5 although
    # it is three times larger. The root splits A from B; the next split must cut A.
    x = np.concatenate([[-12.0] * 5, [-8.0] * 5, [9.5] * 15, [10.5] * 15])
    rng = np.random.default_rng(1)
    X = np.column_stack([x + 0.01 * rng.standard_normal(40), 0.01 * rng.standard_normal(40)])
    three = pddp(sp.csr_matrix(X), 3, random_state=0)
    assert _same_partition(three, np.repeat([0, 1, 2], [5, 5, 30]))
    four = pddp(sp.csr_matrix(X), 4, random_state=0)
    assert _same_partition(four, np.repeat([0, 1, 2, 3], [5, 5, 15, 15]))
    # Labels are numbered along the tree: A's two halves are siblings, so neighbours.
    assert set(four[:10].tolist()) in ({0, 1}, {2, 3})


def test_four_groups_give_four_clusters():
    X = _groups([np.eye(4)[i] for i in range(4)], [6, 6, 6, 6], 0.02, seed=3)
    labels = pddp(sp.csr_matrix(X), 4, random_state=0)
    assert sorted(np.bincount(labels).tolist()) == [6, 6, 6, 6]
    assert _same_partition(labels, np.repeat(np.arange(4), 6))


def test_deterministic_for_a_fixed_random_state():
    X = sp.random(600, 400, density=0.03, random_state=7, format="csr")  # ARPACK path at root
    assert min(X.shape) > _DENSE_MAX
    first = pddp(X, 12, random_state=42)
    second = pddp(X, 12, random_state=42)
    np.testing.assert_array_equal(first, second)
    assert np.bincount(first).min() > 0 and len(np.bincount(first)) == 12


@pytest.mark.parametrize("shape", [(300, 800), (800, 300)])  # Gram side, scatter side
def test_arpack_and_dense_directions_agree(shape):
    # Three ways to the leading right singular vector of the centred matrix must agree up to
    # the sign, or the split would depend on the leaf size.
    X = sp.random(*shape, density=0.02, random_state=3, format="csr")
    _, centroid, _ = _scatter(X)
    small = _direction_dense(X, centroid)
    arpack = _direction_arpack(X, centroid, np.random.default_rng(0))
    assert abs(abs(small @ arpack) - 1.0) < 1e-8
    top = np.linalg.svd(X.toarray() - centroid, full_matrices=False)[2][0]
    assert abs(abs(top @ small) - 1.0) < 1e-8


def test_a_single_term_is_enough():
    x = np.concatenate([np.full(200, 1.0), np.full(150, 3.0)])
    labels = pddp(sp.csr_matrix(x[:, None]), 2, random_state=0)
    assert _same_partition(labels, np.repeat([0, 1], [200, 150]))


def test_dense_input_accepted_and_one_cluster_is_everything():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    np.testing.assert_array_equal(pddp(X, 1), [0, 0, 0])
    assert sorted(pddp(X, 3, random_state=0).tolist()) == [0, 1, 2]


def test_error_when_clusters_cannot_be_reached():
    # Three distinct documents, each repeated four times: once they are apart, every leaf
    # holds identical documents (zero scatter), so no fourth cluster can be made.
    X = sp.csr_matrix(np.repeat(np.eye(3), 4, axis=0))
    assert sorted(np.bincount(pddp(X, 3, random_state=0)).tolist()) == [4, 4, 4]
    with pytest.raises(ValueError, match=r"reached only 3 clusters of the 5 asked"):
        pddp(X, 5, random_state=0)


@pytest.mark.parametrize("n_clusters, message", [
    (0, "between 1 and the number of documents"),
    (4, "between 1 and the number of documents"),
    (2.0, "must be an integer"),
    (True, "must be an integer"),
])
def test_bad_n_clusters(n_clusters, message):
    with pytest.raises(ValueError, match=message):
        pddp(sp.eye(3, format="csr"), n_clusters)


def test_bad_matrix():
    with pytest.raises(ValueError, match="2-dimensional"):
        pddp(np.ones(3), 1)
    with pytest.raises(ValueError, match="NaN or infinite"):
        pddp(np.array([[1.0, np.nan], [0.0, 1.0]]), 2)
