"""A hostile loopback site: everything a careless or unfriendly news site does to a crawler,
each at its own paths, around a few ordinary dated articles (the news a crawl must still find).

:func:`hostile_site` fills a :class:`~tests.integration.testsite.TestSite`; the home page links
to the ordinary articles and to every hostile case, so the first step of a forager probes each
of them at least once. :data:`CASES` names the paths of each case.

With ``limits=True`` the site also does what no page of a real site needs but a hostile one
can (issue 15), each at its own path of :data:`LIMIT_CASES`, linked from the home page after
the others: a gzip bomb, a page of 200,000 links, a ``Date`` in the year 9999 (also with a
numeric zone), a response that stalls after its headers, one that trickles a few bytes a
second, and a 503 asking for a ``Retry-After`` of 999,999 seconds. They are opt-in: each one
holds, pauses or fills a crawl far beyond what the older cases' tests are about.

Nothing here leaves 127.0.0.1: the off-site redirect points at ``localhost`` on the same port
(a request that got through would be seen in the site's log).
"""

from __future__ import annotations

import contextlib
import functools
import html
import secrets
import zlib
from collections import Counter
from datetime import UTC, date, datetime, timedelta

from twisted.internet import defer, task
from twisted.web import http

from tests.integration.testsite import (
    PNG_1X1,
    Reply,
    TestSite,
    article_html,
    crawl_forager,
    html_page,
    news_site,
    topic_text,
)

#: Seconds a 429 asks the colony to wait (Retry-After).
RETRY_AFTER = 2
#: Seconds the slow page takes to answer (beyond the crawl's DOWNLOAD_TIMEOUT).
SLOW_SECONDS = 6.0
#: Bytes of the page over DOWNLOAD_MAXSIZE (the crawl sets a smaller limit).
HUGE_BYTES = 300_000

CASES = {
    "malformed": "/hostile/malformed.html",
    "truncated": "/hostile/truncated.html",  # cut off mid-tag, the HTTP exchange complete
    "cut_off": "/hostile/cut-off.html",  # the connection drops before Content-Length bytes
    "empty": "/hostile/garbage.html",  # text/html that lxml can make nothing of
    "binary": "/hostile/photo.html",  # a PNG served as text/html
    "huge": "/hostile/huge.html",
    "charset_replaced": "/hostile/latin1-says-utf8.html",
    "charset_unknown": "/hostile/klingon-charset.html",
    "charset_undeclared": "/hostile/no-charset.html",
    "undated": "/hostile/undated.html",
    "future": "/hostile/future.html",
    "footer_date": "/hostile/footer-date.html",
    "redirect_loop": "/hostile/loop-a",
    "redirect_offsite": "/hostile/moved-away",
    "burst": "/hostile/burst.html",  # 502, 500, then the article
    "down": "/hostile/down.html",  # 500 every time
    "busy": "/hostile/busy.html",  # 429 + Retry-After once, then the article
    "slow": "/hostile/slow.html",
    "session_trap": "/trap/session",
    "calendar_trap": "/calendar/",
    "duplicate": "/news/same-story.html",
}

#: The same story, also under these URLs (tracking parameters, a print version).
DUPLICATE_URLS = ("/news/same-story.html?utm_source=home", "/news/same-story.html?ref=front",
                  "/print/same-story.html")

#: The hostile pages that carry a readable, fresh article: still read, still found.
READABLE_ARTICLES = ("malformed", "truncated", "charset_replaced", "charset_unknown",
                     "charset_undeclared", "burst", "busy")

# -- the limits' cases (issue 15; ``hostile_site(site, limits=True)``) ------------------------

#: Bytes the gzip bomb expands to (about 1 MB on the wire: deflate's best ratio is ~1032:1).
BOMB_BYTES = 10**9
#: Links on the page of links.
MANY_LINKS = 200_000
#: The year-9999 Date headers: the largest date HTTP can write, in GMT and with a numeric zone
#: west of UTC (11:59:59 UTC on 1 January 10000, which no datetime can hold).
FAR_DATES = {"date_far": "Fri, 31 Dec 9999 23:59:59 GMT", "date_far_zone": "Fri, 31 Dec 9999 23:59:59 -1200"}
#: The trickle: this many bytes every TRICKLE_EVERY seconds (its page of 9.5 kB takes 20 minutes).
TRICKLE_BYTES = 4
TRICKLE_EVERY = 0.5
#: What the 503 asks for (about eleven days).
RETRY_AFTER_HUGE = 999_999
#: Seconds the site takes to answer that 503: requests a crawler sent with it (the home page's
#: next links, read about in order) reach the site before the pause starts.
RETRY_AFTER_HUGE_DELAY = 1.0

