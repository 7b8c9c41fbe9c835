"""The latest discoveries: the documents the colony output last, newest first, with their lag.

From the colony store's output (what the foragers' item pipelines let through, in the order they
did, ``outputs_after``) or, when the dashboard was given an index alone, from the index's newest
documents. An output a user's pipeline left without a ``url`` is not shown.
"""

from __future__ import annotations

from newsforagers.store.base import DocumentRecord
from newsforagers.web.sources import Sources, SourceUnavailable
from newsforagers.web.text import format_lag, http_url, iso_time, lag_seconds, time_text

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


def document_row(*, url: str, title: str, published: str, found_at: str, forager: str,
                 language: str = "", position: int | None = None, **extra) -> dict:
    """One discovery as the page and ``/api/latest`` show it (plain values: the template and
    the page's script escape them). ``link`` is the URL only when it is an http(s) URL."""
    published, found_at = iso_time(published), iso_time(found_at)
    lag = lag_seconds(published, found_at)
    row = {"url": url, "link": http_url(url), "title": title, "published": published,
           "found_at": found_at, "published_text": time_text(published),
           "found_text": time_text(found_at), "lag_seconds": lag, "lag": format_lag(lag),
           "forager": forager, "language": language, "position": position}
    row.update(extra)
    return row


def latest(sources: Sources, limit: int = DEFAULT_LIMIT) -> dict:
    """``{"source", "total", "documents"}``: the ``limit`` newest discoveries, newest first.
    Raises :class:`SourceUnavailable` when neither a store nor an index can be read."""
    limit = max(1, min(int(limit), MAX_LIMIT))
    if sources.store_url is not None:
        with sources.store() as store:
            total = store.output_count()
            start = max(0, total - limit)
            outputs = store.outputs_after(start, limit)
        documents = []
        for output in outputs:
            try:
                r = DocumentRecord.from_item(output.item)
            except ValueError:
                continue
            documents.append(document_row(
                url=r.url, title=r.title, published=r.published, found_at=r.found_at,
                forager=r.forager, language=r.language, position=output.position, reward=r.reward,
                site_name=r.site_name, description=r.description))
        documents.reverse()
        return {"source": "store", "total": total, "documents": documents}
    if sources.index_path is not None:
        with sources.index() as index:
            total = index.count()
            hits = index.latest(limit=limit)
        documents = [document_row(url=h.url, title=h.title, published=h.published,
                                  found_at=h.found_at, forager=h.forager, language=h.language)
                     for h in hits]
        return {"source": "index", "total": total, "documents": documents}
    raise SourceUnavailable("no colony store or document index given (start the dashboard with "
                            "--store URL or --index PATH)")
