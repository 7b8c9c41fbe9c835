"""``newsforagers replay CORPUS``: serve a corpus as a live news site on loopback.

The first line on stdout is, for programs that start the command (``--port 0``)::

    serving http://127.0.0.1:PORT/ sim_now=2024-01-01T08:59:00+00:00 speed=600 profile=hard articles=2412

(the URL is the second word), then a ``sim_now=... published=K/N requests=R`` line every
``--status-every`` wall seconds. SIGINT or SIGTERM stop the server and the command exits 0.

With ``--sites N`` the corpus is served as N sites, each on its own loopback address
(:mod:`newsforagers.replay.many`); the first line names the first site's URL and ``sites=N``,
and ``--seeds FILE`` receives every site's home URL, one a line.
"""

from __future__ import annotations

import argparse

from newsforagers.commands.arguments import positive, share

HELP = "serve a corpus as a live news site on 127.0.0.1 with an accelerated clock"


def _iso(value: str):
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an ISO 8601 date") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus", help="a .jsonl or .jsonl.gz corpus (see docs/replay.md)")
    parser.add_argument("--profile", choices=("hard", "easy"), default="hard",
                        help="hard: featured home, no global latest list (default); "
                        "easy: adds a home 'latest 30' list")
    parser.add_argument("--speed", type=positive, default=600.0,
                        help="simulated seconds per wall second (default 600)")
    parser.add_argument("--start", type=_iso, default=None,
                        help="simulated start, ISO 8601 (default: just before the first article)")
    parser.add_argument("--retime", type=positive, default=None, metavar="RATE",
                        help="re-space the articles to RATE per simulated day")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the retimed schedule, the 'most read' boxes and the sections "
                        "with a feed")
    parser.add_argument("--feeds", type=share, default=0.0, metavar="SHARE",
                        help="give this share of the sections (0 to 1, drawn with --seed) an RSS "
                        "feed, and the site a news sitemap of them and a sitemap index named in "
                        "robots.txt (default 0: none)")
    parser.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080,
                        help="port; 0 picks a free one (default 8080)")
    parser.add_argument("--log", default=None, metavar="FILE", help="JSON-lines request log")
    parser.add_argument("--truth", default=None, metavar="FILE",
                        help="write the served articles (path, simulated publication, sections) "
                        "as JSON lines")
    parser.add_argument("--sites", type=int, default=None, metavar="N",
                        help="serve the corpus as N sites of disjoint stories, each on its own "
                        "loopback address (127.1.0.1, ...), up to 4096")
    parser.add_argument("--split", choices=("auto", "section", "hash"), default="auto",
                        help="with --sites: split the stories by section, by a hash of their URL, "
                        "or by section when there are enough sections (auto, the default)")
    parser.add_argument("--site-profiles", default=None, metavar="FILE",
                        help="with --sites: each site's latency, stalls, error bursts and down "
                        "windows, a JSON file (docs/replay.md, 'Many sites')")
    parser.add_argument("--run-seconds", dest="run", type=positive, default=None, metavar="SECONDS",
                        help="with --sites: the run's length in simulated seconds, for profile "
                        "windows given as shares of it")
    parser.add_argument("--seeds", default=None, metavar="FILE",
                        help="with --sites: write every site's home URL to FILE, one a line")
    parser.add_argument("--status-every", type=positive, default=30.0, metavar="SECONDS",
                        help="wall seconds between two status lines (default 30)")


