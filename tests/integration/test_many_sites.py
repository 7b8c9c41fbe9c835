"""One colony over many sites (the many-site replay, each site on its own loopback address): a
stalled answer on one host costs only its own request, never another host's next one."""

from __future__ import annotations

import json

import pytest

from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import crawl_forager

pytestmark = pytest.mark.timeout(150)
START = "2024-01-02T09:00:00+00:00"
SPEED = 600


def test_a_stalled_answer_on_one_host_does_not_delay_the_other_host_s_requests(tmp_path):
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=200, sections=6, seed=5)
    requests, seeds, profiles = tmp_path / "requests.jsonl", tmp_path / "seeds.txt", tmp_path / "profiles.json"
    # site 1 stalls a third of its answers for 20 s (headers, then nothing): one forager holds
    # both sites, one request in flight by default on a fast site
    profiles.write_text(json.dumps({"sites": {"1": {"stall_share": 0.33, "stall_seconds": 20}}}))
    with ReplayProcess(corpus, speed=SPEED, start=START, log_path=requests,
                       extra_args=["--sites", "2", "--site-profiles", str(profiles), "--seeds", str(seeds)]):
        hosts = [line[len("http://"):-1] for line in seeds.read_text().splitlines()]
        result = crawl_forager(f"@{seeds}", tmp_path, seconds=16, args={"speed": SPEED}, settings={
            "FORAGERS_STRATEGY": "scheduled", "FORAGERS_MIN": 1, "FORAGERS_MAX": 1,
            "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db", "FORAGERS_SEED": 3,
            "FORAGERS_HOST_RATE": 20, "FORAGERS_RUN_DIR": tmp_path / "run", "DOWNLOAD_TIMEOUT": 30})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log, result.log[-3000:]
    log = list(read_log(requests))
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
