import json
import math

import numpy as np
import pytest

from newsforagers.learning import EnergyModel, EnergyPolicy, ScorePolicy, energy_variation, steepness
from newsforagers.learning.population import Decision, OriginalEnergyModel


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


# -- the original model, Δe = ρ·r − C (issue 20) ---------------------------------------------------


def test_original_model_energy_is_rho_r_minus_c():
    model = OriginalEnergyModel(C=0.5, rho=2.0)
    # 2·0.1 − 0.5 = −0.3;  2·0.25 − 0.5 = 0 (break-even: C/ρ = 0.25);  2·0.9 − 0.5 = +1.3
    assert model.energy(0.1) == pytest.approx(-0.3, abs=1e-12)
    assert model.energy(0.25) == 0.0
    assert model.energy(0.9) == pytest.approx(1.3, abs=1e-12)
    assert model.threshold() == 0.25  # fixed, whatever the history
    for r in (0.9, 0.9, 0.9):
        model.observe(r)
    assert model.threshold() == 0.25 and model.energy(0.9) == pytest.approx(1.3, abs=1e-12)


def test_original_model_clones_at_the_upper_bound():
    policy = EnergyPolicy(C=0.5, lower_bound=1, upper_bound=3, model="original", rho=2.0)
    policy.register("a")  # E = 1
    # Δe = 0: E stays at exactly 1, which is not > 1: no clone
    assert policy.visit("a", "even", 0.25) == [] and policy.energies["a"] == 1.0
    # E = 1 + 1.3 = 2.3: ⌊E⌋ = 2 clones (UB − population = 2 allows both), each part 2.3/2
    [split] = policy.visit("a", "rich", 0.9)
    assert (split.kind, split.clones) == ("split", 2)
    assert split.energy == pytest.approx(1.15, abs=1e-12) and policy.energies["a"] == split.energy
    policy.register("b", split.energy)
    policy.register("c", split.energy)
    # at UB: E = 1.15 + 1.3 = 2.45 would make 2 clones, UB − population = 0 makes none
    assert policy.visit("b", "rich2", 0.9) == []
    assert policy.energies["b"] == pytest.approx(2.45, abs=1e-12)
    # the pages above C/ρ count as relevant, and they are the ones that gained
    assert (policy.relevant_pages, policy.gaining_pages, policy.pages) == (2, 2, 3)


def test_original_model_death_teleport_and_the_buffer_above_ub():
    policy = EnergyPolicy(C=0.5, lower_bound=1, upper_bound=1, model="original", rho=2.0)
    policy.register("a")
    policy.register("b")  # population 2 > UB = 1: pages keep their energy, visitors pay |C|
    assert policy.visit("a", "rich", 0.9) == []  # E = 1 − 0.5
    assert policy.page_energy["rich"] == pytest.approx(1.3, abs=1e-12)
    assert policy.visit("a", "poor", 0.1) == []  # E = 0.5 − 0.5 = 0: not < 0, lives
    assert policy.energies["a"] == 0.0 and policy.page_energy["poor"] == pytest.approx(-0.3, abs=1e-12)
    [retire] = policy.visit("a", "poor", 0.1)  # E = −0.5 with population 2 > LB = 1: dies
    assert retire.kind == "retire"
    policy.forget("a")
    # b alone, at LB = UB = 1: it takes the pages' energy; Δe = −0.3 brings E = 1 to 0.7
    assert policy.visit("b", "poor2", 0.1) == []
    assert policy.energies["b"] == pytest.approx(0.7, abs=1e-12)
    # E = 0.7 − 0.3 − 0.3 − 0.3 < 0 at LB: teleport to the page holding most energy, "rich"
    assert policy.visit("b", "poor3", 0.1) == [] and policy.visit("b", "poor4", 0.1) == []
    [teleport] = policy.visit("b", "poor5", 0.1)
    assert (teleport.kind, teleport.target) == ("teleport", "rich")
    # there it takes the 1.3 left behind: E = −0.2 + 1.3 = 1.1 > 1 but UB caps the clones at 0
    assert policy.visit("b", "rich", 0.9) == []
    assert policy.energies["b"] == pytest.approx(1.1, abs=1e-12) and policy.page_energy["rich"] == 0.0
    assert policy.best_remnant() is None


