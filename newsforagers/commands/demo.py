"""``newsforagers demo``: the main job on the embedded default.

A synthetic news corpus is served by the replay site on 127.0.0.1 with an accelerated clock,
and a real forager (``ForagerSpider`` with its scheduler and the reinforcing-agent pipeline)
crawls it in the same process for about a minute. Every novel document is printed as the
colony's reinforcing agent pays for it; a summary against the site's truth follows.
"""

from __future__ import annotations

HELP = "crawl a synthetic replay site with a forager for about a minute and print what it finds"


def add_arguments(parser) -> None:
    parser.add_argument("--seconds", type=float, default=60.0, help="wall seconds to crawl (default 60)")
    parser.add_argument("--speed", type=float, default=600.0,
                        help="simulated seconds per wall second (default 600)")
    parser.add_argument("--corpus", help="a corpus file instead of the generated synthetic one")
    parser.add_argument("--profile", choices=("hard", "easy"), default="hard")
    parser.add_argument("--mode", choices=("wlrl", "wl", "rl"), default="wlrl")
    parser.add_argument("--strategy", choices=("paper", "scheduled"), default=None,
                        help="FORAGERS_STRATEGY (default: the setting's default, scheduled)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--run-dir", default=".newsforagers/demo",
                        help="where the corpus, the request log and the store go")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")


def run(args) -> int:
    import logging
    from pathlib import Path

    # the demo prints its own lines; the crawl's log would drown them
    logging.getLogger().setLevel(logging.WARNING)

    if args.seconds <= 0 or args.speed <= 0:
        print("demo: --seconds and --speed must be > 0")
        return 2
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
        print(f"demo: {exc}")
        return 2
    result: dict = {}
    reactor.callWhenRunning(_crawl, reactor, site, args, run_dir, result)
    reactor.run()
    return _summary(site, result)


def _crawl(reactor, site, args, run_dir, result) -> None:
    from datetime import datetime

    from scrapy import signals
    from scrapy.crawler import CrawlerRunner

    from newsforagers.spiders.forager import ForagerSpider

    site.listen(reactor)
    result["start"] = site.clock.now()
    print(f"replay site {site.url} ({len(site.articles)} articles, {args.profile} profile, "
          f"clock x{args.speed:g} from {result['start']:%Y-%m-%d %H:%M} UTC); crawling for "
          f"{args.seconds:g} s", flush=True)
    settings = {
        "CLOSESPIDER_TIMEOUT": args.seconds,
        "FORAGERS_STORE": f"sqlite:///{run_dir / f'colony-{datetime.now():%Y%m%d-%H%M%S}.db'}",
        "FORAGERS_SEED": args.seed,
        "FORAGERS_BOOTSTRAP_PAGES": 200,
        # the colony shares downloads for one simulated minute
        "FORAGERS_FETCH_TTL": 60.0 / args.speed,
        "FORAGERS_RUN_DIR": str(run_dir / f"run-{datetime.now():%Y%m%d-%H%M%S}"),
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
            print(f"[{found_at:%H:%M}] {item['forager']} found {item['title'][:70]!r} "
                  f"(published {published:%H:%M}, lag {lag:.0f} min)", flush=True)

    crawler.signals.connect(on_item, signal=signals.item_scraped, weak=False)
    result["crawler"] = crawler
    done = runner.crawl(crawler, seeds=site.url, mode=args.mode, speed=args.speed)

    def finish(outcome):
        result["end"] = site.clock.now()
        return site.stop()

    done.addBoth(finish).addBoth(lambda _: reactor.stop())


def _summary(site, result) -> int:
    from datetime import datetime

    if "crawler" not in result:
        print("demo: the crawl did not start")
        return 1
    stats = result["crawler"].stats.get_stats()
    start, end = result["start"], result["end"]
    published = [a for a in site.articles if start < a.published <= end]
    truth = {a.path: a.published for a in site.articles}
    found = result["found"]
    from urllib.parse import urlsplit

    true_novel = [i for i in found if urlsplit(i["url"]).path in truth
                  and 0 <= (datetime.fromisoformat(i["found_at"]) - truth[urlsplit(i["url"]).path]).total_seconds() <= 86400]
    window_paths = {a.path for a in published}
    recalled = {urlsplit(i["url"]).path for i in found} & window_paths
    lags = sorted((datetime.fromisoformat(i["found_at"]) - datetime.fromisoformat(i["published"])).total_seconds() / 60
                  for i in found)
    requests = site.request_count
    print()
    print("summary")
    print(f"  simulated window      : {start:%Y-%m-%d %H:%M} to {end:%H:%M} UTC, {len(published)} articles published")
    foragers = sorted({i["forager"] for i in found}, key=lambda f: int(f[1:]) if f[1:].isdigit() else 0)
    print(f"  novel documents       : {len(found)} output, {len(true_novel)} truly novel (published <= 24 h before found), "
          f"by {', '.join(foragers) or 'nobody'}")
    print(f"  recall in the window  : {len(recalled) / max(len(published), 1):.2f}")
    if lags:
        print(f"  discovery lag         : median {lags[len(lags) // 2]:.0f} min, p90 {lags[int(0.9 * (len(lags) - 1))]:.0f} min")
    print(f"  requests to the site  : {requests}")
    print(f"  download efficiency   : {len(found) / max(requests, 1):.4f} (papers: 0.0046)")
    if stats.get("newsforagers/listings") is not None:  # the scheduled strategy
        print(f"  root forager f1       : {stats.get('newsforagers/listings', 0)} listing visits, "
              f"{stats.get('newsforagers/harvested', 0)} harvested, {stats.get('newsforagers/explored', 0)} explored, "
              f"idle {stats.get('newsforagers/idle', 0)} times, score {stats.get('newsforagers/score', 100):.1f}")
    else:
        print(f"  root forager f1       : {stats.get('newsforagers/paths', 0)} paths, {stats.get('newsforagers/steps', 0)} steps, "
              f"{stats.get('newsforagers/td_updates', 0)} TD updates, score {stats.get('newsforagers/score', 100):.1f}")
    return 0
