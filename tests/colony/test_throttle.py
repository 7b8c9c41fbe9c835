"""The colony's per-host budget on a simulated clock: no one-second window ever exceeds
⌊rate⌋ whatever the event loop's lateness, a late wake-up costs a little budget, never
politeness, and a pause (429 Retry-After) is honoured."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import pytest

from newsforagers.colony.throttle import CATCH_UP, SETTLE_TURNS, HostBudget, retry_after_seconds
from newsforagers.replay.log import busiest_second


class LateClock:
    """A clock that every sleep advances by the delay asked for plus ``late`` seconds, as an
    event loop that wakes its timers late would; ``idle_turns``: turns of the loop that run
    before the clock moves (what is ready runs first: a start's settling turns, unless a test
    holds them)."""

    def __init__(self, late: float, idle_turns: int = 0):
        self.t = 1000.0
        self.late = late
        self.idle_turns = idle_turns

    def __call__(self) -> float:
        return self.t

    async def sleep(self, delay: float) -> None:
        for _ in range(self.idle_turns):
            await asyncio.sleep(0)
        self.t += delay + self.late
        await asyncio.sleep(0)


def starts_of(rate: float, n: int, late: float, tasks: int = 1) -> list[float]:
    clock = LateClock(late, idle_turns=SETTLE_TURNS + 1)
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


@pytest.mark.parametrize("late", [0.0, 0.004, 0.010])
def test_late_wakeups_cost_budget_once_a_window_never_politeness(late):
    """Every wake-up ``late`` seconds late, at 50 a second: the starts keep to their timeline
    (a spacing of 1/50 s from when the last was due, half of it at least from when it left),
    so only the start the one-second window holds back (50 in 1.05 s) is late on it: 50
    starts every 1.05 + ``late`` seconds, where spacing from each late start would give one
    every 1/50 + ``late`` (0.010 s late: 47.2 a second against 33.3)."""
    rate = 50.0
    starts = starts_of(rate, 500, late)
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    assert min(gaps) >= CATCH_UP / rate - 1e-9
    achieved = (len(starts) - 1) / (starts[-1] - starts[0])
    assert achieved == pytest.approx(50 / (1.05 + late), rel=0.01)
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
    ("Fri, 31 Dec 9999 23:59:59 GMT", (datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC) - _NOW).total_seconds()),
    ("Fri, 31 Dec 9999 23:59:59 -1200", None),  # past year 9999: unreadable, never an exception
    ("999999", 999999.0),  # asked for: FORAGERS_RETRY_AFTER_MAX caps the pause
    ("-5", None),
    ("inf", None),
    ("soon", None),
    ("", None),
    (None, None),
])
def test_retry_after_is_seconds_or_an_http_date(value, seconds):
    assert retry_after_seconds(value, _NOW) == seconds


# -- Scrapy's politeness folded into the colony's budget -------------------------------------


def politeness(**settings):
    from scrapy.settings import Settings

    from newsforagers.colony.throttle import Politeness

    host_rate = settings.pop("FORAGERS_HOST_RATE", 0.0)
    host_concurrency = settings.pop("FORAGERS_HOST_CONCURRENCY", 8)
    return Politeness.from_settings(Settings(settings), host_rate, host_concurrency)


def test_download_delay_becomes_the_colonys_rate_when_it_is_the_stricter():
    assert politeness(DOWNLOAD_DELAY=0.5).rate == 2.0
    assert politeness(DOWNLOAD_DELAY=0.5, FORAGERS_HOST_RATE=1.0).rate == 1.0
    assert politeness(DOWNLOAD_DELAY=2, FORAGERS_HOST_RATE=5.0).rate == 0.5
    assert politeness().rate == 0.0  # Scrapy's default delay 0 and no FORAGERS_HOST_RATE


def test_the_smallest_concurrency_binds_each_host_and_the_colony():
    p = politeness()  # Scrapy's defaults: 8 per domain, 16 in all
    assert (p.concurrency, p.total) == (8, 16)
    p = politeness(CONCURRENT_REQUESTS_PER_DOMAIN=2)
    assert (p.concurrency, p.total) == (2, 16)
    p = politeness(CONCURRENT_REQUESTS=3)
    assert (p.concurrency, p.total) == (3, 3)
    p = politeness(FORAGERS_HOST_CONCURRENCY=0, CONCURRENT_REQUESTS_PER_DOMAIN=0, CONCURRENT_REQUESTS=0)
    assert (p.concurrency, p.total) == (0, 0)
    assert "CONCURRENT_REQUESTS_PER_DOMAIN=2" in politeness(CONCURRENT_REQUESTS_PER_DOMAIN=2).describe()


def test_download_slots_give_a_host_its_own_limits_under_the_colonys():
    p = politeness(DOWNLOAD_DELAY=1, FORAGERS_HOST_RATE=4.0,
                   DOWNLOAD_SLOTS={"fast.example": {"delay": 0.1, "concurrency": 20},
                                   "slow.example": {"delay": 5}})
    budget = HostBudget.from_politeness(p)
    assert budget.rate_of("other.example") == 1.0
    # a slot of its own replaces DOWNLOAD_DELAY, never FORAGERS_HOST_RATE / _CONCURRENCY
    assert p.hosts["fast.example"] == (4.0, 8)
    assert p.hosts["slow.example"] == (0.2, 8)
    assert budget.rate_of("slow.example") == 0.2


def test_autothrottle_follows_scrapys_documented_rule():
    from newsforagers.colony.throttle import AutoThrottle

    rule = AutoThrottle(start_delay=5.0, max_delay=60.0, target_concurrency=2.0, min_delay=1.0)
    # target = latency / N = 4 / 2 = 2; next = (5 + 2) / 2 = 3.5
    assert rule.next_delay(5.0, 4.0, 200) == 3.5
    # never below DOWNLOAD_DELAY, never above the max
    assert rule.next_delay(1.0, 0.1, 200) == 1.0
    assert rule.next_delay(60.0, 1000.0, 200) == 60.0
    # an error page may not shorten it, but may lengthen it
    assert rule.next_delay(5.0, 0.2, 500) == 5.0
    assert rule.next_delay(5.0, 30.0, 500) == 10.0


def test_autothrottle_settings_are_read_and_applied_to_the_whole_colony():
    p = politeness(AUTOTHROTTLE_ENABLED=True, AUTOTHROTTLE_START_DELAY=2.0,
                   AUTOTHROTTLE_MAX_DELAY=10.0, AUTOTHROTTLE_TARGET_CONCURRENCY=1.0, DOWNLOAD_DELAY=0.5)
    assert p.autothrottle.start_delay == 2.0 and p.autothrottle.min_delay == 0.5
    clock = LateClock(0.0, idle_turns=SETTLE_TURNS + 1)
    budget = HostBudget.from_politeness(p, clock=clock, sleep=clock.sleep)
    starts: list[float] = []

    async def main() -> None:
        for latency in (0.4, 0.4, 0.4):
            await budget.acquire("site")
            starts.append(clock())
            budget.release("site")
            budget.observe("site", latency, 200)

    asyncio.run(main())
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    # delays after each response: (2 + 0.4)/2 = 1.2, then (1.2 + 0.4)/2 = 0.8
    assert gaps == pytest.approx([1.2, 0.8])
    assert budget.delay_of("site") == pytest.approx(0.6)  # (0.8 + 0.4)/2
    with pytest.raises(ValueError, match="AUTOTHROTTLE_TARGET_CONCURRENCY"):
        politeness(AUTOTHROTTLE_ENABLED=True, AUTOTHROTTLE_TARGET_CONCURRENCY=0)


def test_a_total_cap_holds_requests_to_every_host_together():
    budget = HostBudget(0.0, 0, total=2)
    order: list[str] = []

    async def main() -> None:
        await budget.acquire("a")
        await budget.acquire("b")
        third = asyncio.ensure_future(budget.acquire("c"))
        await asyncio.sleep(0.01)
        order.append("c waits" if not third.done() else "c went")
        budget.release("a")
        await asyncio.wait_for(third, 1)
        order.append("c went")

    asyncio.run(main())
    assert order == ["c waits", "c went"]
    assert budget.sent == {"a": 1, "b": 1, "c": 1}


def test_a_waiting_request_leaves_when_its_crawler_is_closing():
    from newsforagers.colony.throttle import BudgetWaitAbandoned

    budget = HostBudget(0.5, 1)  # one request per two seconds, one in flight
    closing = [False]

    async def main() -> None:
        await budget.acquire("site")  # holds the only slot
        waiter = asyncio.ensure_future(budget.acquire("site", lambda: closing[0]))
        await asyncio.sleep(0.05)
        assert not waiter.done()
        closing[0] = True
        with pytest.raises(BudgetWaitAbandoned):
            await asyncio.wait_for(waiter, 1.0)
        budget.release("site")
        # the abandoned wait took nothing: the next request gets the slot at once
        await asyncio.wait_for(budget._limits("site").semaphore.acquire(), 0.1)

    asyncio.run(main())


def test_budgets_of_several_processes_share_their_starts_and_pauses_through_the_store():
    """A colony over several processes: each process's budget reserves its starts in the store
    (the store's clock), so together they keep the rate and the spacing one budget would, and a
    pause one of them was asked for holds the others."""
    from newsforagers.store import MemoryStore

    clock = LateClock(0.003)
    store = MemoryStore(clock=clock)
    rate = 20.0
    budgets = [HostBudget(rate, 0, clock=clock, sleep=clock.sleep, shared=store) for _ in range(4)]
    starts: list[float] = []

    async def process(budget: HostBudget, count: int) -> None:
        for _ in range(count):
            await budget.acquire("site")
            starts.append(clock())
            budget.release("site")

    asyncio.run(_all(process(b, 50) for b in budgets))
    starts.sort()
    assert len(starts) == 200
    assert busiest_second(starts) <= rate
    assert min(b - a for a, b in zip(starts, starts[1:])) >= 1.0 / rate - 1e-9
    assert sum(b.sent["site"] for b in budgets) == 200

    # a 429 seen by one process pauses the host for all of them
    budgets[0].pause("site", 30.0)
    paused_at = clock()

    async def one_more() -> None:
        await budgets[3].acquire("site")

    asyncio.run(one_more())
    assert clock() >= paused_at + 30.0


async def _all(coroutines) -> None:
    await asyncio.gather(*coroutines)


def test_the_highest_priority_waiting_goes_next_and_equal_ones_in_their_order():
    """Five listing visits (priority 0) of several foragers wait for the host; a story (1) and
    a teleport-like request (2) arrive later: once the request at the head has its start,
    the higher ones go first, then the rest in the order they came."""
    clock = LateClock(0.0)
    budget = HostBudget(10.0, 0, clock=clock, sleep=clock.sleep)
    order: list[str] = []

    async def request(name: str, priority: int) -> None:
        await budget.acquire("site", priority=priority)
        order.append(name)
        budget.release("site")

    async def main() -> None:
        await budget.acquire("site")  # the last start: everyone below waits 0.105 s
        budget.release("site")
        for _ in range(SETTLE_TURNS):  # it settles (an idle loop: where it was made)
            await asyncio.sleep(0)
        waiting = [asyncio.ensure_future(request(f"listing{i}", 0)) for i in range(5)]
        await asyncio.sleep(0)  # they line up; listing0 is the head
        waiting.append(asyncio.ensure_future(request("story", 1)))
        waiting.append(asyncio.ensure_future(request("urgent", 2)))
        await asyncio.gather(*waiting)

    asyncio.run(main())
    assert order == ["listing0", "urgent", "story", "listing1", "listing2", "listing3", "listing4"]
    assert budget.sent["site"] == 8


def test_a_waiter_abandoning_its_place_in_line_leaves_the_others_their_order():
    from newsforagers.colony.throttle import BudgetWaitAbandoned

    budget = HostBudget(20.0, 1)
    closing = {"b": False}
    order: list[str] = []

    async def request(name: str) -> None:
        await budget.acquire("site", lambda: closing.get(name, False))
        order.append(name)
        await asyncio.sleep(0.01)
        budget.release("site")

    async def main() -> None:
        tasks = {name: asyncio.ensure_future(request(name)) for name in "abc"}
        await asyncio.sleep(0)
        closing["b"] = True
        with pytest.raises(BudgetWaitAbandoned):
            await asyncio.wait_for(tasks["b"], 2.0)
        await asyncio.wait_for(asyncio.gather(tasks["a"], tasks["c"]), 2.0)

    asyncio.run(main())
    assert order == ["a", "c"]
    assert budget._limits("site").line == []


def test_a_higher_priority_takes_the_place_of_a_head_still_waiting_for_its_start():
    """The head of the line (a listing visit) waits for the next start; a story arriving
    meanwhile goes at that start, and the visit at the one after (it gave its slot back)."""
    budget = HostBudget(10.0, 1)  # a start every 0.1 s, one request in flight
    order: list[tuple[str, float]] = []

    async def request(name: str, priority: int) -> None:
        await budget.acquire("site", lambda: False, priority=priority)
        order.append((name, budget.clock()))
        await asyncio.sleep(0.01)
        budget.release("site")

    async def main() -> None:
        await budget.acquire("site")
        budget.release("site")
        listing = asyncio.ensure_future(request("listing", 0))
        await asyncio.sleep(0.03)  # the listing holds the head and the slot, waiting for its start
        story = asyncio.ensure_future(request("story", 1))
        await asyncio.wait_for(asyncio.gather(listing, story), 2.0)

    asyncio.run(main())
    assert [name for name, _ in order] == ["story", "listing"]
    assert budget.displaced == 1
    # the story left at the listing's start, the listing one spacing later
    assert order[1][1] - order[0][1] >= 1.0 / 10.0 - 1e-3
    assert budget.sent["site"] == 3 and budget._limits("site").line == []


def test_an_unreachable_host_backs_off_doubling_up_to_the_cap_and_its_first_answer_ends_it():
    clock = LateClock(0.0)
    budget = HostBudget(0.0, 0, clock=clock, sleep=clock.sleep)
    backoffs = []
    for _ in range(5):  # each try after the last back-off ended fails again
        backoffs.append(budget.unreachable("down", cap=6.0))
        clock.t += backoffs[-1]
    assert backoffs == [1.0, 2.0, 4.0, 6.0, 6.0]
    assert budget.unreachable("down", cap=6.0) == 6.0
    clock.t += 2.0
    # a request sent before that back-off, failing during it, does not lengthen it
    assert budget.unreachable("down", cap=6.0) == 4.0
    assert budget.unreachable("other", cap=6.0) == 1.0  # per host
    assert budget.unreachable("off", cap=0.0) == 0.0  # FORAGERS_HOST_BACKOFF_MAX = 0

    async def main() -> tuple[float, float, float]:
        before = clock()
        await budget.acquire("down")  # the back-off holds: the 4 s left of it
        waited = clock() - before
        budget.release("down")
        await budget.acquire("up")  # another host never waits for it
        budget.release("up")
        return waited, clock(), before

    waited, _, _ = asyncio.run(main())
    assert waited >= 4.0
    budget.observe("down", 0.01, 200)  # it answered: the series starts again
    assert budget.unreachable("down", cap=6.0) == 1.0


def _block_then_acquire(budget: HostBudget, blocked: float, host: str = "site") -> tuple[float, float]:
    """Two starts of ``host``, the event loop held ``blocked`` seconds by other work (a page
    being read) in the turns right after the first; returns the two starts' times."""

    async def main() -> tuple[float, float]:
        await budget.acquire(host)
        first = time.monotonic()
        budget.release(host)
        if blocked:
            asyncio.get_running_loop().call_soon(time.sleep, blocked)
        await budget.acquire(host)
        second = time.monotonic()
        budget.release(host)
        return first, second

    return asyncio.run(main())


def test_a_start_whose_request_may_have_left_late_counts_in_the_window_from_its_settling():
    """The budget lets a request go; its bytes leave a few turns of the event loop later. A
    loop held by other work in those turns may send it late: its start is moved to when it
    settled (SETTLE_TURNS) in the host's one-second window, and at ten a second the next
    start keeps to the host's timeline (the window keeps the rate)."""
    rate, blocked = 10.0, 0.2
    spacing = 1.0 / rate
    budget = HostBudget(rate, 0)
    first, second = _block_then_acquire(budget, 0.0)
    assert spacing - 0.01 <= second - first < spacing + blocked  # an idle loop: the spacing
    assert budget.settled_late == 0
    first, second = _block_then_acquire(budget, blocked)
    # the next start keeps to the host's timeline: it goes once the loop is free, not a
    # spacing after the late one (the window, counted on the moved start, keeps the rate)
    assert blocked - 0.01 <= second - first < blocked + spacing
    assert budget.settled_late == 1 and budget.settled_seconds >= blocked
    # the late one counts in the window from when it settled (less the 0.005 s its margin covers)
    moved = [start for start in budget._limits("site").starts if start > first + 1e-3]
    assert moved and min(moved) >= first + blocked - 0.005 - 1e-3


def test_a_late_start_is_moved_in_the_store_for_every_process():
    """With the starts kept in the store (foragers in several processes), a start that left
    late is moved there, so another process's next start keeps its spacing from it."""
    from newsforagers.store import MemoryStore

    store = MemoryStore(clock=time.monotonic)
    rate, blocked = 2.0, 0.3
    one, other = (HostBudget(rate, 0, shared=store) for _ in range(2))

    async def main() -> tuple[float, float]:
        await one.acquire("site")
        first = time.monotonic()
        one.release("site")
        asyncio.get_running_loop().call_soon(time.sleep, blocked)
        await other.acquire("site")
        second = time.monotonic()
        other.release("site")
        return first, second

    first, second = asyncio.run(main())
    assert second - first >= blocked + 1.0 / rate - 0.01
    assert one.settled_late == 1 and other.settled_late == 0



@pytest.mark.parametrize("shared", [False, True], ids=["one process", "starts in the store"])
def test_a_host_s_first_start_counts_from_its_first_answer(shared):
    """A host's first request opens a connection the site may accept late; the next one, on the
    open connection, arrives on time: the spacing after the first counts from its answer."""
    from newsforagers.store import MemoryStore

    clock = LateClock(0.0)
    budget = HostBudget(1.0, 0, clock=clock, sleep=clock.sleep,
                        shared=MemoryStore(clock=clock) if shared else None)
    starts: list[float] = []

    async def main() -> None:
        for answered_after in (0.4, 0.4, 0.0):
            opening = not starts  # the first request opens the connection
            await budget.acquire("site", opening=opening)
            starts.append(clock())
            for _ in range(SETTLE_TURNS):  # the request leaves at once
                await asyncio.sleep(0)
            clock.t += answered_after  # the answer's headers come this much later
            budget.observe("site", answered_after, 200)
            if opening:
                budget.opened("site", answered=True)  # the download handler's first answer
            budget.release("site")

    asyncio.run(main())
    assert starts[1] - starts[0] == pytest.approx(0.4 + 1.05)  # from the first answer
    assert starts[2] - starts[1] == pytest.approx(1.05)  # the connection is open: the spacing
    assert budget.settled_late == 1


def test_a_request_opening_a_connection_holds_its_host_s_next_start_until_it_is_answered():
    """Another forager's request, on a connection already open, would reach the site before a
    request whose new connection the site has not accepted yet: it waits for that answer."""
    clock = LateClock(0.0)
    budget = HostBudget(1.0, 0, clock=clock, sleep=clock.sleep)

    async def main() -> tuple[float, bool]:
        await budget.acquire("site", opening=True)
        first = clock()
        for _ in range(SETTLE_TURNS):
            await asyncio.sleep(0)
        second = asyncio.ensure_future(budget.acquire("site"))
        clock.t += 3.0  # no answer after 3 s
        for _ in range(20):
            await asyncio.sleep(0)
        waited = not second.done()
        budget.opened("site", answered=True)
        await second
        return clock() - first, waited

    gap, waited = asyncio.run(main())
    assert waited and gap == pytest.approx(3.0 + 1.05)


def test_from_two_a_second_a_request_opening_a_connection_counts_in_the_window_until_answered():
    """At 5 a second a forager's first request to the host opens a connection: the host's
    next starts keep to its timeline (0.2 s apart) instead of waiting for that answer, and the
    opening request counts in the one-second window as present until its answer (0.9 s after
    it), then at its answer; so the sixth start waits for the second's to leave the window
    (0.2 + 1.05 s), and any six of them, as they may have reached the site, span the window."""
    clock = LateClock(0.0, idle_turns=SETTLE_TURNS + 1)
    budget = HostBudget(5.0, 0, clock=clock, sleep=clock.sleep)

    async def main() -> list[float]:
        starts = []
        opening = await budget.acquire("site", opening=True)
        starts.append(clock())
        budget.release("site")
        for _ in range(4):
            await budget.acquire("site")
            starts.append(clock())
            budget.release("site")
        for _ in range(SETTLE_TURNS + 1):  # the last one settles
            await asyncio.sleep(0)
        assert len(budget._limits("site").pending) == 1  # the opening one, not answered yet
        clock.t = starts[0] + 0.9
        budget.opened("site", answered=True, number=opening)
        await budget.acquire("site")
        starts.append(clock())
        budget.release("site")
        for _ in range(SETTLE_TURNS + 1):
            await asyncio.sleep(0)
        return starts

    starts = asyncio.run(main())
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    assert gaps == pytest.approx([0.2, 0.2, 0.2, 0.2, 0.2 + 1.05 - 0.8])
    reached = sorted([starts[0] + 0.9, *starts[1:]])  # the opening request at its answer, at the latest
    assert reached[-1] - reached[0] >= 1.05 - 1e-9
    assert budget._limits("site").pending == {}


def test_ready_in_says_how_long_the_next_request_of_a_host_would_wait():
    clock = LateClock(0.0)
    budget = HostBudget(2.0, 0, clock=clock, sleep=clock.sleep)  # spacing 1 / 2 = 0.5 s
    assert budget.ready_in("site") == 0.0  # never asked: at once

    async def main() -> list[float]:
        waits = []
        await budget.acquire("site")
        for _ in range(SETTLE_TURNS + 1):  # the start settles (on time) first
            await asyncio.sleep(0)
        waits.append(budget.ready_in("site"))
        clock.t += 0.3
        waits.append(budget.ready_in("site"))
        promised = budget.ready_in("site")
        before = clock()
        await budget.acquire("site")  # it waits what it was told
        waits.append(clock() - before - promised)
        budget.pause("site", 5.0)
        waits.append(budget.ready_in("site"))
        waits.append(budget.ready_in("other"))
        return waits

    waits = asyncio.run(main())
    assert waits == [pytest.approx(0.5), pytest.approx(0.2), pytest.approx(0.0, abs=1e-9),
                     pytest.approx(5.0), 0.0]
    assert budget.sent["site"] == 2  # a read starts nothing


def _held_starts(rate: float, holds: list[float]) -> tuple[HostBudget, list[float]]:
    """Starts of one host, the event loop held ``holds[k]`` seconds in the turns after the k-th
    (its request left that late); returns the budget and the starts."""
    clock = LateClock(0.0)
    budget = HostBudget(rate, 0, clock=clock, sleep=clock.sleep)

    async def main() -> list[float]:
        starts = []
        for held in holds:
            await budget.acquire("site")
            starts.append(clock())
            clock.t += held  # the loop is held in the turns after the start
            for _ in range(SETTLE_TURNS):
                await asyncio.sleep(0)
            budget.release("site")
        return starts

    return budget, asyncio.run(main())


@pytest.mark.parametrize("rate, first_gap", [(5.0, 0.2), (1.0, 0.1 + 1.05)], ids=["5 a second", "1 a second"])
def test_a_late_start_keeps_its_host_s_timeline_where_the_window_keeps_the_rate(rate, first_gap):
    """A start whose turns came late (the event loop held 0.1 s): at 5 a second the next start
    keeps to the host's timeline (one spacing, 0.2 s, after the late one was due: it left 0.1 s
    after the late one did, half a spacing), since the one-second window, counted on the starts
    moved to when they settled, keeps the rate; at one a second the window is the spacing
    itself, counted from the moved start (0.1 + 1.05 s)."""
    budget, starts = _held_starts(rate, [0.1, 0.0, 0.0])
    assert budget.settled_late == 1
    assert starts[1] - starts[0] == pytest.approx(first_gap)
    assert starts[2] - starts[1] == pytest.approx(1.0 / rate if rate >= 2 else 1.05)


def test_a_busy_loop_s_late_starts_cost_little_budget_and_never_the_window():
    """200 starts at 5 a second, the loop held after them 0 to 0.12 s in a fixed pattern (a
    mean of 0.035 s): as the requests left (each start plus its hold), any 6 in a row span the
    window less the part of its margin a late start may keep (1.05 − 0.01 s: a site counting
    one-second windows sees 5 at most), two starts in a row are half a spacing apart at least,
    and the host gets more than if every late start pushed the rest back by its lateness."""
    rate, pattern = 5.0, [0.0, 0.12, 0.0, 0.03, 0.0, 0.06, 0.01, 0.0, 0.08, 0.05]
    holds = pattern * 20
    budget, starts = _held_starts(rate, holds)
    left = [start + held for start, held in zip(starts, holds)]
    assert min(b - a for a, b in zip(left, left[5:])) >= 1.05 - 0.01 - 1e-9
    assert min(b - a for a, b in zip(starts, starts[1:])) >= CATCH_UP / rate - 1e-9
    assert busiest_second(left) <= rate
    achieved = (len(starts) - 1) / (starts[-1] - starts[0])
    pushed = 1.0 / (1.05 / rate + sum(holds) / len(holds))  # every lateness pushing the next start
    assert achieved > pushed * 1.05
    assert achieved <= rate / 1.05 + 1e-9
