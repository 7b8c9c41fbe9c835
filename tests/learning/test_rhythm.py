"""Daily and weekly rhythms (issue 19): the profile's integrals and due times, its estimator
(shrinkage, backlog windows, decay, bounded memory) and the schedule run with it —
hand-computed numbers.

The two-level profile of most tests: p = 1.5 by day (06:00–18:00 UTC), 0.5 by night, every day
(mean 1 over the week)."""

from __future__ import annotations

import math
import pickle
from datetime import UTC, datetime

import numpy as np
import pytest

from newsforagers.learning.rhythm import WEEK_HOURS, Rhythm, RhythmProfile, hour_of_week
from newsforagers.learning.schedule import HOUR, HubSchedule

MONDAY = datetime(2024, 1, 1, tzinfo=UTC).timestamp()  # a Monday, 00:00 UTC


def at(day: int, hour: float) -> float:
    """POSIX seconds of ``hour`` o'clock on day ``day`` of the week (0: Monday)."""
    return MONDAY + (day * 24 + hour) * HOUR


def two_level() -> Rhythm:
    day = [1.5 if 6 <= h < 18 else 0.5 for h in range(24)]
    return Rhythm(day * 7)


# -- the profile's arithmetic --------------------------------------------------------------


def test_hour_of_week_starts_on_monday_utc():
    assert hour_of_week(MONDAY) == 0.0
    assert hour_of_week(at(6, 23.5)) == pytest.approx(167.5)
    assert hour_of_week(at(7, 1)) == pytest.approx(1.0)  # the next Monday
    assert hour_of_week(0.0) == 72.0  # POSIX 0 was a Thursday


def test_a_flat_profile_gives_the_constant_rate_numbers_exactly():
    flat = Rhythm.constant()
    assert flat.flat and Rhythm([3.0] * WEEK_HOURS).flat
    a = at(2, 17.25)
    for hours in (0.01, 1.0, 2.5, 30.0, 200.0):
        assert flat.integral(a, a + hours * HOUR) == hours
        assert flat.lag_integral(a, a + hours * HOUR) == hours * hours / 2.0
    # due when rate·Δ²/2 = θ (lag) or rate·Δ = θ (return): today's √(2θ/rate) and θ/rate
    assert flat.reach(a, 2.0, 0.25, 10 * HOUR) == math.sqrt(2.0 * 0.25 / 2.0) * HOUR
    assert flat.reach(a, 2.0, 0.25, 10 * HOUR, lag=False) == 0.125 * HOUR
    assert flat.reach(a, 2.0, 100.0, 10 * HOUR) == 10 * HOUR  # not within the limit
    assert flat.at(a) == 1.0


def test_two_level_integrals_across_the_night_day_boundary():
    p = two_level()
    assert p.at(at(0, 12)) == 1.5 and p.at(at(0, 3)) == 0.5
    # Monday 17:00 → 19:00: one day hour, one night hour
    assert p.integral(at(0, 17), at(0, 19)) == pytest.approx(1.5 + 0.5)
    # ∫ p(s)(19 − s) ds = 1.5·(2² − 1²)/2 + 0.5·1²/2 = 2.25 + 0.25 (flat: 2²/2 = 2)
    assert p.lag_integral(at(0, 17), at(0, 19)) == pytest.approx(2.5)
    # Tuesday 05:00 → 07:00, night into day: 0.5·(2² − 1²)/2 + 1.5·1²/2 = 0.75 + 0.75
    assert p.lag_integral(at(1, 5), at(1, 7)) == pytest.approx(1.5)
    # a whole day (mean 1) and a whole week (168 average hours) from anywhere
    assert p.integral(at(3, 9.5), at(4, 9.5)) == pytest.approx(24.0)
    assert p.integral(at(3, 9.5), at(10, 9.5)) == pytest.approx(168.0)
    assert p.integral(at(0, 19), at(0, 17)) == 0.0 and p.lag_integral(at(0, 19), at(0, 17)) == 0.0


