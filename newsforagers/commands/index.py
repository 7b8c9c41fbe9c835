"""``newsforagers index [--store STORE] [--prefix P] [--index PATH] [--follow] [--interval S]``: the
i-Bot indexer beside a colony store.

Indexes the documents the colony output (what its item pipelines let through) since the index's
last look (docs/search.md), into
``--index`` or the file the colony itself keeps beside its store (``default_index_path``); one
pass, or with ``--follow`` a look every ``--interval`` seconds until Ctrl-C. The colony's root
does the same as it crawls (``FORAGERS_INDEX``); this command serves a store that foragers in
other processes or machines fill (Redis), an index to make again, or one kept elsewhere. It
may run beside the colony on the same index: each document is indexed once. The store is named
as every command names it (``--store``, default the one a crawl keeps;
:mod:`~newsforagers.commands.arguments`); a store that is not there is an error, and the store
is only read (opened read-only: a file that is no colony store is refused). A store that cannot
be read is said to be the store's fault, and leaves no index behind (an index this command made
and could not fill is removed).
Exit status: 0, or 2 when the store or the index cannot be used.
"""

from __future__ import annotations

import argparse
import sys

from newsforagers import defaults
from newsforagers.commands.arguments import about_default_store, add_store_arguments, positive, store_of, store_options

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
    from pathlib import Path

    from newsforagers.index import default_index_path
    from newsforagers.store import open_existing_store

    try:
        path = Path(args.index or default_index_path(store_of(args), args.prefix))
        # read-only: indexing reads the store and writes the index alone
        store = open_existing_store(store_of(args), **store_options(args))
    except ValueError as exc:
        return _error(about_default_store(str(exc), args))
    made = not path.exists()
    status = 2
    try:
        status = _index(args, _Blamed(store), path)
    finally:
        store.close()
        if status != 0 and made:
            _remove_if_empty(path)
    return status


class _StoreFailed(Exception):
    """Reading the store failed (not the index): the message is the store's error."""


class _Blamed:
    """A store whose every failure is a :class:`_StoreFailed`, so that a store that cannot be
    read is never taken for an index that cannot be written (both are SQLite errors)."""

    def __init__(self, store):
        self._store = store

    def __getattr__(self, name: str):
        import sqlite3

        value = getattr(self._store, name)
        if not callable(value):
            return value

        def call(*args, **kwargs):
            try:
                return value(*args, **kwargs)
            except (sqlite3.Error, ValueError) as exc:  # (StoreUnavailable names its store)
                raise _StoreFailed(str(exc)) from None

        return call


def _index(args: argparse.Namespace, store: _Blamed, path) -> int:
    import sqlite3
    import time

    from newsforagers.index import DocumentIndex, IndexBroken
    from newsforagers.store import StoreUnavailable

    total = 0
    try:
        # the store read once before the index is made: a store that cannot be read makes none
        store.outputs_after(0, 1)
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
    except _StoreFailed as exc:
        return _error(f"cannot read store {store.safe_url}: {exc}")
    except StoreUnavailable as exc:
        return _error(str(exc))
    except (IndexBroken, sqlite3.Error, OSError) as exc:
        return _error(f"cannot index into {path}: {exc}")
    return 0


def _remove_if_empty(path) -> None:
    """The index file this command made, removed when it failed before anything was indexed in
    it (by it or by another process): an empty index would say "no match" for a store never read."""
    import contextlib
    import sqlite3

    from newsforagers.index import DocumentIndex, IndexBroken
    from newsforagers.store.readonly import sidecars

    if not path.exists():
        return
    try:
        with DocumentIndex(path, read_only=True) as index:
            if index.count() or index.position:
                return
    except IndexBroken:
        pass  # made by this command and not even an index: no one else's
    except sqlite3.Error:
        return  # busy: someone else uses it
    for file in (path, *sidecars(path)):
        with contextlib.suppress(OSError):
            file.unlink()
