"""``newsforagers bench`` end to end through the command line on a tiny synthetic corpus, runs
judged on what they wrote, not on their pace: a sweep, a topical bench, a topic described by
examples (beside :mod:`tests.commands.bench.test_command`, whose benchmark's oracle is judged
on its recall and lag, in the serial crawls: tests/conftest.py, SERIAL_CRAWLS)."""

from __future__ import annotations

import json

import pytest

from newsforagers import cli
from newsforagers.evaluation.bench.config import BenchConfig
from newsforagers.evaluation.bench.evaluate import evaluate_files
from newsforagers.evaluation.bench.plan import plan_runs
from newsforagers.evaluation.bench.site import prepare_site
from tests.commands.bench.test_command import bench

pytestmark = pytest.mark.timeout(180)


def test_a_sweep_end_to_end(corpus, tmp_path, capsys):
    """``--sweep-values``: one crawler at two values of its knob, through the command line; the
    curve, its table and its plot; ``--budgets`` in the plan."""
    out = tmp_path / "sweep"
    bench(corpus, out, "--crawlers", "hubs", "--sweep-values", "hubs=0,900", "--repeats", "1",
          "--duration", "5", "--speed", "600", "--budget", "40", timeout=120)
    results = json.loads((out / "results.json").read_text())
    assert list(results["crawlers"]) == ["hubs", "hubs@interval=900"]
    points = {p["key"]: p for p in results["curves"]["hubs"]}
    # a hub polled at most every 15 simulated minutes: far fewer requests than as fast as allowed
    assert points["hubs@interval=900"]["requests"] < 0.5 * points["hubs"]["requests"]
    assert "## Curves" in (out / "results.md").read_text()
    assert (out / "sweep.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "runs" / "hubs@interval=900-r0" / "items.jsonl").exists()
    # --merge: the runs judged again (with the lag split) and pooled; the same benchmark twice
    # is two repeats of each variant
    merged = tmp_path / "merged"
    assert cli.main(["bench", "--merge", str(out), str(out), "--out", str(merged)]) == 0
    again = json.loads((merged / "results.json").read_text())
    assert again["crawlers"]["hubs@interval=900"]["runs"] == {"ok": 2, "failed": 0}
    assert again["crawlers"]["hubs"]["requests"]["std"] == 0.0
    assert again["crawlers"]["hubs"]["lag_split"]["fetch_median"]["n"] == 2
    assert (merged / "sweep.png").exists() and "## Where the lag comes from" in (merged / "results.md").read_text()
    other = json.loads((out / "results.json").read_text())
    other["settings"]["speed"] = 300.0
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "results.json").write_text(json.dumps(other))
    capsys.readouterr()
    assert cli.main(["bench", "--merge", str(out), str(tmp_path / "other"), "--out", str(merged)]) == 2
    assert "has another speed" in capsys.readouterr().err
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path / "b"), "--crawlers",
                     "scheduled,oracle", "--budgets", "20,2", "--repeats", "1", "--dry-run"]) == 0
    plan = capsys.readouterr().out
    assert plan.startswith("bench plan: 1 repeat(s) x 4 variant(s) of 2 crawler(s) = 4 runs")
    assert "run 2: scheduled@budget=2 repeat 0" in plan and "FORAGERS_HOST_RATE=2 " in plan


def test_a_topical_bench_end_to_end(corpus, tmp_path):
    """``--topic``: the scheduled colony and best_first given the section's words, bfs and the
    colony's reference run (scheduled@no-topic) not; the topic's measures, table, targets and
    plot; the same files judged again give the same."""
    out = tmp_path / "topic"
    done = bench(corpus, out, "--topic", "politics", "--crawlers", "scheduled,best_first,bfs",
                 "--repeats", "1", "--duration", "4", "--speed", "600", "--budget", "40", timeout=170)
    assert "run 2/5 scheduled@no-topic-r0: ok" in done.stderr
    assert "run 3/5 scheduled@cosine-r0: ok" in done.stderr
    assert "run 4/5 best_first-r0: ok" in done.stderr and "harvest rate" in done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["settings"]["topic"] == "politics"
    assert results["settings"]["topic_text"].startswith("the parliament the senate")
    runs = {r["key"]: r for r in results["runs"]}
    assert "'topic=the parliament" in runs["best_first"]["argv"]
    assert "'topic=the parliament" in runs["scheduled"]["argv"] and "topic=" not in runs["bfs"]["argv"]
    assert "topic=" not in runs["scheduled@no-topic"]["argv"]
    # the papers' relevance beside the learned one (issue 32)
    assert "'topic=the parliament" in runs["scheduled@cosine"]["argv"]
    assert "FORAGERS_TOPIC_FEEDBACK=off" in runs["scheduled@cosine"]["argv"]
    for name in ("scheduled", "scheduled@no-topic", "best_first", "bfs"):
        topic = results["crawlers"][name]["topic"]
        assert topic["requests"]["mean"] > 0, name
        assert 0 <= topic["harvest_rate"]["mean"] <= 1, name
        assert set(topic["recall_at_requests"]) == {"mean", "std", "n"}, name
        measures = runs[name]["topic"]
        assert measures["relevant_fetched"] <= measures["requests"]
        assert measures["topic_found"] <= measures["topic_window_articles"]
        assert runs[name]["series"]["topic"]["harvest"]
    # bfs outputs every novel document it finds: the topic's share of them is its precision
    bfs = runs["bfs"]["topic"]
    assert bfs["output"] > 0 and bfs["topic_precision"] == bfs["topic_output"] / bfs["output"]
    assert results["topic"]["at_requests"] == min(
        results["crawlers"][name]["topic"]["requests"]["mean"] for name in runs)
    assert [row["target"] for row in results["targets"]] == [
        "harvest rate > bfs", "harvest rate ≥ best_first", "topic recall ≥ 0.9",
        "topic lag ≤ without the topic"]
    text = (out / "results.md").read_text()
    assert "## Topic `politics`" in text and "| `best_first` | 1/1 |" in text
    assert (out / "topic.png").read_bytes()[:4] == b"\x89PNG"
    # the same run files give the same topic measures and series
    config = BenchConfig.from_dict(results["settings"])
    site = prepare_site(config)
    for run in plan_runs(config):
        again = json.loads(json.dumps(evaluate_files(config, run, out / "runs" / run.name, site.changes)))
        assert again["topic"] == runs[run.key]["topic"]
        assert again["series"]["topic"] == runs[run.key]["series"]["topic"]


def test_a_topic_described_by_examples_end_to_end(corpus, tmp_path):
    """``--topic-words examples``: the titles of the section's articles published before the
    window are written to OUT/topic.txt, and best_first reads its topic from that file
    (``-a topic=@FILE``), the path a user takes with a longer topic."""
    out = tmp_path / "examples"
    bench(corpus, out, "--topic", "politics", "--topic-words", "examples", "--crawlers",
          "best_first", "--repeats", "1", "--duration", "5", "--speed", "600", "--budget", "40",
          "--no-plots", timeout=120)
    results = json.loads((out / "results.json").read_text())
    titles = (out / "topic.txt").read_text(encoding="utf-8").splitlines()
    assert titles and results["settings"]["topic_text"].splitlines() == titles
    assert results["settings"]["topic_words"] == "examples"
    assert results["topic"]["words"] == "examples"
    run = results["runs"][0]
    assert run["status"] == "ok" and "'topic=@$OUT/topic.txt'" in run["argv"]
    assert run["topic"]["requests"] > 0
    assert (f"`-a topic=@topic.txt`, the titles of the section's {len(titles)} articles published "
            "before the window") in (out / "results.md").read_text()
