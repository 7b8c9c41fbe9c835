"""A colony whose foragers share nothing but the store: each forager but the root in a process
of its own (FORAGERS_SPAWNER=process), with its own connection to the SQLite store and no
Python object of another's. The papers' colony: "no direct communication amongst foragers but
the centralized rewarding system". Each novel document is still paid once, and the root's feed
holds every one of them (from the store's record of paid documents)."""

from __future__ import annotations

import os
import re
import sqlite3
from collections import Counter

import pytest

from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from newsforagers.store import SQLiteStore
from tests.integration.forager_run import crawl_forager, read_jsonl

pytestmark = pytest.mark.timeout(300)
START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy
JOINED = re.compile(r"colony: forager (f\d+) joined as a process of its own \([^)]*:(\d+)\)")


def test_foragers_in_processes_of_their_own_pay_each_document_once(tmp_path):
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=3, rate=300, sections=12, seed=11)
    store = tmp_path / "colony.db"
    run_dir = tmp_path / "run"
    log = tmp_path / "run.log"

    def seen_what_this_test_checks() -> bool:
        # three foragers in processes of their own (two of Alg. 9, one a split's child), and
        # documents of two foragers in the feed
        text = log.read_text() if log.exists() else ""
        return (len(set(JOINED.findall(text))) >= 3
                and len({item["forager"] for item in read_jsonl(tmp_path / "run.jsonl")}) >= 2)

    settings = {"FORAGERS_SPAWNER": "process", "FORAGERS_STORE": f"sqlite:///{store}",
                "FORAGERS_MIN": 3, "FORAGERS_MAX": 4, "FORAGERS_SEED": 3, "FORAGERS_FETCH_TTL": 0,
                # a split early in a short run: its child is a process too
                "FORAGERS_SPLIT_SCORE": 103, "FORAGERS_RUN_DIR": run_dir}
    with ReplayProcess(corpus, speed=600, start=START, log_path=tmp_path / "requests.jsonl") as replay:
        result = crawl_forager(replay.url, tmp_path, seconds=60, settings=settings,
                               args={"speed": 600}, until=seen_what_this_test_checks)
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and "ERROR" not in result.log, result.log[-3000:]
    joined = dict(JOINED.findall(result.log))
    assert len(joined) >= 3, joined
    pids = {int(pid) for pid in joined.values()}
    assert len(pids) == len(joined) and os.getpid() not in pids  # a process each
    for pid in pids:  # every one ended with the colony
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert "colony: split" in result.log  # a split's child was started as a process as well
    # each novel document paid once, across the processes; the feed holds each paid one once
    urls = [item["url"] for item in result.items]
    assert len(urls) == len(set(urls)) and len(urls) >= 20
    assert len({item["forager"] for item in result.items}) >= 2, Counter(i["forager"] for i in result.items)
    paid = [row[0] for row in sqlite3.connect(store).execute("SELECT url FROM documents")]
    assert sorted(paid) == sorted(urls)
    # the population left the store with the colony, its host gave its place back; the host's
    # stop mark stays for late members
    reopened = SQLiteStore(store)
    assert reopened.members(0.0) == {} and reopened.get_value("colony/hosts") is None
    reopened.close()
    marks = [row[0] for row in sqlite3.connect(store).execute("SELECT key FROM shared WHERE key LIKE 'colony/stop/%'")]
    assert len(marks) == 1, marks
