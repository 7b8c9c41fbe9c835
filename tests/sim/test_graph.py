import gzip
import math
from pathlib import Path

import numpy as np
import pytest

from newsforagers.cli import main
from newsforagers.sim.colony import run_colony
from newsforagers.sim.graph import (
    Graph,
    clustering_coefficient,
    load_edge_list,
    mean_distance,
    parse_edge_bytes,
    rewire,
    scale_free_graph,
    tail_exponent,
)
from newsforagers.sim.graphworld import GraphNewsWorld, NewsEvents, seed_nodes
from newsforagers.sim.table2 import DAY, HOUR, findings, freshness_and_age, markdown, run_one, summarise

CNR = Path(__file__).resolve().parents[3] / "shared" / "data" / "cnr-2000.edges.tsv.gz"


def ring_lattice(n: int, reach: int) -> Graph:
    src = np.repeat(np.arange(n), reach)
    dst = (src + np.tile(np.arange(1, reach + 1), n)) % n
    return Graph.from_edges(src, dst, n)


@pytest.fixture(scope="module")
def small_graph():
    return scale_free_graph(3000, np.random.default_rng(11))


def write_gz(path: Path, text: str) -> Path:
    with gzip.open(path, "wt", encoding="ascii") as handle:
        handle.write(text)
    return path


# -- loading ------------------------------------------------------------------------------

def test_loader_skips_and_numbers_bad_lines(tmp_path):
    path = write_gz(tmp_path / "g.tsv.gz", "\n".join([
        "# src\tdst",        # 1 comment
        "0\t1",              # 2
        "1\t2",              # 3
        "",                  # 4 blank
        "2 0",               # 5 space-separated is fine
        "3\t-1",             # 6 bad: sign
        "3\tx",              # 7 bad: letter
        "4",                 # 8 bad: one field
        "4\t5\t6",           # 9 bad: three fields
        "99999999999999999999\t1",  # 10 bad: too long
        "2\t2",              # 11 self-loop, dropped
        "0\t1",              # 12 repeated link, dropped
        "4\t3\r",            # 13 CRLF is fine
    ]))
    graph, report = load_edge_list(path)
    assert (report.lines, report.comments, report.blank, report.bad) == (13, 1, 1, 5)
    assert report.bad_lines == [6, 7, 8, 9, 10]
    assert (report.self_loops, report.duplicates) == (1, 1)
    assert graph.n == 5 and graph.m == 4
    assert sorted(zip(*[x.tolist() for x in graph.edges()])) == [(0, 1), (1, 2), (2, 0), (4, 3)]
    assert graph.successors(4).tolist() == [3] and graph.successors(3).tolist() == []


def test_loader_reads_plain_text_and_fails_clearly(tmp_path):
    plain = tmp_path / "g.tsv"
    plain.write_text("0\t1\n1\t0")  # no final newline
    graph, report = load_edge_list(plain)
    assert graph.m == 2 and report.bad == 0
    bad = tmp_path / "bad.tsv"
    bad.write_text("a b\nc\n")
    with pytest.raises(ValueError, match="no edge found"):
        load_edge_list(bad)
    with pytest.raises(FileNotFoundError):
        load_edge_list(tmp_path / "missing.tsv.gz")


def test_parser_agrees_with_a_plain_python_parse():
    rng = np.random.default_rng(0)
    src, dst = rng.integers(0, 10**6, 5000), rng.integers(0, 10**6, 5000)
    text = "".join(f"{s}\t{d}\n" for s, d in zip(src, dst)).encode()
    s, d, info = parse_edge_bytes(text)
    assert np.array_equal(s, src) and np.array_equal(d, dst) and info["bad"] == 0


# -- rewiring, generator, structure --------------------------------------------------------

def test_rewiring_keeps_every_degree_and_changes_links(small_graph):
    rewired, report = rewire(small_graph, np.random.default_rng(1))
    assert np.array_equal(rewired.out_degree(), small_graph.out_degree())
    assert np.array_equal(rewired.in_degree(), small_graph.in_degree())
    assert rewired.m == small_graph.m  # no self-loop, no repeated link was made
    src, dst = rewired.edges()
    assert not np.any(src == dst)
    before = set(zip(*[x.tolist() for x in small_graph.edges()]))
    after = set(zip(src.tolist(), dst.tolist()))
    assert len(before - after) / len(before) == pytest.approx(report.changed)
    assert report.changed > 0.5 and report.swaps == 2 * small_graph.m