def test_integrals_wrap_over_the_week():
    hourly = np.ones(WEEK_HOURS)
    hourly[167], hourly[0] = 1.5, 0.5  # Sunday 23:00 busy, Monday 00:00 quiet (mean 1)
    p = Rhythm(hourly)
    a, b = at(6, 22.5), at(7, 0.5)  # Sunday 22:30 → Monday 00:30
    assert p.integral(a, b) == pytest.approx(0.5 * 1.0 + 1.0 * 1.5 + 0.5 * 0.5)
    # 1·(2² − 1.5²)/2 + 1.5·(1.5² − 0.5²)/2 + 0.5·0.5²/2 = 0.875 + 1.5 + 0.0625
    assert p.lag_integral(a, b) == pytest.approx(2.4375)
    # eight days on: one whole week of mean 1 more
    assert p.integral(a, b + 7 * 86400) == pytest.approx(2.25 + 168.0)


def test_due_times_across_the_night_day_boundary_and_the_week():
    p = two_level()
    limit = 24 * HOUR
    # level 1, θ = 2.5 document-hours from Monday 17:00: exactly 19:00 (flat: √5 h = 2.236 h)
    assert p.reach(at(0, 17), 1.0, 2.5, limit) == pytest.approx(2 * HOUR)
    assert p.reach(at(0, 17), 2.0, 5.0, limit) == pytest.approx(2 * HOUR)  # level × 2, θ × 2
    # into the day (Tuesday 05:00, θ = 1.5): 07:00, where a flat profile says √3 h = 1.73 h
    assert p.reach(at(1, 5), 1.0, 1.5, limit) == pytest.approx(2 * HOUR)
    # inside one hour: the root of 0.75 + 1.5·u + 0.25·u² = 1.125 (θ 2.25, level 2)
    assert p.reach(at(0, 17), 2.0, 2.25, limit) == pytest.approx((1 + (-6 + math.sqrt(42)) / 2) * HOUR)
    # documents (return): 3 average hours from Monday 17:00: 1.5 by 18:00, then 0.5 an hour → 21:00
    assert p.reach(at(0, 17), 1.0, 3.0, limit, lag=False) == pytest.approx(4 * HOUR)
    # across the week's end: Sunday 17:00 + 2 h as on a Monday
    assert p.reach(at(6, 17), 1.0, 2.5, limit) == pytest.approx(2 * HOUR)
    # not within the limit
    assert p.reach(at(0, 17), 1.0, 2.5, 1.5 * HOUR) == 1.5 * HOUR
    assert p.reach(at(0, 17), 0.0, 2.5, limit) == limit and p.reach(at(0, 17), 1.0, 0.0, limit) == 0.0


def test_the_root_profile_spreads_polls_as_sqrt_p():
    root = two_level().root
    scale = (math.sqrt(1.5) + math.sqrt(0.5)) / 2  # the mean of √p
    assert root.at(at(0, 12)) == pytest.approx(math.sqrt(1.5) / scale)
    assert root.at(at(0, 2)) == pytest.approx(math.sqrt(0.5) / scale)
    assert Rhythm.constant().root.flat


def test_a_bad_profile_is_refused():
    for bad in ([1.0] * 24, [-1.0] + [1.0] * 167, [0.0] * 168, [math.nan] + [1.0] * 167):
        with pytest.raises(ValueError, match="168 finite values"):
            Rhythm(bad)
    with pytest.raises(ValueError, match="half_life"):
        RhythmProfile(half_life=0.0)
    with pytest.raises(ValueError, match="floor"):
        RhythmProfile(floor=1.0)


# -- the estimator ---------------------------------------------------------------------------


def test_no_story_gives_a_flat_profile():
    profile = RhythmProfile()
    profile.expose(at(0, 0))
    profile.expose(at(2, 0))
    assert profile.curve(at(2, 0)).flat and profile.stories == 0


