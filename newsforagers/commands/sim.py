"""``newsforagers sim``: the learning core without HTTP, in simulated time.

Without ``--graph``: a colony of paper-faithful foragers on a small in-memory news site
(:mod:`newsforagers.sim.world`); it prints every novel document as it is found, the colony's
splits and retirements, and a summary. Thousands of times faster than a crawl of the replay
site.

With ``--graph PATH`` (a ``src<TAB>dst`` edge list, e.g. ``../shared/data/cnr-2000.edges.tsv.gz``)
or ``--graph scale-free``: the selection paper's simulation on a web graph
(:mod:`newsforagers.sim.graphworld`), optionally on its degree-preserving rewired control
(``--rewire``), printing the Table 1 measures of the run. ``benchmarks/bench_sim_table2.py``
runs the whole Table 2.
"""

from __future__ import annotations

import sys

HELP = "simulate a forager colony on an in-memory news site or a web graph (no HTTP)"


def add_arguments(parser) -> None:
    parser.add_argument("--hours", type=float, default=12.0, help="simulated hours (default 12)")
    parser.add_argument("--rate", type=float, default=None,
                        help="news per simulated hour (default 30 on the news site, 10 on a graph)")
    parser.add_argument("--sections", type=int, default=16, help="site sections (default 16)")
    parser.add_argument("--budget", type=float, default=5.0,
                        help="requests per simulated second for the whole colony (default 5)")
    parser.add_argument("--mode", choices=("wlrl", "wl", "rl"), default="wlrl",
                        help="the foragers' learning (the papers' modes): wlrl, weblog update and TD "
                        "(default); wl, weblog update with fixed random weights; rl, TD with a "
                        "fixed weblog")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the news site and the foragers' choices; with --graph, of "
                        "the foragers' choices alone (--world-seed seeds the graph; default 1)")
    parser.add_argument("--foragers", type=int, default=16,
                        help="MAX_FORAGER: the population grows from 2 up to this (default 16)")
    parser.add_argument("--quiet", action="store_true",
                        help="print what is simulated and the summary alone: no line per document "
                        "found or per split and retirement")
    graph = parser.add_argument_group("graph simulation (selection paper, Sect. 4.2)")
    graph.add_argument("--graph", metavar="PATH|scale-free",
                       help="simulate on this edge list, or on a synthetic scale-free graph")
    graph.add_argument("--rewire", action="store_true",
                       help="use the degree-preserving rewired control of the graph")
    graph.add_argument("--days", type=float, default=18.0,
                       help="simulated days on a graph (default 18, as the paper)")
    graph.add_argument("--nodes", type=int, default=50_000,
                       help="nodes of the synthetic scale-free graph (default 50000)")
    graph.add_argument("--world-seed", type=int, default=0,
                       help="seed of the graph's states, news and rewiring (default 0)")


def _error(message: str) -> int:
    print(f"newsforagers sim: {message}", file=sys.stderr)
    return 2


def _clock(seconds: float) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"


