"""A small loopback site for forager tests, and a runner for ``scrapy crawl forager``.

:class:`TestSite` serves pages that each test defines (articles dated a little before the real
UTC clock, undated pages, binary bodies, flaky pages, redirects, robots.txt, caching headers)
from a private :class:`~twisted.internet.selectreactor.SelectReactor` in a thread, on
127.0.0.1 and a free port, and counts every request it answers, per path, with its status::

    with TestSite() as site:
        site.article("/a1.html", "Harbour opens", topic=0)
        site.html("/", home_page("Home", ["/a1.html"]))
        run = crawl_forager(site.url, tmp_path, settings={"CLOSESPIDER_PAGECOUNT": 20})
        assert site.count("/a1.html") >= 1

:func:`crawl_forager` runs the real ``scrapy crawl forager`` from the repository root in a
subprocess (as a user would), with a private SQLite store, no proxy and a short backstop
timeout, and returns its exit code, log, items and the final stats dump as a dict.

Nothing here ever contacts a host other than 127.0.0.1: the site only listens there, and the
runner removes proxy variables from the crawl's environment and disables Scrapy's proxy
middleware.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import socket
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Callable, Iterable

from twisted.internet import defer, threads
from twisted.internet.selectreactor import SelectReactor
from twisted.web import http
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Site

REPO = Path(__file__).resolve().parents[2]

# A few distinct vocabularies, so that pages of one topic resemble each other and the
# forager's encoder bootstrap has clusters to find.
TOPICS = (
    "harbour ferry ship port cargo crane dock sailors tide container vessel quay",
    "election vote parliament minister ballot campaign coalition senate party reform",
    "football match goal striker league coach stadium referee season transfer",
    "storm rain flood forecast wind temperature weather snow drought climate",
    "market shares bank inflation interest bond investor currency trade profit",
)

#: The smallest valid PNG (1x1, transparent): a binary body with NUL bytes.
PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)

# What a handler returns: status, headers, body; or a Deferred firing with them (a slow page).
Reply = tuple[int, dict[str, str], bytes]
Handler = Callable[[http.Request], "Reply | defer.Deferred"]


def topic_text(topic: int, n: int, words: int = 60) -> str:
    """Deterministic text of ``words`` words about ``topic``, varied by ``n``."""
    vocabulary = TOPICS[topic % len(TOPICS)].split()
    out = [vocabulary[(n * 7 + i * (n % 5 + 1)) % len(vocabulary)] for i in range(words)]
    return " ".join(out) + f" story{n} report{n % 3}"


def html_page(title: str, text: str, links: Iterable[str] = (), head: str = "") -> bytes:
    anchors = "".join(f'<li><a href="{html.escape(href)}">{html.escape(href)}</a></li>'
                      for href in links)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"{head}</head><body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
            f"<ul>{anchors}</ul></body></html>").encode("utf-8")


def article_html(title: str, *, topic: int = 0, n: int = 0, age: timedelta = timedelta(hours=1),
                 links: Iterable[str] = ("/",)) -> tuple[bytes, datetime]:
    """An article page published ``age`` before now (real UTC clock), and that time."""
    published = (datetime.now(UTC) - age).replace(microsecond=0)
    head = f'<meta property="article:published_time" content="{published.isoformat()}">'
    return html_page(title, topic_text(topic, n), links, head=head), published


class _Root(Resource):
    isLeaf = True

    def __init__(self, site: TestSite):
        super().__init__()
        self._site = site

    def render(self, request: http.Request) -> bytes:
        path = request.path.decode("latin-1")
        handler = self._site.handler_of(path)
        if handler is None:
            reply = 404, {"Content-Type": "text/html"}, b"<html><body>no such page</body></html>"
        else:
            reply = handler(request)
        if isinstance(reply, defer.Deferred):
            gone, arrived = [], time.monotonic()
            request.notifyFinish().addErrback(gone.append)  # the client hung up

            def answer(late: Reply) -> None:
                # logged at its arrival, like every request; status 0: the client had gone
                if gone:
                    self._site.record(path, 0, request, at=arrived)
                    return
                body = self._answer(request, path, late, at=arrived)
                request.write(body)
                request.finish()

            reply.addCallback(answer)
            return NOT_DONE_YET
        return self._answer(request, path, reply)

    def _answer(self, request: http.Request, path: str, reply: Reply, at: float | None = None) -> bytes:
        status, headers, body = reply
        if request.code == http.NOT_MODIFIED:  # setLastModified answered a conditional GET
            status, body = http.NOT_MODIFIED, b""
        request.setResponseCode(status)
        for name, value in headers.items():
            request.setHeader(name, value)
        self._site.record(path, status, request, at=at)
        return b"" if request.method == b"HEAD" else body


@dataclass
class Hit:
    path: str
    status: int
    host: str  # the Host header: "127.0.0.1:PORT" or "localhost:PORT"
    if_modified_since: str | None
    at: float  # time.monotonic() when the request arrived
    uri: str = ""  # path and query as requested


class TestSite:
    """The site: ``handlers`` maps a path (no query) to what it answers; ``hits`` logs requests."""

    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}
        self.prefix_handlers: dict[str, Handler] = {}
        self.hits: list[Hit] = []
        #: (path, time.monotonic()) of each client that hung up before its answer was complete
        #: (what a handler that answers slowly records with :meth:`record_hangup`)
        self.hangups: list[tuple[str, float]] = []
        self._lock = threading.Lock()
        self.reactor = SelectReactor()
        factory = Site(_Root(self))
        factory.noisy = False
        self.port = self.reactor.listenTCP(0, factory, interface="127.0.0.1")
        self.thread = threading.Thread(target=self.reactor.run, kwargs={"installSignalHandlers": False},
                                       daemon=True, name="testsite-reactor")
        self.thread.start()

    # -- addresses ----------------------------------------------------------------------------

    @property
    def port_number(self) -> int:
        return self.port.getHost().port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port_number}/"

    def url_of(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port_number}{path}"

    # -- the request log ----------------------------------------------------------------------

    def record(self, path: str, status: int, request: http.Request, at: float | None = None) -> None:
        since = request.getHeader(b"If-Modified-Since")
        host = request.getHeader(b"Host") or b""
        with self._lock:
            self.hits.append(Hit(path, status, host.decode("latin-1"),
                                 since.decode("latin-1") if since else None,
                                 time.monotonic() if at is None else at,
                                 request.uri.decode("latin-1")))

    def record_hangup(self, path: str) -> None:
        with self._lock:
            self.hangups.append((path, time.monotonic()))

    def hangups_of(self, path: str) -> list[float]:
        with self._lock:
            return [at for hung, at in self.hangups if hung == path]

    def count(self, path: str | None = None) -> int:
        """Requests answered for ``path`` (every path when None)."""
        with self._lock:
            return sum(1 for hit in self.hits if path is None or hit.path == path)

    def counts(self) -> Counter[str]:
        with self._lock:
            return Counter(hit.path for hit in self.hits)

    def statuses(self, path: str) -> list[int]:
        with self._lock:
            return [hit.status for hit in self.hits if hit.path == path]

    def hits_of(self, path: str | None = None) -> list[Hit]:
        with self._lock:
            return [hit for hit in self.hits if path is None or hit.path == path]

    def reset(self) -> None:
        with self._lock:
            self.hits.clear()
            self.hangups.clear()

    # -- pages --------------------------------------------------------------------------------

    def serve(self, path: str, handler: Handler) -> None:
        self.handlers[path] = handler

    def serve_prefix(self, prefix: str, handler: Handler) -> None:
        """``handler`` answers every path starting with ``prefix`` that has no handler of its
        own (the longest prefix wins): endless families of pages, ``;param=`` paths."""
        self.prefix_handlers[prefix] = handler

    def handler_of(self, path: str) -> Handler | None:
        handler = self.handlers.get(path)
        if handler is None:
            prefixes = [prefix for prefix in self.prefix_handlers if path.startswith(prefix)]
            if prefixes:
                handler = self.prefix_handlers[max(prefixes, key=len)]
        return handler

    def html(self, path: str, body: bytes, headers: dict[str, str] | None = None,
             last_modified: datetime | None = None) -> None:
        """A fixed HTML page; with ``last_modified``, conditional GETs get a 304."""
        fixed = {"Content-Type": "text/html; charset=utf-8", **(headers or {})}

        def handler(request: http.Request) -> Reply:
            if last_modified is not None:
                request.setLastModified(last_modified.timestamp())
            return 200, fixed, body

        self.serve(path, handler)

    def home(self, links: Iterable[str], title: str = "Front page", **kwargs) -> None:
        text = "Today on the site: news from the harbour, the parliament, the stadium and the markets."
        self.html("/", html_page(title, text, links), **kwargs)

    def article(self, path: str, title: str, *, topic: int = 0, n: int = 0,
                age: timedelta = timedelta(hours=1), links: Iterable[str] = ("/",), **kwargs) -> datetime:
        """A news article published ``age`` before now (real UTC clock); returns that time."""
        body, published = article_html(title, topic=topic, n=n, age=age, links=links)
        self.html(path, body, **kwargs)
        return published

    def undated(self, path: str, title: str, *, topic: int = 0, n: int = 0, links: Iterable[str] = ("/",),
                **kwargs) -> None:
        """A page without any date: no metadata, no <time>, no digits in its text or path."""
        text = re.sub(r"\d+", "", topic_text(topic, n))
        self.html(path, html_page(title, text, links), **kwargs)

    def binary(self, path: str, body: bytes = PNG_1X1, content_type: str = "image/png") -> None:
        self.serve(path, lambda request: (200, {"Content-Type": content_type}, body))

    def flaky(self, path: str, failures: int, then: bytes, status: int = 503) -> None:
        """``status`` (with a tiny body) the first ``failures`` times, then the HTML ``then``."""
        served = Counter()

        def handler(request: http.Request) -> Reply:
            served["n"] += 1
            if served["n"] <= failures:
                return status, {"Content-Type": "text/plain", "Retry-After": "0"}, b"busy, try again"
            return 200, {"Content-Type": "text/html; charset=utf-8"}, then

        self.serve(path, handler)

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        self.serve(path, lambda request: (status, {"Location": location, "Content-Type": "text/html"},
                                          b"<html><body>moved</body></html>"))

    def robots(self, text: str) -> None:
        self.serve("/robots.txt", lambda request: (200, {"Content-Type": "text/plain"}, text.encode("utf-8")))

    # -- lifecycle ----------------------------------------------------------------------------

    def close(self) -> None:
        if not self.thread.is_alive():
            return
        threads.blockingCallFromThread(self.reactor, self.port.stopListening)
        self.reactor.callFromThread(self.reactor.stop)
        self.thread.join(10)
        assert not self.thread.is_alive(), "the test site's reactor did not stop"

    def __enter__(self) -> TestSite:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def news_site(site: TestSite, n_articles: int = 6, *, prefix: str = "/news/",
              extra_home_links: Iterable[str] = (), **article_kwargs) -> dict[str, datetime]:
    """Fill ``site`` with a home page and ``n_articles`` dated articles (a few topics, each
    linking home and to the next article); returns path -> publication time."""
    paths = [f"{prefix}story-{chr(ord('a') + i)}.html" for i in range(n_articles)]
    published = {}
    for i, path in enumerate(paths):
        links = ["/", paths[(i + 1) % n_articles]]
        published[path] = site.article(path, f"Story {chr(ord('A') + i)}", topic=i % 3, n=i,
                                       age=timedelta(minutes=20 + 10 * i), links=links, **article_kwargs)
    site.home([*paths, *extra_home_links])
    return published


# -- running the forager ----------------------------------------------------------------------

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")

#: Settings of every test crawl: small state, a tiny encoder bootstrap, a short crawl ended
#: by CLOSESPIDER_PAGECOUNT (FORAGERS_MAX_PATHS leaves the crawl waiting for the backstop:
#: see test_forager_bad_input.test_max_paths_ends_the_crawl_by_itself), a timeout backstop.
BASE_SETTINGS = {
    # the papers' forager: its steps and paths are what these tests count; a test of the
    # scheduled strategy (the default) asks for it
    "FORAGERS_STRATEGY": "paper",
    "FORAGERS_SEED": 1,
    "FORAGERS_MIN": 1,  # one forager: these tests are about its requests, not the colony
    "FORAGERS_FETCH_TTL": 0,  # every request reaches the site, so the site can count them
    "FORAGERS_N_CLUSTERS": 3,
    "FORAGERS_BOOTSTRAP_PAGES": 8,
    "CLOSESPIDER_PAGECOUNT": 20,
    "FORAGERS_STEP_TIMEOUT": 5,
    "CLOSESPIDER_TIMEOUT": 25,
    "STATS_DUMP": True,
    "LOG_LEVEL": "DEBUG",
    "TELNETCONSOLE_ENABLED": False,
    "HTTPPROXY_ENABLED": False,
    "DOWNLOAD_TIMEOUT": 10,
}


@dataclass
class Crawl:
    argv: list[str]
    returncode: int
    log: str  # the LOG_FILE, then the process's stderr
    items: list[dict]
    stats: dict
    seconds: float
    extra: dict = field(default_factory=dict)
    started: float = 0.0  # time.monotonic() when the process was started (the site's Hit.at clock)

    @property
    def finish_reason(self) -> str | None:
        return self.stats.get("finish_reason")

    def describe(self) -> str:
        """The end of the log, for assertion messages."""
        return f"exit {self.returncode} after {self.seconds:.1f}s\n" + self.log[-4000:]


def parse_stats(log: str) -> dict:
    """The final ``Dumping Scrapy stats:`` block as a dict (datetimes become None)."""
    match = re.search(r"Dumping Scrapy stats:\n(\{.*?\})\n(?=\d{4}-\d\d-\d\d |\Z)", log, re.S)
    if match is None:
        return {}
    block = re.sub(r"datetime\.datetime\([^()]*\)", "None", match.group(1))
    return ast.literal_eval(block)


#: What a crawl at Scrapy's and the add-on's defaults still needs from a test harness: the
#: store and log in the test's directory, the colony's record there too (not in the
#: repository's .newsforagers/runs), no telnet console listening, no proxy, a fixed seed
#: (a failure can be run again).
HARNESS_SETTINGS = {
    "FORAGERS_SEED": 1,
    "TELNETCONSOLE_ENABLED": False,
    "HTTPPROXY_ENABLED": False,
}


def crawl_forager(seeds: str, tmp: Path, *, name: str = "run", settings: dict | None = None,
                  args: dict | None = None, timeout: float = 45.0, base: dict | None = None,
                  peak_memory: bool = False, memory_cap: int = 0) -> Crawl:
    """``scrapy crawl forager -a seeds=SEEDS -O NAME.jsonl`` from the repository root.

    Later settings win, so ``settings`` overrides ``base`` (:data:`BASE_SETTINGS`, a short
    test crawl, unless given: :data:`HARNESS_SETTINGS` for a crawl at the defaults). The store
    is ``TMP/NAME.db`` unless ``settings`` names one; with a ``base`` given, the colony's record
    goes to ``TMP/NAME-run`` unless ``settings`` says where. ``timeout`` (seconds) is the hang
    detector: :class:`~tests.integration.forager_run.CrawlHung` (with the stacks of the
    crawl's threads) propagates.

    With ``peak_memory``, ``extra["peak_rss"]`` is the crawl's peak resident set size in bytes
    (:mod:`tests.integration.peak_rss`), and ``memory_cap`` (bytes, 0: none) its address-space
    limit.
    """
    tmp.mkdir(parents=True, exist_ok=True)
    out, log = tmp / f"{name}.jsonl", tmp / f"{name}.log"
    merged = {**(BASE_SETTINGS if base is None else base), "FORAGERS_STORE": f"sqlite:///{tmp}/{name}.db",
              "LOG_FILE": log, **(settings or {})}
    if base is not None and "FORAGERS_RUN_DIR" not in merged:
        merged["FORAGERS_RUN_DIR"] = tmp / f"{name}-run"
    argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={seeds}", "-O", str(out)]
    for key, value in (args or {}).items():
        argv += ["-a", f"{key}={value}"]
    for key, value in merged.items():
        argv += ["-s", f"{key}={value}"]
    from tests.integration.forager_run import run_crawl

    env = {k: v for k, v in os.environ.items() if k.lower() not in _PROXY_VARIABLES}
    env["PYTHONUNBUFFERED"] = "1"
    peak = tmp / f"{name}.peak_rss"
    command = ([sys.executable, "-m", "tests.integration.peak_rss", str(peak), str(memory_cap), "--", *argv]
               if peak_memory else argv)
    started = time.monotonic()
    returncode, stderr = run_crawl(command, log, timeout, env)
    seconds = time.monotonic() - started
    text = (log.read_text(encoding="utf-8") if log.exists() else "") + stderr
    items = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    crawl = Crawl(argv, returncode, text, items, parse_stats(text), seconds, started=started)
    if peak_memory:
        crawl.extra["peak_rss"] = int(peak.read_text())
    return crawl


def free_loopback_port() -> int:
    """A loopback port with nothing listening (bound, noted, closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


#: How a short test crawl may end by itself: the forager is done, or CLOSESPIDER_PAGECOUNT.
ENDED_BY_ITSELF = ("finished", "closespider_pagecount")


def assert_ended_cleanly(run: Crawl, reasons: Iterable[str] = ENDED_BY_ITSELF) -> None:
    """Exit 0, no traceback, no error logged, and the crawl ended by itself, not by the
    CLOSESPIDER_TIMEOUT backstop, with no step left waiting for the step timeout."""
    assert run.returncode == 0, run.describe()
    assert "Traceback" not in run.log, run.describe()
    assert run.stats, f"no stats dump in the log\n{run.describe()}"
    assert run.finish_reason in tuple(reasons), run.describe()
    assert "log_count/ERROR" not in run.stats, run.describe()
    assert "newsforagers/step/abandoned/timeout" not in run.stats, run.describe()