LIMIT_CASES = {
    "bomb": "/hostile/bomb.html",  # gzip, ~1 MB expanding to BOMB_BYTES
    "many_links": "/hostile/many-links.html",  # MANY_LINKS links to /many/<n>
    "date_far": "/hostile/date-9999.html",  # an article, Date: ... 9999 ... GMT
    "date_far_zone": "/hostile/date-9999-zone.html",  # an article, Date: ... 9999 ... -1200
    # 503, Retry-After: 999999, every time (after RETRY_AFTER_HUGE_DELAY s). It pauses the whole
    # host, beyond any test crawl: what a colony asks for after it waits, so the cases that hold
    # a forager's request come after it (a forager that asks one request at a time, the
    # scheduled strategy's, would otherwise spend DOWNLOAD_TIMEOUT on them first)
    "retry_after_huge": "/hostile/closed-for-ages.html",
    "stalled": "/hostile/stalled.html",  # the headers, then nothing, ever
    "trickle": "/hostile/trickle.html",  # the headers, then TRICKLE_BYTES every TRICKLE_EVERY s
}
#: The prefix of the many links' targets (each one a 404: the site has no such page).
MANY_LINKS_PREFIX = "/many/"
#: Paths of the hostile site (and prefixes: ending in "/") with no fresh article of their own
#: to give, or one never delivered whole: whatever the settings, none may be output.
NOT_NEWS = (*(CASES[name] for name in ("cut_off", "empty", "binary", "undated", "future", "footer_date",
                                       "redirect_loop", "redirect_offsite", "down")),
            "/hostile/loop-b", "/elsewhere.html", "/trap/", "/calendar/", MANY_LINKS_PREFIX,
            *(LIMIT_CASES[name] for name in ("bomb", "many_links", "retry_after_huge", "stalled", "trickle")))


def is_not_news(path: str) -> bool:
    """``path`` is one of :data:`NOT_NEWS` (or under one of its prefixes)."""
    return any(path.startswith(entry) if entry.endswith("/") else path == entry for entry in NOT_NEWS)

#: The limits' cases that carry a readable, fresh article: only their Date header is wrong.
LIMIT_READABLE_ARTICLES = ("date_far", "date_far_zone")


def _dated(title: str, n: int, minutes: int = 15) -> tuple[bytes, datetime]:
    return article_html(title, topic=n % 3, n=n, age=timedelta(minutes=minutes), links=["/"])


def _published_meta(published: datetime) -> str:
    return f'<meta property="article:published_time" content="{published.isoformat()}">'


def _malformed(published: datetime) -> bytes:
    # unclosed and stray tags, bad nesting, an unquoted attribute, an unterminated one at the end
    return (f"<html><head><title>Malformed but readable</title>{_published_meta(published)}"
            "<body><div><p>Harbour cranes <b>stopped <i>work</b> today</i> as dockers"
            " </span></div></div><table><tr><td>cargo<td>ferry</table>"
            "<p>quay vessel tide <a href=/>home</a><p>container ship sailors"
            "<a href='/news/story-b.html'>next</a> <img src=\"broken.png alt=x").encode()


def _truncated(published: datetime) -> bytes:
    body = html_page("Cut off in the middle", topic_text(1, 41), ["/", "/news/story-c.html"],
                     head=_published_meta(published))
    return body[: body.index(b"</ul>") - 7]  # ends inside the last link's text


def _no_charset(published: datetime, title: str, n: int) -> bytes:
    # Latin-1 bytes, and no <meta charset> or BOM to say so
    return (f"<html><head><title>{title}</title>{_published_meta(published)}</head>"
            f"<body><p>{topic_text(2, n)} caf\xe9 cr\xe8me</p><a href='/'>home</a></body></html>"
            ).encode("latin-1")


def _footer_dated(now: datetime) -> bytes:
    # a date only in the site's footer: "updated" and a render time, on every page
    stamp = now.replace(microsecond=0)
    return (f"<html><head><meta charset='utf-8'><title>About our newsroom</title></head><body>"
            f"<h1>About our newsroom</h1><p>{topic_text(0, 44)}</p><a href='/'>home</a>"
            f"<footer><p>Page updated <time datetime='{stamp.isoformat()}'>{stamp:%H:%M}</time>"
            f" on {stamp:%d %B %Y}. &copy; {stamp.year} Example News</p></footer></body></html>").encode()


