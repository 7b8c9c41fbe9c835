"""The scheduled forager's mind (issue 7): harvest first, articles fetched once, listed old
items skipped, rewards credited to the listing, idling, exploration's share, persistence."""

from __future__ import annotations

import dataclasses
import math
import time
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from urllib.parse import urlsplit

import numpy as np
import pytest

from newsforagers.config import ForagersConfig
from newsforagers.store import MemoryStore
from newsforagers.strategies.scheduled import (
    NEWS_PRIORITY,
    Fetch,
    ScheduledCounters,
    ScheduledMind,
    schedule_from_config,
)

K = 4
T0 = datetime(2024, 1, 1, 12, tzinfo=UTC).timestamp()
HOME = "http://s/"


class OneHot:
    n_clusters_ = K

    def transform(self, texts):
        rows = np.full((len(texts), K), -1.0)
        for i, text in enumerate(texts):
            rows[i, int(text[1]) % K if text[:1] == "c" else 0] = 1.0
        return rows


def make(claimed=None, **settings):
    config = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": K, "FORAGERS_BOOTSTRAP_PAGES": K,
                                           "FORAGERS_EXPLORE_SHARE": 0.0, **settings})
    claimed = set() if claimed is None else claimed

    def claim(url):
        if url in claimed:
            return False
        claimed.add(url)
        return True

    return ScheduledMind("f1", config, schedule_from_config(config, [HOME]), np.ones(K),
                            np.random.default_rng(0), encoder=OneHot(), claim=claim, seeds=[HOME])


def at(minutes: float) -> float:
    return T0 + 60 * minutes


def dated(minutes_ago: float, now: float) -> datetime:
    return datetime.fromtimestamp(now - 60 * minutes_ago, UTC)


def test_a_listing_s_new_links_are_fetched_first_and_articles_only_once():
    forager = make()
    visit = forager.next_fetch(at(0))
    assert visit == Fetch(HOME, "listing", 1)
    forager.on_page(visit, at(0), text="c1 home", links=[HOME + "a/", HOME + "b/", HOME + "sec/"], published=None)
    fetched = [forager.next_fetch(at(0)) for _ in range(3)]
    assert {f.url for f in fetched} == {HOME + "a/", HOME + "b/", HOME + "sec/"}
    assert all(f.kind == "harvest" and f.visit == 1 for f in fetched)
    for fetch in fetched:
        is_article = fetch.url != HOME + "sec/"
        links = [HOME, HOME + "a/", HOME + "c/"] if not is_article else [HOME]
        forager.on_page(fetch, at(1), text="c2 story", links=links,
                        published=dated(5, at(1)) if is_article else None)
    # the undated page is a listing, and everything the home page showed was new: it was
    # read at once (a front's next page); the article it shows again is not fetched again
    assert (HOME + "sec/") in forager.schedule
    assert forager.schedule.entry(HOME + "sec/").visits == 1
    assert forager.next_fetch(at(1)) == Fetch(HOME + "c/", "harvest", 2)
    assert forager.next_fetch(at(1)) is None


def test_listed_items_older_than_the_window_are_not_fetched():
    forager = make()
    visit = forager.next_fetch(at(0))
    old, new = HOME + "old/", HOME + "new/"
    forager.on_page(visit, at(0), text="c1", links=[old, new], published=None,
                    listed={old: dated(25 * 60, at(0)), new: dated(10, at(0))})
    assert forager.next_fetch(at(0)).url == new
    assert forager.counters.old_listed == 1


def test_a_link_another_forager_claimed_is_left_to_it():
    forager = make(claimed={HOME + "taken/"})
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[HOME + "taken/", HOME + "mine/"], published=None)
    assert forager.next_fetch(at(0)).url == HOME + "mine/"
    assert forager.next_fetch(at(0)) is None


def test_a_listing_s_links_are_claimed_in_one_batch():
    calls: list[list[str]] = []
    colony = {HOME + "s1/"}  # queued by another forager

    def claim_many(urls):
        calls.append(list(urls))
        mine = [u for u in urls if u not in colony]
        colony.update(mine)
        return mine

    forager = make(FORAGERS_SCHEDULE_MIN_INTERVAL=0.0, FORAGERS_SCHEDULE_THRESHOLD=0.0)
    forager.claim = lambda url: pytest.fail("a listing's links are never claimed one by one")
    forager.claim_many = claim_many
    visit = forager.next_fetch(at(0))
    links = [HOME + f"s{i}/" for i in range(200)]
    forager.on_page(visit, at(0), text="c1", links=links, published=None)
    assert calls == [links]  # one call, every new link, in the page's order
    fetched = [forager.next_fetch(at(0)) for _ in range(199)]
    assert {f.kind for f in fetched} == {"harvest"}  # what the colony had queued is left to it
    assert sorted(f.url for f in fetched) == sorted(links[:1] + links[2:])
    # the next visit claims only what this forager has not queued before, again at once
    visit = forager.next_fetch(at(1))
    assert visit.kind == "listing"
    forager.on_page(visit, at(1), text="c1", links=links + [HOME + "new/"], published=None)
    assert calls[1:] == [[HOME + "s1/", HOME + "new/"]]


def test_the_scheduled_forager_takes_claim_many_from_its_builder():
    config = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": K, "FORAGERS_BOOTSTRAP_PAGES": K})
    calls = []
    forager = ScheduledMind("f1", config, schedule_from_config(config, [HOME]), np.ones(K),
                               np.random.default_rng(0), encoder=OneHot(), seeds=[HOME],
                               claim_many=lambda urls: calls.append(urls) or urls)
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[HOME + "a/", HOME + "b/"], published=None)
    assert calls == [[HOME + "a/", HOME + "b/"]]


def test_rewards_are_credited_to_the_listing_and_nothing_due_means_idle():
    forager = make(FORAGERS_SCHEDULE_MIN_INTERVAL=60.0, FORAGERS_SCHEDULE_THRESHOLD=0.5,
                   FORAGERS_SCHEDULE_PRIORITY="return", FORAGERS_SCHEDULE_MAX_INTERVAL=86400.0)
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[HOME + "a/", HOME + "b/"], published=None)
    for _ in range(2):
        fetch = forager.next_fetch(at(0))
        forager.on_page(fetch, at(0), text="c2", links=[], published=dated(3, at(0)))
        forager.on_reward(fetch.visit, 99.0, True)
    entry = forager.schedule.entry(HOME)
    assert entry.paid == 2 and entry.rate == pytest.approx(2 / 24)  # 2 fresh a day: first visit
    assert forager.next_fetch(at(0.5)) is None
    # 0.5 expected documents at 2/24 per hour: due 6 hours after the visit
    assert forager.wait == pytest.approx(6 * 3600 - 30, abs=1)
    assert forager.next_fetch(at(6 * 60)).url == HOME


def test_a_scheduled_page_that_turns_out_to_be_an_article_leaves_the_weblog():
    forager = make()
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[], published=dated(1, at(0)))
    assert HOME not in forager.schedule and forager.done


def test_exploration_keeps_to_its_share_of_requests():
    forager = make(FORAGERS_EXPLORE_SHARE=0.2, FORAGERS_SCHEDULE_MIN_INTERVAL=0.0,
                   FORAGERS_SCHEDULE_THRESHOLD=0.0)
    kinds = []
    for minute in range(300):
        fetch = forager.next_fetch(at(minute))
        if fetch is None:
            continue
        kinds.append(fetch.kind)
        # listings show new stories; a story links a page only it links (where exploration goes)
        links = [f"{HOME}p{minute}-{i}/" for i in range(2)]
        published = dated(5, at(minute)) if fetch.kind == "harvest" else None
        forager.on_page(fetch, at(minute), text=f"c{minute % K}", links=links, published=published)
    share = kinds.count("explore") / len(kinds)
    assert 0.15 < share <= 0.2 + 1 / len(kinds), Counter(kinds)
    # harvest comes first: exploration only takes what harvesting leaves of its share
    assert forager.counters.explored == kinds.count("explore")


def test_state_round_trip_and_a_strategy_mismatch_is_refused():
    forager = make()
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[HOME + "sec/"], published=None)
    state = forager.to_state()
    other = make()
    other.restore(state)
    assert other.schedule.entry(HOME).visits == 1
    with pytest.raises(ValueError, match="scheduled"):
        other.restore({"weblog": {}, "weights": [0.0] * K})


def test_energy_population_is_refused_with_the_scheduled_strategy():
    with pytest.raises(ValueError, match="FORAGERS_STRATEGY"):
        ForagersConfig.from_settings({"FORAGERS_STRATEGY": "scheduled", "FORAGERS_POPULATION": "energy"})


def test_navigation_of_a_dated_listing_waits_as_a_candidate_for_exploration_s_share():
    forager = make(FORAGERS_EXPLORE_SHARE=0.5)
    forager.schedule.add(HOME + "section/a/")  # not a seed: a seed's first visit maps the site
    forager.schedule.remove(HOME)
    visit = forager.next_fetch(at(0))
    story, old, nav = HOME + "story/", HOME + "old/", HOME + "section/b/"
    forager.on_page(visit, at(0), text="c1", links=[story, old, nav], published=None,
                    listed={story: dated(5, at(0)), old: dated(30 * 60, at(0))})
    first = forager.next_fetch(at(0))
    assert first == Fetch(story, "harvest", visit.visit)  # the fresh story at once
    forager.on_page(first, at(0), text="c2", links=[], published=dated(5, at(0)))
    # the navigation link is a candidate: its first visit comes out of exploration's share
    candidate = forager.next_fetch(at(0))
    assert candidate == Fetch(nav, "candidate", visit.visit)
    forager.on_page(candidate, at(1), text="c3", links=[HOME + "b1/"], published=None,
                    listed={HOME + "b1/": dated(1, at(1))})
    assert nav in forager.schedule and forager.schedule.entry(nav).visits == 1  # read at once
    assert forager.next_fetch(at(1)).url == HOME + "b1/"


def test_when_every_listed_story_is_new_and_fresh_the_next_pages_are_fetched_at_once():
    forager = make()
    visit = forager.next_fetch(at(0))
    stories = [HOME + f"s{i}/" for i in range(3)]
    page2 = HOME + "?page=2"
    forager.on_page(visit, at(0), text="c1", links=stories + [page2], published=None,
                    listed={u: dated(10, at(0)) for u in stories})
    fetched = {forager.next_fetch(at(0)).url for _ in range(4)}
    assert fetched == set(stories) | {page2}


def test_news_is_harvested_before_the_backlog_the_oldest_first():
    forager = make()
    visit = forager.next_fetch(at(0))  # the forager begins at minute 0
    backlog = [HOME + f"old{i}/" for i in range(2)]
    forager.on_page(visit, at(0), text="c1", links=backlog, published=None,
                    listed={u: dated(240 + i, at(0)) for i, u in enumerate(backlog)})
    # before the backlog is fetched, a listing shows two stories published since it began
    section = HOME + "sec/"
    forager.schedule.add(section)
    forager.schedule.begin(section, at(5))
    news = {HOME + "late/": dated(1, at(5)), HOME + "early/": dated(3, at(5))}
    forager.on_page(Fetch(section, "listing", 99), at(5), text="c1", links=list(news),
                    published=None, listed=news)
    fetches = [forager.next_fetch(at(5)) for _ in range(4)]
    order = [fetch.url for fetch in fetches]
    assert order[:2] == [HOME + "early/", HOME + "late/"]
    assert set(order[2:]) == set(backlog)
    # news goes before other foragers' listing visits in the colony's host budget; the
    # backlog and the listings wait their turn
    assert [fetch.priority for fetch in fetches] == [NEWS_PRIORITY, NEWS_PRIORITY, 0, 0]
    listing = forager.next_fetch(at(200))
    assert listing.kind == "listing" and listing.priority == 0


def _one_listing(**settings):
    forager = make(FORAGERS_SCHEDULE_THRESHOLD=0.5, FORAGERS_SCHEDULE_PRIORITY="lag",
                   FORAGERS_SCHEDULE_MAX_INTERVAL=86400.0, **settings)
    forager.schedule.add(HOME + "sec/", now=at(0), rate=1.0)  # one document an hour
    forager.schedule.entry(HOME + "sec/").paid = 1
    forager.schedule.remove(HOME)
    return forager


def test_the_poll_rate_the_driver_sets_lowers_the_threshold():
    forager = _one_listing(FORAGERS_SCHEDULE_POLL_YIELD=0)
    assert forager.next_fetch(at(15)) is None  # due after an hour at 0.5 document-hours
    forager.poll_rate = 4.0  # four visits an hour: every 15 minutes
    assert forager.next_fetch(at(15)).url == HOME + "sec/"


