"""One colony over many sites (the many-site replay, each site on its own loopback address): a
stalled answer on one host costs only its own request, never another host's next one."""

from __future__ import annotations

import json
import time

import pytest

from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import crawl_forager

pytestmark = pytest.mark.timeout(150)
START = "2024-01-02T09:00:00+00:00"
SPEED = 600


def _stalling_sites(tmp_path, sites: int, profile: dict, rate: int = 200) -> tuple[object, list[dict], list[str]]:
    """``sites`` sites of the replay (site profiles ``profile``; ``rate`` stories a day in
    all), crawled 11 s by one scheduled forager at 20 requests a second a host: the crawl's
    result, the replay's request log and the sites' hosts."""
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=rate, sections=6, seed=5)
    requests, seeds, profiles = tmp_path / "requests.jsonl", tmp_path / "seeds.txt", tmp_path / "profiles.json"
    profiles.write_text(json.dumps({"sites": profile}))
    with ReplayProcess(corpus, speed=SPEED, start=START, log_path=requests,
                       extra_args=["--sites", str(sites), "--site-profiles", str(profiles), "--seeds", str(seeds)]):
        hosts = [line[len("http://"):-1] for line in seeds.read_text().splitlines()]
        result = crawl_forager(f"@{seeds}", tmp_path, seconds=11, args={"speed": SPEED}, settings={
            "FORAGERS_STRATEGY": "scheduled", "FORAGERS_MIN": 1, "FORAGERS_MAX": 1,
            "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db", "FORAGERS_SEED": 3,
            "FORAGERS_HOST_RATE": 20, "FORAGERS_RUN_DIR": tmp_path / "run", "DOWNLOAD_TIMEOUT": 30})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log, result.log[-3000:]
    return result, list(read_log(requests)), hosts


def test_a_stalled_answer_on_one_host_does_not_delay_the_other_host_s_requests(tmp_path):
    # site 1 stalls a third of its answers for 5 s (headers, then nothing; the crawl's close waits
    # for the last of them): one forager holds
    # both sites, one request in flight by default on a fast site. The healthy site has more
    # stories of the day than the run can fetch (1,000 a day each): a gap in its requests is
    # a request held back, not a forager with nothing to ask there
    _, log, hosts = _stalling_sites(tmp_path, 2, {"1": {"stall_share": 0.33, "stall_seconds": 5}}, rate=2000)
    healthy = sorted(r["wall_time"] for r in log if r["host"] == hosts[0])
    stalls = [r["wall_time"] for r in log if r["host"] == hosts[1] and r.get("stalled")]
    end = max(r["wall_time"] for r in log)
    assert stalls, "no answer stalled: the profile was not applied"
    # after each stalled answer began, the healthy site still got its next request within 3 s
    # (its stalled neighbour holds the forager's one turn for at most 2 s, STALL_FLOOR)
    for began in stalls:
        if began + 3.0 < end:
            assert any(began < t <= began + 3.0 for t in healthy), (began, healthy)
    assert len(healthy) >= 40, len(healthy)


def test_a_stalled_answer_is_asked_again_at_once_and_its_page_read_once(tmp_path):
    from tests.integration.testsite import parse_stats

    # a fifth of the answers stall for 12 s, longer than the answer deadline (10 s): without a
    # hedge each would hold its page 10 s, then Scrapy's retry would ask again
    result, log, _ = _stalling_sites(tmp_path, 1, {"0": {"stall_share": 0.2, "stall_seconds": 12}})
    stats = parse_stats(result.log)
    end = max(r["wall_time"] for r in log)
    # (the colony's shared downloads on, as by default: a hedge does not wait for the download
    # in flight of its URL, which another request of it would.) A host is hedged once it has
    # answered 3 times; robots.txt is Scrapy's own request.
    answers = sorted(r["wall_time"] + (r.get("held") or 0.0) for r in log
                     if not r.get("stalled") and r["path"] != "/robots.txt")
    stalls = [r for r in log if r.get("stalled") and r["path"] != "/robots.txt"
              and answers[2] < r["wall_time"] < end - 4.0]
    assert stalls, "no answer stalled: the profile was not applied"
    # a loopback site answers in milliseconds: a request unanswered after 2 s (STALL_FLOOR) has
    # stalled, and its twin leaves within the next request's spacing (20 a second) after that
    again = [r for r in stalls if any(o["path"] == r["path"] and r["wall_time"] < o["wall_time"] <= r["wall_time"] + 3.0
                                      for o in log)]
    assert len(again) >= len(stalls) - 1, (len(again), len(stalls))
    assert stats["newsforagers/scheduled/hedged"] >= len(again)
    # each page read once: the later answer of the two is dropped, never a document twice
    assert stats.get("newsforagers/scheduled/hedge_late", 0) >= 1
    urls = [item["url"] for item in result.items]
    assert urls and len(urls) == len(set(urls))


