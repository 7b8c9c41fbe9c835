import json
import math

import numpy as np
import pytest

from newsforagers.learning import EnergyModel, EnergyPolicy, ScorePolicy, energy_variation, steepness


def test_split_at_exactly_200_below_max():
    policy = ScorePolicy()
    assert policy.decide("f", 200.0, 15).kind == "split"
    assert policy.decide("f", 199.99, 15) is None
    assert policy.decide("f", 250.0, 16) is None  # MAX_FORAGER = 16 reached


def test_retire_at_exactly_0_above_min():
    policy = ScorePolicy()
    assert policy.decide("f", 0.0, 3).kind == "retire"
    assert policy.decide("f", 0.01, 3) is None
    assert policy.decide("f", -5.0, 2) is None  # MIN_FORAGER = 2 reached


def test_decide_all_keeps_the_population_within_bounds():
    policy = ScorePolicy(min_foragers=2, max_foragers=4)
    splits = policy.decide_all({"a": 300, "b": 300, "c": 300})
    assert [d.kind for d in splits] == ["split"]  # 3 -> 4, then MAX binds
    retires = policy.decide_all({"a": -1, "b": -1, "c": -1, "d": 50})
    assert [d.forager for d in retires] == ["a", "b"]  # 4 -> 2, then MIN binds


def test_score_policy_rejects_bad_bounds():
    with pytest.raises(ValueError, match="MIN"):
        ScorePolicy(min_foragers=5, max_foragers=4)
    with pytest.raises(ValueError, match="finite"):
        ScorePolicy().decide("f", float("nan"), 3)


def test_energy_threshold_rank_and_step_limit():
    model = EnergyModel(C=0.5, G=10)
    for r in range(1, 22):  # relevances 1..21
        model.observe(float(r))
    # n* = 21 / (0.05 + 1) = 20 -> R is the 20th smallest: 20; only r = 21 lies above.
    assert model.threshold() == 20.0
    assert model.energy(21.0) > 0
    # the sigmoid is centred on R: a page at R earns (G + C)/2 - C, far below one above it
    assert model.energy(20.0) == pytest.approx(10.5 / 2 - 0.5)
    # lambda = 8/(R - r_m): at r_m the sigmoid is 8 units from its centre, Δe ≈ -C
    assert model.energy(1.0) == pytest.approx(-0.5 + 10.5 / (1 + math.exp(8)))
    assert energy_variation(5.0, 5.0, math.inf, 0.5, 10) == -0.5
    assert energy_variation(5.1, 5.0, math.inf, 0.5, 10) == 10


def test_steepness_follows_h_as_printed():
    # 8/(R - r_m) = 8/4 = 2 <= r_M - R = 6  ->  lambda = 2
    assert steepness(0.0, 10.0, 4.0) == 2.0
    # 8/(R - r_m) = 8/0.5 = 16 > r_M - R = 0.5  ->  lambda = 8/0.5 = 16
    assert steepness(0.0, 1.0, 0.5) == 16.0
    assert steepness(1.0, 1.0, 1.0) == math.inf


def _stream(policy, stream):
    policy.register("f")
    for i, r in enumerate(stream):
        policy.visit("f", i, float(r))


@pytest.mark.parametrize("distribution", ["uniform", "normal", "exponential"])
def test_share_of_relevant_pages_is_near_c_over_g_plus_c(distribution):
    # The paper's example: C = 0.5, G = 10 -> about one page in twenty-one is "considered
    # relevant by the system" (r > R, the step model g that defines R).
    stream = getattr(np.random.default_rng(7), distribution)(size=4000)
    policy = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6)
    _stream(policy, stream)
    assert policy.relevant_pages / len(stream) == pytest.approx(0.5 / 10.5, abs=0.012)


def test_share_of_energy_gaining_pages_with_similarities_in_unit_interval():
    # With the paper's own lambda = h(r_m, r_M, R) the sigmoid also pays pages just below R;
    # for relevances spread over [0, 1] (tf-idf similarities) the gainers stay near 1/21.
    # docs/algorithms.md reports the wider shares measured for heavier-tailed streams.
    stream = np.random.default_rng(7).uniform(size=4000)
    policy = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6)
    _stream(policy, stream)
    assert policy.gaining_pages / len(stream) == pytest.approx(0.5 / 10.5, abs=0.03)


