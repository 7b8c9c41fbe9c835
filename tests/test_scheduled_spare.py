"""Quiet listings and the spare budget (issue 31, item 4): the listing visits a budget has
beyond what the threshold is given go to the visited listings at their spare rates (their
rate, or one story per floor when that is larger: a listing that has not paid yet has only
this prior), in the proportions that minimise the mean lag. Hand-computed cases."""

from __future__ import annotations

import math
import time
from urllib.parse import urlsplit

import pytest

from newsforagers.learning.schedule import HOUR, HubSchedule
from newsforagers.strategies.scheduled import Fetch
from tests.test_scheduled import HOME, T0, _driver, _paying, at, dated, make

A, B = "http://a.example/", "http://b.example/"


def _quiet(**kwargs) -> HubSchedule:
    """Host a: a front seen once that dated nothing (floor: max_interval, 3 h: prior 1/3 a
    story an hour) and a section whose dates show one story in 12 hours (floor 12 h: prior
    1/12); host b: the same front. None has paid; all last visited at T0."""
    schedule = HubSchedule(rhythm=False, **kwargs)
    for url in (A + "front/", A + "section/", B + "front/"):
        schedule.add(url, now=T0, rate=0.0)
    schedule.entry(A + "section/").listed_rate = 1.0 / 12.0
    return schedule


def test_listings_that_have_not_paid_have_one_story_per_floor_as_prior():
    schedule = _quiet()
    assert schedule.prior_rate(schedule.entry(A + "front/")) == pytest.approx(1.0 / 3.0)
    assert schedule.prior_rate(schedule.entry(A + "section/")) == pytest.approx(1.0 / 12.0)
    # per host, Σ√prior ("lag"): a: √(1/3) + √(1/12) = 0.866; b: √(1/3) = 0.577
    assert schedule.prior_demands() == {"a.example": pytest.approx(math.sqrt(1 / 3) + math.sqrt(1 / 12)),
                                        "b.example": pytest.approx(math.sqrt(1 / 3))}
    # a listing that has paid has a rate, not a prior; one never visited goes first anyway
    schedule.add(A + "paid/", now=T0, rate=2.0)
    schedule.entry(A + "paid/").paid = 1
    schedule.add(A + "new/")
    assert schedule.prior_rate(schedule.entry(A + "paid/")) == 0.0
    assert schedule.prior_rate(schedule.entry(A + "new/")) == 0.0
    assert set(schedule.prior_demands()) == {"a.example", "b.example"}


def test_the_spare_budget_visits_quiet_listings_in_proportion_to_the_root_of_their_priors():
    schedule = _quiet()
    schedule.remove(B + "front/")
    # 2 spare visits an hour over priors 1/3 and 1/12 ("lag"): c = (√(1/3) + √(1/12)) / 2 =
    # 0.433; the front is due after c/√(1/3) = 0.75 h, the section after c/√(1/12) = 1.5 h
    # (1/0.75 + 1/1.5 = 2 visits an hour); without it both wait their floors, 3 and 12 hours
    assert schedule.next_due(T0 + 44 * 60) == (None, pytest.approx(3 * HOUR - 44 * 60))
    assert schedule.next_due(T0 + 44 * 60, spare=2.0) == (None, pytest.approx(60.0))
    assert schedule.next_due(T0 + 45 * 60 + 1, spare=2.0) == (A + "front/", 0.0)
    assert schedule.spare_due  # due by the spare budget alone
    schedule.begin(A + "front/", T0 + 45 * 60 + 1)
    schedule.visited(A + "front/", 0, now=T0 + 45 * 60 + 1)
    assert schedule.next_due(T0 + 89 * 60, spare=2.0)[0] is None
    assert schedule.next_due(T0 + 90 * 60 + 1, spare=2.0) == (A + "section/", 0.0)


