"""The ``scheduled`` strategy end to end: ``scrapy crawl forager -s FORAGERS_STRATEGY=scheduled``
against the replay site, alone and as a colony that splits."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime, timedelta
from urllib.parse import urlsplit

import pytest

from newsforagers.evaluation.metrics import run_metrics, run_window
from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import crawl_forager
from tests.integration.testsite import parse_stats

pytestmark = pytest.mark.timeout(300)
START = "2024-01-01T07:00:00+00:00"
SPEED = 600


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return synth_corpus(tmp_path_factory.mktemp("corpus") / "synth.jsonl.gz", days=3, rate=200,
                        sections=12, seed=5)


def crawl(corpus, tmp_path, seconds, **settings):
    with ReplayProcess(corpus, speed=SPEED, start=START, log_path=tmp_path / "requests.jsonl",
                       truth_path=tmp_path / "truth.jsonl") as replay:
        result = crawl_forager(replay.url, tmp_path, seconds=seconds, args={"speed": SPEED}, settings={
            "FORAGERS_STRATEGY": "scheduled", "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db",
            "FORAGERS_SEED": 2, "FORAGERS_BOOTSTRAP_PAGES": 100, "FORAGERS_HOST_RATE": 20,
            "FORAGERS_FETCH_TTL": 0, "FORAGERS_RUN_DIR": tmp_path / "run", **settings})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and " ERROR: " not in result.log
    log = list(read_log(tmp_path / "requests.jsonl"))
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    return result, log, truth


#: The module's crawls: (seconds, settings). They run side by side (:func:`runs`): scheduled
#: foragers mostly idle on the site's clock, so three at once take the time of one.
CRAWLS = {
    "alone": (25, {"FORAGERS_MIN": 1, "FORAGERS_MAX": 1}),
    "splits": (25, {"FORAGERS_MIN": 1, "FORAGERS_MAX": 3, "FORAGERS_SPLIT_SCORE": 103,
                    "FORAGERS_EXPLORE_SHARE": 0.0}),
    # downloads shared for 10 wall seconds: 100 simulated minutes at speed 600
    "shared": (22, {"FORAGERS_MIN": 3, "FORAGERS_MAX": 3, "FORAGERS_FETCH_TTL": 10}),
}


@pytest.fixture(scope="module")
def runs(corpus, tmp_path_factory):
    from concurrent.futures import ThreadPoolExecutor

    def one(name):
        tmp = tmp_path_factory.mktemp(name)
        seconds, settings = CRAWLS[name]
        return name, (*crawl(corpus, tmp, seconds, **settings), tmp)

    with ThreadPoolExecutor(len(CRAWLS)) as pool:
        return dict(pool.map(one, CRAWLS))


def test_one_scheduled_forager_harvests_polls_and_idles(runs):
    result, log, truth, _ = runs["alone"]
    start, end = run_window(log)
    metrics = run_metrics(truth, log, result.items, (start, end))
    assert metrics["novel"] == len(result.items) > 0, metrics  # everything output is truly novel
    # what was published at least an hour before the end has been found
    settled = {t["path"] for t in truth
               if start <= datetime.fromisoformat(t["published"]) <= end - timedelta(hours=1)}
    found = {urlsplit(item["url"]).path for item in result.items}
    assert len(settled & found) >= 0.9 * len(settled), (len(settled & found), len(settled))
    articles = {t["path"] for t in truth}
    requested = Counter(r["path"] for r in log)
    # an article, once fetched, is never fetched again
    assert max(n for path, n in requested.items() if path in articles) == 1
    # listings are polled again and again, never faster than the minimum interval
    listings: dict[str, list[datetime]] = {}
    for r in log:
        if r["path"] not in articles and r["path"] != "/robots.txt":
            listings.setdefault(r["path"], []).append(datetime.fromisoformat(r["sim_time"]))
    assert max(len(times) for times in listings.values()) >= 3
    gaps = [b - a for times in listings.values() for a, b in zip(sorted(times), sorted(times)[1:])]
    # The site stamps a request when it arrives, the forager counts the interval from when it
    # sent the one before: a gap the site sees is the interval plus the difference of the two
    # transits, δ wall seconds showing as SPEED·δ simulated ones (the site's clock has 1 s
    # resolution). A clean-clone suite (2026-12-06) saw one gap of 55.5 s of 100 or so: 4.5 s,
    # 7.5 ms of wall time at this speed, within the transits' jitter on a loaded machine (the
    # cause not pinned down further): at most one gap in twenty may fall below 59 s, and none
    # by more than 25 ms of transit (15 s). (The rates this crawl learns give intervals of 90 s
    # and more: with FORAGERS_SCHEDULE_MIN_INTERVAL=5 its shortest gap was 92 s. The minimum
    # itself is tested in tests/learning/test_schedule.py; here, that no path of the crawl
    # polls a listing faster than it.)
    early = sorted(g for g in gaps if g < timedelta(seconds=59))
    assert len(early) <= max(1, len(gaps) // 20), (early, len(gaps))
    assert min(gaps) >= timedelta(seconds=60 - SPEED * 0.025), min(gaps)
    # it idles: fewer requests than the budget (20/s for 25 s) allowed; listing visits take
    # FORAGERS_SCHEDULE_POLL_SHARE (0.3) of it at most, beside the stories and first visits
    assert len(log) < 0.75 * 20 * 25
    stats = parse_stats(result.log)
    assert stats["newsforagers/idle"] > 0 and stats["newsforagers/harvested"] > 0
    assert stats["newsforagers/listings"] > 0 and stats["newsforagers/rewarded"] == len(result.items)


def test_a_scheduled_colony_splits_its_weblog_and_never_fetches_an_article_twice(runs):
    result, log, truth, tmp_path = runs["splits"]
    events = [json.loads(line) for line in (tmp_path / "run" / "events.jsonl").read_text().splitlines()]
    splits = [e for e in events if e["event"] == "split"]
    assert splits, Counter(e["event"] for e in events)
    for split in splits:
        # a random half; one URL cannot be halved, both start from it (a forager that decides
        # one request at a time may be paid, and split, before its first fronts have arrived)
        halves = split["weblog_before"] // 2 if split["weblog_before"] >= 2 else 1
        assert split["weblog_child"] == halves
    foragers = {r["forager"] for r in log if r["forager"]}
    assert len(foragers) >= 2
    # the colony-wide claim: no article is fetched by two foragers
    articles = {t["path"] for t in truth}
    requested = Counter(r["path"] for r in log if r["path"] in articles)
    assert requested and max(requested.values()) == 1
    urls = [urlsplit(item["url"]).path for item in result.items]
    assert len(urls) == len(set(urls))
    # several foragers share one log: each line of a forager's crawler says whose it is
    tagged = re.compile(r"\[scrapy\.(?:core\.engine|statscollectors|extensions\.logstats|"
                        r"extensions\.feedexport)\] INFO: (.*)")
    lines = [m.group(1) for m in map(tagged.search, result.log.splitlines()) if m]
    assert len(lines) >= 3 * len(foragers), lines
    assert all(re.match(r"\[f\d+\] ", line) for line in lines), [line for line in lines if not line.startswith("[f")]
    dumps = re.findall(r"INFO: \[(f\d+)\] Dumping Scrapy stats", result.log)
    assert sorted(dumps) == sorted(foragers)  # one stats dump per forager, each named
    # ... and the colony ends with one summary of its own: documents paid, requests that
    # reached the site (FORAGERS_FETCH_TTL=0: every request does), foragers born
    summary = re.findall(r"colony summary: (\d+) document\(s\) paid .*?; (\d+) request\(s\) sent to the "
                         r"sites \(127\.0\.0\.1 (\d+)\).*?; (\d+) forager\(s\) born, (\d+) retired",
                         result.log)
    assert len(summary) == 1, summary
    paid, sent, to_site, born, retired = map(int, summary[0])
    assert paid == len(result.items) and sent == to_site == len(log)
    assert born == len(splits) + 1 and retired == 0


def test_only_fresh_downloads_set_the_site_clock(runs):
    """Foragers sharing downloads (FORAGERS_FETCH_TTL 10 wall seconds: 100 simulated minutes at
    speed 600) read old Date headers from the shared copies; they must neither move the site's
    clock nor make it warn that the clock runs slower than ``-a speed``."""
    result, log, truth, _ = runs["shared"]
    assert "'newsforagers/fetch/shared'" in result.log  # copies were shared...
    assert "'newsforagers/clock/stale_date'" in result.log  # ... and read as stale
    assert "simulated seconds per wall second" not in result.log
    assert " WARNING: " not in result.log, [line for line in result.log.splitlines() if " WARNING: " in line]
