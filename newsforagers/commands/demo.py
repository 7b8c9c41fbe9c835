"""``newsforagers demo``: the main job on the embedded default.

A synthetic news corpus is served by the replay site on 127.0.0.1 with an accelerated clock,
and a real forager (``ForagerSpider`` with its scheduler and the reinforcing-agent pipeline)
crawls it in the same process for about a minute. Every novel document is printed as the
colony's reinforcing agent pays for it, and every split and retirement of a forager as the
colony records it (its ``events.jsonl``); a summary against the site's truth follows, then where
the results are and the commands that export, search and show the documents found, written so
that they can be pasted into the shell the demo ran in (:func:`command_words`). ``--quiet``
prints the summary alone.
"""

from __future__ import annotations

import sys

from newsforagers.commands.arguments import positive
from newsforagers.terminal import printable

HELP = "crawl a synthetic replay site with a forager for about a minute and print what it finds"


def add_arguments(parser) -> None:
    parser.add_argument("--seconds", type=positive, default=60.0, help="wall seconds to crawl (default 60)")
    parser.add_argument("--speed", type=positive, default=600.0,
                        help="simulated seconds per wall second (default 600)")
    parser.add_argument("--corpus", help="a corpus file instead of the generated synthetic one")
    parser.add_argument("--profile", choices=("hard", "easy"), default="hard",
                        help="the replay site's profile: hard, a featured home and no global "
                        "latest list (default); easy adds a home 'latest 30' list")
    parser.add_argument("--mode", choices=("wlrl", "wl", "rl"), default="wlrl",
                        help="the forager's learning (the papers' modes): wlrl, weblog update and TD "
                        "(default); wl, weblog update with fixed random weights; rl, TD with a "
                        "fixed weblog")
    parser.add_argument("--strategy", choices=("paper", "scheduled"), default=None,
                        help="FORAGERS_STRATEGY (default: the setting's default, scheduled)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the synthetic corpus, the replay site and the forager "
                        "(FORAGERS_SEED; default 1)")
    parser.add_argument("--run-dir", default=".newsforagers/demo",
                        help="where the corpus, the request log and the store go")
    parser.add_argument("--quiet", action="store_true",
                        help="print the summary alone: no site line, no line per document found "
                        "or per split and retirement, no results block (the files are written "
                        "under --run-dir all the same)")