def test_the_threshold_buys_only_visits_that_expect_the_yield_and_the_rest_is_spare():
    # one document an hour and a yield of 0.5 a visit: the threshold gets 2 visits an hour,
    # whatever the budget (threshold 1/(2·2²) = 0.125 document-hours: due after 30 minutes)
    forager = _one_listing(FORAGERS_SCHEDULE_POLL_YIELD=0.5, FORAGERS_SCHEDULE_MIN_INTERVAL=0.0)
    forager.poll_rate = 60.0
    assert forager.schedule.novelty() == pytest.approx(1.0)
    assert forager._visit_budget(at(0)) == pytest.approx(2.0)
    # the other 58 are spare: the one listing (spare rate max(1, one per 24-h floor) = 1) is
    # due by them after 1/58 h (62.1 s), not 30 minutes
    assert forager._spare(at(0), None) == pytest.approx(58.0)
    assert forager.next_fetch(at(1.0)) is None
    assert forager.next_fetch(at(1.05)).url == HOME + "sec/"
    # a budget of 2 an hour has nothing spare: the threshold alone, due after 30 minutes
    forager = _one_listing(FORAGERS_SCHEDULE_POLL_YIELD=0.5)
    forager.poll_rate = 2.0
    assert forager._spare(at(0), None) is None
    assert forager.next_fetch(at(29)) is None
    assert forager.next_fetch(at(31)).url == HOME + "sec/"


def test_a_topic_s_listings_get_the_visits_the_site_s_news_would_buy():
    # One on-topic document an hour on the listing, among the 60 stories an hour (of every
    # topic) the forager has met in the last 6 hours, one novel document in 60 on the topic.
    # Without a topic the yield of 0.5 a visit bounds visits at 1/0.5 = 2 an hour (due after
    # 30 minutes, as above); with one, at 60/0.5 = 120, more than the budget of 60: threshold
    # 1/(2·60²) document-hours, due after a minute.
    now = at(0)
    stories = {f"{HOME}s{i}/": dated(i * 6 / 360 * 60, now) for i in range(360)}
    # (Without a topic the 58 visits beyond the bound are spare, spent at the listing's spare
    # rate: due after 1/58 h; with one, all 60 are the threshold's: due after 1/60 h.)
    for topic, budget, due in (("", 2.0, 31), ("solar energy", 60.0, 1.01)):
        forager = _one_listing(FORAGERS_SCHEDULE_POLL_YIELD=0.5, FORAGERS_TOPIC=topic,
                               FORAGERS_SCHEDULE_MIN_INTERVAL=0.0)
        forager._observe_dates(stories, now, listing=True)
        forager.counters.off_topic = 59 if topic else 0
        forager.poll_rate = 60.0
        assert forager._visit_budget(at(0)) == pytest.approx(budget), topic
        assert (forager._spare(at(0), None) or 0.0) == pytest.approx(60.0 - budget), topic
        forager.poll_rate = budget  # the threshold's share alone
        assert forager.next_fetch(at(due * 0.9)) is None, topic
        assert forager.next_fetch(at(due)).url == HOME + "sec/", topic


def _paid_due(forager, minutes: float) -> bool:
    # the budget FORAGERS_SCHEDULE_POLL_YIELD's 0.3 a visit allows one document an hour: none spare
    forager.poll_rate = 1.0 / 0.3
    fetch = forager.next_fetch(at(minutes))
    return fetch is not None and fetch.url == HOME + "sec/"


def test_the_yield_a_visit_must_expect_follows_the_budget_and_the_topic_s_share():
    forager = _one_listing(FORAGERS_SCHEDULE_VISIT_YIELD=0.5)
    assert forager._visit_yield() == 0.0  # no budget: the threshold alone
    forager.poll_rate = 1.0 / 0.3
    assert forager._visit_yield() == 0.5
    # one document an hour: due when it expects half a document, after 30 minutes, though
    # the budget's threshold would call it after 18 (FORAGERS_SCHEDULE_POLL_YIELD's 0.3 a
    # visit on average: 1/0.3 visits an hour, θ = 1/(2·(1/0.3)²) document-hours)
    assert _paid_due(_one_listing(), 18.5) and not _paid_due(_one_listing(), 17.5)
    assert forager.next_fetch(at(29)) is None
    assert forager.next_fetch(at(30.5)).url == HOME + "sec/"
    topical = _one_listing(FORAGERS_SCHEDULE_VISIT_YIELD=0.5, FORAGERS_TOPIC="solar energy")
    topical.poll_rate = 60.0
    topical.counters.rewarded, topical.counters.off_topic = 3, 36
    assert topical._visit_yield() == pytest.approx(0.5 * 4 / 40)
    assert _one_listing()._visit_yield() == 0.0  # off by default


def _three_stories(**settings):
    forager = make(FORAGERS_TOPIC="solar energy", **settings)
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[HOME + "a/", HOME + "b/", HOME + "c/"], published=None)
    fetches = [forager.next_fetch(at(0)) for _ in range(3)]
    for fetch in fetches:
        forager.on_page(fetch, at(0), text="c2", links=[], published=dated(3, at(0)))
    return forager, fetches


def test_an_off_topic_novel_document_is_counted_not_credited():
    forager, fetches = _three_stories()
    forager.on_reward(fetches[0].visit, 50.0, True, on_topic=True)
    forager.on_reward(fetches[1].visit, 50.0, True, on_topic=False)
    forager.on_reward(fetches[2].visit, -1.0, False, on_topic=False)  # not novel: nothing
    assert (forager.counters.off_topic, forager.counters.rewarded, forager.counters.topic_unfound) == (1, 1, 0)
    assert forager.schedule.entry(HOME).paid == 1


def test_before_its_first_document_on_the_topic_a_forager_credits_every_novel_one():
    # (no listing can be told from another by the topic yet: it reads as the news crawler does)
    forager, fetches = _three_stories()
    forager.on_reward(fetches[0].visit, 50.0, True, on_topic=False)
    assert forager.schedule.entry(HOME).paid == 1 and forager.counters.topic_unfound == 1
    forager.on_reward(fetches[1].visit, 50.0, True, on_topic=True)  # its first: only the topic's from now on
    forager.on_reward(fetches[2].visit, 50.0, True, on_topic=False)
    assert (forager.counters.off_topic, forager.counters.rewarded, forager.counters.topic_unfound) == (2, 1, 1)
    assert forager.schedule.entry(HOME).paid == 2


def _topical_archive(novel: bool) -> ScheduledMind:
    """A topical forager polling a home page and a day archive every 5 minutes (threshold 0):
    the home page's first visit shows a story on the topic; each of the archive's next three
    visits shows a new story, news off the topic (``novel``) or no news at all (not novel)."""
    archive = HOME + "archive/2024/01/01/"
    config = ForagersConfig.from_settings({
        "FORAGERS_N_CLUSTERS": K, "FORAGERS_BOOTSTRAP_PAGES": K, "FORAGERS_EXPLORE_SHARE": 0.0,
        "FORAGERS_TOPIC": "solar energy", "FORAGERS_SCHEDULE_THRESHOLD": 0.0,
        "FORAGERS_SCHEDULE_PRIORITY": "return", "FORAGERS_SCHEDULE_MIN_INTERVAL": 300.0,
        "FORAGERS_SCHEDULE_BARREN_AFTER": 3})
    seeds = [HOME, archive]
    forager = ScheduledMind("f1", config, schedule_from_config(config, seeds), np.ones(K),
                            np.random.default_rng(0), encoder=OneHot(), seeds=seeds)
    for n in range(4):
        now = at(10 * n)
        visits = _listing_visits(forager, now)
        assert archive in visits
        for url, fetch in visits.items():
            shows = n == 0 if url == HOME else n > 0
            forager.on_page(fetch, now, text="c1", links=[f"{url}s{n}/"] if shows else [], published=None)
        while (fetch := forager.next_fetch(now)) is not None:
            forager.on_page(fetch, now, text="c2", links=[], published=dated(3, now))
            on_topic = fetch.url.startswith(HOME + "s")
            forager.on_reward(fetch.visit, 50.0, on_topic or novel, on_topic=on_topic, url=fetch.url)
    return forager


@pytest.mark.parametrize("novel", [True, False])
def test_a_listing_whose_new_stories_are_news_off_the_topic_is_no_trap(novel):
    # three visits in a row whose new links were all news off the topic: not credited (its rate
    # is the topic's), but not wasted either — today's archive of a site, the topic's few
    # stories among the day's, was made barren so (a run on digital.gov, topic "mobile"). The
    # same visits whose new links were no news (not novel): a trap, made barren
    forager = _topical_archive(novel)
    entry = forager.schedule.entry(HOME + "archive/2024/01/01/")
    assert entry.paid == 0 and entry.evidence == 3
    assert entry.off_topic == (3 if novel else 0)
    assert forager.counters.off_topic == (3 if novel else 0) and forager.counters.rewarded == 1
    assert (HOME + "archive/2024/01/01/" in _listing_visits(forager, at(40))) is novel
    assert entry.barren is not novel


def _paying(rate: float):
    """A schedule with one listing that has paid, at ``rate`` documents an hour."""
    from newsforagers.learning.schedule import HubSchedule

    schedule = HubSchedule()
    schedule.add(HOME + "front/", now=T0, rate=rate)
    return schedule


class _Forager:
    """What ScheduledDriver asks of a forager, counted."""

    def __init__(self, config):
        self.config = config
        self.in_flight = 0
        self.asked = 0
        self.done = False
        self.retired = False
        self.fit_request = None
        self.wait = 0.0
        self.poll_rate = None
        self.poll_rates = None
        self.pending = []
        self.made = 0
        self.name = "f1"
        self.counters = ScheduledCounters()
        self.weights = np.ones(K)
        self.schedule = _paying(4.0)
        self.weblog = self.schedule

    def next_fetch(self, now, busy=None, harvest_busy=None):
        self.asked += 1
        busy = harvest_busy if harvest_busy is not None else busy  # (its work is all harvest)
        # its work: fetches numbered in order, on each host in turn; the first whose host is
        # not busy goes, the others stay queued
        for index in range(len(self.pending) + 4):
            if index == len(self.pending):
                self.made += 1
                host = self.hosts[(self.made - 1) % len(self.hosts)] if self.hosts else None
                self.pending.append(Fetch(f"http://{host}/{self.made}/" if host else f"{HOME}{self.made}/",
                                          "harvest"))
            fetch = self.pending[index]
            if busy is None or not busy(urlsplit(fetch.url).hostname):
                del self.pending[index]
                self.in_flight += 1
                return fetch
        return None

    hosts: list[str] = []

    def requests_lost(self):
        lost, self.in_flight = self.in_flight, 0
        return lost


def _driver(crawler_settings: dict | None = None, forager=None, **settings):
    from scrapy import Request, Spider
    from scrapy.utils.test import get_crawler

    from newsforagers.clock import SiteClock
    from newsforagers.driver import ScheduledDriver

    config = ForagersConfig.from_settings({"FORAGERS_HOST_RATE": 20, **settings})
    crawler = get_crawler(Spider, crawler_settings)
    spider = Spider("s")
    spider.make_fetch_request = lambda fetch, revisit=False: Request(fetch.url)
    forager = _Forager(config) if forager is None else forager
    clock = SiteClock(600.0)
    clock.observe(datetime.fromtimestamp(T0, UTC))
    driver = ScheduledDriver(crawler, spider, forager, 30.0, clock, MemoryStore())
    driver._restored = True
    driver._wake_in = lambda delay: None
    return driver, forager


def test_the_driver_hands_scrapy_one_request_at_a_time_and_shares_the_budget(monkeypatch):
    monkeypatch.setattr("newsforagers.driver.scheduled._RATES_EVERY", 0.0)  # reckoned at each decision,
    monkeypatch.setattr("newsforagers.driver.scheduled._RECKONING_SHARE", 1.0)  # whatever it costs
    monkeypatch.setattr("newsforagers.driver.scheduled._SHARE_DEMAND_LEAST", 0.0)  # shared and read so too
    driver, forager = _driver(FORAGERS_SCHEDULE_POLL_SHARE=0.5)
    store, now = driver.store, time.time()
    store.join("f1", now + 60, now)  # a member of the population, as the colony makes it
    assert driver.next_step_request().url == HOME + "1/"
    # 20 requests/s at 600× is 120 a simulated hour; half for listings, one forager
    assert forager.poll_rate == pytest.approx(60.0)
    assert driver.next_step_request() is None and forager.asked == 1  # decided when one comes back
    # a second forager of the colony (a member in the store) whose listings on the same host
    # pay 16 an hour: demand √4 against √16, a third of it; each forager's demand reaches the
    # others only through the store, per host: a third forager's listings on another host
    # take nothing of this host's budget
    store.join("f2", now + 60, now, fields={"demands": _paying(16.0).demands()})
    store.join("f3", now + 60, now, fields={"demands": {"elsewhere.example": 9.0}})
    forager.in_flight = 0
    driver.next_step_request()
    assert forager.poll_rate == pytest.approx(60.0 * 2 / 6)
    assert forager.poll_rates == {urlsplit(HOME).hostname: pytest.approx(20.0)}
    shared = store.members(now)["f1"].fields  # its own, shared: per host and in all
    assert shared["demands"] == {urlsplit(HOME).hostname: pytest.approx(2.0)}
    assert shared["demand"] == pytest.approx(2.0)
    forager.schedule = _paying(0.0)  # nothing paid yet: the configured threshold
    forager.in_flight = 0
    driver.next_step_request()
    assert forager.poll_rate is None
    assert store.members(now)["f1"].fields["demand"] == 0.0
    forager.schedule = _paying(4.0)
    store.leave("f2", now)  # gone (retired, or its lease ran out): the whole budget again
    forager.in_flight = 0
    assert driver.next_step_request().url == HOME + "4/"
    assert forager.poll_rate == pytest.approx(60.0)
    unlimited, forager = _driver(FORAGERS_SCHEDULE_IN_FLIGHT=0, FORAGERS_SCHEDULE_POLL_SHARE=0.0)
    assert [unlimited.next_step_request().url for _ in range(3)] == [HOME + f"{i}/" for i in (1, 2, 3)]
    assert forager.poll_rate is None