def run(args) -> int:
    if args.foragers < 2:
        return _error("--foragers must be >= 2 (the population starts with MIN_FORAGER = 2)")
    if args.graph:
        return _run_graph(args)
    import numpy as np

    from newsforagers.learning import ScorePolicy
    from newsforagers.sim.colony import run_colony
    from newsforagers.sim.world import NewsWorld

    rate = 30.0 if args.rate is None else args.rate
    if args.hours <= 0 or rate <= 0 or args.sections < 1 or args.budget <= 0:
        return _error("--hours, --rate, --budget must be > 0 and --sections >= 1")
    duration = args.hours * 3600.0
    rng = np.random.default_rng(args.seed)
    world = NewsWorld(duration, n_sections=args.sections, rate_per_hour=rate, rng=rng)
    print(f"synthetic news site: {len(world.articles)} articles in {args.sections} sections over "
          f"{args.hours:g} simulated hours; colony budget {args.budget:g} requests/s; mode {args.mode}")

    def on_found(item):
        if not args.quiet:
            lag = (item.found_at - item.published) / 60.0
            print(f"[{_clock(item.found_at)}] {item.forager:>4} found {item.url} "
                  f"(published {_clock(item.published)}, lag {lag:.1f} min)")

    def on_event(t, kind, name, parent):
        if not args.quiet and kind in ("split", "retire"):
            detail = f" from {parent}" if parent else ""
            print(f"[{_clock(t)}] {kind}: {name}{detail}")

    result = run_colony(world, duration, rng, mode=args.mode, budget=args.budget,
                        policy=ScorePolicy(max_foragers=args.foragers),
                        on_found=on_found, on_event=on_event)
    published = world.published_between(0.0, duration)
    found_urls = {f.url for f in result.found}
    lags = sorted((f.found_at - f.published) / 60.0 for f in result.found)
    alive = result.population[-1][1] if result.population else 0
    splits = sum(1 for e in result.events if e[1] == "split")
    retires = sum(1 for e in result.events if e[1] == "retire")
    print()
    print("summary")
    print(f"  novel documents found : {len(found_urls)} of {len(published)} published "
          f"(recall {len(found_urls) / max(len(published), 1):.2f})")
    if lags:
        print(f"  discovery lag         : median {lags[len(lags) // 2]:.1f} min, "
              f"p90 {lags[int(0.9 * (len(lags) - 1))]:.1f} min")
    print(f"  downloads / sends     : {result.downloads} / {result.sends}")
    print(f"  download efficiency   : {len(found_urls) / max(result.downloads, 1):.4f} (papers: 0.0046)")
    print(f"  sent efficiency       : {len(found_urls) / max(result.sends, 1):.3f} (papers: WL 0.49, RL 0.248)")
    print(f"  foragers              : {alive} alive, {splits} splits, {retires} retirements")
    return 0


def load_graph(spec: str, nodes: int, seed: int):
    """``(graph, description)`` for ``--graph PATH|scale-free``."""
    import numpy as np

    from newsforagers.sim.graph import load_edge_list, scale_free_graph

    if spec == "scale-free":
        graph = scale_free_graph(nodes, np.random.default_rng(seed))
        return graph, f"synthetic scale-free graph (n={graph.n:,}, m={graph.m:,})"
    graph, report = load_edge_list(spec)
    detail = f", {report.bad} bad lines skipped (first: {report.bad_lines})" if report.bad else ""
    return graph, (f"{spec} (n={graph.n:,}, m={graph.m:,}; loaded in {report.seconds:.1f} s; "
                   f"{report.self_loops} self-loops and {report.duplicates} repeated links dropped{detail})")


def _run_graph(args) -> int:
    import numpy as np

    from newsforagers.sim.graph import rewire
    from newsforagers.sim.graphworld import GraphNewsWorld
    from newsforagers.sim.table2 import COLUMNS, DAY, EXTRA, LABELS, fmt, run_one

    rate = 10.0 if args.rate is None else args.rate
    if args.days <= 0 or rate <= 0 or args.nodes < 2:
        return _error("--days and --rate must be > 0 and --nodes >= 2")
    try:
        graph, description = load_graph(args.graph, args.nodes, args.world_seed)
    except (OSError, ValueError) as exc:
        return _error(f"cannot read the graph {args.graph!r}: {exc}")
    print(f"graph: {description}")
    duration = args.days * DAY
    world = GraphNewsWorld.build(graph, duration, np.random.default_rng(args.world_seed),
                                 rate_per_hour=rate)
    name = "real"
    if args.rewire:
        rewired, report = rewire(graph, np.random.default_rng(args.world_seed + 1))
        world = world.with_graph(rewired)
        name = "rewired"
        print(f"rewired: {report.swaps:,} double-edge swaps in {report.seconds:.1f} s, "
              f"{report.changed:.1%} of the links changed, every in- and out-degree kept")
    print(f"news: {len(world.events):,} documents over {args.days:g} simulated days on the site; "
          f"seeds {world.seed_urls()}; mode {args.mode}; 2 → {args.foragers} foragers")

    def on_event(t, kind, forager, parent):
        if not args.quiet and kind in ("split", "retire"):
            detail = f" from {parent}" if parent else ""
            print(f"[day {t / DAY:5.2f}] {kind}: {forager}{detail}")

    metrics, _ = run_one(world, args.mode, args.seed, duration, name,
                         max_foragers=args.foragers, on_event=on_event)
    print()
    print(f"summary ({name} graph, {args.mode}, seed {args.seed}; "
          f"{metrics.wall_seconds:.1f} s wall for {args.days:g} simulated days)")
    for column in COLUMNS + EXTRA:
        print(f"  {LABELS[column]:<28}: {fmt(getattr(metrics, column), column)}")
    return 0
