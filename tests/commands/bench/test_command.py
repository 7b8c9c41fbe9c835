"""``newsforagers bench``: bad arguments, and one benchmark end to end through the command line
on a tiny synthetic corpus."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from newsforagers import cli
from newsforagers.evaluation.bench.config import BenchConfig
from newsforagers.evaluation.bench.evaluate import evaluate_files
from newsforagers.evaluation.bench.plan import plan_runs
from newsforagers.evaluation.bench.report import write_results
from newsforagers.evaluation.bench.site import prepare_site
from newsforagers.evaluation.bench.summary import METRIC_KEYS, summarise
from tests.evaluation.bench.samples import MONDAY_7

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("extra,message", [
    (["--crawlers", "wlrl,bogus"], "unknown crawler(s) 'bogus'"),
    (["--speed", "0"], "must be higher than 0"),
    (["--duration", "-5"], "must be higher than 0"),
    (["--budget", "x"], "is not a number"),
    (["--repeats", "0"], "must be at least 1"),
    (["--start", "monday"], "is not an ISO 8601 time"),
])
def test_bad_arguments_exit_2_with_a_message(corpus, tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path), *extra])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_missing_model_is_a_message_and_a_model_reaches_every_colony(corpus, tmp_path, capsys):
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path),
                     "--model", str(tmp_path / "none.joblib")]) == 2
    assert "--model" in capsys.readouterr().err
    model = tmp_path / "model.joblib"
    model.write_bytes(b"")
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--model",
                     str(model), "--crawlers", "wlrl,bfs", "--repeats", "1", "--dry-run"]) == 0
    plan = capsys.readouterr().out
    lines = [line for line in plan.splitlines() if "scrapy crawl" in line]
    assert [f"model={model}" in line for line in lines] == [True, False]


def test_missing_corpus_is_a_message_not_a_traceback(tmp_path):
    done = subprocess.run([sys.executable, "-m", "newsforagers.cli", "bench", "--corpus",
                           str(tmp_path / "nope.jsonl.gz"), "--out", str(tmp_path / "out")],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "is not a file" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def bench(corpus, out, *options: str, timeout: float) -> subprocess.CompletedProcess:
    """``newsforagers bench --corpus CORPUS --out OUT OPTIONS...`` as a user runs it: a process
    of its own from the repository, its output captured; it must succeed."""
    argv = [sys.executable, "-m", "newsforagers.cli", "bench", "--corpus", str(corpus),
            "--out", str(out), *options]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_bench_end_to_end(corpus, tmp_path):
    out = tmp_path / "bench"
    done = bench(corpus, out, "--crawlers", "wlrl,oracle", "--repeats", "1", "--duration", "8",
                 "--speed", "600", "--budget", "40", "--seed", "3", timeout=150)
    assert "run 1/2 wlrl-r0: ok" in done.stderr and "run 2/2 oracle-r0: ok" in done.stderr
    results = json.loads((out / "results.json").read_text())
    for name in ("wlrl", "oracle"):
        summary = results["crawlers"][name]
        for key in METRIC_KEYS:
            assert set(summary[key]) == {"mean", "std", "n"}, (name, key)
        assert summary["runs"] == {"ok": 1, "failed": 0}
    oracle, wlrl = results["crawlers"]["oracle"], results["crawlers"]["wlrl"]
    assert oracle["recall"]["mean"] >= 0.9 and oracle["lag_median"]["mean"] <= 1.0
    assert oracle["sent_efficiency"]["mean"] == 1.0
    assert wlrl["requests"]["mean"] > 0 and 0 <= wlrl["recall"]["mean"] <= 1
    # 8 s at 40 req/s: within the budget (robots.txt and a second of slack)
    assert wlrl["requests"]["mean"] <= 40 * 9 + 2
    assert wlrl["compartmentalisation"]["mean"] is not None
    runs = {r["crawler"]: r for r in results["runs"]}
    assert runs["wlrl"]["counts"]  # the colony's sends and rewards, from its snapshots
    assert runs["wlrl"]["series"]["colony"]["population"]
    assert results["site"]["start"] == MONDAY_7
    assert results["command"].startswith("newsforagers bench --corpus")
    text = (out / "results.md").read_text()
    assert "| `oracle` | 1/1 |" in text and "## Targets" in text
    # where the lag comes from: the colony saw its stories on pages it fetched; the oracle
    # fetches stories by their URLs, seen on no page first
    split = runs["wlrl"]["lag_split"]
    assert split["n"] >= 1 and split["discovery_median"] >= 0 and split["fetch_median"] >= 0
    assert runs["oracle"]["lag_split"]["unseen"] >= 0.9 * runs["oracle"]["metrics"]["novel"]
    assert "## Where the lag comes from" in text
    for png in ("efficiency.png", "lags.png", "colony.png", "compartments.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG", png

    # determinism: both runs' fresh replays served the same truth for the window...
    def truth(name):
        lines = (out / "runs" / f"{name}-r0" / "truth.jsonl").read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items() if k != "url"} for line in lines]

    assert truth("wlrl") == truth("oracle") and len(truth("wlrl")) == 400
    # ...and the same run files give the same measures and the same results, byte for byte
    config = BenchConfig.from_dict(results["settings"])
    site = prepare_site(config)
    for run in plan_runs(config):
        stored = runs[run.crawler]
        again = json.loads(json.dumps(evaluate_files(config, run, out / "runs" / run.name, site.changes)))
        assert again["metrics"] == stored["metrics"] and again["series"] == stored["series"]
    summary = summarise(config, results["site"], results["runs"], shlex.split(results["command"]))
    rewritten = write_results(tmp_path / "again", summary, ["efficiency.png", "lags.png", "colony.png",
                                                            "compartments.png"])
    assert rewritten[0].read_bytes() == (out / "results.json").read_bytes()
    assert rewritten[1].read_bytes() == (out / "results.md").read_bytes()