def test_original_model_and_rho_are_validated():
    for rho in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="rho"):
            EnergyPolicy(model="original", rho=rho)
    with pytest.raises(ValueError, match=r"energy model \('linear'\) must be 'sigmoid' or 'original'"):
        EnergyPolicy(model="linear")
    assert isinstance(EnergyPolicy().model, EnergyModel)  # the sigmoid stays the default
    policy = EnergyPolicy(model="original", rho=2.0)
    policy.register("f")
    with pytest.raises(ValueError, match="finite"):
        policy.visit("f", "page", math.nan)


def test_a_checkpoint_has_one_shape_for_both_models():
    original = EnergyPolicy(C=0.5, lower_bound=1, upper_bound=10**6, model="original", rho=2.0)
    _stream(original, [0.1, 0.9, 0.4])
    sigmoid = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=10**6)
    sigmoid.restore(json.loads(json.dumps(original.to_dict())))
    assert sigmoid.model.threshold() == 0.9 and sigmoid.pages == 3


# -- the sigmoid with topic relevances in [0, 1] (issue 20) ----------------------------------------


def test_sigmoid_energy_of_topic_relevances_by_hand():
    # tf·idf relevances of the topical mode, C = 0.5, G = 10. Two foragers over UB = 1: each
    # visit costs the visitor |C| and leaves the page's Δe in the buffer, where it is read.
    policy = EnergyPolicy(C=0.5, G=10, lower_bound=1, upper_bound=1)
    policy.register("a")
    policy.register("b")
    half = (10 + 0.5) / 2 - 0.5  # a page at R: (G + C)·σ(0) − C = 4.75
    expected = [
        # n = 1: n* = 1/(0.5/10 + 1) = 0.952 -> rank 1, R = 0.0; r_m = r_M = R: λ = ∞,
        # the step g: r ≤ R -> −C
        (0.0, 0.0, math.inf, -0.5),
        # n = 2..10: n* = n/1.05 rounds to n (n − n/1.05 < 0.5 below n = 10.5), so R is the
        # largest relevance so far, here the new page itself (or its equal): Δe = σ(0) share.
        # λ: R − r_m = R > 0, r_M − R = 0 -> the one side left, 8/(R − 0)
        (0.05, 0.05, 8 / 0.05, half),  # 160
        (0.1, 0.1, 8 / 0.1, half),  # 80
        (0.1, 0.1, 8 / 0.1, half),  # n = 4: sorted [0, .05, .1, .1], rank 4 -> 0.1
        (0.15, 0.15, 8 / 0.15, half),
        (0.2, 0.2, 8 / 0.2, half),
        (0.2, 0.2, 8 / 0.2, half),
        (0.3, 0.3, 8 / 0.3, half),
        (0.4, 0.4, 8 / 0.4, half),
        (0.6, 0.6, 8 / 0.6, half),
        # n = 11: n* = 11/1.05 = 10.476 -> rank 10 of [0, .05, .1, .1, .15, .2, .2, .3, .4, .6,
        # .9]: R = 0.6. 8/(R − r_m) = 8/0.6 = 13.3 > r_M − R = 0.3 -> λ = 8/0.3 = 26.667;
        # λ(r − R) = 26.667·0.3 = 8: Δe = 10.5·σ(8) − 0.5 = 10.5·0.99966464987 − 0.5
        (0.9, 0.6, 8 / 0.3, 9.996478823630103),
        # n = 12: n* = 12/1.05 = 11.43 -> rank 11 of [..., .25, .3, .4, .6, .9]: R = 0.6 still,
        # λ = 8/0.3; λ(r − R) = 26.667·(−0.35) = −28/3: Δe = 10.5/(1 + e^(28/3)) − 0.5
        #   = 10.5/(1 + 11308.7646) − 0.5
        (0.25, 0.6, 8 / 0.3, -0.49907159871480117),
    ]
    for page, (r, R, lam, delta) in enumerate(expected):
        policy.visit("a", page, r)
        history = policy.model._history
        assert policy.model.threshold() == pytest.approx(R, abs=1e-9)
        assert steepness(history[0], history[-1], policy.model.threshold()) == pytest.approx(lam, abs=1e-9)
        assert policy.page_energy[page] == pytest.approx(delta, abs=1e-9)
    assert policy.energies["a"] == pytest.approx(1 - 12 * 0.5, abs=1e-12)
    # pages above R when first seen: only 0.9 (R = 0.6); gainers: those at R too, (G + C)/2 − C > 0
    assert (policy.relevant_pages, policy.gaining_pages) == (1, 10)