def test_few_stories_give_the_hour_of_day_profile_shrunk_towards_flat():
    # watched Monday for 24 h (no decay); 10 stories in its 09:00 hour, none otherwise
    profile = RhythmProfile(half_life=math.inf, day_prior=4.0, week_prior=16.0, floor=0.1)
    profile.expose(at(0, 0))
    for minute in range(10):
        assert profile.observe(at(0, 9 + minute / 60), at(0, 9.5))
    profile.expose(at(1, 0))
    curve = profile.estimate(at(1, 0))
    level = 10 / 24  # the live level: stories per hour watched
    day_9 = (10 + 4) / (level + 4)  # C_j + k_day over E_j + k_day
    day_other = 4 / (level + 4)
    week = np.tile([day_other] * 9 + [day_9] + [day_other] * 14, 7)  # unwatched bins: p_day
    week[9] = (10 + 16 * day_9) / (level + 16)
    week[:24][np.arange(24) != 9] = 16 * day_other / (level + 16)
    expected = 0.9 * week / week.mean() + 0.1
    assert np.allclose(curve.hourly, expected)
    assert curve.at(at(3, 9.5)) == pytest.approx(expected[3 * 24 + 9])  # Thursday: the hour-of-day profile
    assert curve.hourly.min() >= 0.1  # the floor


def test_many_stories_learn_the_two_level_profile():
    rng = np.random.default_rng(7)
    truth = two_level()
    profile = RhythmProfile(half_life=math.inf)
    profile.expose(at(0, 0))
    for hour in range(4 * WEEK_HOURS):  # four weeks at 40 stories per average hour
        start = at(0, hour)
        for offset in np.sort(rng.uniform(0, HOUR, rng.poisson(40 * truth.at(start)))):
            profile.observe(start + offset, start + HOUR)
        profile.expose(start + HOUR)
    curve = profile.estimate(at(28, 0))
    assert profile.stories > 25_000
    day = curve.hourly.reshape(7, 24)[:, 6:18]
    night = np.concatenate([curve.hourly.reshape(7, 24)[:, :6], curve.hourly.reshape(7, 24)[:, 18:]], axis=1)
    # ~240 stories in a day hour over four weeks, ~80 at night: each bin within 3-4 standard deviations
    assert day.mean() == pytest.approx(0.9 * 1.5 + 0.1, rel=0.03) and np.allclose(day, 1.45, rtol=0.25)
    assert night.mean() == pytest.approx(0.9 * 0.5 + 0.1, rel=0.05) and np.allclose(night, 0.55, rtol=0.35)


def test_stories_before_the_start_count_in_their_listing_s_window():
    # started Monday 12:00; a front shows 08:30, 09:30, 10:30, 11:30: the three after the oldest
    # count, over its window (08:30, 11:30] at its own level, 1 an hour
    profile = RhythmProfile(half_life=math.inf, day_prior=4.0, week_prior=16.0, floor=0.1)
    profile.expose(at(0, 12))
    shown = [at(0, h) for h in (8.5, 9.5, 10.5, 11.5)]
    assert profile.observe_listing(shown, shown, at(0, 12)) == 3
    counts = np.zeros(24)
    counts[[9, 10, 11]] = 1.0
    expected = np.zeros(24)
    expected[[8, 9, 10, 11]] = [0.5, 1.0, 1.0, 0.5]
    day = (counts + 4) / (expected + 4)
    week = np.tile(day, 7)
    week[:24] = (counts + 16 * day) / (expected + 16)
    assert np.allclose(profile.estimate(at(0, 12)).hourly, 0.9 * week / week.mean() + 0.1)
    # a fetched article dated before the start has no window: ignored
    assert not profile.observe(at(0, 7), at(0, 12.5))
    assert profile.stories == 3


def test_a_story_from_the_start_on_is_live_whatever_listing_shows_it():
    profile = RhythmProfile()
    profile.expose(at(0, 12))
    assert profile.observe_listing([at(0, 12.5)], [at(0, 10), at(0, 12.5)], at(0, 13)) == 1
    assert profile.observe(at(0, 14), at(0, 13.5))  # dated ahead of now: counted at now
    assert profile.stories == 2


