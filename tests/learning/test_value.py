import numpy as np
import pytest

from newsforagers.learning import copy_weights, greedy, random_weights, td_error, td_step, value, values


def test_one_td_step_by_hand():
    # delta = r + gamma*V(s_t) - V(s_tm1) = 98 + 0.9*(-1.5) - 0 = 96.65
    w = np.array([0.5, -1.0])
    s_tm1 = np.array([1.0, 0.5])   # V = 0.5 - 0.5 = 0
    s_t = np.array([-1.0, 1.0])    # V = -0.5 - 1 = -1.5
    assert td_error(w, s_tm1, 98.0, s_t) == pytest.approx(96.65)
    w_new = td_step(w, s_tm1, 98.0, s_t, alpha=0.1, gamma=0.9)
    # w + 0.1 * 96.65 * s_tm1
    assert w_new == pytest.approx([10.165, 3.8325])
    assert w.tolist() == [0.5, -1.0]  # the input is not modified


def test_td_step_moves_the_value_toward_its_target():
    rng = np.random.default_rng(3)
    w = rng.uniform(-1, 1, 50)
    s_tm1, s_t = np.tanh(rng.normal(size=50)), np.tanh(rng.normal(size=50))
    before = abs(td_error(w, s_tm1, 100.0, s_t))
    after = abs(td_error(td_step(w, s_tm1, 100.0, s_t, alpha=0.01), s_tm1, 100.0, s_t))
    assert after < before


def test_greedy_picks_the_highest_value_and_the_first_on_ties():
    w = np.array([1.0, -1.0])
    states = np.array([[0.0, 0.0], [1.0, -1.0], [0.5, 0.5], [1.0, -1.0]], dtype=np.float32)
    assert values(w, states).tolist() == [0.0, 2.0, 0.0, 2.0]
    assert greedy(w, states) == 1
    assert value(w, states[1]) == 2.0


def test_weight_initialisation():
    rng = np.random.default_rng(0)
    w = random_weights(50, rng)
    assert w.shape == (50,) and np.all(np.abs(w) <= 1)
    assert not np.array_equal(w, random_weights(50, rng))
    assert np.array_equal(random_weights(50, np.random.default_rng(0)), w)
    child = copy_weights(w)
    assert np.array_equal(child, w) and child is not w


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_states_and_rewards_are_rejected(bad):
    w = np.zeros(3)
    s = np.array([0.0, bad, 0.0])
    with pytest.raises(ValueError, match="NaN or infinite"):
        greedy(w, np.array([[0.0, 0.0, 0.0], s]))
    with pytest.raises(ValueError, match="NaN or infinite"):
        td_step(w, s, 1.0, np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        td_step(w, np.zeros(3), bad, np.zeros(3))


def test_shape_errors_are_clear():
    with pytest.raises(ValueError, match="same length"):
        value(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="shape"):
        greedy(np.zeros(3), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="empty frontier"):
        greedy(np.zeros(3), np.zeros((0, 3)))
