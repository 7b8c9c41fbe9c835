"""The site's clock (newsforagers.clock): HTTP dates read without ever raising, absurd times
refused, and a broken answer that never moves the clock."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from newsforagers.clock import SiteClock, http_date, plausible_site_time, site_time


@pytest.mark.parametrize("value, expected", [
    ("Mon, 01 Jan 2024 07:00:00 GMT", datetime(2024, 1, 1, 7, tzinfo=UTC)),
    (b"Mon, 01 Jan 2024 07:00:00 +0200", datetime(2024, 1, 1, 5, tzinfo=UTC)),
    ("Fri, 31 Dec 9999 23:59:59 GMT", datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)),
    ("Fri, 31 Dec 9999 23:59:59 -1200", None),  # past year 9999 in UTC: OverflowError before
    ("Mon, 01 Jan 2024 07:00:00", None),  # no zone
    ("yesterday", None),
    ("", None),
    (None, None),
    (b"\xff\xfe", None),
])
def test_http_dates_are_read_or_none_never_an_exception(value, expected):
    assert http_date(value) == expected


def test_only_times_a_site_could_read_are_plausible():
    assert plausible_site_time(datetime(1987, 3, 2, tzinfo=UTC)) is not None  # a replay of 1987
    assert plausible_site_time(datetime(2090, 3, 2, tzinfo=UTC)) is not None  # ... and of 2090
    assert plausible_site_time(datetime(9999, 12, 31, tzinfo=UTC)) is None
    assert plausible_site_time(datetime(1, 1, 1, tzinfo=UTC)) is None
    assert plausible_site_time(None) is None


class Response:
    def __init__(self, date: bytes | None):
        self.headers = {b"Date": date} if date is not None else {}


def test_site_time_refuses_year_9999_with_or_without_a_zone():
    assert site_time(Response(b"Fri, 31 Dec 9999 23:59:59 GMT")) is None
    assert site_time(Response(b"Fri, 31 Dec 9999 23:59:59 -1200")) is None
    assert site_time(Response(b"Mon, 01 Jan 2024 07:00:00 GMT")) == datetime(2024, 1, 1, 7, tzinfo=UTC)


def at(hour: float) -> datetime:
    return datetime.fromtimestamp(datetime(2024, 1, 1, tzinfo=UTC).timestamp() + hour * 3600, UTC)


def test_one_broken_date_never_moves_the_clock():
    wall = [1000.0]
    clock = SiteClock(speed=600, wall=lambda: wall[0])  # tolerance: an hour, or 600 min of wall
    assert clock.tolerance == 36000.0
    assert clock.observe(at(7))
    wall[0] += 1  # ten simulated minutes later
    assert not clock.observe(at(7 + 48))  # two days ahead: refused, and the largest offset kept...
    assert clock.now() == pytest.approx(at(7 + 1 / 6).timestamp())  # ... is still 07:10
    wall[0] += 1
    assert clock.observe(at(7 + 2 / 6))  # the site's next answers are taken again
    assert clock.refused == 1


def test_readings_that_agree_with_each_other_move_a_wrong_clock():
    """The first answer was the broken one (a day behind): the next three agree on the site's
    time, and the clock follows them."""
    wall = [0.0]
    clock = SiteClock(speed=1, wall=lambda: wall[0], tolerance=3600)
    assert clock.observe(at(-24))
    results = []
    for step in range(3):
        wall[0] += 10
        results.append(clock.observe(at(0).replace(second=10 * (step + 1))))
    assert results == [False, False, True]
    assert clock.now() == pytest.approx(at(0).timestamp() + 30, abs=1)


def test_readings_that_disagree_with_each_other_move_nothing():
    wall = [0.0]
    clock = SiteClock(speed=1, wall=lambda: wall[0], tolerance=3600)
    assert clock.observe(at(0))
    for hours in (48, -48, 96, -96, 200):
        wall[0] += 1
        assert not clock.observe(at(hours))
    assert clock.now() == pytest.approx(at(0).timestamp() + 5)