def test_old_evidence_decays_so_a_schedule_change_is_followed():
    def learn(half_life: float) -> Rhythm:
        profile = RhythmProfile(half_life=half_life)
        profile.expose(at(0, 0))
        for day in range(42):  # six weeks: a 09:00 peak, then three weeks of a 21:00 peak
            peak = 9 if day < 21 else 21
            for hour in range(24):
                for minute in range(10 if hour == peak else 1):
                    profile.observe(at(day, hour + minute / 60), at(day, hour + 0.99))
                profile.expose(at(day, hour + 1))
        return profile.estimate(at(42, 0))

    kept, decayed = learn(math.inf), learn(3 * 86400.0)
    assert kept.at(at(0, 21.5)) == pytest.approx(kept.at(at(0, 9.5)), rel=0.1)  # both peaks
    assert decayed.at(at(0, 21.5)) > 3 * decayed.at(at(0, 9.5))  # the new one


def test_memory_is_bounded_and_state_survives_a_round_trip():
    profile = RhythmProfile(half_life=86400.0)
    profile.expose(at(0, 0))
    shapes = set()
    for day in range(0, 400, 40):  # far beyond the reference's rebase (32 half-lives)
        for minute in range(0, 24 * 60, 7):
            profile.observe(at(day, minute / 60), at(day, minute / 60))
        state = profile.to_dict()
        shapes.add(tuple((k, len(v) if isinstance(v, list) else None) for k, v in sorted(state.items())))
        assert len(pickle.dumps(state)) < 7_000
    assert profile.stories == 10 * len(range(0, 24 * 60, 7))
    assert len(shapes) == 1 and sum(1 for _, n in next(iter(shapes)) if n == WEEK_HOURS) == 4
    again = RhythmProfile.from_dict(profile.to_dict(), **profile.parameters())
    now = at(400, 0)
    assert np.array_equal(again.estimate(now).hourly, profile.estimate(now).hourly)
    assert np.all(np.isfinite(profile.estimate(now).hourly))


def test_the_curve_is_estimated_again_after_refresh_seconds():
    profile = RhythmProfile(refresh=600.0)
    first = profile.curve(at(0, 9))
    profile.observe(at(0, 9.05), at(0, 9.1))
    assert profile.curve(at(0, 9.1)) is first  # six minutes later: the same
    assert profile.curve(at(0, 9.2)) is not first


# -- the schedule with a profile -------------------------------------------------------------


def schedule(curve: Rhythm | None = None, **kwargs) -> HubSchedule:
    options = dict(min_interval=60.0, max_interval=6 * HOUR, threshold=2.5, barren_after=3,
                   beta=0.3, window=24 * HOUR, priority="lag", rhythm=curve is not None)
    options.update(kwargs)
    s = HubSchedule(**options)
    if curve is not None:
        s.profile.curve = lambda now=None: curve  # a fixed profile instead of a learned one
    return s


def test_a_listing_is_due_when_its_waiting_lag_reaches_the_threshold():
    s = schedule(two_level())
    s.add("front", now=at(0, 17), rate=1.0)
    s.entry("front").paid = 1
    assert s.next_due(at(0, 18)) == (None, pytest.approx(HOUR))  # 2.5 document-hours at 19:00
    assert s.next_due(at(0, 19))[0] == "front"
    plain = schedule()
    plain.add("front", now=at(0, 17), rate=1.0)
    plain.entry("front").paid = 1
    assert plain.next_due(at(0, 18)) == (None, pytest.approx((math.sqrt(5) - 1) * HOUR))


def test_levels_are_novel_documents_over_average_hours():
    s = schedule(two_level(), priority="return", threshold=0.5)
    s.add("front")
    s.begin("front", at(0, 17))
    s.visited("front", 12)
    s.credit("front", 12)
    assert s.entry("front").rate == pytest.approx(12 / 24)  # the window before: 24 average hours
    s.begin("front", at(0, 19))  # 2 average hours: 1.5 + 0.5
    s.visited("front", 4)
    s.credit("front", 4)
    assert s.entry("front").rate == pytest.approx(0.7 * 0.5 + 0.3 * 4 / 2.0)
    s.begin("front", at(0, 21))  # 2 night hours: 1 average hour
    s.visited("front", 2)
    s.credit("front", 2)
    assert s.entry("front").rate == pytest.approx(0.7 * (0.7 * 0.5 + 0.3 * 2.0) + 0.3 * 2 / 1.0)