def test_what_the_threshold_or_floor_makes_due_goes_before_the_spare_budget_s_visits():
    schedule = _quiet()
    schedule.add(A + "paid/", now=T0, rate=4.0)  # paid 4 an hour: due by the threshold 0.07
    schedule.entry(A + "paid/").paid = 1  # at √(2·0.07/4) h = 673.5 s
    due = math.sqrt(2 * 0.07 / 4.0) * HOUR
    assert schedule.spare_rate(schedule.entry(A + "paid/")) == 4.0  # its rate: above one per 3-h floor
    # 4 spare visits an hour over spare rates 4, 1/3, 1/12, 1/3: c = (2 + 2·0.577 + 0.289)/4 =
    # 0.861; the paying listing is due by them after c/2 = 0.43 h (1,550 s), later than by the
    # threshold: the threshold's due time stands, and what it makes due goes first
    assert schedule.next_due(T0 + due - 1, spare=4.0)[0] is None
    assert schedule.next_due(T0 + due + 1, spare=4.0) == (A + "paid/", 0.0)
    assert not schedule.spare_due  # due by the threshold
    # the fronts are due by the spare budget after c/√(1/3) = 1.49 h (a's and b's alike)
    c = (2 + 2 * math.sqrt(1 / 3) + math.sqrt(1 / 12)) / 4
    front = c / math.sqrt(1 / 3) * HOUR
    schedule.begin(A + "paid/", T0 + due + 1)  # (in flight: its rate still counts in c)
    assert schedule.next_due(T0 + front - 1, spare=4.0)[0] is None
    assert schedule.next_due(T0 + front + 1, spare=4.0)[0] in {A + "front/", B + "front/"}
    # a listing due by the threshold or its floor goes before any the spare budget makes due,
    # whatever their spare rates
    schedule.entry(A + "section/").last = T0 - 12 * HOUR  # its floor: 12 hours
    assert schedule.next_due(T0 + front + 1, spare=4.0) == (A + "section/", 0.0)


def test_the_spare_budget_per_host_goes_to_that_host_s_quiet_listings_only():
    schedule = _quiet()
    # b has 1 spare visit an hour for its one front: due after 1 h; a has none: 3 h floors
    url, wait = schedule.next_due(T0 + 59 * 60, spare={"b.example": 1.0})
    assert url is None and wait == pytest.approx(60.0)
    assert schedule.next_due(T0 + 60 * 60 + 1, spare={"b.example": 1.0}) == (B + "front/", 0.0)
    # a busy host's listings are passed over, spare or not
    assert schedule.next_due(T0 + 60 * 60 + 1, spare={"b.example": 1.0},
                             skip=lambda host: host == "b.example")[0] is None


def test_the_mind_s_spare_is_the_budget_the_yield_bound_withheld():
    forager = make(FORAGERS_SCHEDULE_POLL_YIELD=0.5)
    host = urlsplit(HOME).hostname
    forager.schedule = _paying(1.0)  # listings that pay 1 a story an hour in all
    # one budget (the simulator's): 60 visits an hour, of which the yield bound lets the
    # threshold spend 1/0.5 = 2: 58 spare
    forager.poll_rate = 60.0
    assert forager._spare(at(0), None) == pytest.approx(60.0 - forager.schedule.novelty() / 0.5)
    # per host (the driver's): the host allows 30 in all; the threshold's budget on it is 2
    forager.poll_rates = {host: 20.0}
    forager.spare_rates = {host: 30.0, "quiet.example": 6.0}
    budgets = forager._host_budgets(at(0))
    assert budgets[host][0] == pytest.approx(forager.schedule.novelty() / 0.5)
    assert forager._spare(at(0), budgets) == {host: pytest.approx(30.0 - forager.schedule.novelty() / 0.5),
                                               "quiet.example": pytest.approx(6.0)}
    forager.spare_rates = {host: 1.0}  # less than the threshold's: nothing spare
    assert forager._spare(at(0), budgets) is None