def _calendar_day(day: date) -> bytes:
    # a day of an endless calendar: two listed events (so a listing, not a dated page) and
    # links to the days and months around it, forever
    links = [f"/calendar/{day - timedelta(days=1):%Y-%m-%d}", f"/calendar/{day + timedelta(days=1):%Y-%m-%d}",
             f"/calendar/{day - timedelta(days=30):%Y-%m-%d}", f"/calendar/{day + timedelta(days=30):%Y-%m-%d}", "/"]
    events = "".join(f"<li><time datetime='{day:%Y-%m-%d}T{hour:02d}:00:00Z'>{hour}:00</time> "
                     f"<a href='/calendar/{day:%Y-%m-%d}#e{hour}'>event</a></li>" for hour in (10, 18))
    anchors = "".join(f"<a href='{href}'>{href}</a> " for href in links)
    return (f"<html><head><meta charset='utf-8'><title>Calendar {day}</title></head><body>"
            f"<h1>What is on, {day:%d %B %Y}</h1><ul>{events}</ul><p>{anchors}</p></body></html>").encode()


def _session_page(request: http.Request) -> Reply:
    # every visit hands out fresh session ids in every link: endless URLs for two pages
    def sid() -> str:
        return secrets.token_hex(16)

    links = [f"/trap/session;jsessionid={sid()}", f"/trap/session?sid={sid()}", f"/trap/other?sid={sid()}",
             f"/trap/other;jsessionid={sid()}?page=2", "/"]
    anchors = "".join(f'<li><a href="{html.escape(href)}">more</a></li>' for href in links)
    body = (f"<html><head><meta charset='utf-8'><title>Members area</title></head><body>"
            f"<h1>Members area</h1><p>{topic_text(3, 45)}</p><ul>{anchors}</ul></body></html>").encode()
    return 200, {"Content-Type": "text/html; charset=utf-8"}, body


def _counting(replies: list[Reply], then: Reply):
    """A handler answering ``replies`` in turn, then ``then`` for ever."""
    served = Counter()

    def handler(request: http.Request) -> Reply:
        served["n"] += 1
        return replies[served["n"] - 1] if served["n"] <= len(replies) else then

    return handler


