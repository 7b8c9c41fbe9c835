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
a store that is not there is an error, never a new empty file.
Exit status: 0, or 2 when the store cannot be read or the file cannot be written.
"""

from __future__ import annotations

import argparse
import sys

from newsforagers.commands.arguments import about_default_store, add_store_arguments, store_of, store_options

HELP = "write the colony's output (every document its item pipelines let through), as JSON lines"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, help="the colony store whose documents to write")
    parser.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="write here (atomically) instead of standard output")


def _error(message: str) -> int:
    print(f"newsforagers export: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    import json
    import os
    import tempfile
    from pathlib import Path

    from newsforagers.store import open_existing_store

    try:
        store = open_existing_store(store_of(args), **store_options(args))
    except ValueError as exc:
        return _error(about_default_store(str(exc), args))
    try:
        # the colony's output: each item as the foragers' item pipelines let it through, once
        lines = [json.dumps(output.item, ensure_ascii=False) + "\n" for output in store.outputs()]
    finally:
        store.close()
    if args.output is None:
        sys.stdout.writelines(lines)
        sys.stdout.flush()
        return 0
    target = Path(args.output)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.writelines(lines)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except OSError as exc:
        return _error(f"cannot write {args.output}: {exc}")
    print(f"{len(lines)} document(s) written to {target}", file=sys.stderr)
    return 0
