"""Spawners: what starts and stops a colony's foragers.

The population extension decides (split, retire); a spawner only starts a forager by name with
its spider arguments, stops them all at the colony's end, and says when one has ended. What a
forager is born with (half its parent's weblog, its weights) goes through the store (a
hand-over under ``handover/NAME``), never through the spawner: a forager in another process
or on another machine reads it the same way.

:class:`InProcessSpawner` (the default) runs each forager as its own Scrapy crawler in this
process and reactor, through an ``AsyncCrawlerRunner`` per forager, with the root crawler's
spider class (so the colony does not import the spider) and the root's settings (so a child
is configured as its parent was). A scrapyd spawner is the next one (issue 17).
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from scrapy.crawler import AsyncCrawlerRunner
from scrapy.settings import SETTINGS_PRIORITIES

from newsforagers.scrapy_access import engine_running

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

# settings a child crawler must not inherit from the root (the root's feed outputs the whole
# colony's documents, from the store). LOG_FILE stays: a new crawler re-installs Scrapy's root
# log handler from its own settings, and without it the colony's log would move to stderr.
_ROOT_ONLY = ("FEEDS", "FEED_URI", "FEED_FORMAT")
# How long a stop waits for a forager that is still starting (its engine not running yet)
# before it stops it: steps of _START_WAIT seconds.
_START_WAIT = 0.05
_START_WAIT_STEPS = 200


class Spawner(ABC):
    """Starts and stops the foragers of one colony."""

    @abstractmethod
    def start(self, name: str, arguments: dict[str, Any]) -> None:
        """Start forager ``name`` with these spider arguments (``-a`` of ``scrapy crawl``)."""

    @abstractmethod
    async def stop(self) -> None:
        """Stop every forager this spawner started, and wait until they have ended."""

    @abstractmethod
    async def join(self) -> None:
        """Wait until every forager this spawner started has ended."""

    @property
    @abstractmethod
    def running(self) -> int:
        """How many foragers this spawner started are still running."""


class InProcessSpawner(Spawner):
    """Foragers as crawlers of this process (one ``AsyncCrawlerRunner`` each, so that one that
    ends lets its crawler go: a retired forager's memory must not outlive it).

    ``on_started(name, crawler)`` is called when a crawler is made, ``on_ended(name, error)``
    when its crawl has ended (``error``: the exception it ended with, or None)."""

    def __init__(self, root: Crawler, on_started: Callable[[str, Any], None],
                 on_ended: Callable[[str, BaseException | None], None]):
        self.root = root
        self.on_started = on_started
        self.on_ended = on_ended
        self._runners: dict[str, AsyncCrawlerRunner] = {}

    @property
    def running(self) -> int:
        return len(self._runners)

    def child_settings(self, name: str) -> dict:
        """The root's settings for forager ``name``: only what was set above Scrapy's defaults
        (a child's settings dict is applied at project priority, and defaults copied that way
        would look set by the user: Scrapy then warns about deprecated defaults, and a default
        would outrank a newer setting that replaces it); no feed, no telnet console, its own
        JOBDIR folder."""
        root = self.root.settings
        settings = {key: value for key, value in root.copy_to_dict().items()
                    if (root.getpriority(key) or 0) > SETTINGS_PRIORITIES["default"]}
        for key in _ROOT_ONLY:
            settings.pop(key, None)
        settings["FEEDS"] = {}
        settings["TELNETCONSOLE_ENABLED"] = False
        jobdir = settings.get("JOBDIR")
        if jobdir:
            settings["JOBDIR"] = str(Path(jobdir) / "foragers" / name)
        return settings

    def start(self, name: str, arguments: dict[str, Any]) -> None:
        runner = AsyncCrawlerRunner(self.child_settings(name))
        crawler = runner.create_crawler(self.root.spidercls)
        self.on_started(name, crawler)
        task = runner.crawl(crawler, **arguments)
        self._runners[name] = runner
        task.add_done_callback(lambda t, n=name: self._ended(n, t))

    def _ended(self, name: str, task) -> None:
        self._runners.pop(name, None)
        error = None if task.cancelled() else task.exception()
        self.on_ended(name, error)

    async def stop(self) -> None:
        # all at once: each stop waits for that crawler's downloads (its grace at most)
        await asyncio.gather(*(self._stop_runner(runner) for runner in list(self._runners.values())))
        await self.join()

    @staticmethod
    async def _stop_runner(runner: AsyncCrawlerRunner) -> None:
        """Stop a runner's crawlers once their engines run. Scrapy's ``Crawler.stop_async`` on a
        crawler still starting (its engine not running yet) marks it stopped and does nothing
        else: its engine then runs on, and when it closes, its crawl waits for a stop already
        spent — the colony's end would wait for ever."""
        for crawler in list(runner.crawlers):
            for _ in range(_START_WAIT_STEPS):
                if not crawler.crawling or engine_running(crawler):
                    break
                await asyncio.sleep(_START_WAIT)
        await runner.stop()

    async def join(self) -> None:
        for runner in list(self._runners.values()):
            await runner.join()
