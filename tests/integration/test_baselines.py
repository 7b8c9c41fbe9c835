"""The five baselines end to end: ``scrapy crawl NAME`` against one replay of a synthetic site.

All five crawl the same replay at the same time (each in its own ``scrapy crawl`` subprocess,
each under the same request budget); the replay's log tells their requests apart by the
``X-Forager`` header. Every document a baseline outputs must be truly novel (an article of the
truth, at most 24 simulated hours old when found, output once), and the oracle must reach the
limit: (near) all the articles published while it ran, found within moments.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

from newsforagers.clock import SiteClock, site_time
from newsforagers.evaluation.baselines import (
    AdaptiveSpider,
    BfsSpider,
    HubsSpider,
    OracleSpider,
    RandomSpider,
    load_truth,
)
from newsforagers.evaluation.metrics import RESULT_KEYS, run_metrics
from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import REPO

pytestmark = pytest.mark.timeout(180)

NAMES = ("bfs", "hubs", "adaptive", "random", "oracle")
START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy
SPEED = 600
SECONDS = 6  # CLOSESPIDER_TIMEOUT of each crawl: 60 simulated minutes
RATE = 20  # requests per second, each crawler: the same budget for all


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run the five baselines at once against one replay; their outputs, logs and stats."""
    tmp = tmp_path_factory.mktemp("baselines")
    corpus = synth_corpus(tmp / "synth.jsonl.gz", days=2, rate=200, sections=12, seed=5)
    with ReplayProcess(corpus, speed=SPEED, start=START, log_path=tmp / "requests.jsonl",
                       truth_path=tmp / "truth.jsonl") as replay:
        processes = {}
        for name in NAMES:
            argv = [sys.executable, "-m", "scrapy", "crawl", name, "-a", f"start={replay.url}",
                    "-a", f"speed={SPEED}", "-a", f"rate={RATE}", "-O", str(tmp / f"{name}.jsonl"),
                    "-s", f"CLOSESPIDER_TIMEOUT={SECONDS}", "-s", f"LOG_FILE={tmp / name}.log",
                    "-s", "LOG_LEVEL=INFO", "-s", "TELNETCONSOLE_ENABLED=False"]
            if name == "oracle":
                argv += ["-a", f"truth={tmp / 'truth.jsonl'}"]
            if name == "random":
                argv += ["-a", "seed=1"]
            processes[name] = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE,
                                               stderr=subprocess.PIPE, text=True,
                                               env=dict(os.environ, PYTHONUNBUFFERED="1"))
        results = {}
        for name, process in processes.items():
            _, stderr = process.communicate(timeout=120)
            out = tmp / f"{name}.jsonl"
            log = tmp / f"{name}.log"
            results[name] = {
                "returncode": process.returncode,
                "items": [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else [],
                "log": (log.read_text() if log.exists() else "") + stderr,
            }
    truth = [json.loads(line) for line in (tmp / "truth.jsonl").read_text().splitlines()]
    requests = list(read_log(tmp / "requests.jsonl"))
    return {"results": results, "truth": truth, "requests": requests, "tmp": tmp}


def stat(log: str, key: str) -> int:
    match = re.search(rf"'{re.escape(key)}': (\d+)", log)
    return int(match.group(1)) if match else 0


@pytest.mark.parametrize("name", NAMES)
def test_baseline_outputs_truly_novel_articles_only(runs, name):
    run = runs["results"][name]
    assert run["returncode"] == 0, run["log"][-3000:]
    assert "Traceback" not in run["log"], run["log"][-3000:]
    truth = {record["path"]: datetime.fromisoformat(record["published"]) for record in runs["truth"]}
    items = run["items"]
    assert len(items) >= 5, f"{name} found {len(items)} documents"
    urls = [item["url"] for item in items]
    assert len(urls) == len(set(urls))  # each URL once
    for item in items:
        assert set(item) == {"url", "title", "published", "found_at", "forager", "reward"}
        assert item["forager"] == name and item["reward"] is None and item["title"]
        path = urlsplit(item["url"]).path
        assert path in truth, f"{item['url']} is not an article of the corpus"
        published = datetime.fromisoformat(item["published"])
        found_at = datetime.fromisoformat(item["found_at"])
        assert published == truth[path]
        assert timedelta(0) <= found_at - published <= timedelta(hours=24)
    # what the metrics make of it: nothing invalid, every output rewarded
    metrics = run_metrics(runs["truth"], runs["requests"], items, foragers=name)
    assert set(RESULT_KEYS) <= set(metrics)
    assert metrics["invalid"] == dict.fromkeys(metrics["invalid"], 0)
    assert metrics["novel"] == len(items) and metrics["sent_efficiency"] == 1.0
    assert metrics["requests"] > 0 and metrics["compartmentalisation"] == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_baseline_requests_are_attributed_polite_and_on_budget(runs, name):
    mine = [r for r in runs["requests"] if r["forager"] == name]
    assert mine, f"no request of {name} in the replay's log"
    assert all(r["forager"] in NAMES for r in runs["requests"])  # robots.txt included
    paths = Counter(r["path"] for r in mine)
    assert paths["/robots.txt"] == 1
    assert not any(p.startswith("/search") for p in paths)  # robots.txt: Disallow: /search
    # the budget: starts 1.05/RATE apart, so any 10 consecutive gaps span 10.5/RATE (less the
    # replay's own jitter in stamping arrivals on a busy machine)
    walls = sorted(r["wall_time"] for r in mine)
    spans = [b - a for a, b in zip(walls, walls[10:])]
    assert not spans or min(spans) >= 10.5 / RATE - 0.1, min(spans)
    assert len(mine) <= RATE * (walls[-1] - walls[0]) + 2


def test_oracle_reaches_the_limit(runs):
    metrics = run_metrics(runs["truth"], runs["requests"], runs["results"]["oracle"]["items"],
                          foragers="oracle")
    assert metrics["window_articles"] >= 5
    assert metrics["recall"] >= 0.9, metrics
    assert metrics["lag_median"] <= 1.0 and metrics["lag_p90"] <= 3.0, metrics
    # one request per article, plus the home page (the clock) and robots.txt
    assert metrics["requests"] <= metrics["novel"] + 4, metrics


def test_bfs_recrawls_in_rounds(runs):
    log = runs["results"]["bfs"]["log"]
    assert stat(log, "baselines/bfs/rounds") >= 2
    homes = [r for r in runs["requests"] if r["forager"] == "bfs" and r["path"] == "/"]
    assert len(homes) >= 2  # each round starts at the home page again


@pytest.mark.parametrize("name", ["hubs", "adaptive"])
def test_hub_crawlers_poll_home_and_section_fronts(runs, name):
    mine = Counter(r["path"] for r in runs["requests"] if r["forager"] == name)
    fronts = {p: n for p, n in mine.items() if re.fullmatch(r"/section/[^/?]+/", p)}
    assert len(fronts) >= 3 and mine["/"] >= 1
    assert max(fronts.values()) >= 2  # polled again
    # other listings are not downloaded: stories are read off the hubs
    assert not [p for p in mine if p.startswith(("/author/", "/archive/")) or "/by/" in p]


def test_random_walks_restart(runs):
    log = runs["results"]["random"]["log"]
    assert stat(log, "baselines/random/restarts") >= 2
    homes = [r for r in runs["requests"] if r["forager"] == "random" and r["path"] == "/"]
    assert len(homes) >= 2


# -- arguments and helpers (no crawl) -----------------------------------------------------------


@pytest.mark.parametrize("cls,kwargs,message", [
    (BfsSpider, {}, "start page"),
    (BfsSpider, {"start": "ftp://example.com/"}, "absolute http"),
    (BfsSpider, {"start": "http://example.com/", "depth": "0"}, "depth"),
    (HubsSpider, {"start": "http://example.com/", "hub_pattern": "("}, "regular expression"),
    (AdaptiveSpider, {"start": "http://example.com/", "min_interval": "600",
                      "initial_interval": "60"}, "min_interval"),
    (AdaptiveSpider, {"start": "http://example.com/", "shrink": "2"}, "shrink"),
    (RandomSpider, {"start": "http://example.com/", "steps": "x"}, "steps"),
    (OracleSpider, {"start": "http://example.com/"}, "truth"),
    (OracleSpider, {"start": "http://example.com/", "truth": "/nonexistent.jsonl"}, "does not exist"),
    (BfsSpider, {"start": "http://example.com/", "speed": "0"}, "speed"),
    (BfsSpider, {"start": "http://example.com/", "rate": "-1"}, "rate"),
])
def test_bad_arguments_are_clear_errors(cls, kwargs, message):
    with pytest.raises(ValueError, match=message):
        cls(**kwargs)


def test_oracle_truth_file_skips_bad_lines(tmp_path):
    path = tmp_path / "truth.jsonl"
    path.write_text("\n".join([
        json.dumps({"path": "/b/", "published": "2024-01-01T08:00:00+00:00"}),
        "not json",
        json.dumps({"path": "/c/", "published": "2024-01-01T08:00:00"}),  # no offset
        json.dumps({"published": "2024-01-01T08:00:00+00:00"}),  # no path
        json.dumps({"path": "/a/", "published": "2024-01-01T09:00:00+02:00"}),
    ]) + "\n")
    records, bad = load_truth(path)
    assert [p for p, _ in records] == ["/a/", "/b/"]  # publication order
    assert bad == 3
    empty = tmp_path / "empty.jsonl"
    empty.write_text("garbage\n")
    with pytest.raises(ValueError, match="no usable record"):
        OracleSpider(start="http://example.com/", truth=str(empty))


def test_site_clock_never_runs_ahead_of_the_site():
    wall = [1000.0]
    clock = SiteClock(speed=600, wall=lambda: wall[0])
    assert not clock.ready and clock.now() == 1000.0  # the system clock until a Date is seen
    site = datetime(2024, 1, 1, 7, 0, tzinfo=UTC)
    clock.observe(site)  # a Date header, received at wall 1000
    assert clock.now() == site.timestamp()
    wall[0] = 1001.0
    assert clock.now() == site.timestamp() + 600
    # a later, slower response (its Date is an older lower bound) does not pull the clock back
    clock.observe(site + timedelta(seconds=590))
    assert clock.now() == site.timestamp() + 600
    # a tighter lower bound moves it forward
    clock.observe(site + timedelta(seconds=603))
    assert clock.now() == site.timestamp() + 603
    assert clock.wall_delay(site.timestamp() + 603 + 60) == pytest.approx(0.1)
    assert clock.wall_delay(site.timestamp()) == 0.0


def test_site_time_reads_the_date_header():
    class Response:
        def __init__(self, headers):
            self.headers = headers

    assert site_time(Response({b"Date": b"Mon, 01 Jan 2024 07:00:00 GMT"})) == \
        datetime(2024, 1, 1, 7, 0, tzinfo=UTC)
    assert site_time(Response({b"Date": b"yesterday"})) is None
    assert site_time(Response({})) is None
    assert site_time(object()) is None
