from datetime import datetime, timedelta, timezone

import pytest

from newsforagers.replay.clock import ManualWall, SimClock

START = datetime(2024, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=-5)))


def test_sim_now_is_start_plus_speed_times_wall_elapsed():
    wall = ManualWall(500.0)
    clock = SimClock(START, speed=600, wall=wall)
    assert clock.now() == START
    wall.advance(1.5)
    assert clock.now() == START + timedelta(seconds=900)
    assert clock.now().utcoffset() == timedelta(0)
    assert clock.wall_at(START + timedelta(hours=1)) == pytest.approx(506.0)


def test_reset_restarts_from_the_wall_now():
    wall = ManualWall()
    clock = SimClock(START, speed=10, wall=wall)
    wall.advance(100)
    clock.reset()
    assert clock.now() == START
    later = START + timedelta(days=1)
    clock.reset(later)
    wall.advance(1)
    assert clock.now_ts() == pytest.approx(later.timestamp() + 10)


def test_bad_clock_arguments():
    with pytest.raises(ValueError, match="speed"):
        SimClock(START, speed=0)
    with pytest.raises(ValueError, match="UTC offset"):
        SimClock(datetime(2024, 1, 1), speed=1)