@pytest.mark.parametrize("crawler_settings, held", [
    (None, 30.0),  # lost, say, to a middleware: the step timeout (30 s here) at most
    # a response that stalls after its headers: Scrapy times it out after DOWNLOAD_TIMEOUT (then
    # retries it); the forager decides its next request then, not after the step timeout
    ({"DOWNLOAD_TIMEOUT": 10}, 10.0),
])
def test_a_request_never_answered_holds_the_driver_for_a_bounded_time(monkeypatch, crawler_settings, held):
    # a slow site (answers take 5 s; a stall would be 50 s) with a budget of one request in 10 s:
    # one request in flight (Little's law: 0.1/s × 5 s)
    driver, forager = _driver(crawler_settings, FORAGERS_HOST_RATE=0.1)
    now = [1000.0]
    driver.stall.clock = lambda: now[0]  # the stall watch's wall clock
    for _ in range(3):
        driver.answered(object(), 5.0)
    assert driver.next_step_request() is not None
    now[0] += held - 1.0
    assert driver.next_step_request() is None
    now[0] += 2.0
    assert driver.next_step_request() is not None
    assert driver.crawler.stats.get_value("newsforagers/scheduled/unanswered") == 1


def test_a_request_scrapy_dropped_without_an_answer_releases_the_driver_at_once(monkeypatch):
    from types import SimpleNamespace

    from scrapy import Request

    driver, forager = _driver(FORAGERS_HOST_RATE=0.5)  # one request in flight (0.5/s × 1 s)
    now = [1000.0]
    driver.stall.clock = lambda: now[0]
    active: set = set()
    driver.crawler.engine = SimpleNamespace(scraper=SimpleNamespace(slot=None),
                                            downloader=SimpleNamespace(active=active))
    driver.answered(object(), 1.0)  # answers take a second: 5 s is slow, not yet a stall
    first = driver.next_step_request()
    active.add(Request(first.url, meta={"forager_kind": "harvest"}))
    now[0] += 5.0
    assert driver.next_step_request() is None  # still downloading: held
    active.clear()  # gone without an answer (an off-site redirect filtered by a middleware)
    assert driver.next_step_request() is None  # not seen long enough
    now[0] += 0.3
    assert driver.next_step_request() is not None and forager.asked == 2  # long before the step timeout
    assert driver.crawler.stats.get_value("newsforagers/scheduled/dropped") == 1


def test_a_stalled_request_keeps_its_own_request_not_the_forager_s_turn():
    driver, forager = _driver()
    now = [1000.0]
    driver.stall.clock = lambda: now[0]
    for _ in range(5):
        driver.answered(object(), 0.01)  # answers take 10 ms: one in flight; a stall: 2 s at least
    first = driver.next_step_request()
    now[0] += 1.5
    assert driver.next_step_request() is None  # slow, not stalled: its turn holds
    now[0] += 1.0
    second = driver.next_step_request()  # 2.5 s: stalled; the next request goes meanwhile
    assert second is not None and second.url != first.url and forager.in_flight == 2
    assert driver.next_step_request() is None  # the second holds the turn as any request does


def test_a_download_is_given_ten_usual_answers_then_asked_again():
    """Each request of a scheduled forager carries Scrapy's ``download_timeout``: ten times the
    median answer, 10 s at least, never above the user's DOWNLOAD_TIMEOUT; a stalled answer is
    then given up and retried (Scrapy's RetryMiddleware) instead of holding its listing."""
    from newsforagers.strategies.scheduled.budget import answer_deadline, stall_after

    assert answer_deadline(stall_after([])) == 10.0  # no answer yet: the floor
    assert answer_deadline(stall_after([0.3, 0.2, 0.4])) == 10.0  # 10 × 0.3 s = 3 s: the floor
    assert answer_deadline(stall_after([1.5, 2.0, 2.5])) == pytest.approx(20.0)  # 10 × the median
    assert answer_deadline(stall_after([1.5, 2.0, 2.5]), download_timeout=15.0) == 15.0  # the user's bound
    driver, _ = _driver({"DOWNLOAD_TIMEOUT": 60})
    assert driver.next_step_request().meta["download_timeout"] == 10.0
    driver, _ = _driver({"DOWNLOAD_TIMEOUT": 25})
    for _ in range(5):
        driver.answered(object(), 3.0)  # a slow site: 3 s an answer
    assert driver.next_step_request().meta["download_timeout"] == 25.0  # 30 s, bounded by the user


def test_a_busy_host_holds_back_its_own_fetches_while_another_host_s_go():
    from newsforagers.learning.schedule import HubSchedule

    driver, forager = _driver()
    forager.hosts = ["a.example", "b.example"]
    forager.schedule = HubSchedule()  # its listings are on two hosts: a request in flight on each
    for host in forager.hosts:
        forager.schedule.add(f"http://{host}/front/", now=T0, rate=4.0)
    now = [1000.0]
    driver.stall.clock = lambda: now[0]
    first, second = driver.next_step_request(), driver.next_step_request()
    assert [first.url, second.url] == ["http://a.example/1/", "http://b.example/2/"]  # a turn per host
    assert driver.next_step_request() is None  # both hosts have their one request in flight
    # b answers; a does not (slow): the mind's next fetch for a waits, b's goes
    driver.answered(_fetch_of(driver, second), 0.01)
    forager.in_flight -= 1
    third = driver.next_step_request()
    assert third.url == "http://b.example/4/"  # 3 (on a) was passed over: it stays queued
    assert driver.crawler.stats.get_value("newsforagers/scheduled/host_busy") == 1
    driver.answered(_fetch_of(driver, first), 0.01)
    forager.in_flight -= 1
    assert driver.next_step_request().url == "http://a.example/3/"  # a has room: its fetch goes first


def test_a_forager_s_demand_is_shared_when_it_changes_at_most_once_a_second_unless_a_host_comes(monkeypatch):
    """The demand per host goes to the store for the colony's other foragers: a change on the
    same hosts once a second at most (at 1,000 sites some host's moves at every reckoning),
    a host that comes or goes at once, an unchanged one every five seconds."""
    driver, _ = _driver()
    store, wall = driver.store, time.time()
    store.join("f1", wall + 600, wall)
    clock = [100.0]
    monkeypatch.setattr("newsforagers.driver.scheduled.time.monotonic", lambda: clock[0])

    def shared():
        return store.members(time.time())["f1"].fields.get("demands")

    driver._share_demand({"a": 1.0}, {})
    assert shared() == {"a": 1.0}
    clock[0] += 0.5
    driver._share_demand({"a": 2.0}, {})
    assert shared() == {"a": 1.0}  # half a second: not yet
    clock[0] += 0.5
    driver._share_demand({"a": 2.0}, {})
    assert shared() == {"a": 2.0}
    clock[0] += 0.25
    driver._share_demand({"a": 2.0, "b": 1.0}, {})
    assert shared() == {"a": 2.0, "b": 1.0}  # a host came: at once
    store.update_member("f1", {"demands": None})  # (as a member that joined again has no fields)
    clock[0] += 4.9
    driver._share_demand({"a": 2.0, "b": 1.0}, {})
    assert shared() is None
    clock[0] += 0.1
    driver._share_demand({"a": 2.0, "b": 1.0}, {})
    assert shared() == {"a": 2.0, "b": 1.0}  # unchanged: again after five seconds


def test_a_host_s_harvest_may_hold_its_slow_answers_in_flight_its_listing_visits_the_mean():
    """Little's law sizes a listing visit's cap (the mean answer times the host's rate: visits
    decided as late as can be); the harvest's known stories are held back by no answer slower
    than the mean, up to the 90th percentile of the recent answers times the rate. Hand-worked:
    answers 0.2 s (5 of them) and 0.8 s (5): mean 0.5 s, 5 requests/s: 3 in flight for a visit;
    the 9th of the 10 sorted, 0.8 s: 4 for the harvest."""
    from newsforagers.learning.schedule import HubSchedule

    driver, forager = _driver(FORAGERS_HOST_RATE=5)
    forager.hosts = ["a.example"]
    forager.schedule = HubSchedule()
    forager.schedule.add("http://a.example/front/", now=T0, rate=4.0)
    for latency in [0.2] * 5 + [0.8] * 5:
        driver.answered(object(), latency)
    now = [1000.0]
    driver.stall.clock = lambda: now[0]
    sent = []
    while (request := driver.next_step_request()) is not None:
        sent.append(request)
    assert len(sent) == 4  # the harvest's cap on the host
    busy = driver._busy_hosts()
    assert busy("a.example") and busy.harvest("a.example")
    driver.answered(_fetch_of(driver, sent[0]), 0.5)
    forager.in_flight -= 1
    busy = driver._busy_hosts()
    assert busy("a.example") and not busy.harvest("a.example")  # 3 in flight: a visit waits, a story goes
    assert driver.next_step_request().url == "http://a.example/5/"


def _fetch_of(driver, request):
    return next(fetch for fetch, _ in driver._issued.values() if fetch.url == request.url)


def test_the_in_flight_cap_is_little_s_law_between_its_floor_and_ceiling():
    from newsforagers.strategies.scheduled.budget import (
        in_flight_cap,
        slow_latency,
        stall_after,
        stalled,
        typical_latency,
    )

    assert in_flight_cap(1, rate=20.0, latency=0.5, ceiling=16) == 10  # 20/s × 0.5 s
    assert in_flight_cap(1, rate=20.0, latency=0.001, ceiling=16) == 1  # a fast site: the floor
    assert in_flight_cap(1, rate=100.0, latency=0.5, ceiling=16) == 16  # CONCURRENT_REQUESTS
    assert in_flight_cap(2, rate=1.0, latency=0.3) == 2 and in_flight_cap(0, 20.0, 0.5) == 0
    assert in_flight_cap(1, rate=20.0, latency=0.3) == 6  # exactly 6.0 is 6, not 7
    assert stalled([0.5, 3.0], stall_after([0.1] * 5)) == 1  # 10 × 0.1 = 1 s < the 2 s floor
    assert stalled([3.0, 12.0], stall_after([1.0, 1.0, 2.0])) == 1  # 10 × the median (1 s)
    assert stalled([1.9, 2.1], stall_after([])) == 1  # no answer yet: the floor
    # Little's law wants the mean answer time, the stalls left out (above 10x the median)
    assert typical_latency([0.2, 0.4, 0.6, 0.2, 30.0]) == pytest.approx(0.35)
    assert typical_latency([]) == 0.0
    # a host's pace: the answer time of the 90th percentile (the order statistic, no
    # interpolation: the 9th of 10), the stalls left out as above
    assert slow_latency([0.1 * i for i in range(1, 11)] + [30.0]) == pytest.approx(0.9)
    assert slow_latency([1.0, 2.0, 3.0, 4.0], quantile=0.5) == 2.0 and slow_latency([3.0]) == 3.0
    assert slow_latency([]) == 0.0



def test_the_downloader_s_room_is_each_host_s_share_at_the_slowest_healthy_answer_and_its_robots_txt():
    from newsforagers.strategies.scheduled.budget import SLOW_ANSWER, downloader_room

    assert SLOW_ANSWER == 2.0
    assert downloader_room(50, rate=1.0, base=1, host_concurrency=8) == 150  # (⌈1 × 2⌉ + 1) × 50
    assert downloader_room(20, rate=5.0, base=1, host_concurrency=8) == 180  # ⌈10⌉ capped at 8, + 1
    assert downloader_room(20, rate=5.0, base=1) == 220  # no cap a host: 10 + 1
    assert downloader_room(50, rate=0.0, base=1, host_concurrency=8) == 100  # no rate: the floor, 1 + 1
    assert downloader_room(50, rate=1.0, base=0) == 0  # FORAGERS_SCHEDULE_IN_FLIGHT = 0: no limit


