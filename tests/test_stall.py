"""The one stall detector (driver/stall.py) and the papers' driver's step barrier built on it."""

from types import SimpleNamespace

import pytest
from scrapy import Request

from newsforagers.driver.stall import DROPPED_AFTER, StallWatch
from newsforagers.scrapy_access import FORAGER_META
from tests.test_forager import make


def _crawler():
    """A crawler whose engine's downloader holds the requests in ``active``."""
    active: set = set()
    engine = SimpleNamespace(scraper=SimpleNamespace(slot=None), downloader=SimpleNamespace(active=active))
    return SimpleNamespace(engine=engine), active


def _watch(limit=30.0):
    crawler, active = _crawler()
    now = [100.0]
    watch = StallWatch(crawler, limit, clock=lambda: now[0])
    watch.restart(2)
    return watch, active, now


def test_a_wait_that_moves_never_times_out_and_one_that_does_not_does_after_the_limit():
    watch, active, now = _watch()
    active.add(Request("http://s/a", meta={FORAGER_META: "probe"}))
    now[0] += 20.0
    assert watch.check(2) == (None, pytest.approx(10.0))  # 30 s from the start, 10 left
    now[0] += 9.0
    assert watch.check(1) == (None, pytest.approx(30.0))  # an answer came: the clock starts again
    now[0] += 29.0
    assert watch.check(1)[0] is None
    now[0] += 2.0
    assert watch.check(1) == ("timeout", 0.0)
    assert watch.check(1) == (None, pytest.approx(30.0))  # the watch started again


def test_requests_gone_from_scrapy_count_as_dropped_after_the_margin():
    watch, active, now = _watch()
    active.add(Request("http://s/other"))  # not a forager's request: it does not count
    assert watch.check(2) == (None, pytest.approx(DROPPED_AFTER))
    now[0] += DROPPED_AFTER / 2
    assert watch.check(2) == (None, pytest.approx(DROPPED_AFTER / 2))
    active.add(Request("http://s/a", meta={FORAGER_META: "probe"}))  # seen again: not missing
    now[0] += DROPPED_AFTER
    assert watch.check(2)[0] is None
    active.clear()
    assert watch.check(2)[0] is None  # missing from now on
    now[0] += DROPPED_AFTER
    assert watch.check(2) == ("dropped", 0.0)


def test_without_an_engine_nothing_counts_as_dropped():
    now = [0.0]
    watch = StallWatch(SimpleNamespace(), 5.0, clock=lambda: now[0])
    watch.restart(1)
    now[0] += 4.0
    assert watch.check(1) == (None, pytest.approx(1.0))
    now[0] += 1.5
    assert watch.check(1)[0] == "timeout"


def _paper_driver(step_timeout=30.0):
    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    from newsforagers.driver import PaperDriver

    crawler = get_crawler(Spider)
    engine_crawler, active = _crawler()
    crawler.engine = engine_crawler.engine
    spider = Spider("s")
    spider.make_request = lambda url, kind, path, step, fresh=False: Request(url, meta={FORAGER_META: kind})
    driver = PaperDriver(crawler, spider, make(), step_timeout)
    driver._restored = True
    driver._wake_in = lambda delay: None
    now = [1000.0]
    driver.stall.clock = lambda: now[0]
    return driver, active, now


def test_the_papers_barrier_holds_for_its_probes_and_a_dropped_probe_fails_at_once():
    driver, active, now = _paper_driver()
    step = driver.next_step_request()
    assert step.url == "http://s/"
    active.add(step)
    assert driver.next_step_request() is None  # the step page is downloading
    active.clear()
    probes = driver.step_page("http://s/", "c0 home", ["http://a/", "http://b/"])
    assert probes == ["http://a/", "http://b/"]
    active.add(Request("http://a/", meta={FORAGER_META: "probe"}))
    now[0] += 25.0
    assert driver.next_step_request() is None  # both probes still awaited, a in the downloader
    active.clear()
    driver.probe_page("http://a/", "c1 news", None)
    assert driver.next_step_request() is None  # b is nowhere in Scrapy: not yet for long
    now[0] += DROPPED_AFTER
    assert driver.next_step_request().url == "http://a/"  # b dropped: the next step, at once
    assert driver.crawler.stats.get_value("newsforagers/step/abandoned/dropped") == 1
    assert driver.mind.counters.probe_failures == 1


def test_the_papers_barrier_times_out_on_a_page_never_answered():
    driver, active, now = _paper_driver(step_timeout=10.0)
    step = driver.next_step_request()
    active.add(step)  # stalled in the downloader
    now[0] += 9.0
    assert driver.next_step_request() is None
    now[0] += 2.0
    again = driver.next_step_request()  # the step page failed; the walk goes on at once
    assert driver.crawler.stats.get_value("newsforagers/step/abandoned/timeout") == 1
    assert again is not None and driver.mind.counters.steps == 2
