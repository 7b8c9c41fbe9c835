"""Feeds and sitemaps end to end (issue 19): a ``scheduled`` forager against a replay with feeds
(``newsforagers replay --feeds 1``: an RSS feed per section, announced in its front's and its
articles' ``<head>``; a news sitemap, in a sitemap index that robots.txt names) reads robots.txt
once, polls the sitemaps and feeds as listings, and finds the day's stories through them."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timedelta
from urllib.parse import urlsplit

import pytest

from newsforagers.evaluation.metrics import run_metrics, run_window
from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import crawl_forager, read_jsonl
from tests.integration.testsite import parse_stats

pytestmark = pytest.mark.timeout(120)
START = "2024-01-02T09:00:00+00:00"
SPEED = 600


def test_a_scheduled_forager_finds_the_stories_through_the_site_s_feeds_and_sitemaps(tmp_path):
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=60, sections=5, seed=7)
    requests = tmp_path / "requests.jsonl"

    def polled() -> bool:
        # three feeds found, one polled again, what the news sitemap listed when it was first
        # read (its last two days' stories) harvested, and a story published since then: the
        # stories published since the crawl began go first, the older ones (the backlog) wait
        # while a listing is due, so on a loaded machine they take longer
        log = read_jsonl(requests)
        paths = [urlsplit(record["path"]).path for record in log]
        feeds = Counter(p for p in paths if p.endswith("/feed.xml"))
        if "/sitemap-news.xml" not in paths or len(feeds) < 3 or max(feeds.values()) < 2:
            return False
        read = datetime.fromisoformat(next(r["sim_time"] for r in log if r["path"] == "/sitemap-news.xml"))
        later = {path for path, at in published().items() if at > read}
        return listed_when_read(log) <= set(paths) and bool(later & set(paths))

    def listed_when_read(log: list[dict]) -> set[str]:
        """The stories the news sitemap listed when it was first read (of those published at
        most 20 hours before the crawl's first request)."""
        first = datetime.fromisoformat(log[0]["sim_time"])
        read = datetime.fromisoformat(next(r["sim_time"] for r in log if r["path"] == "/sitemap-news.xml"))
        return {path for path, at in published().items() if first - timedelta(hours=20) <= at <= read}

    def published() -> dict[str, datetime]:
        if not truth:
            truth.update((t["path"], datetime.fromisoformat(t["published"]))
                         for t in read_jsonl(tmp_path / "truth.jsonl"))
        return truth

    truth: dict[str, datetime] = {}
    with ReplayProcess(corpus, speed=SPEED, start=START, feeds=1.0, log_path=requests,
                       truth_path=tmp_path / "truth.jsonl") as replay:
        # its one seed is a section's feed, and it never explores: whatever it finds, it finds
        # through the feeds and sitemaps (no front page leads anywhere it goes)
        result = crawl_forager(replay.url + "section/politics/feed.xml", tmp_path, seconds=20, until=polled,
                               args={"speed": SPEED}, settings={
                                   "FORAGERS_STRATEGY": "scheduled", "FORAGERS_MIN": 1, "FORAGERS_MAX": 1,
                                   "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db", "FORAGERS_SEED": 3,
                                   "FORAGERS_EXPLORE_SHARE": 0, "FORAGERS_BOOTSTRAP_PAGES": 50,
                                   "FORAGERS_HOST_RATE": 20, "FORAGERS_FETCH_TTL": 0,
                                   "FORAGERS_RUN_DIR": tmp_path / "run"})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and " ERROR: " not in result.log, result.log[-3000:]
    stats = parse_stats(result.log)
    log = list(read_log(requests))
    paths = [urlsplit(record["path"]).path for record in log]
    # robots.txt read once, by the robots middleware, and its copy read for its Sitemap: line;
    # the sitemap index it names, the news sitemap the index lists, the other sections' feeds
    # their articles announce
    assert paths.count("/robots.txt") == 1 and stats["newsforagers/feeds/robots_sitemaps"] == 1
    assert "/sitemap.xml" in paths and "/sitemap-news.xml" in paths
    feeds = Counter(p for p in paths if p.endswith("/feed.xml"))
    assert len(feeds) >= 3 and max(feeds.values()) >= 2, feeds  # polled, not read once
    assert stats["newsforagers/feeds/read/sitemap"] >= 2 and stats["newsforagers/feeds/read/feed"] >= 3
    assert "newsforagers/skipped/bad_feed" not in stats and "newsforagers/skipped/not_html" not in stats
    assert not [p for p in paths if p == "/" or (p.startswith("/section/") and not p.endswith("/feed.xml"))]
    # the day's stories are found, through them alone, and all it sent was novel: what the news
    # sitemap listed was output (fetched: the crawl stopped once it was), and what was
    # published after it was found through the feeds
    found = {urlsplit(item["url"]).path for item in result.items}
    listed = listed_when_read(log)
    assert len(found & listed) >= 0.95 * len(listed) > 10, (len(found & listed), len(listed))
    read = datetime.fromisoformat(next(r["sim_time"] for r in log if r["path"] == "/sitemap-news.xml"))
    assert [path for path in found if published()[path] > read], "nothing found through the feeds alone"
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    metrics = run_metrics(truth, log, result.items, run_window(log))
    assert metrics["novel"] == len(result.items), metrics
    # the feeds and sitemaps are listings of its weblog, credited with what they found
    weblog = {e["url"]: e for e in result.spider_state()["forager"]["weblog"]["entries"]}
    news = weblog[replay.url + "sitemap-news.xml"]
    assert news["visits"] >= 1 and news["paid"] > 0
    assert sum(e["paid"] for url, e in weblog.items() if url.endswith(".xml")) == stats["newsforagers/rewarded"]
