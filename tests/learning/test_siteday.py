"""Where a site's day begins, learnt from the days its URLs name (newsforagers.learning.siteday),
and the schedule's day ends that follow from it."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from newsforagers.learning.schedule import HOUR, HubSchedule
from newsforagers.learning.siteday import OFFSETS, SiteDays


def ts(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


JAN1 = ts("2024-01-01T00:00:00+00:00")  # 00:00 UTC of the date 2024-01-01


def test_two_stories_either_side_of_the_site_s_midnight_pin_its_offset():
    # Hand-computed. A story of 2023-12-31 23:50 at UTC+9 (14:50 UTC) under a URL naming the
    # 31st: the offset o puts 14:50 UTC on the 31st, o in [-14:50, +9:10); one of 00:10 on
    # 2024-01-01 (15:10 UTC the day before) under a URL naming the 1st: o in [+8:50, +32:50).
    # Of the quarter hours from -12:00 to +14:00, only +9:00 is in both.
    days = SiteDays()
    assert not days.known("a") and days.offset("a") == 0.0
    assert days.observe("a", JAN1 - 86_400, ts("2023-12-31T23:50:00+09:00"))
    # alone, it says only that the day lasts until 23:50 at least (-12:00..+9:00 agree): one
    # day's stories agree with a midnight in the part of the day still to come; UTC's is kept
    assert not days.known("a") and days.offset("a") == 0.0
    assert days.observe("a", JAN1, ts("2024-01-01T00:10:00+09:00"))
    assert days.known("a") and days.offset("a") == 9 * HOUR
    assert days.offset("b") == 0.0  # another host: its own days
    # a week apart, the days show no midnight passed: the part of today still to come agrees
    # with the stories as much as the night does (an old story's URL beside today's)
    week = SiteDays()
    week.observe("a", JAN1, ts("2024-01-01T03:00:00+00:00"))
    week.observe("a", JAN1 - 7 * 86_400, ts("2023-12-25T14:00:00+00:00"))
    assert not week.known("a") and week.offset("a") == 0.0
    week.observe("a", JAN1 - 86_400, ts("2023-12-31T22:00:00+00:00"))
    assert week.known("a")


def test_a_url_dated_another_day_than_its_story_is_outvoted_and_a_bare_date_tells_nothing():
    # UTC-5: two nights, a story before and after each midnight (23:50 and 00:10, 23:40 and
    # 00:30): only -5:00 agrees with all four (hand-computed as above)
    days = SiteDays()
    for url_day, when in ((JAN1 - 86_400, "2023-12-31T23:50:00-05:00"), (JAN1, "2024-01-01T00:10:00-05:00"),
                          (JAN1, "2024-01-01T23:40:00-05:00"), (JAN1 + 86_400, "2024-01-02T00:30:00-05:00")):
        assert days.observe("a", url_day, ts(when))
    assert days.offset("a") == -5 * HOUR
    # a story drafted the day before: its URL names the 31st, published at 02:00 on the 1st
    # (07:00 UTC): it agrees with -12:00..-7:15 only, three votes there against four at -5:00
    assert days.observe("a", JAN1 - 86_400, ts("2024-01-01T02:00:00-05:00"))
    assert days.offset("a") == -5 * HOUR
    # 00:00:00 UTC exactly: a date read as a time, not counted; a URL a week off agrees with none
    assert not days.observe("a", JAN1, JAN1)
    assert not days.observe("a", JAN1 + 7 * 86_400, ts("2024-01-01T10:00:00-05:00"))
    assert not days.observe("a", JAN1 - 86_400, ts("2024-01-01T12:00:00-05:00"))  # a day and 17 hours
    assert days.offset("a") == -5 * HOUR


def test_site_days_state_round_trips_and_a_damaged_one_is_refused():
    days = SiteDays()
    days.observe("a", JAN1, ts("2024-01-01T00:10:00+05:45"))
    days.observe("a", JAN1 - 86_400, ts("2023-12-31T23:55:00+05:45"))
    assert days.offset("a") == 5.75 * HOUR
    again = SiteDays.from_dict(days.to_dict())
    assert again.offset("a") == 5.75 * HOUR and again.known("a")
    copy = days.copy()
    copy.observe("a", JAN1, ts("2024-01-01T12:00:00+05:45"))
    assert sum(days.to_dict()["a"]["votes"]) < sum(copy.to_dict()["a"]["votes"])  # the copy is its own
    with pytest.raises(ValueError, match="not 105 counts"):
        SiteDays.from_dict({"a": {"votes": [1, 2, 3], "days": [0, 1]}})
    with pytest.raises(ValueError, match="not 105 counts"):
        SiteDays.from_dict({"a": {"votes": [-1] * len(OFFSETS), "days": [0, 1]}})
    with pytest.raises(ValueError, match="not votes and days"):
        SiteDays.from_dict({"a": [1] * len(OFFSETS)})
    with pytest.raises(ValueError, match="not votes and days"):
        SiteDays.from_dict({"a": {"votes": [1] * len(OFFSETS), "days": ["x", 1]}})


def test_past_its_hosts_bound_the_least_observed_half_is_forgotten():
    days = SiteDays(max_hosts=4)
    for n, host in enumerate("abcd"):
        for _ in range(n + 1):
            days.observe(host, JAN1, ts("2024-01-01T10:00:00+00:00"))
    days.observe("e", JAN1, ts("2024-01-01T10:00:00+00:00"))
    assert sorted(days.to_dict()) == ["c", "d", "e"]
    assert np.asarray(days.to_dict()["d"]["votes"]).max() == 4


def test_a_schedule_ends_a_site_s_day_at_its_own_midnight_once_its_stories_show_it():
    schedule = HubSchedule(capacity=10)
    archive, tomorrow = "http://a/archive/2024/01/01/", "http://a/archive/2024/01/02/"
    schedule.add(archive)
    assert schedule.day_end(archive) == JAN1 + 86_400  # nothing seen: UTC's day
    # before, "today" at any offset in use: 2024-01-01 and 2024-01-02 both at 16:00 UTC on the 1st
    assert schedule.today_page(archive, ts("2024-01-01T16:00:00+00:00"))
    assert schedule.today_page(tomorrow, ts("2024-01-01T16:00:00+00:00"))
    assert schedule.observe_day("http://a/2023/12/31/late/", ts("2023-12-31T23:50:00+09:00"))
    assert schedule.observe_day(archive, ts("2024-01-01T00:10:00+09:00"))  # a day's page dating a story
    assert not schedule.observe_day("http://a/section/world/", ts("2024-01-01T00:10:00+09:00"))
    assert schedule.day_end(archive) == ts("2024-01-02T00:00:00+09:00")  # 15:00 UTC on the 1st
    assert not schedule.today_page(archive, ts("2024-01-01T16:00:00+00:00"))
    assert schedule.today_page(tomorrow, ts("2024-01-01T16:00:00+00:00"))
    # kept with the weblog's state, and a child of a split starts from a copy
    again = HubSchedule.from_dict(schedule.to_dict(), capacity=10)
    assert again.day_end(archive) == ts("2024-01-02T00:00:00+09:00")
    child = schedule.split(np.random.default_rng(0))
    assert child.day_end(archive) == ts("2024-01-02T00:00:00+09:00")


def test_a_subsumed_day_archive_of_a_site_east_of_utc_keeps_its_floor_until_the_site_s_midnight():
    # a day's page whose day had not ended at its last visit keeps its own floor while another
    # listing subsumes it (_floor); past the site's midnight it gets the window's
    schedule = HubSchedule(capacity=10, min_interval=60.0, max_interval=HOUR)
    archive = "http://a/archive/2024/01/01/"
    schedule.add(archive)
    schedule.observe_day("http://a/2023/12/31/late/", ts("2023-12-31T23:50:00+09:00"))
    schedule.observe_day("http://a/2024/01/01/early/", ts("2024-01-01T00:10:00+09:00"))
    for when in ("2024-01-01T14:00:00+00:00", "2024-01-01T16:00:00+00:00"):
        schedule.begin(archive, ts(when))
        schedule.visited(archive, 1, listed_rate=2.0, now=ts(when), subsumed=True)
        schedule.credit(archive)
    entry = schedule.entry(archive)
    assert entry.last == ts("2024-01-01T16:00:00+00:00")  # 01:00 on the 2nd where the site is
    assert schedule._floor(entry) == schedule.window
    east = HubSchedule(capacity=10, min_interval=60.0, max_interval=HOUR)  # the same, UTC's days
    east.add(archive)
    for when in ("2024-01-01T14:00:00+00:00", "2024-01-01T16:00:00+00:00"):
        east.begin(archive, ts(when))
        east.visited(archive, 1, listed_rate=2.0, now=ts(when), subsumed=True)
        east.credit(archive)
    assert east._floor(east.entry(archive)) < east.window