def run(args: argparse.Namespace) -> int:
    import sys

    from twisted.internet import reactor

    from newsforagers.corpus import CorpusError, load_corpus
    from newsforagers.replay.server import ReplaySite, is_loopback

    if not is_loopback(args.host):
        print(f"newsforagers replay: --host {args.host!r} is not a loopback address", file=sys.stderr)
        return 2
    if args.sites is not None:
        return _run_many(args)
    alone = [flag for flag, given in (("--split", args.split != "auto"), ("--site-profiles", args.site_profiles),
                                      ("--run-seconds", args.run), ("--seeds", args.seeds)) if given]
    if alone:
        print(f"newsforagers replay: {', '.join(alone)} only with --sites N", file=sys.stderr)
        return 2
    try:
        corpus = load_corpus(args.corpus)
        site = ReplaySite(corpus, profile=args.profile, speed=args.speed, start=args.start,
                          retime=args.retime, log_path=args.log, seed=args.seed, feeds=args.feeds)
    except (CorpusError, ValueError) as exc:
        print(f"newsforagers replay: {exc}", file=sys.stderr)
        return 2
    try:
        site.listen(reactor, host=args.host, port=args.port)
    except Exception as exc:  # CannotListenError and friends: report, do not trace back
        print(f"newsforagers replay: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    if args.truth:  # after listen, so that each record carries its full URL
        site.write_truth(args.truth)
    print(f"serving {site.url} sim_now={site.clock.now().isoformat()} speed={args.speed:g} "
          f"profile={args.profile} articles={len(site.articles)}", flush=True)

    return _serve(reactor, site.clock, lambda: site.index.visible_count(site.clock.now_ts()),
                  len(site.articles), lambda: site.request_count, site.stop, args.status_every)


def _serve(reactor, clock, published, articles: int, requests, stop, every: float) -> int:
    """Print a status line every ``every`` wall seconds and serve until SIGINT or SIGTERM;
    ``stop`` closes the site(s) and the log."""
    import gc
    import signal

    from twisted.internet import task

    def status() -> None:
        print(f"sim_now={clock.now().isoformat()} published={published()}/{articles} "
              f"requests={requests()}", flush=True)

    ticker = task.LoopingCall(status)
    ticker.start(every, now=False)
    reactor.addSystemEventTrigger("before", "shutdown", ticker.stop)
    reactor.addSystemEventTrigger("before", "shutdown", stop)
    # The default reactor stops on SIGINT and SIGTERM; shutdown triggers then close the port
    # and the log. A shell starts background jobs with SIGINT ignored, and Twisted leaves an
    # ignored SIGINT alone: restore it, since scripts stop the replay with SIGINT too.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # The replay stamps a request's arrival (what politeness is measured by) when its event loop
    # gets to it. A full pass of the garbage collector over the loaded corpus held the loop for
    # ~0.1 s (1,000 sites, docs/benchmarks.md) and stamped every request sent meanwhile at its
    # end, as if they had come together. What is loaded before serving lives as long as the
    # replay: it is moved out of the collector's passes.
    gc.collect()
    gc.freeze()
    reactor.run()
    return 0


def _run_many(args: argparse.Namespace) -> int:
    import sys

    from twisted.internet import reactor

    from newsforagers.corpus import CorpusError, load_corpus
    from newsforagers.replay.many import ManySites
    from newsforagers.replay.profiles import ProfileError, Profiles

    try:
        corpus = load_corpus(args.corpus)
        profiles = Profiles.load(args.site_profiles, args.sites) if args.site_profiles else None
        sites = ManySites(corpus, args.sites, profiles=profiles, profile=args.profile, speed=args.speed,
                          start=args.start, retime=args.retime, log_path=args.log, seed=args.seed,
                          feeds=args.feeds, split=args.split, run=args.run)
    except (CorpusError, ProfileError, ValueError) as exc:
        print(f"newsforagers replay: {exc}", file=sys.stderr)
        return 2
    try:
        sites.listen(reactor)
    except Exception as exc:  # CannotListenError and friends: report, do not trace back
        print(f"newsforagers replay: cannot listen: {exc}", file=sys.stderr)
        return 2
    if args.truth:
        sites.write_truth(args.truth)
    if args.seeds:
        with open(args.seeds, "w", encoding="utf-8") as out:
            out.writelines(url + "\n" for url in sites.urls)
    print(f"serving {sites.urls[0]} sim_now={sites.clock.now().isoformat()} speed={args.speed:g} "
          f"profile={args.profile} articles={len(sites.articles)} sites={len(sites.sites)}", flush=True)

    return _serve(reactor, sites.clock, sites.visible_count, len(sites.articles), lambda: sites.request_count,
                  sites.stop, args.status_every)
