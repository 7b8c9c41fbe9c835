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


def test_a_child_forager_has_the_root_s_settings_but_no_feed_console_or_remote_control(tmp_path):
    from scrapy.utils.test import get_crawler

    from newsforagers.colony.spawner import child_settings

    root = get_crawler(settings_dict={"FEEDS": {str(tmp_path / "out.jsonl"): {"format": "jsonlines"}},
                                      "JOBDIR": str(tmp_path / "job"), "FORAGERS_MIN": 4,
                                      "ITEM_PIPELINES": {"newsdesk.pipelines.SourcePipeline": 300}})
    settings = child_settings(root, "f2")
    assert settings["FEEDS"] == {} and settings["FORAGERS_MIN"] == 4
    assert settings["ITEM_PIPELINES"] == {"newsdesk.pipelines.SourcePipeline": 300}  # the user's pipelines run there
    assert settings["TELNETCONSOLE_ENABLED"] is False and settings["REMOTE_CONTROL_ENABLED"] is False
    assert settings["JOBDIR"] == str(tmp_path / "job" / "foragers" / "f2")
