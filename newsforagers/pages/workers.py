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
core does the reading. The same kind of workers fit the foragers' state encoders
(:meth:`DocumentWorkers.call`, the colony's ``fits``: a second or two of CPU a fit, which on a
thread of the crawl process held the interpreter, and every host waited meanwhile).

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
import importlib
import logging
import multiprocessing
import os
from typing import Any, Callable

from newsforagers.logs import set_library_log_level
from newsforagers.pages.document import StructuredDocument, structured_document

logger = logging.getLogger(__name__)

#: Seconds a document may wait for a worker's reading before it is given up. trafilatura reads a
#: news article in 3-5 ms and a page bounded at ``DOCUMENT_ELEMENTS`` in well under a second
#: (measured here); the first reading waits for the worker's start (about a second, more on a
#: loaded machine).
DOCUMENT_SECONDS = 60.0
#: Seconds a forager's state encoder fit may take in a worker before it is given up (and
#: postponed, as a fit on too few texts is). The bootstrap's fit of 500 pages takes 1-2 s of
#: CPU, the worker's first one a second more to import scikit-learn.
FIT_SECONDS = 300.0
#: Seconds the fits' worker stays up with nothing to fit. A forager fits its encoder once, after
#: its first ``FORAGERS_BOOTSTRAP_PAGES`` pages: the first foragers' fits come together, a
#: newborn's now and then. The worker (about 140 MB of RSS with scikit-learn) is stopped once
#: idle this long, and started again (a second or two, in its own process) when a forager that
#: will fit is born, or by the next fit.
FIT_IDLE_SECONDS = 60.0


class WorkerTimeout(Exception):
    """No worker answered a call within the timeout."""


class DocumentTimeout(WorkerTimeout):
    """No worker read the document within the timeout: it goes without its structured fields."""


#: How much lower than the crawl's the workers' CPU priority is (``os.nice``): on a machine
#: whose cores are all busy, the crawl's thread — every host's next request — goes first, and
#: the workers read and fit with what it leaves. (A precaution: on the throughput bench's 2
#: cores, where the workers use a fifth of the second core, it was not measured on its own.)
WORKER_NICENESS = 10


def _start_worker(library_log_level: str, preload: tuple[str, ...] = ()) -> None:
    """A worker's start: a lower CPU priority than the crawl's (:data:`WORKER_NICENESS`), the
    page-reading libraries log at the crawl's level (``FORAGERS_LIBRARY_LOG_LEVEL``), to the
    crawl's standard error, and the modules of ``preload`` imported (before the first call)."""
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # (no nice on this platform: the same priority)
        pass
    for module in preload:
        importlib.import_module(module)
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("document worker: %(name)s %(levelname)s: %(message)s"))
    logging.getLogger().addHandler(handler)
    set_library_log_level(library_log_level)


class DocumentWorkers:
    """``workers`` processes reading paid documents (:func:`structured_document`) or running
    other calls (:meth:`call`), started at the first :meth:`start`, :meth:`read` or
    :meth:`call`, each importing the modules of ``preload`` as it starts; one set a crawl
    process (its colony's). With ``idle_seconds`` (> 0), stopped once that long without a
    call, and started again by the next (``idle_stops`` counts it)."""

    def __init__(self, workers: int, timeout: float = DOCUMENT_SECONDS, library_log_level: str = "INFO",
                 preload: tuple[str, ...] = (), idle_seconds: float = 0.0):
        if workers < 1:
            raise ValueError(f"workers = {workers!r}: at least 1")
        if not timeout > 0:
            raise ValueError(f"timeout = {timeout!r}: > 0 seconds")
        if idle_seconds < 0:
            raise ValueError(f"idle_seconds = {idle_seconds!r}: >= 0 seconds (0: never stopped idle)")
        self.idle_seconds = idle_seconds
        self.idle_stops = 0  # times the workers were stopped for having nothing to do
        self._idle_watch: asyncio.TimerHandle | None = None
        self.workers = workers
        self.timeout = timeout
        self.library_log_level = library_log_level
        self.preload = tuple(preload)  # modules each worker imports as it starts
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
            if self._idle_watch is None and not self._pending:  # (a call's end re-arms it)
                self._watch_idle()

    def _watch_idle(self) -> None:
        """(With ``idle_seconds``.) Stop the workers if no call comes within ``idle_seconds``
        from now (the last call's end, or the start); outside a running asyncio loop, from the
        next call's end."""
        self._unwatch_idle()
        if self.idle_seconds <= 0 or self._closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._idle_watch = loop.call_later(self.idle_seconds, self._stop_idle)

    def _unwatch_idle(self) -> None:
        if self._idle_watch is not None:
            self._idle_watch.cancel()
            self._idle_watch = None

    def _stop_idle(self) -> None:
        self._idle_watch = None
        if self._pending or self._pool is None or self._closed:
            return
        pool, self._pool = self._pool, None
        pool.terminate()
        self.idle_stops += 1
        logger.debug("workers stopped after %g s without a call; the next call starts them again",
                     self.idle_seconds)

    def _workers(self):
        """The pool, started when first needed. A machine where no worker can start (no
        semaphores: a container without ``/dev/shm``; no process left to fork) is said once,
        and the workers are closed: their documents are read by their callers."""
        if self._pool is None and not self._closed:
            try:
                context = multiprocessing.get_context("spawn")
                self._pool = context.Pool(self.workers, initializer=_start_worker,
                                          initargs=(self.library_log_level, self.preload))
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
        try:
            return await self.call(structured_document, html, url, max_text, language)
        except WorkerTimeout:
            raise DocumentTimeout(f"no document worker read {url} within {self.timeout:g} s") from None

    async def call(self, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` run by a worker (both picklable: a module's function, a
        ``functools.partial`` of one), awaited on the running asyncio loop. None when no worker
        can take it (closed; stopped while it waited): the caller runs it itself. Raises
        :class:`WorkerTimeout` when no worker answered within the timeout (the workers are
        stopped, and started again for the next call), and what ``function`` raised."""
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
            pool.apply_async(function, args, callback=settle, error_callback=lambda error: settle(None, error))
        except ValueError:  # the pool was stopped meanwhile
            return None
        self._pending.add(answer)
        self._unwatch_idle()  # busy: watched again when the last call ends
        try:
            return await asyncio.wait_for(asyncio.shield(answer), self.timeout)
        except asyncio.TimeoutError:
            self._stop_workers()
            raise WorkerTimeout(f"no worker answered {getattr(function, '__name__', 'a call')} "
                                f"within {self.timeout:g} s") from None
        finally:
            self._pending.discard(answer)
            if not self._pending:
                self._watch_idle()

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
            self._unwatch_idle()
            self._stop_workers()


def _settle(answer: asyncio.Future, value, error: BaseException | None) -> None:
    if answer.done():
        return
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(value)


__all__ = ["DOCUMENT_SECONDS", "FIT_IDLE_SECONDS", "FIT_SECONDS", "DocumentTimeout", "DocumentWorkers", "WorkerTimeout"]