@pytest.mark.parametrize("settings, hosts, expected", [
    ({"FORAGERS_HOST_RATE": 1}, 50, 150),  # not set: room for 50 hosts
    ({"FORAGERS_HOST_RATE": 1, "CONCURRENT_REQUESTS": 20}, 50, 20),  # the user's value stays
    ({"FORAGERS_HOST_RATE": 1}, 1, 16),  # one site: Scrapy's default is room enough
    ({"FORAGERS_HOST_RATE": 1, "FORAGERS_STRATEGY": "paper"}, 50, 16),  # the papers' forager: untouched
    ({"DOWNLOAD_DELAY": 0.5}, 30, 150),  # Scrapy's own delay is the rate: (⌈2 × 2⌉ + 1) × 30
])
def test_a_scheduled_colony_over_many_hosts_gets_room_in_scrapy_s_downloader(settings, hosts, expected, caplog):
    import logging

    from scrapy.crawler import Crawler

    from newsforagers.colony.throttle import Politeness
    from newsforagers.spiders.forager import ForagerSpider

    seeds = ",".join(f"http://site{i}.example/" for i in range(hosts))
    crawler = Crawler(ForagerSpider, settings)
    with caplog.at_level(logging.INFO, logger="newsforagers"):
        ForagerSpider.from_crawler(crawler, seeds=seeds)  # as `scrapy crawl forager -a seeds=...` does
    assert crawler.settings.getint("CONCURRENT_REQUESTS") == expected
    sized = [r.getMessage() for r in caplog.records if "CONCURRENT_REQUESTS not set" in r.getMessage()]
    assert bool(sized) is (expected != 16 and "CONCURRENT_REQUESTS" not in settings)
    # ... and the colony's budget in all hosts is that room (colony/throttle.py folds it in)
    assert Politeness.from_settings(crawler.settings, 1.0, 8).total == expected

def test_requests_lost_count_as_failed_visits_and_fetches():
    forager = make()
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[HOME + "a/"], published=None)
    harvest = forager.next_fetch(at(0))
    assert harvest.url == HOME + "a/" and forager.in_flight == 1
    assert forager.requests_lost() == 1
    assert forager.in_flight == 0 and not forager._flying and forager.schedule.in_flight() == []
    revisit = forager.next_fetch(at(200))  # (its floor) a listing visit lost: the entry is free again
    assert revisit.kind == "listing" and forager.schedule.in_flight() == [HOME]
    assert forager.requests_lost() == 1 and forager.schedule.in_flight() == []
    assert forager.schedule.entry(HOME).visits == 2  # the lost visit counted, as a failure


def test_continuations_and_listed_rates():
    from newsforagers.strategies.scheduled import continues, listed_rate

    assert continues("http://s/section/a/", "http://s/section/a/?page=2")
    assert not continues("http://s/archive/2024/01/08/", "http://s/archive/2024/01/07/")
    assert not continues("http://s/section/a/", "http://s/section/a/by/b/")
    assert not continues("http://s/section/a/", "http://s/section/b/")
    assert not continues("http://s/section/a/", "http://t/section/a/?page=2")
    now = at(0)
    assert listed_rate([dated(60 * 24 * 7, now)] * 20 + [dated(5, now)], now) == pytest.approx(20 / (24 * 7))
    assert listed_rate([dated(0, now), dated(0, now)], now) == pytest.approx(60.0)  # a minute at least
    assert listed_rate([dated(30, now)], now) == 0.0
    assert listed_rate([], now) is None


def test_a_listing_whose_stories_are_all_new_harvests_its_next_page_not_its_sub_listings():
    forager = make(FORAGERS_EXPLORE_SHARE=0.5)
    section = HOME + "section/a/"
    forager.schedule.add(section)
    forager.schedule.remove(HOME)
    visit = forager.next_fetch(at(0))
    stories = [HOME + f"s{i}/" for i in range(2)]
    page2, byline = section + "?page=2", section + "by/someone/"
    forager.on_page(visit, at(0), text="c1", links=stories + [page2, byline], published=None,
                    listed={u: dated(10, at(0)) for u in stories})
    fetched = [forager.next_fetch(at(0)) for _ in range(4)]
    assert {f.url for f in fetched if f.kind == "harvest"} == set(stories) | {page2}
    assert [f.url for f in fetched if f.kind == "candidate"] == [byline]
    assert forager.schedule.entry(section).listed_rate == pytest.approx(1 / (10 / 60))


def test_a_forager_born_without_the_site_s_clock_borrows_it_or_waits_for_its_first_answer():
    from newsforagers.clock import SiteClock
    from newsforagers.colony.local import SITE_CLOCK, site_reading

    driver, forager = _driver()
    driver.clock = SiteClock(600.0)  # a forager born in a split: no Date read yet
    forager.in_flight = 1
    assert driver.next_step_request() is None and forager.asked == 0
    # another forager of the colony read the site's clock and shared it in the store
    sibling = SiteClock(600.0)
    sibling.observe(datetime.fromtimestamp(T0, UTC))
    driver.store.put_value(SITE_CLOCK, site_reading(datetime.fromtimestamp(T0, UTC), 600.0, time.time()))
    forager.in_flight = 0
    assert driver.next_step_request() is not None
    assert driver.clock.ready and abs(driver.clock.now() - sibling.now()) < 5


def test_a_visit_begun_before_the_clock_was_known_counts_as_begun_when_it_arrived():
    forager = make()
    wall = T0 + 16 * 365 * 86400.0  # the system clock, years after the replay's
    visit = forager.next_fetch(wall)
    forager.on_page(visit, at(0), text="c1", links=[HOME + "a/"], published=None,
                    listed={HOME + "a/": dated(5, at(0))})
    assert forager.schedule.entry(HOME).last == at(0)
    assert forager.next_fetch(at(0)).url == HOME + "a/"


def test_a_seed_s_first_visit_harvests_its_whole_navigation_later_visits_do_not():
    # (a minute between visits: the story, dated before the forager began, is backlog, which
    # a due listing would go before)
    forager = make(FORAGERS_EXPLORE_SHARE=0.5, FORAGERS_SCHEDULE_MIN_INTERVAL=60.0,
                   FORAGERS_SCHEDULE_THRESHOLD=0.0)
    visit = forager.next_fetch(at(0))
    story, old, front, today = HOME + "story/", HOME + "old/", HOME + "section/b/", HOME + "archive/today/"
    listed = {story: dated(5, at(0)), old: dated(30 * 60, at(0))}  # not every item is new and fresh
    forager.on_page(visit, at(0), text="c1", links=[story, old, front, today], published=None, listed=listed)
    fetched = [forager.next_fetch(at(0)) for _ in range(3)]
    assert [f.kind for f in fetched] == ["harvest"] * 3
    assert {f.url for f in fetched} == {story, front, today}
    for fetch in fetched[1:]:  # read at once as listings
        forager.on_page(fetch, at(1), text="c1", links=[], published=None)
        assert forager.schedule.entry(fetch.url).visits == 1
    forager.on_page(fetched[0], at(1), text="c2", links=[], published=dated(5, at(1)))
    revisit = forager.next_fetch(at(2))
    assert revisit.url == HOME
    forager.on_page(revisit, at(2), text="c1", links=[HOME + "section/new/"], published=None,
                    listed={story: dated(7, at(2))})
    assert forager.next_fetch(at(2)).kind == "candidate"


def test_a_seed_s_map_reads_today_s_page_first():
    # the navigation in page order: two sections, then today's archive, then yesterday's; the
    # map's pages are read at once, today's first (it shows the whole day's news), the others
    # in their order
    forager = make(FORAGERS_SCHEDULE_MIN_INTERVAL=60.0)
    visit = forager.next_fetch(at(0))
    nav = [HOME + "section/a/", HOME + "section/b/", HOME + "archive/2024/01/01/", HOME + "archive/2023/12/31/"]
    story = HOME + "2024/01/01/story/"
    forager.on_page(visit, at(0), text="c1", links=[story, *nav], published=None,
                    listed={story: dated(30, at(0))})
    order = [forager.next_fetch(at(0)).url for _ in range(5)]
    assert order == [nav[2], nav[0], nav[1], nav[3], story]  # (the story: backlog, last)


def test_a_seed_s_map_waits_while_a_listing_is_due():
    # the map's first page read (today's archive) is a listing: once it is due again, it is
    # visited before the rest of the map, which goes on when no listing is due
    forager = make(FORAGERS_SCHEDULE_MIN_INTERVAL=60.0, FORAGERS_SCHEDULE_THRESHOLD=0.0)
    visit = forager.next_fetch(at(0))
    nav = [HOME + "section/a/", HOME + "section/b/", HOME + "archive/2024/01/01/"]
    story = HOME + "2024/01/01/new/"
    listed = {story: dated(1, at(0))}
    forager.on_page(visit, at(0), text="c1", links=[story, *nav], published=None, listed=listed)
    archive = forager.next_fetch(at(0))
    assert archive.url == nav[2]
    forager.on_page(archive, at(0), text="c1", links=[story], published=None, listed=listed)
    assert forager.next_fetch(at(0)).url == nav[0]  # no listing is due yet: the map goes on
    due = {forager.next_fetch(at(2)).url for _ in range(2)}  # a minute on: both listings are due
    assert due == {HOME, nav[2]} and forager.counters.deferred == 2
    assert forager.next_fetch(at(2)).url == nav[1]  # (both in flight) the map again
    assert forager.next_fetch(at(2)).url == story  # (published before the forager began: backlog)


def _home_with_an_archive(monday: str, held: bool):
    """A forager whose seed's first visit showed a story and Monday's archive (held in its
    weblog, or given away as a split would) and a section front."""
    forager = make(FORAGERS_EXPLORE_SHARE=0.5, FORAGERS_SCHEDULE_MIN_INTERVAL=60.0,
                   FORAGERS_SCHEDULE_THRESHOLD=0.0)
    story, front = HOME + "story-1/", HOME + "section/a/"
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1", links=[story, monday, front], published=None,
                    listed={story: dated(5, at(0))})
    for _ in range(3):  # the seed's first visit: its navigation is fetched at once
        fetch = forager.next_fetch(at(0))
        forager.on_page(fetch, at(0), text="c1", links=[], published=None if fetch.url != story else dated(5, at(0)))
    if not held:
        forager.schedule.remove(monday)
    return forager, story, front


def test_a_link_that_takes_another_s_place_on_a_listing_takes_over_its_entry():
    monday, tuesday = HOME + "archive/2024/01/01/", HOME + "archive/2024/01/02/"
    forager, story, front = _home_with_an_archive(monday, held=True)
    forager.schedule.credit(monday, 6)  # Monday's archive paid
    rate = forager.schedule.entry(monday).rate
    # after midnight the home page links Tuesday's archive where Monday's was, and a new
    # section front (no place taken: it waits as a candidate)
    forager.schedule.begin(HOME, at(10))
    revisit = Fetch(HOME, "listing", 99)
    other = HOME + "section/b/"
    forager.on_page(revisit, at(10), text="c1", links=[story, tuesday, front, other], published=None,
                    listed={story: dated(15, at(10))})
    assert forager.counters.successors == 1
    entry = forager.schedule.entry(tuesday)
    assert entry.rate == rate and entry.paid == 6 and entry.last == at(0)
    assert forager.schedule.entry(monday).rate == 0.0 and monday in forager.schedule
    # ... so it is due as Monday's would have been: the next listing visit, once the new
    # front has had its candidate's first visit (exploration's share)
    assert forager.next_fetch(at(10)) == Fetch(other, "candidate", revisit.visit)
    assert forager.next_fetch(at(10)).url == tuesday


def test_a_link_that_takes_the_place_of_another_forager_s_listing_is_read_at_once():
    monday, tuesday = HOME + "archive/2024/01/01/", HOME + "archive/2024/01/02/"
    forager, story, front = _home_with_an_archive(monday, held=False)
    revisit = forager.next_fetch(at(10))
    forager.on_page(revisit, at(10), text="c1", links=[story, tuesday, front], published=None,
                    listed={story: dated(15, at(10))})
    successor = forager.next_fetch(at(10))
    assert successor == Fetch(tuesday, "candidate", revisit.visit)  # first in line
    new_story = HOME + "story-2/"
    forager.on_page(successor, at(11), text="c1", links=[new_story], published=None,
                    listed={new_story: dated(1, at(11))})
    assert forager.schedule.entry(tuesday).visits == 1  # read at once
    assert forager.next_fetch(at(11)).url == new_story


def test_a_link_that_takes_the_place_of_a_listing_a_split_gave_away_copies_its_entry():
    monday, tuesday = HOME + "archive/2024/01/01/", HOME + "archive/2024/01/02/"
    forager, story, front = _home_with_an_archive(monday, held=False)
    sibling = schedule_from_config(forager.config, [monday])  # the child of a split holds it
    sibling.begin(monday, at(0))
    sibling.visited(monday, 5)
    sibling.credit(monday, 5)
    forager.colony_entry = sibling.entry
    forager.schedule.begin(HOME, at(10))
    forager.on_page(Fetch(HOME, "listing", 99), at(10), text="c1", links=[story, tuesday, front],
                    published=None, listed={story: dated(15, at(10))})
    entry = forager.schedule.entry(tuesday)
    assert entry is not None and entry.rate == sibling.entry(monday).rate > 0 and entry.paid == 5
    assert sibling.entry(monday).rate > 0  # the other forager's weblog is left as it is
    assert forager.counters.successors == 1


