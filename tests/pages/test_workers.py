"""Paid documents read by a worker process (:mod:`newsforagers.pages.workers`): the same
structured document as one read in the crawl's thread, a page no worker reads in time given up
and the workers started again, reads after the end answered None (read by their caller); a
forager's state encoder fitted by a worker as on a thread; workers below the crawl's priority."""

from __future__ import annotations

import asyncio
import functools
import os
import time

import pytest

from newsforagers.pages.document import structured_document
from newsforagers.pages.workers import WORKER_NICENESS, DocumentTimeout, DocumentWorkers, WorkerTimeout
from newsforagers.strategies.common import fit_state_encoder

PAGE = """<html lang="en"><head><title>Budget talks stall</title>
<meta name="description" content="What happened."><meta name="author" content="Lois Lane">
</head><body><nav><a href="/">Home</a> <a href="/world/">World</a></nav>
<article><h1>Budget talks stall</h1><p>Senators left Washington on Friday without a deal on the
budget, after three weeks of talks that both parties had called their last chance before the
holidays.</p></article><aside>More from Daily Planet</aside></body></html>"""


def test_a_worker_reads_the_document_the_crawl_s_thread_would():
    async def main():
        workers = DocumentWorkers(1)
        try:
            return await asyncio.gather(workers.read(PAGE, "http://s/a", 0, None),
                                        workers.read(PAGE, "http://s/b", 40, "fr"))
        finally:
            workers.close()

    whole, capped = asyncio.run(main())
    assert whole == structured_document(PAGE, "http://s/a")
    assert whole.language == "en" and whole.text.startswith("Budget talks stall\nSenators left")
    # the cap on the text, and a language the forager told (not told again), go to the worker
    assert capped == structured_document(PAGE, "http://s/b", 40, "fr") and capped.language == "fr"
    assert len(capped.text) == 40


def test_a_document_not_read_in_time_is_given_up_and_the_workers_start_again():
    async def main():
        workers = DocumentWorkers(1, timeout=0.001)  # less than a worker takes to start
        try:
            with pytest.raises(DocumentTimeout, match="http://s/slow"):
                await workers.read(PAGE, "http://s/slow")
            assert workers.restarts == 1
            workers.timeout = 60.0
            return await workers.read(PAGE, "http://s/next")  # new workers read it
        finally:
            workers.close()

    assert asyncio.run(main()).title == "Budget talks stall"


def test_reads_waiting_when_the_workers_end_are_answered_none_and_none_are_taken_after():
    async def main():
        workers = DocumentWorkers(1)
        waiting = asyncio.ensure_future(workers.read(PAGE, "http://s/a"))
        await asyncio.sleep(0)  # handed to the pool, not read yet (the worker is starting)
        began = time.monotonic()
        workers.close()
        answered = await waiting
        return answered, time.monotonic() - began, await workers.read(PAGE, "http://s/b"), workers.closed

    answered, waited, after, closed = asyncio.run(main())
    assert answered is None and waited < 10 and after is None and closed


def test_a_reading_that_fails_in_the_worker_fails_its_caller():
    async def main():
        workers = DocumentWorkers(1)
        try:
            return await workers.read(PAGE, "http://s/a", "not a number")  # max_text > 0 fails
        finally:
            workers.close()

    with pytest.raises(TypeError):
        asyncio.run(main())


@pytest.mark.parametrize("workers, timeout", [(0, 1.0), (1, 0.0)])
def test_bad_workers_are_refused(workers, timeout):
    with pytest.raises(ValueError):
        DocumentWorkers(workers, timeout)


def test_workers_that_cannot_start_are_said_once_and_their_documents_read_by_the_caller(monkeypatch, caplog):
    import multiprocessing

    class NoSemaphores:
        def Pool(self, *args, **kwargs):  # noqa: N802 (multiprocessing's name)
            raise OSError(38, "Function not implemented")

    monkeypatch.setattr(multiprocessing, "get_context", lambda method: NoSemaphores())

    async def main():
        workers = DocumentWorkers(1)
        workers.start()
        return await workers.read(PAGE, "http://s/a"), await workers.read(PAGE, "http://s/b"), workers.closed

    with caplog.at_level("WARNING", logger="newsforagers.pages.workers"):
        first, second, closed = asyncio.run(main())
    assert first is None and second is None and closed
    assert [r.getMessage() for r in caplog.records].count(
        "document workers cannot start (OSError: [Errno 38] Function not implemented): paid documents are "
        "read in the crawl's thread (FORAGERS_DOCUMENT_WORKERS = 0 says so without trying)") == 1


def _texts() -> list[str]:
    words = {"space": "rocket orbit satellite launch astronaut planet comet telescope",
             "cooking": "recipe flour oven butter garlic simmer roast pastry",
             "football": "goal striker referee penalty stadium midfield keeper league"}
    texts = []
    for topic, vocabulary in words.items():
        vocabulary = vocabulary.split()
        for i in range(8):
            texts.append(" ".join(vocabulary[(i + j) % len(vocabulary)] for j in range(6)) + f" {topic} news")
    return texts


def test_a_worker_fits_the_state_encoder_a_thread_would():
    texts = _texts()
    fit = functools.partial(fit_state_encoder, n_clusters=3, tanh_scale=1.0, tanh_offset=0.0, random_state=0)

    async def main():
        workers = DocumentWorkers(1)
        try:
            return await workers.call(fit, texts)
        finally:
            workers.close()

    in_worker, here = asyncio.run(main()), fit(texts)
    assert in_worker.n_clusters_ == here.n_clusters_ == 3
    assert (in_worker.transform(texts) == here.transform(texts)).all()
    assert in_worker.transform(["rocket orbit launch"]).tolist() == here.transform(["rocket orbit launch"]).tolist()


def test_workers_run_below_the_crawl_s_priority_and_a_call_not_answered_in_time_is_given_up():
    async def main():
        workers = DocumentWorkers(1)
        try:
            niceness = await workers.call(os.nice, 0)  # (os.nice(0): the caller's niceness)
            workers.timeout = 0.2
            with pytest.raises(WorkerTimeout, match="sleep within 0.2 s"):
                await workers.call(time.sleep, 5)
            return niceness, workers.restarts
        finally:
            workers.close()

    niceness, restarts = asyncio.run(main())
    assert niceness == min(19, os.nice(0) + WORKER_NICENESS) and restarts == 1


def test_idle_workers_are_stopped_and_the_next_call_starts_them_again():
    async def main():
        workers = DocumentWorkers(1, idle_seconds=0.5)
        try:
            workers.start()
            first = await workers.call(os.getpid)
            await asyncio.sleep(0.2)  # a call ends: idle from there, not from the start
            second = await workers.call(os.getpid)
            await asyncio.sleep(0.3)
            up = workers._pool is not None  # 0.3 s idle
            await asyncio.sleep(0.5)
            stopped = workers._pool is None
            third = await workers.call(os.getpid)  # a new worker
            return first, second, third, up, stopped, workers.idle_stops, workers.restarts
        finally:
            workers.close()

    first, second, third, up, stopped, idle_stops, restarts = asyncio.run(main())
    assert first == second != third and up and stopped
    assert idle_stops == 1 and restarts == 0  # (a stop for idleness is no restart over a timeout)
