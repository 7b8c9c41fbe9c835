"""The colony's per-host budget on a simulated clock: no one-second window ever exceeds
⌊rate⌋ whatever the event loop's lateness, a late wake-up costs budget rather than politeness,
and a pause (429 Retry-After) is honoured."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from newsforagers.colony.throttle import HostBudget, retry_after_seconds


class LateClock:
    """A clock that every sleep advances by the delay asked for plus ``late`` seconds, as an
    event loop that wakes its timers late would."""

    def __init__(self, late: float):
        self.t = 1000.0
        self.late = late

    def __call__(self) -> float:
        return self.t

    async def sleep(self, delay: float) -> None:
        self.t += delay + self.late
        await asyncio.sleep(0)


def starts_of(rate: float, n: int, late: float, tasks: int = 1) -> list[float]:
    clock = LateClock(late)
    budget = HostBudget(rate, 0, clock=clock, sleep=clock.sleep)
    starts: list[float] = []

    async def worker(count: int) -> None:
        for _ in range(count):
            await budget.acquire("site")
            starts.append(clock())
            budget.release("site")

    async def main() -> None:
        await asyncio.gather(*(worker(n // tasks) for _ in range(tasks)))

    asyncio.run(main())
    return sorted(starts)


def busiest_second(starts: list[float]) -> int:
    best, j = 0, 0
    for i, start in enumerate(starts):
        while starts[j] <= start - 1.0:
            j += 1
        best = max(best, i - j + 1)
    return best


@pytest.mark.parametrize("late", [0.0, 0.004, 0.010])
def test_late_wakeups_cost_budget_never_politeness(late):
    rate = 50.0
    starts = starts_of(rate, 500, late)
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    spacing = 1.05 / rate
    # every gap is at least the spacing: a request woken late pushes the next one back
    assert min(gaps) >= spacing - 1e-9
    achieved = (len(starts) - 1) / (starts[-1] - starts[0])
    assert achieved == pytest.approx(1.0 / (spacing + late), rel=0.02)
    assert busiest_second(starts) <= rate


def test_the_one_second_cap_holds_for_concurrent_callers():
    rate = 25.0
    starts = starts_of(rate, 400, 0.002, tasks=8)
    assert len(starts) == 400
    assert busiest_second(starts) <= int(rate)


def test_a_pause_sends_nothing_until_it_ends():
    clock = LateClock(0.0)
    budget = HostBudget(10.0, 0, clock=clock, sleep=clock.sleep)

    async def main() -> list[float]:
        await budget.acquire("site")
        budget.pause("site", 30.0)
        paused_at = clock()
        await budget.acquire("site")
        return [paused_at, clock()]

    paused_at, next_start = asyncio.run(main())
    assert next_start >= paused_at + 30.0


def test_a_shorter_pause_never_cuts_a_longer_one_short_and_pauses_are_counted_per_host():
    clock = LateClock(0.0)
    budget = HostBudget(0.0, 0, clock=clock, sleep=clock.sleep)

    async def main() -> float:
        assert budget.pause("site", 30.0) == 1
        assert budget.pause("site", 5.0) == 2
        assert budget.pause("other", 5.0) == 1
        paused_at = clock()
        await budget.acquire("site")
        return clock() - paused_at

    assert asyncio.run(main()) >= 30.0
    assert budget.pauses == {"site": 2, "other": 1}


_NOW = datetime(2026, 3, 5, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize("value, seconds", [
    ("120", 120.0),
    (b"7", 7.0),
    (" 0 ", 0.0),
    ("1.5", 1.5),  # outside the RFC's grammar, but sent
    ("Thu, 05 Mar 2026 12:01:30 GMT", 90.0),  # an HTTP date, read against the server's clock
    ("Thu, 05 Mar 2026 11:00:00 GMT", 0.0),  # already past: retry at once
    ("-5", None),
    ("inf", None),
    ("soon", None),
    ("", None),
    (None, None),
])
def test_retry_after_is_seconds_or_an_http_date(value, seconds):
    assert retry_after_seconds(value, _NOW) == seconds