def hostile_site(site: TestSite, limits: bool = False) -> dict[str, datetime]:
    """Fill ``site``: six ordinary articles, every hostile case of :data:`CASES` (and with
    ``limits``, of :data:`LIMIT_CASES`), and a home page linking to all of them. Returns path
    -> publication time of the articles a crawl must find (the ordinary ones, the readable
    hostile ones and the duplicated story)."""
    now = datetime.now(UTC)
    html_type = {"Content-Type": "text/html; charset=utf-8"}
    found: dict[str, datetime] = {}

    body, found[CASES["malformed"]] = _dated("Malformed but readable", 40)
    site.html(CASES["malformed"], _malformed(found[CASES["malformed"]]))
    body, found[CASES["truncated"]] = _dated("Cut off in the middle", 41)
    site.html(CASES["truncated"], _truncated(found[CASES["truncated"]]))

    def cut_off(request: http.Request):
        # promise 5,000 bytes, send 300, hang up: a transfer that ends early
        request.setResponseCode(200)
        request.setHeader("Content-Type", "text/html; charset=utf-8")
        request.setHeader("Content-Length", "5000")
        request.write(_dated("Lost in transit", 47)[0][:300])
        site.record(CASES["cut_off"], 200, request)
        request.channel.transport.loseConnection()
        return defer.Deferred()  # never fires: the request is already answered

    site.serve(CASES["cut_off"], cut_off)
    site.serve(CASES["empty"], lambda request: (200, html_type, b"</div></span></html><!-- never closed <a href='/'>"))
    site.binary(CASES["binary"], PNG_1X1, "text/html")
    huge, _ = _dated("A page far too big", 48)
    site.html(CASES["huge"], huge.replace(b"</body>", b"<p>" + b"filler " * (HUGE_BYTES // 7) + b"</p></body>"))

    # Latin-1 bytes (é as 0xE9) labelled UTF-8; an unknown charset; no charset anywhere
    found[CASES["charset_replaced"]] = fresh = _dated("", 42)[1]
    latin = _no_charset(fresh, "Latin bytes labelled UTF-8", 42)
    site.serve(CASES["charset_replaced"], lambda request: (200, html_type, latin))
    unknown, found[CASES["charset_unknown"]] = _dated("An unknown charset", 43)
    site.serve(CASES["charset_unknown"], lambda request: (200, {"Content-Type": "text/html; charset=x-klingon"},
                                                          unknown))
    found[CASES["charset_undeclared"]] = fresh = _dated("", 44)[1]
    undeclared = _no_charset(fresh, "Caf\xe9 reopens", 44)
    site.serve(CASES["charset_undeclared"], lambda request: (200, {"Content-Type": "text/html"}, undeclared))

    site.undated(CASES["undated"], "A page without a date", topic=1, n=45)
    future, _ = article_html("Announced for next week", topic=2, n=46, age=timedelta(days=-3))
    site.html(CASES["future"], future)
    site.html(CASES["footer_date"], _footer_dated(now))

    site.redirect(CASES["redirect_loop"], "/hostile/loop-b")
    site.redirect("/hostile/loop-b", CASES["redirect_loop"])
    site.redirect(CASES["redirect_offsite"], site.url_of("/elsewhere.html", host="localhost"))
    site.article("/elsewhere.html", "Story on another host", topic=1, n=49, age=timedelta(minutes=2))

    error = {"Content-Type": "text/plain"}
    body, found[CASES["burst"]] = _dated("Through a burst of errors", 50)
    site.serve(CASES["burst"], _counting([(502, error, b"bad gateway"), (500, error, b"oops")], (200, html_type, body)))
    site.serve(CASES["down"], lambda request: (500, error, b"down for good"))
    body, found[CASES["busy"]] = _dated("Behind a 429", 51)
    site.serve(CASES["busy"], _counting([(429, {**error, "Retry-After": str(RETRY_AFTER)}, b"slow down")],
                                        (200, html_type, body)))
    slow, _ = _dated("Too slow to wait for", 52)
    site.serve(CASES["slow"], lambda request: task.deferLater(site.reactor, SLOW_SECONDS,
                                                              lambda: (200, html_type, slow)))

    site.serve_prefix(CASES["session_trap"], _session_page)
    site.serve_prefix("/trap/other", _session_page)
    site.serve_prefix(CASES["calendar_trap"], lambda request: (200, html_type, _calendar_day(
        _day_of(request.path.decode("latin-1")) or now.date())))

    duplicate, found[CASES["duplicate"]] = _dated("The same story everywhere", 53)
    site.html(CASES["duplicate"], duplicate)
    site.html("/print/same-story.html", duplicate)

    entrances = [CASES[name] for name in CASES if name not in ("session_trap", "calendar_trap", "duplicate")]
    entrances += [*trap_entrances(), *DUPLICATE_URLS]
    if limits:
        found.update(limit_cases(site))
        # last, in LIMIT_CASES' order: a colony reads the home page's links about in order,
        # and the 503's pause keeps the site's later links waiting (see LIMIT_CASES)
        entrances += [LIMIT_CASES[name] for name in LIMIT_CASES]
    found.update(news_site(site, 6, extra_home_links=entrances))
    return found


@functools.cache
def gzip_bomb(size: int = BOMB_BYTES) -> bytes:
    """A gzip stream of an HTML page of ``size`` bytes (a head, then spaces), built once per
    process in well under a second: a megabyte of spaces is deflated once after a full flush
    (which empties the compressor's window, so the same input always gives the same bytes),
    and those bytes are repeated; only the CRC runs over every byte."""
    head = b"<!doctype html><html><head><meta charset='utf-8'><title>Read me</title></head><body><p>"
    tail = b"</p></body></html>"
    chunk = b" " * (1 << 20)
    blocks, rest = divmod(size - len(head) - len(tail), len(chunk))
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate: the gzip frame is ours
    start = deflate.compress(head) + deflate.flush(zlib.Z_FULL_FLUSH)
    block = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
    end = deflate.compress(b" " * rest + tail) + deflate.flush(zlib.Z_FINISH)
    crc = zlib.crc32(head)
    for _ in range(blocks):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(b" " * rest + tail, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # gzip, deflate, no name, no mtime
    trailer = crc.to_bytes(4, "little") + (size % 2**32).to_bytes(4, "little")
    return b"".join([header, start, block * blocks, end, trailer])


@functools.cache
def many_links_page(n: int = MANY_LINKS) -> bytes:
    """An undated page of ``n`` distinct links (5.1 MB: under the add-on's DOWNLOAD_MAXSIZE,
    so that the links cap, not the size cap, is what meets it)."""
    anchors = "".join(f"<a href={MANY_LINKS_PREFIX}{i}>x</a>" for i in range(n))
    return (f"<html><head><meta charset='utf-8'><title>Every page we ever had</title></head><body>"
            f"<h1>Every page we ever had</h1><p>{anchors}</p></body></html>").encode()


def limit_cases(site: TestSite) -> dict[str, datetime]:
    """Serve :data:`LIMIT_CASES` on ``site``; path -> publication time of the fresh articles
    among them (the pages whose only fault is their Date header)."""
    html_type = {"Content-Type": "text/html; charset=utf-8"}
    found: dict[str, datetime] = {}
    bomb = gzip_bomb()
    site.serve(LIMIT_CASES["bomb"], lambda request: (200, {"Content-Type": "text/html",
                                                           "Content-Encoding": "gzip"}, bomb))
    links = many_links_page()
    site.serve(LIMIT_CASES["many_links"], lambda request: (200, html_type, links))

    for n, (name, stamp) in enumerate(FAR_DATES.items(), start=60):
        body, found[LIMIT_CASES[name]] = _dated(f"Dated by a broken clock {n}", n)
        # the handler's Date replaces the one twisted.web set (every other page keeps that one)
        site.serve(LIMIT_CASES[name], lambda request, body=body, stamp=stamp: (
            200, {**html_type, "Date": stamp}, body))

    stalled, _ = _dated("Never delivered", 62)

    def stall(request: http.Request):
        # the status and headers (a Content-Length the body never reaches), then silence
        request.setResponseCode(200)
        request.setHeader("Content-Type", "text/html; charset=utf-8")
        request.setHeader("Content-Length", str(len(stalled)))
        request.write(b"")  # twisted.web sends the headers with the first write
        site.record(LIMIT_CASES["stalled"], 200, request)
        request.notifyFinish().addErrback(lambda failure: site.record_hangup(LIMIT_CASES["stalled"]))
        return defer.Deferred()  # never fires: the client times out or hangs up

    site.serve(LIMIT_CASES["stalled"], stall)
    # an article with a long last paragraph: 9.5 kB, 20 minutes at this pace (Scrapy's own
    # DOWNLOAD_TIMEOUT, 180 s, would see a short page through and output it)
    trickled = _dated("Arriving a few bytes at a time", 63)[0].replace(
        b"</body>", f"<p>{topic_text(0, 63, words=1200)}</p></body>".encode())

    def trickle(request: http.Request):
        # the headers, then TRICKLE_BYTES every TRICKLE_EVERY s until the client hangs up (or,
        # a quarter of an hour later, the page is complete)
        request.setResponseCode(200)
        request.setHeader("Content-Type", "text/html; charset=utf-8")
        request.setHeader("Content-Length", str(len(trickled)))
        request.write(b"")
        site.record(LIMIT_CASES["trickle"], 200, request)
        sent = Counter()

        def drip() -> None:
            piece = trickled[sent["n"]: sent["n"] + TRICKLE_BYTES]
            sent["n"] += len(piece)
            request.write(piece)
            if sent["n"] >= len(trickled):
                loop.stop()
                request.finish()

        loop = task.LoopingCall(drip)
        loop.clock = site.reactor
        loop.start(TRICKLE_EVERY, now=False)

        def hung_up(failure) -> None:
            site.record_hangup(LIMIT_CASES["trickle"])
            if loop.running:
                loop.stop()

        request.notifyFinish().addErrback(hung_up)
        return defer.Deferred()  # never fires: drip() answers (and finishes) the request

    site.serve(LIMIT_CASES["trickle"], trickle)
    closed = 503, {"Content-Type": "text/plain", "Retry-After": str(RETRY_AFTER_HUGE)}, b"closed for a while"
    site.serve(LIMIT_CASES["retry_after_huge"], lambda request: task.deferLater(
        site.reactor, RETRY_AFTER_HUGE_DELAY, lambda: closed))
    return found


def trap_entrances() -> list[str]:
    """Paths into the session-id trap and the calendar trap (today's day: ``/calendar/today``,
    whose link text shows no date for a page linking it to be dated by)."""
    return [f"/trap/session;jsessionid={secrets.token_hex(16)}", "/calendar/today"]


def _day_of(path: str) -> date | None:
    try:
        return date.fromisoformat(path.rsplit("/", 1)[-1][:10])
    except ValueError:
        return None


@contextlib.contextmanager
def hostile_crawl(tmp, settings: dict, limits: bool = False, timeout: float = 90, **kwargs):
    """One crawl of a fresh hostile site (with ``limits``, the limits' cases too), seeded
    with its home page and both traps' entrances: yields ``(site, crawl, expected)`` while the
    site still answers (the tests read its log). ``kwargs`` go to :func:`crawl_forager`."""
    with TestSite() as site:
        expected = hostile_site(site, limits=limits)
        seeds = ",".join([site.url, *(site.url_of(path) for path in trap_entrances())])
        yield site, crawl_forager(seeds, tmp, settings=settings, timeout=timeout, **kwargs), expected
