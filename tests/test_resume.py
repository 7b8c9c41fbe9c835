"""Resuming after a crash, without a crawl: checkpoints, the path round trip, the feed's repair."""

import json
import logging
from datetime import timedelta

import numpy as np
import pytest
from scrapy import signals
from scrapy.utils.test import get_crawler

from newsforagers.colony import checkpoint as checkpoints
from newsforagers.colony.feed import ColonyFeed
from newsforagers.colony.local import Colony
from newsforagers.config import ForagersConfig
from newsforagers.learning.path import ForagerPath
from newsforagers.store import DocumentRecord, MemoryStore
from newsforagers.strategies.scheduled import Fetch
from tests.test_forager import NOW, K, make, walk_step
from tests.test_scheduled import HOME, at, dated
from tests.test_scheduled import make as make_scheduled


def json_round_trip(data):
    return json.loads(json.dumps(data))


# -- the path and the foragers' memories ---------------------------------------------------------


def test_a_path_comes_back_whole_from_its_compact_form():
    rng = np.random.default_rng(1)
    path = ForagerPath(k=5, max_steps=10)
    path.begin("http://s/", None)
    path.add_frontier([f"http://p{i}/" for i in range(40)], rng.uniform(-1, 1, (40, 5)))
    w = rng.uniform(-1, 1, 5)
    for _ in range(3):
        path.choose_next(w)
        path.add_profit(float(rng.integers(0, 99)))
    path.set_current_state(rng.uniform(-1, 1, 5))
    compact = json_round_trip(path.to_dict(compact=True))
    plain = path.to_dict()
    assert len(json.dumps(compact)) < len(json.dumps(plain)) / 2
    for data in (compact, json_round_trip(plain)):
        copy = ForagerPath.from_dict(data, k=5, max_steps=10)
        assert copy.steps == path.steps and copy.profits == path.profits
        assert copy.visited == path.visited and copy.frontier() == path.frontier()
        for mine, theirs in zip(path.step_states, copy.step_states):
            assert (mine is None and theirs is None) or np.array_equal(mine, theirs)
        assert all(np.array_equal(copy.state_of(u), path.state_of(u)) for u in path.frontier())
        # and it decides as the original would
        w2 = rng.uniform(-1, 1, 5)
        assert copy.choose_next(w2) == ForagerPath.from_dict(compact, k=5, max_steps=10).choose_next(w2)
    with pytest.raises(ValueError):
        ForagerPath.from_dict(compact, k=4, max_steps=10)


def test_a_forager_resumes_the_step_it_was_walking():
    forager = make()
    forager.next_step()
    walk_step(forager, "http://s/", ["http://a/", "http://b/", "http://c/"],
              {"http://a/": "c3", "http://b/": "c1", "http://c/": "c2"})
    assert forager.should_send("http://b/", NOW - timedelta(hours=1), NOW)
    second = forager.next_step()  # the barrier cleared: the next step is now in progress
    assert second == "http://b/"
    forager.on_reward(forager.path_id, 1, 99.0, True)
    forager.on_step_page(second, "c1 page", ["http://d/"])  # killed before the probe came back

    state = json_round_trip(forager.to_state())
    assert state["step"] == "http://b/"
    copy = make(weights=np.zeros(K))
    copy.restore(state)
    assert copy.weblog.entries() == forager.weblog.entries()
    assert np.array_equal(copy.weights, forager.weights)
    assert "http://b/" in copy.sent and copy.counters.steps == forager.counters.steps
    assert copy.path.steps == ["http://s/", "http://b/"] and copy.path.profits == [0.0, 99.0]
    assert copy.path.frontier() == ["http://a/", "http://c/"]
    # the step in progress is walked again: its page, then its probes
    assert copy.next_step() == "http://b/"
    assert copy.on_step_page("http://b/", "c1 page", ["http://d/"]) == ["http://d/"]
    copy.on_probe_page("http://d/", "c2", None)
    forager.on_probe_page("http://d/", "c2", None)  # the run that was not killed
    assert copy.next_step() == forager.next_step()
    assert np.array_equal(copy.weights, forager.weights)  # the same TD step
    assert copy.path.frontier() == forager.path.frontier()
    assert len(copy.path.steps) == 3 and copy.path.profits[1] == 99.0


def test_a_path_without_its_encoder_is_not_restored():
    forager = make()
    forager.next_step()
    walk_step(forager, "http://s/", ["http://a/"], {"http://a/": "c3"})
    forager.next_step()
    copy = make()
    copy.restore(json_round_trip(forager.to_state()), path=False)
    assert copy.path.steps == [] and copy.next_step() == "http://s/"
    assert copy.weblog.entries() == forager.weblog.entries()


