"""Spawners: what starts and stops a colony's foragers.

The population extension decides (split, retire); a spawner only starts a forager by name with
its spider arguments, stops them all at the colony's end, and says when one has ended. What a
forager is born with (half its parent's weblog, its weights) goes through the store (a
hand-over under ``handover/NAME``), never through the spawner: a forager in another process
or on another machine reads it the same way.

:class:`InProcessSpawner` (the default) runs each forager as its own Scrapy crawler in this
process and reactor, through an ``AsyncCrawlerRunner`` per forager, with the root crawler's
spider class (so the colony does not import the spider) and the root's settings (so a child
is configured as its parent was). :class:`ProcessSpawner` runs each forager as a process of its
own, sharing nothing with the others but the store, and
:class:`~newsforagers.colony.scrapyd.ScrapydSpawner` (``FORAGERS_SPAWNER=scrapyd``) as jobs of
scrapyd nodes, which share nothing but the store either.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from scrapy.crawler import AsyncCrawlerRunner
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.python import global_object_name

from newsforagers.scrapy_access import engine_running

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

# settings a child crawler must not inherit from the root (the root's feed outputs the whole
# colony's documents, from the store). LOG_FILE stays: a new crawler re-installs Scrapy's root
# log handler from its own settings, and without it the colony's log would move to stderr.
_ROOT_ONLY = ("FEEDS", "FEED_URI", "FEED_FORMAT")
#: What gives a forager of the colony no console of its own (telnet, remote control): the root's
#: serve the colony, and a forager's would open one more port each (on a node, jobs starting
#: together race for Scrapy's telnet ports). Every spawner's foragers, in process or as jobs.
NO_CONSOLES = (("TELNETCONSOLE_ENABLED", False), ("REMOTE_CONTROL_ENABLED", False))
# How long a stop waits for a forager that is still starting (its engine not running yet)
# before it stops it: steps of _START_WAIT seconds.
_START_WAIT = 0.05
_START_WAIT_STEPS = 200


def child_settings(root: Crawler, name: str) -> dict:
    """The root's settings for forager ``name``: only what was set above Scrapy's defaults (a
    child's settings dict is applied at project priority, and defaults copied that way would
    look set by the user: Scrapy then warns about deprecated defaults, and a default would
    outrank a newer setting that replaces it); no feed, no telnet console nor remote control
    server, its own JOBDIR folder."""
    settings = {key: value for key, value in root.settings.copy_to_dict().items()
                if (root.settings.getpriority(key) or 0) > SETTINGS_PRIORITIES["default"]}
    for key in _ROOT_ONLY:
        settings.pop(key, None)
    settings["FEEDS"] = {}
    settings.update(NO_CONSOLES)
    jobdir = settings.get("JOBDIR")
    if jobdir:
        settings["JOBDIR"] = str(Path(jobdir) / "foragers" / name)
    return settings


class Spawner(ABC):
    """Starts and stops the foragers of one colony."""

    #: Its foragers are crawlers of this process (their leases are renewed here).
    in_process: bool = True

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
        return child_settings(self.root, name)

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


class ProcessSpawner(Spawner):
    """Foragers as processes of their own (``FORAGERS_SPAWNER=process``): each runs
    ``python -m newsforagers.colony.child`` with the spider class, the root's settings and its
    spider arguments, and shares nothing with the others but the store — no Python object
    crosses. A child is a ``member`` of the colony (``-a role=member``): it joins the
    population through the store, reads its hand-over there, and its documents reach the root's
    feed through the store's record of paid documents.

    ``stop`` asks each child process to stop as a user would (SIGINT: a clean close) and waits
    for them; one still running after ``grace`` seconds is killed."""

    in_process = False

    def __init__(self, root: Crawler, on_started: Callable[[str, Any], None],
                 on_ended: Callable[[str, BaseException | None], None], grace: float = 30.0):
        self.root = root
        self.on_started = on_started
        self.on_ended = on_ended
        self.grace = grace
        self._processes: dict[str, subprocess.Popen] = {}
        self._watch = None

    @property
    def running(self) -> int:
        return len(self._processes)

    def child_settings(self, name: str) -> dict:
        return child_settings(self.root, name)

    def start(self, name: str, arguments: dict[str, Any]) -> None:
        arguments = {key: value for key, value in arguments.items() if key != "colony"}
        arguments["role"] = "member"
        spec = {"spider": global_object_name(self.root.spidercls),
                "settings": portable(self.child_settings(name)), "arguments": arguments}
        # the spec in a file, not on the command line (a settings dict can be long)
        handle, path = tempfile.mkstemp(prefix=f"forager-{name}-", suffix=".json")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(spec, out)
        process = subprocess.Popen([sys.executable, "-m", "newsforagers.colony.child", path],
                                   stdin=subprocess.DEVNULL)
        self._processes[name] = process
        logger.info("colony: forager %s started as process %d", name, process.pid)
        self.on_started(name, process)
        if self._watch is None:
            self._watch = asyncio.ensure_future(self._watch_processes())

    async def _watch_processes(self) -> None:
        while self._processes:
            await asyncio.sleep(_PROCESS_POLL)
            for name, process in list(self._processes.items()):
                code = process.poll()
                if code is None:
                    continue
                del self._processes[name]
                error = None if code == 0 else RuntimeError(f"process {process.pid} exited with {code}")
                self.on_ended(name, error)
        self._watch = None

    async def stop(self) -> None:
        for process in self._processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        waited = 0.0
        while any(p.poll() is None for p in self._processes.values()) and waited < self.grace:
            await asyncio.sleep(_PROCESS_POLL)
            waited += _PROCESS_POLL
        for name, process in self._processes.items():
            if process.poll() is None:
                logger.warning("colony: forager %s (process %d) still running %g s after its "
                               "stop; killed", name, process.pid, self.grace)
                process.kill()
                process.wait()
        await self.join()

    async def join(self) -> None:
        while self._processes:
            await asyncio.sleep(_PROCESS_POLL)
            if self._watch is None:  # ended meanwhile: collect what is left
                self._watch = asyncio.ensure_future(self._watch_processes())


#: Wall seconds between two looks at the child processes.
_PROCESS_POLL = 0.1


def portable(settings: dict) -> dict:
    """Settings as JSON can carry them: a class or function becomes its import path (Scrapy
    loads those from strings); anything else that JSON cannot hold is refused by name."""
    def convert(key: str, value: Any) -> Any:
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        if isinstance(value, dict):
            return {str(convert(key, k)): convert(key, v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [convert(key, v) for v in value]
        if isinstance(value, type) or callable(value):
            return global_object_name(value)
        if hasattr(value, "copy_to_dict"):  # a BaseSettings inside the settings
            return convert(key, value.copy_to_dict())
        raise ValueError(f"setting {key} ({value!r}) cannot be handed to a forager in another "
                         "process: give it as a string (an import path) or plain data")

    return {key: convert(key, value) for key, value in settings.items()}
