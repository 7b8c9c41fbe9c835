"""The ``feeds`` baseline end to end: ``scrapy crawl feeds`` against a replay whose sections have
feeds for one half (``--feeds 0.5``). It finds articles of those sections only, and only through
the feeds and sitemaps: its requests are robots.txt, the home page and the section fronts once
each (to find the feeds), the feeds and sitemaps (polled), and the articles they list.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from urllib.parse import urlsplit

import pytest

from newsforagers.corpus import load_corpus
from newsforagers.evaluation.baselines import FeedsSpider
from newsforagers.replay.feeds import feed_sections
from newsforagers.replay.index import SiteIndex
from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import REPO, truly_novel_items

pytestmark = pytest.mark.timeout(120)

START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy
SPEED = 600
SECONDS = 6  # CLOSESPIDER_TIMEOUT: 60 simulated minutes
RATE = 20
SHARE = 0.5


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("feeds")
    corpus = synth_corpus(tmp / "synth.jsonl.gz", days=2, rate=200, sections=12, seed=5)
    with ReplayProcess(corpus, speed=SPEED, start=START, feeds=SHARE, log_path=tmp / "requests.jsonl",
                       truth_path=tmp / "truth.jsonl") as replay:
        argv = [sys.executable, "-m", "scrapy", "crawl", "feeds", "-a", f"start={replay.url}",
                "-a", f"speed={SPEED}", "-a", f"rate={RATE}", "-O", str(tmp / "feeds.jsonl"),
                "-s", f"CLOSESPIDER_TIMEOUT={SECONDS}", "-s", f"LOG_FILE={tmp / 'feeds.log'}",
                "-s", "LOG_LEVEL=INFO", "-s", "TELNETCONSOLE_ENABLED=False"]
        crawl = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=90,
                               env=dict(os.environ, PYTHONUNBUFFERED="1"))
    log = tmp / "feeds.log"
    out = tmp / "feeds.jsonl"
    # the replay's own choice of sections, from the same corpus and seed
    fronts = feed_sections(SiteIndex(load_corpus(corpus), seed=0).sections, SHARE, 0)
    return {
        "returncode": crawl.returncode,
        "log": (log.read_text() if log.exists() else "") + crawl.stderr,
        "items": [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else [],
        "truth": [json.loads(line) for line in (tmp / "truth.jsonl").read_text().splitlines()],
        "requests": [r for r in read_log(tmp / "requests.jsonl") if r["forager"] == "feeds"],
        "feed_sections": {f.name for f in fronts},
        "feed_paths": {f.path + "feed.xml" for f in fronts},
    }


def test_it_outputs_truly_novel_articles_of_the_feed_sections_only(run):
    items = truly_novel_items(run, "feeds")
    sections = {record["path"]: set(record["sections"]) for record in run["truth"]}
    for item in items:
        assert item["forager"] == "feeds" and item["reward"] is None
        assert sections[urlsplit(item["url"]).path] & run["feed_sections"], item["url"]


def test_it_requests_feeds_sitemaps_and_what_they_list_only(run):
    sections = {record["path"]: set(record["sections"]) for record in run["truth"]}
    paths = Counter(r["path"] for r in run["requests"])
    # Scrapy's robots.txt middleware fetches robots.txt, and the spider reads it for its sitemaps
    assert paths.pop("/robots.txt") == 2
    assert paths.pop("/") == 1  # the home page once, for the fronts (and feeds) it links
    fronts = {p: n for p, n in paths.items() if re.fullmatch(r"/section/[^/?]+/", p)}
    assert len(fronts) >= 4 and set(fronts.values()) == {1}  # each front once, never polled
    feeds = {p: n for p, n in paths.items() if p.endswith("/feed.xml")}
    assert feeds and set(feeds) <= run["feed_paths"]
    assert max(feeds.values()) >= 2  # polled again
    assert paths["/sitemap.xml"] >= 1 and paths["/sitemap-news.xml"] >= 2
    articles = set(paths) - set(fronts) - set(feeds) - {"/sitemap.xml", "/sitemap-news.xml"}
    assert articles and articles <= set(sections)  # nothing else: no author page, archive, search
    for path in articles:
        assert paths[path] == 1 and sections[path] & run["feed_sections"], path
    assert all(r["status"] == 200 for r in run["requests"])
    # the budget: starts 1.05/RATE apart
    walls = sorted(r["wall_time"] for r in run["requests"])
    spans = [b - a for a, b in zip(walls, walls[10:])]
    assert not spans or min(spans) >= 10.5 / RATE - 0.1, min(spans)


# -- its parts (no crawl) ------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs,message", [
    ({}, "start page"),
    ({"start": "http://example.com/", "shrink": "2"}, "shrink"),
    ({"start": "http://example.com/", "min_interval": "600", "initial_interval": "60"}, "min_interval"),
    ({"start": "http://example.com/", "hub_pattern": "("}, "regular expression"),
])
def test_bad_arguments_are_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        FeedsSpider(**kwargs)


def test_it_polls_nothing_before_it_has_found_a_feed():
    spider = FeedsSpider(start="http://example.com/")
    assert spider.hubs == {} and spider.next_poll() is None
