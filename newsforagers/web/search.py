"""Search: ranked results with snippets, and facets by language and by day, from the index.

The query and its filters come from the request as they were typed; they go to the index as
parameters (never spliced into anything) and come back to the page as plain values. The
index counts days by publication (``facets``) and filters by the time a document was found
(``search(since=...)``): a day of the facet, clicked, keeps the documents found since that
day began (UTC) — for news found within hours of publication, that day's and the newer ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from newsforagers.index.query import MAX_HITS, hit_count, query_text
from newsforagers.web.latest import document_row
from newsforagers.web.sources import Sources
from newsforagers.web.text import snippet_parts

PER_PAGE = 10
MAX_PAGE = MAX_HITS // PER_PAGE
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_LANG = re.compile(r"^[A-Za-z]{2,3}$")


class BadSearch(ValueError):
    """A query or a count the dashboard does not take (the message says why): the same rules
    as ``newsforagers search`` (:func:`~newsforagers.index.query.query_text`,
    :func:`~newsforagers.index.query.hit_count`)."""


@dataclass(frozen=True)
class SearchRequest:
    """A search as the page asks for it: the query, the filters, the page (1, 2, ...) of
    ``limit`` hits."""

    query: str = ""
    lang: str = ""  # ISO 639-1 code, "" for any
    since: str = ""  # YYYY-MM-DD: documents found that day or later (UTC), "" for any
    page: int = 1
    limit: int = PER_PAGE

    @classmethod
    def from_args(cls, args) -> "SearchRequest":
        """From a request's arguments; a filter that is not one (``lang=<x>``) is dropped,
        not an error: the page shows what it understood. The query, ``limit`` and ``page`` are
        read as ``newsforagers search`` reads its query and ``--limit``: a query too long, or a
        count that is no whole number from 1 to its maximum (no hit deeper than
        :data:`~newsforagers.index.query.MAX_HITS`), raises :class:`BadSearch`."""
        query = str(args.get("q", ""))
        lang = str(args.get("lang", "")).strip().lower()
        since = str(args.get("since", "")).strip()
        try:
            query = query_text(query) if query.strip() else ""
        except ValueError as exc:
            raise BadSearch(str(exc)) from None
        try:
            limit = hit_count(args.get("limit", PER_PAGE))
        except ValueError as exc:
            raise BadSearch(f"limit {exc}") from None
        try:
            page = hit_count(args.get("page", 1), maximum=MAX_HITS // limit)
        except ValueError as exc:
            raise BadSearch(f"page {exc} (no hit deeper than {MAX_HITS}: {MAX_HITS // limit} "
                            f"pages of {limit})") from None
        return cls(query=query, lang=lang if _LANG.match(lang) else "",
                   since=since if _is_day(since) else "", page=page, limit=limit)

    @property
    def since_time(self) -> datetime | None:
        """The start of the ``since`` day (UTC), as the index filters: by the time a document
        was found."""
        if not _is_day(self.since):
            return None
        return datetime.fromisoformat(self.since).replace(tzinfo=UTC)

    def params(self, **changes) -> dict:
        """The request's arguments with ``changes`` (a filter set or cleared, another page),
        for a link: empty values are left out."""
        values = {"q": self.query, "lang": self.lang, "since": self.since, "page": 1,
                  "limit": self.limit}
        values.update(changes)
        if values.get("page") == 1:
            values.pop("page")
        if values.get("limit") == PER_PAGE:
            values.pop("limit")
        return {key: value for key, value in values.items() if value not in ("", None)}


def search(sources: Sources, request: SearchRequest) -> dict:
    """The results and facets of ``request``, ``request.limit`` a page: ``{"query", "filters",
    "page", "limit", "has_next", "results", "facets", "indexed"}``. Each result carries its
    snippet as text and as ``snippet_parts`` (``[text, marked]`` pairs). Raises
    :class:`SourceUnavailable` when the index cannot be read."""
    per_page = request.limit
    since = request.since_time
    lang = request.lang or None
    with sources.index() as index:
        indexed = index.count()
        hits = []
        if request.query:
            hits = index.search(request.query, since=since, lang=lang, limit=per_page + 1,
                                offset=(request.page - 1) * per_page)
        facets = index.facets(query=request.query or None, since=since, lang=lang)
    results = []
    for rank, hit in enumerate(hits[:per_page], start=(request.page - 1) * per_page + 1):
        row = document_row(url=hit.url, title=hit.title, published=hit.published,
                           found_at=hit.found_at, forager=hit.forager, language=hit.language,
                           rank=rank, score=hit.score, relevance=-hit.score,
                           snippet=hit.snippet)
        row["snippet_parts"] = snippet_parts(hit.snippet)
        results.append(row)
    return {
        "query": request.query,
        "filters": {"lang": request.lang, "since": request.since},
        "page": request.page,
        "limit": per_page,
        # (the page after the last of MAX_HITS // per_page is not asked for)
        "has_next": len(hits) > per_page and request.page < MAX_HITS // per_page,
        "results": results,
        "facets": {name: [{"value": value, "count": count} for value, count in facets.get(name, ())]
                   for name in ("language", "day")},
        "indexed": indexed,
    }


def _is_day(text: str) -> bool:
    if not _DAY.match(text):
        return False
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True
