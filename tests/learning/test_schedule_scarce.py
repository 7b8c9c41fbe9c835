"""The schedule under a scarce budget (issue 19): the threshold a scarce budget raises, the
floor it stretches, and the rate of a listing that overflowed. Hand-computed cases."""

from __future__ import annotations

import math

import pytest

from newsforagers.learning.schedule import HOUR, HubSchedule


def _schedule(**kwargs) -> HubSchedule:
    """Two listings visited at t = 0 and paid: A at 4 stories an hour, B at 1."""
    schedule = HubSchedule(threshold=0.07, **kwargs)
    for url, rate in (("http://s/a/", 4.0), ("http://s/b/", 1.0)):
        schedule.add(url, now=0.0, rate=rate)
        entry = schedule.entry(url)
        entry.paid, entry.visits = 1, 1
    return schedule


def test_a_scarce_rate_raises_the_threshold_to_what_it_can_pay_for():
    schedule = _schedule()
    # demand Σ√rate = 2 + 1 = 3; at 1 visit an hour θ = 3² / (2·1²) = 4.5 document-hours.
    assert schedule.budget_threshold(1.0) == pytest.approx(4.5)
    # A holds 4·t²/2 document-hours after t hours: 2 at one hour (due at θ = 0.07, not at 4.5)
    assert schedule.next_due(HOUR)[0] == "http://s/a/"
    url, wait = schedule.next_due(HOUR, scarce_rate=1.0)
    assert url is None
    # A reaches 4.5 at t = √(2·4.5/4) = 1.5 hours: due in half an hour
    assert wait == pytest.approx(0.5 * HOUR)
    assert schedule.next_due(1.5 * HOUR + 1, scarce_rate=1.0)[0] == "http://s/a/"
    # a plentiful "scarce" rate asks for less than the configured threshold: no change
    assert schedule.next_due(HOUR, scarce_rate=1000.0)[0] == "http://s/a/"


def test_a_scarce_rate_stretches_the_floor_so_its_visits_fit():
    schedule = _schedule(max_interval=3 * HOUR)
    # B alone (A is not there): its rate 1 keeps it under θ = 4.5 until t = 3 h, where the
    # floor would visit it; two listings at one floor visit each 3 h are 2/3 visits an hour,
    # more than 0.5 an hour: the floor stretches ×4/3, to 4 hours
    schedule.remove("http://s/a/")
    schedule.add("http://s/c/", now=0.0, rate=0.0)
    schedule.entry("http://s/c/").paid = 1
    # demand √1 + 0 = 1: θ = 1/(2·0.25) = 2 document-hours; B holds t²/2: 2 at t = 2 h
    url, wait = schedule.next_due(1.0 * HOUR, scarce_rate=0.5)
    assert url is None and wait == pytest.approx(1.0 * HOUR)
    # C (rate 0) waits for its floor: 3 h without a scarce budget, 4 h with this one
    schedule.remove("http://s/b/")
    assert schedule.next_due(3 * HOUR + 1)[0] == "http://s/c/"
    url, wait = schedule.next_due(3 * HOUR + 1, scarce_rate=0.25)
    # one listing: 1/3 floor visits an hour over 0.25: ×4/3, a 4-hour floor
    assert url is None and wait == pytest.approx(HOUR - 1)


def test_an_overflowing_listing_gets_at_least_the_rate_its_dates_show():
    schedule = HubSchedule(beta=0.5)
    url = "http://s/front/"
    schedule.add(url)
    schedule.begin(url, 0.0)
    schedule.visited(url, 20, listed_rate=2.0, now=0.0, overflowed=True)  # a first visit: no evidence
    schedule.credit(url, 20)
    first = schedule.entry(url).rate
    assert first == pytest.approx(20 * HOUR / schedule.window)  # 20 a window
    schedule.begin(url, 2 * HOUR)
    # every dated item new again, and its dates say 10 an hour: at least 10
    schedule.visited(url, 20, listed_rate=10.0, now=2 * HOUR, overflowed=True)
    assert schedule.entry(url).rate == pytest.approx(10.0)
    # the credits come on top, as for any visit: + β·n/Δ = 0.5·20/2
    schedule.credit(url, 20)
    assert schedule.entry(url).rate == pytest.approx(15.0)
    # a visit that did not overflow averages as before: (1 − β)·15 = 7.5
    schedule.begin(url, 3 * HOUR)
    schedule.visited(url, 3, listed_rate=10.0, now=3 * HOUR)
    assert schedule.entry(url).rate == pytest.approx(7.5)
    assert not math.isnan(schedule.entry(url).rate)
