"""The replay's accelerated clock: ``sim_now = start + speed × (wall − wall0)``.

The wall clock is injected (any zero-argument callable returning seconds), so tests drive
simulated time with a :class:`ManualWall` instead of sleeping.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Callable


def _as_aware(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"start {value.isoformat()!r} must carry a UTC offset")
    return value


class SimClock:
    """Simulated time running ``speed`` times faster than the wall clock.

    ``wall0`` is read from ``wall`` when the clock is built; :meth:`reset` restarts it (the
    server calls it when it starts listening, so the first request sees ``start``).
    """

    def __init__(self, start: datetime, speed: float = 1.0,
                 wall: Callable[[], float] = time.time):
        if not speed > 0:
            raise ValueError(f"speed ({speed!r}) must be higher than 0.")
        self.start = _as_aware(start).astimezone(timezone.utc)
        self.start_ts = self.start.timestamp()
        self.speed = float(speed)
        self.wall = wall
        self.wall0 = wall()

    def reset(self, start: datetime | None = None) -> None:
        """Restart the clock at ``start`` (default: the current start) from the wall's now."""
        if start is not None:
            self.start = _as_aware(start).astimezone(timezone.utc)
            self.start_ts = self.start.timestamp()
        self.wall0 = self.wall()

    def now_ts(self) -> float:
        """Simulated now as POSIX seconds."""
        return self.start_ts + self.speed * (self.wall() - self.wall0)

    def now(self) -> datetime:
        """Simulated now, an aware UTC datetime."""
        return datetime.fromtimestamp(self.now_ts(), timezone.utc)

    def wall_at(self, sim: datetime | float) -> float:
        """The wall time at which simulated time reaches ``sim``."""
        sim_ts = sim.timestamp() if isinstance(sim, datetime) else float(sim)
        return self.wall0 + (sim_ts - self.start_ts) / self.speed

    def __repr__(self) -> str:
        return (f"SimClock(start={self.start.isoformat()}, speed={self.speed:g}, "
                f"now={self.now().isoformat()})")


class ManualWall:
    """A wall clock that only moves when told to: ``wall.advance(seconds)`` or ``wall.set(t)``."""

    def __init__(self, t: float = 1_000_000.0):
        self.t = float(t)

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds

    def set(self, t: float) -> None:
        self.t = float(t)
