"""Issue 8, resume: a colony killed with SIGKILL mid-crawl comes back whole with the same JOBDIR."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from urllib.parse import urlsplit

import numpy as np
import pytest

from newsforagers import cli
from newsforagers.colony import checkpoint as checkpoints
from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from newsforagers.store import open_existing_store
from tests.integration.forager_run import REPO

pytestmark = pytest.mark.timeout(300)
START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy


def whole_lines(path):
    """The items of a JSON-lines file, without a last line cut in half."""
    items = []
    for line in path.read_bytes().split(b"\n"):
        try:
            items.append(json.loads(line))
        except ValueError:
            pass
    return items


def forager_jobdir(jobdir, name, root):
    return jobdir if name == root else jobdir / "foragers" / name


def ready_to_kill(jobdir, feed, strategy):
    """Items in the feed, a split made, and every live forager checkpointed (the papers'
    strategy: with the state encoder it fitted, so its weights and path rows mean something,
    and a path under way)."""
    population = checkpoints.read_checkpoint(jobdir / checkpoints.POPULATION_FILE)
    if population is None or not feed.exists() or len(whole_lines(feed)) < 5:
        return False
    members = population["members"]
    if len(members) < 3 or not any(m.get("parent") for m in members.values()):
        return False
    root = next(name for name, m in members.items() if m.get("root"))
    saved = [checkpoints.read_checkpoint(forager_jobdir(jobdir, name, root) / checkpoints.FORAGER_FILE)
             for name in members]
    if strategy == "scheduled":
        return all(state is not None for state in saved) and any(state["harvest"] for state in saved)
    return all(state is not None and state["encoder"] == "bootstrapped" and state["path"]
               and len(state["path"]["steps"]) >= 3 for state in saved)


@pytest.mark.parametrize("strategy", ["paper", "scheduled"])
def test_a_colony_killed_mid_crawl_resumes_whole(tmp_path, strategy):
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=3, rate=300, sections=12, seed=11)
    jobdir, feed, db = tmp_path / "job", tmp_path / "feed.jsonl", tmp_path / "colony.db"
    store_url = f"sqlite:///{db}"
    with ReplayProcess(corpus, speed=600, start=START, log_path=tmp_path / "requests.jsonl") as replay:
        argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={replay.url}",
                "-o", str(feed), "-s", f"JOBDIR={jobdir}", "-s", f"FORAGERS_STORE={store_url}",
                "-s", "FORAGERS_SEED=3", "-s", "FORAGERS_BOOTSTRAP_PAGES=100",
                "-s", "FORAGERS_MIN=2", "-s", "FORAGERS_MAX=4",
                # a split comes soon after the first rewards; nobody retires in so short a run
                "-s", "FORAGERS_SPLIT_SCORE=103", "-s", "FORAGERS_RETIRE_SCORE=0",
                "-s", "FORAGERS_CHECKPOINT_INTERVAL=1", "-s", "FORAGERS_FETCH_TTL=0",
                "-s", "TELNETCONSOLE_ENABLED=False", "-s", "LOG_LEVEL=INFO",
                "-s", f"FORAGERS_STRATEGY={strategy}", "-a", "speed=600"]
        if strategy == "scheduled":  # a budget, so that the harvest queues fill up
            argv += ["-s", "FORAGERS_HOST_RATE=30"]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        first = subprocess.Popen(argv + ["-s", f"LOG_FILE={tmp_path / 'first.log'}"], cwd=REPO, env=env)
        try:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and first.poll() is None \
                    and not ready_to_kill(jobdir, feed, strategy):
                time.sleep(0.25)
            assert first.poll() is None, (tmp_path / "first.log").read_text()[-3000:]
            assert ready_to_kill(jobdir, feed, strategy), "no split with every forager checkpointed in 90 s"
            os.kill(first.pid, signal.SIGKILL)
            first.wait(30)
        finally:
            if first.poll() is None:
                first.kill()

        # what the kill left behind
        output_before = whole_lines(feed)
        if feed.read_bytes().endswith(b"\n"):
            # the kill fell between two writes of the exporter's buffer this time: tear the next
            # item as a kill in the middle of one would
            with open(feed, "ab") as f:
                f.write(b'{"url": "' + replay.url.encode() + b'2024/01/01/torn-')
        population = checkpoints.read_checkpoint(jobdir / checkpoints.POPULATION_FILE)
        members = population["members"]
        root = next(name for name, m in members.items() if m.get("root"))
        saved = {name: checkpoints.read_checkpoint(forager_jobdir(jobdir, name, root) / checkpoints.FORAGER_FILE)
                 for name in members}
        store = open_existing_store(store_url)
        paid_before = [record.url for record in store.documents()]
        # the colony's output before the kill: what the foragers' item pipelines let through
        output_in_store = [o.url for o in store.outputs()]
        store.close()
        lost = set(output_in_store) - {item["url"] for item in output_before}
        served_before = len(list(read_log(tmp_path / "requests.jsonl")))

        second = subprocess.run(argv + ["-s", f"LOG_FILE={tmp_path / 'second.log'}",
                                        "-s", "CLOSESPIDER_TIMEOUT=10"],
                                cwd=REPO, env=env, capture_output=True, text=True, timeout=150)
    log = (tmp_path / "second.log").read_text()
    assert second.returncode == 0, log[-3000:] + second.stderr[-2000:]
    assert "Traceback" not in log

    # the feed: a last item cut in half by the kill is cut off before the feed reopens; what
    # was output whole before the kill stays, in place, and is not output again
    assert "ended in an unfinished item" in log
    output = [json.loads(line) for line in feed.read_text().splitlines()]  # every line whole
    assert output[: len(output_before)] == output_before
    urls = [item["url"] for item in output]
    assert len(urls) == len(set(urls))
    # what the feed lost in the kill (output, still in a buffer) came back, exactly once
    assert set(urls[len(output_before): len(output_before) + len(lost)]) == lost
    assert re.search(rf"colony: {len(lost)} document\(s\) output before the stop output again", log) \
        or not lost

    # no document rewarded twice, and the crawl went on finding new ones
    store = open_existing_store(store_url)
    paid = [record.url for record in store.documents()]
    store.close()
    assert len(paid) == len(set(paid)) and paid[: len(paid_before)] == paid_before
    assert len(paid) > len(paid_before) and len(output) > len(output_before) + len(lost)

    # every forager alive at the kill came back under its id, with its weblog and weights
    assert len(members) >= 3 and any(m.get("parent") for m in members.values())
    events = [json.loads(line) for line in (jobdir / "events.jsonl").read_text().splitlines()]
    resumed = {e["forager"] for e in events if e["event"] == "start" and e.get("resumed")}
    assert resumed == set(members)
    for name, state in saved.items():
        norm = float(np.linalg.norm(np.asarray(state["weights"])))
        if strategy == "paper":
            path = state["path"]
            walk = rf"path of {len(path['steps'])} steps, frontier of {len(path['frontier'])} URLs"
            # with the encoder it had: its weights and its frontier's states still mean the same
            assert f"forager {name}: fitting the state encoder" not in log
        else:
            walk = rf"harvest queue of {len(state['harvest'])} URLs"
        weblog = sum(1 for e in state["weblog"]["entries"] if not (isinstance(e, dict) and e.get("barren")))
        assert re.search(rf"forager {name}: resumed from checkpoint {state['seq']}: weblog of "
                         rf"{weblog} URLs, weight norm {norm:.9f}, {walk}", log), name
    if strategy == "scheduled":
        # what was queued (claimed in the store: nobody else fetches it) is fetched after all
        served = list(read_log(tmp_path / "requests.jsonl"))[served_before:]
        served_after = {urlsplit(r["path"]).path for r in served}
        queued = {urlsplit(url).path for state in saved.values() for url, *_ in state["harvest"]}
        assert queued and queued <= served_after, queued - served_after
    # ids of the stopped colony are never given again
    resume_at = next(i for i, e in enumerate(events) if e.get("resumed"))
    born_after = [e["forager"] for e in events[resume_at:] if e["event"] == "split"]
    assert all(int(name[1:]) >= population["next_id"] for name in born_after)

    # the store is the source of truth: its export and the feed hold the same documents
    exported = tmp_path / "export.jsonl"
    assert cli.main(["export", "--store", store_url, "-o", str(exported)]) == 0
    assert {json.loads(line)["url"] for line in exported.read_text().splitlines()} == set(urls)
