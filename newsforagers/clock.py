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


#: The times a site's clock may plausibly read. HTTP dates say years 0001 to 9999, and broken
#: servers send both ends ("Date: Fri, 31 Dec 9999 23:59:59 GMT"); no web server answered before
#: 1970, and a replay of a corpus runs its clock in the corpus's era (1987, 2090), so only the
#: absurd is refused here: finer checks are the clock's own (:meth:`SiteClock.observe`).
EARLIEST_SITE_TIME = datetime(1970, 1, 2, tzinfo=UTC)
LATEST_SITE_TIME = datetime(3000, 1, 1, tzinfo=UTC)


def http_date(value: str | bytes | None) -> datetime | None:
    """An HTTP date (``Date``, ``Last-Modified``, ``Retry-After``; RFC 9110 and the obsolete
    forms email.utils reads) as aware UTC, or None — never an exception: garbage, a missing
    zone, and times a zone pushes past year 9999 (``31 Dec 9999 23:59:59 -1200``) are None."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    try:
        parsed = parsedate_to_datetime(value.strip())
        if parsed is None or parsed.tzinfo is None or parsed.utcoffset() is None:
            return None
        return parsed.astimezone(UTC)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def plausible_site_time(moment: datetime | None) -> datetime | None:
    """``moment`` if a site's clock could read it (between :data:`EARLIEST_SITE_TIME` and
    :data:`LATEST_SITE_TIME`), else None."""
    if moment is None or not EARLIEST_SITE_TIME <= moment <= LATEST_SITE_TIME:
        return None
    return moment


def site_time(response: Any) -> datetime | None:
    """The site's clock as its ``Date`` header gives it (aware UTC), or None.

    The parsing of ``ForagerSpider.site_now``: an RFC 9110 date; a missing, unparsable,
    zone-less or absurd header (:func:`plausible_site_time`) gives None (the caller falls back
    to its clock's estimate or the system clock, and counts it).
    """
    headers = getattr(response, "headers", None)
    header = headers.get(b"Date") if headers is not None else None
    if not header:
        return None
    return plausible_site_time(http_date(header))


class SiteClock:
    """The site's clock between responses: ``site = offset + speed × wall``.

    Each ``Date`` header is a lower bound of the site's time when the response arrives (it
    is truncated to the second and was written before the response travelled), so the
    offset kept is the largest one observed: the estimate never runs ahead of the site.
    ``speed`` is given (the replay's ``--speed``; 1 for a live site); an observed rate that
    disagrees with it by more than a quarter, over at least ``check_after`` wall seconds, is
    logged once.

    A reading further than ``tolerance`` simulated seconds from the estimate (default: an hour,
    or a minute of wall time at ``speed`` when that is more) is implausible: one broken response
    (a year-9999 ``Date``) must not move the clock, and the largest offset would keep it there
    for good. It is refused (:meth:`observe` returns False) — unless the next readings say the
    same: :data:`REBASE_AFTER` in a row that agree with each other mean the estimate was wrong
    (a first reading that was the broken one, a site whose clock was set), and the clock moves
    to them.
    """

    #: Agreeing readings, all far from the estimate, after which the clock takes them.
    REBASE_AFTER = 3

    def __init__(self, speed: float = 1.0, wall=time.time, check_after: float = 10.0,
                 tolerance: float | None = None):
        if not speed > 0:
            raise ValueError(f"speed ({speed!r}) must be higher than 0")
        self.speed = float(speed)
        self.wall = wall
        self.check_after = check_after
        self.tolerance = float(tolerance) if tolerance is not None else max(3600.0, 60.0 * self.speed)
        self.offset: float | None = None
        self._first: tuple[float, float] | None = None  # (wall, site) of the first observation
        self._warned = False
        self._outliers: list[float] = []  # offsets of the readings refused in a row
        self.refused = 0  # readings refused as implausible

    @property
    def ready(self) -> bool:
        return self.offset is not None

    def observe(self, site: datetime, wall: float | None = None) -> bool:
        """Take a ``Date`` reading; False when it was refused as implausible (see the class)."""
        wall = self.wall() if wall is None else wall
        if plausible_site_time(site) is None:
            self.refused += 1
            return False
        ts = site.timestamp()
        offset = ts - self.speed * wall
        if self.offset is not None and abs(offset - self.offset) > self.tolerance:
            self._outliers.append(offset)
            offsets = self._outliers
            if len(offsets) < self.REBASE_AFTER or max(offsets) - min(offsets) > self.tolerance:
                if len(offsets) >= self.REBASE_AFTER:
                    del self._outliers[0]  # they disagree: forget the oldest
                self.refused += 1
                return False
            # several readings in a row agree on another time: the estimate was the wrong one
            logger.info("the site's clock moved by %.0f s (%d readings agree): following it",
                        offsets[-1] - self.offset, len(offsets))
            self.offset = max(offsets)
        else:
            self.offset = offset if self.offset is None else max(self.offset, offset)
        self._outliers = []
        if self._first is None:
            self._first = (wall, ts)
        elif not self._warned and wall - self._first[0] >= self.check_after:
            observed = (ts - self._first[1]) / (wall - self._first[0])
            if not 0.75 * self.speed <= observed <= 1.25 * self.speed:
                self._warned = True
                logger.warning("the site's clock runs at about %.3g simulated seconds per wall "
                               "second, not speed=%g: pass -a speed=... (the replay's --speed)",
                               observed, self.speed)
        return True

    def now(self) -> float:
        """The site's time now (POSIX seconds); the system clock before any observation."""
        wall = self.wall()
        if self.offset is None:
            return wall
        return self.offset + self.speed * wall

    def wall_delay(self, site_ts: float) -> float:
        """Wall seconds from now until the site's clock reads ``site_ts`` (0 if it has)."""
        return max(0.0, (site_ts - self.now()) / self.speed)


__all__ = ["EARLIEST_SITE_TIME", "LATEST_SITE_TIME", "SiteClock", "http_date", "plausible_site_time",
           "site_time"]