def test_a_day_archive_s_next_day_link_after_midnight_takes_its_place():
    """The forager polls Monday's archive (it pays) and not the home page: after midnight
    Monday's archive links Tuesday's ("next day"); Tuesday's takes over its entry at once and
    the colony learns it, as when a front page shows Tuesday's where Monday's was. Before
    midnight, and for a day that is not today or not later, a link of the family is a candidate."""
    monday, tuesday = HOME + "archive/2024/01/01/", HOME + "archive/2024/01/02/"
    forager, story, front = _home_with_an_archive(monday, held=True)
    forager.schedule.credit(monday, 6)
    shared: dict[str, str] = {}
    forager.share_successor = shared.__setitem__
    old = HOME + "archive/2023/12/31/"
    # the site's days begin at 00:00 UTC, as its stories' URLs show (ten minutes either side of midnight)
    assert forager.schedule.observe_day(HOME + "2023/12/31/a/", at(-730))
    assert forager.schedule.observe_day(HOME + "2024/01/01/b/", at(-710))
    assert forager.schedule.site_days.known("s")
    # an hour before midnight it links Sunday's archive (a day before): a candidate
    forager.schedule.begin(monday, at(660))
    forager.on_page(Fetch(monday, "listing", 50), at(660), text="c1", links=[story, old], published=None,
                    listed={story: dated(15, at(660))})
    assert forager.counters.next_days == 0 and old not in forager.schedule
    rate = forager.schedule.entry(monday).rate
    forager.schedule.begin(monday, at(725))  # 00:05 on Tuesday
    late = HOME + "story-late/"
    forager.on_page(Fetch(monday, "listing", 51), at(725), text="c1", links=[late, story, old, tuesday],
                    published=None, listed={story: dated(15, at(660)), late: dated(10, at(725))})
    assert forager.counters.next_days == 1 and forager.counters.successors == 1
    entry = forager.schedule.entry(tuesday)
    assert entry.rate == rate and entry.paid == 6
    assert forager.schedule.entry(monday).rate == 0.0 and shared == {monday: tuesday}
    # an old day's archive (visited as a candidate) linking its next day: not today's, no succession
    forager.on_page(Fetch(old, "candidate", 52), at(726), text="c1", links=[late, HOME + "archive/2024/01/01/"],
                    published=None, listed={late: dated(10, at(725))})
    assert forager.counters.next_days == 1
    # a site whose midnight is not known yet: its front page's change, not the archive's link
    unknown, story, front = _home_with_an_archive(monday, held=True)
    unknown.schedule.begin(monday, at(725))
    unknown.on_page(Fetch(monday, "listing", 50), at(725), text="c1", links=[late, tuesday], published=None,
                    listed={late: dated(10, at(725))})
    assert unknown.counters.next_days == 0 and unknown.schedule.entry(tuesday) is None


def test_a_successor_another_forager_took_is_not_taken_twice_and_the_old_page_stops_paying():
    """Two foragers hold Monday's archive's lineage: one met Tuesday's link first and took it
    (it tells the colony, ``share_successor``); the other, meeting the same link on its own
    visit of the home page, neither polls Tuesday's archive a second time nor goes on polling
    Monday's at its old rate (the budget its demand held goes to the one polling the place)."""
    monday, tuesday = HOME + "archive/2024/01/01/", HOME + "archive/2024/01/02/"
    taker, story, front = _home_with_an_archive(monday, held=False)
    sibling = schedule_from_config(taker.config, [monday])  # the holder of Monday's archive
    sibling.begin(monday, at(0))
    sibling.visited(monday, 5)
    sibling.credit(monday, 5)
    taker.colony_entry = sibling.entry
    shared: dict[str, str] = {}
    taker.share_successor = shared.__setitem__
    taker.schedule.begin(HOME, at(10))
    taker.on_page(Fetch(HOME, "listing", 99), at(10), text="c1", links=[story, tuesday, front],
                  published=None, listed={story: dated(15, at(10))})
    assert shared == {monday: tuesday} and tuesday in taker.schedule

    holder, story, front = _home_with_an_archive(monday, held=True)
    holder.schedule.credit(monday, 6)
    assert holder.schedule.entry(monday).rate > 0
    holder.colony_successor = shared.get
    holder.schedule.begin(HOME, at(10))
    holder.on_page(Fetch(HOME, "listing", 99), at(10), text="c1", links=[story, tuesday, front],
                   published=None, listed={story: dated(15, at(10))})
    assert tuesday not in holder.schedule and holder.counters.successors == 0
    assert holder.schedule.entry(monday).rate == 0.0 and monday in holder.schedule  # its floor only
    assert holder.counters.successors_elsewhere == 1


def test_the_holder_of_a_listing_learns_from_the_store_that_another_took_its_successor():
    """The holder of Monday's archive never meets Tuesday's link (Monday's archive does not
    link it; another forager holds the home page): at its next visit of Monday's archive the
    store tells it that the other took its place, and it stops polling it at Monday's rate —
    unless that forager is gone (its lease ran out): then nobody polls the place for it."""
    taker_mind = make()
    taker_mind.name = "f2"
    holder, _ = _driver(forager=make())
    taker, _ = _driver(forager=taker_mind)
    taker.store = holder.store
    store, now = holder.store, time.time()
    store.join(holder.name, now + 60, now)
    monday, tuesday = HOME + "archive/2024/01/01/", HOME + "archive/2024/01/02/"
    holder.mind.schedule = schedule_from_config(holder.mind.config, [monday])
    holder.mind.schedule.begin(monday, at(0))
    holder.mind.schedule.visited(monday, 5)
    holder.mind.schedule.credit(monday, 5)
    holder.page_read(Fetch(monday, "listing", 1))
    taker.mind._succeed([monday], tuesday, 7)  # the home page showed Tuesday's where Monday's was
    assert taker.mind.schedule.entry(tuesday).rate == holder.mind.schedule.entry(monday).rate > 0
    holder.page_read(Fetch(monday, "listing", 2))
    assert holder.mind.schedule.entry(monday).rate > 0  # the taker is no member: no one polls it
    assert holder.mind.counters.successors_elsewhere == 0
    store.join(taker.name, now + 60, now)
    assert holder._colony_successor(monday) == tuesday
    holder.page_read(Fetch(monday, "listing", 3))
    entry = holder.mind.schedule.entry(monday)
    assert entry.rate == 0.0 and monday in holder.mind.schedule
    assert holder.mind.schedule.spare_rate(entry, at(20)) == 0.0  # no spare visit either: its floor's only
    assert holder.mind.counters.successors_elsewhere == 1
    # a later visit resets what it saw; the store tells it again after it (counted once)
    holder.mind.schedule.begin(monday, at(30))
    holder.mind.schedule.visited(monday, 0, now=at(30))
    holder.page_read(Fetch(monday, "listing", 4))
    assert entry.covered and holder.mind.schedule.spare_rate(entry, at(40)) == 0.0
    assert holder.mind.counters.successors_elsewhere == 1
    assert holder._colony_entry(monday).rate == 0.0  # what it shares now
    assert store.get_url(monday) is None  # the URL's own record stays free to claim


def test_listing_entries_and_the_site_s_clock_reach_another_forager_only_through_the_store():
    """A listing a split gave away: its holder shares its entry after each visit, and a forager
    that meets its successor copies it from the store; a forager born in a split sets its clock
    from the colony's last reading in the store. The two drivers share nothing but the store."""
    from newsforagers.colony.local import SITE_CLOCK, site_reading

    holder, _ = _driver()
    other, _ = _driver()
    other.store = holder.store
    monday = HOME + "archive/2024/01/01/"
    holder.mind.schedule = schedule_from_config(holder.mind.config, [monday])
    holder.mind.schedule.begin(monday, at(0))
    holder.mind.schedule.visited(monday, 5)
    holder.mind.schedule.credit(monday, 5)
    assert other._colony_entry(monday) is None
    holder.page_read(Fetch(monday, "harvest", 1))  # not a listing visit: nothing shared
    assert other._colony_entry(monday) is None
    holder.page_read(Fetch(monday, "listing", 1))
    entry = other._colony_entry(monday)
    assert entry == holder.mind.schedule.entry(monday) and entry is not holder.mind.schedule.entry(monday)
    assert holder.store.get_url(monday) is None  # the URL's own record stays free to claim

    from newsforagers.clock import SiteClock

    other.clock = SiteClock(600.0)
    assert not other._borrow_clock()  # no forager has read the site's clock yet
    wall = time.time() - 2.0
    holder.store.put_value(SITE_CLOCK, site_reading(datetime.fromtimestamp(T0, UTC), 600.0, wall))
    assert other._borrow_clock() and other.clock.ready
    # two wall seconds later at 600×: twenty simulated minutes on
    assert other.clock.now() == pytest.approx(T0 + 1200.0, abs=60.0)


def test_a_304_is_a_visit_that_showed_nothing_new_at_the_rate_of_the_last_read():
    """A conditional revisit answered 304 Not Modified: the page is the last read's, so its
    visit showed no new link, and its listed rate is the last read's dates seen at its time."""
    from newsforagers.strategies.scheduled import listed_rate

    forager = make()
    visit = forager.next_fetch(at(0))
    stories = {f"{HOME}{i}.html": dated(30 * i, at(0)) for i in range(1, 4)}
    forager.on_page(visit, at(0), text="c1", links=list(stories), published=None, listed=stories)
    entry = forager.schedule.entry(HOME)
    visits, evidence, rate = entry.visits, entry.evidence, entry.rate
    forager.schedule.begin(HOME, at(120))
    forager.in_flight += 1
    forager.on_not_modified(Fetch(HOME, "listing", 2), at(120))
    assert entry.visits == visits + 1 and entry.evidence == evidence and entry.failures == 0
    assert not entry.in_flight and forager.in_flight == 0 and entry.rate == rate * (1 - forager.schedule.beta)
    assert entry.listed_rate == pytest.approx(listed_rate(stories.values(), at(120)))
    assert forager.counters.downloaded == 1 and forager.counters.start_failures == 0


# -- feeds and sitemaps (issue 19; docs/algorithms.md, "Feeds and sitemaps") ------------------


def test_announced_feeds_join_the_schedule_as_listings_due_at_once():
    feed, news, archive, taken = (HOME + p for p in ("feed.xml", "news.xml", "2019.xml", "taken.xml"))
    forager = make(claimed={taken})
    now = at(0)
    added = forager.add_feeds([feed, news, archive, taken, feed], now,
                              updated={news: dated(5, now), archive: dated(60 * 24 * 30, now)})
    # the colony holds one already (claimed), and a sitemap unchanged for a month holds no news
    assert added == 2 and (forager.counters.feeds_added, forager.counters.old_feeds) == (2, 1)
    assert feed in forager.schedule and news in forager.schedule
    assert archive not in forager.schedule and taken not in forager.schedule
    # each is due at once, as a new listing is (the optimistic prior)
    first = [forager.next_fetch(now) for _ in range(3)]
    assert {f.url for f in first} == {HOME, feed, news} and {f.kind for f in first} == {"listing"}
    # announced again (every page of a section links its feed): left alone, no claim asked
    assert forager.add_feeds([feed, news, archive, taken], at(1)) == 0
    # a checkpoint keeps them as listings, and what the weblog holds is never added twice
    other = make()
    other.restore(forager.to_state())
    assert feed in other.schedule and other.add_feeds([feed], at(2)) == 0


def test_an_announcement_adds_twenty_feeds_at_most_the_most_recently_updated_first():
    forager = make()
    now = at(0)
    sitemaps = [HOME + f"sitemap-{i}.xml" for i in range(30)]  # sitemap-0 is the newest
    updated = {url: dated(i, now) for i, url in enumerate(sitemaps)}
    assert forager.add_feeds(sitemaps[::-1] + [HOME + "undated.xml"], now, updated) == 20
    assert [url for url in sitemaps if url in forager.schedule] == sitemaps[:20]
    # the rest at the index's next visit
    assert forager.add_feeds(sitemaps + [HOME + "undated.xml"], at(1), updated) == 11


def test_a_feed_is_a_listing_whose_fresh_items_are_harvested_and_credited_to_it():
    forager = make()
    now = at(0)
    feed = HOME + "feed.xml"
    forager.add_feeds([feed], now)
    visit = next(f for f in (forager.next_fetch(now), forager.next_fetch(now)) if f.url == feed)
    fresh, older, stale = HOME + "fresh/", HOME + "older/", HOME + "stale/"
    # a feed dates every item it shows
    listed = {fresh: dated(10, now), older: dated(60 * 20, now), stale: dated(60 * 30, now)}
    forager.on_page(visit, now, text="c1 feed", links=[fresh, older, stale], published=None, listed=listed)
    harvest = [forager.next_fetch(now) for _ in range(2)]
    assert {f.url for f in harvest} == {fresh, older} and forager.counters.old_listed == 1
    assert all(f.kind == "harvest" and f.visit == visit.visit for f in harvest)
    assert forager.next_fetch(now) is None  # the stale item is never fetched
    for fetch in harvest:
        forager.on_page(fetch, now, text="c2 story", links=[HOME], published=listed[fetch.url])
    forager.on_reward(harvest[0].visit, 99.0, True)
    entry = forager.schedule.entry(feed)
    assert (entry.visits, entry.paid) == (1, 1) and entry.rate > 0


