"""``newsforagers bench``: the plan, the summary and its targets, bad arguments, failed runs,
and one benchmark end to end through the command line on a tiny synthetic corpus."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from newsforagers import cli
from newsforagers.evaluation.bench import (
    METRIC_KEYS, BenchConfig, BenchError, PlannedRun, Progress, colony_counts, crawl_argv,
    default_start, describe_plan, evaluate_files, plan_runs, prepare_site, results_markdown,
    run_bench, run_one, summarise, targets, write_results,
)
from newsforagers.evaluation.metrics import RESULT_KEYS
from newsforagers.replay.synth import synth_corpus

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parents[1]
MONDAY_7 = "2024-01-01T07:00:00+00:00"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return synth_corpus(tmp_path_factory.mktemp("corpus") / "synth.jsonl.gz", days=2, rate=200,
                        sections=12, seed=5)


def config_for(corpus: Path | str, out: Path | str, **kwargs) -> BenchConfig:
    kwargs = {"speed": 600.0, "duration": 8.0, "budget": 40.0, "repeats": 1, **kwargs}
    return BenchConfig(corpus=str(corpus), out=str(out), **kwargs).validate()


# -- plan ---------------------------------------------------------------------------------------


def test_plan_is_repeat_major_and_seeds_each_repeat():
    config = BenchConfig(corpus="c", out="o", repeats=3, crawlers=("wlrl", "bfs"), seed=7)
    plan = plan_runs(config)
    assert [(r.crawler, r.repeat, r.seed) for r in plan] == [
        ("wlrl", 0, 7), ("bfs", 0, 7), ("wlrl", 1, 8), ("bfs", 1, 8), ("wlrl", 2, 9), ("bfs", 2, 9)]
    assert [r.index for r in plan] == list(range(6))
    assert plan[2].name == "wlrl-r1"


def test_commands_give_every_crawler_the_same_budget_window_and_its_seed(tmp_path):
    config = BenchConfig(corpus="c", out=str(tmp_path), speed=300, duration=60, budget=15,
                         settings=(("FORAGERS_MIN", "4"),))
    url = "http://127.0.0.1:1234/"
    colony = crawl_argv(config, PlannedRun(0, "rl", 1, 9), url, tmp_path / "rl")
    assert colony[colony.index("crawl") + 1] == "forager"
    for arg in (f"seeds={url}", "mode=rl", "CLOSESPIDER_TIMEOUT=60", "FORAGERS_HOST_RATE=15",
                "FORAGERS_SEED=9", "FORAGERS_FETCH_TTL=0.2", "FORAGERS_MIN=4",
                f"FORAGERS_RUN_DIR={tmp_path / 'rl' / 'colony'}"):
        assert arg in colony
    oracle = crawl_argv(config, PlannedRun(1, "oracle", 0, 1), url, tmp_path / "o")
    for arg in (f"start={url}", "rate=15", "speed=300", "CLOSESPIDER_TIMEOUT=60",
                f"truth={tmp_path / 'o' / 'truth.jsonl'}", "FORAGERS_MIN=4"):
        assert arg in oracle
    walk = crawl_argv(config, PlannedRun(2, "random", 2, 3), url, tmp_path / "w")
    assert "seed=3" in walk and not any(a.startswith("truth=") for a in walk)


def test_plan_and_commands_are_deterministic(corpus, tmp_path):
    config = config_for(corpus, tmp_path, repeats=2, crawlers=("wlrl", "adaptive", "random"))
    first = describe_plan(config, prepare_site(config).start)
    second = describe_plan(config, prepare_site(config).start)
    assert first == second
    assert first.count("\nrun ") == 6 and "seed=2" in first and "$REPLAY" in first


def test_default_start_is_the_first_monday_morning_of_the_corpus():
    tz = timezone(timedelta(hours=-4))
    friday = datetime(2010, 10, 22, 0, 3, tzinfo=tz)
    assert default_start([friday, friday + timedelta(days=12)]) == datetime(2010, 10, 25, 7, 0, tzinfo=tz)
    monday = datetime(2024, 1, 1, 0, 5, tzinfo=timezone.utc)
    assert default_start([monday, monday + timedelta(days=2)]).isoformat() == MONDAY_7
    late = datetime(2024, 1, 1, 7, 30, tzinfo=timezone.utc)  # past 07:00: the next Monday
    assert default_start([late, late + timedelta(days=8)]) == datetime(2024, 1, 8, 7, tzinfo=timezone.utc)
    # no Monday morning before the last article: just before the first one
    assert default_start([friday, friday + timedelta(days=1)]) == friday - timedelta(minutes=1)


# -- summary and targets -------------------------------------------------------------------------


def metrics(**values) -> dict:
    base = dict.fromkeys(RESULT_KEYS)
    base.update(compartmentalisation=None, novel=0, window_articles=10, output=0, lag_mean=None)
    base.update(values)
    return base


def record(crawler: str, repeat: int, status: str = "ok", **values) -> dict:
    return {"crawler": crawler, "repeat": repeat, "seed": 1 + repeat, "status": status,
            "problems": [] if status == "ok" else ["the crawler exited with status 1"],
            "metrics": metrics(**values) if status == "ok" else None, "series": {}}


RECORDS = [
    record("wlrl", 0, recall=0.96, lag_median=2.0, lag_p90=9.0, download_efficiency=0.06,
           sent_efficiency=0.7, requests=1000, compartmentalisation=0.5),
    record("wlrl", 1, recall=1.0, lag_median=4.0, lag_p90=11.0, download_efficiency=0.08,
           sent_efficiency=0.5, requests=1200, compartmentalisation=0.7),
    record("wlrl", 2, status="failed"),
    record("bfs", 0, recall=0.5, lag_median=10.0, download_efficiency=0.01, requests=1100),
    record("adaptive", 0, recall=0.9, lag_median=3.5, download_efficiency=0.05, requests=1100),
    record("adaptive", 1, recall=0.92, lag_median=2.5, download_efficiency=0.09, requests=1050),
]


def summary_of(records, profile="hard"):
    config = BenchConfig(corpus="c.jsonl", out="o", profile=profile, repeats=3,
                         crawlers=("wlrl", "bfs", "adaptive"))
    return summarise(config, {"start": MONDAY_7, "articles": 10}, records, ["newsforagers", "bench"])


def test_summary_is_mean_and_std_over_successful_runs():
    results = summary_of(RECORDS)
    wlrl = results["crawlers"]["wlrl"]
    assert set(METRIC_KEYS) <= set(wlrl)
    assert wlrl["recall"]["mean"] == pytest.approx(0.98)
    assert wlrl["recall"]["std"] == pytest.approx(0.0282842712)  # sample std of 0.96, 1.0
    assert wlrl["lag_median"] == {"mean": 3.0, "std": pytest.approx(2 ** 0.5), "n": 2}
    assert wlrl["freshness"] == {"mean": None, "std": None, "n": 0}
    assert wlrl["runs"] == {"ok": 2, "failed": 1}
    assert results["crawlers"]["bfs"]["recall"] == {"mean": 0.5, "std": 0.0, "n": 1}
    assert results["failures"]["count"] == 1
    assert results["failures"]["runs"][0]["crawler"] == "wlrl"
    assert len(results["runs"]) == len(RECORDS)
    assert results["command"] == "newsforagers bench"


def test_targets_are_met_or_not_from_the_means():
    results = summary_of(RECORDS)
    by_name = {row["target"]: row for row in results["targets"]}
    assert by_name["recall ≥ 0.95"]["met"] is True  # 0.98
    assert by_name["median lag ≤ 0.5 × bfs"]["met"] is True  # 3.0 <= 5.0
    assert by_name["median lag ≤ 0.5 × bfs"]["bound"] == 5.0
    assert by_name["median lag ≤ adaptive"]["met"] is True  # 3.0 <= 3.0
    assert by_name["download efficiency ≥ 0.05"]["met"] is True  # 0.07
    assert by_name["download efficiency ≥ adaptive"]["met"] is True  # 0.07 >= 0.07
    assert by_name["sent efficiency ≥ 0.6"]["met"] is True  # 0.6
    worse = [r for r in RECORDS if not (r["crawler"] == "wlrl" and r["repeat"] == 0)]
    by_name = {row["target"]: row for row in summary_of(worse)["targets"]}
    assert by_name["recall ≥ 0.95"]["met"] is True  # 1.0
    assert by_name["median lag ≤ adaptive"]["met"] is False  # 4.0 > 3.0
    assert by_name["sent efficiency ≥ 0.6"]["met"] is False  # 0.5
    assert by_name["download efficiency ≥ adaptive"]["met"] is True  # 0.08 >= 0.07
    # a reference crawler that did not run: not measured, neither met nor failed
    only_colony = targets("hard", {"wlrl": summary_of(RECORDS)["crawlers"]["wlrl"]})
    assert [row["met"] for row in only_colony] == [True, None, None, True, None, True]


def test_the_scheduled_colony_has_issue_7_s_targets():
    crawlers = summary_of(RECORDS)["crawlers"]
    scheduled = dict(crawlers["wlrl"])
    rows = [r for r in targets("hard", {**crawlers, "scheduled": scheduled}) if r["crawler"] == "scheduled"]
    assert [r["target"] for r in rows] == ["recall ≥ 0.95", "median lag ≤ adaptive", "p90 lag ≤ adaptive",
                                         "download efficiency ≥ adaptive"]
    wlrl_rows = [r for r in targets("hard", {**crawlers, "scheduled": scheduled}) if r["crawler"] == "wlrl"]
    assert [r["met"] for r in wlrl_rows] == [r["met"] for r in targets("hard", crawlers)]


def test_results_markdown_reads_the_numbers_and_marks_the_targets():
    worse = [r for r in RECORDS if not (r["crawler"] == "wlrl" and r["repeat"] == 0)]
    text = results_markdown(summary_of(worse), plots=["lags.png"])
    assert "| `wlrl` | 1/2 | 1.000 ± 0.000 | 4.0 ± 0.0 |" in text
    assert "| median lag ≤ adaptive | 4.0 | 3.0 (adaptive median lag) | **not met** |" in text
    assert "| recall ≥ 0.95 | 1.000 | 0.950 | met |" in text
    assert "- `wlrl` repeat 2: the crawler exited with status 1" in text
    assert "![lags](lags.png)" in text
    assert "for information only" in results_markdown(summary_of(worse, profile="easy"))


def test_results_are_byte_identical_for_the_same_records(tmp_path):
    paths = [write_results(tmp_path / name, summary_of(RECORDS), ["lags.png"]) for name in "ab"]
    for a, b in zip(*paths):
        assert a.read_bytes() == b.read_bytes()


def test_colony_counts_take_each_foragers_latest_snapshot():
    snapshots = [{"forager": "f1", "sent": 3, "rewarded": 1}, {"forager": "f2", "sent": 2, "rewarded": 2},
                 {"forager": "f1", "sent": 9, "rewarded": 4}, {"forager": "f3", "sent": None},
                 {"sent": 1, "rewarded": 1}]
    assert colony_counts(snapshots) == {"f1": {"sent": 9, "rewarded": 4}, "f2": {"sent": 2, "rewarded": 2}}


def test_progress_without_a_terminal_prints_one_line_per_run():
    import io

    stream = io.StringIO()
    progress = Progress(total=2, duration=10.0, stream=stream, tty=False)
    run = PlannedRun(0, "oracle", 0, 1)
    progress.begin(run)
    progress.end(run, {"status": "ok", "metrics": {"recall": 0.5, "requests": 12}, "wall_seconds": 9.5})
    progress.begin(run)
    progress.end(run, {"status": "failed", "problems": ["boom"], "metrics": None})
    progress.close()
    assert stream.getvalue().splitlines() == [
        "run 1/2 oracle-r0: ok, recall 0.500, 12 requests, 9.5 s", "run 2/2 oracle-r0: FAILED: boom"]


# -- bad arguments -------------------------------------------------------------------------------


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


def test_config_errors_name_the_option():
    with pytest.raises(BenchError, match=r"--retime \(0\) must be higher than 0"):
        BenchConfig(corpus="c", out="o", retime=0).validate()
    with pytest.raises(BenchError, match="names a crawler twice"):
        BenchConfig(corpus="c", out="o", crawlers=("bfs", "bfs")).validate()


# -- failed runs ---------------------------------------------------------------------------------


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


# -- end to end ----------------------------------------------------------------------------------


def test_bench_end_to_end(corpus, tmp_path):
    out = tmp_path / "bench"
    argv = [sys.executable, "-m", "newsforagers.cli", "bench", "--corpus", str(corpus),
            "--out", str(out), "--crawlers", "wlrl,oracle", "--repeats", "1", "--duration", "8",
            "--speed", "600", "--budget", "40", "--seed", "3"]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=150,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert done.returncode == 0, done.stderr[-3000:]
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
