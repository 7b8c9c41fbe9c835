"""``ColonyHTTPDownloadHandler``: Scrapy's HTTP/1.1 handler under the colony's host budget.

A forager's request waits here, at the moment it would be sent, until the colony's per-host
budget (``FORAGERS_HOST_RATE`` requests/s, ``FORAGERS_HOST_CONCURRENCY`` in flight, with the
user's ``DOWNLOAD_DELAY``, ``CONCURRENT_REQUESTS*``, ``DOWNLOAD_SLOTS`` and AutoThrottle folded
in: :class:`~newsforagers.colony.throttle.Politeness`) allows it; every forager of the colony
draws from the same budget. Requests of spiders outside a colony go straight through. The
add-on installs it for ``http`` and ``https`` at add-on priority: a project's own
``DOWNLOAD_HANDLERS`` for those schemes wins, and must then carry :class:`ColonyBudgetMixin`
(``class MyHandler(ColonyBudgetMixin, TheirHandler)``), or the colony refuses to start
(:func:`check_handlers`): without it, n foragers would ask a host n times what the budget
allows.

A ``429 Too Many Requests`` or ``503 Service Unavailable`` carrying ``Retry-After`` pauses
the whole colony's budget for that host (at most ``FORAGERS_RETRY_AFTER_MAX`` seconds; the
site's seconds, like its ``Date``: a replay at ``-a speed=600`` asking for 60 s is paused
0.1 s of wall time): the
site asked the colony, not the one forager that happened to hear it. Scrapy's
``RetryMiddleware`` still retries the request; the retry waits here like every other one.
Counted in ``newsforagers/host/paused`` (and ``newsforagers/host/paused_seconds``), logged
as a warning the first time a host asks, then at debug level. A host that cannot be reached
(connection refused or timed out, no address) on a request's last try (Scrapy's retries go at
once) backs off the same way, 1 s at first, doubling with each such failure in a row up to
``FORAGERS_HOST_BACKOFF_MAX``, until it answers (``newsforagers/host/unreachable``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime

from scrapy import exceptions as scrapy_exceptions
from scrapy import signals
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.defer import deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import load_object
from twisted.internet.defer import Deferred
from twisted.internet.error import ConnectError, DNSLookupError

from newsforagers.addon import BUDGET_SCHEMES
from newsforagers.clock import http_date, plausible_site_time
from newsforagers.colony.throttle import (
    BACKOFF_FIRST,
    BUDGET_PRIORITY,
    GONE_CHECK,
    BudgetWaitAbandoned,
    retry_after_seconds,
)
from newsforagers.context import context_of
from newsforagers.errors import ForagersUsageError
from newsforagers.scrapy_access import SENT_META, engine_of

logger = logging.getLogger(__name__)

#: Statuses whose ``Retry-After`` pauses the host (RFC 9110: 503, and RFC 6585: 429).
PAUSE_STATUSES = frozenset({429, 503})
#: Failures that say the host cannot be reached now (refused, connection timed out, no route,
#: no address): the host backs off (:meth:`HostBudget.unreachable`). Twisted's, and the
#: exceptions newer Scrapy wraps them in (``scrapy.exceptions``, 2.14 on).
UNREACHABLE = (ConnectError, DNSLookupError) + tuple(
    getattr(scrapy_exceptions, name) for name in ("DownloadConnectionRefusedError", "CannotResolveHostError")
    if hasattr(scrapy_exceptions, name))

#: The schemes whose requests the colony's budget must see.


class ClosingIgnoreRequest(IgnoreRequest):
    """A request that waited for the colony's budget while its crawler began to close: it
    is dropped instead of holding the close for the whole queue before it (counted in
    ``newsforagers/host/abandoned_on_close``)."""


class ColonyBudgetMixin:
    """Puts a download handler's requests under the colony's host budget; put it first in
    the bases of any handler a colony's project uses for ``http``/``https``."""

    @classmethod
    def from_crawler(cls, crawler):
        factory = getattr(super(), "from_crawler", None)
        handler = factory(crawler) if factory is not None else cls(crawler)
        handler.colony_crawler = crawler
        handler.forager_context = context_of(crawler)
        handler.closes_at = None
        handler.closing_since = None  # when this crawler was first seen closing
        handler.answered_hosts = set()  # hosts this crawler's connections have had an answer from
        crawler.signals.connect(handler._spider_opened, signal=signals.spider_opened)
        return handler

    def _spider_opened(self, spider) -> None:
        # CLOSESPIDER_TIMEOUT's extension closes the crawler at this time, and Scrapy waits
        # for every request in the downloader: those still waiting for the budget then leave
        timeout = self.colony_crawler.settings.getfloat("CLOSESPIDER_TIMEOUT")
        self.closes_at = time.monotonic() + timeout if timeout > 0 else None
        colony = self._colony()
        if colony is not None and colony.root is self.colony_crawler:
            colony.closes_at = self.closes_at  # the colony ends when its root does

    async def _download_within_grace(self, pending, request, grace: float):
        """The download of ``pending`` (a coroutine or Deferred of the wrapped handler), cancelled
        once the crawler has been closing for ``grace`` seconds: Scrapy waits at close for every
        download in flight, and a response that stalls after its headers (or trickles) would hold
        the close, and the colony's, for DOWNLOAD_TIMEOUT."""
        download = (asyncio.ensure_future(deferred_to_future(pending)) if isinstance(pending, Deferred)
                    else asyncio.ensure_future(pending))
        try:
            while True:
                done, _ = await asyncio.wait({download}, timeout=GONE_CHECK)
                if done:
                    return download.result()
                if not self._closing():
                    continue
                now = time.monotonic()
                if self.closing_since is None:
                    self.closing_since = now
                if now - self.closing_since >= grace:
                    download.cancel()
                    self.colony_crawler.stats.inc_value("newsforagers/close/cancelled")
                    logger.debug("%s: cancelled, still downloading %g s after the crawler began "
                                  "to close", request.url, grace)
                    raise ClosingIgnoreRequest(f"{request.url}: cancelled at close")
        except asyncio.CancelledError:
            download.cancel()
            raise

    def _closing(self) -> bool:
        """The crawler is closing: stopped (a signal, the colony's end), timed out, or retired."""
        crawler = self.colony_crawler
        engine = engine_of(crawler)
        if engine is None:
            return False
        if not engine.running:
            return True
        if self.closes_at is not None and time.monotonic() >= self.closes_at:
            return True
        context = getattr(self, "forager_context", None)
        driver = context.driver if context is not None else None
        if driver is not None and driver.retired:
            return True
        # the whole colony is ending: every forager's close starts with the root's, so that
        # one grace bounds them all (the root stops the others only once its own downloads end)
        colony = self._colony()
        return colony is not None and colony.ending()

    def _colony(self):
        context = getattr(self, "forager_context", None)
        return context.colony if context is not None else None

    async def download_request(self, request):
        colony = self._colony()
        if colony is None:
            return await super().download_request(request)
        host = urlparse_cached(request).hostname or ""
        # until this crawler has an answer from the host, its requests open new connections
        opening = host not in self.answered_hosts
        try:
            start = await colony.budget.acquire(host, self._closing, request.meta.get(BUDGET_PRIORITY, 0),
                                                opening=opening)
        except BudgetWaitAbandoned:
            self.colony_crawler.stats.inc_value("newsforagers/host/abandoned_on_close")
            raise ClosingIgnoreRequest(f"{request.url}: the crawler is closing") from None
        began = request.meta[SENT_META] = time.monotonic()
        try:
            response = await self._download_within_grace(super().download_request(request), request,
                                                         colony.config.close_grace)
        except BaseException as exc:
            if opening:
                colony.budget.opened(host, answered=False, number=start)
            if isinstance(exc, UNREACHABLE) and self._last_try(request):
                self._back_off(colony, host)
            raise
        finally:
            colony.budget.release(host)
        # Scrapy's handlers record the time to the response's headers, as AutoThrottle reads it
        latency = request.meta.get("download_latency", time.monotonic() - began)
        colony.budget.observe(host, latency, response.status)
        if opening:  # a new connection: the site had it by now
            self.answered_hosts.add(host)
            colony.budget.opened(host, answered=True, number=start)
        if response.status in PAUSE_STATUSES:
            self._pause(colony, host, response)
        return response

    def _last_try(self, request) -> bool:
        """Will Scrapy's RetryMiddleware give this request up if it fails now? Its retries go
        at once (a refused connection costs the site nothing); the host backs off when a
        request has failed them all."""
        settings = self.colony_crawler.settings
        if request.meta.get("dont_retry") or not settings.getbool("RETRY_ENABLED"):
            return True
        limit = request.meta.get("max_retry_times", settings.getint("RETRY_TIMES"))
        return request.meta.get("retry_times", 0) >= limit

    def _back_off(self, colony, host: str) -> None:
        seconds = colony.budget.unreachable(host, colony.config.host_backoff_max)
        if seconds <= 0:
            return
        stats = self.colony_crawler.stats
        stats.inc_value("newsforagers/host/unreachable")
        log = logger.info if seconds == BACKOFF_FIRST else logger.debug
        log("host %s cannot be reached: the colony sends it nothing for %g s (doubling while it "
            "stays down, at most FORAGERS_HOST_BACKOFF_MAX)", host, seconds)

    def _pause(self, colony, host: str, response) -> None:
        seconds = retry_after_seconds(response.headers.get(b"Retry-After"), _server_now(response))
        if not seconds:  # absent, unreadable, or "retry at once"
            return
        # the site's seconds, as every time it states (its Date): a replay's clock runs
        # ``-a speed`` times faster than the wall's
        seconds /= colony.speed or 1.0
        asked, seconds = seconds, min(seconds, colony.config.retry_after_max)
        if seconds <= 0:  # FORAGERS_RETRY_AFTER_MAX = 0: never pause
            return
        pauses = colony.budget.pause(host, seconds)
        stats = self.colony_crawler.stats
        stats.inc_value("newsforagers/host/paused")
        stats.inc_value("newsforagers/host/paused_seconds", seconds)
        capped = f" (asked {asked:g} s, capped by FORAGERS_RETRY_AFTER_MAX)" if asked > seconds else ""
        log = logger.warning if pauses == 1 else logger.debug
        log("host %s answered %d with Retry-After: the colony sends it nothing for %g s%s",
            host, response.status, seconds, capped)