def test_energy_buffer_clones_and_bounds():
    rng = np.random.default_rng(11)
    policy = EnergyPolicy(C=0.5, G=10, lower_bound=2, upper_bound=6)
    names = iter(f"f{i}" for i in range(10**6))
    for _ in range(3):
        policy.register(next(names))
    sizes, kinds = [], set()
    for page in range(3000):
        forager = list(policy.energies)[page % policy.population]
        relevance = float(rng.exponential())
        for decision in policy.visit(forager, page % 1500, relevance):  # pages revisited too
            kinds.add(decision.kind)
            if decision.kind == "split":
                for _ in range(decision.clones):
                    policy.register(next(names), decision.energy)
            elif decision.kind == "retire":
                policy.forget(decision.forager)
        sizes.append(policy.population)
    assert min(sizes) >= 2 and max(sizes) <= 6
    assert {"split", "retire"} <= kinds


def test_energy_rejects_non_finite_relevance():
    policy = EnergyPolicy()
    policy.register("f")
    with pytest.raises(ValueError, match="finite"):
        policy.visit("f", "page", float("nan"))


def test_a_window_of_history_follows_drifting_relevances():
    # relevances that fall over time, as a site's profits do once its news is found
    rng = np.random.default_rng(3)
    stream = rng.exponential(size=4000) * np.linspace(10, 1, 4000)
    everything = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6)
    window = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6, history=200)
    _stream(everything, stream)
    _stream(window, stream)
    assert everything.relevant_pages / 4000 < 0.03  # the paper's R lags behind the drift
    assert window.relevant_pages / 4000 == pytest.approx(0.5 / 10.5, abs=0.012)
    with pytest.raises(ValueError, match="history"):
        EnergyModel(history=-1)


def test_the_page_cap_bounds_the_buffer_and_the_history():
    rng = np.random.default_rng(5)
    stream = rng.exponential(size=3000)
    capped = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6, pages_max=500)
    unbounded = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6)
    _stream(capped, stream)
    _stream(unbounded, stream)
    assert len(capped.page_energy) == 500 and capped.evicted_pages == 2500
    assert len(capped.model) == 500 and len(unbounded.model) == 3000
    assert list(capped.page_energy)[0] == 2500  # the oldest pages went first
    # below the cap the paper's rule is untouched: the same thresholds for the first 500 pages
    first = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6, pages_max=500)
    reference = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6)
    _stream(first, stream[:500])
    _stream(reference, stream[:500])
    assert first.model.threshold() == reference.model.threshold()
    assert first.page_energy == reference.page_energy
    # an evicted page counts as new again
    capped.visit("f", 0, 1.0)
    assert capped.pages == 3001
    with pytest.raises(ValueError, match="limit"):
        EnergyModel(limit=-1)


def test_a_checkpointed_policy_comes_back_within_its_caps():
    rng = np.random.default_rng(6)
    policy = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6)
    _stream(policy, rng.exponential(size=800))
    state = json.loads(json.dumps(policy.to_dict()))
    same = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6)
    same.restore(state)
    assert same.model.threshold() == policy.model.threshold() and same.pages == 800
    # energies come back as each forager registers again
    assert json.loads(json.dumps(same.to_dict())) == {**state, "energies": {}}
    smaller = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6, pages_max=300)
    smaller.restore(state)
    assert len(smaller.page_energy) == 300 and len(smaller.model) == 300
    assert next(iter(smaller.page_energy)) == 500  # the newest 300 pages stay
    with pytest.raises((TypeError, ValueError)):
        smaller.restore({"history": ["x"]})
    assert len(smaller.model) == 300  # a bad state changes nothing


def test_the_teleport_target_is_the_page_holding_most_energy():
    rng = np.random.default_rng(8)
    policy = EnergyPolicy(C=0.5, G=10, lower_bound=2, upper_bound=10**6, pages_max=300)
    policy.register("a")
    policy.register("b")
    teleports = 0
    for i in range(3000):
        page = int(rng.integers(0, 1500))  # pages come back: their energy is consumed
        for decision in policy.visit("ab"[i % 2], page, float(rng.exponential())):
            if decision.kind == "teleport":
                teleports += 1
                remnants = policy.remnants()
                assert decision.target == (max(remnants, key=remnants.get) if remnants else None)
        if i % 500 == 0:
            remnants = policy.remnants()
            assert policy.best_remnant() == (max(remnants, key=remnants.get) if remnants else None)
    assert teleports > 100
    assert len(policy._remnant_heap) <= 2 * len(policy.page_energy) + 64
