"""``ColonyHTTPDownloadHandler``: Scrapy's HTTP/1.1 handler under the colony's host budget.

A forager's request waits here, at the moment it would be sent, until the colony's per-host
budget (``FORAGERS_HOST_RATE`` requests/s, ``FORAGERS_HOST_CONCURRENCY`` in flight) allows it;
every forager of the colony draws from the same budget. Requests of spiders outside a colony
go straight through. The add-on installs it for ``http`` and ``https``; a project that uses
another download handler (a browser, say) keeps Scrapy's own per-crawler limits only.

A ``429 Too Many Requests`` or ``503 Service Unavailable`` carrying ``Retry-After`` pauses
the whole colony's budget for that host (at most ``FORAGERS_RETRY_AFTER_MAX`` seconds): the
site asked the colony, not the one forager that happened to hear it. Scrapy's
``RetryMiddleware`` still retries the request; the retry waits here like every other one.
Counted in ``newsforagers/host/paused`` (and ``newsforagers/host/paused_seconds``), logged
as a warning the first time a host asks, then at debug level.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.utils.httpobj import urlparse_cached

from newsforagers.colony.throttle import retry_after_seconds

logger = logging.getLogger(__name__)

#: Statuses whose ``Retry-After`` pauses the host (RFC 9110: 503, and RFC 6585: 429).
PAUSE_STATUSES = frozenset({429, 503})


class ColonyHTTPDownloadHandler(HTTP11DownloadHandler):
    async def download_request(self, request):
        colony = getattr(getattr(self._crawler, "spider", None), "colony", None)
        if colony is None:
            return await super().download_request(request)
        host = urlparse_cached(request).hostname or ""
        await colony.budget.acquire(host)
        try:
            response = await super().download_request(request)
        finally:
            colony.budget.release(host)
        if response.status in PAUSE_STATUSES:
            self._pause(colony, host, response)
        return response

    def _pause(self, colony, host: str, response) -> None:
        seconds = retry_after_seconds(response.headers.get(b"Retry-After"), _server_now(response))
        if not seconds:  # absent, unreadable, or "retry at once"
            return
        asked, seconds = seconds, min(seconds, colony.config.retry_after_max)
        if seconds <= 0:  # FORAGERS_RETRY_AFTER_MAX = 0: never pause
            return
        pauses = colony.budget.pause(host, seconds)
        stats = self._crawler.stats
        stats.inc_value("newsforagers/host/paused")
        stats.inc_value("newsforagers/host/paused_seconds", seconds)
        capped = f" (asked {asked:g} s, capped by FORAGERS_RETRY_AFTER_MAX)" if asked > seconds else ""
        log = logger.warning if pauses == 1 else logger.debug
        log("host %s answered %d with Retry-After: the colony sends it nothing for %g s%s",
            host, response.status, seconds, capped)


def _server_now(response) -> datetime:
    """The server's clock (its ``Date``), against which an HTTP-date ``Retry-After`` is read."""
    header = response.headers.get(b"Date")
    if header:
        try:
            parsed = parsedate_to_datetime(header.decode("latin-1"))
        except (TypeError, ValueError, IndexError, OverflowError):
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            return parsed
    return datetime.now(UTC)
