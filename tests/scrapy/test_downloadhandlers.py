"""The colony's download handler at close: a request waiting for the budget leaves at once, a
download still in flight after FORAGERS_CLOSE_GRACE is cancelled (a response that stalls after
its headers must not hold the colony's close for DOWNLOAD_TIMEOUT)."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest
from scrapy import Request, Spider
from scrapy.http import Response
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from newsforagers.colony.throttle import SETTLE_TURNS, HostBudget
from newsforagers.config import ForagersConfig
from newsforagers.downloadhandlers import ClosingIgnoreRequest, ColonyBudgetMixin


class Stalling:
    """A wrapped handler whose downloads answer when told to, or never."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.answer = asyncio.Event()
        self.cancelled = 0

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    async def download_request(self, request):
        try:
            await self.answer.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return Response(request.url, status=200)


class Handler(ColonyBudgetMixin, Stalling):
    pass


def colony_crawler(grace: float, budget: HostBudget):
    crawler = get_crawler(Spider, {"CLOSESPIDER_TIMEOUT": 0})
    crawler.stats = MemoryStatsCollector(crawler)
    crawler.engine = SimpleNamespace(running=True)
    config = ForagersConfig.from_settings({"FORAGERS_CLOSE_GRACE": grace})
    ending = [False]
    colony = SimpleNamespace(budget=budget, config=config, root=None, ending=lambda: ending[0])
    crawler.test_context = SimpleNamespace(colony=colony, driver=None)  # a forager's context
    crawler.colony_ending = ending
    return crawler


def make_handler(crawler) -> Handler:
    """The handler of a forager's crawler, with the forager's context (its add-on's)."""
    handler = Handler.from_crawler(crawler)
    assert handler.forager_context is None  # no add-on in this crawler
    handler.forager_context = crawler.test_context
    return handler


def test_a_download_in_flight_is_cancelled_once_the_close_has_lasted_the_grace():
    crawler = colony_crawler(0.3, HostBudget(0.0, 0))
    handler = make_handler(crawler)

    async def main() -> float:
        download = asyncio.ensure_future(handler.download_request(Request("http://site.test/stall")))
        await asyncio.sleep(0.3)
        assert not download.done()  # no close yet: a slow download may take its time
        crawler.engine.running = False  # the crawler begins to close (a signal, the colony's end)
        began = time.monotonic()
        with pytest.raises(ClosingIgnoreRequest):
            await asyncio.wait_for(download, 3)
        return time.monotonic() - began

    waited = asyncio.run(main())
    assert 0.3 <= waited < 2.5  # the grace, and a check interval (and a busy machine) at most
    assert handler.cancelled == 1  # the wrapped download itself was cancelled (its connection)
    assert crawler.stats.get_value("newsforagers/close/cancelled") == 1


def test_a_download_that_answers_within_the_grace_is_kept():
    crawler = colony_crawler(5.0, HostBudget(0.0, 0))
    handler = make_handler(crawler)

    async def main():
        download = asyncio.ensure_future(handler.download_request(Request("http://site.test/slow")))
        await asyncio.sleep(0.1)
        crawler.engine.running = False
        await asyncio.sleep(0.3)
        handler.answer.set()
        return await asyncio.wait_for(download, 3)

    assert asyncio.run(main()).status == 200
    assert handler.cancelled == 0 and crawler.stats.get_value("newsforagers/close/cancelled") is None


def test_a_request_paused_by_retry_after_leaves_at_close():
    """Retry-After: 999999 paused the host (capped by FORAGERS_RETRY_AFTER_MAX): a request
    waiting behind the pause must not sleep through the close."""
    budget = HostBudget(0.0, 0)
    crawler = colony_crawler(15.0, budget)
    handler = make_handler(crawler)
    handler.answer.set()

    async def main() -> float:
        budget.pause("site.test", 120.0)
        download = asyncio.ensure_future(handler.download_request(Request("http://site.test/a")))
        await asyncio.sleep(0.1)
        crawler.engine.running = False
        began = time.monotonic()
        with pytest.raises(ClosingIgnoreRequest):
            await asyncio.wait_for(download, 3)
        return time.monotonic() - began

    assert asyncio.run(main()) < 2.5  # a check interval, not the 120 s pause
    assert crawler.stats.get_value("newsforagers/host/abandoned_on_close") == 1


