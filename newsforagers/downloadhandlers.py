"""``ColonyHTTPDownloadHandler``: Scrapy's HTTP/1.1 handler under the colony's host budget.

A forager's request waits here, at the moment it would be sent, until the colony's per-host
budget (``FORAGERS_HOST_RATE`` requests/s, ``FORAGERS_HOST_CONCURRENCY`` in flight) allows it;
every forager of the colony draws from the same budget. Requests of spiders outside a colony
go straight through. The add-on installs it for ``http`` and ``https``; a project that uses
another download handler (a browser, say) keeps Scrapy's own per-crawler limits only.
"""

from __future__ import annotations

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.utils.httpobj import urlparse_cached


class ColonyHTTPDownloadHandler(HTTP11DownloadHandler):
    async def download_request(self, request):
        colony = getattr(getattr(self._crawler, "spider", None), "colony", None)
        if colony is None:
            return await super().download_request(request)
        host = urlparse_cached(request).hostname or ""
        await colony.budget.acquire(host)
        try:
            return await super().download_request(request)
        finally:
            colony.budget.release(host)
