"""``newsforagers bench --corpus PATH --out DIR [...]``: the discovery benchmark.

For each repeat and each crawler (``--crawlers``: the ``wlrl``, ``wl``, ``rl``, ``scheduled``
colonies and the ``bfs``, ``hubs``, ``adaptive``, ``feeds``, ``random``, ``oracle`` baselines,
and with ``--topic SECTION`` — a topical benchmark, judged on one section's documents —
``best_first``) a fresh replay of the same
simulated window is started and the crawler runs against it under the same request budget
(with ``--sites N``, a replay of N sites on their own loopback addresses, every crawler seeded
with every home page, the budget per host);
the measures of each run and their mean ± std per crawler go to ``DIR/results.json`` and
``DIR/results.md``, the plots to ``DIR/*.png`` (docs/bench.md). A progress line goes to
stderr. Exit status: 0 when every run succeeded, 1 when some failed (they are reported in the
results, the others still ran), 2 for bad arguments — among them, found before any crawl
starts, a ``--set`` FORAGERS_* setting a crawl would refuse and, unless ``--no-plots``, a
missing matplotlib (the ``[plots]`` extra).

This package is the part of the benchmark that runs things: the command (here),
:mod:`~newsforagers.commands.bench.runner` (a replay and a crawl process per run) and
:mod:`~newsforagers.commands.bench.progress` (the progress line). The plan, the judgement of a
run and the results are :mod:`newsforagers.evaluation.bench`'s.
"""

from __future__ import annotations

import argparse
import sys

from newsforagers.commands.arguments import at_least_one, positive, share

HELP = "benchmark the colonies against the baselines on a replay (recall, lag, efficiency...)"

CRAWLER_NAMES = ("wlrl", "wl", "rl", "scheduled", "bfs", "hubs", "adaptive", "feeds", "random",
                 "oracle", "best_first")
#: What runs without --crawlers: every crawler but ``feeds``, which needs a site with feeds, and
#: ``best_first``, which needs a topic (with ``--topic``: evaluation/bench/config.py's
#: ``TOPIC_CRAWLERS``, ``scheduled,bfs,best_first``).
DEFAULT_CRAWLERS = tuple(name for name in CRAWLER_NAMES if name not in ("feeds", "best_first"))
#: ``--topic-words``'s choices (evaluation/bench/config.py's ``TOPIC_WORDS``)
TOPIC_WORDS = ("name", "examples", "name+examples")
#: ``--split``'s choices (evaluation/bench/config.py's ``SPLITS``)
SPLITS = ("auto", "section", "hash")


def _crawlers(value: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in value.split(",") if part.strip())
    if not names:
        raise argparse.ArgumentTypeError("no crawler named")
    unknown = [name for name in names if name not in CRAWLER_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown crawler(s) {', '.join(map(repr, unknown))}; choose from {','.join(CRAWLER_NAMES)}")
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"{value!r} names a crawler twice")
    return names


def _iso(value: str) -> str:
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.isoformat()


