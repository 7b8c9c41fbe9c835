"""The adaptive revisit rule (newsforagers.learning.revisit), by hand-computed cases."""

import math

import pytest

from newsforagers.learning.revisit import AdaptiveInterval


def test_a_change_halves_and_no_change_grows_by_half_within_the_bounds():
    rule = AdaptiveInterval(initial=600, minimum=60, maximum=3600, shrink=0.5, grow=1.5)
    assert rule.after_poll(600, True) == 300
    assert rule.after_poll(600, False) == 900
    assert rule.after_poll(100, True) == 60  # 50 is below the minimum
    assert rule.after_poll(3000, False) == 3600  # 4,500 is above the maximum
    # five quiet polls from 600 s: 900, 1350, 2025, 3037.5, then the 3,600 s bound
    interval, seen = 600.0, []
    for _ in range(5):
        interval = rule.after_poll(interval, False)
        seen.append(interval)
    assert seen == [900, 1350, 2025, 3037.5, 3600]


def test_the_first_poll_leaves_the_interval_as_it_is():
    rule = AdaptiveInterval()
    assert rule.after_poll(600, True, first=True) == 600
    assert rule.after_poll(600, False, first=True) == 600


def test_the_most_overdue_hub_is_the_largest_ratio_and_a_new_hub_comes_first():
    assert AdaptiveInterval.overdue(1000, 400, 300) == 2.0
    assert AdaptiveInterval.overdue(1000, 900, 400) == 0.25
    assert AdaptiveInterval.overdue(1000, None, 400) == math.inf


@pytest.mark.parametrize("kwargs,words", [
    ({"minimum": 700}, "minimum"),
    ({"maximum": 500}, "maximum"),
    ({"shrink": 1.5}, "shrink"),
    ({"grow": 0.9}, "grow"),
    ({"initial": 0}, "initial"),
    ({"grow": math.inf}, "grow"),
    ({"shrink": float("nan")}, "shrink"),
])
def test_constants_out_of_order_or_not_finite_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        AdaptiveInterval(**kwargs)
