"""``newsforagers sim``: the learning core without HTTP, in simulated time.

A colony of paper-faithful foragers on a small in-memory news site (:mod:`newsforagers.sim`);
it prints every novel document as it is found, the colony's splits and retirements, and a
summary. Thousands of times faster than a crawl of the replay site.
"""

from __future__ import annotations

HELP = "simulate a forager colony on an in-memory news site (no HTTP) and print what it finds"


def add_arguments(parser) -> None:
    parser.add_argument("--hours", type=float, default=12.0, help="simulated hours (default 12)")
    parser.add_argument("--rate", type=float, default=30.0, help="articles per simulated hour (default 30)")
    parser.add_argument("--sections", type=int, default=16, help="site sections (default 16)")
    parser.add_argument("--budget", type=float, default=5.0,
                        help="requests per simulated second for the whole colony (default 5)")
    parser.add_argument("--mode", choices=("wlrl", "wl", "rl"), default="wlrl")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true", help="print only the summary")


def _clock(seconds: float) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"


def run(args) -> int:
    import numpy as np

    from newsforagers.sim.colony import run_colony
    from newsforagers.sim.world import NewsWorld

    if args.hours <= 0 or args.rate <= 0 or args.sections < 1 or args.budget <= 0:
        print("sim: --hours, --rate, --budget must be > 0 and --sections >= 1")
        return 2
    duration = args.hours * 3600.0
    rng = np.random.default_rng(args.seed)
    world = NewsWorld(duration, n_sections=args.sections, rate_per_hour=args.rate, rng=rng)
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
