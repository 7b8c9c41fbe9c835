"""newsforagers.evaluation.bench.sweep: each crawler's variants (knob values, budgets), their
runs and commands, the curves, a crawler's lag read off another's curve, issue 19's targets,
the sweep's tables and plots."""

from __future__ import annotations

import pytest

from newsforagers.evaluation.bench.config import BenchConfig, BenchError
from newsforagers.evaluation.bench.plan import crawl_argv, plan_runs, run_identity, run_keys
from newsforagers.evaluation.bench.report import results_markdown
from newsforagers.evaluation.bench.summary import summarise
from newsforagers.evaluation.bench.sweep import (
    KNOBS,
    at_efficiency,
    cross_table,
    curves,
    sweep_targets,
    variants,
)
from tests.evaluation.bench.samples import MONDAY_7, metrics

URL = "http://127.0.0.1:1234/"


def test_a_sweep_runs_each_knob_value_with_the_default_under_the_crawler_s_name():
    found = variants("scheduled", sweep=True)
    assert [v.key for v in found] == ["scheduled", "scheduled@yield=0.05", "scheduled@yield=0.1",
                                      "scheduled@yield=1", "scheduled@yield=3"]
    assert found[0].settings == () and found[1].settings == (("FORAGERS_SCHEDULE_POLL_YIELD", "0.05"),)
    adaptive = {v.key: v for v in variants("adaptive", sweep=True)}
    assert adaptive["adaptive@scale=0.5"].args == (
        ("initial_interval", "300"), ("min_interval", "30"), ("max_interval", "1800"))
    hubs = variants("hubs", values={"hubs": (600.0, 0.0)})
    assert [(v.key, v.args) for v in hubs] == [("hubs", ()), ("hubs@interval=600", (("interval", "600"),))]
    # given values without the default: the default runs all the same (the targets read it)
    assert [v.key for v in variants("hubs", values={"hubs": (300.0,)})] == ["hubs", "hubs@interval=300"]
    # no knob, or no sweep: one point
    assert [v.key for v in variants("oracle", sweep=True)] == ["oracle"]
    assert [v.key for v in variants("scheduled")] == ["scheduled"]
    assert set(KNOBS) == {"scheduled", "adaptive", "feeds", "hubs"}


def test_a_budget_sweep_runs_each_budget_the_bench_s_own_first():
    found = variants("adaptive", budgets=(5.0, 20.0, 1.5), budget=20.0)
    assert [(v.key, v.budget) for v in found] == [
        ("adaptive", 20.0), ("adaptive@budget=5", 5.0), ("adaptive@budget=1.5", 1.5)]
    # the bench's budget is not among them: every point labelled
    assert [v.key for v in variants("oracle", budgets=(2.0,), budget=20.0)] == ["oracle@budget=2"]


def test_the_plan_and_commands_of_a_sweep(tmp_path):
    config = BenchConfig(corpus="c", out=str(tmp_path), repeats=2, crawlers=("scheduled", "hubs"),
                         sweep_values=(("scheduled", (0.1,)), ("hubs", (900.0,))), budget=15,
                         settings=(("FORAGERS_SCHEDULE_POLL_YIELD", "0.5"),)).validate()
    plan = plan_runs(config)
    assert [r.name for r in plan] == [
        "scheduled-r0", "scheduled@yield=0.1-r0", "hubs-r0", "hubs@interval=900-r0",
        "scheduled-r1", "scheduled@yield=0.1-r1", "hubs-r1", "hubs@interval=900-r1"]
    assert run_keys(config) == ["scheduled", "scheduled@yield=0.1", "hubs", "hubs@interval=900"]
    swept = crawl_argv(config, plan[1], URL, tmp_path / "s")
    # the knob comes after --set, so it wins
    assert swept.index("FORAGERS_SCHEDULE_POLL_YIELD=0.1") > swept.index("FORAGERS_SCHEDULE_POLL_YIELD=0.5")
    assert "FORAGERS_SCHEDULE_POLL_YIELD=0.1" not in crawl_argv(config, plan[0], URL, tmp_path / "d")
    hubs = crawl_argv(config, plan[3], URL, tmp_path / "h")
    assert "interval=900" in hubs and "rate=15" in hubs
    assert run_identity(config, plan[3]) == {
        "crawler": "hubs", "key": "hubs@interval=900", "variant": "interval=900", "knob": "interval",
        "knob_value": 900.0, "budget": 15, "repeat": 0, "seed": 1}
    budgets = BenchConfig(corpus="c", out=str(tmp_path), repeats=1, crawlers=("scheduled", "oracle"),
                          budgets=(20.0, 2.0), budget=20).validate()
    runs = plan_runs(budgets)
    argvs = {r.key: crawl_argv(budgets, r, URL, tmp_path / r.name) for r in runs}
    assert "FORAGERS_HOST_RATE=2" in argvs["scheduled@budget=2"]
    assert "FORAGERS_HOST_RATE=20" in argvs["scheduled"]
    assert "rate=2" in argvs["oracle@budget=2"] and "rate=20" in argvs["oracle"]


