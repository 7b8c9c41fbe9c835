"""The scheduled forager under a scarce budget (issue 19): the listing visits the budget leaves
once the listings' stories are fetched, hand-computed, and what they change."""

from __future__ import annotations

import pytest

from newsforagers.strategies.scheduled import Fetch
from tests.test_scheduled import HOME, at, dated, make


def _paying(forager, rates):
    for url, rate in rates.items():
        forager.schedule.add(url, now=at(0), rate=rate)
        forager.schedule.entry(url).paid = 1


def test_the_visits_a_scarce_budget_leaves_after_the_stories():
    claimed: set[str] = set()
    forager = make(FORAGERS_EXPLORE_SHARE=0.1, FORAGERS_SCHEDULE_POLL_SHARE=0.3,
                   FORAGERS_SCHEDULE_SCARCE_FLOOR=0.1, claimed=claimed)
    assert forager._scarce_rate(at(0)) is None  # no budget known: nothing raised
    forager.poll_rate = 30.0  # 0.3 of 100 requests an hour
    _paying(forager, {"http://s/a/": 40.0, "http://s/b/": 20.0})
    # 100·(1 − 0.1) − (40 + 20) = 30 visits an hour
    assert forager._scarce_rate(at(0)) == pytest.approx(30.0)
    # the stories the forager met say more: 420 published in the last 6 hours, 70 an hour
    # (a story two listings date is one story; one dated 7 hours ago is not counted)
    # (another forager claimed them first: the home page's first visit takes no rate from
    # its dates, which would be 70 an hour of its own)
    stories = {HOME + f"s{i}/": dated(i * 360 / 420, at(0)) for i in range(420)}
    claimed.update(stories)
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=list(stories), published=None, listed=stories)
    forager.on_page(Fetch(HOME + "b/", "harvest"), at(0), text="c1", links=[], published=None,
                    listed={HOME + "s1/": stories[HOME + "s1/"], HOME + "s7h/": dated(420, at(0))})
    assert forager._stories_per_hour(at(0)) == pytest.approx(70.0)
    assert forager._scarce_rate(at(0)) == pytest.approx(90.0 - 70.0)
    _paying(forager, {"http://s/c/": 50.0})  # credited rates say more: 110 an hour
    # more stories than requests: the floor, 0.1 of the budget
    assert forager._scarce_rate(at(0)) == pytest.approx(10.0)
    off = make()  # the default: off
    off.poll_rate = 30.0
    assert off._scarce_rate(at(0)) is None


def test_a_scarce_budget_holds_back_visits_a_plentiful_one_makes():
    def forager_with(poll_rate):
        forager = make(FORAGERS_SCHEDULE_POLL_SHARE=0.3, FORAGERS_SCHEDULE_SCARCE_FLOOR=0.1)
        forager.schedule.remove(HOME)
        forager.poll_rate = poll_rate
        _paying(forager, {"http://s/a/": 4.0, "http://s/b/": 1.0})
        return forager

    # 10 minutes after the last visits: A holds 4·(1/6)²/2 = 0.056 document-hours; the
    # configured threshold (0.07) is lowered by a budget of 300 visits an hour to
    # (√4 + √1)²/(2·300²) ≈ 0.00005: A is due
    plentiful = forager_with(300.0)
    assert plentiful.next_fetch(at(10)).url == "http://s/a/"
    # 6 requests an hour in all (poll rate 1.8 at a share of 0.3): 6 − (4 + 1) = 1 visit an
    # hour is left (above the floor, 0.1·6), which raises the threshold to 3²/2 = 4.5
    # document-hours: nothing is due until A holds that much, at 1.5 hours
    scarce = forager_with(1.8)
    assert scarce.next_fetch(at(10)) is None
    assert scarce.wait == pytest.approx(1.5 * 3600 - 600)


def test_the_backlog_waits_while_a_listing_is_due_news_does_not():

    forager = make(FORAGERS_SCHEDULE_MIN_INTERVAL=60.0, FORAGERS_SCHEDULE_THRESHOLD=0.0)
    visit = forager.next_fetch(at(0))  # the forager begins at minute 0
    old, news, undated = HOME + "old/", HOME + "news/", HOME + "undated/"
    # (news: dated since the forager began; the backlog waits for due listings when it is
    # more than three hours old)
    forager.on_page(visit, at(0), text="c1", links=[old, news, undated], published=None,
                    listed={old: dated(200, at(0)), news: dated(-1, at(0))})
    # the home page is not due before a minute has passed: news, then what no listing dates,
    # then the backlog
    assert [forager.next_fetch(at(0.5)).url for _ in range(2)] == [news, undated]
    # a minute on, the home page is due again: it goes before the backlog
    revisit = forager.next_fetch(at(2))
    assert revisit.kind == "listing" and forager.counters.deferred == 1
    forager.on_page(revisit, at(2), text="c1", links=[old], published=None, listed={old: dated(202, at(2))})
    assert forager.next_fetch(at(2.5)).url == old  # nothing due: the backlog's turn


def test_the_backlog_goes_first_when_it_would_otherwise_come_too_late():

    # (no yield a visit must expect: the home page, which has paid nothing yet, is due after
    # its minute)
    forager = make(FORAGERS_SCHEDULE_MIN_INTERVAL=60.0, FORAGERS_SCHEDULE_THRESHOLD=0.0,
                   FORAGERS_SCHEDULE_POLL_SHARE=0.3, FORAGERS_SCHEDULE_POLL_YIELD=0)
    forager.poll_rate = 30.0  # 100 requests an hour: one each 36 simulated seconds
    visit = forager.next_fetch(at(0))
    stories = [HOME + f"s{i}/" for i in range(10)]
    # the oldest story leaves the novelty window (24 h) at minute 14 + 2
    listed = {url: dated(24 * 60 - 14 - i, at(0)) for i, url in enumerate(stories)}
    forager.on_page(visit, at(0), text="c1", links=stories, published=None, listed=listed)
    assert not forager._backlog_urgent(at(1))  # 10 stories · 36 s · 2 = 12 minutes: 1 + 12 < 14
    assert forager.next_fetch(at(1)).kind == "listing"
    forager.on_not_modified(Fetch(HOME, "listing", 2), at(1))
    assert forager._backlog_urgent(at(3))  # 3 + 12 ≥ 14: the backlog goes now
    assert forager.next_fetch(at(3)).kind == "harvest"
