"""The replay site's Python API: build it from a corpus, listen on loopback, stop.

In the reactor a Scrapy crawl uses (tests, benchmarks)::

    site = ReplaySite(load_corpus(path), profile="hard", speed=600, retime=200)
    site.listen(reactor)              # 127.0.0.1, a free port
    ... crawl site.url ...
    await site.stop()                 # or yield/return the Deferred

Outside a reactor, :class:`newsforagers.replay.process.ReplayProcess` runs
``newsforagers replay`` in a subprocess.
"""

from __future__ import annotations

import ipaddress
import json
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable, Iterable

from newsforagers.corpus import Article, Corpus, load_corpus

from .clock import SimClock
from .index import ReplayArticle, SiteIndex
from .log import RequestLog
from .site import PageBuilder, ReplayHTTPSite, ReplayResource

START_LEAD = timedelta(minutes=1)  # the default start: this long before the first article
PRERENDER_EVERY = 0.02  # wall seconds between two pre-rendering slices
PRERENDER_SLICE = 0.01  # wall seconds of rendering per slice at most
PRERENDER_AHEAD = 3600.0  # simulated seconds: bodies are ready this long before publication


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ReplaySite:
    """A corpus served as a live news site on loopback, with an accelerated clock.

    ``corpus`` is a :class:`~newsforagers.corpus.Corpus`, a list of articles, or a path to a
    ``.jsonl``/``.jsonl.gz`` file. ``speed`` simulated seconds pass per wall second from
    ``start`` (default: one minute before the first, possibly retimed, article). ``retime``
    re-spaces the corpus to that many articles per simulated day. ``clock`` replaces the
    clock built from ``start``/``speed``/``wall`` (tests pass one driven by a
    :class:`~newsforagers.replay.clock.ManualWall`). ``log_path`` receives the JSON-lines
    request log. ``prerender`` renders article bodies in the reactor's idle time, ahead of
    their publication, so that a first visit costs no more than a repeat one. ``feeds`` (0 to
    1; 0: none, the default) is the share of sections with an RSS feed, listed in a news
    sitemap and a sitemap index that robots.txt announces (docs/replay.md, "Feeds and
    sitemaps"); ``seed`` draws them.
    """

    def __init__(self, corpus: Corpus | Iterable[Article] | str | Path, profile: str = "hard",
                 speed: float = 600.0, start: datetime | None = None,
                 retime: float | None = None, clock: SimClock | None = None,
                 log_path: str | Path | None = None, seed: int = 0,
                 wall: Callable[[], float] = time.time, prerender: bool = True,
                 feeds: float = 0.0):
        if isinstance(corpus, (str, Path)):
            corpus = load_corpus(corpus)
        self.corpus = corpus
        self.index = SiteIndex(corpus, retime=retime, seed=seed)
        self.articles: list[ReplayArticle] = self.index.articles
        self.profile = profile
        self.pages = PageBuilder(self.index, profile, feeds=feeds)
        self._own_clock = clock is None
        if clock is None:
            clock = SimClock(start or self.articles[0].published - START_LEAD, speed, wall)
        self.clock = clock
        self.log = RequestLog(log_path)
        self.resource = ReplayResource(self.pages, self.clock)
        self.http: ReplayHTTPSite | None = None
        self.port = None
        self.host = "127.0.0.1"
        self.prerender = prerender
        self._prerenderer = None

    # -- serving -------------------------------------------------------------------------------

    def listen(self, reactor=None, host: str = "127.0.0.1", port: int = 0):
        """Start serving; returns the listening port. ``port=0`` picks a free one.

        A clock the site built itself restarts here, so the first request sees ``start``.
        With ``prerender``, the bodies of the articles already published are rendered first
        (about 2 ms each; nothing to do when the clock starts before the first article).
        """
        if not is_loopback(host):
            raise ValueError(f"host ({host!r}) must be a loopback address: the replay never "
                             "listens beyond this machine.")
        if self.port is not None:
            raise RuntimeError("the replay is already listening")
        if reactor is None:
            from twisted.internet import reactor
        if self.prerender:
            # Whatever is already published when the site opens (a --start in the middle of
            # the corpus) is rendered now, before the first request, not during the crawl.
            opening = self.clock.start_ts if self._own_clock else self.clock.now_ts()
            self.pages.prerender(opening + PRERENDER_AHEAD, float("inf"))
        if self._own_clock:
            self.clock.reset()
        self.http = ReplayHTTPSite(self.resource, self.clock, self.log, reactor)
        interface = "127.0.0.1" if host == "localhost" else host
        self.port = reactor.listenTCP(port, self.http, interface=interface)
        self.host = self.port.getHost().host
        if self.prerender:
            from twisted.internet import task

            self._prerenderer = task.LoopingCall(self._prerender_slice)
            self._prerenderer.clock = reactor
            self._prerenderer.start(PRERENDER_EVERY, now=False)
        return self.port

    def _prerender_slice(self) -> None:
        self.pages.prerender(self.clock.now_ts() + PRERENDER_AHEAD, PRERENDER_SLICE)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/`` once listening."""
        if self.port is None:
            raise RuntimeError("the replay is not listening; call listen() first")
        address = self.port.getHost()
        host = f"[{address.host}]" if ":" in address.host else address.host
        return f"http://{host}:{address.port}/"

    def stop(self):
        """Stop listening, drop open connections, close the log; returns a Deferred."""
        from twisted.internet import defer

        if self.port is None:
            self.log.close()
            return defer.succeed(None)
        port, self.port = self.port, None
        if self._prerenderer is not None and self._prerenderer.running:
            self._prerenderer.stop()
        self._prerenderer = None
        done = defer.maybeDeferred(port.stopListening)
        if self.http is not None:
            self.http.drop_connections()

        def closed(result):
            self.log.close()
            return result

        return done.addBoth(closed)

    # -- the truth ---------------------------------------------------------------------------

    def visible(self, at: datetime | float | None = None) -> list[ReplayArticle]:
        """The articles published at simulated time ``at`` (default: now)."""
        if at is None:
            ts = self.clock.now_ts()
        else:
            ts = at.timestamp() if isinstance(at, datetime) else float(at)
        return self.articles[: self.index.visible_count(ts)]

    def url_for(self, article: ReplayArticle) -> str:
        return self.url.rstrip("/") + article.path

    def truth(self) -> list[dict]:
        """One record per article (path, published sim time, sections...), in order."""
        base = self.url if self.port is not None else ""
        return [a.truth(base) for a in self.articles]

    def write_truth(self, path: str | Path) -> None:
        """The retimed truth as JSON lines."""
        with open(path, "w", encoding="utf-8") as out:
            for record in self.truth():
                out.write(json.dumps(record, ensure_ascii=False) + "\n")

    @property
    def request_count(self) -> int:
        return self.log.count
