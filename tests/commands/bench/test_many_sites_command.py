"""``newsforagers bench --sites 3`` end to end on a tiny synthetic corpus: a colony and a
baseline each crawl a fresh replay of three sites from all three home pages, under the budget
per host, and are judged over all sites and site by site."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(170)

REPO = Path(__file__).resolve().parents[3]
BUDGET = 20


def test_a_bench_of_three_sites(corpus, tmp_path):
    out = tmp_path / "bench"
    argv = [sys.executable, "-m", "newsforagers.cli", "bench", "--corpus", str(corpus),
            "--out", str(out), "--sites", "3", "--crawlers", "scheduled,bfs", "--repeats", "1",
            "--duration", "10", "--budget", str(BUDGET), "--no-plots"]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=160,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    assert results["settings"]["sites"] == 3 and results["site"]["sites"]["count"] == 3
    for record in results["runs"]:
        name = f"{record['crawler']}-r0"
        assert record["status"] == "ok", record["problems"]
        run_dir = out / "runs" / name
        homes = (run_dir / "seeds.txt").read_text().split()
        assert len(homes) == 3 and len({home.split("/")[2] for home in homes}) == 3
        # every crawler asked every site, each within the budget per host
        log = [json.loads(line) for line in (run_dir / "requests.jsonl").read_text().splitlines()]
        hosts = Counter(entry["host"] for entry in log)
        assert set(hosts) == {home.split("/")[2] for home in homes}, (name, hosts)
        for host in hosts:
            walls = sorted(entry["wall_time"] for entry in log if entry["host"] == host)
            assert len(walls) <= BUDGET * (walls[-1] - walls[0]) + 2, (name, host)
        # judged site by site: each host's measures, and their spread
        assert set(record["sites"]) == set(hosts)
        for host, site in record["sites"].items():
            assert site["requests"] == hosts[host]  # the window: the run's first to last request
            assert site["window_articles"] > 0 and 0 <= site["recall"] <= 1
        spread = record["site_spread"]
        assert spread["sites"] == 3 and spread["down_sites"] == 0
        assert spread["recall_live"] == spread["recall_all"]
        assert spread["recall_all"] == pytest.approx(record["metrics"]["recall"])
    for name in ("scheduled", "bfs"):
        entry = results["crawlers"][name]["sites"]
        assert entry["recall_median"]["n"] == 1 and entry["requests_min"]["mean"] > 0
    text = (out / "results.md").read_text()
    assert "## Many sites" in text and "| `bfs` | 1/1 |" in text
