"""Starting foragers: what a forager is born with goes through the store, the spawner gets its
spider arguments, a split's child is recorded, a colony that ends starts none, and a forager's
end is recorded and counted out."""

from __future__ import annotations

import json
import time

from scrapy.utils.test import get_crawler

from newsforagers.colony import checkpoint as checkpoints
from newsforagers.colony.keys import handover_key
from newsforagers.colony.local import Colony
from newsforagers.colony.spawner import InProcessSpawner, ProcessSpawner
from newsforagers.colony.spawning import spawner_for
from newsforagers.config import ForagersConfig
from newsforagers.store import MemoryStore


def colony(tmp_path, settings_dict=None, **settings) -> Colony:
    config = ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run"), **settings})
    made = Colony(get_crawler(settings_dict=settings_dict or {}), config, store=MemoryStore())
    made.open()
    made.started = []

    def start(name, arguments):  # as the in-process spawner does, without a crawl
        made.started.append((name, arguments))
        made.spawning._started(name, object())

    made.spawning.spawner.start = start
    made.claim_id("f1")
    made.register("f1", made.root)
    return made


def events(tmp_path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]


def test_a_split_s_child_is_born_from_the_store_with_the_root_s_clock_speed(tmp_path):
    c = colony(tmp_path)
    c.speed = 600.0
    assert c.reserve_place("f2", "f1")
    assert c.spawn("f2", seeds=["http://s/a", "http://s/b"], mode="wlrl", parent="f1",
                   weblog={"entries": []}, weights=[0.5], model="m.joblib", weblog_child=1)
    assert c.store.get_value(handover_key("f2")) == {"weblog": {"entries": []}, "weights": [0.5],
                                                     "host": c.host_token}
    assert c.started == [("f2", {"seeds": "http://s/a,http://s/b", "mode": "wlrl", "forager": "f2",
                                 "colony": c, "model": "m.joblib", "speed": 600.0})]
    assert [(e["event"], e["forager"], e["parent"]) for e in events(tmp_path)] == [
        ("start", "f1", None), ("split", "f2", "f1")]
    assert events(tmp_path)[-1]["weblog_child"] == 1
    assert c.record.born == 2 and c.checkpoint.members["f2"]["parent"] == "f1"


def test_a_colony_that_ends_starts_no_forager_and_frees_a_child_s_place(tmp_path):
    c = colony(tmp_path)
    assert c.reserve_place("f2", "f1")
    c._stopping = True
    assert not c.spawn("f2", seeds=["http://s/"], mode="wlrl", parent="f1")
    assert c.started == [] and "f2" not in c.store.members(time.time())
    assert not c.reserve_place("f3", "f1")  # nor a place for another


def test_the_population_starts_once_and_a_resume_brings_back_the_living_under_their_names(tmp_path):
    c = colony(tmp_path, FORAGERS_MIN=3)
    c.start_population(["http://s/"], "wlrl", None)
    c.start_population(["http://s/"], "wlrl", None)
    assert [name for name, _ in c.started] == ["f2", "f3"]
    jobdir = tmp_path / "job"
    checkpoints.write_checkpoint(jobdir / checkpoints.POPULATION_FILE, {
        "seq": 4, "next_id": 9, "host": "h", "output_start": 0,
        "members": {"f1": {"root": True}, "f8": {"seeds": ["http://s/8"], "mode": "wl", "parent": "f2"}}})
    resumed = colony(tmp_path / "resumed", settings_dict={"JOBDIR": str(jobdir)}, FORAGERS_MIN=3)
    resumed.start_population(["http://s/"], "wlrl", None)
    # f8 as it was born, then the rest of Alg. 9's minimum under new names
    assert [(name, arguments["seeds"], arguments["mode"]) for name, arguments in resumed.started] == [
        ("f8", "http://s/8", "wl"), ("f9", "http://s/", "wlrl")]
    assert resumed.checkpoint.members["f8"]["parent"] == "f2"
    assert [e["resumed"] for e in events(tmp_path / "resumed") if e["forager"] == "f8"] == [True]


def test_a_forager_that_ended_without_retiring_is_recorded_stopped_and_counted_out(tmp_path):
    c = colony(tmp_path)
    c.spawn("f2", seeds=["http://s/"], mode="wlrl")
    assert "f2" in c.membership.foragers  # the in-process spawner's crawler
    c.spawning._ended("f2", None)
    assert events(tmp_path)[-1]["event"] == "stop" and events(tmp_path)[-1]["forager"] == "f2"
    assert "f2" not in c.store.members(time.time()) and "f2" not in c.membership.foragers
    c.spawning._ended("f9", None)  # not one of its foragers: nothing recorded
    assert events(tmp_path)[-1]["forager"] == "f2"


def test_the_spawner_is_the_one_foragers_spawner_names():
    root = get_crawler(settings_dict={})
    for name, kind in (("inprocess", InProcessSpawner), ("process", ProcessSpawner)):
        config = ForagersConfig.from_settings({"FORAGERS_SPAWNER": name, "FORAGERS_POPULATION": "score"})
        assert type(spawner_for(config, root, None, None, 1.0)) is kind


def test_a_resume_with_foragers_in_other_processes_starts_the_minimum_and_ends(tmp_path):
    """Foragers another process runs never join this process's membership: the top-up to
    FORAGERS_MIN counts them as started (it looped for ever before)."""
    jobdir = tmp_path / "job"
    checkpoints.write_checkpoint(jobdir / checkpoints.POPULATION_FILE, {
        "seq": 2, "next_id": 5, "host": "h", "output_start": 0,
        "members": {"f1": {"root": True}, "f4": {"seeds": ["http://s/4"], "mode": "wl"}}})
    resumed = colony(tmp_path / "resumed", settings_dict={"JOBDIR": str(jobdir)}, FORAGERS_MIN=4)
    started = []
    resumed.spawning.spawner.in_process = False  # as the process and scrapyd spawners are
    resumed.spawning.spawner.start = lambda name, arguments: started.append(name)
    resumed.start_population(["http://s/"], "wlrl", None)
    assert started == ["f4", "f5", "f6"]  # the root, f4 and two more: four