def test_with_the_rhythm_every_dated_story_feeds_the_profile_once():
    """FORAGERS_SCHEDULE_RHYTHM (issue 19): the weblog keeps a publication profile, fed with
    the dates of listed items and fetched articles, each story once; a listing's own dates
    tell a level (stories per average hour); a checkpoint keeps the profile."""
    assert make().schedule.profile is None or ForagersConfig.from_settings({}).schedule_rhythm
    forager = make(FORAGERS_SCHEDULE_RHYTHM=True)
    profile = forager.schedule.profile
    visit = forager.next_fetch(at(0))
    old = {f"{HOME}old{i}/": dated(60 * i + 30, at(0)) for i in range(3)}  # before the start
    forager.on_page(visit, at(0), text="c1", links=list(old), published=None, listed=old)
    assert profile.start == at(0) and profile.stories == 2  # the two after the oldest, in its window
    story = HOME + "new/"
    forager.on_page(Fetch(story, "explore"), at(1), text="c2", links=[], published=dated(0.5, at(1)))
    assert profile.stories == 3  # a fetched article dated after the start
    forager.schedule.begin(HOME, at(5))
    listed = old | {story: dated(0.5, at(1)), HOME + "newer/": dated(1, at(5))}
    forager.on_page(Fetch(HOME, "listing", 9), at(5), text="c1", links=list(listed), published=None,
                    listed=listed)
    assert profile.stories == 4  # only the story not seen before
    entry = forager.schedule.entry(HOME)
    span = forager.schedule.hours(min(d.timestamp() for d in listed.values()), at(5))
    assert entry.listed_rate == pytest.approx(4 / span) and not profile.estimate(at(5)).flat
    restored = make(FORAGERS_SCHEDULE_RHYTHM=True)
    restored.restore(forager.to_state())
    assert restored.schedule.profile.stories == 4
    assert np.array_equal(restored.schedule.profile.estimate(at(5)).hourly, profile.estimate(at(5)).hourly)


def test_every_seed_is_a_listing_however_many_there_are():
    """FORAGERS_SCHEDULE_SIZE bounds the listings a forager finds, not the seeds its user
    gave: 1,000 sites' home pages with a weblog of 500 were 500 sites never read."""
    config = ForagersConfig.from_settings({"FORAGERS_SCHEDULE_SIZE": 3})
    seeds = [f"http://127.1.0.{i}:8000/" for i in range(1, 8)] + ["http://127.1.0.1:8000/"]
    schedule = schedule_from_config(config, seeds)
    assert sorted(schedule.urls()) == sorted(set(seeds)) and schedule.capacity == 7
    assert schedule_from_config(config, seeds[:2]).capacity == 3  # the setting, when the seeds fit
    # one listing found later makes room by the usual rule (the barren, then the least paid)
    assert not schedule.add("http://127.1.0.1:8000/section/a/")


def _two_listings(credit: str) -> ScheduledMind:
    config = ForagersConfig.from_settings({
        "FORAGERS_N_CLUSTERS": K, "FORAGERS_BOOTSTRAP_PAGES": K, "FORAGERS_EXPLORE_SHARE": 0.0,
        "FORAGERS_SCHEDULE_THRESHOLD": 0.0, "FORAGERS_SCHEDULE_PRIORITY": "return",
        "FORAGERS_SCHEDULE_MIN_INTERVAL": 300.0, "FORAGERS_WEBLOG_BETA": 0.5,
        "FORAGERS_SCHEDULE_CREDIT": credit})
    seeds = [HOME, HOME + "archive/"]
    return ScheduledMind("f1", config, schedule_from_config(config, seeds), np.ones(K),
                         np.random.default_rng(0), encoder=OneHot(), seeds=seeds)


def _listing_visits(forager: ScheduledMind, now: float) -> dict[str, Fetch]:
    visits = {}
    while (fetch := forager.next_fetch(now)) is not None:
        assert fetch.kind == "listing"
        visits[fetch.url] = fetch
    return visits


def _harvest(forager: ScheduledMind, now: float, novel: bool = True) -> list[str]:
    urls = []
    while (fetch := forager.next_fetch(now)) is not None:
        assert fetch.kind == "harvest"
        forager.on_page(fetch, now, text="c2", links=[], published=dated(3, now))
        forager.on_reward(fetch.visit, 99.0, novel, url=fetch.url)
        urls.append(fetch.url)
    return urls


@pytest.mark.parametrize("credit", ["listed", "found"])
def test_a_listing_is_credited_with_the_novel_documents_it_lists_not_only_those_it_showed_first(credit):
    # Hand-computed (β = 0.5, 24 h window, rates in documents an hour). The home page shows a,
    # b; the archive, read a minute later, shows a, b, c: its first visit counts 3 fresh
    # documents a window with "listed" (a, b were the home page's first), 1 with "found".
    forager = _two_listings(credit)
    home, archive = HOME, HOME + "archive/"
    visits = _listing_visits(forager, at(0))
    assert set(visits) == {home, archive}
    forager.on_page(visits[home], at(0), text="c1", links=[home + "a/", home + "b/"], published=None)
    assert _harvest(forager, at(0)) == [home + "a/", home + "b/"]
    forager.on_page(visits[archive], at(1), text="c1", links=[home + "a/", home + "b/", home + "c/"],
                    published=None)
    assert _harvest(forager, at(1)) == [home + "c/"]
    listed = credit == "listed"
    assert forager.schedule.entry(home).rate == pytest.approx(2 / 24)
    assert forager.schedule.entry(archive).rate == pytest.approx((3 if listed else 1) / 24)
    assert forager.counters.listed_credits == (2 if listed else 0)
    # An hour on (both visits asked for an hour after the last): both read again. The home page
    # shows d first; the archive shows it too before d is paid for: credited when it is,
    # ½·3/24 + ½·1/1 ("found": ½·1/24, d is the home page's). a, b, c shown again: nothing.
    visits = _listing_visits(forager, at(60))
    forager.on_page(visits[home], at(60), text="c1", links=[home + "d/", home + "a/", home + "b/"],
                    published=None)
    forager.on_page(visits[archive], at(60), text="c1",
                    links=[home + "d/", home + "c/", home + "a/", home + "b/"], published=None)
    assert forager.schedule.entry(archive).rate == pytest.approx((1.5 if listed else 0.5) / 24)
    assert _harvest(forager, at(60)) == [home + "d/"]
    assert forager.schedule.entry(home).rate == pytest.approx(0.5 * 2 / 24 + 0.5 * 1 / 1)
    expected = 0.5 * 3 / 24 + 0.5 / 1 if listed else 0.5 * 1 / 24
    assert forager.schedule.entry(archive).rate == pytest.approx(expected)
    assert forager.counters.listed_credits == (3 if listed else 0)


def test_a_listed_document_that_is_not_novel_credits_no_listing():
    forager = _two_listings("listed")
    home, archive = HOME, HOME + "archive/"
    visits = _listing_visits(forager, at(0))
    forager.on_page(visits[home], at(0), text="c1", links=[home + "a/"], published=None)
    fetch = forager.next_fetch(at(0))
    forager.on_page(visits[archive], at(1), text="c1", links=[home + "a/"], published=None)
    forager.on_page(fetch, at(1), text="c2", links=[], published=dated(3, at(1)))
    forager.on_reward(fetch.visit, -1.0, False, url=fetch.url)  # another colony's, or old
    assert forager.schedule.entry(home).rate == 0.0
    assert forager.schedule.entry(archive).rate == 0.0
    assert forager.counters.listed_credits == 0
    # ... and a later listing showing it is not credited either (nothing waits for its pay)
    visits = _listing_visits(forager, at(60))
    forager.on_page(visits[archive], at(60), text="c1", links=[home + "a/"], published=None)
    assert forager.counters.listed_credits == 0


def test_links_naming_a_day_beyond_the_novelty_window_are_neither_fetched_nor_listings():
    forager = make()
    visit = forager.next_fetch(at(0))  # 2024-01-01 12:00
    links = [HOME + "archive/2023/12/31/", HOME + "archive/2023/12/30/", HOME + "2023/12/29/old-story/",
             HOME + "2024/01/01/new-story/"]
    forager.on_page(visit, at(0), text="c1", links=links, published=None)
    fetched = set()
    while (fetch := forager.next_fetch(at(0))) is not None:
        fetched.add(fetch.url)
    assert fetched == {HOME + "archive/2023/12/31/", HOME + "2024/01/01/new-story/"}
    assert forager.counters.past_links == 2
    # a page of the past reached otherwise (an exploration step, say) joins no weblog
    forager.on_page(Fetch(HOME + "archive/2023/12/30/", "harvest", visit.visit), at(1), text="c1",
                    links=[], published=None)
    assert HOME + "archive/2023/12/30/" not in forager.schedule


def test_with_listed_credit_the_yield_bound_buys_visits_for_the_distinct_stories():
    # The listing is credited with one document an hour; the forager met 0.5 distinct stories
    # an hour in the last 6 hours (3 dated). "listed" counts a story once per listing showing
    # it, so the bound (yield 0.5 a visit) buys 0.5/0.5 = 1 visit an hour, not 1/0.5 = 2;
    # "found" (each story credited once) keeps 2. With no date met, the rates alone: 2.
    now = at(0)
    stories = {f"{HOME}s{i}/": dated(60 + i * 120, now) for i in range(3)}
    for credit, dates, budget in (("listed", stories, 1.0), ("found", stories, 2.0), ("listed", {}, 2.0)):
        forager = _one_listing(FORAGERS_SCHEDULE_POLL_YIELD=0.5, FORAGERS_SCHEDULE_CREDIT=credit)
        forager._observe_dates(dates, now, listing=True)
        forager.poll_rate = 60.0
        assert forager.schedule.novelty() == pytest.approx(1.0)
        assert forager._visit_budget(now) == pytest.approx(budget), (credit, dates)


def test_the_driver_reckons_the_hosts_budgets_now_and_then_not_at_every_decision(monkeypatch):
    """The listing visits each host's budget allows take a pass over the weblog and a read of
    the colony's members: once every ``_RATES_EVERY`` wall seconds, and at once when the
    forager's hosts change; the other members' demands are read once a ``_SHARE_DEMAND_LEAST``
    (each shares a change no more often)."""
    from newsforagers.driver import scheduled as scheduled_driver

    wall = [1000.0]
    monkeypatch.setattr(scheduled_driver.time, "monotonic", lambda: wall[0])
    monkeypatch.setattr(scheduled_driver.time, "thread_time", lambda: 0.0)  # (decisions costing nothing)
    driver, forager = _driver(FORAGERS_SCHEDULE_POLL_SHARE=0.5)
    store, now = driver.store, time.time()
    store.join("f1", now + 60, now)
    reads = []
    reckon = driver._set_poll_rates
    monkeypatch.setattr(driver, "_set_poll_rates", lambda: reads.append(wall[0]) or reckon())
    driver.next_step_request()
    assert forager.poll_rate == pytest.approx(60.0) and len(reads) == 1
    # another forager's demand on the host arrives; decisions within _RATES_EVERY keep the rates
    store.join("f2", now + 60, now, fields={"demands": _paying(16.0).demands()})
    for _ in range(5):
        forager.in_flight = 0
        wall[0] += scheduled_driver._RATES_EVERY / 10
        driver.next_step_request()
    assert forager.poll_rate == pytest.approx(60.0) and len(reads) == 1
    wall[0] += scheduled_driver._RATES_EVERY
    forager.in_flight = 0
    driver.next_step_request()
    # reckoned again, with the members as read less than _SHARE_DEMAND_LEAST ago
    assert forager.poll_rate == pytest.approx(60.0) and len(reads) == 2
    wall[0] = 1000.0 + scheduled_driver._SHARE_DEMAND_LEAST
    forager.in_flight = 0
    driver.next_step_request()
    assert forager.poll_rate == pytest.approx(60.0 * 2 / 6) and len(reads) == 3
    # a share taken: its hosts changed, reckoned at the next decision
    forager.keep_share = lambda seeds: 0
    driver.take_share([HOME])
    forager.in_flight = 0
    driver.next_step_request()
    assert len(reads) == 4