class ColonyHTTPDownloadHandler(ColonyBudgetMixin, HTTP11DownloadHandler):
    """Scrapy's HTTP/1.1 handler under the colony's host budget."""


def check_handlers(settings) -> None:
    """Refuse a project whose ``http``/``https`` download handler bypasses the colony's budget.

    Raises :class:`~newsforagers.errors.ForagersUsageError` (a ``ValueError``) naming the
    setting, the handler and the way out."""
    handlers = settings.getwithbase("DOWNLOAD_HANDLERS")
    for scheme in BUDGET_SCHEMES:
        path = handlers.get(scheme)
        if path is None:  # the scheme is disabled: nothing is sent
            continue
        try:
            handler = load_object(path) if isinstance(path, str) else path
        except (ImportError, NameError, ValueError) as exc:
            raise ForagersUsageError(f"DOWNLOAD_HANDLERS[{scheme!r}] ({path!r}) cannot be loaded: {exc}") from None
        if ColonyBudgetMixin not in getattr(handler, "__mro__", ()):
            name = path if isinstance(path, str) else f"{handler.__module__}.{handler.__qualname__}"
            raise ForagersUsageError(
                f"DOWNLOAD_HANDLERS[{scheme!r}] ({name!r}) would send the colony's requests outside "
                f"its per-host budget, and n foragers would ask a host n times what the budget "
                f"allows: use a handler with newsforagers.downloadhandlers.ColonyBudgetMixin first "
                f"in its bases (class MyHandler(ColonyBudgetMixin, YourHandler)), or remove the "
                f"setting for {scheme!r}.")


def _server_now(response) -> datetime:
    """The server's clock (its ``Date``), against which an HTTP-date ``Retry-After`` is read;
    this machine's when the header is missing or absurd."""
    return plausible_site_time(http_date(response.headers.get(b"Date"))) or datetime.now(UTC)
