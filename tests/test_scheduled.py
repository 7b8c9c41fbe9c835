"""The scheduled forager's mind (issue 7): harvest first, articles fetched once, listed old
items skipped, rewards credited to the listing, idling, exploration's share, persistence."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from newsforagers.config import ForagersConfig
from newsforagers.scheduled import Fetch, ScheduledForager, schedule_from_config

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

    return ScheduledForager("f1", config, schedule_from_config(config, [HOME]), np.ones(K),
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
