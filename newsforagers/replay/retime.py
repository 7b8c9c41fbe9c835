"""Re-space a corpus in time, and the hour-by-hour publishing schedule behind it.

A real corpus is often far sparser than a news site (digital.gov: two posts a week). ``retime``
keeps the order of the articles and the weekday × hour-of-day rhythm of the original, and
places them at a chosen average rate per simulated day. :func:`schedule` is the shared
machinery (the synthetic generator uses it too): it draws ``n`` ordered times whose density
over each hour of the week follows a 168-bin weight table.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from typing import Sequence

import numpy as np

HOURS_PER_WEEK = 168
DAY = 86400.0

# A date segment of a URL path: /2014/05/12/ (the day may be the last segment). Any 4-digit
# year: a corpus may be of any era (a 1887 or 2190 path is rewritten like a 2014 one); the
# match must also be a real date (see rewrite_path_date).
_PATH_DATE = re.compile(r"/([0-9]{4})/([0-9][0-9]?)/([0-9][0-9]?)(?=/|$)")


def week_slot(moment: datetime) -> int:
    """Hour of the week, 0 = Monday 00:00-00:59 in ``moment``'s own offset."""
    return moment.weekday() * 24 + moment.hour


def week_histogram(times: Sequence[datetime]) -> np.ndarray:
    """Counts of ``times`` per hour of the week, each read in its own UTC offset."""
    hist = np.zeros(HOURS_PER_WEEK)
    for moment in times:
        hist[week_slot(moment)] += 1
    return hist


def week_weights(times: Sequence[datetime], tz: timezone) -> np.ndarray:
    """Publishing intensity per hour of the week: weekday rate × hour-of-day share.

    The weekday rate is posts per calendar day of that weekday the corpus spans, so a corpus
    of a few days does not make its missing weekdays silent; a weekday it spans without a
    post stays (almost) silent. Hours come from each time in its own offset. A light floor
    keeps a quiet hour rare rather than impossible.
    """
    n = len(times)
    hours = np.zeros(24)
    per_weekday = np.zeros(7)
    for moment in times:
        hours[moment.hour] += 1
        per_weekday[moment.astimezone(tz).weekday()] += 1
    first, last = times[0].astimezone(tz).date(), times[-1].astimezone(tz).date()
    exposure = np.zeros(7)
    span = (last - first).days + 1
    for d in range(7):
        # calendar days with weekday d in [first, last]
        offset = (d - first.weekday()) % 7
        exposure[d] = 0 if offset >= span else 1 + (span - 1 - offset) // 7
    rate = np.where(exposure > 0, per_weekday / np.maximum(exposure, 1), np.nan)
    rate = np.where(np.isnan(rate), np.nanmean(rate), rate)
    hour_share = hours / n
    weights = np.outer(rate / rate.sum(), hour_share).ravel()
    return weights + 0.02 * weights.mean()


def schedule(n: int, start: datetime, days: float, weights: np.ndarray,
             rng: np.random.Generator) -> list[datetime]:
    """``n`` non-decreasing times in ``[start, start + days)``, dense where ``weights`` is.

    ``weights[h]`` is the relative publishing intensity of hour ``h`` of the week (0 = Monday
    midnight) in ``start``'s offset. The times are order statistics of ``n`` draws from that
    piecewise-constant intensity, so gaps look like a Poisson stream, not a metronome.
    """
    if n <= 0:
        return []
    if not days > 0:
        raise ValueError(f"days ({days!r}) must be higher than 0.")
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (HOURS_PER_WEEK,) or (weights < 0).any() or weights.sum() <= 0:
        raise ValueError("weights must be 168 non-negative numbers, not all zero")
    n_slots = int(np.ceil(days * 24))
    first = week_slot(start)
    slot_weight = weights[(first + np.arange(n_slots)) % HOURS_PER_WEEK].copy()
    # The window may end inside its last hour: that hour only gets its share.
    tail = days * 24 - (n_slots - 1)
    slot_weight[-1] *= tail
    if slot_weight.sum() <= 0:  # the window only covers silent hours
        slot_weight[:] = 1.0
        slot_weight[-1] = tail
    cumulative = np.concatenate(([0.0], np.cumsum(slot_weight)))
    draws = np.sort(rng.random(n)) * cumulative[-1]
    slot = np.clip(np.searchsorted(cumulative, draws, side="right") - 1, 0, n_slots - 1)
    within = (draws - cumulative[slot]) / np.where(slot_weight[slot] > 0, slot_weight[slot], 1.0)
    length = np.ones(n_slots)
    length[-1] = tail
    offsets = (slot + np.clip(within, 0.0, 0.999999) * length[slot]) * 3600.0
    start_ts = start.timestamp()
    # Whole seconds, as a CMS would stamp them; order is kept because the draws are sorted.
    seconds = np.floor(offsets).astype(np.int64)
    return [datetime.fromtimestamp(start_ts + int(s), timezone.utc).astimezone(start.tzinfo)
            for s in seconds]


def site_offset(times: Sequence[datetime]) -> timezone:
    """The most common UTC offset among ``times``: the site's local time."""
    counts: dict[timedelta, int] = {}
    for moment in times:
        offset = moment.utcoffset() or timedelta(0)
        counts[offset] = counts.get(offset, 0) + 1
    if not counts:
        return timezone.utc
    offset = max(counts.items(), key=lambda item: (item[1], -abs(item[0])))[0]
    return timezone(offset)


def retime(times: Sequence[datetime], rate: float, seed: int = 0,
           tz: timezone | None = None) -> list[datetime]:
    """New publication times, ``rate`` per simulated day on average, same order and rhythm.

    ``times`` must be sorted. The new schedule starts at local midnight of the first original
    day (in ``tz``, default the corpus's most common offset) and lasts ``len(times) / rate``
    days; hours of the week are filled in proportion to :func:`week_weights`.
    """
    if not rate > 0:
        raise ValueError(f"retime rate ({rate!r}) must be higher than 0.")
    if not times:
        return []
    if any(b < a for a, b in zip(times, times[1:])):
        raise ValueError("times must be sorted")
    tz = tz or site_offset(times)
    weights = week_weights(times, tz)
    first_local = times[0].astimezone(tz)
    start = datetime(first_local.year, first_local.month, first_local.day, tzinfo=tz)
    rng = np.random.default_rng(seed)
    return schedule(len(times), start, len(times) / rate, weights, rng)


def rewrite_path_date(path: str, new_day: date) -> str:
    """Replace the first ``/YYYY/MM/DD`` of ``path`` with ``new_day``; unchanged if none."""

    def replace(match: re.Match) -> str:
        year, month, day = match.groups()
        try:
            date(int(year), int(month), int(day))
        except ValueError:
            return match.group(0)
        return f"/{new_day.year:04d}/{new_day.month:0{len(month)}d}/{new_day.day:0{len(day)}d}"

    return _PATH_DATE.sub(replace, path, count=1)
