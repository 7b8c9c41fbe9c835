"""``newsforagers search "query" [--store STORE [--prefix P] | --index PATH] [--since DATE]
[--lang CODE] [--limit N] [--json]``: the documents a colony paid for, ranked (docs/search.md).

Reads the index the colony keeps beside its store (``default_index_path`` of ``--store``, named
as every command names a store, :mod:`~newsforagers.commands.arguments`; neither option: the
default store's, ``.newsforagers/colony.index.sqlite``) or the file ``--index`` names; it
never writes to it. The query is free text: every word must appear, ``"quoted
phrases"`` as phrases, ``elect*`` matches the words it begins. One block per hit — title, URL,
publication time, language, and a snippet with the matched words in ``[`` ``]`` — or, with
``--json``, one JSON object per line (``url, title, snippet, published, found_at, forager,
language, score, relevance``). ``--since`` keeps the documents *found* since then (a date is
its midnight, a time without an offset is UTC). The query and ``--limit`` are read as the
dashboard reads them (:func:`~newsforagers.index.query.query_text`,
:func:`~newsforagers.index.query.hit_count`). What pages wrote is printed without the control
characters a terminal would obey (:mod:`newsforagers.terminal`); the JSON escapes them.
Exit status: 0 (no hit included: a line on standard error says so), or 2 for an empty or too
long query, a bad date, language or limit, or a missing or unreadable index.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import datetime, timezone

from newsforagers.commands.arguments import add_prefix_argument, add_store_argument, store_of
from newsforagers.index.query import MAX_HITS, QueryTooLong, hit_count, query_text
from newsforagers.terminal import escape_json, printable

HELP = "search the documents a colony paid for (the index kept beside its store)"


def moment(value: str) -> datetime:
    """``YYYY-MM-DD`` (its midnight) or an ISO 8601 time; UTC when it says no offset."""
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is no date: give YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][+HH:MM]") from None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def language(value: str) -> str:
    """An ISO 639-1 code (``en``), lower case."""
    code = value.strip().lower()
    if not re.fullmatch(r"[a-z]{2,3}", code):
        raise argparse.ArgumentTypeError(f"{value!r} is no language code: give an ISO 639-1 code (en, es)")
    return code


def limit(value: str) -> int:
    """A whole number of hits from 1 to :data:`~newsforagers.index.query.MAX_HITS`, as the
    dashboard takes its ``limit``."""
    try:
        return hit_count(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help='free text: every word must appear; "quoted phrases"; elect* for prefixes')
    where = parser.add_mutually_exclusive_group()
    add_store_argument(where, help="the colony store whose index to read (the file the colony "
                       "keeps beside it)")
    where.add_argument("--index", metavar="PATH", default=None, help="the index file to read")
    add_prefix_argument(parser)
    parser.add_argument("--since", type=moment, default=None, metavar="DATE|DATETIME",
                        help="only documents found since then (YYYY-MM-DD or an ISO 8601 time; UTC "
                        "unless it says otherwise)")
    parser.add_argument("--lang", type=language, default=None, metavar="CODE",
                        help="only documents in this language (ISO 639-1: en, es)")
    parser.add_argument("--limit", type=limit, default=10, metavar="N",
                        help=f"hits shown (default 10, at most {MAX_HITS})")
    parser.add_argument("--json", action="store_true", help="one JSON object per hit and line")


def _error(message: str) -> int:
    print(f"newsforagers search: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    import json
    import sqlite3
    from pathlib import Path

    from newsforagers.errors import mask_password
    from newsforagers.index import DocumentIndex, IndexBroken, default_index_path

    if not args.query.strip():
        return _error("the query is empty: give one or more words to look for")
    try:
        query = query_text(args.query)  # as the dashboard reads it: the same hits
    except QueryTooLong as exc:
        return _error(str(exc))
    try:
        path = Path(args.index) if args.index else default_index_path(store_of(args), args.prefix)
    except ValueError as exc:
        return _error(str(exc))
    if not path.is_file():
        kept = f"the index of {mask_password(args.store)}" if args.store else "an index"
        return _error(f"no index at {path}: {kept} is made as the colony crawls (FORAGERS_INDEX), or "
                      "by `newsforagers index --store STORE`")
    try:
        with DocumentIndex(path, read_only=True) as index:  # never written, never made
            hits = index.search(query, since=args.since, lang=args.lang, limit=args.limit)
    except (IndexBroken, sqlite3.Error) as exc:
        return _error(f"cannot read the index {path}: {exc}")
    except ValueError as exc:
        return _error(str(exc))
    if not hits:
        print(f"newsforagers search: no document matches {query!r} in {path}", file=sys.stderr)
        return 0
    # what pages wrote, without what a terminal would obey (escape sequences, bidi controls)
    if args.json:
        sys.stdout.writelines(escape_json(json.dumps(hit.to_dict(), ensure_ascii=False)) + "\n"
                              for hit in hits)
        return 0
    for rank, hit in enumerate(hits, 1):
        print(f"{rank}. {printable(hit.title) or '(no title)'}")
        print(f"   {printable(hit.url)}")
        print(f"   published {printable(hit.published or '?')} · language "
              f"{printable(hit.language or '?')} · found by {printable(hit.forager)} at "
              f"{printable(hit.found_at)}")
        if hit.snippet:
            print(f"   {printable(hit.snippet)}")
        print()
    return 0
