"""newsforagers.evaluation.bench.site: the window's default start."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from newsforagers.evaluation.bench.site import default_start
from tests.evaluation.bench.samples import MONDAY_7


def test_default_start_is_the_first_monday_morning_of_the_corpus():
    tz = timezone(timedelta(hours=-4))
    friday = datetime(2010, 10, 22, 0, 3, tzinfo=tz)
    assert default_start([friday, friday + timedelta(days=12)]) == datetime(2010, 10, 25, 7, 0, tzinfo=tz)
    monday = datetime(2024, 1, 1, 0, 5, tzinfo=timezone.utc)
    assert default_start([monday, monday + timedelta(days=2)]).isoformat() == MONDAY_7
    late = datetime(2024, 1, 1, 7, 30, tzinfo=timezone.utc)  # past 07:00: the next Monday
    assert default_start([late, late + timedelta(days=8)]) == datetime(2024, 1, 8, 7, tzinfo=timezone.utc)
    # no Monday morning before the last article: just before the first one
    assert default_start([friday, friday + timedelta(days=1)]) == friday - timedelta(minutes=1)
