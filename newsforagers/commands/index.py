"""``newsforagers index --store URL [--prefix P] [--index PATH] [--follow] [--interval S]``: the
i-Bot indexer beside a colony store.

Indexes the documents the store paid for since the index's last look (docs/search.md), into
``--index`` or the file the colony itself keeps beside its store (``default_index_path``); one
pass, or with ``--follow`` a look every ``--interval`` seconds until Ctrl-C. The colony's root
does the same as it crawls (``FORAGERS_INDEX``); this command serves a store that foragers in
other processes or machines fill (Redis), an index to make again, or one kept elsewhere. It
may run beside the colony on the same index: each document is indexed once.
Exit status: 0, or 2 when the store or the index cannot be used.
"""

from __future__ import annotations

import argparse
import sys

from newsforagers import defaults
from newsforagers.commands.arguments import add_store_arguments, positive

HELP = "index a colony store's documents for newsforagers search (once, or following it)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, required=True)
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
        path = args.index or default_index_path(args.store, args.prefix)
        store = open_existing_store(args.store, prefix=args.prefix)
    except ValueError as exc:
        return _error(str(exc))
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