def _numbers(value: str) -> tuple[float, ...]:
    try:
        numbers = tuple(float(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a comma-separated list of numbers") from None
    if not numbers:
        raise argparse.ArgumentTypeError("no number given")
    return numbers


def _sweep_values(value: str) -> tuple[str, tuple[float, ...]]:
    crawler, sep, numbers = value.partition("=")
    if not sep or not crawler.strip():
        raise argparse.ArgumentTypeError(f"{value!r} is not CRAWLER=V1,V2,...")
    return crawler.strip(), _numbers(numbers)


def _setting(value: str) -> tuple[str, str]:
    key, sep, setting = value.partition("=")
    if not sep or not key.strip() or not key.strip().replace("_", "").isalnum():
        raise argparse.ArgumentTypeError(f"{value!r} is not KEY=VALUE")
    return key.strip(), setting


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--merge", nargs="+", default=None, metavar="DIR",
                        help="run nothing: judge the runs of these benchmarks of one site again and "
                        "summarise, table and plot them together into --out")
    parser.add_argument("--corpus", metavar="PATH",
                        help="a .jsonl or .jsonl.gz corpus (docs/replay.md)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="where results.json, results.md, the plots and every run's files go")
    parser.add_argument("--profile", choices=("hard", "easy"), default="hard",
                        help="the replay's profile (default hard)")
    parser.add_argument("--retime", type=positive, default=None, metavar="R",
                        help="re-space the corpus to R articles per simulated day (default: off)")
    parser.add_argument("--speed", type=positive, default=600.0, metavar="S",
                        help="simulated seconds per wall second (default 600)")
    parser.add_argument("--start", type=_iso, default=None, metavar="ISO",
                        help="simulated start of the window (default: the first Monday 07:00, "
                        "site time, at or after the corpus's first article)")
    parser.add_argument("--duration", type=positive, default=180.0, metavar="SECONDS",
                        help="wall seconds of each crawl, CLOSESPIDER_TIMEOUT (default 180)")
    parser.add_argument("--budget", type=positive, default=20.0, metavar="REQ_PER_S",
                        help="requests per second to the site, for every crawler (default 20)")
    parser.add_argument("--repeats", type=at_least_one, default=3, metavar="N",
                        help="runs of each crawler (default 3)")
    parser.add_argument("--crawlers", type=_crawlers, default=None, metavar="LIST",
                        help="comma-separated, from " + ",".join(CRAWLER_NAMES)
                        + " (default: all but feeds and best_first; with --topic: "
                        "scheduled,bfs,best_first)")
    parser.add_argument("--topic", default=None, metavar="SECTION",
                        help="a topical benchmark: the topic is this section of the corpus, its "
                        "documents the truth; the colonies and best_first get its words (-a topic) "
                        "and every run is judged on harvest rate, topic recall and precision")
    parser.add_argument("--topic-words", dest="topic_words", choices=TOPIC_WORDS, default="name",
                        help="how the topical crawlers are told the topic: its name, as a reader "
                        "would type it (default), or examples: the titles of the section's "
                        "articles published before the window, written to OUT/topic.txt and "
                        "given as -a topic=@OUT/topic.txt; or name+examples: a topic file as a "
                        "user writes one, the name, those titles as '+ ' lines and as many other "
                        "sections' titles as '- ' lines (best_first takes the name alone)")
    parser.add_argument("--sweep", action="store_true",
                        help="run each crawler at several values of its cost knob (scheduled: "
                        "poll yield; adaptive, feeds: interval scale; hubs: interval) and draw "
                        "lag against efficiency (sweep.png)")
    parser.add_argument("--sweep-values", dest="sweep_values", type=_sweep_values, action="append",
                        default=[], metavar="CRAWLER=V1,V2",
                        help="the knob values one crawler runs at (repeatable; implies a sweep "
                        "of that crawler)")
    parser.add_argument("--budgets", type=_numbers, default=(), metavar="B1,B2,...",
                        help="run each crawler at each of these budgets (requests/s) and draw lag "
                        "and recall against requests per published story (budgets.png)")
    parser.add_argument("--feeds", type=share, default=0.0, metavar="SHARE",
                        help="the replay's --feeds: the share of sections with an RSS feed and in "
                        "the news sitemap (default 0: none; the feeds crawler needs some)")
    parser.add_argument("--sites", type=at_least_one, default=None, metavar="N",
                        help="serve the corpus as N sites of disjoint stories, each on its own "
                        "loopback address (the replay's --sites); every crawler starts from every "
                        "site's home page, the budget holds per host, and each site is also "
                        "judged on its own (default: one site)")
    parser.add_argument("--split", choices=SPLITS, default="auto",
                        help="with --sites: split the stories by section, by a hash of their URL, "
                        "or by section when there are enough sections (auto, the default)")
    parser.add_argument("--site-profiles", dest="site_profiles", default=None, metavar="FILE",
                        help="with --sites: each site's latency, stalls, error bursts and down "
                        "windows, a JSON file (docs/replay.md, 'Many sites'); windows given as "
                        "shares are shares of the run (duration x speed simulated seconds)")
    parser.add_argument("--seed", type=int, default=1,
                        help="the replay's seed and the crawlers' base seed: repeat r seeds its "
                        "crawler with SEED + r (default 1)")
    parser.add_argument("--set", dest="settings", type=_setting, action="append", default=[],
                        metavar="KEY=VALUE", help="an extra Scrapy setting for every crawl (repeatable)")
    parser.add_argument("--grace", type=positive, default=120.0, metavar="SECONDS",
                        help="wall seconds a crawl may run past --duration before it is killed "
                        "and its run counted as failed (default 120)")
    parser.add_argument("--model", default=None, metavar="PATH",
                        help="a state encoder saved by `newsforagers train`, given to every colony "
                        "(-a model=PATH); without it each forager fits its own on its first pages")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the plan (every replay and crawl command) and exit")
    parser.add_argument("--no-plots", action="store_true", help="write no PNG")


def _error(message: str) -> int:
    print(f"newsforagers bench: {message}", file=sys.stderr)
    return 2


def _settings_problem(config) -> str | None:
    """The first ``--set`` setting a crawl of this bench would refuse, checked on the very
    settings each crawler's command line gives it (a colony's strategy, the budget...), so that
    a typo stops the bench at once instead of failing every crawl in turn; None when all pass."""
    from dataclasses import replace
    from pathlib import Path

    from newsforagers.config import ForagersConfig
    from newsforagers.evaluation.bench.plan import PlannedRun, crawl_argv

    # the topic is a spider argument (its words are read off the corpus later): it sets nothing
    config = replace(config, topic=None, topic_text=None, topic_words="name")
    for crawler in config.crawlers:
        argv = crawl_argv(config, PlannedRun(0, crawler, 0, config.seed), "http://127.0.0.1/",
                          Path(config.out) / "check")
        # every "-s KEY=VALUE" of the command line; a later one wins, as in Scrapy
        settings = dict(argv[i + 1].partition("=")[::2] for i, arg in enumerate(argv[:-1]) if arg == "-s")
        try:
            ForagersConfig.from_settings(settings)
        except ValueError as exc:
            return f"--set: {exc} (in the {crawler} crawls)"
    return None


def run(args: argparse.Namespace) -> int:
    import logging
    from pathlib import Path

    from newsforagers.cli import missing_extra
    from newsforagers.commands.bench.progress import Progress
    from newsforagers.commands.bench.runner import run_bench
    from newsforagers.evaluation.bench.config import TOPIC_CRAWLERS, BenchConfig, BenchError
    from newsforagers.evaluation.bench.plan import describe_plan, plan_runs
    from newsforagers.evaluation.bench.report import write_results
    from newsforagers.evaluation.bench.site import prepare_site
    from newsforagers.evaluation.bench.topic import resolve_topic, write_topic_file

    # The plots are drawn after every crawl has run: a missing matplotlib must stop the bench
    # before the first one, not after the last.
    if not args.no_plots and not args.dry_run:
        problem = missing_extra("matplotlib", "plots")
        if problem:
            return _error(f"the plots need matplotlib, and {problem} (or add --no-plots)")

    # each run's own log is in its directory; here the progress line is enough
    logging.getLogger().setLevel(logging.WARNING)
    if args.merge:
        if args.topic is not None:
            return _error("--topic does not apply to --merge: the merged benchmarks keep the topic "
                          "they were run with (and must share it).")
        return _merge(args)
    if not args.corpus:
        return _error("--corpus is required (unless --merge)")
    crawlers = args.crawlers or (TOPIC_CRAWLERS if args.topic is not None else DEFAULT_CRAWLERS)
    config = BenchConfig(
        corpus=str(Path(args.corpus).resolve()), out=str(Path(args.out).resolve()),
        profile=args.profile, retime=args.retime, speed=args.speed, start=args.start,
        duration=args.duration, budget=args.budget, repeats=args.repeats,
        crawlers=tuple(crawlers), seed=args.seed, settings=tuple(args.settings),
        grace=args.grace, model=str(Path(args.model).resolve()) if args.model else None,
        sweep=args.sweep, sweep_values=tuple(args.sweep_values), budgets=tuple(args.budgets),
        feeds=args.feeds, topic=args.topic, topic_words=args.topic_words, sites=args.sites,
        split=args.split,
        site_profiles=str(Path(args.site_profiles).resolve()) if args.site_profiles else None)
    try:
        config.validate()
    except BenchError as exc:
        return _error(str(exc))
    problem = _settings_problem(config)
    if problem:
        return _error(problem)
    try:
        site = prepare_site(config)
        # the topic's words, from the corpus
        config = resolve_topic(config, site.sections, site.examples)
    except BenchError as exc:
        return _error(str(exc))
    if args.dry_run:
        sys.stdout.write(describe_plan(config, site.start))
        return 0
    try:
        Path(config.out).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _error(f"--out ({args.out!r}) cannot be created: {exc}")
    try:
        write_topic_file(config)
    except OSError as exc:
        return _error(f"the topic's examples cannot be written to --out ({args.out!r}): {exc}")
    command = _command_line()
    progress = Progress(total=len(plan_runs(config)), duration=config.duration + 10.0)
    try:
        results = run_bench(config, site, progress=progress, command=command)
    finally:
        progress.close()
    plots: list[str] = []
    if not args.no_plots:
        from newsforagers.evaluation.plots import plot_results

        plots = plot_results(results, config.out)
    json_path, md_path = write_results(config.out, results, plots)
    failed = results["failures"]["count"]
    print(f"results: {md_path} and {json_path}" + (f"; plots: {', '.join(plots)}" if plots else ""))
    if failed:
        print(f"{failed} run(s) failed; see the 'Failed runs' section of {md_path}", file=sys.stderr)
    return 1 if failed else 0


def _merge(args: argparse.Namespace) -> int:
    """``--merge DIR... --out DIR``: several benchmarks of one site judged and shown as one."""
    from newsforagers.evaluation.bench.config import BenchError
    from newsforagers.evaluation.bench.merge import merge_benchmarks
    from newsforagers.evaluation.bench.report import write_results

    try:
        results, _ = merge_benchmarks(args.merge, args.out, _command_line())
    except BenchError as exc:
        return _error(str(exc))
    plots: list[str] = []
    if not args.no_plots:
        from newsforagers.evaluation.plots import plot_results

        plots = plot_results(results, args.out)
    json_path, md_path = write_results(args.out, results, plots)
    print(f"results: {md_path} and {json_path}" + (f"; plots: {', '.join(plots)}" if plots else ""))
    return 0


def _command_line() -> list[str]:
    """This command line as a user types it (``newsforagers bench ...``, however it was
    started), for the results; empty when ``sys.argv`` is not a bench command line (called
    from Python)."""
    if "bench" not in sys.argv[1:]:
        return []
    return ["newsforagers", *sys.argv[1:]]
