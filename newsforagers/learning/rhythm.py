"""Daily and weekly rhythms of publication: a site's hour-of-week profile, learned
from the dates of the stories a forager sees, and the integrals a schedule needs of it.

News is published in cycles: quiet nights, a morning peak, slower weekends. A listing's
novelty rate kept as a constant over-polls at night and under-polls at the peak. Here a
listing's rate is ``λ_i(t) = ℓ_i·p(t)``: its own *level* ``ℓ_i`` (stories per average hour)
times the site's *profile* ``p`` (one value per hour of the week, mean 1 over the week).

Time is POSIX seconds. The profile's 168 bins are the hours of the week in UTC, Monday
00:00 UTC first (:func:`hour_of_week`): a site publishing by its local clock has its local
profile shifted by its UTC offset, which changes nothing here (a summer-time change shifts it
by an hour, which the decay follows in a few weeks).

:class:`Rhythm` is a frozen profile ``p``, piecewise constant over the hours: ``p(t)``,
``∫_a^b p(s) ds`` and ``∫_a^b p(s)·(b − s) ds`` in O(1) per call from prefix sums over the
week's bins (weeks wrap), and the time at which ``ℓ`` times either reaches a threshold (a
binary search over the hour boundaries up to a limit, then a quadratic inside one hour).

:class:`RhythmProfile` learns ``p`` (see its docstring for the estimator, its shrinkage and
what it does about the window a listing shows). Pure: numbers in, numbers out; no clock.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from newsforagers import defaults

HOUR = 3600.0
DAY_HOURS = 24
WEEK_HOURS = 168
_MONDAY = 72.0  # POSIX 0 (1970-01-01) was a Thursday: 72 hours after Monday 00:00 UTC


def hour_of_week(t: float) -> float:
    """Hours since the last Monday 00:00 UTC at POSIX time ``t``, in ``[0, 168)``."""
    return (t / HOUR + _MONDAY) % WEEK_HOURS


class Rhythm:
    """A publication profile ``p``: one value per hour of the UTC week (``hourly[h]``, Monday
    00:00 UTC first), scaled to mean 1, constant within each hour. Integrals are in *average
    hours* (hours weighted by ``p``): a level ``ℓ`` (stories per average hour) times
    :meth:`integral` is the stories expected. A flat profile gives exactly the constant-rate
    numbers (``Δ`` hours, ``Δ²/2`` hour²)."""

    def __init__(self, hourly: Sequence[float]):
        p = np.array(hourly, dtype=np.float64)
        if p.shape != (WEEK_HOURS,) or not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
            raise ValueError(f"a rhythm needs {WEEK_HOURS} finite values >= 0 with a positive sum.")
        p /= p.mean()
        self.flat = bool(np.all(p == p[0]))
        if self.flat:
            p[:] = 1.0
        p.setflags(write=False)
        self.hourly = p
        self._p = p.tolist()
        # prefix sums over the week's bins: C1[k] = Σ_{j<k} p_j, C2[k] = Σ_{j<k} p_j·(j + ½)
        # (∫ s ds over the bin [j, j + 1] is j + ½)
        self._c1 = np.concatenate(([0.0], np.cumsum(p))).tolist()
        self._c2 = np.concatenate(([0.0], np.cumsum(p * (np.arange(WEEK_HOURS) + 0.5)))).tolist()
        self._s1, self._s2 = self._c1[-1], self._c2[-1]
        self._root: Rhythm | None = None

    @property
    def root(self) -> "Rhythm":
        """The profile ``√p`` (scaled to mean 1): polls spread over the week in proportion to
        it minimise the mean lag of a listing's stories for a given number of polls."""
        if self._root is None:
            self._root = self if self.flat else Rhythm(np.sqrt(self.hourly))
        return self._root

    @classmethod
    def constant(cls) -> "Rhythm":
        return cls(np.ones(WEEK_HOURS))

    def at(self, t: float) -> float:
        """``p(t)``."""
        return self._p[min(int(hour_of_week(t)), WEEK_HOURS - 1)]

    def _moments(self, y: float) -> tuple[float, float]:
        # (∫_0^y p(s) ds, ∫_0^y s·p(s) ds) for y >= 0 hours after a Monday 00:00; weeks wrap:
        # week w contributes S2 + 168·w·S1 to the second
        weeks, r = divmod(y, float(WEEK_HOURS))
        k = min(int(r), WEEK_HOURS - 1)
        pk = self._p[k]
        i1 = self._c1[k] + pk * (r - k)
        i2 = self._c2[k] + pk * (r * r - k * k) / 2.0
        i2 += weeks * self._s2 + WEEK_HOURS * self._s1 * weeks * (weeks - 1.0) / 2.0 + WEEK_HOURS * weeks * i1
        i1 += weeks * self._s1
        return i1, i2

    def integral(self, a: float, b: float) -> float:
        """``∫_a^b p(s) ds`` in average hours (0 when ``b <= a``)."""
        if b <= a:
            return 0.0
        if self.flat:
            return (b - a) / HOUR
        x = hour_of_week(a)
        return self._moments(x + (b - a) / HOUR)[0] - self._moments(x)[0]

    def lag_integral(self, a: float, b: float) -> float:
        """``∫_a^b p(s)·(b − s) ds`` in average hours × hours: the document-hours of discovery
        lag that a level of one story per average hour leaves waiting at ``b`` since ``a``."""
        if b <= a:
            return 0.0
        if self.flat:
            hours = (b - a) / HOUR
            return hours * hours / 2.0
        x = hour_of_week(a)
        y = x + (b - a) / HOUR
        i1x, i2x = self._moments(x)
        i1y, i2y = self._moments(y)
        return max(0.0, y * (i1y - i1x) - (i2y - i2x))

    def reach(self, a: float, level: float, target: float, limit: float, lag: bool = True) -> float:
        """Seconds ``Δ`` after ``a`` at which ``level·∫_a^{a+Δ} p(s)·(a + Δ − s) ds`` (``lag``)
        or ``level·∫_a^{a+Δ} p(s) ds`` (not ``lag``) reaches ``target``; ``limit`` when it
        does not within ``limit`` seconds. A binary search over the hour boundaries (about
        log2 of the hours in ``limit`` evaluations), then the exact root inside one hour."""
        if target <= 0:
            return 0.0
        if level <= 0 or limit <= 0 or math.isinf(target):
            return max(0.0, limit)
        goal = target / level
        if self.flat:
            hours = math.sqrt(2.0 * goal) if lag else goal
            return min(limit, hours * HOUR)
        x = hour_of_week(a)
        end = x + limit / HOUR
        i1x, i2x = self._moments(x)

        def measure(y: float) -> tuple[float, float]:  # (the measure at y, ∫_x^y p)
            i1, i2 = self._moments(y)
            grown = i1 - i1x
            return (y * grown - (i2 - i2x)) if lag else grown, grown

        if measure(end)[0] < goal:
            return limit
        lo, hi = math.floor(x), math.ceil(end)  # the measure is below goal at max(lo, x), not at min(hi, end)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if measure(float(mid))[0] < goal:
                lo = mid
            else:
                hi = mid
        start = max(float(lo), x)
        reached, grown = measure(start)
        rate = self._p[lo % WEEK_HOURS]  # p is constant on [lo, lo + 1]
        need = goal - reached
        if lag:  # reached + grown·u + rate·u²/2 = goal
            u = 2.0 * need / (grown + math.sqrt(grown * grown + 2.0 * rate * need)) if need > 0 else 0.0
        else:  # grown + rate·u = goal
            u = need / rate if rate > 0 and need > 0 else 0.0
        return min(limit, max(0.0, (start - x + u) * HOUR))