# -- the split and the bounds: Alg. 2 as printed or Alg. 1's sharing; strict or the paper's ----------


def _original(**kwargs) -> EnergyPolicy:
    # Δe = 2·r − 0.5: r = 0.9 gains 1.3, r = 0.1 loses 0.3 (the break-even C/ρ is 0.25)
    return EnergyPolicy(C=0.5, model="original", rho=2.0, **kwargs)


def test_the_split_and_the_bounds_default_to_today_s():
    policy = EnergyPolicy()
    assert (policy.split, policy.bounds) == ("printed", "strict")
    with pytest.raises(ValueError, match=r"energy split \('half'\) must be 'printed' or 'shared'"):
        EnergyPolicy(split="half")
    with pytest.raises(ValueError, match=r"energy bounds \('loose'\) must be 'strict' or 'paper'"):
        EnergyPolicy(bounds="loose")


def test_a_shared_split_conserves_energy_exactly():
    policy = _original(lower_bound=1, upper_bound=10**6, split="shared")
    policy.register("a")
    # E = 1 + 1.3 = 2.3: ⌊2.3⌋ = 2 clones, the forager and its clones 2.3/3 each
    [split] = policy.visit("a", "rich", 0.9)
    assert (split.kind, split.clones) == ("split", 2)
    assert split.energy == pytest.approx(2.3 / 3, abs=1e-12) and policy.energies["a"] == split.energy
    for name in ("a1", "a2"):
        policy.register(name, split.energy)
    assert sum(policy.energies.values()) == pytest.approx(2.3, abs=1e-12)
    # each part is below 1: a visit of the consumed page (it costs nothing) splits nobody
    assert policy.visit("a", "rich", 0.9) == [] and policy.energies["a"] == pytest.approx(2.3 / 3)
    # [MM]'s example: an agent of E = 11 (1 + Δe of r = 5.25: 10.5 − 0.5) makes 11 clones of 11/12
    policy.register("b")
    [split] = policy.visit("b", "richer", 5.25)
    assert split.clones == 11 and split.energy == pytest.approx(11 / 12, abs=1e-12)
    assert (split.clones + 1) * split.energy == pytest.approx(11.0, abs=1e-12)


def test_the_printed_split_creates_energy_and_splits_again():
    policy = _original(lower_bound=1, upper_bound=10**6)  # split="printed", the default
    policy.register("a")
    # E = 2.3: ⌊E⌋ = 2 clones with E ÷ ⌊E⌋ = 1.15, and E ← 1.15: three parts hold 3.45 > 2.3
    [split] = policy.visit("a", "rich", 0.9)
    assert split.clones == 2 and split.energy == pytest.approx(1.15, abs=1e-12)
    for name in ("a1", "a2"):
        policy.register(name, split.energy)
    assert sum(policy.energies.values()) == pytest.approx(3.45, abs=1e-12)
    # 1.15 > 1 again: the next visit, of the consumed page (free), splits it again, 1 clone of 1.15
    [again] = policy.visit("a", "rich", 0.9)
    assert again.clones == 1 and again.energy == pytest.approx(1.15, abs=1e-12)
    # E = 11 exactly: 11 clones of 1.0, twelve parts holding 12
    policy.register("b")
    [split] = policy.visit("b", "richer", 5.25)
    assert split.clones == 11 and split.energy == pytest.approx(1.0, abs=1e-12)


