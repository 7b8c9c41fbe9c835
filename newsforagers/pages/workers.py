"""Paid documents read as structured documents in a worker process, beside the crawl's thread.

A crawl process is one thread of Python: Scrapy's engine, the downloads' callbacks, every page
the foragers read and every decision they make share one core. Reading a paid document as a
structured document (:func:`~newsforagers.pages.document.structured_document`: trafilatura's
cascade of extractors over the page's tree) is about a quarter of that thread's work on a busy
crawl (a profile of the throughput bench at 100 requests a second: trafilatura 20 %, the rest
of the structured document 3 %; docs/benchmarks.md, *Documents read in a worker process*), and
while one page is read no other host's answer is. :class:`DocumentWorkers` hands that reading
to ``workers`` processes of their own (``FORAGERS_DOCUMENT_WORKERS``) and awaits it on the
crawl's asyncio loop: the crawl's thread goes on with the other hosts meanwhile, and a second
core does the reading.

Bounded like the rest of a page's reading: a document that no worker has read within
``timeout`` seconds (a page that makes trafilatura walk for minutes, a worker that died) is
given up (:class:`DocumentTimeout`): the workers are stopped and started again for the next
one, and the document goes without its structured fields, as a page trafilatura finds no main
text in does. Workers are started with ``spawn`` (a fresh interpreter: a fork of a process with
threads can inherit a lock held by another thread) and read only: no store, no network.
Nothing here is Scrapy's: the caller (the reinforcing agent) runs on Scrapy's asyncio loop.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing

from newsforagers.logs import set_library_log_level
from newsforagers.pages.document import StructuredDocument, structured_document

logger = logging.getLogger(__name__)

#: Seconds a document may wait for a worker's reading before it is given up. trafilatura reads a
#: news article in 3-5 ms and a page bounded at ``DOCUMENT_ELEMENTS`` in well under a second
#: (measured here); the first reading waits for the worker's start (about a second, more on a
#: loaded machine).
DOCUMENT_SECONDS = 60.0


class DocumentTimeout(Exception):
    """No worker read the document within the timeout: it goes without its structured fields."""


def _start_worker(library_log_level: str) -> None:
    """A worker's start: the page-reading libraries log at the crawl's level
    (``FORAGERS_LIBRARY_LOG_LEVEL``), to the crawl's standard error."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("document worker: %(name)s %(levelname)s: %(message)s"))
    logging.getLogger().addHandler(handler)
    set_library_log_level(library_log_level)


class DocumentWorkers:
    """``workers`` processes reading paid documents (:func:`structured_document`), started at
    the first :meth:`start` or :meth:`read`; one set a crawl process (its colony's)."""

    def __init__(self, workers: int, timeout: float = DOCUMENT_SECONDS, library_log_level: str = "INFO"):
        if workers < 1:
            raise ValueError(f"workers = {workers!r}: at least 1")
        if not timeout > 0:
            raise ValueError(f"timeout = {timeout!r}: > 0 seconds")
        self.workers = workers
        self.timeout = timeout
        self.library_log_level = library_log_level
        self.restarts = 0  # times the workers were stopped over a document that timed out
        self._pool = None
        self._pending: set[asyncio.Future] = set()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def start(self) -> None:
        """Start the workers now (their start-up, about a second, then overlaps the crawl's)."""
        if not self._closed:
            self._workers()

    def _workers(self):
        """The pool, started when first needed. A machine where no worker can start (no
        semaphores: a container without ``/dev/shm``; no process left to fork) is said once,
        and the workers are closed: their documents are read by their callers."""
        if self._pool is None and not self._closed:
            try:
                context = multiprocessing.get_context("spawn")
                self._pool = context.Pool(self.workers, initializer=_start_worker,
                                          initargs=(self.library_log_level,))
            except (OSError, ImportError, ValueError) as exc:
                logger.warning("document workers cannot start (%s: %s): paid documents are read in "
                               "the crawl's thread (FORAGERS_DOCUMENT_WORKERS = 0 says so without "
                               "trying)", type(exc).__name__, exc)
                self.close()
        return self._pool

    async def read(self, html: str, url: str, max_text: int = 0,
                   language: str | None = None) -> StructuredDocument | None:
        """``structured_document(html, url, max_text, language)`` read by a worker, awaited on
        the running asyncio loop. None when no worker can take it (closed; stopped while it
        waited): the caller reads it itself. Raises :class:`DocumentTimeout` when it was not read
        within the timeout, and what the reading raised in the worker."""
        if self._closed:
            return None
        loop = asyncio.get_running_loop()
        answer: asyncio.Future = loop.create_future()

        def settle(value=None, error: BaseException | None = None) -> None:
            # (called in the pool's result thread: handed to the loop's thread)
            try:
                loop.call_soon_threadsafe(_settle, answer, value, error)
            except RuntimeError:  # the loop is closed: nobody waits any more
                pass

        pool = self._workers()
        if pool is None:  # none could start
            return None
        try:
            pool.apply_async(structured_document, (html, url, max_text, language),
                             callback=settle, error_callback=lambda error: settle(None, error))
        except ValueError:  # the pool was stopped meanwhile
            return None
        self._pending.add(answer)
        try:
            return await asyncio.wait_for(asyncio.shield(answer), self.timeout)
        except asyncio.TimeoutError:
            self._stop_workers()
            raise DocumentTimeout(f"no document worker read {url} within {self.timeout:g} s") from None
        finally:
            self._pending.discard(answer)

    def _stop_workers(self) -> None:
        """Stop the workers (one of them is stuck on a page, or the colony ends): what they were
        still to read is answered None (read by its caller); the next read starts new ones."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.terminate()
            self.restarts += not self._closed
        for answer in list(self._pending):
            _settle(answer, None, None)

    def close(self) -> None:
        """Stop the workers for good (the colony's end); reads after it answer None."""
        if not self._closed:
            self._closed = True
            self._stop_workers()


def _settle(answer: asyncio.Future, value, error: BaseException | None) -> None:
    if answer.done():
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(value)


__all__ = ["DOCUMENT_SECONDS", "DocumentTimeout", "DocumentWorkers"]
