"""The colony's shared recent downloads: TTL, size cap, waiters."""

import asyncio

from newsforagers.colony.fetches import SharedFetches


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_response_is_served_for_the_ttl_then_forgotten():
    clock = Clock()
    fetches = SharedFetches(ttl=10, size=100, clock=clock)
    fetches.finish("a", "A")
    clock.now = 9.0
    assert fetches.recent("a") == "A"
    clock.now = 10.5
    assert fetches.recent("a") is None and len(fetches) == 0


def test_expired_responses_do_not_stay_in_memory_until_the_size_cap():
    clock = Clock()
    fetches = SharedFetches(ttl=10, size=5000, clock=clock)
    for second in range(1000):  # one page a second, never asked for again
        clock.now = float(second)
        fetches.finish(f"page{second}", object())
    assert len(fetches) <= 11  # the last TTL's worth, not 1000
    assert fetches.recent("page999") is not None


def test_the_size_cap_drops_the_oldest():
    clock = Clock()
    fetches = SharedFetches(ttl=1000, size=3, clock=clock)
    for name in "abcd":
        fetches.finish(name, name.upper())
    assert len(fetches) == 3 and fetches.recent("a") is None and fetches.recent("d") == "D"


def test_waiters_of_a_download_in_flight_get_its_response():
    async def scenario():
        fetches = SharedFetches(ttl=10, size=10)
        fetches.begin("a")
        waiter = fetches.in_flight("a")
        fetches.finish("a", "A")
        return await waiter, fetches.in_flight("a")

    assert asyncio.run(scenario()) == ("A", None)
