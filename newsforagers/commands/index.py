"""``newsforagers index [--store STORE] [--prefix P] [--index PATH] [--follow] [--interval S]``: the
i-Bot indexer beside a colony store.

Indexes the documents the colony output (what its item pipelines let through) since the index's last look (docs/search.md), into
``--index`` or the file the colony itself keeps beside its store (``default_index_path``); one
pass, or with ``--follow`` a look every ``--interval`` seconds until Ctrl-C. The colony's root
does the same as it crawls (``FORAGERS_INDEX``); this command serves a store that foragers in
other processes or machines fill (Redis), an index to make again, or one kept elsewhere. It
may run beside the colony on the same index: each document is indexed once. The store is named
as every command names it (``--store``, default the one a crawl keeps;
:mod:`~newsforagers.commands.arguments`); a store that is not there is an error.
Exit status: 0, or 2 when the store or the index cannot be used.
"""

from __future__ import annotations

import argparse
import sys

from newsforagers import defaults
from newsforagers.commands.arguments import (about_default_store, add_store_arguments, positive,
                                             store_of, store_options)

HELP = "index a colony store's documents for newsforagers search (once, or following it)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, help="the colony store whose documents to index")
    parser.add_argument("--index", metavar="PATH", default=None,
                        help="the index file (default: the one the colony keeps for this store, "
                        "e.g. colony.index.sqlite beside colony.db)")
    parser.add_argument("--follow", action="store_true",
                        help="keep following the store until Ctrl-C")
    parser.add_argument("--interval", type=positive, default=defaults.FORAGERS_INDEX_INTERVAL, metavar="S",
                        help=f"with --follow: seconds between two looks (default {defaults.FORAGERS_INDEX_INTERVAL:g})")


def _error(message: str) -> int:
    print(f"newsforagers index: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    import sqlite3
    import time

    from newsforagers.index import DocumentIndex, IndexBroken, default_index_path
    from newsforagers.store import StoreUnavailable, open_existing_store

    try:
        path = args.index or default_index_path(store_of(args), args.prefix)
        store = open_existing_store(store_of(args), **store_options(args))
    except ValueError as exc:
        return _error(about_default_store(str(exc), args))
    total = 0
    try:
        with DocumentIndex(path) as index:
            try:
                total = index.follow(store)
                print(f"{total} document(s) indexed into {path} ({index.count()} in the index)", flush=True)
                while args.follow:
                    time.sleep(args.interval)
                    added = index.follow(store)
                    total += added
                    if added:
                        print(f"{added} document(s) indexed ({index.count()} in the index)", flush=True)
            except KeyboardInterrupt:
                print(f"stopped: {total} document(s) indexed into {path} ({index.count()} in the index)",
                      flush=True)
    except (IndexBroken, sqlite3.Error, OSError) as exc:
        return _error(f"cannot index into {path}: {exc}")
    except StoreUnavailable as exc:
        return _error(str(exc))
    finally:
        store.close()
    return 0
