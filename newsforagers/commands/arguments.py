"""Arguments the sub-commands share: a bad value is one usage line saying what is wrong.

Every command that reads a colony names it the same way: ``--store STORE`` (a URL or a store
file's path, :func:`store_url`; default :data:`DEFAULT_STORE`, where a crawl keeps it) with
``--prefix P`` for Redis, and ``--run RUN_DIR`` (default: the newest run under
:data:`RUNS_DIR`, :func:`runs_newest_first`).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from newsforagers import defaults
from newsforagers.colony.status import DEFAULT_RUNS_DIR, list_runs


def positive(value: str) -> float:
    """A finite number higher than 0 (seconds, a speed, an interval)."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not math.isfinite(number) or not number > 0:
        raise argparse.ArgumentTypeError(f"{value!r} must be higher than 0")
    return number


def share(value: str) -> float:
    """A number from 0 to 1 (a share of something)."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not 0.0 <= number <= 1.0:  # NaN too
        raise argparse.ArgumentTypeError(f"{value!r} must be a share between 0 and 1")
    return number


def at_least_one(value: str) -> int:
    """A whole number of at least 1 (repeats, clusters)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} must be at least 1")
    return number


def add_prefix_argument(parser) -> None:
    """``--prefix P``: the colony's key prefix in a Redis store (``FORAGERS_REDIS_PREFIX``), and
    ``--password-file FILE``: where its password is, off the command line."""
    parser.add_argument("--prefix", default=defaults.FORAGERS_REDIS_PREFIX, metavar="P",
                        help="with a redis:// store: the colony's key prefix (FORAGERS_REDIS_PREFIX, "
                        f"default {defaults.FORAGERS_REDIS_PREFIX!r})")
    parser.add_argument("--password-file", metavar="FILE", default="",
                        help="with a redis:// store: a file holding its password on its first line, "
                        "readable by you only (FORAGERS_STORE_PASSWORD_FILE); without it, the password "
                        "is looked for in $NEWSFORAGERS_STORE_PASSWORD, then ~/.netrc. A password written "
                        "in --store is seen by every user of this machine (ps)")


def store_options(args: argparse.Namespace) -> dict:
    """What opening the store of a command's arguments takes besides its URL (``prefix``,
    ``password_file``)."""
    return {"prefix": args.prefix, "password_file": getattr(args, "password_file", "")}


# -- the store ---------------------------------------------------------------------------------

#: The store a crawl uses when FORAGERS_STORE is not set, hence the one a command reads when it
#: is given no --store: what one crawl writes, the next command finds.
DEFAULT_STORE = defaults.FORAGERS_STORE
#: A plain path is a store file when it ends so (or names a file that exists).
STORE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
#: What --store accepts, for its help and for its errors.
STORE_FORMS = ("sqlite:///PATH, redis://[:password@]host:port/db (rediss:// for TLS), or the "
               "path of a store file (one that exists, or a name ending in "
               f"{', '.join(STORE_SUFFIXES[:-1])} or {STORE_SUFFIXES[-1]})")


