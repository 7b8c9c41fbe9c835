"""newsforagers.commands.bench.runner: a failed run (a crawler that crashes or writes garbage,
a runner that raises) is a record, and the bench goes on."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from newsforagers.commands.bench.runner import run_bench, run_one
from newsforagers.evaluation.bench.plan import plan_runs
from newsforagers.evaluation.bench.site import prepare_site
from tests.evaluation.bench.samples import config_for, record

pytestmark = pytest.mark.timeout(180)


def crashing(config, run, url, run_dir):
    return [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"]


def garbage(config, run, url, run_dir):
    code = f"open({str(Path(run_dir) / 'items.jsonl')!r}, 'w').write('not json\\n[1, 2]\\n')"
    return [sys.executable, "-c", code]


@pytest.mark.parametrize("command,problem", [(crashing, "exited with status 3"),
                                             (garbage, "2 line(s) that are not JSON objects")])
def test_a_crashing_or_garbage_crawler_is_a_failed_run(corpus, tmp_path, command, problem):
    config = config_for(corpus, tmp_path, crawlers=("bfs",))
    site = prepare_site(config)
    result = run_one(config, plan_runs(config)[0], site, command=command)
    assert result["status"] == "failed"
    assert any(problem in p for p in result["problems"]), result["problems"]
    assert (tmp_path / "runs" / "bfs-r0" / "truth.jsonl").exists()  # the replay ran


def test_a_failed_run_does_not_stop_the_bench(corpus, tmp_path):
    config = config_for(corpus, tmp_path, crawlers=("bfs", "oracle"), repeats=2)
    site = prepare_site(config)

    def runner(config, run, site):
        if run.crawler == "bfs" and run.repeat == 0:
            raise RuntimeError("the crawler vanished")
        return record(run.crawler, run.repeat, recall=0.5 + run.repeat / 4, requests=10)

    results = run_bench(config, site, runner=runner)
    assert [(r["crawler"], r["repeat"], r["status"]) for r in results["runs"]] == [
        ("bfs", 0, "failed"), ("oracle", 0, "ok"), ("bfs", 1, "ok"), ("oracle", 1, "ok")]
    assert results["failures"]["count"] == 1
    assert "the crawler vanished" in results["failures"]["runs"][0]["problems"][0]
    assert results["crawlers"]["bfs"]["recall"] == {"mean": 0.75, "std": 0.0, "n": 1}
    assert results["crawlers"]["oracle"]["recall"]["n"] == 2
    on_disk = json.loads((tmp_path / "results.json").read_text())  # written as it goes
    assert on_disk["failures"]["count"] == 1 and len(on_disk["runs"]) == 4
