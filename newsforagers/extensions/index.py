"""``IndexExtension``: the root keeps the colony's search index current (the i-Bot indexer).

While the colony crawls, the root's crawler follows the store's output (what the foragers'
item pipelines let through, :mod:`newsforagers.extensions.output`) into the index
(:class:`~newsforagers.index.DocumentIndex`, ``FORAGERS_INDEX``) every
``FORAGERS_INDEX_INTERVAL`` seconds, and once more when it closes — after the other foragers
have ended (its scheduler's close waits for them), so the index holds every document the colony
output. ``newsforagers search`` and a dashboard read the file meanwhile.

Indexing runs on the reactor's thread, :data:`INDEX_BATCH` documents a tick at most (11 ms
for 50 posts of digital.gov into an index of 100,000: docs/benchmarks.md, *The search index*),
so it never holds the crawl for long; a backlog (a colony that pays faster, or resumes on a
store of documents never indexed) is caught up with ticks :data:`CATCH_UP` seconds apart. The
index waits :data:`BUSY_TIMEOUT` seconds at most for another process writing to it (a
``newsforagers index --follow`` on the same file), then tries again at the next tick. Any
other failure — a file that is no index, a full disk — is one ERROR line: the crawl goes on
without indexing.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

from scrapy import signals
from scrapy.exceptions import NotConfigured

from newsforagers.context import ForagerContext
from newsforagers.extensions.population import forager_context
from newsforagers.index import DocumentIndex, IndexBroken, default_index_path
from newsforagers.stopping import interrupt_stores_on_stop
from newsforagers.store import ColonyStore, open_store

logger = logging.getLogger(__name__)

#: Documents indexed in one tick on the reactor's thread, at most.
INDEX_BATCH = 50
#: Seconds between two ticks while a backlog is being caught up.
CATCH_UP = 0.05
#: Seconds a tick waits for another process's write to the index before it gives up its turn.
BUSY_TIMEOUT = 0.1
#: The same at the colony's end, for its last look at the store.
LAST_LOOK_TIMEOUT = 30.0
OFF = "off"


class IndexExtension:
    def __init__(self, crawler, context: ForagerContext, path: Path, interval: float):
        self.crawler = crawler
        self.context = context
        self.path = path
        self.interval = interval
        self.index: DocumentIndex | None = None
        self.store: ColonyStore | None = None
        self.added = 0
        self._own_store = False
        self._task = None
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        context = forager_context(crawler, "IndexExtension")
        config = context.config
        if config.index.strip().lower() == OFF:
            # the user's choice, not a problem: Scrapy logs a NotConfigured with a message as a
            # WARNING, so this one says it at INFO itself, once per crawler
            logger.info("index: FORAGERS_INDEX is off: no search index")
            raise NotConfigured()
        path = Path(config.index) if config.index else default_index_path(config.store, config.redis_prefix)
        return cls(crawler, context, path, config.index_interval)

    def spider_opened(self, spider) -> None:
        if not self.context.is_root:
            return
        try:
            self.store, self._own_store = self._reader()
            self.index = DocumentIndex(self.path, timeout=BUSY_TIMEOUT)
            self.index.count()  # made or checked now: a broken file is said at the start
        except Exception as exc:
            self._fail(exc)
            return
        logger.info("index: the colony's documents are indexed into %s (newsforagers search --index %s)",
                    self.path, self.path)
        self._task = asyncio.ensure_future(self._follow())

    def _reader(self) -> tuple[ColonyStore, bool]:
        """The store to follow: a connection of the extension's own to a store in a file or on
        a server — the colony closes its own before the root's last look (the end of
        ``spider_closed``'s wait) — and the colony's object for ``memory://``, which lives only
        there (and holds nothing that its ``close`` releases)."""
        config = self.context.config
        if config.store.startswith("memory:"):
            return self.context.colony.store, False
        store = open_store(config.store, prefix=config.redis_prefix, retry=config.store_retry,
                           password_file=config.store_password_file)
        interrupt_stores_on_stop(store)
        return store, True

    async def _follow(self) -> None:
        while self.index is not None:
            more = self.tick()
            await asyncio.sleep(CATCH_UP if more else self.interval)

    def tick(self, limit: int = INDEX_BATCH) -> bool:
        """Index ``limit`` of the store's new documents at most; True when that many were read
        (more may be waiting)."""
        if self.index is None:
            return False
        try:
            before = self.index.position
            self._count(self.index.follow(self.store, batch=limit, limit=limit))
            return self.index.position - before >= limit
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                self._fail(exc)
                return False
            # another process is writing the index: this tick's turn passes
            self.crawler.stats.inc_value("newsforagers/index/busy")
            return False
        except Exception as exc:
            self._fail(exc)
            return False

    def _count(self, added: int) -> None:
        if added:
            self.added += added
            self.crawler.stats.inc_value("newsforagers/index/documents", added)

    def spider_closed(self, spider) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self.index is None:
            return
        # The root closes last: every other forager has ended and been paid by now. The crawl is
        # over, so the rest goes in at once, waiting for another writer as long as it takes.
        self.index.close()
        self.index = DocumentIndex(self.path, timeout=LAST_LOOK_TIMEOUT)
        try:
            self._count(self.index.follow(self.store, batch=10 * INDEX_BATCH))
        except Exception as exc:
            self._fail(exc)
            return
        logger.info("index: %d document(s) indexed this run into %s (%d in the index)",
                    self.added, self.path, self.index.count())
        self._close()

    def _fail(self, exc: Exception) -> None:
        expected = isinstance(exc, (IndexBroken, sqlite3.Error, OSError))
        # (an IndexBroken names the file itself)
        what = str(exc) if isinstance(exc, IndexBroken) else f"cannot keep the colony's search index {self.path}: {exc}"
        logger.error("index: %s; the crawl goes on without indexing (FORAGERS_INDEX=off turns it off)",
                     what, exc_info=not expected)
        self.crawler.stats.set_value("newsforagers/index/failed", 1)
        self._close()

    def _close(self) -> None:
        if self.index is not None:
            self.index.close()
            self.index = None
        if self._own_store and self.store is not None:
            self.store.close()
        self.store = None