def test_rewiring_is_deterministic_and_removes_clustering():
    lattice = ring_lattice(2000, 4)
    a, _ = rewire(lattice, np.random.default_rng(5))
    b, _ = rewire(lattice, np.random.default_rng(5))
    c, _ = rewire(lattice, np.random.default_rng(6))
    assert np.array_equal(a.indices, b.indices) and not np.array_equal(a.indices, c.indices)
    rng = np.random.default_rng(0)
    assert clustering_coefficient(lattice, rng, 300) > 0.4
    assert clustering_coefficient(a, rng, 300) < 0.05
    assert mean_distance(a, rng, 3) < mean_distance(lattice, rng, 3) / 5


def test_scale_free_generator_has_power_law_tails():
    graph = scale_free_graph(20000, np.random.default_rng(2))
    indeg, outdeg = graph.in_degree(), graph.out_degree()
    assert graph.n == 20000 and 2 < graph.m / graph.n < 7
    # theory (Bollobás et al.): 2.08 and 2.14; an Erdős–Rényi graph has no such tail
    assert 1.8 < tail_exponent(indeg, 10) < 2.5
    assert 1.8 < tail_exponent(outdeg, 10) < 2.6
    assert indeg.max() > 50 * indeg.mean()
    again = scale_free_graph(20000, np.random.default_rng(2))
    assert np.array_equal(again.indices, graph.indices)


# -- the news world ------------------------------------------------------------------------

def test_news_events_current_document_and_next_change():
    events = NewsEvents(np.array([10.0, 20.0, 30.0, 40.0]), np.array([1, 2, 1, 1]), n=3)
    assert events.current(1, 5.0) is None
    assert events.current(1, 10.0) == 0 and events.current(1, 35.0) == 2
    assert events.current(0, 100.0) is None
    assert events.next_change.tolist() == [30.0, math.inf, 40.0, math.inf]


def test_world_news_lives_on_the_site_and_rewiring_keeps_pages(small_graph):
    world = GraphNewsWorld.build(small_graph, 2 * DAY, np.random.default_rng(3),
                                 rate_per_hour=20, site_size=1000)
    assert world.seeds == seed_nodes(small_graph) and len(world.seeds) == 10
    site = set(small_graph.bfs_order(world.seeds[0], 1000).tolist())
    assert set(world.events.node.tolist()) <= site
    assert len(world.events) == world.published_between(0, 2 * DAY) > 0
    states = world.states([str(v) for v in range(small_graph.n)])
    assert states.shape == (small_graph.n, 50) and np.all(np.abs(states) <= 1)
    # a page leans on its topic
    assert np.mean(np.argmax(states, axis=1) == world.topic) > 0.5  # chance: 1/50
    rewired, _ = rewire(small_graph, np.random.default_rng(4))
    control = world.with_graph(rewired)
    assert control.events is world.events and control.seeds == world.seeds
    assert np.array_equal(control.states(["0", "1"]), world.states(["0", "1"]))
    assert control.links("0", 0.0) != world.links("0", 0.0) or small_graph.out_degree()[0] == 0
    with pytest.raises(ValueError, match="nodes"):
        world.with_graph(scale_free_graph(100, np.random.default_rng(0)))


def test_colony_on_a_graph_finds_news(small_graph):
    duration = 2 * DAY
    world = GraphNewsWorld.build(small_graph, duration, np.random.default_rng(3),
                                 rate_per_hour=20, site_size=1000)
    metrics, result = run_one(world, "wl", 1, duration, "sf", download_seconds=0.5)
    assert metrics.relevant > 0.3 * metrics.published
    keys = [f.document for f in result.found]
    assert len(set(keys)) == len(keys)  # each document rewarded once
    for item in result.found:
        assert world.events.node[item.document] == int(item.url)
        assert 0 <= item.found_at - item.published <= DAY
    assert metrics.downloaded == result.downloads and 0 < metrics.found_urls <= small_graph.n
    assert 0 <= metrics.freshness <= 1 and metrics.age_hours >= 0


