"""The ``best_first`` baseline: ``scrapy crawl best_first -a topic=...`` against a replay of a
synthetic site, with a topic made of one section's words; then its frontier and its reading of
hand-made pages, without a network.

The synthetic site (``newsforagers.replay.synth``) writes each section's titles and texts from
that section's own actors, things and adjectives: a topic of those words is that section's, and
its documents are the relevant ones. A topical crawler's harvest rate (the share of its output
that is relevant) must beat the site's base rate (the share of the site's articles that are).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from urllib.parse import urlsplit

import pytest
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure

from newsforagers.corpus import load_corpus
from newsforagers.errors import ForagersUsageError
from newsforagers.evaluation.baselines import BestFirstSpider, Frontier
from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import TOPICS, synth_corpus
from tests.integration.forager_run import REPO, truly_novel_items

pytestmark = pytest.mark.timeout(120)

# The second morning: a day of stories behind the site already, so that the section's are
# more than a handful.
START = "2024-01-02T07:00:00+00:00"
SPEED = 600
SECONDS = 6  # CLOSESPIDER_TIMEOUT: 60 simulated minutes
RATE = 20
SECTION = "science"  # the fourth busiest of 12: about 8 % of the stories


def section_topic(section: str) -> str:
    actors, things, adjectives = TOPICS[section]
    return " ".join([section, *actors, *things, *adjectives])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("best_first")
    corpus = synth_corpus(tmp / "synth.jsonl.gz", days=2, rate=200, sections=12, seed=5)
    topic = tmp / "topic.txt"
    topic.write_text(section_topic(SECTION), encoding="utf-8")
    with ReplayProcess(corpus, speed=SPEED, start=START, log_path=tmp / "requests.jsonl",
                       truth_path=tmp / "truth.jsonl") as replay:
        argv = [sys.executable, "-m", "scrapy", "crawl", "best_first", "-a", f"start={replay.url}",
                "-a", f"topic=@{topic}", "-a", f"speed={SPEED}", "-a", f"rate={RATE}",
                "-O", str(tmp / "best_first.jsonl"), "-s", f"CLOSESPIDER_TIMEOUT={SECONDS}",
                "-s", f"LOG_FILE={tmp / 'best_first.log'}", "-s", "LOG_LEVEL=INFO",
                "-s", "TELNETCONSOLE_ENABLED=False"]
        crawl = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=90,
                               env=dict(os.environ, PYTHONUNBUFFERED="1"))
        host = urlsplit(replay.url).hostname
    log = tmp / "best_first.log"
    out = tmp / "best_first.jsonl"
    return {
        "returncode": crawl.returncode,
        "log": (log.read_text() if log.exists() else "") + crawl.stderr,
        "items": [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else [],
        "truth": [json.loads(line) for line in (tmp / "truth.jsonl").read_text().splitlines()],
        "requests": [r for r in read_log(tmp / "requests.jsonl") if r["forager"] == "best_first"],
        "host": host,
    }


def test_it_outputs_truly_novel_articles_with_their_relevance(run):
    items = truly_novel_items(run, "best_first")
    for item in items:
        assert set(item) == {"url", "title", "published", "found_at", "forager", "reward",
                             "relevance"}
        assert item["forager"] == "best_first" and item["reward"] is None
        assert 0.0 <= item["relevance"] <= 1.0


def test_its_harvest_rate_beats_the_site_s_base_rate(run):
    sections = {record["path"]: set(record["sections"]) for record in run["truth"]}
    base_rate = sum(SECTION in s for s in sections.values()) / len(sections)
    items = run["items"]
    on_topic = [SECTION in sections[urlsplit(item["url"]).path] for item in items]
    relevant = [item for item, yes in zip(items, on_topic) if yes]
    # Precision over time: the section's stories come first (measured: the first 17 of 57,
    # then the links left score 0 and it wanders), and they stay well above their share.
    assert sum(on_topic[:10]) >= 9, on_topic
    harvest = len(relevant) / len(items)
    assert harvest >= 2.5 * base_rate, (harvest, base_rate)  # measured 0.33 against 0.09
    # and the relevance it reports says so too
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    others = [item["relevance"] for item in items if item not in relevant]
    if others:
        assert mean([item["relevance"] for item in relevant]) > mean(others)


def test_it_requests_the_start_host_only_each_url_once(run):
    assert run["host"] == "127.0.0.1"
    requests = run["requests"]
    assert requests
    paths = Counter(r["path"] for r in requests)
    assert paths.pop("/robots.txt") == 1 and paths["/"] == 1
    assert set(paths.values()) == {1}
    assert not any(p.startswith("/search") for p in paths)  # robots.txt: Disallow: /search
    # every request the crawler downloaded (its stats) reached the replay on 127.0.0.1
    assert stat(run["log"], "downloader/request_count") == len(requests)
    walls = sorted(r["wall_time"] for r in requests)
    spans = [b - a for a, b in zip(walls, walls[10:])]
    assert not spans or min(spans) >= 10.5 / RATE - 0.1, min(spans)


def stat(log: str, key: str) -> int:
    match = re.search(rf"'{re.escape(key)}': (\d+)", log)
    return int(match.group(1)) if match else 0


# -- the frontier (no crawl) ----------------------------------------------------------------------


def test_the_frontier_gives_the_best_first_ties_in_order():
    frontier = Frontier(10)
    for url, score in [("a", 0.2), ("b", 0.9), ("c", 0.2), ("d", 0.0), ("e", 0.5)]:
        assert frontier.push(url, score)
    assert [frontier.pop() for _ in range(5)] == [("b", 0.9), ("e", 0.5), ("a", 0.2), ("c", 0.2),
                                                  ("d", 0.0)]
    with pytest.raises(IndexError):
        frontier.pop()


def test_a_url_keeps_its_best_score_and_is_visited_once():
    frontier = Frontier(10)
    frontier.push("a", 0.3)
    frontier.push("b", 0.5)
    frontier.push("a", 0.8)  # a better link to it
    frontier.push("b", 0.1)  # a worse one: b keeps 0.5
    assert frontier.score("a") == 0.8 and frontier.score("b") == 0.5 and len(frontier) == 2
    assert frontier.pop() == ("a", 0.8)
    assert not frontier.push("a", 1.0) and "a" not in frontier  # visited
    frontier.visit("b")
    assert len(frontier) == 0 and not frontier.push("b", 1.0)


def test_a_full_frontier_drops_its_lowest_and_counts_them():
    frontier = Frontier(3)
    for url, score in [("a", 0.5), ("b", 0.1), ("c", 0.7)]:
        frontier.push(url, score)
    assert frontier.push("d", 0.3)  # b (0.1) goes
    assert frontier.dropped == 1 and "b" not in frontier and len(frontier) == 3
    assert not frontier.push("e", 0.2)  # lower than all: dropped at once
    assert frontier.dropped == 2
    frontier.push("f", 0.3)  # ties with d: the later pushed goes
    assert "d" in frontier and "f" not in frontier and frontier.dropped == 3
    assert frontier.push("b", 0.9)  # dropped, never visited: a better link brings it back
    assert [frontier.pop()[0] for _ in range(3)] == ["b", "c", "a"]


def test_many_updates_keep_the_frontier_consistent():
    frontier = Frontier(50)
    for step in range(5000):
        frontier.push(f"u{step % 120}", (step * 7919 % 1000) / 1000)
    scores = [frontier.pop()[1] for _ in range(len(frontier))]
    assert len(scores) == 50 and scores == sorted(scores, reverse=True)
    assert len(frontier._best) + len(frontier._worst) <= 4 * 50 + 64 + 2


# -- the spider on hand-made pages (no crawl) -----------------------------------------------------

HOME = "http://news.test/"
NOW = datetime(2024, 1, 2, 9, 0, tzinfo=UTC)
DATE = NOW.strftime("%a, %d %b %Y %H:%M:%S GMT")


def spider_for(**kwargs) -> BestFirstSpider:
    crawler = get_crawler(BestFirstSpider, {"CONCURRENT_REQUESTS": 1})
    return BestFirstSpider.from_crawler(crawler, start=HOME, **kwargs)


def response(url: str, body: str) -> HtmlResponse:
    return HtmlResponse(url, body=body.encode(), encoding="utf-8",
                        headers={"Content-Type": "text/html; charset=utf-8", "Date": DATE},
                        request=Request(url))


FRONT = """<html><head><title>News</title></head><body><ul>
<li><a href="/weather/">Storm and heavy rain tonight</a></li>
<li><a href="/sky/">Astronomers point a new telescope at the sky</a></li>
<li><a href="/shop/">Prices at the market</a></li>
<li><a href="http://elsewhere.test/telescope/">Telescope telescope astronomers</a></li>
</ul></body></html>"""

ARTICLE = """<html><head><title>Telescope finds a comet</title>
<meta property="article:published_time" content="2024-01-02T08:30:00+00:00"></head>
<body><article><h1>Telescope finds a comet</h1><p>Astronomers at the observatory used the new
telescope to follow the comet for a week.</p>
<ul><li><a href="/shop/">Astronomers buy a telescope at the market</a></li></ul>
</article></body></html>"""


def test_links_wait_by_the_relevance_of_their_context():
    spider = spider_for(topic="telescope astronomers")
    out = list(spider.parse_page(response(HOME, FRONT)))
    # one slot: the best link is requested, the others wait by their contexts' relevance
    assert [r.url for r in out] == ["http://news.test/sky/"]
    assert out[0].headers[b"X-Forager"] == b"best_first"
    assert spider.frontier.score("http://news.test/weather/") == 0.0
    assert spider.frontier.score("http://news.test/shop/") == 0.0
    assert "http://elsewhere.test/telescope/" not in spider.frontier  # another host
    # an article (dated, in the window): the item with its own relevance; a better link to
    # /shop/ raises it
    [item, request] = spider.parse_page(response("http://news.test/sky/", ARTICLE))
    assert item["url"] == "http://news.test/sky/" and item["forager"] == "best_first"
    assert item["reward"] is None and 0.5 < item["relevance"] <= 1.0
    assert request.url == "http://news.test/shop/"  # now the best, ahead of /weather/
    assert spider.frontier.visited >= {HOME, "http://news.test/sky/", "http://news.test/shop/"}


def test_idf_from_a_corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps({
        "url": f"https://x.test/{i}", "published": "2024-01-01T00:00:00+00:00",
        "title": f"Story {i}", "body": "the telescope" if i else "astronomers"}) + "\n"
        for i in range(4)))
    spider = spider_for(topic="telescope astronomers", corpus=str(path))
    assert spider.topic.idf_source == "corpus" and spider.topic.n_documents == 4
    assert spider.topic.idf("astronomers") > spider.topic.idf("telescope")
    assert len(load_corpus(path)) == 4


@pytest.mark.parametrize("kwargs,message", [
    ({}, "best_first needs a topic"),
    ({"topic": "  "}, "best_first needs a topic"),
    ({"topic": "@/nonexistent/topic.txt"}, "cannot be read"),
    ({"topic": "the and of"}, "has no term"),
    ({"topic": "telescope", "frontier": "0"}, r"frontier \('0'\) must be higher than 0"),
    ({"topic": "telescope", "corpus": "/nonexistent.jsonl"}, "does not exist"),
])
def test_bad_arguments_are_one_line_usage_errors(kwargs, message):
    with pytest.raises(ForagersUsageError, match=message):
        BestFirstSpider(start=HOME, **kwargs)


def test_an_empty_topic_file_is_a_usage_error(tmp_path):
    empty = tmp_path / "topic.txt"
    empty.write_text("\n")
    with pytest.raises(ForagersUsageError, match="is empty"):
        BestFirstSpider(start=HOME, topic=f"@{empty}")


def test_it_needs_a_start_page_as_every_baseline():
    with pytest.raises(ValueError, match="start page"):
        BestFirstSpider(topic="telescope")


def test_a_failed_request_frees_its_slot_for_the_next_best():
    spider = spider_for(topic="telescope astronomers")
    [sky] = spider.parse_page(response(HOME, FRONT))
    try:
        raise IgnoreRequest("Forbidden by robots.txt")
    except IgnoreRequest:
        failure = Failure()
    failure.request = sky
    [request] = spider.failed(failure)
    assert request.url == "http://news.test/weather/"  # of the zeros, the first found
    assert spider.in_flight == 1 and spider.crawler.stats.get_value(
        "baselines/failed/IgnoreRequest") == 1
    # idle: nothing is in flight whatever the count says; the frontier fills the slot
    scheduled = []
    spider.schedule = scheduled.append
    assert spider.on_idle() and [r.url for r in scheduled] == ["http://news.test/shop/"]
