"""The energy walk (Mouton & Marteau's agents on a site graph) and its figures script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from newsforagers.corpus import load_corpus
from newsforagers.evaluation.bench.topic import is_synthetic, section_words, topic_documents
from newsforagers.learning.population import EnergyPolicy
from newsforagers.replay.index import SiteIndex
from newsforagers.replay.site import PageBuilder
from newsforagers.replay.synth import synth_corpus
from newsforagers.sim.energywalk import SiteGraph, build_site_graph, link_probabilities, walk
from newsforagers.text.topic import Topic
from tests.benchmark_scripts import benchmark_script

HUGE = 10**9


def alg1(C: float, rho: float) -> EnergyPolicy:
    """Alg. 1: the original model, no buffer bounds."""
    return EnergyPolicy(model="original", C=C, rho=rho, lower_bound=1, upper_bound=HUGE)


def chain(r1: float, r2: float) -> SiteGraph:
    """0 (seed) → 1 → 2 → 1 → 2 …, one link per page."""
    return SiteGraph.from_links([0.0, r1, r2], [False, True, False],
                                [[(1, 0.5)], [(2, 0.5)], [(1, 0.5)]])


def energies_per_fetch(graph, policy, **kwargs):
    seen = []
    result = walk(graph, policy, [0], on_fetch=lambda k, n: seen.append(dict(policy.energies)),
                  **kwargs)
    return result, seen


# -- energy updates computed by hand -----------------------------------------------------------

def test_original_model_pays_rho_r_minus_c_once_per_page():
    result, seen = energies_per_fetch(chain(0.3, 0.1), alg1(C=0.4, rho=1.0), pages=4, agents=1,
                                      buffer=False)
    # 1 + 0.3 − 0.4, then + 0.1 − 0.4; pages 1 and 2 again: consumed, nothing
    assert [e["a0"] for e in seen] == pytest.approx([0.9, 0.6, 0.6, 0.6])
    assert result.relevance.tolist() == pytest.approx([0.3, 0.1, 0.3, 0.1])
    assert result.new.tolist() == [True, True, False, False]
    assert result.topical.tolist() == [True, False, True, False]


def test_precision_per_fetch_and_of_the_pages_collected():
    # fetches 1, 2, 1, 2: r 0.3, 0.1, 0.3, 0.1; page 1 a topic document; the last two revisits
    result = walk(chain(0.3, 0.1), alg1(C=0.4, rho=1.0), [0], pages=4, agents=1, buffer=False)
    assert result.precision().tolist() == pytest.approx([1, 1 / 2, 2 / 3, 1 / 2])
    # a revisit is read from the document base, not collected again: the collected share stays
    assert result.collected().tolist() == [1, 2, 2, 2]
    assert result.distinct_precision().tolist() == pytest.approx([1, 1 / 2, 1 / 2, 1 / 2])
    assert result.collected_relevance().tolist() == pytest.approx([0.3, 0.2, 0.2, 0.2])
    # read at the fetch that collected the 1st and the 2nd page; the 3rd never came
    assert result.at_collected(result.precision(), [1, 2, 3]) == pytest.approx([1, 1 / 2, None])
    summary = result.summary()
    assert summary["precision"] == pytest.approx(1 / 2)
    assert summary["distinct_precision"] == pytest.approx(1 / 2)
    assert summary["collected_relevance"] == pytest.approx(0.2)
    assert summary["mean_relevance"] == pytest.approx(0.2)


def test_rho_scales_the_gain():
    _, seen = energies_per_fetch(chain(0.1, 0.05), alg1(C=0.4, rho=2.0), pages=2, agents=1,
                                 buffer=False)
    # 1 + 2·0.1 − 0.4, then + 2·0.05 − 0.4
    assert [e["a0"] for e in seen] == pytest.approx([0.8, 0.5])


def test_a_clone_when_energy_passes_one():
    # E = 1 + 0.9 − 0.2 = 1.7 > 1: one clone on the same page
    result, seen = energies_per_fetch(chain(0.9, 0.0), alg1(C=0.2, rho=1.0), pages=1, agents=1,
                                      buffer=False)
    assert result.population.tolist() == [2]
    assert result.counts["clones"] == 1
    # the policy's split (Alg. 2 as printed): ⌊1.7⌋ = 1 clone, both parts 1.7 ÷ 1
    assert seen[0] == pytest.approx({"a0": 1.7, "a1": 1.7})


def test_a_shared_split_conserves_energy():
    # the policy's split="shared" (Alg. 1): ⌊1.7⌋ = 1 clone, the agent and its clone 1.7/2 each
    policy = EnergyPolicy(model="original", C=0.2, rho=1.0, lower_bound=1, upper_bound=HUGE,
                          split="shared")
    result, seen = energies_per_fetch(chain(0.9, 0.0), policy, pages=1, agents=1, buffer=False)
    assert result.population.tolist() == [2]
    assert seen[0] == pytest.approx({"a0": 0.85, "a1": 0.85})


def test_death_when_energy_falls_below_zero():
    # 1 − 0.6 = 0.4, then 0.4 − 0.6 < 0: dead, the walk ends with nobody left
    result = walk(chain(0.0, 0.0), alg1(C=0.6, rho=1.0), [0], pages=10, agents=1, buffer=False)
    assert result.population.tolist() == [1, 0]
    assert result.died_at == 2
    assert result.counts["retired"] == 1


def test_teleport_at_the_lower_bound_to_the_remnant():
    # 0 → 1 (r = 0.9) → 2 (r = 0) ⇄ 3; UB = LB = 1 and two agents: above UB every visit costs
    # C and leaves the page's energy (Δe(1) = 0.9 − 0.6 = 0.3) as a remnant.
    graph = SiteGraph.from_links([0.0, 0.9, 0.0, 0.0], [False] * 4,
                                 [[(1, 1.0)], [(2, 1.0)], [(3, 1.0)], [(2, 1.0)]])
    policy = EnergyPolicy(model="original", C=0.6, rho=1.0, lower_bound=1, upper_bound=1)
    result, seen = energies_per_fetch(graph, policy, pages=5, agents=2, buffer=True)
    # a0 and a1 fetch page 1 above UB: 0.4 each; a0 fetches page 2 above UB: −0.2, retired;
    # a1 fetches page 2 alone: 0.4 − 0.6 = −0.2 at LB: teleported to page 1, gains its 0.3
    assert [e.get("a0") for e in seen[:3]] == pytest.approx([0.4, 0.4, None])
    assert seen[3]["a1"] == pytest.approx(-0.2)
    assert result.counts["teleports"] == 1 and result.counts["retired"] == 1
    assert result.relevance[4] == pytest.approx(0.9)  # the jump: page 1 again
    assert seen[4]["a1"] == pytest.approx(0.1)
    assert result.population.tolist() == [2, 2, 1, 1, 1]


def test_without_the_buffer_the_last_agent_in_debt_dies():
    graph = SiteGraph.from_links([0.0, 0.0, 0.0], [False] * 3, [[(1, 1.0)], [(2, 1.0)], [(1, 1.0)]])
    with_buffer = walk(graph, alg1(C=0.6, rho=1.0), [0], pages=20, agents=1, buffer=True)
    assert with_buffer.died_at is None and with_buffer.fetched == 20  # the strict policy's floor
    assert with_buffer.counts["teleports_nowhere"] == 19  # no remnant to teleport to
    without = walk(graph, alg1(C=0.6, rho=1.0), [0], pages=20, agents=1, buffer=False)
    assert without.died_at == 2
    # bounds="paper": a population of 1 is not below LB = 1, the policy itself decides the death
    paper = EnergyPolicy(model="original", C=0.6, rho=1.0, lower_bound=1, upper_bound=HUGE,
                         bounds="paper")
    assert walk(graph, paper, [0], pages=20, agents=1, buffer=True).died_at == 2


def random_graph(n=300, seed=0) -> SiteGraph:
    rng = np.random.default_rng(seed)
    relevance = rng.random(n) ** 3
    links = [[(int(t), float(relevance[t])) for t in rng.choice(n, size=6, replace=False) if t != i]
             for i in range(n)]
    return SiteGraph.from_links(relevance, relevance > 0.5, links)


def test_the_buffer_keeps_the_population_within_its_bounds():
    graph = random_graph()

    def policy(lb, ub, bounds="strict"):
        return EnergyPolicy(model="sigmoid", C=0.2, G=30.0, lower_bound=lb, upper_bound=ub,
                            split="shared", bounds=bounds)

    bounded = walk(graph, policy(5, 30), [0, 1], pages=3000, agents=20, buffer=True,
                   remnant_walk=0.05, seed=3)
    assert bounded.fetched == 3000
    assert bounded.population.max() == 30  # it reaches UB, never more
    assert bounded.population.min() >= 5
    # Strict bounds cap clones at UB − population, so the population never passes UB and no
    # page is ever left with a remnant: nothing to walk or teleport to.
    assert bounded.counts["above_ub"] == bounded.counts["charged"] == 0
    assert bounded.counts["remnant_walks"] == bounded.counts["deferred"] == 0
    # Alg. 2's own bounds: the population passes UB, visits above it pay |C| and leave remnants
    # that later visitors (below UB, or walking toward them) take
    paper = walk(graph, policy(5, 30, "paper"), [0, 1], pages=3000, agents=20, buffer=True,
                 remnant_walk=0.05, seed=3)
    counts = paper.counts
    assert paper.population.max() > 30 and counts["above_ub"] > 0
    assert counts["charged"] > counts["deferred"] > 0 and counts["remnants_taken"] > 0
    assert counts["remnant_walks"] > 0
    free = walk(graph, policy(1, HUGE, "paper"), [0, 1], pages=3000, agents=20, buffer=False,
                seed=3)
    assert free.population.max() > 2 * paper.population.max()  # without the buffer it runs away


def test_the_agent_cap_stops_a_runaway_population():
    graph = random_graph()
    result = walk(graph, alg1(C=0.1, rho=20.0), [0], pages=5000, agents=20, buffer=False,
                  max_agents=100)
    assert result.capped_at is not None and result.fetched == result.capped_at < 5000
    assert result.population[-1] > 100


def test_a_walk_is_deterministic_for_a_seed():
    graph = random_graph()
    runs = [walk(graph, alg1(C=0.2, rho=2.0), [0], pages=500, agents=20, buffer=False, seed=s)
            for s in (4, 4, 5)]
    assert np.array_equal(runs[0].relevance, runs[1].relevance)
    assert np.array_equal(runs[0].population, runs[1].population)
    assert not np.array_equal(runs[0].relevance, runs[2].relevance)


# -- link choice -------------------------------------------------------------------------------

def test_link_choice_follows_context_relevance():
    assert link_probabilities(np.array([1.0, 0.0]), 3.0) == pytest.approx(
        [np.e ** 3 / (np.e ** 3 + 1), 1 / (np.e ** 3 + 1)])
    # one step of 400 agents from page 0: a relevant context (page 1) or not (page 2)
    graph = SiteGraph.from_links([0.0, 0.0, 0.0], [False] * 3,
                                 [[(1, 1.0), (2, 0.0)], [(0, 0.0)], [(0, 0.0)]])
    for beta, low, high in ((3.0, 0.90, 1.0), (0.0, 0.42, 0.58)):
        firsts = _first_step_targets(graph, beta, seed=11)
        assert len(firsts) == 400
        share = firsts.count(1) / len(firsts)
        assert low <= share <= high, (beta, share)


def _first_step_targets(graph, beta, seed):
    targets = []
    policy = alg1(C=0.01, rho=1.0)
    # the page number is what the policy is told: record it
    original = policy.visit

    def visit(forager, page, relevance):
        targets.append(page)
        return original(forager, page, relevance)

    policy.visit = visit
    walk(graph, policy, [0], pages=400, agents=400, beta=beta, buffer=False, seed=seed)
    return targets


# -- the graph of a replay site ----------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return synth_corpus(tmp_path_factory.mktemp("corpus") / "synth.jsonl.gz", days=1, rate=120,
                        sections=6, seed=3)


@pytest.fixture(scope="module")
def site(corpus):
    loaded = load_corpus(corpus)
    index = SiteIndex(loaded)
    names = [f.name for f in index.sections]
    section = next(n for n in names if "-" not in n)  # the largest plain section
    topic = Topic(section_words(section, is_synthetic(names)),
                  corpus=[a.text for a in loaded.articles])
    documents = topic_documents([a.truth() for a in index.articles], section)
    graph = build_site_graph(PageBuilder(index), topic, now=index.ts[-1], documents=documents,
                             max_pages=400)
    front = next(f.path for f in index.sections if f.name == section)
    return graph, section, front, documents


def test_the_site_graph_scores_the_topics_pages_above_the_others(site):
    graph, section, front, documents = site
    assert graph.index["/"] == 0 and front in graph.index
    assert set(documents) <= set(graph.paths)  # a small site: every article is reached
    assert graph.topical.sum() == len(documents) > 3
    r, topical = graph.relevance, graph.topical
    assert r[topical].mean() > 5 * r[~topical].mean()
    others = np.array([not t and p != front for p, t in zip(graph.paths, topical)])
    assert r[graph.index[front]] > np.median(r[others])
    assert graph.skipped.get("robots", 0) > 0  # the search pages robots.txt disallows
    assert graph.targets.min() >= 0 and graph.targets.max() < graph.n
    # links to the topic's documents carry more relevant contexts than the others
    to_topic = topical[graph.targets]
    assert graph.context[to_topic].mean() > 2 * graph.context[~to_topic].mean()


def test_the_page_cap_drops_the_links_beyond_it(site, corpus):
    loaded = load_corpus(corpus)
    index = SiteIndex(loaded)
    graph = build_site_graph(PageBuilder(index), Topic("sports"), now=index.ts[-1], max_pages=20)
    assert graph.n == 20 and graph.skipped["beyond_cap"] > 0
    assert not graph.topical.any()  # no documents given


def test_energywalk_imports_no_scrapy_or_twisted():
    code = ("import sys, newsforagers.sim.energywalk; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- the figures script, end to end ------------------------------------------------------------

def test_mm_figures_end_to_end(corpus, site, tmp_path):
    _, section, _, _ = site
    module = benchmark_script("mm_figures")
    out = tmp_path / "mm"
    assert module.main(["--corpus", str(corpus), "--topic", section, "--runs", "2",
                        "--pages", "300", "--long-pages", "400", "--agents", "20",
                        "--max-pages", "300", "--max-agents", "400", "--ub", "30", "--lb", "5",
                        "--out", str(out)]) == 0
    for name in ("fig2", "fig3", "fig4", "fig5", "fig6", "fig2-printed", "fig6-printed",
                 "fig4-fetches", "fig6-fetches-printed"):
        assert (out / f"{name}.png").stat().st_size > 1000, name
    results = json.loads((out / "results.json").read_text())
    assert set(results["figures"]) == {"shared", "printed"}
    assert len(results["rhos"]) == 3 and results["rhos"][0] < results["rhos"][1] < results["rhos"][2]
    for split in ("shared", "printed"):
        figs = results["figures"][split]
        assert [len(figs[k]) for k in ("fig2", "fig3", "fig4", "fig5")] == [3, 3, 2, 3]
        assert {s["split"] for k in ("fig2", "fig3", "fig5") for s in figs[k]} == {split}
        paper, strict, free = figs["fig5"]
        assert (paper["bounds"], strict["bounds"], free["buffer"]) == ("paper", "strict", False)
        assert paper["upper_bound"] == strict["upper_bound"] == 30
        for run in strict["runs"]:
            assert run["max_population"] <= 30 and run["fetched"] == 400
            assert run["time_above"] == 0.0 and run["charged"] == 0
        for run in paper["runs"]:
            assert 0.0 <= run["precision"] <= 1.0 and 0.0 <= run["time_above"] <= 1.0
            assert 0.0 <= run["distinct_precision"] <= 1.0 and run["collected_relevance"] >= 0.0
            assert {"charged", "deferred", "remnants_taken", "teleports"} <= set(run)
            collected = run["series"]["collected"]
            assert collected == sorted(collected) and collected[-1] <= results["graph"]["pages"]
            reached = [v for v in run["series"]["collected_precision"] if v is not None]
            assert reached and reached[-1] == pytest.approx(run["distinct_precision"], abs=0.05)
            assert run["at_collected"]["50"] is None or len(run["at_collected"]["50"]) == 2
    text = (out / "results.md").read_text()
    assert "Fig. 2" in text and "what the buffer did" in text and "at equal pages collected" in text