def test_a_down_host_backs_off_a_rate_limited_host_pauses_and_the_healthy_one_goes_on(tmp_path):
    from tests.integration.testsite import parse_stats

    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=200, sections=6, seed=5)
    requests, seeds, profiles = tmp_path / "requests.jsonl", tmp_path / "seeds.txt", tmp_path / "profiles.json"
    # at speed 600, in wall seconds of the replay (the crawl begins a few seconds after it):
    # site 1 refuses connections from the 9th to the 15th; site 2 answers 429 "Retry-After: 60"
    # (its seconds: 0.1 s of wall time) from the 9th to the 12th
    profiles.write_text(json.dumps({"sites": {
        "1": {"down": [[5400, 9000]]},
        "2": {"errors": [{"from": 5400, "to": 7200, "status": 429, "retry_after": 60}]}}}))
    with ReplayProcess(corpus, speed=SPEED, start=START, log_path=requests,
                       extra_args=["--sites", "3", "--site-profiles", str(profiles), "--seeds", str(seeds)]):
        hosts = [line[len("http://"):-1] for line in seeds.read_text().splitlines()]
        opened = time.time()
        result = crawl_forager(f"@{seeds}", tmp_path, seconds=20, args={"speed": SPEED}, settings={
            "FORAGERS_STRATEGY": "scheduled", "FORAGERS_MIN": 1, "FORAGERS_MAX": 1,
            "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db", "FORAGERS_SEED": 3,
            "FORAGERS_HOST_RATE": 20, "FORAGERS_RUN_DIR": tmp_path / "run",
            # no shared copies of pages (10 s of wall time is 100 minutes of the site's): every
            # visit during the down window goes to the network
            "FORAGERS_FETCH_TTL": 0})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log, result.log[-3000:]
    stats = parse_stats(result.log)
    log = list(read_log(requests))
    by_host = {host: sorted(r["wall_time"] for r in log if r["host"] == host) for host in hosts}
    first = min(r["wall_time"] for r in log)
    assert first < opened + 9, "the crawl began after the faults: nothing was tested"
    # the down host backed off (connections refused are not in the site's log), and was read
    # again once it came back
    assert stats["newsforagers/host/unreachable"] >= 2
    assert any(t > opened + 15.5 for t in by_host[hosts[1]]), by_host[hosts[1]]
    # the rate-limited host paused for its Retry-After in its own seconds, and was read again
    statuses = [r["status"] for r in log if r["host"] == hosts[2]]
    assert 429 in statuses and statuses[-1] in (200, 304)
    assert stats["newsforagers/host/paused"] >= 1
    assert stats["newsforagers/host/paused_seconds"] <= 0.11 * stats["newsforagers/host/paused"]
    # the healthy host never waited for either: requests in every 2 s of the run
    healthy = by_host[hosts[0]]
    end = max(r["wall_time"] for r in log)
    gaps = [b - a for a, b in zip(healthy, healthy[1:]) if b < end - 1]
    assert len(healthy) >= 40 and max(gaps) < 2.5, (len(healthy), max(gaps))


def test_two_scheduled_foragers_divide_the_sites_by_host(tmp_path):
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=200, sections=6, seed=5)
    requests, seeds = tmp_path / "requests.jsonl", tmp_path / "seeds.txt"
    with ReplayProcess(corpus, speed=SPEED, start=START, log_path=requests,
                       extra_args=["--sites", "4", "--seeds", str(seeds)]):
        result = crawl_forager(f"@{seeds}", tmp_path, seconds=12, args={"speed": SPEED}, settings={
            "FORAGERS_STRATEGY": "scheduled", "FORAGERS_MIN": 2, "FORAGERS_MAX": 2,
            "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db", "FORAGERS_SEED": 3,
            "FORAGERS_HOST_RATE": 10, "FORAGERS_RUN_DIR": tmp_path / "run"})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log, result.log[-3000:]
    assert "dealt to 2 scheduled forager(s) by host" in result.log
    readers: dict[str, set] = {}
    for r in read_log(requests):
        if r["path"] != "/robots.txt" and r.get("forager"):
            readers.setdefault(r["host"], set()).add(r["forager"])
    # every site read, each by one forager, and both foragers at work (two sites each)
    assert len(readers) == 4 and all(len(names) == 1 for names in readers.values()), readers
    assert sorted(len([h for h, names in readers.items() if name in names]) for name in ("f1", "f2")) == [2, 2]
    assert len(result.items) > 0
