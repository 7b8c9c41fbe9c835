"""The colony's search index (docs/search.md): the documents the colony output, searchable.

``DocumentIndex(path)`` is an SQLite FTS5 file that follows a colony store
(:mod:`newsforagers.index.documents`); :func:`fts_query` turns a person's free text into a safe
FTS5 query (:mod:`newsforagers.index.query`); :func:`default_index_path` says where the index of
a store lives when nobody says (:mod:`newsforagers.index.paths`). Like the store, the index
imports no Scrapy: ``newsforagers index`` runs it beside a shared store, a dashboard reads it.
"""

from __future__ import annotations

from newsforagers.index.documents import ELLIPSIS, MARK_END, MARK_START, DocumentIndex, Hit, IndexBroken
from newsforagers.index.paths import default_index_path
from newsforagers.index.query import EmptyQuery, fts_query

__all__ = ["DocumentIndex", "ELLIPSIS", "EmptyQuery", "Hit", "IndexBroken", "MARK_END", "MARK_START",
           "default_index_path", "fts_query"]
