"""Issue 18 through a real crawl: ``scrapy crawl forager`` (the scheduled strategy) against the
replay, its colony store a SQLite file. The store's URL records hold the i-Bot broker's fields
for what the colony fetched and for what it only saw linked; listings revisited ask with the
record's validators, and the replay's 304s are counted and never read as pages."""

from __future__ import annotations

import sqlite3
from collections import Counter
from datetime import datetime
from urllib.parse import urlsplit

import pytest

from newsforagers.corpus import load_corpus
from newsforagers.pages import read_page
from newsforagers.replay.index import SiteIndex
from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.site import PageBuilder
from newsforagers.replay.synth import synth_corpus
from newsforagers.store import SQLiteStore
from newsforagers.store.records import URL_RECORD_KEY, url_id
from tests.integration.forager_run import crawl_forager, read_jsonl
from tests.integration.testsite import parse_stats

pytestmark = pytest.mark.timeout(300)
START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy
SPEED = 600


def test_url_records_and_conditional_revisits_through_a_crawl(tmp_path):
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=300, sections=12, seed=7)
    requests, store_path = tmp_path / "requests.jsonl", tmp_path / "colony.db"

    def seen_what_this_test_checks() -> bool:
        log = list(read_log(requests)) if requests.exists() else []
        return sum(r["status"] == 304 for r in log) >= 5 and len(read_jsonl(tmp_path / "run.jsonl")) >= 3

    settings = {"FORAGERS_STORE": f"sqlite:///{store_path}", "FORAGERS_MIN": 1, "FORAGERS_MAX": 1,
                "FORAGERS_SEED": 2, "FORAGERS_FETCH_TTL": 0, "FORAGERS_HOST_RATE": 20,
                "FORAGERS_BOOTSTRAP_PAGES": 100, "FORAGERS_RUN_DIR": tmp_path / "run"}
    with ReplayProcess(corpus, speed=SPEED, start=START, log_path=requests) as replay:
        result = crawl_forager(replay.url, tmp_path, seconds=20, settings=settings, args={"speed": SPEED},
                               until=seen_what_this_test_checks)
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and " ERROR: " not in result.log, result.log[-3000:]
    log = list(read_log(requests))
    statuses = Counter(r["status"] for r in log)
    stats = parse_stats(result.log)

    # conditional revisits: the site's 304s are counted, and none is read as a page
    not_modified = stats.get("newsforagers/conditional/not_modified", 0)
    # (one more in the site's log: answered while the crawl stopped)
    assert 0 < not_modified <= statuses[304] <= not_modified + 1, (not_modified, statuses)
    assert stats["newsforagers/conditional/sent"] >= statuses[304]
    pages = sum(1 for r in log if r["status"] == 200 and r["path"] != "/robots.txt")
    assert pages - 1 <= stats["newsforagers/downloaded"] <= pages, (pages, stats["newsforagers/downloaded"])
    errors = sum(n for key, n in stats.items() if key.startswith("newsforagers/failed/") and key.endswith("/HttpError"))
    assert errors <= sum(n for status, n in statuses.items() if status >= 400)  # no 304 among them

    # the URL records: the i-Bot broker's fields
    store = SQLiteStore(store_path)
    base = replay.url.rstrip("/")
    item = result.items[0]
    article = store.get_url_record(item["url"])
    assert (article["state"], article["fetched_by"], article["language"]) == (200, "f1", "en"), article
    assert article["found_by"] == "f1" and article["in_links"] >= 1 and article["last_fetched"]
    assert article["url_id"] == url_id(item["url"]) and article["port"] == urlsplit(base).port
    requested = {r["path"] for r in log}
    rows = sqlite3.connect(store_path).execute("SELECT url FROM urls WHERE url LIKE ?", (URL_RECORD_KEY + "%",))
    records = [store.get_url_record(base + record["resource"]) for record in
               (store.get_url(row[0]) for row in rows)]
    unfetched = [r for r in records if r["resource"] not in requested]
    assert unfetched and all(r["state"] in ("listing", "article") and r["in_links"] >= 1
                             and r["last_fetched"] == "" and r["fetched_by"] == "" for r in unfetched)
    # a listing's out-links: the distinct links of the page as the site served it to the colony
    home = store.get_url_record(base + "/")
    builder = PageBuilder(SiteIndex(load_corpus(corpus)))
    served = {len({url_id(link) for link in read_page(base + "/", builder.get("/", moment).body.decode()).links})
              for moment in (datetime.fromisoformat(r["sim_time"]).timestamp()
                             for r in log if r["path"] == "/" and r["status"] == 200)}
    assert home["out_links"] in served and home["etag"] and home["last_modified"], (home, served)
    store.close()
