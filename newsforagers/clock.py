"""The site's clock: what a response's ``Date`` header says, and an estimate between responses.

A news site's "now" decides what is new (a document at most 24 hours old by the site's clock),
and a replay of a corpus runs its clock faster than the wall clock (``speed``). Pure: no Scrapy
import; a response is read through its ``headers`` attribute.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

logger = logging.getLogger(__name__)


def site_time(response: Any) -> datetime | None:
    """The site's clock as its ``Date`` header gives it (aware UTC), or None.

    The parsing of ``ForagerSpider.site_now``: an RFC 9110 date; a missing, unparsable or
    zone-less header gives None (the caller falls back to the system clock and counts it).
    """
    headers = getattr(response, "headers", None)
    header = headers.get(b"Date") if headers is not None else None
    if not header:
        return None
    try:
        parsed = parsedate_to_datetime(header.decode("latin-1"))
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return None
    return parsed.astimezone(UTC)


class SiteClock:
    """The site's clock between responses: ``site = offset + speed × wall``.

    Each ``Date`` header is a lower bound of the site's time when the response arrives (it
    is truncated to the second and was written before the response travelled), so the
    offset kept is the largest one observed: the estimate never runs ahead of the site.
    ``speed`` is given (the replay's ``--speed``; 1 for a live site); an observed rate that
    disagrees with it by more than a quarter, over at least ``check_after`` wall seconds, is
    logged once.
    """

    def __init__(self, speed: float = 1.0, wall=time.time, check_after: float = 10.0):
        if not speed > 0:
            raise ValueError(f"speed ({speed!r}) must be higher than 0")
        self.speed = float(speed)
        self.wall = wall
        self.check_after = check_after
        self.offset: float | None = None
        self._first: tuple[float, float] | None = None  # (wall, site) of the first observation
        self._warned = False

    @property
    def ready(self) -> bool:
        return self.offset is not None

    def observe(self, site: datetime, wall: float | None = None) -> None:
        wall = self.wall() if wall is None else wall
        ts = site.timestamp()
        offset = ts - self.speed * wall
        self.offset = offset if self.offset is None else max(self.offset, offset)
        if self._first is None:
            self._first = (wall, ts)
        elif not self._warned and wall - self._first[0] >= self.check_after:
            observed = (ts - self._first[1]) / (wall - self._first[0])
            if not 0.75 * self.speed <= observed <= 1.25 * self.speed:
                self._warned = True
                logger.warning("the site's clock runs at about %.3g simulated seconds per wall "
                               "second, not speed=%g: pass -a speed=... (the replay's --speed)",
                               observed, self.speed)

    def now(self) -> float:
        """The site's time now (POSIX seconds); the system clock before any observation."""
        wall = self.wall()
        if self.offset is None:
            return wall
        return self.offset + self.speed * wall

    def wall_delay(self, site_ts: float) -> float:
        """Wall seconds from now until the site's clock reads ``site_ts`` (0 if it has)."""
        return max(0.0, (site_ts - self.now()) / self.speed)


__all__ = ["SiteClock", "site_time"]