@pytest.mark.parametrize("busy", [True, False])
def test_the_reckonings_take_a_tenth_of_the_deciding_at_most_while_the_process_is_busy(monkeypatch, busy):
    """Past ``_RATES_EVERY``, while the process is busy (its CPU over the wall time since the
    last reckoning at least ``_BUSY``), the rates are reckoned again once the decisions since
    the last reckoning have cost 9 times what the decision that made it cost (the reckonings a
    tenth of the deciding), and after ``_RATES_MOST`` wall seconds whatever they cost; while it
    is not, every ``_RATES_EVERY``. Each reckoning
    reckons the mind's budgets again too, at the same decision, and only then."""
    from newsforagers.driver import scheduled as scheduled_driver

    wall, cpu = [1000.0], [0.0]
    monkeypatch.setattr(scheduled_driver.time, "monotonic", lambda: wall[0])
    monkeypatch.setattr(scheduled_driver.time, "thread_time", lambda: cpu[0])
    # the process's CPU: the wall time's (a busy one), or just under half of it
    load = 1.0 if busy else scheduled_driver._BUSY - 0.01
    monkeypatch.setattr(scheduled_driver.time, "process_time", lambda: load * wall[0])
    driver, forager = _driver(FORAGERS_SCHEDULE_POLL_SHARE=0.5)
    store, now = driver.store, time.time()
    store.join("f1", now + 60, now)
    reads = []
    reckon = driver._set_poll_rates

    def costly() -> None:  # a reckoning of 9 ms
        reads.append(wall[0])
        cpu[0] += 0.009
        reckon()

    monkeypatch.setattr(driver, "_set_poll_rates", costly)
    schedule, cost, fetch = forager.schedule, [0.0], forager.next_fetch

    def next_fetch(*args, **kwargs):  # the decision's own CPU, besides any reckoning
        cpu[0] += cost[0]
        return fetch(*args, **kwargs)

    monkeypatch.setattr(forager, "next_fetch", next_fetch)

    def decide(seconds: float) -> None:
        forager.in_flight = 0
        wall[0] += 0.3  # each past _RATES_EVERY
        cost[0] = seconds
        driver.next_step_request()

    assert not schedule.paced
    decide(0.001)
    assert len(reads) == 1 and schedule.paced and schedule._reckonings == 1
    assert driver._reckoning_cpu == pytest.approx(0.010)
    if not busy:  # each decision 0.3 s after the one before: each reckons
        for n in range(2, 6):
            decide(0.02)
            assert len(reads) == n and schedule._reckonings == n
        return
    # each decision asks whether the decisions before it cost 90 ms (which keep the 10 ms
    # reckoning at a tenth): after four of 20 ms, not yet; after five, yes
    for _ in range(5):
        decide(0.02)
    assert len(reads) == 1 and schedule._reckonings == 1
    assert driver._since_reckoning == pytest.approx(0.1)
    decide(0.0)
    assert len(reads) == 2 and schedule._reckonings == 2
    # decisions costing nothing: reckoned again after _RATES_MOST wall seconds
    for _ in range(int(scheduled_driver._RATES_MOST / 0.3)):
        decide(0.0)
    assert len(reads) == 2 and schedule._reckonings == 2
    decide(0.0)
    assert len(reads) == 3 and schedule._reckonings == 3


def test_the_forager_counts_its_seeds_hosts_again_when_its_share_changes():
    """The in-flight cap counts the hosts of the forager's listings and seeds (the seeds' hosts
    parsed once, again when a share changes them)."""
    driver, forager = _driver()
    driver.seeds = [HOME]
    assert driver._listing_hosts()[0] == 1  # the listings' host and the seed's: one
    forager.keep_share = lambda seeds: 0
    driver.take_share([HOME, "http://other.test/", "http://third.test/news/"])
    hosts, rate = driver._listing_hosts()
    assert hosts == 3 and rate == pytest.approx(3 * driver._rate_of("other.test"))


def _polled(seeds: list[str]) -> ScheduledMind:
    """A forager whose listings (``seeds``) are all due every 5 minutes (threshold 0)."""
    config = ForagersConfig.from_settings({
        "FORAGERS_N_CLUSTERS": K, "FORAGERS_BOOTSTRAP_PAGES": K, "FORAGERS_EXPLORE_SHARE": 0.0,
        "FORAGERS_SCHEDULE_THRESHOLD": 0.0, "FORAGERS_SCHEDULE_PRIORITY": "return",
        "FORAGERS_SCHEDULE_MIN_INTERVAL": 300.0})
    return ScheduledMind("f1", config, schedule_from_config(config, seeds), np.ones(K),
                         np.random.default_rng(0), encoder=OneHot(), seeds=seeds)


def _family_forager(family: bool = True, more: tuple[str, ...] = ()) -> ScheduledMind:
    """A forager polling a day archive and a section on each of the hosts a, b and c, every
    listing due every 5 minutes (threshold 0); ``more``: other seeds, before those."""
    seeds = [*more, *(f"http://{h}/{path}" for h in "abc" for path in ("archive/2024/01/01/", "section/politics/"))]
    config = ForagersConfig.from_settings({
        "FORAGERS_N_CLUSTERS": K, "FORAGERS_BOOTSTRAP_PAGES": K, "FORAGERS_EXPLORE_SHARE": 0.0,
        "FORAGERS_SCHEDULE_THRESHOLD": 0.0, "FORAGERS_SCHEDULE_PRIORITY": "return",
        "FORAGERS_SCHEDULE_MIN_INTERVAL": 300.0, "FORAGERS_SCHEDULE_FAMILY_COMPLETE": family})
    return ScheduledMind("f1", config, schedule_from_config(config, seeds), np.ones(K),
                         np.random.default_rng(0), encoder=OneHot(), seeds=seeds)


def _family_round(forager: ScheduledMind, minutes: float, shows: dict[str, bool],
                  day: dict[str, dict[str, float]]) -> None:
    """Every due listing read at ``minutes``, host by host, each host's section before its day
    archive. An archive shows a story of its own and the host's stories of the day so far
    (``day``: host -> story -> when published). After 0, on a host of ``shows``, the section
    first dates a new story that the archive then shows too (True: a visit that checked another
    listing's story with no hole) or not (False: a hole). A host not in ``shows`` publishes
    nothing a section dates: its archive's visits check nothing."""
    now = at(minutes)
    visits = _listing_visits(forager, now)
    for host in "abc":
        archive, section = f"http://{host}/archive/2024/01/01/", f"http://{host}/section/politics/"
        stories = day.setdefault(host, {f"http://{host}/2024/01/01/{host}1/": at(-30)})
        section_shows = {}
        if minutes > 0 and host in shows:
            new = f"http://{host}/2024/01/01/{host}-s{minutes:g}/"
            section_shows = {new: now - 20 * 60}
            if shows[host]:
                stories[new] = now - 20 * 60
        for url, shown in ((section, section_shows), (archive, stories)):
            if url in visits:
                listed = {story: datetime.fromtimestamp(when, UTC) for story, when in shown.items()}
                forager.on_page(visits[url], now, text="c1", links=list(listed), published=None, listed=listed)
    _harvest(forager, now)


@pytest.mark.parametrize("family", [True, False])
def test_a_day_archive_proven_complete_on_two_other_hosts_is_complete_on_a_quiet_one(family):
    # hosts a and b: one visit each of their day archive checked a story their section dated
    # first, with no hole (one visit: neither is proven on its own host). Host c has no story a
    # section dates, so its archive's visits check nothing: with its family proven on a and b,
    # its second visit without a hole makes it complete, and c's section then waits the window
    forager, day = _family_forager(family), {}
    for minutes in (0, 60):
        _family_round(forager, minutes, {"a": True, "b": True}, day)
    assert forager._has_complete("http://c/section/politics/") is family
    assert forager.counters.family_complete == int(family)  # (newsforagers/family_complete)
    # a and b themselves: the family is proven on one other host only
    assert not forager._has_complete("http://a/section/politics/")
    assert not forager._has_complete("http://b/section/politics/")
    # c's section at its next visit: subsumed (a floor of the window) with the family's support
    _family_round(forager, 120, {}, day)
    assert forager.schedule.entry("http://c/section/politics/").subsumed is family
    # a's archive had its second check then (the story a's section dated at 60): proven on its
    # own host, and a's section, read before it in that round, is marked at once, not at its
    # next visit
    assert forager._has_complete("http://a/section/politics/")
    assert forager.schedule.entry("http://a/section/politics/").subsumed


def test_a_complete_listing_gone_from_the_schedule_releases_its_host_s_other_listings():
    # a's archive proven complete, a's section marked (its floor: the window); the archive then
    # leaves the schedule (dropped, or made barren): the section is due as before at once, not
    # a window later
    forager, day = _family_forager(), {}
    for minutes in (0, 60, 120):
        _family_round(forager, minutes, {"a": True, "b": True}, day)
    section, archive = "http://a/section/politics/", "http://a/archive/2024/01/01/"
    assert forager.schedule.entry(section).subsumed and forager._has_complete(section)
    forager.schedule.remove(archive)
    assert section in _listing_visits(forager, at(180))  # 5 minutes' floor, not the window's
    assert not forager.schedule.entry(section).subsumed and not forager._has_complete(section)
    assert forager.counters.complete_released == 1


def test_a_hole_on_any_host_withdraws_the_family_s_support():
    forager, day = _family_forager(), {}
    for minutes in (0, 60):
        _family_round(forager, minutes, {"a": True, "b": True}, day)
    assert forager._has_complete("http://c/section/politics/")
    # a's archive misses a story its section dated first: a hole in the family
    _family_round(forager, 120, {"a": False}, day)
    assert not forager._has_complete("http://c/section/politics/")


def test_a_host_with_a_complete_listing_gets_no_first_visit_of_its_other_listings():
    # c's home page is a seed whose first visit is answered only once c's day archive is proven
    # complete (its family on a and b): the sections of its map are not fetched, nor a feed a
    # page announces there added — each would show stories the archive shows. The story the
    # home page dates is fetched; a's feed is added. (A listing of c never visited is not
    # visited either: tests/learning/test_schedule.py, subsumed at once.)
    home = "http://c/"
    forager, day = _family_forager(more=(home,)), {}
    visits = _listing_visits(forager, at(-10))
    first = visits.pop(home)  # in flight until c is proven
    for fetch in visits.values():  # the others read once before the rounds, showing nothing
        forager.on_page(fetch, at(-10), text="c1", links=[], published=None, listed={})
    for minutes in (0, 60):
        _family_round(forager, minutes, {"a": True, "b": True}, day)
    assert forager._has_complete("http://c/section/politics/")
    needless = forager.counters.not_needed
    story, sections = "http://c/2024/01/01/c-home/", ["http://c/section/sport/", "http://c/section/arts/"]
    forager.on_page(first, at(61), text="c1", links=[story, *sections], published=None,
                    listed={story: dated(2, at(61))})
    fetched = []
    while (fetch := forager.next_fetch(at(61))) is not None:
        fetched.append(fetch.url)
        forager.on_page(fetch, at(61), text="c2", links=[], published=dated(2, at(61)))
    assert story in fetched and not set(sections) & set(fetched)
    assert forager.counters.not_needed == needless + 2
    assert forager.add_feeds(["http://c/feed.xml", "http://a/feed.xml"], at(62)) == 1
    assert "http://c/feed.xml" not in forager.schedule and "http://a/feed.xml" in forager.schedule
    assert forager.counters.not_needed == needless + 3


def test_a_day_archive_is_not_complete_once_its_day_has_ended():
    # proven complete on its own host (two visits that checked the section's stories), until
    # the site's clock passes the end of the day its URL names: it shows no later story
    forager = _family_forager(family=False)
    for minutes, story in ((0, None), (60, "s1"), (120, "s2")):
        now = at(minutes)
        visits = _listing_visits(forager, now)
        section, archive = "http://a/section/politics/", "http://a/archive/2024/01/01/"
        names = [name for name in ("s1", "s2") if story and name <= story]
        listed = {f"http://a/2024/01/01/{name}/": dated(10, now) for name in names}
        forager.on_page(visits[section], now, text="c1", links=list(listed), published=None, listed=listed)
        forager.on_page(visits[archive], now, text="c1", links=list(listed), published=None, listed=listed)
        _harvest(forager, now)
    assert forager._has_complete("http://a/section/politics/")
    forager.next_fetch(at(13 * 60))  # 2024-01-02 01:00 by the site's clock: the day has ended
    assert not forager._has_complete("http://a/section/politics/")


@pytest.mark.parametrize("offset", [9, 0, -5])
def test_a_day_archive_is_complete_until_the_site_s_own_midnight(offset):
    # the same, on a site whose days are not UTC's: its stories' URLs show where its day begins
    # (a story of 23:50 on the 31st, one of 00:10 on the 1st, where the site is), and its day
    # archive of the 1st stops showing every story at the site's midnight — at UTC+9, 15:00 UTC
    # (before, at UTC's: nine hours of the site's new day in which its other listings, subsumed
    # by the archive, were read once a window)
    site = timezone(timedelta(hours=offset))
    forager = _family_forager(family=False)
    section, archive = "http://a/section/politics/", "http://a/archive/2024/01/01/"
    night = {"http://a/2023/12/31/late/": datetime(2023, 12, 31, 23, 50, tzinfo=site),
             "http://a/2024/01/01/early/": datetime(2024, 1, 1, 0, 10, tzinfo=site)}
    for minutes, story in ((0, None), (60, "s1"), (120, "s2")):
        now = at(minutes)
        visits = _listing_visits(forager, now)
        names = [name for name in ("s1", "s2") if story and name <= story]
        listed = {f"http://a/2024/01/01/{name}/": dated(10, now) for name in names}
        if minutes == 0:
            listed = {**night, **listed}
        forager.on_page(visits[section], now, text="c1", links=list(listed), published=None, listed=listed)
        forager.on_page(visits[archive], now, text="c1", links=[u for u in listed if "/2024/" in u],
                        published=None, listed={u: d for u, d in listed.items() if "/2024/" in u})
        _harvest(forager, now)
    assert forager.schedule.site_days.offset("a") == offset * 3600
    assert forager._has_complete(section)
    midnight = datetime(2024, 1, 2, tzinfo=site).timestamp()
    forager.next_fetch(midnight - 60)
    assert forager._has_complete(section)
    forager.next_fetch(midnight + 60)
    assert not forager._has_complete(section)


