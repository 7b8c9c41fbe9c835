import numpy as np
import pytest

from newsforagers.learning.path import ForagerPath


def states(*rows):
    return np.array(rows, dtype=np.float32)


def test_path_takes_the_best_frontier_url_and_never_revisits():
    path = ForagerPath(k=2, max_steps=100)
    path.begin("A", [0.0, 0.0])
    assert path.add_frontier(["B", "C", "A"], states([1, 0], [0, 1], [5, 5])) == ["B", "C"]
    w = np.array([1.0, 2.0])
    assert path.choose_next(w) == "C"  # 2 > 1
    # probes of C: B is already on the frontier, A and C are visited
    assert path.add_frontier(["A", "B", "D"], states([0, 0], [1, 0], [3, 0])) == ["D"]
    assert path.choose_next(w) == "D"
    assert path.choose_next(w) == "B"
    assert path.steps == ["A", "C", "D", "B"]
    assert path.choose_next(w) is None and path.finished  # empty frontier ends the path


def test_path_ends_after_max_steps():
    path = ForagerPath(k=1, max_steps=3)
    path.begin("s0", [0.0])
    path.add_frontier([f"u{i}" for i in range(10)], np.arange(10, dtype=np.float32).reshape(10, 1))
    assert [path.choose_next([1.0]) for _ in range(3)] == ["u9", "u8", None]
    assert len(path.steps) == 3


def test_profits_and_transitions_feed_td_and_the_weblog():
    path = ForagerPath(k=1)
    path.begin("A", [1.0])
    path.add_profit(-1)
    path.add_frontier(["B"], states([0.5]))
    path.choose_next([1.0])
    path.add_profit(99)
    path.add_profit(-1)
    assert path.profits == [-1.0, 98.0]
    s_tm1, r_t, s_t = path.last_transition()
    assert (s_tm1.tolist(), r_t, s_t.tolist()) == ([1.0], 98.0, [0.5])
    assert len(list(path.transitions())) == 1
    with pytest.raises(ValueError, match="finite"):
        path.add_profit(float("nan"))


def test_begin_forgets_the_previous_path():
    path = ForagerPath(k=1)
    path.begin("A", [0.0])
    path.add_frontier(["B"], states([1.0]))
    path.begin("B", [0.0])
    assert path.steps == ["B"] and path.frontier() == [] and path.visited == {"B"}


def test_round_trip_keeps_frontier_and_states():
    path = ForagerPath(k=2)
    path.begin("A", [0.1, 0.2])
    path.add_frontier(["B", "C"], states([1, 0], [0, 1]))
    path.choose_next([0.0, 1.0])
    copy = ForagerPath.from_dict(path.to_dict(), k=2)
    assert copy.steps == ["A", "C"] and copy.frontier() == ["B"]
    assert copy.state_of("B").tolist() == [1.0, 0.0]
    assert copy.choose_next([1.0, 0.0]) == "B"


def test_non_finite_frontier_states_are_rejected():
    path = ForagerPath(k=2)
    path.begin("A")
    with pytest.raises(ValueError, match="NaN or infinite"):
        path.add_frontier(["B"], states([np.nan, 0]))
    assert path.frontier() == []
