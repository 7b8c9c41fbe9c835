"""The spider's side of the colony's URL records (the i-Bot paper's URL broker) and of
conditional revisits (docs/pages.md, "URL records" and "Conditional requests").

A forager reports each response it reads to the store's URL records
(:mod:`newsforagers.store.records`) in one call, as an i-Bot bot reports a downloaded page to
its broker: a page read is :meth:`~newsforagers.store.base.ColonyStore.record_page` (its
status, its validators ``ETag`` and ``Last-Modified``, its language when it is a document, its
links); a response that gave no page (an HTTP error, a body that is not HTML) and a ``304 Not
Modified`` are :meth:`~newsforagers.store.base.ColonyStore.record_fetch`. A listing revisited
asks the site whether it changed since the colony's last copy, with the validators the URL's
record holds, whichever forager fetched it: :meth:`UrlBroker.conditional`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from newsforagers.store import ColonyStore

NOT_MODIFIED = 304


def validators(response: Any) -> tuple[str, str]:
    """The ``ETag`` and ``Last-Modified`` of ``response`` ("" for one it has not)."""
    headers = getattr(response, "headers", None)
    if headers is None:
        return "", ""
    etag, modified = headers.get(b"ETag") or b"", headers.get(b"Last-Modified") or b""
    return etag.decode("latin-1").strip(), modified.decode("latin-1").strip()


def conditional_headers(record: dict | None) -> dict[str, str]:
    """The headers of a conditional GET from a URL record: ``If-None-Match`` with its
    ``ETag``, ``If-Modified-Since`` with its ``Last-Modified`` (both when it has both: a server
    that knows no entity tags still reads the date; one that does ignores the date, RFC 9110
    13.2.2); none without validators."""
    if not record:
        return {}
    headers = {}
    if record.get("etag"):
        headers["If-None-Match"] = record["etag"]
    if record.get("last_modified"):
        headers["If-Modified-Since"] = record["last_modified"]
    return headers


class UrlBroker:
    """One forager's reports to the colony's URL records: one store call per response."""

    def __init__(self, store: ColonyStore, stats: Any, forager: str):
        self.store = store
        self.stats = stats
        self.forager = forager

    def page(self, response: Any, url: str, now: datetime, links: Iterable[str], kind: str,
             language: str = "") -> None:
        """``response`` to ``url`` was read at ``now`` as a page of ``kind`` showing ``links``."""
        etag, modified = validators(response)
        self._counting(self.store.record_page, url, response.status, self.forager, now.isoformat(), links,
                       kind, etag, modified, language)

    def fetch(self, url: str, status: int, now: datetime, response: Any = None) -> None:
        """``url`` was fetched at ``now`` and answered ``status``, with no page read."""
        etag, modified = validators(response)
        self._counting(self.store.record_fetch, url, status, self.forager, now.isoformat(), etag, modified)

    def conditional(self, url: str) -> dict[str, str]:
        """The headers of a conditional revisit of ``url`` (:func:`conditional_headers`)."""
        return conditional_headers(self.store.get_url_record(url))

    def _counting(self, operation, *args) -> None:
        evicted = self.store.evicted_urls
        operation(*args)
        if self.store.evicted_urls > evicted:
            self.stats.inc_value("newsforagers/store/url_records_evicted", self.store.evicted_urls - evicted)
