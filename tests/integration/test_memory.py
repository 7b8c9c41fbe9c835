"""Bounded memory on the path a user takes: a scheduled colony crawling for more than a
simulated day with small caps keeps its claims and per-URL records bounded, never pays a
document twice, and keeps finding news (issue 8)."""

from __future__ import annotations

import ast
import json
import re
from datetime import datetime

import pytest

from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from newsforagers.store import open_existing_store
from tests.integration.forager_run import crawl_forager

pytestmark = pytest.mark.timeout(300)
START = "2024-01-01T06:00:00+00:00"
SPEED = 6000  # 100 simulated minutes a second: 20 s is 33 hours
URL_RECORDS_MAX = 40


def every_stats_dump(log: str) -> list[dict]:
    blocks = re.findall(r"Dumping Scrapy stats:\n(\{.*?\})\n(?=\d{4}-\d\d-\d\d |\Z)", log, re.S)
    return [ast.literal_eval(re.sub(r"datetime\.datetime\([^()]*\)", "None", b)) for b in blocks]


def test_a_colony_past_a_day_keeps_its_store_bounded_and_pays_each_document_once(tmp_path):
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=3, rate=150, sections=8, seed=11)
    store_url = f"sqlite:///{tmp_path}/colony.db"
    with ReplayProcess(corpus, speed=SPEED, start=START) as replay:
        result = crawl_forager(replay.url, tmp_path, seconds=20, args={"speed": SPEED}, settings={
            "FORAGERS_STRATEGY": "scheduled", "FORAGERS_STORE": store_url, "FORAGERS_SEED": 3,
            "FORAGERS_MIN": 2, "FORAGERS_MAX": 2, "FORAGERS_BOOTSTRAP_PAGES": 60,
            "FORAGERS_HOST_RATE": 20, "FORAGERS_FETCH_TTL": 0, "FORAGERS_SNAPSHOT_INTERVAL": 1,
            "FORAGERS_RUN_DIR": tmp_path / "run", "FORAGERS_URL_RECORDS_MAX": URL_RECORDS_MAX})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and " ERROR: " not in result.log
    dumps = every_stats_dump(result.log)
    assert len(dumps) == 2  # both foragers
    total = lambda key: sum(d.get(key, 0) for d in dumps)  # noqa: E731
    # claims of documents older than the novelty window were forgotten, per-URL records evicted
    assert total("newsforagers/store/claims_expired") > 0
    assert total("newsforagers/store/url_records_evicted") > 0
    memory = json.loads((tmp_path / "run" / "colony.json").read_text())["memory"]
    assert memory["url_records"] <= URL_RECORDS_MAX + URL_RECORDS_MAX // 8, memory
    assert memory["url_records_evicted"] == total("newsforagers/store/url_records_evicted")
    assert memory["crawlers_held"] <= 1, memory  # ended foragers' crawlers are let go
    # no document was paid twice, and the feed holds what the store paid for
    urls = [item["url"] for item in result.items]
    assert len(urls) == len(set(urls))
    store = open_existing_store(store_url)
    assert sorted(d.url for d in store.documents()) == sorted(urls)
    assert store.claim_count() < 2 * len(urls)  # only the last day's claims are left
    store.close()
    # and it kept finding news on the second simulated day
    days = {datetime.fromisoformat(item["published"]).date() for item in result.items}
    assert len(days) >= 2, days