def test_strict_bounds_cap_the_clones_and_teleport_at_lb():
    policy = _original(lower_bound=2, upper_bound=3)  # bounds="strict", the default
    for name in ("a", "b", "c"):
        policy.register(name)
    # at UB: E = 2.3 would make 2 clones, UB − population = 0 makes none; the energy stays
    assert policy.visit("a", "rich", 0.9) == [] and policy.energies["a"] == pytest.approx(2.3)
    policy.forget("c")
    # population 2 = LB: E = 1 − 0.3·4 < 0 teleports instead of dying (no remnant: target None)
    for page in ("p1", "p2", "p3"):
        assert policy.visit("b", page, 0.1) == []
    assert policy.visit("b", "p4", 0.1) == [Decision("teleport", "b", target=None)]


def test_paper_bounds_pass_ub_defer_the_pages_energy_and_teleport_below_lb():
    policy = _original(lower_bound=2, upper_bound=3, split="shared", bounds="paper")
    for name in ("a", "b", "c"):
        policy.register(name)
    # population 3 = UB, not above it: a takes Δe = 1.3, E = 2.3, and makes ⌊E⌋ = 2 clones —
    # no cap: the population becomes 5 > UB
    [split] = policy.visit("a", "rich", 0.9)
    assert split.clones == 2 and split.energy == pytest.approx(2.3 / 3)
    for name in ("a1", "a2"):
        policy.register(name, split.energy)
    assert policy.population == 5
    # above UB: b pays |C| (E = 1 − 0.5) and the new page keeps its Δe = 1.3, a remnant
    assert policy.visit("b", "rich2", 0.9) == []
    assert policy.energies["b"] == pytest.approx(0.5, abs=1e-12)
    assert policy.remnants() == {"rich2": pytest.approx(1.3, abs=1e-12)}
    assert policy.best_remnant() == "rich2"
    # above UB a poor page costs |C| too (not its −0.3): 1 − 0.5 − 0.5 = 0 lives, −0.5 dies
    # (population 5 >= LB)
    assert policy.visit("c", "poor", 0.1) == [] and policy.visit("c", "poor", 0.1) == []
    assert policy.energies["c"] == 0.0
    assert policy.visit("c", "poor", 0.1) == [Decision("retire", "c")]
    for name in ("c", "a1", "a2"):
        policy.forget(name)
    # population 2 = LB (not below): b at 0.5 − 0.3 − 0.3 = −0.1 dies, where strict teleports
    assert policy.visit("b", "poor2", 0.1) == []
    assert policy.visit("b", "poor3", 0.1) == [Decision("retire", "b")]
    policy.forget("b")
    # population 1 < LB: a at 2.3/3 − 3·0.3 = −0.1333 teleports to the remnant
    assert policy.visit("a", "poor4", 0.1) == [] and policy.visit("a", "poor5", 0.1) == []
    assert policy.visit("a", "poor6", 0.1) == [Decision("teleport", "a", target="rich2")]
    assert policy.energies["a"] == pytest.approx(2.3 / 3 - 0.9, abs=1e-12)
    # the later visitor, below UB, consumes the remnant: E = −0.1333 + 1.3 = 1.1667, one clone
    [split] = policy.visit("a", "rich2", 0.9)
    assert split.clones == 1 and split.energy == pytest.approx((2.3 / 3 + 0.4) / 2, abs=1e-12)
    assert policy.page_energy["rich2"] == 0.0 and policy.best_remnant() is None