def test_yesterdays_archive_is_read_once_after_todays_shows_a_story_then_never_again():
    today, yesterday = HOME + "archive/2024/01/01/", HOME + "archive/2023/12/31/"
    forager = _polled([today, yesterday])
    # both read at noon (begun together): today's shows a story of 11:00, yesterday's one of its own
    visits = _listing_visits(forager, at(0))
    forager.on_page(visits[today], at(0), text="c1", links=[HOME + "2024/01/01/a/"], published=None,
                    listed={HOME + "2024/01/01/a/": dated(60, at(0))})
    forager.on_page(visits[yesterday], at(0), text="c1", links=[HOME + "2023/12/31/y/"], published=None,
                    listed={HOME + "2023/12/31/y/": dated(14 * 60, at(0))})
    _harvest(forager, at(0))
    assert forager.counters.days_closed == 0
    # an hour on: yesterday's read again, begun after today's page showed a story of today: closed
    visits = _listing_visits(forager, at(60))
    assert set(visits) == {today, yesterday}
    for url in visits:
        forager.on_page(visits[url], at(60), text="c1", links=[], published=None)
    assert forager.counters.days_closed == 1
    for hours in (2, 5, 20):
        visits = _listing_visits(forager, at(60 * hours))
        assert set(visits) == {today}
        forager.on_page(visits[today], at(60 * hours), text="c1", links=[], published=None)


def test_exploration_does_not_walk_down_the_calendar():
    # a past day's archive (its "previous day" link) names a day that ended beyond the novelty
    # window: nothing on it can be novel, so no exploration step goes there (before, steps
    # followed yesterday's archive to the day before, and the day before that)
    forager = make()
    now = at(0)  # 2024-01-01 12:00: 2023-12-30 ended 36 hours ago
    past, tag = HOME + "archive/2023/12/30/", HOME + "tag/pensions/"
    assert forager._choose_step(None, [past, tag], now) == tag
    assert forager._choose_step(None, [past, HOME + "2023/12/29/old-story/"], now) is None
    assert forager._choose_step(None, [HOME + "archive/2023/12/31/"], now) == HOME + "archive/2023/12/31/"


def test_exploration_passes_over_a_page_whose_links_are_all_on_hosts_that_wait(monkeypatch):
    # every host of a page's links waits for its budget: the page is passed over without a
    # look at its links; one with a link on a host that may go is looked at, and its step taken
    forager = make()
    now = at(0)
    other = "http://127.0.0.9:8000/"
    forager._page_links.put(HOME + "2024/01/01/a/", (HOME + "tag/a/", HOME + "author/b/"))
    forager._page_links.put(HOME + "2024/01/01/c/", (HOME + "tag/c/", other + "tag/d/"))
    looked = []
    choose = forager._choose_step
    monkeypatch.setattr(forager, "_choose_step", lambda state, links, *rest: looked.append(links) or choose(
        state, links, *rest))
    waits = forager._host(HOME)
    assert forager._explore_step(now, lambda host: host != waits).url == other + "tag/d/"
    assert looked and all(other + "tag/d/" in links for links in looked)
    looked.clear()
    assert forager._explore_step(now, lambda host: False) is None and looked == []
    assert forager._explore_step(now, lambda host: True) is not None and looked


def test_a_listing_beside_one_that_shows_every_story_of_its_host_waits_a_window():
    # today's archive shows every story of the host (a list without holes); a section shows
    # its own. Once two visits of the archive had no hole while checking a story the section
    # dated first, the archive is complete, and the section's next visit finds it subsumed:
    # no prior, no spare visits, a floor of the whole window (24 h)
    # (a "latest" page: a day's archive is complete only until its day ends, below)
    archive, section = HOME + "latest/", HOME + "section/politics/"
    forager = _polled([archive, section])
    story = {name: HOME + f"2024/01/01/{name}/" for name in ("a1", "s1", "s2", "a2", "a3")}
    rounds = [  # minutes; the pages in the order read, with their stories' ages in minutes
        (0, [(archive, {"a1": 60, "s1": 30}), (section, {"s1": 30})]),
        # the section shows s2 first; the archive shows it too (no hole): evidence 1
        (60, [(section, {"s1": 90, "s2": 20}), (archive, {"a1": 120, "s1": 90, "s2": 20, "a2": 10})]),
        # the archive again with no hole (s2, another's, checked): complete; the section after it
        (120, [(archive, {"a1": 180, "s1": 150, "s2": 80, "a2": 70, "a3": 5}), (section, {"s1": 150, "s2": 80})]),
    ]
    for minutes, pages in rounds:
        visits = _listing_visits(forager, at(minutes))
        assert set(visits) == {archive, section}
        for url, shown in pages:
            listed = {story[name]: dated(ago, at(minutes)) for name, ago in shown.items()}
            forager.on_page(visits[url], at(minutes), text="c1", links=list(listed), published=None,
                            listed=listed)
            _harvest(forager, at(minutes))  # (its stories fetched and credited before the next page)
        assert forager.counters.subsumed == (1 if minutes == 120 else 0)
    entry = forager.schedule.entry(section)
    assert entry.subsumed and forager.schedule._floor(entry) == 24 * 3600.0
    assert forager.schedule.prior_rate(entry) == 0.0
    assert not forager.schedule.entry(archive).subsumed
    # its revisit a day on answers 304 (unchanged): still subsumed while the archive is complete
    visits = _listing_visits(forager, at(121 + 24 * 60))
    forager.on_not_modified(visits[section], at(121 + 24 * 60))
    assert forager.schedule.entry(section).subsumed
    # ... and the archive, which shows every story the section shows as soon, holds at least
    # the section's rate: a complete listing whose rate is not learnt yet (new, credited one
    # story a window; its stories shown first by the section at the start) takes the section's,
    # so the host's visits are not left to it; a higher rate of its own stays
    archive_entry, section_entry = forager.schedule.entry(archive), forager.schedule.entry(section)
    archive_entry.rate, section_entry.rate = 0.5, 2.0
    visits = _listing_visits(forager, at(122 + 48 * 60))
    forager.on_not_modified(visits[section], at(122 + 48 * 60))
    assert section_entry.subsumed and archive_entry.rate == 2.0
    archive_entry.rate = 3.0
    visits = _listing_visits(forager, at(123 + 72 * 60))
    forager.on_not_modified(visits[section], at(123 + 72 * 60))
    assert section_entry.subsumed and archive_entry.rate == 3.0
    # a listing met on the host now adds nothing the archive does not show: not added
    other = HOME + "section/sports/"
    forager.on_page(Fetch(other, "harvest", 1), at(121), text="c1", links=[story["a1"]], published=None)
    assert other not in forager.schedule and forager.counters.not_needed == 1
    # ... on another host it is
    elsewhere = "http://t/section/sports/"
    forager.on_page(Fetch(elsewhere, "harvest", 1), at(121), text="c1", links=[], published=None)
    assert elsewhere in forager.schedule
    # nor does exploration go there (what it found, the archive shows or would not be added)
    forager.config = dataclasses.replace(forager.config, explore_share=0.1)
    assert not forager._explore_due_on(forager._host(HOME)) and forager._explore_due_on("t")


@pytest.mark.parametrize("topic", ["", "solar energy"])
def test_in_the_topical_mode_news_goes_by_its_link_s_relevance_then_the_oldest_first(topic):
    # The home page lists three stories published since the forager began: a (the oldest, its
    # link off the topic), b (the likeliest on it), c (a word of it). Without a topic, the
    # oldest first; with one, by the link's score, then the oldest — a burst's stories on the
    # topic do not wait behind the others (docs/algorithms.md, "The topical mode's news order").
    forager = make(FORAGERS_TOPIC=topic)
    visit = forager.next_fetch(at(0))
    listed = {HOME + "a/": dated(-1, at(0)), HOME + "b/": dated(-2, at(0)), HOME + "c/": dated(-3, at(0)),
              HOME + "d/": dated(-3.5, at(0))}
    scores = {HOME + "a/": math.nan, HOME + "b/": 0.42, HOME + "c/": 0.1}  # (a/: not a number, d/: no context: 0)
    forager.on_page(visit, at(4), text="c1 home", links=list(listed), published=None, listed=listed,
                    scores=scores)
    saved = forager.to_state()
    order = [forager.next_fetch(at(4)).url for _ in range(4)]
    expected = ["b/", "c/", "a/", "d/"] if topic else ["a/", "b/", "c/", "d/"]
    assert order == [HOME + path for path in expected]
    assert forager.counters.topic_links == (2 if topic else 0)
    # the order is the forager's state: a crawl resumed from it keeps it
    other = make(FORAGERS_TOPIC=topic)
    other.restore(saved)
    assert [other.next_fetch(at(4)).url for _ in range(4)] == order
    # a saved score that is not a number (written by hand): no relevance known, 0
    for entry in saved["harvest"]:
        if entry[0] == HOME + "b/":
            entry[5] = "high"
    spoiled = make(FORAGERS_TOPIC=topic)
    spoiled.next_fetch(at(0))  # (begun as the first: the stories are its news, in their order)
    spoiled.restore(saved)
    expected = ["c/", "a/", "b/", "d/"] if topic else ["a/", "b/", "c/", "d/"]
    assert [spoiled.next_fetch(at(4)).url for _ in range(4)] == [HOME + path for path in expected]


def test_the_driver_scores_link_contexts_with_the_colony_s_learned_query_else_the_topic_s_words(monkeypatch):
    from parsel import Selector

    from newsforagers.pages.links import DeferredContexts
    from newsforagers.text.topic import Topic
    from newsforagers.topics import topic_state_key

    monkeypatch.setattr("newsforagers.driver.scheduled._QUERY_EVERY", 0.0)  # the store read at each call
    driver, _ = _driver(FORAGERS_TOPIC="solar energy")
    # "solar", "wind" and "energy" in as many documents of the corpus: one idf, so "wind energy"
    # is at 60° to the topic's words (cosine 1/2) and at 45° to a query of "wind" alone (1/√2)
    driver.spider.topic = Topic("solar energy", corpus=["wind energy", "solar wind energy", "football", "solar"])
    contexts = {"u1": "Solar energy", "u2": "football match", "u3": "wind energy", "u4": ""}
    scores = driver.link_scores(contexts)
    assert scores["u1"] == pytest.approx(1.0)  # worked out as the mind asks, once a link
    assert driver.crawler.stats.get_value("newsforagers/topic/links_scored") == 1
    own = dict(scores)
    assert driver.crawler.stats.get_value("newsforagers/topic/links_scored") == 3
    assert set(own) == {"u1", "u2", "u3"}  # (no context, no score: 0 to the mind)
    assert (own["u1"], own["u3"], own["u2"]) == pytest.approx((1.0, 0.5, 0.0))
    # the agent fitted the colony's query (the store's topic state): scored with it from then on
    driver.store.swap_value(topic_state_key("solar energy"), None, {"query": {"wind": 2.0}, "threshold": 0.1})
    learned = dict(driver.link_scores(contexts))
    assert learned["u3"] == pytest.approx(1 / math.sqrt(2)) and learned["u1"] == learned["u2"] == 0
    # a state of the wrong shape (written by hand, by another version): the topic's own words
    driver.store.swap_value(topic_state_key("solar energy"), {"query": {"wind": 2.0}, "threshold": 0.1},
                            {"query": {"wind": "much"}})
    assert dict(driver.link_scores(contexts)) == own
    assert driver.crawler.stats.get_value("newsforagers/topic/links_scored") == 9
    for wrong in ({"wind": float("inf")}, {"wind": -1.0}, {"wind": 0}, ["wind"]):
        key = topic_state_key("solar energy")
        assert driver.store.swap_value(key, driver.store.get_value(key), {"query": wrong, "threshold": 0.1})
        assert driver.link_scores(contexts)["u3"] == pytest.approx(0.5)
    # a listing's contexts as the spider hands them: its page walked at the first score asked
    page = Selector(text='<ul><li><a href="/a">Solar</a> energy</li><li><a href="/b">Football</a></li>'
                         '<li><a href="/c"><img src="x.png"></a></li></ul>')
    deferred = DeferredContexts("https://site.test/", page.root,
                                ["https://site.test/a", "https://site.test/c", "https://site.test/d"])
    lazy = driver.link_scores(deferred)
    assert not deferred.walked
    assert lazy["https://site.test/a"] == pytest.approx(1.0) and deferred.walked
    assert "https://site.test/c" not in lazy and lazy.get("https://site.test/d", 0.0) == 0.0
    assert list(lazy) == ["https://site.test/a"]  # (a listed link only, with a context)
    # without a topic: nothing scored
    plain, _ = _driver()
    assert not plain.link_scores(contexts)
