"""Adaptive revisit intervals: the rule of the ``adaptive`` and ``feeds`` baseline crawlers
(:class:`~newsforagers.evaluation.baselines.AdaptiveSpider`) and of the simulator's adaptive
strategy (:func:`~newsforagers.sim.strategies.run_adaptive`), defined once.

A hub (a home page, a section front, a feed) is revisited on an interval of its own, in the
site's seconds. After a poll the interval is multiplied by ``shrink`` when the poll showed a
link not seen before, by ``grow`` when it did not, and kept within ``[minimum, maximum]``::

    I ← min(maximum, max(minimum, I · (shrink if changed else grow)))

A hub's first poll shows everything as new, so it says nothing of the hub's rate and leaves
the interval as it is. The next poll goes to the most overdue hub: the largest ratio of the
time since its last poll to its interval (a hub never polled first); when no ratio reaches 1,
nothing is due before the earliest ``last + interval``.

This is the multiplicative-increase, multiplicative-decrease revisit rule that feed readers
keep per feed; the constants are the baseline's (docs/baselines.md says what they were chosen
for), not fitted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class AdaptiveInterval:
    """The revisit rule's constants (seconds and factors); raises ValueError unless
    ``0 < minimum <= initial <= maximum`` (finite) and ``0 < shrink <= 1 <= grow``."""

    initial: float = 600.0
    minimum: float = 60.0
    maximum: float = 3600.0
    shrink: float = 0.5
    grow: float = 1.5

    def __post_init__(self) -> None:
        for name in ("initial", "minimum", "maximum", "shrink", "grow"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} ({value!r}) must be a finite number > 0.")
        if not self.minimum <= self.initial <= self.maximum:
            raise ValueError(f"minimum ({self.minimum!r}) <= initial ({self.initial!r}) <= "
                             f"maximum ({self.maximum!r}) must hold.")
        if not self.shrink <= 1 <= self.grow:
            raise ValueError(f"shrink ({self.shrink!r}) <= 1 <= grow ({self.grow!r}) must hold.")

    def after_poll(self, interval: float, changed: bool, *, first: bool = False) -> float:
        """The interval after a poll of a hub whose interval was ``interval``; ``changed``: the
        poll showed a link not seen before; ``first``: the hub's first poll (no change)."""
        if first:
            return interval
        factor = self.shrink if changed else self.grow
        return min(self.maximum, max(self.minimum, interval * factor))

    @staticmethod
    def overdue(now: float, last_poll: float | None, interval: float) -> float:
        """How overdue a hub is: (now − last poll) / interval; infinite for a hub never polled."""
        return math.inf if last_poll is None else (now - last_poll) / interval
