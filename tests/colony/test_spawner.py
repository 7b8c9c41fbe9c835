"""The spawner's stop waits for a forager still starting before it stops it: Scrapy's
Crawler.stop_async on a crawler whose engine does not run yet does nothing but mark it stopped,
and that crawler's end then waits for ever (a forager born in a split as the colony closed hung
a whole crawl)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from newsforagers.colony.spawner import InProcessSpawner


class StartingCrawler:
    def __init__(self):
        self.crawling = True
        self._engine = None

    @property
    def engine(self):
        if self._engine is None:
            raise RuntimeError("Crawler.engine is not set yet")
        return self._engine


def test_a_forager_still_starting_is_stopped_only_once_its_engine_runs():
    crawler = StartingCrawler()
    seen: list[bool] = []

    async def stop():
        seen.append(crawler.engine.running)

    runner = SimpleNamespace(crawlers={crawler}, stop=stop)

    async def main():
        stopping = asyncio.ensure_future(InProcessSpawner._stop_runner(runner))
        await asyncio.sleep(0.12)
        assert not seen  # no engine yet: not stopped
        crawler._engine = SimpleNamespace(running=False)
        await asyncio.sleep(0.12)
        assert not seen  # an engine, not running yet: not stopped
        crawler._engine.running = True
        await asyncio.wait_for(stopping, 1)

    asyncio.run(main())
    assert seen == [True]


def test_a_forager_whose_crawl_already_ended_is_not_waited_for():
    crawler = StartingCrawler()
    crawler.crawling = False
    calls: list[str] = []

    async def stop():
        calls.append("stop")

    asyncio.run(asyncio.wait_for(InProcessSpawner._stop_runner(SimpleNamespace(crawlers={crawler}, stop=stop)), 0.5))
    assert calls == ["stop"]