def store_url(value: str) -> str:
    """``--store``: the URL of a colony store, given as one or as a store file's path.

    ``sqlite:///PATH``, ``redis://...`` and ``rediss://...`` are kept as written (their scheme in
    lower case, as the stores read it); a plain path becomes ``sqlite:///PATH`` when it names a
    file that exists or ends in ``.db``, ``.sqlite`` or ``.sqlite3``. Any other value is refused
    here rather than taken for a file name:
    ``localhost:6379`` or ``redis:/host`` is a URL mistyped, and read as a path it would only
    meet "no store at ..." later (or, for the dashboard, a store that never appears).
    ``memory://`` is refused too: it lives inside its colony's process, which no command
    shares. A refusal says what is accepted, a password never shown."""
    if "://" in value:
        scheme, _, rest = value.partition("://")
        scheme = scheme.lower()
        if scheme == "sqlite":
            if not rest.startswith("/") or not rest[1:].strip():
                raise argparse.ArgumentTypeError(
                    f"{value!r} names no file: give sqlite:///PATH (three slashes, then the "
                    "path), or the path alone")
            return f"sqlite://{rest}"
        if scheme in ("redis", "rediss"):
            return f"{scheme}://{rest}"
        from newsforagers.errors import mask_password

        if scheme == "memory":
            raise argparse.ArgumentTypeError(
                f"{mask_password(value)} lives only inside the colony's process: give "
                f"{STORE_FORMS}")
        raise argparse.ArgumentTypeError(f"{mask_password(value)!r} has an unknown scheme "
                                         f"{scheme!r}: give {STORE_FORMS}")
    if not value.strip():
        raise argparse.ArgumentTypeError(f"no store named: give {STORE_FORMS}")
    path = Path(value)
    if path.is_dir():
        raise argparse.ArgumentTypeError(
            f"{value!r} is a directory: give the store's file in it (e.g. {path / 'colony.db'}), "
            f"or {STORE_FORMS}")
    if path.is_file() or path.suffix.lower() in STORE_SUFFIXES:
        return f"sqlite:///{value}"
    raise argparse.ArgumentTypeError(f"{value!r} is not a store: give {STORE_FORMS}")


def add_store_argument(parser, *, help: str = "the colony store to read", default_note: str = "") -> None:
    """``--store STORE`` alone (:func:`store_url`; None when not given: :func:`store_of`),
    for a parser or a group of mutually exclusive options. ``default_note`` ends the help's
    sentence on the default (when a command reads it)."""
    parser.add_argument("--store", type=store_url, default=None, metavar="STORE",
                        help=f"{help}: {STORE_FORMS} (default {DEFAULT_STORE}, where a crawl "
                        f"keeps it when FORAGERS_STORE is not set{default_note})")


def add_store_arguments(parser, *, help: str = "the colony store to read", default_note: str = "") -> None:
    """``--store STORE`` and ``--prefix P``: the colony store a command reads."""
    add_store_argument(parser, help=help, default_note=default_note)
    add_prefix_argument(parser)


def store_of(args: argparse.Namespace) -> str:
    """The URL of the store a command reads: its ``--store``, else :data:`DEFAULT_STORE`."""
    return args.store if args.store is not None else DEFAULT_STORE


def about_default_store(message: str, args: argparse.Namespace) -> str:
    """``message`` (a store that cannot be read) saying, when no ``--store`` was given, that
    it is the default store: a person who named none learns which was read and how to name
    another."""
    if args.store is not None:
        return message
    return f"{message}; that is the default store, give --store STORE for another"


def store_file(url: str) -> Path | None:
    """The file of an ``sqlite:///PATH`` store (whether it exists or not); None for a store
    a server keeps."""
    return Path(url[len("sqlite:///"):]) if url.startswith("sqlite:///") else None


# -- the run directory -------------------------------------------------------------------------

#: Where a crawl writes its run directory when FORAGERS_RUN_DIR and JOBDIR are not set.
RUNS_DIR = DEFAULT_RUNS_DIR


def add_run_argument(parser, *, help: str = "the colony's run directory", default_note: str = "") -> None:
    """``--run RUN_DIR`` (None when not given: the newest under :data:`RUNS_DIR`).
    ``default_note`` ends the help's sentence on the default."""
    parser.add_argument("--run", metavar="RUN_DIR", default=None,
                        help=f"{help} (FORAGERS_RUN_DIR, or the crawl's JOBDIR; default: the "
                        f"newest under {RUNS_DIR}/{default_note})")


def runs_newest_first() -> list[Path]:
    """The run directories under :data:`RUNS_DIR`, newest first: the first is the run a
    command reads when it is given no ``--run``."""
    return list_runs(RUNS_DIR)
