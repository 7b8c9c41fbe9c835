"""A corpus served as many sites, each on its own loopback address, all in one process.

The corpus is retimed once (one schedule for all of it), then split into ``n`` sites of
disjoint stories: by section when it has at least ``n`` of them (each section, largest first,
to the site with the fewest stories so far), else dealt in turn in the order of a hash of
their URLs (as many on each site, give or take one). Every site is
a replay site of its own (its fronts, archive traps, feeds) on ``127.1.x.y`` (any address of
127.0.0.0/8 answers on Linux with no set-up), each with a free port, all on one simulated
clock, one request log (each record names its ``host``) and one truth file. Each site behaves
as its profile says (:mod:`.profiles`: latency, stalls, error bursts, down windows).

    sites = ManySites(load_corpus(path), 20, profiles=Profiles.load("p.json", 20), run=36000)
    sites.listen(reactor)
    ... crawl sites.urls ...
    await sites.stop()
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
import zlib
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterable
from urllib.parse import urlsplit, urlunsplit

import numpy as np
from twisted.web import resource, server
from twisted.web.http import datetimeToString

from newsforagers.corpus import Article, Corpus, load_corpus

from .clock import SimClock
from .index import ReplayArticle, SiteIndex
from .log import RequestLog
from .profiles import Profiles, SiteProfile
from .retime import retime as retime_times
from .retime import rewrite_path_date, site_offset
from .server import PRERENDER_AHEAD, PRERENDER_EVERY, PRERENDER_SLICE, START_LEAD, is_loopback
from .site import PageBuilder, ReplayHTTPSite, ReplayResource

#: Site ``i`` listens on this address + 1 + i.
SITE_NETWORK = "127.1.0.0"
#: Sites one process serves at most (each one's fronts and caches are in memory).
MAX_SITES = 4096
#: Wall seconds between two looks at the down windows.
DOWN_TICK = 0.05
#: Sites whose bodies one pre-rendering slice renders (round robin).
PRERENDER_SITES = 8


def site_address(i: int, network: str = SITE_NETWORK) -> str:
    """The loopback address of site ``i``."""
    address = ipaddress.ip_address(network) + 1 + i
    if not address.is_loopback:
        raise ValueError(f"site {i} would be at {address}, outside 127.0.0.0/8")
    return str(address)


def retimed(articles: Iterable[Article], rate: float, seed: int = 0) -> list[Article]:
    """The articles re-spaced to ``rate`` a simulated day (one schedule for all of them, as
    one site's would be), with the dates in their paths moved to the new days."""
    originals = sorted(articles, key=lambda a: (a.published, a.lineno))
    tz = site_offset([a.published for a in originals])
    times = retime_times([a.published for a in originals], rate, seed, tz)
    moved = []
    for article, when in zip(originals, times):
        parts = urlsplit(article.url)
        path = rewrite_path_date(parts.path or "/", when.astimezone(tz).date())
        moved.append(replace(article, published=when, url=urlunsplit(parts._replace(path=path))))
    return moved


def _section(article: Article) -> str:
    return (article.sections[0] if article.sections else "") or article.kind or "general"


def split_articles(articles: list[Article], n: int, by: str = "auto") -> list[list[Article]]:
    """``n`` groups of disjoint stories: by section (``"section"``, or ``"auto"`` when there
    are at least ``n`` sections), else by a hash of the URL (``"hash"``)."""
    if n < 1:
        raise ValueError(f"the number of sites ({n}) must be at least 1")
    if n > len(articles):
        raise ValueError(f"{n} sites cannot share {len(articles)} articles: at most one site per article")
    if by not in ("auto", "section", "hash"):
        raise ValueError(f"split ({by!r}) must be auto, section or hash")
    sections: dict[str, list[Article]] = {}
    for article in articles:
        sections.setdefault(_section(article), []).append(article)
    if by == "section" and len(sections) < n:
        raise ValueError(f"the corpus has {len(sections)} sections: it cannot be split by section "
                         f"into {n} sites (use --split hash)")
    groups: list[list[Article]] = [[] for _ in range(n)]
    if by == "section" or (by == "auto" and len(sections) >= n):
        # largest first, each to the smallest site so far (ties: the lowest number)
        for _, members in sorted(sections.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            smallest = min(range(n), key=lambda i: (len(groups[i]), i))
            groups[smallest].extend(members)
    else:
        # in the order of a hash of their URLs, dealt in turn: as many stories on each site
        # (give or take one), none empty, the same split every time
        shuffled = sorted(articles, key=lambda a: (zlib.crc32(a.url.encode("utf-8")), a.url))
        for k, article in enumerate(shuffled):
            groups[k % n].append(article)
    empty = [i for i, group in enumerate(groups) if not group]
    if empty:
        raise ValueError(f"{len(empty)} of the {n} sites would have no story: use fewer sites")
    return [sorted(group, key=lambda a: (a.published, a.lineno)) for group in groups]


class ProfiledResource(resource.Resource):
    """A site's pages as its profile serves them: an error burst's status and
    ``Retry-After``, a log-normal latency before the answer, and now and then a stall (the
    headers, then nothing for ``stall_seconds``, then the body)."""

    isLeaf = True

    def __init__(self, inner: ReplayResource, profile: SiteProfile, clock: SimClock, rng, reactor):
        super().__init__()
        self.inner = inner
        self.profile = profile
        self.clock = clock
        self.rng = rng
        self.reactor = reactor
        self.counts = {"delayed": 0, "stalled": 0, "errors": 0}

    def render(self, request: server.Request):
        request.replay_wall = self.clock.wall()  # its arrival, what politeness is measured by
        now = self.clock.now_ts()
        error = self.profile.error_at(now - self.clock.start_ts)
        if error is not None:
            self.counts["errors"] += 1
            request.replay_sim_ts = now
            request.setHeader(b"date", datetimeToString(now))
            request.setResponseCode(error.status)
            request.setHeader(b"content-type", b"text/plain; charset=utf-8")
            if error.retry_after is not None:
                request.setHeader(b"retry-after", b"%d" % math.ceil(error.retry_after))
            return b"try again later\n"
        delay = self.profile.delay(self.rng)
        stall = self.profile.stalls(self.rng)
        if delay <= 0 and not stall:
            return self.inner.render(request)
        self.counts["delayed"] += delay > 0
        self.counts["stalled"] += stall
        request.replay_held = round(delay + (self.profile.stall_seconds if stall else 0.0), 6)
        request.replay_stalled = stall
        gone: list[bool] = []
        calls = []
        request.notifyFinish().addErrback(lambda _: self._gone(request, gone, calls))
        calls.append(self.reactor.callLater(delay, self._answer, request, stall, gone, calls))
        return server.NOT_DONE_YET

    @staticmethod
    def _gone(request: server.Request, gone: list[bool], calls: list) -> None:
        """The client closed the connection before the answer was done (it gave up on a stall):
        the request is logged all the same (``abandoned``; status 499, nginx's "client closed
        request", when not even the headers had gone), so the log counts every request."""
        gone.append(True)
        for call in calls:
            if call.active():
                call.cancel()
        request.replay_abandoned = True
        if not request.startedWriting:
            request.code = 499
        site = getattr(request, "site", None)
        if site is not None and hasattr(site, "request_log"):
            site.log(request)

    def _answer(self, request: server.Request, stall: bool, gone: list[bool], calls: list) -> None:
        if gone:
            return
        body = self.inner.render(request)
        if body is server.NOT_DONE_YET:  # a 304: already answered
            return
        if request.method != b"HEAD":
            request.setHeader(b"content-length", b"%d" % len(body))
        if stall:
            request.write(b"")  # the headers go, then nothing
            calls.append(self.reactor.callLater(self.profile.stall_seconds, self._finish, request, body, gone))
        else:
            self._finish(request, body, gone)

    @staticmethod
    def _finish(request: server.Request, body: bytes, gone: list[bool]) -> None:
        if gone:
            return
        if request.method != b"HEAD":
            request.write(body)
        request.finish()


class Site:
    """One site of a many-site replay: its pages, its profile, its address and port."""

    def __init__(self, number: int, articles: list[Article], profile: SiteProfile, clock: SimClock,
                 page_profile: str, feeds: float, seed: int, address: str):
        self.number = number
        self.address = address
        self.profile = profile
        self.index = SiteIndex(articles, retime=None, seed=seed)
        self.articles: list[ReplayArticle] = self.index.articles
        self.pages = PageBuilder(self.index, page_profile, feeds=profile.feeds if profile.feeds is not None else feeds)
        self.rng = np.random.default_rng([seed, number])
        self.resource: ProfiledResource | None = None
        self.http: ReplayHTTPSite | None = None
        self.port_number = 0
        self.listening = None  # the Twisted port while it listens

    @property
    def host(self) -> str:
        return f"{self.address}:{self.port_number}"

    @property
    def url(self) -> str:
        if not self.port_number:
            raise RuntimeError("the replay is not listening; call listen() first")
        return f"http://{self.host}/"


class ManySites:
    """A corpus served as ``n_sites`` sites (see the module's docstring).

    ``profiles``: each site's behaviour (:class:`~.profiles.Profiles`; default: fast and
    healthy); ``run``: the run's length in simulated seconds, for windows given as shares of
    it. The other arguments are :class:`~newsforagers.replay.server.ReplaySite`'s.
    """

    def __init__(self, corpus: Corpus | Iterable[Article] | str | Path, n_sites: int,
                 profiles: Profiles | None = None, profile: str = "hard", speed: float = 600.0,
                 start: datetime | None = None, retime: float | None = None,
                 log_path: str | Path | None = None, seed: int = 0,
                 wall: Callable[[], float] = time.time, prerender: bool = True, feeds: float = 0.0,
                 split: str = "auto", network: str = SITE_NETWORK, run: float | None = None):
        if not 1 <= n_sites <= MAX_SITES:
            raise ValueError(f"the number of sites ({n_sites}) must be between 1 and {MAX_SITES}")
        if isinstance(corpus, (str, Path)):
            corpus = load_corpus(corpus)
        articles = list(corpus.articles if isinstance(corpus, Corpus) else corpus)
        if not articles:
            raise ValueError("the replay needs at least one article")
        articles = retimed(articles, retime, seed) if retime is not None else \
            sorted(articles, key=lambda a: (a.published, a.lineno))
        groups = split_articles(articles, n_sites, split)
        self.profiles = (profiles or Profiles()).resolved(run)
        self.clock = SimClock(start or articles[0].published - START_LEAD, speed, wall)
        self.log = RequestLog(log_path)
        self.sites = [Site(i, group, self.profiles.of(i), self.clock, profile, feeds, seed,
                           site_address(i, network)) for i, group in enumerate(groups)]
        self.prerender = prerender
        self.reactor = None
        self._loops: list = []
        self._prerender_cursor = 0
        self.relisten_failures = 0

    # -- serving -------------------------------------------------------------------------------

    def listen(self, reactor=None) -> None:
        """Every site listens on its own address (a free port each); the clock starts now."""
        if reactor is None:
            from twisted.internet import reactor
        if self.reactor is not None:
            raise RuntimeError("the replay is already listening")
        self.reactor = reactor
        if self.prerender:
            for site in self.sites:
                site.pages.prerender(self.clock.start_ts + PRERENDER_AHEAD, float("inf"))
        self.clock.reset()
        for site in self.sites:
            if not is_loopback(site.address):
                raise ValueError(f"{site.address} is not a loopback address")
            inner = ReplayResource(site.pages, self.clock)
            site.resource = ProfiledResource(inner, site.profile, self.clock, site.rng, reactor)
            site.http = ReplayHTTPSite(site.resource, self.clock, self.log, reactor)
            site.listening = reactor.listenTCP(0, site.http, interface=site.address)
            site.port_number = site.listening.getHost().port
            site.http.name = site.host
        if any(site.profile.down for site in self.sites):
            self._every(DOWN_TICK, self._down_windows)
            self._down_windows()
        if self.prerender:
            self._every(PRERENDER_EVERY, self._prerender_slice)

    def _every(self, interval: float, call: Callable[[], None]) -> None:
        from twisted.internet import task

        loop = task.LoopingCall(call)
        loop.clock = self.reactor
        loop.start(interval, now=False)
        self._loops.append(loop)

    def _down_windows(self) -> None:
        """A site in a down window stops listening (connection refused), and listens again on
        the same port when the window ends."""
        from twisted.internet.error import CannotListenError

        offset = self.clock.now_ts() - self.clock.start_ts
        for site in self.sites:
            if not site.profile.down:
                continue
            down = site.profile.down_at(offset)
            if down and site.listening is not None:
                port, site.listening = site.listening, None
                port.stopListening()
                site.http.drop_connections()
            elif not down and site.listening is None:
                try:
                    site.listening = self.reactor.listenTCP(site.port_number, site.http, interface=site.address)
                except CannotListenError:
                    self.relisten_failures += 1  # the port is still closing: next tick

    def _prerender_slice(self) -> None:
        until = self.clock.now_ts() + PRERENDER_AHEAD
        share = PRERENDER_SLICE / PRERENDER_SITES
        for _ in range(min(PRERENDER_SITES, len(self.sites))):
            self.sites[self._prerender_cursor].pages.prerender(until, share)
            self._prerender_cursor = (self._prerender_cursor + 1) % len(self.sites)

    def stop(self):
        """Stop every site, drop open connections, close the log; returns a Deferred."""
        from twisted.internet import defer

        for loop in self._loops:
            if loop.running:
                loop.stop()
        self._loops = []
        stopping = []
        for site in self.sites:
            if site.listening is not None:
                port, site.listening = site.listening, None
                stopping.append(defer.maybeDeferred(port.stopListening))
            if site.http is not None:
                site.http.drop_connections()
        done = defer.DeferredList(stopping, consumeErrors=True)

        def closed(result):
            self.log.close()
            return None

        return done.addBoth(closed)

    # -- the truth ---------------------------------------------------------------------------

    @property
    def urls(self) -> list[str]:
        """Each site's home page, by site number."""
        return [site.url for site in self.sites]

    @property
    def articles(self) -> list[ReplayArticle]:
        return [a for site in self.sites for a in site.articles]

    def truth(self) -> list[dict]:
        """One record per article of every site (its full URL, ``host`` and ``site``), in
        publication order."""
        records = []
        for site in self.sites:
            base = site.url if site.port_number else ""
            for article in site.articles:
                record = article.truth(base)
                record["host"] = site.host if site.port_number else site.address
                record["site"] = site.number
                records.append(record)
        return sorted(records, key=lambda r: (r["published"], r["site"]))

    def write_truth(self, path: str | Path) -> None:
        with open(path, "w", encoding="utf-8") as out:
            for record in self.truth():
                out.write(json.dumps(record, ensure_ascii=False) + "\n")

    def visible_count(self, at: float | None = None) -> int:
        ts = self.clock.now_ts() if at is None else at
        return sum(site.index.visible_count(ts) for site in self.sites)

    @property
    def request_count(self) -> int:
        return self.log.count