@pytest.mark.parametrize("kwargs,message", [
    ({"budgets": (2.0, 0.0)}, "--budgets"),
    ({"budgets": (2.0, 2.0)}, "names a budget twice"),
    ({"budgets": (2.0,), "sweep": True}, "choose one"),
    ({"sweep_values": (("oracle", (1.0,)),)}, "has no cost knob"),
    ({"sweep_values": (("hubs", (-1.0,)),)}, "0 or more"),
    ({"sweep_values": (("adaptive", (1.0,)),), "crawlers": ("hubs",)}, "not among --crawlers"),
    ({"crawlers": ("feeds",)}, "--feeds SHARE"),
    ({"crawlers": ("feeds",), "feeds": 1.5}, "between 0 and 1"),
])
def test_bad_sweeps_are_refused(kwargs, message):
    kwargs = {"crawlers": ("hubs",), **kwargs}
    with pytest.raises(BenchError, match=message):
        BenchConfig(corpus="c", out="o", **kwargs).validate()


def _record(key: str, repeat: int, **values) -> dict:
    crawler, _, label = key.partition("@")
    return {"crawler": crawler, "key": key, "variant": label, "repeat": repeat, "seed": 1,
            "status": "ok", "problems": [], "metrics": metrics(**values), "series": {}}


# adaptive: three points; scheduled: its default and one more; oracle: one point
SWEEP = [
    _record("adaptive", 0, recall=1.0, lag_median=4.0, lag_p90=16.0, download_efficiency=0.20,
            requests=1250, window_articles=250),
    _record("adaptive", 1, recall=1.0, lag_median=5.0, lag_p90=18.0, download_efficiency=0.20,
            requests=1250, window_articles=250),
    _record("adaptive@scale=0.5", 0, recall=1.0, lag_median=3.0, lag_p90=10.0,
            download_efficiency=0.10, requests=2500, window_articles=250),
    _record("adaptive@scale=2", 0, recall=0.99, lag_median=10.0, lag_p90=30.0,
            download_efficiency=0.40, requests=625, window_articles=250),
    _record("scheduled", 0, recall=0.98, lag_median=3.0, lag_p90=12.0, download_efficiency=0.30,
            requests=830, window_articles=250),
    _record("scheduled@yield=0.1", 0, recall=1.0, lag_median=2.0, lag_p90=8.0,
            download_efficiency=0.15, requests=1660, window_articles=250),
    _record("oracle", 0, recall=1.0, lag_median=0.1, lag_p90=0.5, download_efficiency=0.99,
            requests=252, window_articles=250),
]


def _sweep_results(records=SWEEP):
    config = BenchConfig(corpus="c.jsonl", out="o", repeats=2, crawlers=("adaptive", "scheduled", "oracle"),
                         sweep_values=(("adaptive", (0.5, 1.0, 2.0)), ("scheduled", (0.1,))))
    return summarise(config, {"start": MONDAY_7, "articles": 300}, records, ["newsforagers", "bench"])


def test_curves_are_sorted_by_efficiency_with_requests_per_story():
    found = curves(SWEEP, _sweep_results()["crawlers"])
    assert [p["key"] for p in found["adaptive"]] == ["adaptive@scale=0.5", "adaptive", "adaptive@scale=2"]
    default = found["adaptive"][1]
    assert default["default"] and default["lag_median"] == 4.5 and default["requests_per_story"] == 5.0
    assert default["lag_median_std"] == pytest.approx(0.5 ** 0.5)
    assert [p["key"] for p in found["oracle"]] == ["oracle"]


def test_a_lag_is_read_off_a_curve_between_its_points_and_never_beyond():
    points = curves(SWEEP, _sweep_results()["crawlers"])["adaptive"]
    # between (0.20, 4.5) and (0.40, 10.0): at 0.30 halfway, 7.25
    assert at_efficiency(points, 0.30, "lag_median") == pytest.approx(7.25)
    # between (0.10, 3.0) and (0.20, 4.5): at 0.15, 3.75; p90 between 10 and 17: 13.5
    assert at_efficiency(points, 0.15, "lag_median") == pytest.approx(3.75)
    assert at_efficiency(points, 0.15, "lag_p90") == pytest.approx(13.5)
    assert at_efficiency(points, 0.20, "lag_median") == pytest.approx(4.5)  # a point: its value
    assert at_efficiency(points, 0.05, "lag_median") is None
    assert at_efficiency(points, 0.45, "lag_median") is None