def test_the_host_budgets_are_reckoned_with_the_driver_s_rates():
    # what the next listing is decided under: the hosts' budgets and the spare budget of the
    # rates the driver last gave, reckoned once for them (each is a pass over every host and
    # listing), again when it gives new ones or a simulated minute has passed
    forager = make(FORAGERS_SCHEDULE_POLL_YIELD=0.5)
    host = urlsplit(HOME).hostname
    forager.schedule = _paying(1.0)
    forager.poll_rates, forager.spare_rates = {host: 20.0}, {host: 30.0}
    budgets, spare = forager._budgets(at(0))
    assert budgets[host][0] == pytest.approx(2.0)  # 1 story an hour over the yield of 0.5
    assert spare == {host: pytest.approx(28.0)}
    forager.schedule.raise_rate(HOME + "front/", 4.0)  # (a visit or a credit moves a rate)
    assert forager._budgets(at(0.9)) == (budgets, spare)
    assert forager._budgets(at(1))[0][host][0] == pytest.approx(8.0)  # a minute later
    forager.schedule.raise_rate(HOME + "front/", 5.0)
    forager.poll_rates = {host: 20.0}  # the driver's next reckoning, even of equal rates
    budgets, spare = forager._budgets(at(1.1))
    assert budgets[host][0] == pytest.approx(10.0) and spare == {host: pytest.approx(20.0)}


def test_once_paced_the_budgets_hold_until_the_next_reckoning_whatever_the_clock():
    # a crawler's driver paces the reckonings (by what they cost it): a simulated hour later,
    # the same rates, the same budgets; at the driver's next reckoning, reckoned again
    forager = make(FORAGERS_SCHEDULE_POLL_YIELD=0.5)
    host = urlsplit(HOME).hostname
    forager.schedule = _paying(1.0)
    forager.poll_rates, forager.spare_rates = {host: 20.0}, {host: 30.0}
    forager.schedule.reckon()
    budgets, spare = forager._budgets(at(0))
    thresholds = forager.schedule._reckon_hosts(budgets, at(0))
    forager.schedule.raise_rate(HOME + "front/", 4.0)
    assert forager._budgets(at(60)) == (budgets, spare)
    assert forager.schedule._reckon_hosts(budgets, at(60)) is thresholds
    forager.schedule.reckon()
    assert forager._budgets(at(60))[0][host][0] == pytest.approx(8.0)  # 4 stories an hour over 0.5
    assert forager.schedule._reckon_hosts(budgets, at(60)) is not thresholds
    # restored from its state, the schedule is paced as before (by the crawler, not the state)
    forager.restore(forager.to_state())
    assert forager.schedule.paced


def test_the_driver_shares_a_host_s_budget_by_demand_and_priors(monkeypatch):
    monkeypatch.setattr("newsforagers.driver.scheduled._RATES_EVERY", 0.0)  # reckoned at each decision,
    monkeypatch.setattr("newsforagers.driver.scheduled._RECKONING_SHARE", 1.0)  # whatever it costs
    monkeypatch.setattr("newsforagers.driver.scheduled._SHARE_DEMAND_LEAST", 0.0)  # shared and read so too
    driver, forager = _driver(FORAGERS_SCHEDULE_POLL_SHARE=0.5)
    store, now = driver.store, time.time()
    store.join("f1", now + 60, now)
    host = urlsplit(HOME).hostname
    forager.schedule = _paying(4.0)  # demand √4 = 2 on the host
    quiet = "http://quiet.example/"
    forager.schedule.add(quiet, now=T0, rate=0.0)  # a host whose listing has not paid: prior 1/3
    driver.next_step_request()
    # 20 requests/s at 600× is 120 a simulated hour, half for listings: 60 on each host
    assert forager.poll_rates == {host: pytest.approx(60.0)}
    assert forager.spare_rates == {host: pytest.approx(60.0), "quiet.example": pytest.approx(60.0)}
    shared = store.members(now)["f1"].fields
    assert shared["priors"] == {"quiet.example": pytest.approx(math.sqrt(1 / 3))}
    # a second member with a prior of √(1/3) on the quiet host and demand 2 on the first:
    # each has half of either host's budget in all (2 against 2 + 2; √(1/3) against 2·√(1/3))
    store.join("f2", now + 60, now, fields={"demands": {host: 2.0}, "priors": {"quiet.example": math.sqrt(1 / 3)}})
    forager.in_flight = 0
    driver.next_step_request()
    assert forager.poll_rates == {host: pytest.approx(30.0)}
    assert forager.spare_rates == {host: pytest.approx(30.0), "quiet.example": pytest.approx(30.0)}


