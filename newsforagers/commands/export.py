"""``newsforagers export [--store STORE] [--prefix P] [-o FILE]``: the colony's output, every document once.

The store is the colony's source of truth: each item that a forager's item pipelines let
through (the project's ``ITEM_PIPELINES``, the reinforcing agent first), in the order they
did, as the pipelines left it — the same items the root's ``-o`` feed holds, from every
forager, process and host of the colony; an item a pipeline dropped is not there. One JSON
object per line (the fields of docs/quickstart.md, *Output items*, and whatever the user's
pipelines added). To standard output, or to
``FILE`` written next to itself and renamed into place, so a reader never sees half a file.
The store is named as every command names it (``--store``: a URL or a store file's path,
default the one a crawl keeps, ``.newsforagers/colony.db``; :mod:`~newsforagers.commands.arguments`);
a store that is not there is an error, never a new empty file, and the store is only read
(opened read-only: a file that is no colony store is refused). ``FILE`` is refused when it is
the store's file or its index's (or one of their ``-wal``, ``-shm``, ``-journal``), a
directory or no regular file, before anything is read; a write that fails leaves nothing.
Exit status: 0, or 2 when the store cannot be read or the file cannot be written.
"""

from __future__ import annotations

import argparse
import sys

from newsforagers.commands.arguments import (
    about_default_store,
    add_store_arguments,
    store_file,
    store_of,
    store_options,
)

HELP = "write the colony's output (every document its item pipelines let through), as JSON lines"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, help="the colony store whose documents to write")
    parser.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="write here (atomically) instead of standard output")


def _error(message: str) -> int:
    print(f"newsforagers export: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    import contextlib
    import json
    import os
    import sqlite3
    import tempfile
    from pathlib import Path

    from newsforagers.store import StoreUnavailable, open_existing_store
    from newsforagers.terminal import escape_json

    # the output file checked before anything is read: it must not be the input
    problem = _output_problem(args) if args.output is not None else None
    if problem:
        return _error(problem)
    try:
        store = open_existing_store(store_of(args), **store_options(args))
    except ValueError as exc:
        return _error(about_default_store(str(exc), args))
    try:
        # the colony's output: each item as the foragers' item pipelines let it through, once;
        # the control characters pages wrote escaped, as JSON allows (newsforagers.terminal)
        lines = [escape_json(json.dumps(output.item, ensure_ascii=False)) + "\n"
                 for output in store.outputs()]
        paid = 0 if lines else store.document_count()
    except (sqlite3.Error, StoreUnavailable) as exc:
        return _error(f"cannot read store {store.safe_url}: {exc}")
    finally:
        store.close()
    if paid:
        print(f"newsforagers export: {store.safe_url} holds no output but {paid} paid document(s): "
              "the item pipelines dropped them, or a newsforagers from before the output was kept "
              "wrote the store", file=sys.stderr)
    if args.output is None:
        sys.stdout.writelines(lines)
        sys.stdout.flush()
        return 0
    target = Path(args.output)
    temporary = None
    try:
        # beside the target (one file system: the rename is atomic), and gone on any failure
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.writelines(lines)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
        temporary = None
    except OSError as exc:
        return _error(f"cannot write {args.output}: {exc.strerror or exc}")
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    print(f"{len(lines)} document(s) written to {target}", file=sys.stderr)
    return 0


def _output_problem(args: argparse.Namespace) -> str | None:
    """Why ``-o`` cannot be written (a directory, a device, the store's file or its index's,
    with their ``-wal``, ``-shm`` and ``-journal``), or None."""
    from pathlib import Path

    from newsforagers.index import default_index_path
    from newsforagers.store.readonly import sidecars

    target = Path(args.output)
    if target.is_dir():
        return f"-o {args.output} is a directory: give the path of a file to write"
    if target.exists() and not target.is_file():
        return (f"-o {args.output} is not a regular file (it would be replaced, not written to): "
                "give the path of a file, or no -o for standard output")
    url = store_of(args)
    read = []  # (what, its files)
    if store_file(url) is not None:
        read.append(("the store", store_file(url)))
    try:
        read.append(("the store's index", default_index_path(url, args.prefix)))
    except ValueError:
        pass  # no store URL: the store's own error says so
    for what, base in read:
        for path in (base, *sidecars(base)):
            if _same_file(target, path):
                return f"-o {args.output} is {path}, part of {what} it reads: give another file"
    return None


def _same_file(a, b) -> bool:
    """Whether the paths ``a`` and ``b`` name one file (``b`` may not exist yet): the same file
    by device and inode (a hard link), or the same path once symbolic links are followed."""
    import os

    try:
        if os.path.samefile(a, b):
            return True
    except OSError:  # one of them does not exist
        pass
    return os.path.realpath(a) == os.path.realpath(b)