def test_the_budget_threshold_follows_the_rates_of_the_hour():
    s = schedule(two_level(), max_interval=24 * HOUR)
    for url, rate in (("a", 4.0), ("b", 1.0)):
        s.add(url, now=at(0, 0), rate=rate)
        s.entry(url).paid = 1
    # (√4 + √1)²·p(now) / (2·6²): 0.125 on average, ×1.5 by day, ×0.5 by night
    assert s.budget_threshold(6.0) == pytest.approx(0.125)
    assert s.budget_threshold(6.0, at(0, 12)) == pytest.approx(0.1875)
    assert s.budget_threshold(6.0, at(0, 23)) == pytest.approx(0.0625)
    assert s.demand(at(0, 12)) == pytest.approx(3.0 * math.sqrt(1.5))
    assert s.novelty(at(0, 23)) == pytest.approx(2.5) and s.novelty() == pytest.approx(5.0)
    assert s.rate_at("a", at(0, 12)) == pytest.approx(6.0)


def test_the_floor_is_in_average_hours_of_sqrt_p():
    s = schedule(two_level(), max_interval=3 * HOUR, threshold=1e9)
    s.add("front", now=at(0, 17), rate=0.0)
    s.entry("front").paid = 1
    high, low = two_level().root.at(at(0, 12)), two_level().root.at(at(0, 2))
    # one day hour (17:00-18:00), then the rest of 3 average hours of √p at night
    floor = 1 + (3 - high) / low
    assert s.next_due(at(0, 18)) == (None, pytest.approx((floor - 1) * HOUR))
    assert s.next_due(at(0, 17 + floor))[0] == "front"


def test_a_flat_profile_schedules_exactly_as_constant_rates():
    """The rhythm switched on before any dated story is seen changes no number."""
    def run(s: HubSchedule) -> list:
        trace = []
        for url in ("home", "a", "b"):
            s.add(url)
        t = at(0, 0)
        for step in range(60):
            url, wait = s.next_due(t, poll_rate=6.0)
            trace.append((url, wait))
            if url is None:
                t += max(wait, 60.0)
                continue
            s.begin(url, t)
            s.visited(url, 3, listed_rate=0.5 if url == "b" else None, now=t + 1)
            s.credit(url, (step * 7 + len(url)) % 4)
            t += 90.0
        trace.append([(u, r) for u, r in s.entries()])
        trace.append((s.demand(t), s.novelty(t), s.budget_threshold(6.0, t)))
        return trace

    learner = schedule(None, rhythm=True, threshold=0.07)
    assert learner.profile is not None
    assert run(learner) == run(schedule(None, threshold=0.07))


def test_the_profile_survives_a_checkpoint_and_a_split_copies_it():
    s = schedule(None, rhythm=True)
    s.profile.expose(at(0, 0))
    for minute in range(0, 600, 5):
        s.profile.observe(at(0, 8 + minute / 60), at(0, 18))
    for url in ("a", "b", "c", "d"):
        s.add(url, now=at(0, 18), rate=1.0)
    again = HubSchedule.from_dict(s.to_dict(), **s._parameters())
    assert np.array_equal(again.profile.estimate(at(0, 18)).hourly, s.profile.estimate(at(0, 18)).hourly)
    child = s.split(np.random.default_rng(0))
    assert child.profile is not s.profile
    assert np.array_equal(child.profile.estimate(at(0, 18)).hourly, s.profile.estimate(at(0, 18)).hourly)
    off = HubSchedule.from_dict(s.to_dict(), **(s._parameters() | {"rhythm": False}))
    assert off.profile is None  # the setting decides
