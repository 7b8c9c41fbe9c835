"""``newsforagers export --store URL [--prefix P] [-o FILE]``: every novel document a colony store holds.

The store is the colony's source of truth: each document the reinforcing agent paid for, in
the order it was paid, as one JSON object per line (``url, title, published, found_at,
forager, reward, text`` — the feed's fields; ``text`` is empty when the colony did not keep
it, ``FORAGERS_ITEM_TEXT``). To standard output, or to
``FILE`` written next to itself and renamed into place, so a reader never sees half a file.
Exit status: 0, or 2 when the store cannot be read or the file cannot be written.
"""

from __future__ import annotations

import argparse
import sys

from newsforagers.commands.arguments import add_store_arguments

HELP = "write every novel document a colony store holds, as JSON lines"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, required=True)
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
        store = open_existing_store(args.store, prefix=args.prefix)
    except ValueError as exc:
        return _error(str(exc))
    try:
        lines = [json.dumps(record.to_dict(), ensure_ascii=False) + "\n" for record in store.documents()]
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
