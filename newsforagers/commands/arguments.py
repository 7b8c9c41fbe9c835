"""Argument types the sub-commands share: a bad value is one usage line saying what is wrong."""

from __future__ import annotations

import argparse
import math


def positive(value: str) -> float:
    """A finite number higher than 0 (seconds, a speed, an interval)."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not math.isfinite(number) or not number > 0:
        raise argparse.ArgumentTypeError(f"{value!r} must be higher than 0")
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
