"""The selection paper's Table 2 and its rewired control, with the fast graph simulator.

    .venv/bin/python benchmarks/bench_sim_table2.py --out /tmp/table2          # about 2-3 min
    .venv/bin/python benchmarks/bench_sim_table2.py --graph PATH --runs 3 --days 18 \\
        --modes wl,rl,wlrl --scale-free-nodes 50000 --out DIR

For each graph — the real one (``--graph``, default ``../shared/data/cnr-2000.edges.tsv.gz``),
its degree-preserving rewired control, and (``--scale-free-nodes`` > 0) a synthetic scale-free
graph and its rewired control — one news world (:class:`GraphNewsWorld`, seed ``--world-seed``;
the rewired control keeps its pages, states and news) and, per mode, ``--runs`` colonies
(seeds 1..runs) growing from 2 to 16 foragers over ``--days`` simulated days. Writes
``table2.md`` and ``table2.json`` into ``--out`` and prints the markdown and the wall time.
Single process, single core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from newsforagers.learning.path import ForagerPath
from newsforagers.sim.graph import clustering_coefficient, load_edge_list, mean_distance, rewire, scale_free_graph
from newsforagers.sim.graphworld import GraphNewsWorld
from newsforagers.sim.table2 import DAY, findings, markdown, run_one, summarise, to_json

DEFAULT_GRAPH = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "cnr-2000.edges.tsv.gz"


def describe(name, graph, rng) -> dict:
    return {"graph": name, "nodes": graph.n, "links": graph.m,
            "clustering": clustering_coefficient(graph, rng, 1000),
            "mean_distance": mean_distance(graph, rng, 5)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graph", default=str(DEFAULT_GRAPH))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--days", type=float, default=18.0)
    parser.add_argument("--rate", type=float, default=10.0, help="news per simulated hour")
    parser.add_argument("--modes", default="wl,rl,wlrl")
    parser.add_argument("--scale-free-nodes", type=int, default=50_000, help="0: skip")
    parser.add_argument("--world-seed", type=int, default=0)
    parser.add_argument("--out", default="table2-out")
    parser.add_argument("--reprobe-frontier", action="store_true",
                        help="probe a step page's links already on the frontier again, as the "
                             "simulator before issue 16 did (for comparison only)")
    args = parser.parse_args(argv)
    if args.reprobe_frontier:
        # the old simulator's rule: every link not visited in the path is downloaded, also one
        # whose state the frontier already holds (the crawler's Alg. 12 skips those)
        ForagerPath.on_frontier = lambda self, link: False
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    duration = args.days * DAY
    pairs = []  # (label, graph) of the "real" graphs
    if Path(args.graph).is_file():
        graph, report = load_edge_list(args.graph)
        print(f"loaded {args.graph}: n={graph.n:,} m={graph.m:,} in {report.seconds:.1f} s "
              f"({report.bad} bad lines, {report.self_loops} self-loops dropped)", flush=True)
        pairs.append((Path(args.graph).name.split(".")[0], graph))
    else:
        print(f"{args.graph} is not available: skipping the real graph", flush=True)
    if args.scale_free_nodes > 0:
        pairs.append(("scale-free", scale_free_graph(args.scale_free_nodes,
                                                       np.random.default_rng(args.world_seed))))
    if not pairs:
        print("nothing to run")
        return 2
    runs, sections, structure, timings = [], [], [], {}
    for label, graph in pairs:
        t0 = time.perf_counter()
        world = GraphNewsWorld.build(graph, duration, np.random.default_rng(args.world_seed),
                                     rate_per_hour=args.rate)
        rewired, rep = rewire(graph, np.random.default_rng(args.world_seed + 1))
        timings[f"{label}: world + rewiring"] = time.perf_counter() - t0
        timings[f"{label}: rewiring alone"] = rep.seconds
        print(f"{label}: {len(world.events):,} news; rewired with {rep.swaps:,} swaps "
              f"({rep.changed:.1%} of links changed) in {rep.seconds:.1f} s", flush=True)
        rng = np.random.default_rng(7)
        structure += [describe(label, graph, rng), describe(f"{label} rewired", rewired, rng)]
        for name, w in ((label, world), (f"{label} rewired", world.with_graph(rewired))):
            for mode in modes:
                for seed in range(1, args.runs + 1):
                    metrics, _ = run_one(w, mode, seed, duration, name)
                    runs.append(metrics)
                    print(f"  {name:<22} {mode:<4} seed {seed}: relevant {metrics.relevant:5d} "
                          f"sent eff {metrics.sent_efficiency:.3f} rel found URL "
                          f"{metrics.relative_found_urls:.4f} ({metrics.wall_seconds:.1f} s)",
                          flush=True)
    table = summarise(runs)
    wall = time.perf_counter() - t_start
    for label, _ in pairs:
        for name in (label, f"{label} rewired"):
            sections.append(f"### {name}\n\n{markdown(table, name, modes)}\n")
        checks = findings(table, label, f"{label} rewired")
        lines = [f"- {claim}: **{verdict}** ({evidence})" for claim, verdict, evidence in checks]
        sections.append(f"### {label}: the paper's findings\n\n" + "\n".join(lines) + "\n")
    struct = ["| graph | nodes | links | clustering (sampled) | mean distance (sampled) |",
              "|---|---|---|---|---|"]
    struct += [f"| {s['graph']} | {s['nodes']:,} | {s['links']:,} | {s['clustering']:.3f} | "
               f"{s['mean_distance']:.2f} |" for s in structure]
    text = (f"Table 2 reproduction: {args.runs} runs per mode, {args.days:g} simulated days, "
            f"{args.rate:g} news/hour, 2 → 16 foragers. Wall time {wall:.0f} s.\n\n"
            + "\n".join(struct) + "\n\n" + "\n".join(sections))
    (out / "table2.md").write_text(text, encoding="utf-8")
    data = to_json(runs, table)
    data.update({"structure": structure, "wall_seconds": wall, "timings": timings,
                 "args": vars(args)})
    (out / "table2.json").write_text(json.dumps(data, indent=1, default=float), encoding="utf-8")
    print()
    print(text)
    print(f"wall time {wall:.1f} s; written {out / 'table2.md'} and {out / 'table2.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