def test_issue_19_targets_compare_scheduled_with_adaptive_s_curve_at_its_efficiency():
    results = _sweep_results()
    rows = {r["target"]: r for r in results["targets"] if r["target"].endswith("equal efficiency")
            or r["target"] == "recall ≥ 0.97"}
    # scheduled's default: efficiency 0.30, where adaptive's curve says 7.25 / 23.5
    median = rows["median lag ≤ 0.5 × adaptive at equal efficiency"]
    assert median["bound"] == pytest.approx(3.625) and median["value"] == 3.0 and median["met"] is True
    p90 = rows["p90 lag ≤ adaptive at equal efficiency"]
    assert p90["bound"] == pytest.approx(23.5) and p90["met"] is True
    assert rows["recall ≥ 0.97"]["met"] is True
    # scheduled slower than half of adaptive there: not met
    slower = [r for r in SWEEP if r["key"] != "scheduled"] + [
        _record("scheduled", 0, recall=0.9, lag_median=5.0, lag_p90=30.0, download_efficiency=0.30,
                requests=830, window_articles=250)]
    rows = {r["target"]: r["met"] for r in _sweep_results(slower)["targets"]}
    assert rows["median lag ≤ 0.5 × adaptive at equal efficiency"] is False
    assert rows["p90 lag ≤ adaptive at equal efficiency"] is False
    assert rows["recall ≥ 0.97"] is False
    # outside adaptive's curve: not measured
    far = curves(SWEEP, _sweep_results()["crawlers"])
    far["scheduled"] = [dict(far["scheduled"][-1], download_efficiency=0.9)]
    assert [r["met"] for r in sweep_targets(far, "hard")][1:] == [None, None]


def test_the_cross_table_and_the_markdown():
    results = _sweep_results()
    rows = {(r["crawler"], r["at"]): r for r in cross_table(results["curves"])}
    assert rows[("adaptive", "scheduled")]["lag_median"] == pytest.approx(7.25)
    # scheduled's curve spans 0.15..0.30: adaptive's 0.20 is inside, the oracle's 0.99 is not
    assert rows[("scheduled", "adaptive")]["lag_median"] == pytest.approx(2.0 + (0.05 / 0.15) * 1.0)
    assert rows[("scheduled", "oracle")]["lag_median"] is None
    assert ("oracle", "adaptive") not in rows  # one point: no curve
    text = results_markdown(results)
    assert "## Curves" in text and "## Lag at equal efficiency" in text
    assert "| `adaptive` | scale=0.5 | 1.000 | 3.0 | 10.0 | 0.1000 | 2500 | 10.00 |" in text
    assert "median lag ≤ 0.5 × adaptive at equal efficiency" in text


def test_the_sweep_and_budget_plots(tmp_path):
    pytest.importorskip("matplotlib")
    from newsforagers.evaluation.plots import plot_results

    results = _sweep_results()
    written = plot_results(results, tmp_path / "sweep")
    assert "sweep.png" in written and "budgets.png" not in written
    assert (tmp_path / "sweep" / "sweep.png").read_bytes()[:4] == b"\x89PNG"
    budgets = dict(results, settings=dict(results["settings"], budgets=[20.0, 2.0], sweep_values={}))
    written = plot_results(budgets, tmp_path / "budgets")
    assert "budgets.png" in written and "sweep.png" not in written


def test_recall_and_lag_are_read_off_at_another_crawler_s_requests():
    results = _sweep_results()
    rows = {(r["crawler"], r["at"]): r["at_requests"] for r in results["at_efficiency"]}
    # adaptive's curve by requests: 625 → (0.99, 10.0), 1250 → (1.0, 4.5), 2500 → (1.0, 3.0);
    # scheduled's default made 830 requests: 205/625 of the way from 625 to 1250
    at = rows[("adaptive", "scheduled")]
    assert at["requests"] == 830
    assert at["lag_median"] == pytest.approx(10.0 - (205 / 625) * 5.5)
    assert at["recall"] == pytest.approx(0.99 + (205 / 625) * 0.01)
    assert at["reference_recall"] == 0.98 and at["reference_lag_median"] == 3.0
    assert "## Recall and lag at equal requests" in results_markdown(results)