def _error(message: str) -> int:
    print(f"newsforagers demo: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    import logging
    from pathlib import Path

    # the demo prints its own lines; the crawl's log would drown them
    logging.getLogger().setLevel(logging.WARNING)

    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from twisted.internet import reactor

    from newsforagers.corpus import CorpusError
    from newsforagers.replay import ReplaySite
    from newsforagers.replay.synth import ensure_synth_corpus

    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    corpus = args.corpus or ensure_synth_corpus(run_dir / "synth.jsonl.gz", days=3, rate=300,
                                                sections=16, seed=args.seed)
    start = None
    if not args.corpus:  # the generated week starts on a Monday at midnight: begin at 07:00
        from datetime import timedelta

        from newsforagers.replay.synth import DEFAULT_START

        start = DEFAULT_START + timedelta(hours=7)
    try:
        site = ReplaySite(corpus, profile=args.profile, speed=args.speed, start=start,
                          log_path=run_dir / "requests.jsonl", seed=args.seed)
    except CorpusError as exc:
        return _error(str(exc))
    result: dict = {}
    reactor.callWhenRunning(_crawl, reactor, site, args, run_dir, result)
    reactor.run()
    return _summary(site, result, quiet=args.quiet)


def _crawl(reactor, site, args, run_dir, result) -> None:
    from datetime import datetime

    from scrapy import signals
    from scrapy.crawler import CrawlerRunner

    from newsforagers.spiders.forager import ForagerSpider

    site.listen(reactor)
    result["start"] = site.clock.now()
    if not args.quiet:
        print(f"replay site {site.url} ({len(site.articles)} articles, {args.profile} profile, "
              f"clock x{args.speed:g} from {result['start']:%Y-%m-%d %H:%M} UTC); crawling for "
              f"{args.seconds:g} s", flush=True)
    stamp = f"{datetime.now():%Y%m%d-%H%M%S}"
    result["store"] = run_dir / f"colony-{stamp}.db"
    result["colony_dir"] = run_dir / f"run-{stamp}"
    result["requests"] = run_dir / "requests.jsonl"
    settings = {
        "CLOSESPIDER_TIMEOUT": args.seconds,
        "FORAGERS_STORE": f"sqlite:///{result['store']}",
        "FORAGERS_SEED": args.seed,
        "FORAGERS_BOOTSTRAP_PAGES": 200,
        # the colony shares downloads for one simulated minute
        "FORAGERS_FETCH_TTL": 60.0 / args.speed,
        "FORAGERS_RUN_DIR": str(result["colony_dir"]),
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
    }
    if args.strategy:
        settings["FORAGERS_STRATEGY"] = args.strategy
    runner = CrawlerRunner(settings)
    crawler = runner.create_crawler(ForagerSpider)
    found: list[dict] = []
    result["found"] = found

    def on_item(item, response, spider):
        found.append(item)
        if not args.quiet:
            published = datetime.fromisoformat(item["published"])
            found_at = datetime.fromisoformat(item["found_at"])
            lag = (found_at - published).total_seconds() / 60.0
            # (the page's title, without what a terminal would obey: newsforagers.terminal)
            print(f"[{found_at:%H:%M}] {item['forager']} found {printable(item['title'])[:70]!r} "
                  f"(published {published:%H:%M}, lag {lag:.0f} min)", flush=True)

    crawler.signals.connect(on_item, signal=signals.item_scraped, weak=False)
    result["crawler"] = crawler
    done = runner.crawl(crawler, seeds=site.url, mode=args.mode, speed=args.speed)
    events = None
    if not args.quiet:
        events = _follow_events(reactor, result["colony_dir"] / "events.jsonl", site)

    def finish(outcome):
        result["end"] = site.clock.now()
        if events is not None:
            events()  # what the colony wrote at its close
        return site.stop()

    done.addBoth(finish).addBoth(lambda _: reactor.stop())


#: How often the demo reads the colony's events file (wall seconds): a split shows within a few
#: simulated minutes at the demo's default speed, with its own simulated time.
EVENTS_POLL = 0.25


def _follow_events(reactor, path, site):
    """Print the colony's splits and retirements as it records them in ``path`` (its
    ``events.jsonl``, docs/colony.md), every :data:`EVENTS_POLL` seconds; return the function
    that stops following after a last read.

    The events file is the colony's documented record (``newsforagers status`` reads it too), so
    the demo depends on no logger name or log message of the colony."""
    from twisted.internet.task import LoopingCall

    from newsforagers.colony.status import JsonlFollower

    follower = JsonlFollower(path)

    def read() -> None:
        records, _ = follower.read()
        for record in records:
            line = event_line(record, site.clock.now())
            if line:
                print(line, flush=True)

    loop = LoopingCall(read)
    loop.clock = reactor
    loop.start(EVENTS_POLL, now=False)

    def stop() -> None:
        if loop.running:
            loop.stop()
        read()

    return stop


def event_line(record: dict, now) -> str | None:
    """The demo's line for one colony event: ``[HH:MM] f1 split: f3 born`` or ``[HH:MM] f2
    retired (score -0.3)``, at the event's simulated time (``now``, the site's clock, when the
    forager had not read the site's clock yet); None for the events the demo does not show
    (start, stop, teleport)."""
    from newsforagers.colony.status import parse_time

    kind, forager = record.get("event"), record.get("forager")
    if kind not in ("split", "retire") or not isinstance(forager, str):
        return None
    when = parse_time(record.get("sim_time")) or now
    if kind == "split":
        return f"[{when:%H:%M}] {record.get('parent') or '?'} split: {forager} born"
    value = next(((name, record[name]) for name in ("score", "energy")
                  if isinstance(record.get(name), (int, float))), None)
    return f"[{when:%H:%M}] {forager} retired" + (f" ({value[0]} {value[1]:.1f})" if value else "")


def _summary(site, result, quiet: bool = False) -> int:
    from datetime import datetime

    if "crawler" not in result:
        print("newsforagers demo: the crawl did not start", file=sys.stderr)
        return 1
    stats = result["crawler"].stats.get_stats()
    start, end = result["start"], result["end"]
    published = [a for a in site.articles if start < a.published <= end]
    truth = {a.path: a.published for a in site.articles}
    found = result["found"]
    from urllib.parse import urlsplit

    true_novel = [i for i in found if urlsplit(i["url"]).path in truth
                  and 0 <= (datetime.fromisoformat(i["found_at"])
                            - truth[urlsplit(i["url"]).path]).total_seconds() <= 86400]
    window_paths = {a.path for a in published}
    recalled = {urlsplit(i["url"]).path for i in found} & window_paths
    lags = sorted((datetime.fromisoformat(i["found_at"]) - datetime.fromisoformat(i["published"])).total_seconds() / 60
                  for i in found)
    requests = site.request_count
    if not quiet:
        print()
    print("summary")
    print(f"  simulated window      : {start:%Y-%m-%d %H:%M} to {end:%H:%M} UTC, {len(published)} articles published")
    foragers = sorted({i["forager"] for i in found}, key=lambda f: int(f[1:]) if f[1:].isdigit() else 0)
    print(f"  novel documents       : {len(found)} output, {len(true_novel)} truly novel "
          "(published <= 24 h before found), "
          f"by {', '.join(foragers) or 'nobody'}")
    print(f"  recall                : {len(recalled) / max(len(published), 1):.2f}: {len(recalled)} of the "
          f"{len(published)} articles published in the window found (documents published before it "
          "are not counted)")
    if lags:
        print(f"  discovery lag         : median {lags[len(lags) // 2]:.0f} min, "
              f"p90 {lags[int(0.9 * (len(lags) - 1))]:.0f} min")
    print(f"  requests to the site  : {requests}")
    print(f"  download efficiency   : {len(found) / max(requests, 1):.4f} (papers: 0.0046)")
    if stats.get("newsforagers/listings") is not None:  # the scheduled strategy
        print(f"  root forager f1       : {stats.get('newsforagers/listings', 0)} listing visits, "
              f"{stats.get('newsforagers/harvested', 0)} harvested, {stats.get('newsforagers/explored', 0)} explored, "
              f"idle {stats.get('newsforagers/idle', 0)} times, score {stats.get('newsforagers/score', 100):.1f}")
    else:
        print(f"  root forager f1       : {stats.get('newsforagers/paths', 0)} paths, "
              f"{stats.get('newsforagers/steps', 0)} steps, "
              f"{stats.get('newsforagers/td_updates', 0)} TD updates, score {stats.get('newsforagers/score', 100):.1f}")
    if not quiet:
        _where(result)
    return 0


def command_words(argv0: str | None = None, on_path: str | None = None,
                  python: str | None = None) -> list[str]:
    """The words that run this ``newsforagers`` again from the directory the demo ran in.

    ``newsforagers`` when the command of that name on PATH is this very executable; else the
    path it was started by (after ``make demo``, ``.venv/bin/newsforagers``: the virtualenv's
    bin is not on PATH, and the name alone would fail or run another installation); else,
    started as ``python -m newsforagers.cli``, the same. ``argv0``, ``on_path`` (what PATH finds
    for ``newsforagers``, ``""`` for nothing) and ``python`` default to this process's."""
    import os
    import shutil

    argv0 = sys.argv[0] if argv0 is None else argv0
    on_path = shutil.which("newsforagers") if on_path is None else on_path
    if os.path.basename(argv0) == "newsforagers" and os.path.isfile(argv0):
        try:
            if on_path and os.path.samefile(on_path, argv0):
                return ["newsforagers"]
        except OSError:
            pass
        # as typed when it holds a directory (relative to where the demo ran, as its paths are)
        return [argv0 if os.sep in argv0 else os.path.abspath(argv0)]
    return [python or sys.executable, "-m", "newsforagers.cli"]


def _where(result) -> None:
    """The last lines: where the results are and the exact commands that show, export, search
    and serve what was found, to paste into the shell the demo ran in (the paths are the ones
    the crawl was given, relative to the directory it ran in)."""
    import shlex

    command = " ".join(shlex.quote(word) for word in command_words())
    run_dir, store = shlex.quote(str(result["colony_dir"])), shlex.quote(str(result["store"]))
    print()
    print("results")
    print(f"  run directory         : {result['colony_dir']} (the colony's events and snapshots; "
          f"{command} status --run {run_dir} --store {store})")
    print(f"  colony store (SQLite) : {result['store']}")
    print(f"  request log           : {result['requests']} "
          "(a JSON line per request the site served; each demo run appends)")
    print(f"  export what was found : {command} export --store {store} -o found.jsonl")
    print(f"  search what was found : {command} search --store {store} 'WORDS'")
    print(f"  see it in a browser   : {command} web --store {store} --run {run_dir}")
