"""The weblog run as a scheduler (issue 7): due order, the optimistic prior, the minimum
interval, the floor, barren URLs, idling, splits and persistence — hand-computed numbers."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest

from newsforagers.learning.schedule import HOUR, RECKONING, HubSchedule


def schedule(**kwargs) -> HubSchedule:
    options = dict(min_interval=60.0, max_interval=6 * HOUR, threshold=0.5, barren_after=3,
                   beta=0.3, window=24 * HOUR, priority="return")
    options.update(kwargs)
    return HubSchedule(**options)


def visit(s: HubSchedule, url: str, at: float, novel: int, new_links: int | None = None) -> None:
    """A visit whose page showed ``new_links`` new links, ``novel`` of them novel documents."""
    s.begin(url, at)
    s.visited(url, novel if new_links is None else new_links)
    s.credit(url, novel)


def test_never_visited_entries_go_first_in_the_order_they_came():
    s = schedule()
    for url in ("home", "a", "b"):
        s.add(url)
    visit(s, "home", 0.0, 5)
    assert s.next_due(10 * HOUR)[0] == "a"  # the optimistic prior beats any expected return
    visit(s, "a", 10 * HOUR, 0)
    assert s.next_due(10 * HOUR)[0] == "b"


def test_today_s_page_goes_before_the_other_listings_never_visited():
    # 2024-03-05 12:00 UTC; the home page's navigation in page order: two sections, then
    # today's archive, then yesterday's
    noon = 1_709_640_000.0
    s = schedule()
    urls = ["http://a/", "http://a/section/x/", "http://a/section/y/",
            "http://a/archive/2024/03/05/", "http://a/archive/2024/03/04/"]
    for url in urls:
        s.add(url)
    assert s.today_page(urls[3], noon) and not s.today_page(urls[1], noon)
    # the day a page names is the site's, of a time zone not known: UTC-12 to UTC+14
    assert s.today_page(urls[4], noon - 10 * HOUR)  # 02:00 UTC: still the 4th at UTC-3
    assert not s.today_page(urls[4], noon)  # 12:00 UTC on the 5th: the 4th is over everywhere
    assert s.today_page(urls[3], noon - 20 * HOUR)  # 16:00 UTC on the 4th: the 5th at UTC+9
    assert not s.today_page(urls[3], noon - 30 * HOUR)
    assert s.first_visit() == urls[0]  # without a time: the order they came
    assert s.first_visit(now=noon) == urls[3]
    assert s.first_visit(lambda host: False, noon) == urls[3]
    assert s.first_visit(lambda host: True, noon) is None
    visit(s, urls[0], noon, 5)
    assert s.next_due(noon + HOUR)[0] == urls[3]
    visit(s, urls[3], noon + HOUR, 3)
    # then the others in the order they came (yesterday's is not today's at noon)
    assert s.next_due(noon + HOUR)[0] == urls[1]
    assert s.first_visit(now=noon + HOUR) == urls[1]


def test_first_visit_rate_is_documents_per_novelty_window_then_beta_average():
    s = schedule()
    s.add("front")
    visit(s, "front", 0.0, 12)
    assert s.entry("front").rate == pytest.approx(12 / 24)  # 12 fresh documents a day: 0.5/h
    visit(s, "front", 2 * HOUR, 4)  # 4 in 2 hours: 2/h observed
    assert s.entry("front").rate == pytest.approx(0.7 * 0.5 + 0.3 * 2.0)


def test_credits_arriving_one_by_one_give_the_same_rate():
    s = schedule()
    s.add("front")
    visit(s, "front", 0.0, 12)
    s.begin("front", 2 * HOUR)
    s.visited("front", 4)
    assert s.entry("front").rate == pytest.approx(0.7 * 0.5)  # nothing credited yet
    for _ in range(4):
        s.credit("front")
    assert s.entry("front").rate == pytest.approx(0.7 * 0.5 + 0.3 * 2.0)
    assert s.entry("front").paid == 16


def test_the_highest_expected_return_is_due_first():
    s = schedule()
    for url in ("slow", "fast"):
        s.add(url)
    visit(s, "slow", 0.0, 24)  # 1/h
    visit(s, "fast", 1800.0, 96)  # 4/h, visited half an hour later
    # at 2 h: slow expects 2.0, fast expects 4 * 1.5 = 6.0
    assert s.next_due(2 * HOUR) == ("fast", 0.0)
    s.begin("fast", 2 * HOUR)
    assert s.next_due(2 * HOUR) == ("slow", 0.0)  # the one in flight is not chosen twice


def test_lag_priority_polls_in_proportion_to_the_square_root_of_the_rate():
    s = schedule(priority="lag", threshold=0.5, min_interval=0.0, max_interval=100 * HOUR)
    for url in ("slow", "fast"):
        s.add(url)
    visit(s, "slow", 0.0, 24)  # 1/h: 0.5 document-hours waiting after 1 h
    visit(s, "fast", 0.0, 96)  # 4/h: after 0.5 h
    assert s.next_due(0.0) == (None, pytest.approx(0.5 * HOUR))
    assert s.next_due(0.5 * HOUR)[0] == "fast"
    assert s.next_due(1.0 * HOUR)[0] == "fast"  # 2.0 waiting on fast against 0.5 on slow
    s.begin("fast", HOUR)
    assert s.next_due(HOUR)[0] == "slow"
    # intervals 1 h against 0.5 h: a 4-times faster listing is polled twice as often
    assert HubSchedule(priority="lag").priority == "lag"
    with pytest.raises(ValueError, match="priority"):
        HubSchedule(priority="soonest")


def test_minimum_interval_holds_even_for_a_rich_listing():
    s = schedule(min_interval=300.0)
    s.add("front")
    visit(s, "front", 0.0, 24 * 50)  # 50/h: 4 expected after 5 minutes, well past the threshold
    url, wait = s.next_due(100.0)
    assert url is None and wait == pytest.approx(200.0)
    assert s.next_due(300.0) == ("front", 0.0)


def test_nothing_due_means_idle_until_the_threshold_is_reached():
    s = schedule(threshold=0.5)
    s.add("front")
    visit(s, "front", 0.0, 24)  # 1/h: 0.5 expected after 30 minutes
    url, wait = s.next_due(600.0)
    assert url is None and wait == pytest.approx(1800.0 - 600.0)
    assert s.next_due(1800.0)[0] == "front"


def test_the_floor_visits_a_quiet_listing_and_quiet_visits_are_no_evidence():
    s = schedule(max_interval=2 * HOUR, barren_after=2)
    s.add("quiet")
    visit(s, "quiet", 0.0, 1)  # it paid once
    for hour in (2, 4, 6):
        visit(s, "quiet", hour * HOUR, 0, new_links=0)  # nothing new shown since: a quiet front
    entry = s.entry("quiet")
    assert entry.rate < 0.02 and not entry.barren
    url, wait = s.next_due(7 * HOUR)
    assert url is None and wait == pytest.approx(HOUR)  # the floor is 2 h after the last visit
    assert s.next_due(8 * HOUR)[0] == "quiet"


def test_a_listing_that_never_paid_waits_twice_as_long_each_time_up_to_the_window():
    s = schedule(max_interval=2 * HOUR, barren_after=10)
    s.add("sub")
    visit(s, "sub", 0.0, 0, new_links=0)
    assert s.next_due(1.0)[1] == pytest.approx(2 * HOUR - 1.0)  # after one visit: the floor
    visit(s, "sub", 2 * HOUR, 0, new_links=0)
    assert s.next_due(2 * HOUR)[1] == pytest.approx(4 * HOUR)  # then 4 h
    visit(s, "sub", 6 * HOUR, 0, new_links=0)
    assert s.next_due(6 * HOUR)[1] == pytest.approx(8 * HOUR)
    for at in (14, 30, 54):
        visit(s, "sub", at * HOUR, 0, new_links=0)
    assert s.next_due(54 * HOUR)[1] == pytest.approx(24 * HOUR)  # never beyond the window


def test_a_listing_whose_new_links_never_pay_becomes_barren_and_is_not_added_again():
    s = schedule(barren_after=3, max_interval=HOUR)
    s.add("archive/2001-01-01")
    for hour in range(3):
        visit(s, "archive/2001-01-01", hour * HOUR, 0, new_links=20)  # old stories only
    assert s.next_due(100 * HOUR) == (None, math.inf)
    assert s.entry("archive/2001-01-01").barren and len(s) == 0
    assert s.add("archive/2001-01-01") is False


def test_gone_reports_each_listing_made_barren_or_dropped_once_and_not_a_closed_day():
    s = schedule(barren_after=3, max_interval=HOUR, capacity=3)
    for url in ("trap", "front", "archive/2024/01/01/", "x"):
        s.add(url)
    for hour in range(3):
        visit(s, "trap", hour * HOUR, 0, new_links=20)
    assert s.gone() == []  # (made barren at the next decision)
    s.next_due(3 * HOUR)
    s.remove("front")
    s.remove("front")  # (not in it any more: not gone again)
    assert s.gone() == ["trap", "front"] and s.gone() == []
    # a day's page closed (read after a later day's page of its family showed stories) is not
    day = "archive/2024/01/01/"
    s.begin(day, 0.0)
    s.visited(day, 1, listed_rate=1.0, now=0.0)
    s.add("archive/2024/01/02/")
    later = datetime(2024, 1, 2, 1, tzinfo=UTC).timestamp()
    s.begin("archive/2024/01/02/", later)
    s.visited("archive/2024/01/02/", 1, listed_rate=1.0, now=later, earliest=later - 60.0)
    s.begin(day, later + 60.0)
    s.visited(day, 0, listed_rate=1.0, now=later + 60.0)
    assert s.entry(day).closed and s.gone() == []


def test_a_listing_that_found_news_off_the_topic_is_never_barren():
    # (the topical mode: its novel documents off the topic are not credited, HubSchedule.off_topic)
    s = schedule(barren_after=3, max_interval=HOUR)
    for url in ("day", "trap"):
        s.add(url)
    for hour in range(3):
        for url in ("day", "trap"):
            visit(s, url, hour * HOUR, 0, new_links=5)
        s.off_topic("day", 2)
    s.next_due(4 * HOUR)
    assert s.entry("trap").barren and not s.entry("day").barren
    assert (s.entry("day").paid, s.entry("day").off_topic, s.entry("day").rate) == (0, 6, 0.0)
    assert s.next_due(6 * HOUR)[0] == "day"  # its floor (doubled after each visit: 4 h): due
    # today's archive handing over to tomorrow's after midnight hands its news over too
    assert s.succeed("day", "day2") and s.entry("day2").off_topic == 6


def test_a_prior_rate_delays_a_listing_found_on_a_page_that_never_paid():
    s = schedule(max_interval=6 * HOUR)
    s.add("archive/2", now=100.0, rate=0.0)
    url, wait = s.next_due(200.0)
    assert url is None and wait == pytest.approx(6 * HOUR - 100.0)  # only the floor brings it
    with pytest.raises(ValueError):
        s.add("archive/3", rate=0.0)  # a prior needs its time


def test_a_listing_just_downloaded_waits_for_the_minimum_interval_then_goes_first():
    s = schedule(min_interval=300.0)
    s.add("front", seen_at=1000.0)
    s.add("other")
    visit(s, "other", 1000.0, 24 * 10)  # rich, but visited now too
    assert s.next_due(1100.0) == (None, pytest.approx(200.0))
    assert s.next_due(1300.0)[0] == "front"  # never visited: its first visit goes first


def test_failures_count_toward_barren():
    s = schedule(barren_after=2)
    s.add("broken")
    for at in (0.0, 7 * HOUR):
        s.begin("broken", at)
        s.failed("broken")
    s.next_due(20 * HOUR)
    assert s.entry("broken").barren


def test_a_listing_read_before_whose_host_is_down_for_a_while_learns_nothing_from_it():
    # read, never paid (its stories met first elsewhere): transient failures (the host down)
    # are no visits: no evidence towards barren, no lower rate, no doubled floor; due again
    # as it was, from the attempt on
    s = schedule(barren_after=2, max_interval=3 * HOUR, rhythm=False)
    s.add("archive")
    s.begin("archive", 0.0)
    s.visited("archive", 0, now=0.0)
    s.entry("archive").rate = 0.5
    for at in (HOUR, 2 * HOUR, 3 * HOUR, 4 * HOUR):
        s.begin("archive", at)
        assert s.failed("archive", transient=True) is False
    entry = s.entry("archive")
    assert entry.visits == 1 and entry.evidence == 0 and entry.failures == 4 and entry.rate == 0.5
    s.next_due(10 * HOUR)
    assert not entry.barren and s._floor(entry) == 3 * HOUR
    assert s.next_due(4 * HOUR + 3 * HOUR)[0] == "archive"
    # an error that is the page's own (a 404, say) is a wasted visit, as before
    s.begin("archive", 8 * HOUR)
    s.failed("archive")
    s.begin("archive", 9 * HOUR)
    s.failed("archive")
    s.next_due(20 * HOUR)
    assert entry.barren
    # a listing never read is given up after its failures, transient or not
    s.add("seed")
    for _ in range(3):
        s.begin("seed", 0.0)
        given_up = s.failed("seed", transient=True)
    assert given_up and s.entry("seed").barren


def test_the_visit_after_a_transient_failure_observes_the_time_since_the_last_visit_read():
    # Hand-computed (β = 0.5, no rhythm): read at 0 and at 1 h (rate 2 an hour); the attempt at
    # 2 h fails for a while (the host down); the visit at 2.5 h shows 3 novel documents, over
    # the 1.5 h since the last visit read: 0.5 · 2 + 0.5 · 3 / 1.5 = 2 (over the 0.5 h since
    # the attempt, 4 an hour: the rate once three times too high). An error of the page's own
    # is a visit: the next one counts from it.
    s = schedule(beta=0.5, rhythm=False)
    s.add("archive")
    s.begin("archive", 0.0)
    s.visited("archive", 0, now=0.0)
    s.entry("archive").rate = 2.0
    s.begin("archive", HOUR)
    s.visited("archive", 1, now=HOUR)
    s.credit("archive", 2)
    assert s.entry("archive").rate == pytest.approx(0.5 * 2.0 + 0.5 * 2 / 1.0)
    s.begin("archive", 2 * HOUR)
    s.failed("archive", transient=True)
    assert s.entry("archive").last == 2 * HOUR  # due again from the attempt on
    s.begin("archive", 2.5 * HOUR)
    assert s.entry("archive").interval == pytest.approx(1.5)
    s.visited("archive", 3, now=2.5 * HOUR)
    s.credit("archive", 3)
    assert s.entry("archive").rate == pytest.approx(0.5 * 2.0 + 0.5 * 3 / 1.5)
    # saved while the visit after a failure is in flight: the span still from the last read
    s.begin("archive", 3 * HOUR)
    s.failed("archive", transient=True)
    s.begin("archive", 3.5 * HOUR)
    again = HubSchedule.from_dict(s.to_dict(), rhythm=False, beta=0.5)
    again.begin("archive", 4 * HOUR)
    assert again.entry("archive").interval == pytest.approx(1.5)
    s.begin("archive", 4 * HOUR)
    s.failed("archive")  # a 404: a wasted visit
    s.begin("archive", 5 * HOUR)
    assert s.entry("archive").interval == pytest.approx(1.0)


def test_a_listing_never_read_is_tried_again_at_once_and_given_up_after_its_failures():
    s = schedule(give_up_after=3, barren_after=10)
    s.add("dead")
    s.add("live")
    visit(s, "live", 0.0, 0, new_links=0)
    for attempt in range(1, 4):
        assert s.next_due(1.0) == ("dead", 0.0)  # again at once: no minimum interval to wait
        s.begin("dead", 1.0)
        assert s.failed("dead") is (attempt == 3)
    assert s.entry("dead").barren and s.urls() == ["live"]
    assert s.add("dead") is False  # remembered: a link to it does not bring it back
    assert s.next_due(2.0)[0] is None


def test_a_listing_read_once_is_never_given_up_for_failing():
    s = schedule(give_up_after=1, barren_after=10)
    s.add("front")
    visit(s, "front", 0.0, 2)
    for at in (HOUR, 2 * HOUR, 3 * HOUR):
        s.begin("front", at)
        assert s.failed("front") is False
        assert s.next_due(at + 1.0)[0] is None  # it waits the minimum interval, at least
    assert not s.entry("front").barren and s.urls() == ["front"]
    s.begin("front", 4 * HOUR)
    s.visited("front", 1)
    assert s.entry("front").failures == 0


def test_an_empty_schedule_after_every_seed_failed_has_nothing_due_ever():
    s = HubSchedule.from_seeds(["http://a/", "http://b/"], give_up_after=2)
    for _ in range(2):
        for url in ("http://a/", "http://b/"):
            s.begin(url, 0.0)
            s.failed(url)
    assert len(s) == 0 and s.next_due(0.0) == (None, math.inf)


def test_capacity_evicts_barren_then_never_paying_entries_never_paying_ones():
    s = HubSchedule(capacity=2, barren_after=1, min_interval=0.0)
    s.add("a")
    s.add("b")
    visit(s, "a", 0.0, 3)
    visit(s, "b", 0.0, 0, new_links=5)  # wasted: evicted first
    assert s.add("c") is True and "b" not in s
    visit(s, "c", 0.0, 2)
    assert s.add("d") is False  # every entry pays: nothing evicted


def test_split_moves_a_random_half_and_keeps_barren_memories():
    s = schedule(barren_after=1, min_interval=0.0)
    for i in range(10):
        s.add(f"u{i}")
    visit(s, "u9", 0.0, 0, new_links=3)
    s.next_due(1.0)  # u9 is found barren
    child = s.split(np.random.default_rng(3))
    assert len(child) == 4 and len(s) == 5
    assert set(child.urls()).isdisjoint(s.urls())
    assert child.entry("u9").barren and s.entry("u9").barren


def test_round_trip_through_a_dict():
    s = schedule()
    s.add("a")
    visit(s, "a", 100.0, 6)
    s.add("b")
    again = HubSchedule.from_dict(s.to_dict(), min_interval=60.0)
    assert again.entry("a").rate == pytest.approx(s.entry("a").rate)
    assert again.entry("a").last == 100.0 and again.entry("b").last is None


@pytest.mark.parametrize("kwargs", [dict(capacity=0), dict(beta=0.0), dict(min_interval=10.0, max_interval=5.0),
                                    dict(threshold=-1.0), dict(barren_after=0), dict(window=0.0),
                                    dict(give_up_after=0)])
def test_bad_parameters_are_refused_with_a_message(kwargs):
    with pytest.raises(ValueError, match="must"):
        HubSchedule(**kwargs)


def test_negative_new_link_count_is_refused():
    s = schedule()
    s.add("a")
    s.begin("a", 0.0)
    with pytest.raises(ValueError):
        s.visited("a", -1)


def test_a_family_of_barren_pages_keeps_its_new_members_out():
    s = schedule(barren_after=2, min_interval=0.0)
    for day in (1, 2):
        url = f"http://s/archive/2024/01/0{day}/"
        s.add(url)
        for hour in (0, 7):
            visit(s, url, hour * HOUR, 0, new_links=20)
    s.next_due(20 * HOUR)  # both found barren
    assert s.add("http://s/archive/2024/01/03/") is False
    assert s.add("http://s/section/world/") is True  # another shape
    # a family one of whose members paid is not a trap
    s.add("http://s/tag/1/")
    s.add("http://s/tag/2/")
    s.add("http://s/tag/3/")
    visit(s, "http://s/tag/3/", 0.0, 1)
    for url in ("http://s/tag/1/", "http://s/tag/2/"):
        for hour in (0, 7):
            visit(s, url, hour * HOUR, 0, new_links=5)
    s.next_due(30 * HOUR)
    assert s.add("http://s/tag/4/") is True
    again = HubSchedule.from_dict(s.to_dict(), barren_after=2)
    assert again.add("http://s/archive/2024/01/04/") is False


def test_budget_threshold_makes_the_due_visits_use_the_poll_rate():
    s = schedule(priority="lag", max_interval=24 * HOUR)
    for url, rate in (("a", 4.0), ("b", 1.0)):
        s.add(url, now=0.0, rate=rate)
        s.entry(url).paid = 1
    # (√4 + √1)² / (2·6²) = 9/72 document-hours: a every 15 min, b every 30 min, 6 visits an hour
    theta = s.budget_threshold(6.0)
    assert theta == pytest.approx(0.125)
    assert math.sqrt(2 * theta / 4.0) * 60 == pytest.approx(15.0)
    assert math.sqrt(2 * theta / 1.0) * 60 == pytest.approx(30.0)
    s_return = schedule(priority="return")
    s_return.add("a", now=0.0, rate=4.0)
    s_return.add("b", now=0.0, rate=1.0)
    assert s_return.budget_threshold(10.0) == pytest.approx(0.5)  # (4 + 1) / 10 documents
    assert s.demand() == pytest.approx(3.0) and s_return.demand() == pytest.approx(5.0)
    with pytest.raises(ValueError, match="poll_rate"):
        s.budget_threshold(0.0)


def test_budget_threshold_is_infinite_before_any_listing_has_a_rate():
    s = schedule(priority="lag")
    s.add("new")
    s.add("quiet", now=0.0, rate=0.0)
    assert s.budget_threshold(60.0) == math.inf


def test_a_poll_rate_lowers_the_threshold_and_never_raises_it():
    s = schedule(priority="lag", threshold=0.5, max_interval=24 * HOUR)
    s.add("front", now=0.0, rate=1.0)
    # configured: rate·Δ²/2 = 0.5 document-hours after 1 hour
    assert s.next_due(30 * 60.0) == (None, pytest.approx(30 * 60.0))
    # 4 visits an hour allowed: θ = 1 / (2·16), due every 15 minutes
    assert s.next_due(15 * 60.0, poll_rate=4.0) == ("front", 0.0)
    assert s.next_due(10 * 60.0, poll_rate=4.0) == (None, pytest.approx(5 * 60.0))
    # a scarce budget (one visit in four hours) keeps the configured threshold
    assert s.next_due(HOUR, poll_rate=0.25) == ("front", 0.0)



def test_a_never_paying_listing_waits_as_long_as_its_own_dates_say_a_story_takes():
    s = schedule(max_interval=3 * HOUR)
    for url, listed in (("byline", 1 / 48), ("busy", 1.0), ("dead", 0.0), ("undated", None)):
        s.add(url)
        s.begin(url, 0.0)
        s.visited(url, 0, listed)
    assert s.entry("byline").listed_rate == pytest.approx(1 / 48)
    assert s._floor(s.entry("byline")) == 24 * HOUR  # two days a story: the window at most
    assert s._floor(s.entry("busy")) == 3 * HOUR  # never sooner than the floor
    assert s._floor(s.entry("dead")) == 24 * HOUR
    assert s._floor(s.entry("undated")) == 3 * HOUR  # no dates: the doubling floor
    s.begin("byline", 24 * HOUR)
    s.visited("byline", 1, 1 / 48)
    s.credit("byline")
    assert s._floor(s.entry("byline")) == 3 * HOUR  # it paid: its rate schedules it
    with pytest.raises(ValueError, match="listed_rate"):
        s.visited("busy", 0, -1.0)


def test_today_s_page_showing_one_story_is_not_left_for_the_window():
    # one story dated (a listed rate of 0) on a page whose day is not over says only that the
    # day has just begun: the first visit's floor, then doubling; on any other page, or once
    # the day is over, the window (an author's page with one story)
    dawn = 1_709_618_400.0  # 2024-03-05 06:00 UTC
    s = schedule(max_interval=3 * HOUR, rhythm=False)
    today, author = "http://s/archive/2024/03/05/", "http://s/by/someone/"
    for url in (today, author):
        s.add(url)
        s.begin(url, dawn)
        s.visited(url, 0, 0.0, now=dawn)
    assert s._floor(s.entry(today)) == 3 * HOUR
    assert s._floor(s.entry(author)) == 24 * HOUR
    s.begin(today, dawn + 3 * HOUR)
    s.visited(today, 0, 0.0, now=dawn + 3 * HOUR)
    assert s._floor(s.entry(today)) == 6 * HOUR  # it has not paid: twice as long
    s.begin(today, dawn + 19 * HOUR)  # (a visit begun after the day ended)
    s.visited(today, 0, 0.0, now=dawn + 19 * HOUR)
    assert s._floor(s.entry(today)) == 24 * HOUR


def test_a_successor_takes_the_old_entry_s_rate_and_the_old_one_keeps_its_floor():
    s = schedule()
    s.add("/archive/2024/01/01/")
    visit(s, "/archive/2024/01/01/", 0.0, 8)
    rate = s.entry("/archive/2024/01/01/").rate
    assert s.succeed("/archive/2024/01/01/", "/archive/2024/01/02/")
    new, old = s.entry("/archive/2024/01/02/"), s.entry("/archive/2024/01/01/")
    assert (new.rate, new.last, new.paid, new.visits) == (rate, 0.0, 8, 1)
    assert old.rate == 0.0 and not old.barren
    assert s.next_due(2 * HOUR) == ("/archive/2024/01/02/", 0.0)  # due as the old one would be
    # nothing to take over, or a successor already known: no change
    assert not s.succeed("/unknown/", "/archive/2024/01/03/")
    assert not s.succeed("/archive/2024/01/01/", "/archive/2024/01/02/")


def test_a_listing_whose_successor_another_weblog_took_keeps_its_floor_at_rate_0():
    s = schedule()
    s.add("/archive/2024/01/01/")
    visit(s, "/archive/2024/01/01/", 0.0, 8)
    entry = s.entry("/archive/2024/01/01/")
    paid, visits = entry.paid, entry.visits
    assert entry.rate > 0 and s.spare_rate(entry, HOUR) > 0
    assert s.succeeded_elsewhere("/archive/2024/01/01/")
    assert entry.rate == 0.0 and not entry.barren and (entry.paid, entry.visits) == (paid, visits)
    assert "/archive/2024/01/01/" in s  # its floor still visits it ...
    assert s.spare_rate(entry, HOUR) == 0.0  # ... the spare budget does not (it paid: one story a floor)
    # already at 0, or not in this weblog: no change
    assert not s.succeeded_elsewhere("/archive/2024/01/01/")
    assert not s.succeeded_elsewhere("/unknown/")


def _archive_and_fronts() -> HubSchedule:
    # an archive showing every story (32 an hour credited to it) and four fronts whose stories
    # it shows first (0.02 an hour each credited to them); the budget decides (threshold 10)
    s = schedule(priority="lag", min_interval=0.0, max_interval=20 * HOUR, threshold=10.0)
    s.add("archive", now=0.0, rate=32.0)
    for i in range(4):
        s.add(f"front{i}", now=0.0, rate=0.02)
    for url in s.urls():
        s.entry(url).paid = 1
    return s


def test_a_visit_must_expect_the_yield_and_the_budget_goes_to_the_listings_that_pay():
    s = _archive_and_fronts()
    # 10 visits an hour by √rate: θ = (√32 + 4·√0.02)²/(2·10²)
    plain = (math.sqrt(32) + 4 * math.sqrt(0.02)) ** 2 / 200
    assert s.budget_threshold(10.0, 0.0) == pytest.approx(plain)
    assert s.demand() == pytest.approx(math.sqrt(32) + 4 * math.sqrt(0.02))
    # A visit must expect 0.5 documents: a front at most 0.02/0.5 = 0.04 visits an hour, below
    # its share √(0.02/2θ) (0.02 < 0.5²/2θ): capped; the archive takes the rest, 10 − 0.16
    # visits an hour: θ = 32/(2·9.84²)
    theta = 32 / (2 * 9.84 ** 2)
    assert s.budget_threshold(10.0, 0.0, min_yield=0.5) == pytest.approx(theta)
    due = math.sqrt(2 * theta / 32) * HOUR  # 6.10 minutes (6.60 without the yield)
    assert due == pytest.approx(6.098 * 60, abs=0.1)
    url, wait = s.next_due(360.0, poll_rate=10.0, min_yield=0.5)
    assert url is None and wait == pytest.approx(due - 360.0)
    assert s.next_due(due + 1, poll_rate=10.0, min_yield=0.5)[0] == "archive"
    assert _archive_and_fronts().next_due(due + 1, poll_rate=10.0)[0] is None  # 6.60 minutes
    # the demand a forager shares counts a capped front at its capped visits: 0.02·√(2θ)/0.5
    assert s.demand() == pytest.approx(math.sqrt(32) + 4 * 0.02 * math.sqrt(2 * theta) / 0.5)


def test_a_front_of_low_rate_waits_for_its_yield_not_for_the_threshold():
    s = _archive_and_fronts()
    s.begin("archive", 0.0)  # (in flight: out of the way)
    # at 5 hours a front holds 0.02·5²/2 = 0.25 document-hours, above θ (0.165), but
    # expects 0.1 documents: not due; without the yield it is
    assert s.next_due(5 * HOUR, poll_rate=10.0, min_yield=0.5)[0] is None
    assert s.next_due(5 * HOUR, poll_rate=10.0)[0].startswith("front")
    # it would expect 0.5 at 25 hours: its floor (20 hours) comes first
    url, wait = s.next_due(5 * HOUR, poll_rate=10.0, min_yield=0.5)
    assert wait == pytest.approx(15 * HOUR)
    assert s.next_due(20 * HOUR, poll_rate=10.0, min_yield=0.5)[0].startswith("front")
    # a budget the yield's caps alone would take: the plain threshold
    assert s.budget_threshold(0.1, 0.0, min_yield=0.5) == pytest.approx(
        (math.sqrt(32) + 4 * math.sqrt(0.02)) ** 2 / (2 * 0.1 ** 2))
    with pytest.raises(ValueError, match="min_yield"):
        s.next_due(0.0, min_yield=-1.0)


def test_a_url_naming_a_day_that_ended_beyond_the_window_is_of_the_past():
    from datetime import UTC, datetime

    from newsforagers.learning.schedule import of_the_past, url_day_end

    now = datetime(2024, 1, 1, 12, tzinfo=UTC).timestamp()
    day = 86_400.0
    assert url_day_end("http://s/archive/2023/12/31/") == datetime(2024, 1, 1, tzinfo=UTC).timestamp()
    assert url_day_end("http://s/1987-3-5-slug") == datetime(1987, 3, 6, tzinfo=UTC).timestamp()
    assert url_day_end("http://s/section/world/") is None
    assert url_day_end("http://s/archive/2023/13/45/") is None  # no such day
    assert url_day_end("http://2023-12-30.s/") is None  # the host is not asked
    assert url_day_end("http://s/list?day=2023-12-30") == datetime(2023, 12, 31, tzinfo=UTC).timestamp()
    assert url_day_end("http://[::1/2023/12/30/") is None  # no URL: no day, no crash
    # 24 h window at Jan 1 12:00: Dec 31 ended 12 h ago (its stories may be novel), Dec 30 36 h
    assert not of_the_past("http://s/archive/2023/12/31/", now, day)
    assert of_the_past("http://s/archive/2023/12/30/", now, day)
    assert of_the_past("http://s/2023/12/30/a-story/", now, day)
    assert not of_the_past("http://s/2024/01/01/a-story/", now, day)
    assert not of_the_past("http://s/archive/2023/12/30/", now, 2 * day)


def test_an_empty_page_of_a_paying_family_keeps_the_floor_instead_of_doubling_it():
    # today's day archive, empty at dawn, beside yesterday's, which paid: it will list as its
    # sibling does, so its floor stays 3 h; a family of counters (/tag/7/ beside /tag/8/,
    # which paid), a page with no digits (/News/) and a day that has ended double as before:
    # 3, 6, 12 h
    from datetime import UTC, datetime

    dawn = datetime(2024, 1, 1, 5, tzinfo=UTC).timestamp()
    s = schedule(max_interval=3 * HOUR, barren_after=10)
    today, ended = "http://s/archive/2024/01/01/", "http://s/archive/2023/12/25/"
    for url in (today, "http://s/archive/2023/12/31/", "http://s/News/", "http://t/tag/7/",
                "http://t/tag/8/", ended):
        s.add(url)
    visit(s, "http://s/archive/2023/12/31/", dawn, 2)  # yesterday's paid
    visit(s, "http://t/tag/8/", dawn, 2)
    for hour in (0, 3, 9):
        for url in (today, "http://s/News/", "http://t/tag/7/", ended):
            visit(s, url, dawn + hour * HOUR, 0, new_links=0)
    assert s._floor(s.entry(today)) == 3 * HOUR
    for url in ("http://s/News/", "http://t/tag/7/", ended):
        assert s._floor(s.entry(url)) == 12 * HOUR, url
    # ... also when it dates one story (a rate of 0: one date says nothing of a rate), which
    # for another page means the whole window: on a site of a few stories a day, today's
    # archive at 7:00 shows the one story of the night, and waited 24 hours (issue 31)
    for url in (today, "http://s/News/"):
        s.begin(url, dawn + 10 * HOUR)
        s.visited(url, 0, listed_rate=0.0, now=dawn + 10 * HOUR)
    assert s._floor(s.entry(today)) == 3 * HOUR
    assert s._floor(s.entry("http://s/News/")) == 24 * HOUR


def test_a_schedule_is_true_while_a_live_listing_is_left():
    # (the forager asks at every decision whether it is done: no count of every listing)
    schedule = HubSchedule(give_up_after=1, rhythm=False)
    assert not schedule and len(schedule) == 0
    schedule.add("http://a.test/")
    assert schedule and len(schedule) == 1
    assert schedule.failed("http://a.test/")  # never read, failed once: given up (barren)
    assert not schedule and len(schedule) == 0 and "http://a.test/" in schedule


def test_a_past_days_page_read_after_its_site_moved_on_is_closed():
    # yesterday's archive is closed by a visit begun after today's archive (same host, same
    # family) showed a dated story: it can list nothing more. Not before (today's page dated
    # nothing, or was read after that visit began), not by another host's family, not by a
    # failed visit; a closed page is never due again and no evidence against its family.
    from datetime import UTC, datetime

    morning = datetime(2024, 1, 1, 7, tzinfo=UTC).timestamp()
    s = schedule(min_interval=0.0, max_interval=HOUR, barren_after=1)
    today, yesterday = "http://s/archive/2024/01/01/", "http://s/archive/2023/12/31/"
    other = "http://t/archive/2023/12/31/"  # another site: its own day
    for url in (today, yesterday, other):
        s.add(url)
    # yesterday's page read first (it shows yesterday's stories), then today's, dating nothing
    s.begin(yesterday, morning)
    assert s.visited(yesterday, 5, listed_rate=2.0, now=morning) == 0
    s.credit(yesterday, 2)
    s.begin(today, morning + 60)
    assert s.visited(today, 0, listed_rate=None, now=morning + 60) == 0
    s.begin(yesterday, morning + HOUR)
    assert s.visited(yesterday, 0, listed_rate=2.0, now=morning + HOUR) == 0  # no later day shown yet
    # today's page shows its first story (one date: a rate of 0, but a dated story)
    s.begin(today, morning + 2 * HOUR)
    s.begin(yesterday, morning + 2 * HOUR)  # begun before today's page arrived: not closing
    assert s.visited(today, 1, listed_rate=0.0, now=morning + 2 * HOUR) == 0
    s.credit(today, 1)
    assert s.visited(yesterday, 0, listed_rate=2.0, now=morning + 2 * HOUR) == 0
    s.begin(yesterday, morning + 3 * HOUR)
    assert s.failed(yesterday) is False  # the visit never came: nothing seen, nothing closed
    assert not s.entry(yesterday).closed
    s.begin(yesterday, morning + 4 * HOUR)
    s.begin(other, morning + 4 * HOUR)
    assert s.visited(yesterday, 0, listed_rate=2.0, now=morning + 4 * HOUR) == 1
    assert s.visited(other, 0, listed_rate=2.0, now=morning + 4 * HOUR) == 0
    closed = s.entry(yesterday)
    assert closed.closed and closed.barren
    # never due again, however long it waits; the other site's page and today's are
    for hours in (5, 30, 60):
        due = set()
        t = morning + hours * HOUR
        while (url := s.next_due(t)[0]) is not None:
            due.add(url)
            s.begin(url, t)
            s.visited(url, 0, now=t)
        assert yesterday not in due and {today, other} <= due
    # no evidence against the family (barren_after=1): a new day's page is still added
    assert s.add("http://s/archive/2024/01/02/") is True
    again = HubSchedule.from_dict(s.to_dict(), barren_after=1)
    assert again.entry(yesterday).closed
    assert again.add("http://s/archive/2024/01/03/") is True



def drain(s: HubSchedule, t: float) -> set[str]:
    """Every listing due at ``t``, each visited (showing nothing) as it comes due."""
    due = set()
    while (url := s.next_due(t)[0]) is not None:
        due.add(url)
        s.begin(url, t)
        s.visited(url, 0, now=t)
    return due


def test_a_subsumed_listing_waits_the_window_and_gets_no_prior():
    # (another listing of its host shows every story: the mind says so at its visit)
    s = schedule(max_interval=3 * HOUR, rhythm=False)
    for url in ("http://s/section/a/", "http://s/section/b/"):
        s.add(url)
        visit(s, url, 0.0, 1)  # both paid once: a floor of 3 h, a prior of 1/3 an hour
    s.begin("http://s/section/b/", HOUR)
    s.visited("http://s/section/b/", 0, now=HOUR, subsumed=True)
    a, b = s.entry("http://s/section/a/"), s.entry("http://s/section/b/")
    assert s._floor(a) == 3 * HOUR and s._floor(b) == 24 * HOUR
    assert s.spare_rate(a) == pytest.approx(max(a.rate, 1 / 3))
    assert s.spare_rate(b) == 0.0  # no spare visit: the complete listing's show what it would
    # its rate still counts in the host's budget (the stories the host's listings show), and
    # the visits it buys go to the others
    assert a.rate > 0 and b.rate == pytest.approx(0.7 / 24)
    assert s.novelty() == pytest.approx(a.rate + b.rate)
    # the budget's threshold is worked out over the others' rates ("return": Σρ / S visits an hour)
    s.next_due(2 * HOUR, poll_rate=2.0)
    assert s._last_threshold == pytest.approx(a.rate / 2.0)
    s.next_due(2 * HOUR, budgets={"s": (2.0, None)})
    assert s._thresholds["s"] == pytest.approx(a.rate / 2.0)
    # by its rate it would be due 0.5 / (0.7/24) h ≈ 17.1 h after its visit: it waits its floor
    assert b.expected(19 * HOUR) >= s.threshold
    assert "http://s/section/b/" not in drain(s, 19 * HOUR)
    assert s.next_due(24.9 * HOUR, spare=100.0)[0] != "http://s/section/b/"  # nor a spare visit
    assert HubSchedule.from_dict(s.to_dict()).entry("http://s/section/b/").subsumed
    s.begin("http://s/section/b/", 30 * HOUR)
    s.visited("http://s/section/b/", 0, now=30 * HOUR)  # not subsumed any more: as before
    assert s._floor(s.entry("http://s/section/b/")) == 3 * HOUR


def test_a_listing_is_raised_to_a_rate_it_is_known_to_hold_at_least():
    # a complete listing holds at least the rate of a listing it shows every story of
    s = schedule(rhythm=False)
    for url in ("http://s/archive/", "http://s/section/a/"):
        s.add(url)
    visit(s, "http://s/section/a/", 0.0, 2)  # a first visit: 2 stories over the 24-hour window
    visit(s, "http://s/archive/", 0.0, 0)
    section, archive = s.entry("http://s/section/a/"), s.entry("http://s/archive/")
    assert archive.rate == 0.0 and section.rate == pytest.approx(2 / 24)
    s.raise_rate("http://s/archive/", section.rate)
    assert archive.rate == pytest.approx(2 / 24)
    s.raise_rate("http://s/archive/", 0.01)  # never lowered
    assert archive.rate == pytest.approx(2 / 24)
    s.add("http://s/new/")
    s.raise_rate("http://s/new/", 1.0)  # never visited: the optimistic prior stays
    s.raise_rate("http://s/unknown/", 1.0)
    assert s.entry("http://s/new/").rate is None and "http://s/unknown/" not in s


def test_a_first_visit_holds_the_rate_its_own_dates_show_until_its_credits_pass_it():
    # window 24 h, no rhythm. A day archive whose fresh stories' dates show 2 an hour is due at that
    # rate from its page's arrival, before any of its stories is fetched (and credited);
    # credits count once they pass it: n / 24 h
    s = schedule(rhythm=False, threshold=0.5, priority="return")
    s.add("archive")
    s.add("quiet")
    s.begin("archive", 0.0)
    s.visited("archive", 5, listed_rate=2.0, now=0.0, fresh_rate=2.0)
    assert s.entry("archive").rate == 2.0
    assert s.next_due(15 * 60.0)[0] == "quiet"  # (never visited: first)
    s.begin("quiet", 15 * 60.0)
    s.visited("quiet", 0, now=15 * 60.0)
    assert s.next_due(15 * 60.0) == ("archive", 0.0)  # 2 an hour × 15 min = 0.5: due
    s.credit("archive", 12)  # 12 / 24 h = 0.5 an hour: below what its dates show
    assert s.entry("archive").rate == 2.0
    s.credit("archive", 60)  # 72 / 24 h = 3 an hour
    assert s.entry("archive").rate == pytest.approx(3.0)
    # a page dating nothing (or one story), or only stories older than the window (its listed
    # rate without a fresh one): n / 24 h as before; the next visit is the β update
    assert s.entry("quiet").rate == 0.0
    s.add("old")
    s.begin("old", 0.0)
    s.visited("old", 3, listed_rate=0.5, now=0.0, fresh_rate=None)
    assert s.entry("old").rate == 0.0
    s.begin("archive", HOUR)
    s.visited("archive", 1, listed_rate=9.0, now=HOUR)
    s.credit("archive", 1)
    assert s.entry("archive").rate == pytest.approx(0.7 * 3.0 + 0.3 * 1 / 1.0)


def test_a_host_s_listings_are_subsumed_at_once_when_one_shows_every_story():
    s = schedule(rhythm=False)
    urls = ("http://s/archive/", "http://s/section/a/", "http://s/section/b/", "http://s/new/", "http://t/")
    for url in urls:
        s.add(url)
    visit(s, "http://s/archive/", 0.0, 0)
    visit(s, "http://s/section/a/", 0.0, 3)  # 3 stories over the window: 1/8 an hour
    visit(s, "http://s/section/b/", 0.0, 1)
    visit(s, "http://t/", 0.0, 5)
    assert s.subsume_host("http://s/archive/") == 3  # a, b and the never-visited one; not t's
    assert [s.entry(u).subsumed for u in urls] == [False, True, True, True, False]
    assert s.entry("http://s/archive/").rate == pytest.approx(3 / 24)  # the larger of theirs
    assert s.subsume_host("http://s/archive/") == 0  # (already)
    # the never-visited one is not visited while subsumed: its first visit would show nothing
    # the archive does not (neither the optimistic prior's turn nor a first visit)
    assert s.first_visit() is None
    assert "http://s/new/" not in drain(s, HOUR)
    assert s.subsume_host("http://s/archive/", subsumed=False) == 3  # a hole: due as before
    assert not any(s.entry(u).subsumed for u in urls)
    assert s.first_visit() == "http://s/new/"
    assert s.next_due(2 * HOUR)[0] == "http://s/new/"  # the optimistic prior again


def test_today_s_page_subsumed_by_another_listing_keeps_its_floor():
    # a news sitemap proven complete subsumes the host's listings: a section waits the window,
    # but today's archive, which lists the whole day by what it is, keeps its floor (3 h here;
    # twice as long once it did not pay), the check of the sitemap's proof; once its day is
    # over, the window
    dawn = 1_709_618_400.0  # 2024-03-05 06:00 UTC
    s = schedule(max_interval=3 * HOUR, rhythm=False)
    sitemap, today, section = "http://s/sitemap-news.xml", "http://s/archive/2024/03/05/", "http://s/section/a/"
    for url in (sitemap, today, section):
        s.add(url)
        s.begin(url, dawn)
        s.visited(url, 0, now=dawn)
    assert s.subsume_host(sitemap) == 2
    assert s._floor(s.entry(section)) == 24 * HOUR
    assert s._floor(s.entry(today)) == 3 * HOUR
    s.begin(sitemap, dawn + 2 * HOUR)
    s.visited(sitemap, 0, now=dawn + 2 * HOUR)
    assert s.next_due(dawn + 3 * HOUR)[0] == today  # due by its floor alone
    s.begin(today, dawn + 3 * HOUR)
    s.visited(today, 0, now=dawn + 3 * HOUR, subsumed=True)
    assert s._floor(s.entry(today)) == 6 * HOUR
    s.begin(today, dawn + 19 * HOUR)
    s.visited(today, 0, now=dawn + 19 * HOUR, subsumed=True)
    assert s._floor(s.entry(today)) == 24 * HOUR


def test_yesterday_s_archive_read_after_the_site_moved_on_is_closed_without_another_visit():
    # at a site's first visit yesterday's archive may be read before today's: when today's then
    # dates a story published before yesterday's visit began, the site had moved on to today
    # by then, so that visit saw every story yesterday's page will list: closed at once
    from datetime import UTC, datetime

    morning = datetime(2024, 1, 1, 7, tzinfo=UTC).timestamp()
    night = datetime(2024, 1, 1, 0, 9, tzinfo=UTC).timestamp()
    s = schedule(min_interval=0.0, max_interval=HOUR, barren_after=1)
    today, yesterday = "http://s/archive/2024/01/01/", "http://s/archive/2023/12/31/"
    before, other = "http://s/archive/2023/12/30/", "http://t/archive/2023/12/31/"
    for url in (today, yesterday, before, other):
        s.add(url)
    for url in (yesterday, before, other):  # read together (begun before any dated a story)
        s.begin(url, morning)
    for url in (yesterday, before, other):
        assert s.visited(url, 3, listed_rate=2.0, now=morning) == 0
    s.begin(today, morning + 60)
    # today's first dated story, of 00:09: yesterday's and the day before's (this host) closed
    assert s.visited(today, 1, listed_rate=0.0, now=morning + 60, earliest=night) == 2
    assert s.entry(yesterday).closed and s.entry(before).closed and not s.entry(other).closed
    assert not s.entry(today).closed
    # a story of 7:30 on another host's today's page: its yesterday's was read at 7:00, before
    # its site moved on, and may still list a story: it stays
    s.add("http://t/archive/2024/01/01/")
    s.begin("http://t/archive/2024/01/01/", morning + HOUR)
    late = morning + 30 * 60
    assert s.visited("http://t/archive/2024/01/01/", 1, listed_rate=0.0, now=morning + HOUR, earliest=late) == 0
    assert not s.entry(other).closed


def test_the_hosts_thresholds_are_reckoned_with_their_budgets():
    # lag: θ = (Σ√λ)² / (2·p²) over the host's listings; a listing of rate λ is due
    # √(2θ/λ) hours after its visit. Rates 4 and 1, p = 3: θ = 9/18 = 0.5, the first due at
    # √(1/4) = 0.5 h. The thresholds hold for the budgets' mapping they were reckoned for
    # (a driver reckons budgets now and then), for up to RECKONING simulated seconds. (The
    # configured threshold above them all: the budget's is the lower.)
    s = HubSchedule(threshold=100.0)
    s.add("http://a/x", now=0.0, rate=4.0)
    s.add("http://a/y", now=0.0, rate=1.0)
    budgets = {"a": (3.0, None)}
    assert s.next_due(1.0, budgets=budgets) == (None, pytest.approx(0.5 * HOUR - 1.0))
    s.raise_rate("http://a/y", 16.0)  # now Σ√λ = 6: θ = 36/18 = 2
    # the same mapping: θ = 0.5 still, y (16 an hour) due at √(1/16) = 0.25 h
    assert s.next_due(2.0, budgets=budgets) == (None, pytest.approx(0.25 * HOUR - 2.0))
    # an equal mapping, new: reckoned again, y due at √(4/16) = 0.5 h
    again = dict(budgets)
    assert s.next_due(3.0, budgets=again) == (None, pytest.approx(0.5 * HOUR - 3.0))
    s.raise_rate("http://a/x", 25.0)  # Σ√λ = 9: θ = 81/18 = 4.5
    # within RECKONING seconds of it: θ = 2, x due at √(4/25) = 0.4 h; then √(9/25) = 0.6 h
    assert s.next_due(5.0, budgets=again) == (None, pytest.approx(0.4 * HOUR - 5.0))
    later = 3.0 + RECKONING
    assert s.next_due(later, budgets=again) == (None, pytest.approx(0.6 * HOUR - later))


def test_a_listing_s_due_time_is_kept_between_decisions_until_it_or_the_reckoning_changes(monkeypatch):
    # three listings of one host, rates 100, 4 and 1, budget p = 3: θ = (10 + 2 + 1)² / 18;
    # the first is due at √(2θ/100) h. Once one is due, the others' due times kept from the
    # decision before say they are not: their floors are not worked out again
    s = HubSchedule(threshold=100.0)
    for path, rate in (("z", 100.0), ("x", 4.0), ("y", 1.0)):
        s.add(f"http://a/{path}", now=0.0, rate=rate)
    budgets = {"a": (3.0, None)}
    due = math.sqrt(2 * 169 / 18 / 100) * HOUR
    assert s.next_due(due - 30.0, budgets=budgets) == (None, pytest.approx(30.0))  # (one reckoning)
    floors, floor = [], s._floor

    def counted(entry, *args, **kwargs):
        floors.append(entry.url)
        return floor(entry, *args, **kwargs)

    monkeypatch.setattr(s, "_floor", counted)
    assert s.next_due(due + 1.0, budgets=budgets) == ("http://a/z", 0.0)
    assert floors == []  # x and y: their kept due times
    s.entry("http://a/x").covered = True  # any field set: worked out again
    assert s.next_due(due + 2.0, budgets=budgets) == ("http://a/z", 0.0)
    assert floors == ["http://a/x"]
    floors.clear()
    assert s.next_due(due + 3.0, budgets=dict(budgets))[0] == "http://a/z"  # a new reckoning, the same numbers
    assert floors == []
    assert s.next_due(due + 4.0, budgets={"a": (4.0, None)})[0] == "http://a/z"  # the host's budget moved
    assert sorted(floors) == ["http://a/x", "http://a/y"]


def test_only_the_nearest_kept_due_times_and_the_hosts_whose_numbers_moved_are_worked_out_again(monkeypatch):
    # two hosts, each a listing of rate 100 and one of 4, budget p = 3 a host:
    # θ = (10 + 2)² / 18 = 8, the first listing due at √(2·8/100) h = 1,440 s
    s = HubSchedule(threshold=100.0)
    for host in ("a", "b"):
        for path, rate in (("z", 100.0), ("x", 4.0)):
            s.add(f"http://{host}/{path}", now=0.0, rate=rate)
    assert s.next_due(1_400.0, budgets={"a": (3.0, None), "b": (3.0, None)}) == (None, pytest.approx(40.0))
    floors, floor = [], s._floor

    def counted(entry, *args, **kwargs):
        floors.append(entry.url)
        return floor(entry, *args, **kwargs)

    monkeypatch.setattr(s, "_floor", counted)
    # a new reckoning of the same numbers: the two nearest worked out (the wait), not the others
    assert s.next_due(1_410.0, budgets={"a": (3.0, None), "b": (3.0, None)}) == (None, pytest.approx(30.0))
    assert floors == ["http://a/z", "http://b/z"]
    floors.clear()
    # b's budget doubled: θ_b = 144/72 = 2, b's first listing due at √(2·2/100) h = 720 s;
    # a's kept due times stand (not looked at: something is due)
    assert s.next_due(1_420.0, budgets={"a": (3.0, None), "b": (6.0, None)}) == ("http://b/z", 0.0)
    assert floors == ["http://b/x"]


def test_a_schedule_is_true_while_a_live_entry_is_left():
    s = HubSchedule()
    for path in ("a", "b", "c"):
        s.add(f"http://h/{path}")
    s.entry("http://h/a").barren = True  # (a day page closed long ago, first in the weblog)
    assert s and len(s) == 2
    s.entry("http://h/b").barren = True  # the live one found last time: another is looked for
    assert s
    s.entry("http://h/c").barren = True
    assert not s
    s.entry("http://h/a").barren = False
    assert s
    s.remove("http://h/a")
    assert not s


def test_a_site_s_day_learnt_works_out_again_its_own_listings_due_times_only(monkeypatch):
    # a: one listing of rate 1, budget 0.5: θ = 1/(2·0.25) = 2, due at √(2·2/1) h = 2 h;
    # b: rates 100 and 1, budget 3: θ = 11²/18, the first due at √(2θ/100) h = 1,320 s
    s = HubSchedule(threshold=100.0)
    s.add("http://a/x", now=0.0, rate=1.0)
    s.add("http://b/z", now=0.0, rate=100.0)
    s.add("http://b/x", now=0.0, rate=1.0)
    budgets = {"a": (0.5, None), "b": (3.0, None)}
    assert s.next_due(1_300.0, budgets=budgets) == (None, pytest.approx(20.0))
    floors, floor = [], s._floor

    def counted(entry, *args, **kwargs):
        floors.append(entry.url)
        return floor(entry, *args, **kwargs)

    monkeypatch.setattr(s, "_floor", counted)
    # a's stories named two days in a row, at 10:00 UTC each: a's days are learnt
    for day in ("2024/01/02", "2024/01/03"):
        url = f"http://a/{day}/story/"
        assert s.observe_day(url, s.day_end(url) - 14 * HOUR)
    assert s.site_days.known("a")
    assert s.next_due(1_330.0, budgets=budgets) == ("http://b/z", 0.0)
    assert floors == ["http://a/x"]  # b's other listing: its kept due time


def test_listings_due_on_a_host_to_be_skipped_wait_unseen_until_it_is_not(monkeypatch):
    # two hosts, each a listing of rate 100 (due at 1,440 s: θ = 8, as above) and one of 4;
    # a third, c, whose one listing (rate 100, θ = 10²/18) was visited at 1,000 s: due at 2,200 s
    s = HubSchedule(threshold=100.0)
    for host in ("a", "b"):
        for path, rate in (("z", 100.0), ("x", 4.0)):
            s.add(f"http://{host}/{path}", now=0.0, rate=rate)
    s.add("http://c/z", now=1_000.0, rate=100.0)
    budgets = {"a": (3.0, None), "b": (3.0, None), "c": (3.0, None)}
    measured, measure = [], s._due_measure

    def counted(entry, *args, **kwargs):
        measured.append(entry.url)
        return measure(entry, *args, **kwargs)

    def skipping(*hosts):
        def skip(host):
            return host in hosts
        return skip

    def decide(now, skip):
        """next_due, checked against what a schedule that keeps nothing (a clone) decides."""
        url, wait = s.clone().next_due(now, budgets=budgets, skip=skip)
        measured.clear()
        answer = s.next_due(now, budgets=budgets, skip=skip)
        assert answer == (url, pytest.approx(wait))
        return answer

    monkeypatch.setattr(s, "_due_measure", counted)
    # a and b to be skipped: their due listings passed over, c's the wait
    assert decide(1_500.0, skipping("a", "b")) == (None, pytest.approx(700.0))
    # ... and at the next decision not looked at, nor are a's and b's listings not due (their due
    # times kept, not counted in the wait): only c's, the nearest kept one, for the wait
    assert decide(1_510.0, skipping("a", "b")) == (None, pytest.approx(690.0))
    assert measured == ["http://c/z"]
    # b no longer skipped: its due listing is looked at again, and goes
    assert decide(1_520.0, skipping("a")) == ("http://b/z", 0.0)
    assert measured == ["http://b/z"]  # not a's due one
    s.begin("http://b/z", 1_520.0)
    # a field of a's due listing set while a is still skipped: it is looked at again (and
    # passed over)
    s.entry("http://a/z").listed_rate = 50.0
    assert decide(1_530.0, skipping("a", "b")) == (None, pytest.approx(670.0))
    assert measured == ["http://a/z", "http://c/z"]
    # nothing skipped: the first due one in the schedule's order goes
    assert decide(1_540.0, None) == ("http://a/z", 0.0)


def test_a_due_time_kept_on_a_host_to_be_skipped_does_not_hide_a_later_one():
    # p's listing and q's, rate 100 each under a budget of 3 (θ = 10²/18: due 1,200 s after a
    # visit), visited at 1,000 s and 1,100 s: due at 2,200 s and 2,300 s
    s = HubSchedule(threshold=100.0)
    s.add("http://p/z", now=1_000.0, rate=100.0)
    s.add("http://q/z", now=1_100.0, rate=100.0)
    budgets = {"p": (3.0, None), "q": (3.0, None)}
    assert s.next_due(1_500.0, budgets=budgets) == (None, pytest.approx(700.0))
    # p to be skipped: its due time, the nearest kept, is worked out again and not counted; the
    # wait is q's (not none at all: p's due time worked out again is no reason to stop looking)
    assert s.next_due(1_510.0, budgets=budgets, skip=lambda host: host == "p") == (None, pytest.approx(790.0))