class RhythmProfile:
    """The site's hour-of-week profile ``p(h)``, learned from the publication dates a forager
    sees (every dated story is a sample of the site's publishing process; the caller counts
    each story once). Bounded memory (four arrays of 168), O(1) per story.

    **Estimator.** A Poisson model: stories come at ``ℓ_w·p(h)`` in each observation window
    ``w``. Per bin ``h`` it keeps the stories counted ``C_h`` and the stories a flat profile
    would have put there ``E_h`` (each window's hours in ``h`` times the window's own level,
    its stories over its hours), so that ``C_h / E_h`` estimates ``p(h)`` — one step of the
    maximum-likelihood fit, started from flat (a window shorter than a day says only how its
    hours compare with one another, and leans towards flat, never away from it). Two kinds of
    window:

    - *live*: from the profile's first observation (``start``) on, the forager watches the site:
      every story dated at or after ``start`` is counted in the hour it was published, and each
      hour since ``start`` is exposure (``E_h`` = the live level × hours watched in ``h``). A
      story still waiting to be found is missing from the latest minutes for as long as its
      discovery lag: a small, passing underestimate of the current hour.
    - *backlog*: a listing shows only its latest ``N`` stories, so stories dated before
      ``start`` cover a window its length decides — hours on a busy front, weeks on a quiet
      one. Counting them against the hours before ``start`` would over-weight those hours by a
      factor that differs from listing to listing. So each listing's backlog is its own window
      (:meth:`observe_listing`): from the oldest story it shows to its newest (at most
      ``start``), the stories strictly after the oldest counted, spread as exposure over the
      window at the listing's own level. A story two listings show counts in the first one's
      window only. A fetched article dated before ``start`` and not listed (no window) is
      ignored.

    **Shrinkage** (usable after hours, not weeks), a gamma prior per bin in units of expected
    stories:

        p_day(j)  = (C_j + k_day) / (E_j + k_day)                    (C_j, E_j: the 7 bins of hour j pooled)
        p_week(h) = (C_h + k_week·p_day(h mod 24)) / (E_h + k_week)
        p(h)      = (1 − f)·p_week(h)/mean(p_week) + f               (mean 1; no hour below f)

    so with no story ``p`` is flat, with few it is the hour-of-day profile shrunk towards
    flat, and with many the hour-of-week one. **Decay**: every count and exposure weighs
    ``2^{−age/half_life}`` (a site's schedule change is followed). The curve is recomputed at
    most every ``refresh`` seconds (:meth:`curve`).
    """

    def __init__(self, half_life: float = defaults.RHYTHM_HALF_LIFE,
                 day_prior: float = defaults.RHYTHM_DAY_PRIOR,
                 week_prior: float = defaults.RHYTHM_WEEK_PRIOR,
                 floor: float = defaults.RHYTHM_FLOOR, refresh: float = defaults.RHYTHM_REFRESH):
        if not half_life > 0:
            raise ValueError(f"rhythm half_life ({half_life!r}) must be > 0 seconds (inf: no decay).")
        if not (day_prior > 0 and week_prior > 0):
            raise ValueError(f"rhythm priors ({day_prior!r}, {week_prior!r}) must be > 0 stories.")
        if not 0 < floor < 1:
            raise ValueError(f"rhythm floor ({floor!r}) must be in (0, 1).")
        if refresh < 0:
            raise ValueError(f"rhythm refresh ({refresh!r}) must be >= 0 seconds.")
        self.half_life = float(half_life)
        self.day_prior = float(day_prior)
        self.week_prior = float(week_prior)
        self.floor = float(floor)
        self.refresh = float(refresh)
        # windows older than this weigh less than 2^-8: a backlog window is cut there
        self.horizon = 8.0 * self.half_life if math.isfinite(self.half_life) else 365 * 86400.0
        self.start: float | None = None  # first observation: live exposure from here
        self.exposed: float | None = None  # live exposure counted up to here
        self.stories = 0  # stories counted (live and backlog), undecayed
        self._ref = 0.0  # weights are stored as 2^{(t − ref)/half_life}
        self._live = np.zeros(WEEK_HOURS)  # C, live
        self._watched = np.zeros(WEEK_HOURS)  # hours watched, live
        self._backlog = np.zeros(WEEK_HOURS)  # C, backlog windows
        self._expected = np.zeros(WEEK_HOURS)  # E, backlog windows
        self._curve: Rhythm | None = None
        self._curve_at: float | None = None

    def _weight(self, t: float) -> float:
        if math.isinf(self.half_life):
            return 1.0
        return 2.0 ** ((t - self._ref) / self.half_life)

    def _rebase(self, now: float) -> None:
        # keep the stored weights finite: move the reference to now once it is 32 half-lives old
        if math.isinf(self.half_life) or now - self._ref < 32.0 * self.half_life:
            return
        scale = 2.0 ** ((self._ref - now) / self.half_life)
        for array in (self._live, self._watched, self._backlog, self._expected):
            array *= scale
        self._ref = now

    def _spread(self, array: np.ndarray, a: float, b: float, per_hour: float) -> None:
        # add per_hour × (hours of [a, b] in each bin), each piece weighed at its middle
        first, last = math.floor(a / HOUR), math.ceil(b / HOUR)
        if last - first <= 1:
            array[int((first + _MONDAY) % WEEK_HOURS)] += per_hour * (b - a) / HOUR * self._weight((a + b) / 2.0)
            return
        edges = np.arange(first, last + 1, dtype=np.float64) * HOUR
        edges[0], edges[-1] = a, b
        widths = np.diff(edges) / HOUR
        middles = (edges[:-1] + edges[1:]) / 2.0
        weights = np.exp2((middles - self._ref) / self.half_life) if math.isfinite(self.half_life) else 1.0
        bins = (np.arange(first, last) + int(_MONDAY)) % WEEK_HOURS
        np.add.at(array, bins, per_hour * widths * weights)

    def expose(self, now: float) -> None:
        """The forager has watched the site up to ``now`` (the first call sets ``start``; the
        observations call it)."""
        if self.start is None:
            self.start = self.exposed = self._ref = float(now)
            return
        if now <= self.exposed:
            return
        self._rebase(now)
        self._spread(self._watched, max(self.exposed, now - self.horizon), now, 1.0)
        self.exposed = float(now)

    def observe(self, published: float, now: float) -> bool:
        """One story dated ``published``, first seen at ``now`` (a fetched article). Counted
        when dated at or after ``start`` (a date ahead of ``now`` counts at ``now``); True if
        counted."""
        self.expose(now)
        t = min(float(published), float(now))
        if t < self.start:
            return False  # no window says which hours it was drawn from
        self._live[int(hour_of_week(t))] += self._weight(t)
        self.stories += 1
        return True

    def observe_listing(self, published: Iterable[float], shown: Sequence[float], now: float) -> int:
        """The stories a listing dates at ``now``: ``published``, those not counted before
        (first seen now); ``shown``, the dates of all it shows (its window). Stories from
        ``start`` on are live; older ones are the listing's backlog, counted in the window
        from its oldest story to its newest (at most ``start``) at its own level. Returns the
        stories counted."""
        self.expose(now)
        counted = 0
        backlog = []
        for stamp in published:
            if stamp >= self.start:
                counted += self.observe(stamp, now)
            else:
                backlog.append(float(stamp))
        if not backlog or not shown:
            return counted
        oldest = max(float(min(shown)), self.start - self.horizon)
        end = min(float(max(shown)), self.start)
        inside = [t for t in backlog if oldest < t <= end]
        if not inside or end - oldest < 60.0:
            return counted
        for t in inside:
            self._backlog[int(hour_of_week(t))] += self._weight(t)
        self._spread(self._expected, oldest, end, len(inside) * HOUR / (end - oldest))
        self.stories += len(inside)
        return counted + len(inside)

    def curve(self, now: float | None = None) -> Rhythm:
        """The profile in use: estimated again (:meth:`estimate`) at ``now``, exposure counted
        up to it, once ``refresh`` seconds have passed since the last estimate (``now`` None:
        the last estimate, made now if there is none). A schedule reads it on every decision;
        the evidence of ten minutes changes little."""
        if now is not None:
            # only a story starts the watch: a schedule's clock may not be the site's yet
            if self.start is not None:
                self.expose(now)
            if self._curve_at is not None and now - self._curve_at >= self.refresh:
                self._curve = None
        if self._curve is None:
            at = now if now is not None else (self.exposed if self.exposed is not None else 0.0)
            self._curve, self._curve_at = self.estimate(at), at
        return self._curve

    def estimate(self, at: float) -> Rhythm:
        """The profile as the evidence weighs at ``at`` (see the class docstring)."""
        if self.stories == 0:
            return Rhythm.constant()
        scale = 1.0 if math.isinf(self.half_life) else 2.0 ** ((self._ref - at) / self.half_life)
        live, watched = self._live * scale, self._watched * scale
        if watched.sum() <= 0:  # stories at the very first instant: no hour watched yet
            live = np.zeros(WEEK_HOURS)
        level = live.sum() / watched.sum() if watched.sum() > 0 else 0.0
        counts = live + self._backlog * scale
        expected = level * watched + self._expected * scale
        day_counts = counts.reshape(7, DAY_HOURS).sum(axis=0)
        day_expected = expected.reshape(7, DAY_HOURS).sum(axis=0)
        day = (day_counts + self.day_prior) / (day_expected + self.day_prior)
        week = (counts + self.week_prior * np.tile(day, 7)) / (expected + self.week_prior)
        return Rhythm((1.0 - self.floor) * week / week.mean() + self.floor)

    # -- persistence ------------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {"start": self.start, "exposed": self.exposed, "stories": self.stories, "ref": self._ref,
                "live": self._live.tolist(), "watched": self._watched.tolist(),
                "backlog": self._backlog.tolist(), "expected": self._expected.tolist()}

    @classmethod
    def from_dict(cls, data: dict, **kwargs) -> "RhythmProfile":
        profile = cls(**kwargs)
        profile.start, profile.exposed = data.get("start"), data.get("exposed")
        profile.stories = int(data.get("stories", 0))
        profile._ref = float(data.get("ref", 0.0))
        for name in ("live", "watched", "backlog", "expected"):
            values = np.asarray(data.get(name, np.zeros(WEEK_HOURS)), dtype=np.float64)
            if values.shape != (WEEK_HOURS,) or not np.all(np.isfinite(values)):
                raise ValueError(f"a saved rhythm's {name!r} must be {WEEK_HOURS} finite numbers.")
            getattr(profile, f"_{name}")[:] = values
        return profile

    def parameters(self) -> dict:
        return dict(half_life=self.half_life, day_prior=self.day_prior, week_prior=self.week_prior,
                    floor=self.floor, refresh=self.refresh)

    def copy(self) -> "RhythmProfile":
        return RhythmProfile.from_dict(self.to_dict(), **self.parameters())
