"""A forager end to end: replay site + ``scrapy crawl forager``, the user's path."""

from datetime import datetime, timedelta
from urllib.parse import urlsplit

import numpy as np
import pytest

from newsforagers.config import ForagersConfig
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from newsforagers.strategies.common import initial_weights
from tests.integration.forager_run import crawl_forager, load_truth

pytestmark = pytest.mark.timeout(400)


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("replay")
    corpus = synth_corpus(tmp / "synth.jsonl.gz", days=3, rate=200, sections=12, seed=5)
    # 07:00 on a Monday: the synthetic site is busy (its nights are quiet)
    with ReplayProcess(corpus, speed=600, start="2024-01-01T07:00:00+00:00", log_path=tmp / "requests.jsonl",
                       truth_path=tmp / "truth.jsonl") as process:
        process.tmp = tmp
        yield process


def test_forager_finds_novel_documents_learns_and_remembers(replay, tmp_path):
    store = f"sqlite:///{tmp_path}/colony.db"
    # one forager of the papers' strategy (the colony's tests start several; test_scheduled.py
    # runs the scheduled one)
    settings = {"FORAGERS_STRATEGY": "paper", "FORAGERS_STORE": store, "FORAGERS_SEED": 7,
                "FORAGERS_BOOTSTRAP_PAGES": 150, "FORAGERS_MIN": 1}
    # It stops by itself after 10 paths (25 s: the backstop): the encoder is fitted during the
    # first three or four (100 steps each), TD(0) and Alg. 1 run on the rest.
    first = crawl_forager(replay.url, tmp_path, seconds=25, name="first",
                          settings={**settings, "FORAGERS_MAX_PATHS": 10})
    assert first.returncode == 0, first.log[-3000:]
    assert "Traceback" not in first.log
    truth = load_truth(replay.tmp / "truth.jsonl")

    items = first.items
    assert len(items) >= 10
    urls = [item["url"] for item in items]
    assert len(urls) == len(set(urls))  # each URL once
    for item in items:
        published = datetime.fromisoformat(item["published"])
        found_at = datetime.fromisoformat(item["found_at"])
        assert published.utcoffset() is not None and found_at.utcoffset() is not None
        assert timedelta(0) <= found_at - published <= timedelta(hours=24)
        path = urlsplit(item["url"]).path
        assert path in truth, f"{item['url']} is not an article of the corpus"
        assert truth[path] == published
        assert item["forager"] == "f1" and item["reward"] == 100

    state = first.spider_state()["forager"]
    weblog = state["weblog"]["entries"]
    assert len(weblog) > 1 and any(value != 0 for _, value in weblog)  # Alg. 1 ran
    config = ForagersConfig.from_settings({})
    start_weights = initial_weights(config, np.random.default_rng(7))
    assert not np.allclose(state["weights"], start_weights)  # TD(0) moved the weights
    for counter in ("paths", "probes", "td_updates", "reused_states"):
        assert f"'newsforagers/{counter}'" in first.log

    # a second run on the same store does not re-reward what the first one found (it meets
    # the front page's documents again on its first path: two paths show it)
    second = crawl_forager(replay.url, tmp_path, seconds=10, name="second",
                           settings={**settings, "FORAGERS_SEED": 8, "FORAGERS_MAX_PATHS": 2})
    assert second.returncode == 0, second.log[-3000:]
    assert "'newsforagers/agent/dropped/not_novel'" in second.log  # it did send some again
    assert not {i["url"] for i in second.items} & set(urls)


def test_forager_with_a_trained_model(replay, tmp_path):
    from newsforagers.cli import main

    model = tmp_path / "model.joblib"
    assert main(["train", str(replay.tmp / "synth.jsonl.gz"), "-o", str(model), "--clusters", "20"]) == 0
    # Without the model the forager would fit its own encoder after 40 pages, well within the
    # 3 paths it walks before it stops by itself (10 s: the backstop).
    settings = {"FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db", "FORAGERS_N_CLUSTERS": 20,
                "FORAGERS_MIN": 1, "FORAGERS_BOOTSTRAP_PAGES": 40, "FORAGERS_MAX_PATHS": 3}
    run = crawl_forager(replay.url, tmp_path, seconds=10, args={"model": model}, settings=settings)
    assert run.returncode == 0, run.log[-3000:]
    assert run.items and "state encoder fitted" not in run.log  # no bootstrap: the model is used
    # a model that does not fit the settings is a clear error before any request
    bad = crawl_forager(replay.url, tmp_path, seconds=10, args={"model": model}, name="bad",
                        settings={"FORAGERS_STORE": "memory://", "FORAGERS_MIN": 1})
    assert bad.returncode != 0
    assert "has 20 clusters but FORAGERS_N_CLUSTERS is 50" in bad.log