def test_graph_simulation_is_deterministic_for_a_seed(small_graph):
    def run(world_seed, seed, mode):
        world = GraphNewsWorld.build(small_graph, 6 * HOUR, np.random.default_rng(world_seed),
                                     rate_per_hour=40, site_size=1000)
        result = run_colony(world, 6 * HOUR, np.random.default_rng(seed), mode=mode,
                            budget=1.0, slice_seconds=180)
        return [(f.url, f.forager, f.found_at, f.document) for f in result.found], result.downloads

    assert run(0, 1, "rl") == run(0, 1, "rl")
    assert run(0, 1, "wl") == run(0, 1, "wl")
    assert run(0, 1, "rl") != run(0, 2, "rl")
    assert run(0, 1, "wl") != run(1, 1, "wl")


def test_freshness_and_age_by_hand():
    class World:
        events = NewsEvents(np.array([0.0, 1 * HOUR, 2 * HOUR]), np.array([0, 1, 0]), n=2)

    class Found:
        def __init__(self, document, found_at):
            self.document, self.found_at = document, found_at

    class Result:
        # window [0, 3h): event 0 (node 0, changed at 2h: obsolete for 1 h at 3h) and event 1
        # (node 1, never changes); window [3h, 6h): event 2 (current)
        found = [Found(0, 0.5 * HOUR), Found(1, 1.5 * HOUR), Found(2, 4 * HOUR)]

    freshness, age = freshness_and_age(World(), Result(), 10 * HOUR)
    assert freshness == pytest.approx((0.5 + 1.0) / 2)
    assert age == pytest.approx((0.5 + 0.0) / 2)


def test_table_and_findings_from_runs(small_graph):
    duration = 6 * HOUR
    world = GraphNewsWorld.build(small_graph, duration, np.random.default_rng(3),
                                 rate_per_hour=40, site_size=1000)
    runs = [run_one(world, mode, seed, duration, "sf", download_seconds=1.0)[0]
            for mode in ("wl", "rl") for seed in (1, 2)]
    table = summarise(runs)
    mean, std, n = table[("sf", "wl")]["relevant"]
    values = [r.relevant for r in runs if r.mode == "wl"]
    assert n == 2 and mean == pytest.approx(np.mean(values)) and std == pytest.approx(np.std(values))
    text = markdown(table, "sf", ("wl", "rl"))
    assert "| sent efficiency |" in text and "0.490 ± 0.031" in text  # the paper's WL value
    claims = dict((c, verdict) for c, verdict, _ in findings(table, "sf", None))
    (wl, wl_std, _), (rl, rl_std, _) = table[("sf", "wl")]["sent_efficiency"], table[("sf", "rl")]["sent_efficiency"]
    expected = ("within noise" if abs(wl - rl) <= max(wl_std, rl_std)
                else "holds" if wl > rl else "does not hold")
    assert claims["WL sent efficiency > RL"] == expected


# -- the command line ----------------------------------------------------------------------

def test_sim_command_on_a_graph_file(tmp_path, capsys):
    graph = scale_free_graph(2000, np.random.default_rng(0))
    src, dst = graph.edges()
    path = write_gz(tmp_path / "sf.tsv.gz", "# src\tdst\n" + "".join(
        f"{s}\t{d}\n" for s, d in zip(src.tolist(), dst.tolist())) + "oops\n")
    assert main(["sim", "--graph", str(path), "--days", "0.5", "--mode", "rl", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "1 bad lines skipped" in out and "sent efficiency" in out and "relevant" in out
    assert main(["sim", "--graph", str(path), "--rewire", "--days", "0.2", "--quiet"]) == 0
    assert "every in- and out-degree kept" in capsys.readouterr().out
    assert main(["sim", "--graph", str(tmp_path / "none.tsv"), "--days", "0.1"]) == 2
    assert main(["sim", "--graph", "scale-free", "--nodes", "1", "--days", "0.1"]) == 2


# -- the real graph ------------------------------------------------------------------------

def test_real_cnr_2000_graph_loads_and_runs():
    if not CNR.is_file():
        pytest.skip("../shared/data/cnr-2000.edges.tsv.gz is not available")
    graph, report = load_edge_list(CNR)
    assert graph.n == 325_557 and report.bad == 0 and report.comments == 1
    assert report.lines == 3_216_153 and graph.m + report.self_loops == 3_216_152
    indeg = graph.in_degree()
    assert 1.7 < tail_exponent(indeg, 20) < 2.5
    world = GraphNewsWorld.build(graph, 0.5 * DAY, np.random.default_rng(0))
    metrics, _ = run_one(world, "rl", 1, 0.5 * DAY, "cnr-2000")
    assert metrics.downloaded > 15_000 and metrics.relevant > 0