def test_a_listing_another_forager_reads_first_is_no_evidence_and_gets_no_spare_visit():
    # Two foragers hold the home page; the other one claims every story first. This one's
    # visits show the same unclaimed stories as new links again and again: were they wasted
    # visits, the home page would be barren after three (its last listing: the forager would
    # end), and its prior would draw spare visits to pages it never gets to fetch.
    claimed: set[str] = set()
    forager = make(claimed=claimed, FORAGERS_SCHEDULE_MIN_INTERVAL=0.0)
    stories = [HOME + f"s{i}/" for i in range(3)]
    claimed.update(stories)  # the other forager's, first
    for minute in (0, 10, 20, 30):
        visit = forager.next_fetch(at(minute)) if minute == 0 else None
        if visit is None:
            forager.schedule.begin(HOME, at(minute))
            visit = Fetch(HOME, "listing", 100 + minute)
        forager.on_page(visit, at(minute), text="c1", links=stories, published=None,
                        listed={u: dated(5, at(minute)) for u in stories})
    entry = forager.schedule.entry(HOME)
    assert entry.covered and not entry.barren and entry.evidence == 0
    assert forager.schedule.prior_rate(entry) == 0.0 and forager.schedule.spare_rate(entry) == 0.0
    assert len(forager.schedule) == 1 and not forager.done
    # a visit showing a story of its own: covered no more, a prior again (one story per floor)
    forager.schedule.begin(HOME, at(40))
    forager.on_page(Fetch(HOME, "listing", 200), at(40), text="c1", links=[*stories, HOME + "mine/"],
                    published=None, listed={u: dated(5, at(40)) for u in [*stories, HOME + "mine/"]})
    assert not entry.covered and forager.schedule.prior_rate(entry) > 0


def test_the_forager_counts_the_visits_the_spare_budget_made():
    # the seed read once at T0 (showing nothing); 60 visits an hour for listings and nothing
    # earned by rates: all spare, the home page (prior one story per 3-h floor) due after 1 min
    forager = make()
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[], published=None)
    assert forager.next_fetch(at(0.5)) is None
    forager.poll_rate = 60.0
    assert forager._spare(at(1.5), None) == pytest.approx(60.0)
    fetch = forager.next_fetch(at(1.5))
    assert fetch.url == HOME and fetch.kind == "listing"
    assert forager.counters.listings == 2 and forager.counters.spare_visits == 1


def test_today_s_page_expects_of_the_spare_budget_the_stories_its_dates_show():
    # the day archive of 2024-03-05 visited at 03:00 UTC: its dates show 12 stories an hour,
    # none found there first (rate 0, unpaid: its floor is max_interval, 3 h, a prior of 1/3);
    # a section whose dates show as many, beside it
    night = 1_709_607_600.0  # 2024-03-05 03:00 UTC
    schedule = HubSchedule(rhythm=False)
    today, section = A + "archive/2024/03/05/", A + "section/"
    for url in (today, section):
        schedule.add(url, now=night, rate=0.0)
        schedule.entry(url).listed_rate = 12.0
    assert schedule.prior_rate(schedule.entry(today)) == pytest.approx(1 / 3)  # (the floor's alone)
    # the page that lists the whole day expects what its dates show; the section its floor's
    assert schedule.spare_rate(schedule.entry(today), night + 60) == pytest.approx(12.0)
    assert schedule.spare_rate(schedule.entry(section), night + 60) == pytest.approx(1 / 3)
    # the next day (the page no longer today's, wherever the site is) it is a listing as any
    assert schedule.spare_rate(schedule.entry(today), night + 40 * HOUR) == pytest.approx(1 / 3)
    # 2 spare visits an hour ("lag"): c = (√12 + √(1/3)) / 2 = 2.021; today's page is due after
    # c/√12 = 0.583 h (2,100 s), the section after c/√(1/3) = 3.5 h, past its floor of 3 h
    c = (math.sqrt(12.0) + math.sqrt(1 / 3)) / 2
    due = c / math.sqrt(12.0) * HOUR
    assert schedule.next_due(night + due - 1, spare=2.0)[0] is None
    assert schedule.next_due(night + due + 1, spare=2.0) == (today, 0.0) and schedule.spare_due
    # without a spare budget, both wait their floors
    assert schedule.next_due(night + due + 1) == (None, pytest.approx(3 * HOUR - due - 1))