def test_a_child_forager_closes_with_its_colony():
    """The root's close (its CLOSESPIDER_TIMEOUT, a signal) starts every forager's: a child's
    downloads get the same grace, not a second one after the root's have ended."""
    crawler = colony_crawler(0.2, HostBudget(0.0, 0))
    handler = make_handler(crawler)

    async def main() -> None:
        download = asyncio.ensure_future(handler.download_request(Request("http://site.test/stall")))
        await asyncio.sleep(0.1)
        crawler.colony_ending[0] = True  # its own engine still runs
        with pytest.raises(ClosingIgnoreRequest):
            await asyncio.wait_for(download, 3)

    asyncio.run(main())
    assert handler.cancelled == 1


class Wrapped:
    """A handler the colony's mixin wraps: built from its crawler, as Scrapy builds one."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)


class Refusing(Wrapped):
    """A wrapped handler whose every download is a refused connection."""

    async def download_request(self, request):
        from twisted.internet.error import ConnectionRefusedError

        raise ConnectionRefusedError("nothing listens")


class RefusedHandler(ColonyBudgetMixin, Refusing):
    pass


def test_a_refused_host_backs_off_only_when_a_request_has_failed_its_retries():
    clock = [100.0]

    async def sleep(seconds):  # the budget's waits pass on the test's clock
        clock[0] += seconds

    budget = HostBudget(0.0, 0, clock=lambda: clock[0], sleep=sleep)
    crawler = colony_crawler(1.0, budget)  # RETRY_TIMES: Scrapy's 2
    handler = RefusedHandler.from_crawler(crawler)
    handler.forager_context = crawler.test_context

    def fail(meta):
        from twisted.internet.error import ConnectionRefusedError

        with pytest.raises(ConnectionRefusedError):
            asyncio.run(handler.download_request(Request("http://down.example/", meta=meta)))

    fail({})  # the first try: Scrapy retries it at once
    fail({"retry_times": 1})
    assert crawler.stats.get_value("newsforagers/host/unreachable") is None
    fail({"retry_times": 2})  # the last of RETRY_TIMES = 2: the host backs off
    assert crawler.stats.get_value("newsforagers/host/unreachable") == 1
    assert budget._pause_until["down.example"] == pytest.approx(101.0)
    fail({"dont_retry": True})  # waits out the 1 s; a request never retried: its one try is its last
    assert clock[0] == pytest.approx(101.0)
    assert crawler.stats.get_value("newsforagers/host/unreachable") == 2
    assert budget._pause_until["down.example"] == pytest.approx(103.0)  # 2 s now


def test_each_crawler_s_first_answer_from_a_host_moves_the_host_s_start_there():
    """Every forager is a crawler with connections of its own: its first request to a host opens
    one, which the site may accept late; its first answer from that host moves the host's
    newest start to then (HostBudget.opened), its later answers do not."""
    clock = [100.0]

    async def sleep(seconds):
        clock[0] += seconds

    budget = HostBudget(1.0, 0, clock=lambda: clock[0], sleep=sleep)

    class Answering(Wrapped):
        async def download_request(self, request):
            for _ in range(SETTLE_TURNS):  # the request leaves at once ...
                await asyncio.sleep(0)
            clock[0] += 0.5  # ... and its answer comes half a second after the start
            return Response(request.url, status=200)

    class AnsweringHandler(ColonyBudgetMixin, Answering):
        pass

    handlers = []
    for _ in range(2):  # two foragers of one colony
        crawler = colony_crawler(1.0, budget)
        handler = AnsweringHandler.from_crawler(crawler)
        handler.forager_context = crawler.test_context
        handlers.append(handler)

    def download(handler) -> float:
        async def one():
            await handler.download_request(Request("http://site.example/"))
        asyncio.run(one())
        return budget._hosts["site.example"].starts[-1]

    assert download(handlers[0]) == pytest.approx(100.5)  # started at 100, answered at 100.5
    assert download(handlers[0]) == pytest.approx(101.55)  # 100.5 + 1.05; its connection is open
    assert download(handlers[1]) == pytest.approx(103.1)  # the other crawler's first: its answer
    assert budget.settled_late == 2
