"""The colony's record: events with the forager's score and the site's time, snapshots from
what each forager shares in the store, a stopped forager's last counts, the summary file."""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime

from scrapy.utils.test import get_crawler

from newsforagers.colony.keys import SITE_CLOCK, site_reading, snapshot_key
from newsforagers.colony.record import ColonyRecord, default_run_dir
from newsforagers.config import ForagersConfig
from newsforagers.learning import EnergyPolicy, ScorePolicy
from newsforagers.store import MemoryStore


def record(tmp_path, policy=None, **settings) -> ColonyRecord:
    config = ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run"), **settings})
    policy = policy if policy is not None else ScorePolicy(200.0, 0.0, 2, 16, 100.0)
    made = ColonyRecord(get_crawler(settings_dict={}), config, policy, MemoryStore())
    assert not (tmp_path / "run").exists()  # building it does no I/O
    made.open()
    return made


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_event_carries_the_score_and_the_site_s_time_and_a_stop_the_last_counts(tmp_path):
    r = record(tmp_path)
    r.store.set_score("f2", 120.0)
    r.store.put_value(SITE_CLOCK, site_reading(datetime(2010, 10, 25, 9, 0, tzinfo=UTC), 1.0, time.time()))
    r.store.put_value(snapshot_key("f2"), {"pages": 3})
    r.event("split", "f2", "f1", weblog_child=4)
    (split,) = lines(tmp_path / "run" / "events.jsonl")
    assert (split["event"], split["forager"], split["parent"], split["score"], split["weblog_child"]) == \
        ("split", "f2", "f1", 120.0, 4)
    assert split["sim_time"].startswith("2010-10-25T09:00:0")
    assert not (tmp_path / "run" / "snapshots.jsonl").read_text()
    r.event("stop", "f2", None)  # no periodic snapshot will see it again
    assert [(s["forager"], s["pages"], s["score"]) for s in lines(tmp_path / "run" / "snapshots.jsonl")] == \
        [("f2", 3, 120.0)]


def test_the_energy_policy_s_record_carries_energies(tmp_path):
    policy = EnergyPolicy(lower_bound=1, upper_bound=4, initial_energy=2.5)
    policy.register("f1", None)
    r = record(tmp_path, policy)
    r.store.put_value(snapshot_key("f1"), {"pages": 1})
    r.event("start", "f1", None)
    assert lines(tmp_path / "run" / "events.jsonl")[0]["energy"] == 2.5
    assert r.snapshot(["f1", "f9"])  # f9 shared nothing: no line
    assert [(s["forager"], s["energy"]) for s in lines(tmp_path / "run" / "snapshots.jsonl")] == [("f1", 2.5)]


def test_a_closed_record_writes_no_snapshot_and_the_summary_is_a_file_and_a_line(tmp_path, caplog):
    r = record(tmp_path)
    r.judged_send(True)
    r.judged_send(False)
    assert (r.judged, r.paid) == (2, 1)
    summary = {"requests_sent": {"s": 4}, "documents_paid": 1, "sends_judged": 2, "foragers_born": 1,
               "foragers_retired": 0, "alive": ["f1"]}
    with caplog.at_level(logging.INFO):
        r.write_summary(summary)
    assert json.loads((tmp_path / "run" / "colony.json").read_text()) == summary
    assert "colony summary: 1 document(s) paid" in caplog.text and "4 request(s) sent to the sites (s 4)" in caplog.text
    r.close()
    assert not r.snapshot(["f1"])


def test_the_run_directory_is_the_jobdir_or_a_new_one():
    assert str(default_run_dir(get_crawler(settings_dict={"JOBDIR": "job"}))) == "job"
    assert str(default_run_dir(get_crawler(settings_dict={}))).startswith(".newsforagers/runs/")
