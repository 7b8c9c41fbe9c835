"""Argument types the sub-commands share: a bad value is one usage line saying what is wrong."""

from __future__ import annotations

import argparse
import math

from newsforagers import defaults


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
    """``--prefix P``: the colony's key prefix in a Redis store (``FORAGERS_REDIS_PREFIX``)."""
    parser.add_argument("--prefix", default=defaults.FORAGERS_REDIS_PREFIX, metavar="P",
                        help="with a redis:// store: the colony's key prefix (FORAGERS_REDIS_PREFIX, "
                        f"default {defaults.FORAGERS_REDIS_PREFIX!r})")


def add_store_arguments(parser, *, required: bool = False,
                        help: str = "the colony store (FORAGERS_STORE), e.g. "
                                    "sqlite:///.newsforagers/colony.db or redis://host:6379/0") -> None:
    """``--store URL`` and ``--prefix P``: the colony store a command reads."""
    parser.add_argument("--store", required=required, metavar="URL", default=None, help=help)
    add_prefix_argument(parser)