def test_a_scheduled_forager_keeps_its_harvest_queue_and_what_was_in_flight():
    forager = make_scheduled()
    visit = forager.next_fetch(at(0))
    forager.on_page(visit, at(0), text="c1 home", links=[HOME + f"a{i}/" for i in range(5)], published=None)
    flying = forager.next_fetch(at(0))  # requested, never answered: the crash
    done = forager.next_fetch(at(0))
    forager.on_page(done, at(1), text="c2 story", links=[], published=dated(5, at(1)))
    state = json_round_trip(forager.to_state())
    copy = make_scheduled()
    copy.restore(state)
    queued = {forager.next_fetch(at(2)).url for _ in range(3)}
    again = [copy.next_fetch(at(2)) for _ in range(4)]
    assert again[0] == Fetch(flying.url, "harvest", flying.visit)  # first in line
    assert {f.url for f in again[1:]} == queued
    assert done.url not in {f.url for f in again}  # an article fetched is not fetched again
    assert copy.counters.harvested == forager.counters.harvested
    assert np.array_equal(copy.weights, forager.weights)


# -- checkpoint files ------------------------------------------------------------------------------


def test_the_newest_valid_checkpoint_wins_and_a_corrupt_one_is_skipped(tmp_path, caplog):
    path = tmp_path / "forager.json"
    assert checkpoints.read_checkpoint(path) is None
    checkpoints.write_checkpoint(path, {"seq": 1, "weights": [1.0]})
    checkpoints.write_checkpoint(path, {"seq": 2, "weights": [2.0]})
    assert checkpoints.read_checkpoint(path)["weights"] == [2.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["forager.json", "forager.json.prev"]
    # a checkpoint cut short (as a disk may lose it) is logged and the previous one used
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with caplog.at_level(logging.WARNING):
        assert checkpoints.read_checkpoint(path)["weights"] == [1.0]
    assert "forager.json is unreadable" in caplog.text
    checkpoints.previous_of(path).write_text('{"version": 1}')  # no seq: not a checkpoint
    assert checkpoints.read_checkpoint(path) is None
    # writing again after that leaves two whole ones
    checkpoints.write_checkpoint(path, {"seq": 3})
    checkpoints.write_checkpoint(path, {"seq": 4})
    assert checkpoints.read_checkpoint(path)["seq"] == 4
    assert json.loads(checkpoints.previous_of(path).read_text())["seq"] == 3


def test_a_failed_write_leaves_the_old_checkpoint(tmp_path):
    path = tmp_path / "population.json"
    checkpoints.write_checkpoint(path, {"seq": 1})
    with pytest.raises(TypeError):
        checkpoints.write_checkpoint(path, {"seq": 2, "bad": object()})
    assert checkpoints.read_checkpoint(path)["seq"] == 1
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# -- the feed --------------------------------------------------------------------------------------


def test_a_truncated_feed_is_cut_back_to_its_last_whole_item(tmp_path):
    feed = tmp_path / "feed.jsonl"
    whole = '{"url": "http://s/1"}\n{"url": "http://s/2"}\n'
    feed.write_text(whole + '{"url": "http://s/3", "ti')
    assert checkpoints.repair_feed(feed) == len('{"url": "http://s/3", "ti')
    assert feed.read_text() == whole
    assert checkpoints.repair_feed(feed) == 0 and feed.read_text() == whole
    feed.write_text(whole + '{"url": "http://s/3"\n')  # a flush that stopped on a newline? no JSON
    checkpoints.repair_feed(feed)
    assert feed.read_text() == whole
    assert checkpoints.feed_urls(feed) == {"http://s/1", "http://s/2"}
    assert checkpoints.repair_feed(tmp_path / "none.jsonl") == 0


def test_only_local_feeds_are_checked():
    local, other = checkpoints.local_feeds({
        "feed.jsonl": {"format": "jsonlines"}, "file:///tmp/x.jsonl": {"format": "jsonl"},
        "s3://bucket/x.jsonl": {"format": "jsonlines"}, "out-%(time)s.jsonl": {"format": "jsonlines"}})
    assert [p.name for p, _ in local] == ["feed.jsonl", "x.jsonl"]
    assert other == ["s3://bucket/x.jsonl", "out-%(time)s.jsonl"]


def record(i):
    return DocumentRecord(f"http://s/{i}", f"story {i}", "2024-01-01T10:00:00+00:00",
                          "2024-01-01T10:05:00+00:00", "f1", 100.0)


def test_the_outputs_of_this_host_s_job_missing_from_the_feed():
    store = MemoryStore()
    for i in range(6):
        store.add_output(record(i).item(True), "job", "f1" if i % 2 else "f2")
    store.add_output(record(6).item(True), "another-host", "h2.f1")
    feed = ColonyFeed(store, "job", "f1")
    missing = feed.missing(2, {"http://s/3", "http://s/5"})
    # the root's own outputs (odd records) are checked as the others': a stop can come between
    # an output and its line in the feed
    assert [item["url"] for item in missing] == ["http://s/2", "http://s/4"]


def resumed_colony(tmp_path, feeds, population=True):
    jobdir = tmp_path / "job"
    if population:
        checkpoints.write_checkpoint(jobdir / checkpoints.POPULATION_FILE, {
            "seq": 7, "next_id": 5, "host": "job", "output_start": 1, "members": {"f1": {"root": True}}})
    crawler = get_crawler(settings_dict={"JOBDIR": str(jobdir), "FEEDS": feeds})
    store = MemoryStore()
    for i in range(5):
        store.add_output(record(i).item(True), "job", "f1")
    store.add_output(record(9).item(True), "another-host", "h2.f1")  # never this host's feed's
    colony = Colony(crawler, ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run")}),
                    store=store)
    colony.open()
    output = []

    def scraped(item, response, spider):
        output.append(item)

    crawler.signals.connect(scraped, signal=signals.item_scraped, weak=False)
    return colony, crawler, output


def test_a_resume_repairs_the_feed_and_outputs_what_it_lost_once(tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps(record(1).to_dict()) + "\n" + json.dumps(record(3).to_dict()) + '\n{"url": "ht')
    colony, crawler, output = resumed_colony(tmp_path, {str(feed): {"format": "jsonlines"}})
    assert colony.new_id() == "f5"  # ids of the stopped colony are never given again
    colony.prepare_feeds()
    assert feed.read_text().endswith("}\n") and len(feed.read_text().splitlines()) == 2
    crawler.signals.send_catch_log(signals.spider_opened, spider=None)
    # the store's documents after the job's start (record 0 is an earlier job's), minus the feed's
    assert [item["url"] for item in output] == ["http://s/2", "http://s/4"]
    assert output[0] == record(2).item(True)
    crawler.signals.send_catch_log(signals.spider_opened, spider=None)
    assert len(output) == 2  # once


def test_a_fresh_job_outputs_nothing_again(tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_text('{"url": "http://s/1"}\n{"url": "ht')
    colony, crawler, output = resumed_colony(tmp_path, {str(feed): {"format": "jsonlines"}}, population=False)
    colony.prepare_feeds()
    crawler.signals.send_catch_log(signals.spider_opened, spider=None)
    assert output == [] and colony.output_start == 6
    assert feed.read_text().endswith('{"url": "ht')  # not this job's to repair: Scrapy appends


def test_an_overwritten_feed_gets_every_document_of_the_job(tmp_path):
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps(record(1).to_dict()) + "\n")
    colony, crawler, output = resumed_colony(tmp_path, {str(feed): {"format": "jsonlines", "overwrite": True}})
    colony.prepare_feeds()
    crawler.signals.send_catch_log(signals.spider_opened, spider=None)
    assert [item["url"] for item in output] == [f"http://s/{i}" for i in range(1, 5)]


def test_energy_policy_comes_back(tmp_path):
    settings = {"JOBDIR": str(tmp_path / "job"), "FORAGERS_POPULATION": "energy", "FORAGERS_STRATEGY": "paper"}
    config = ForagersConfig.from_settings(settings)
    first = Colony(get_crawler(settings_dict=settings), config, store=MemoryStore())
    first.open()
    first.register("f1", first.root)
    for i, relevance in enumerate([0.0, 5.0, 99.0, 0.5]):
        first.policy.visit("f1", f"http://s/{i}", relevance)
    first.checkpoint_population()
    energy = first.policy.energies["f1"]
    second = Colony(get_crawler(settings_dict=settings), config, store=MemoryStore())
    second.open()
    second.register("f1", second.root, resumed=True)
    assert second.policy.energies["f1"] == energy
    assert second.policy.page_energy == first.policy.page_energy
    assert second.policy.model.threshold() == first.policy.model.threshold()
    assert second.policy.pages == 4


class Spider:
    model_path = "trained.joblib"  # the forager's encoder came with -a model=
    state = None


def driver_for(tmp_path, forager):
    from newsforagers.driver import PaperDriver

    crawler = get_crawler(settings_dict={"JOBDIR": str(tmp_path / "job")})
    return PaperDriver(crawler, Spider(), forager, 60.0, model_path=Spider.model_path)


def test_a_driver_resumes_its_newest_readable_checkpoint_and_never_crashes_on_one(tmp_path, caplog):
    forager = make()
    forager.next_step()
    walk_step(forager, "http://s/", ["http://a/", "http://b/"], {"http://a/": "c3", "http://b/": "c1"})
    forager.next_step()
    driver = driver_for(tmp_path, forager)
    assert driver.resume() is False  # nothing saved yet
    driver._restored = True
    driver.checkpoint(final=True)  # seq 1: the path under way
    forager.weights = forager.weights + 1.0
    driver._final = False
    driver.checkpoint(final=True)  # seq 2
    path = tmp_path / "job" / checkpoints.FORAGER_FILE
    assert checkpoints.read_checkpoint(path)["seq"] == 2

    copy = make(weights=np.zeros(K))
    assert driver_for(tmp_path, copy).resume() is True
    assert np.array_equal(copy.weights, forager.weights) and copy.path.steps == forager.path.steps
    assert copy.next_step() == forager.path.steps[-1]  # the step under way, walked again

    path.write_bytes(path.read_bytes()[:100])  # the newest cut short: the previous one
    copy = make(weights=np.zeros(K))
    with caplog.at_level(logging.WARNING):
        assert driver_for(tmp_path, copy).resume() is True
    assert np.array_equal(copy.weights, forager.weights - 1.0)
    checkpoints.previous_of(path).write_bytes(b"\x00garbage")
    copy = make(weights=np.zeros(K))
    assert driver_for(tmp_path, copy).resume() is False  # both unreadable: from the seeds
    assert np.array_equal(copy.weights, np.zeros(K)) and copy.next_step() == "http://s/"
    assert caplog.text.count("is unreadable") >= 3


def test_a_path_whose_encoder_is_lost_is_dropped_and_the_rest_kept(tmp_path, caplog):
    forager = make()
    forager.next_step()
    walk_step(forager, "http://s/", ["http://a/"], {"http://a/": "c3"})
    forager.next_step()
    checkpoints.write_checkpoint(tmp_path / "job" / checkpoints.FORAGER_FILE,
                                 {"seq": 3, "encoder": "bootstrapped", **forager.to_state()})
    copy = make(weights=np.zeros(K), encoder=None, bootstrap=lambda texts: None)
    driver = driver_for(tmp_path, copy)
    driver.model_path = None
    with caplog.at_level(logging.WARNING):
        assert driver.resume() is True
    assert "saved state encoder unusable" in caplog.text
    assert copy.encoder is None and copy.path.steps == []
    assert np.array_equal(copy.weights, forager.weights) and copy.weblog.entries() == forager.weblog.entries()


def test_the_population_checkpoint_keeps_the_living_and_the_next_id(tmp_path):
    settings = {"JOBDIR": str(tmp_path / "job")}
    config = ForagersConfig.from_settings(settings)
    first = Colony(get_crawler(settings_dict=settings), config, store=MemoryStore())
    first.open()
    first.claim_id("f1")
    first.register("f1", first.root)
    for _ in range(3):
        name = first.new_id()
        first.register(name, get_crawler(), parent="f1",
                       member={"seeds": ["http://s/"], "mode": "wlrl", "parent": "f1", "weblog": None})
    first.retire("f3")
    first.unregister("f4")  # stopped (a shutdown), not retired: it comes back
    second = Colony(get_crawler(settings_dict=settings), config, store=MemoryStore())
    second.open()
    assert set(second.resumed["members"]) == {"f1", "f2", "f4"}
    assert second.resumed["members"]["f1"] == {"root": True}
    assert second.new_id() == "f5"


def test_a_feed_that_cannot_be_checked_is_named(tmp_path, caplog):
    feed = tmp_path / "feed.jsonl"
    feeds = {str(feed): {"format": "jsonlines"}, "s3://bucket/found.jsonl": {"format": "jsonlines"}}
    colony, crawler, output = resumed_colony(tmp_path, feeds)
    with caplog.at_level(logging.WARNING):
        colony.prepare_feeds()
    assert "feed s3://bucket/found.jsonl cannot be checked after the stop" in caplog.text
    assert str(feed) not in caplog.text
