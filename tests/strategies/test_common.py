import math

import numpy as np
import pytest

from newsforagers.config import ForagersConfig
from newsforagers.learning import Weblog
from newsforagers.strategies.common import (
    EncoderBootstrap,
    ForagerCounters,
    energy_relevance,
    guarded_td_step,
    inherit,
)
from newsforagers.strategies.scheduled import poll_rate

CONFIG = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": 2})


def test_the_poll_share_is_the_budget_s_share_split_by_demand():
    # 20 requests a wall second at 600x: 120 a simulated hour; half of them, a third of the demand
    assert poll_rate(0.5, 20.0, speed=600.0) == pytest.approx(60.0)
    assert poll_rate(0.5, 20.0, speed=600.0, own=2.0, total=6.0) == pytest.approx(20.0)
    assert poll_rate(0.0, 20.0) is None and poll_rate(0.5, 0.0) is None and poll_rate(0.5, 1.0, own=0.0) is None


def test_a_child_inherits_half_the_weblog_and_the_weights_or_random_ones_for_wl():
    weblog = Weblog.from_seeds([f"http://s/{i}" for i in range(4)], size=10, start_size=4, beta=0.3)
    weights = np.array([0.5, -0.5])
    child, child_weights = inherit(weblog, weights, "wlrl", np.random.default_rng(0))
    assert len(child) == 2 and len(weblog) == 2 and np.array_equal(child_weights, weights)
    assert child_weights is not weights
    _, random = inherit(weblog, weights, "wl", np.random.default_rng(0))
    assert not np.array_equal(random, weights)
    fixed = Weblog.from_seeds([f"http://s/{i}" for i in range(4)], size=10, start_size=4, beta=0.3)
    whole, _ = inherit(fixed, weights, "rl", np.random.default_rng(0))
    assert len(whole) == 4 and len(fixed) == 4  # rl: the same (fixed) weblog, a copy, nothing taken
    single = Weblog.from_seeds(["http://s/"], size=10, start_size=1, beta=0.3)
    alone, _ = inherit(single, weights, "wlrl", np.random.default_rng(0))
    assert len(alone) == 1 and len(single) == 1  # one URL cannot be halved


def test_the_energy_tie_break_stays_far_below_one_unit_of_profit():
    rng = np.random.default_rng(3)
    jitter = float(np.random.default_rng(3).random())
    assert energy_relevance(rng, 1.0, 0.0) == pytest.approx(1.0 + 1e-6 * jitter)
    rng = np.random.default_rng(3)
    assert energy_relevance(rng, 5.0, 0.0, relevance=0.25) == pytest.approx(0.25 + 0.5e-6 + 1e-9 * jitter)
    assert abs(energy_relevance(np.random.default_rng(1), 0.0, 100.0) - 1e-3 * math.tanh(100.0)) < 1e-5


def test_an_overflowing_td_step_keeps_the_weights_and_is_counted():
    counters = ForagerCounters()
    weights = np.array([1.0, 0.0])
    new = guarded_td_step("f1", CONFIG, counters, weights, np.array([1.0, 0.0]), 1.0, np.array([0.0, 1.0]))
    assert counters.td_updates == 1 and counters.td_error_abs_sum == pytest.approx(0.0 + abs(1.0 - 1.0))
    assert not np.array_equal(new, weights) or counters.td_error_abs_sum == 0.0
    kept = guarded_td_step("f1", CONFIG, counters, weights, np.array([1.0, 0.0]), math.inf, np.array([0.0, 1.0]))
    assert kept is weights and counters.td_overflows == 1 and counters.td_updates == 1


def test_the_bootstrap_asks_for_a_fit_once_and_collects_twice_as_many_after_a_failure():
    background = EncoderBootstrap(lambda texts: texts, pages=2)
    assert background.add(["a"]) is None and background.request is None
    assert background.add(["b"]) is None and background.request == ["a", "b"] and background.fitting
    assert background.add(["c", "d"]) is None and background.texts == ["c", "d"]  # one fit at a time
    background.failed("f1", ["a", "b"], ValueError("too few"))
    assert background.texts == ["a", "b", "c", "d"] and background.pages == 4 and not background.fitting
    at_once = EncoderBootstrap(lambda texts: texts, pages=2, background=False)
    assert at_once.add(["a", "b"]) == ["a", "b"] and at_once.texts == [] and at_once.fit(["x"]) == ["x"]
