"""ForagerScheduler with an ordinary spider: Scrapy's scheduler, request for request.

Each scheduler is built the way Scrapy's engine builds it (``from_crawler`` on a crawler from
``scrapy.utils.test.get_crawler``) and opened with a plain ``scrapy.Spider``. Scrapy's default
priority queue (``DownloaderAwarePriorityQueue``) asks the engine's downloader for the slot of a
request and how busy it is; no crawl runs here, so the crawler gets a stand-in engine whose
downloader has no active download. That queue orders by priority within a slot (a host) and
takes turns between slots, so the order checks use one host, and the comparison with Scrapy's
own scheduler uses several. No reactor is needed.
"""

from __future__ import annotations

import pickle
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from scrapy import Request, Spider
from scrapy.core.scheduler import Scheduler
from scrapy.utils.test import get_crawler

from newsforagers.scheduler import ForagerScheduler
from newsforagers.scrapy_access import FORAGER_META

PRIORITY_QUEUES = ("scrapy.pqueues.DownloaderAwarePriorityQueue",  # Scrapy's default
                   "scrapy.pqueues.ScrapyPriorityQueue")


class IdleDownloader:
    """What DownloaderAwarePriorityQueue reads of the downloader: slot keys and activity."""

    def __init__(self):
        self.slots = {}

    def get_slot_key(self, request):
        return urlsplit(request.url).hostname or ""


def build(scheduler_cls=ForagerScheduler, spider_cls=Spider, **settings):
    crawler = get_crawler(spider_cls, settings)
    crawler.engine = SimpleNamespace(downloader=IdleDownloader())
    scheduler = scheduler_cls.from_crawler(crawler)
    spider = spider_cls.from_crawler(crawler, name="plain")
    assert scheduler.open(spider) is None
    return scheduler


def drain(scheduler, with_misses=False):
    """Everything pending, in the order handed out. Scrapy's scheduler may answer None while
    requests are pending (the engine asks again later): allowed a few times in a row, and
    kept in the result as None with ``with_misses``."""
    out, misses = [], 0
    while scheduler.has_pending_requests():
        request = scheduler.next_request()
        if request is None:
            misses += 1
            assert misses <= 3, "pending requests that next_request never hands out"
            if with_misses:
                out.append(None)
            continue
        misses = 0
        out.append(request)
    assert scheduler.next_request() is None
    return out


@pytest.fixture(params=PRIORITY_QUEUES, ids=lambda p: p.rsplit(".", 1)[1])
def pqueue(request):
    return request.param


def test_built_by_from_crawler_with_the_crawler_settings(pqueue, tmp_path):
    scheduler = build(SCHEDULER_PRIORITY_QUEUE=pqueue, JOBDIR=str(tmp_path))
    assert isinstance(scheduler, Scheduler)
    assert scheduler.crawler is not None and scheduler.stats is scheduler.crawler.stats
    assert scheduler.pqclass.__name__ == pqueue.rsplit(".", 1)[1]
    assert scheduler.forager_driver is None  # a plain spider has no forager
    assert scheduler.dqs is not None
    scheduler.close("finished")


def test_empty_scheduler(pqueue):
    scheduler = build(SCHEDULER_PRIORITY_QUEUE=pqueue)
    assert not scheduler.has_pending_requests()
    assert len(scheduler) == 0
    assert scheduler.next_request() is None
    scheduler.close("finished")


def test_priority_order_and_len(pqueue):
    scheduler = build(SCHEDULER_PRIORITY_QUEUE=pqueue)
    priorities = [3, -5, 0, 10, -1, 7, 0, 2]
    for number, priority in enumerate(priorities):
        assert scheduler.enqueue_request(
            Request(f"https://site.example/page{number}", priority=priority))
        assert len(scheduler) == number + 1
        assert scheduler.has_pending_requests()
    dequeued = drain(scheduler)
    assert [r.priority for r in dequeued] == sorted(priorities, reverse=True)
    assert len(scheduler) == 0 and not scheduler.has_pending_requests()
    stats = scheduler.stats
    assert stats.get_value("scheduler/enqueued") == len(priorities)
    assert stats.get_value("scheduler/dequeued") == len(priorities)
    assert stats.get_value("scheduler/enqueued/memory") == len(priorities)
    scheduler.close("finished")


def test_dupefilter_drops_a_seen_request_unless_dont_filter(pqueue):
    scheduler = build(SCHEDULER_PRIORITY_QUEUE=pqueue)
    assert scheduler.enqueue_request(Request("https://a.example/x"))
    assert not scheduler.enqueue_request(Request("https://a.example/x"))
    assert not scheduler.enqueue_request(Request("https://a.example/x", priority=9))
    assert scheduler.enqueue_request(Request("https://a.example/x", dont_filter=True))
    assert scheduler.enqueue_request(Request("https://a.example/y"))
    assert len(scheduler) == 3
    assert scheduler.stats.get_value("dupefilter/filtered") == 2
    assert sorted(r.url for r in drain(scheduler)) == [
        "https://a.example/x", "https://a.example/x", "https://a.example/y"]
    # still seen once it has left the queue
    assert not scheduler.enqueue_request(Request("https://a.example/y"))
    scheduler.close("finished")


