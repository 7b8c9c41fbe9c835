"""Where a site's day begins: its UTC offset, learnt from the days its URLs name.

A news site names its days in its own time: ``/2024/03/05/story/`` is a story of the 5th
where it was written, and ``/archive/2024/03/05/`` lists that day's stories until the site's
midnight. A page gives its times with an offset that reading turns into UTC, so the offset is
not kept; the URLs keep it. A story published at ``t`` (UTC) whose URL names the day ``D``
says that the site's UTC offset ``o`` puts ``t`` within ``D``: ``D₀ ≤ t + o < D₀ + 24 h``
(``D₀``: 00:00 of ``D`` read as UTC), i.e. ``o ∈ [D₀ − t, D₀ + 24 h − t)``; a day's page that
dates a story says the same of the page's day.

:class:`SiteDays` keeps, for each host, how many such observations each candidate offset
agrees with (every quarter of an hour from UTC−12 to UTC+14, the offsets in use) and takes the
middle of the offsets that agree with the most: a story published at 23:50 where it was
written and one at 00:10 the next day pin the offset to within twenty minutes; a site that
publishes from 06:00 to 22:00 leaves an eight-hour range, all in the hours it does not publish,
where any midnight serves. A URL dated otherwise (a story first drafted the day before, an old
story's URL) is outvoted, not trusted. A time with no time of day (00:00:00 UTC exactly: a date
read as a timestamp, or the URL's own date) tells nothing and is not counted.

Until a host's stories name two days in a row, its offset is not taken: the stories of one day
agree with any midnight after the last of them, the part of the day not yet published as much
as the night (a site read at 11:00 UTC whose day began at 00:00 UTC agrees with every offset
from UTC to UTC+13, and the middle would end its day at 17:30 UTC); a story of a week ago adds
little to it. Two days in a row show a midnight the site has passed, between the last story of
one and the first of the next. Until then, and for a host never observed, the day is UTC's (the
rule before this module).

Pure: numbers in (POSIX seconds), numbers out.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

DAY = 86_400.0
STEP = 900.0  # a quarter of an hour: UTC+05:45 and +08:45 are in use
KEEP_DAYS = 8  # the days observed kept a host (the latest): two in a row make its offset known
OFFSETS = np.arange(-12 * 3600.0, 14 * 3600.0 + STEP / 2, STEP)  # the candidates, seconds east of UTC


class SiteDays:
    """Each host's UTC offset as the days its URLs name show it (the module's docstring).
    At most ``max_hosts`` hosts are remembered: past it, the least observed half is forgotten."""

    def __init__(self, max_hosts: int = 10_000):
        if max_hosts < 1:
            raise ValueError(f"max_hosts ({max_hosts!r}) must be at least 1.")
        self.max_hosts = max_hosts
        self._votes: dict[str, np.ndarray] = {}
        self._offsets: dict[str, float] = {}  # the hosts whose offset is known (two days in a row)
        self._days: dict[str, set[float]] = {}  # host -> the latest days observed (their 00:00 as UTC)

    def __len__(self) -> int:
        return len(self._votes)

    def observe(self, host: str, day_start: float, published: float) -> bool:
        """A story published at ``published`` belongs to the day of ``host`` that starts at
        ``day_start`` where the site is, read as UTC (00:00 UTC of the date its URL names).
        False when it tells nothing: no time of day, or more than a day away from any offset
        in use (a URL dated another day than its story's)."""
        if published % DAY == 0.0:
            return False
        low, high = day_start - published, day_start + DAY - published
        agree = (OFFSETS >= low) & (OFFSETS < high)
        if not agree.any():
            return False
        votes = self._votes.get(host)
        if votes is None:
            if len(self._votes) >= self.max_hosts:
                self._forget()
            votes = self._votes[host] = np.zeros(len(OFFSETS), dtype=np.int32)
        votes += agree
        days = self._days.setdefault(host, set())
        if day_start not in days:
            days.add(day_start)
            if len(days) > KEEP_DAYS:
                days.discard(min(days))
        if host in self._offsets or any(day + DAY in days for day in days):
            self._offsets[host] = _middle(votes)
        return True

    def offset(self, host: str) -> float:
        """``host``'s offset from UTC, seconds east (0 until :meth:`known`)."""
        return self._offsets.get(host, 0.0)

    def known(self, host: str) -> bool:
        """Whether ``host``'s offset is learnt: its stories named two days in a row."""
        return host in self._offsets

    def copy(self) -> "SiteDays":
        other = SiteDays(self.max_hosts)
        other._votes = {host: votes.copy() for host, votes in self._votes.items()}
        other._offsets = dict(self._offsets)
        other._days = {host: set(days) for host, days in self._days.items()}
        return other

    def to_dict(self) -> dict:
        """Host by host, the votes (integers) and the latest days observed (a state file)."""
        return {host: {"votes": [int(v) for v in votes], "days": sorted(self._days.get(host, ()))}
                for host, votes in self._votes.items()}

    @classmethod
    def from_dict(cls, data: Mapping, max_hosts: int = 10_000) -> "SiteDays":
        """The state :meth:`to_dict` wrote; a host whose votes are not one count per candidate
        offset, or whose days are not numbers, raises ValueError (a state file from another
        version, or damaged)."""
        days = cls(max_hosts)
        for host, saved in data.items():
            try:
                array = np.asarray(saved["votes"], dtype=np.int32)
                observed = {float(day) for day in saved["days"]}
            except (TypeError, KeyError, ValueError) as exc:
                raise ValueError(f"the day offsets of {host!r} are not votes and days ({exc})") from None
            if not isinstance(host, str) or array.shape != OFFSETS.shape or (array < 0).any() or not array.any():
                raise ValueError(f"the day offsets of {host!r} are not {len(OFFSETS)} counts")
            days._votes[host] = array
            days._days[host] = set(sorted(observed)[-KEEP_DAYS:])
            if any(day + DAY in days._days[host] for day in days._days[host]):
                days._offsets[host] = _middle(array)
        return days

    def _forget(self) -> None:
        by_count = sorted(self._votes, key=lambda host: self._votes[host].max())
        for host in by_count[: max(1, len(by_count) // 2)]:
            del self._votes[host]
            self._offsets.pop(host, None)
            self._days.pop(host, None)


def _middle(votes: np.ndarray) -> float:
    """The middle one of the offsets that agree with the most observations."""
    best = np.flatnonzero(votes == votes.max())
    return float(OFFSETS[best[len(best) // 2]])