def test_forager_meta_is_ordinary_without_a_forager_spider(pqueue):
    """With a plain spider, even requests carrying forager meta take Scrapy's path."""
    scheduler = build(SCHEDULER_PRIORITY_QUEUE=pqueue)
    low = Request("https://a.example/probe", priority=-3, meta={FORAGER_META: "probe"})
    high = Request("https://a.example/page", priority=4)
    assert scheduler.enqueue_request(low)
    assert not scheduler.enqueue_request(Request("https://a.example/probe",
                                                 meta={FORAGER_META: "step"}))
    assert scheduler.enqueue_request(high)
    assert [r.url for r in drain(scheduler)] == [high.url, low.url]
    assert scheduler.stats.get_value("newsforagers/scheduler/enqueued") is None
    scheduler.close("finished")


def _mixed_requests():
    """Priorities with ties, several hosts, start requests (their own queue in Scrapy),
    duplicates and dont_filter copies."""
    requests = []
    for number in range(40):
        requests.append(Request(
            f"https://host{number % 3}.example/p{number % 10}",
            priority=(number * 7) % 5 - 2,
            meta={"is_start_request": True} if number % 6 == 0 else {},
            dont_filter=number % 13 == 12,
        ))
    return requests


@pytest.mark.parametrize("jobdir", [False, True], ids=["memory", "jobdir"])
def test_same_decisions_and_order_as_scrapys_scheduler(pqueue, jobdir, tmp_path):
    """Fed the same requests, ForagerScheduler accepts, counts and hands them out exactly
    like scrapy.core.scheduler.Scheduler, through a close and reopen with a JOBDIR."""
    runs = {}
    for cls in (Scheduler, ForagerScheduler):
        settings = {"SCHEDULER_PRIORITY_QUEUE": pqueue}
        if jobdir:
            settings["JOBDIR"] = str(tmp_path / cls.__name__)
        scheduler = build(cls, **settings)
        accepted = [scheduler.enqueue_request(r) for r in _mixed_requests()]
        lengths = [len(scheduler)]
        if jobdir:
            scheduler.close("shutdown")
            scheduler = build(cls, **settings)
            lengths.append(len(scheduler))
        order = [r and (r.url, r.priority) for r in drain(scheduler, with_misses=True)]
        stats = {k: v for k, v in scheduler.stats.get_stats().items()
                 if k.startswith(("scheduler/", "dupefilter/"))}
        scheduler.close("finished")
        runs[cls] = accepted, lengths, order, stats
    assert runs[ForagerScheduler] == runs[Scheduler]
    accepted, lengths, order, _ = runs[ForagerScheduler]
    assert accepted.count(False) > 0
    assert len([r for r in order if r is not None]) == accepted.count(True)


def test_jobdir_close_and_reopen_round_trip(pqueue, tmp_path):
    settings = {"SCHEDULER_PRIORITY_QUEUE": pqueue, "JOBDIR": str(tmp_path)}
    first = build(**settings)
    urls = {f"https://h.example/{n}": n - 4 for n in range(9)}
    for url, priority in urls.items():
        assert first.enqueue_request(Request(url, priority=priority, meta={"n": priority}))
    taken = first.next_request()
    assert taken.priority == max(urls.values())
    assert first.stats.get_value("scheduler/enqueued/disk") == len(urls)
    first.close("shutdown")
    assert (tmp_path / "requests.seen").is_file()
    assert (tmp_path / "requests.queue").is_dir()

    second = build(**settings)
    assert second is not first
    assert second.has_pending_requests()
    assert len(second) == len(urls) - 1
    # the dupefilter remembers what the first run saw, the taken request included
    assert not second.enqueue_request(Request(taken.url))
    assert not second.enqueue_request(Request(next(iter(urls))))
    assert second.enqueue_request(Request("https://h.example/new", priority=100))
    assert len(second) == len(urls)
    restored = drain(second)
    assert restored[0].url == "https://h.example/new"
    rest = restored[1:]
    assert [r.priority for r in rest] == sorted((p for u, p in urls.items() if u != taken.url),
                                                reverse=True)
    assert {r.url: r.meta["n"] for r in rest} == {u: p for u, p in urls.items()
                                                  if u != taken.url}
    assert second.stats.get_value("scheduler/dequeued/disk") == len(urls)
    second.close("finished")

    third = build(**settings)  # everything was consumed before the last close
    assert not third.has_pending_requests() and len(third) == 0
    third.close("finished")


def test_unpicklable_request_falls_back_to_memory_with_a_jobdir(tmp_path):
    scheduler = build(JOBDIR=str(tmp_path))
    request = Request("https://a.example/", meta={"callable": lambda: None})
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(request.meta)
    assert scheduler.enqueue_request(request)
    assert scheduler.enqueue_request(Request("https://b.example/"))
    assert scheduler.stats.get_value("scheduler/enqueued/memory") == 1
    assert scheduler.stats.get_value("scheduler/enqueued/disk") == 1
    assert len(scheduler) == 2
    assert {r.url for r in drain(scheduler)} == {"https://a.example/", "https://b.example/"}
    scheduler.close("finished")
