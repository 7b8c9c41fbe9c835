"""newsforagers.evaluation.bench.summary: the means over successful runs and the targets."""

from __future__ import annotations

import pytest

from newsforagers.evaluation.bench.summary import METRIC_KEYS, targets
from tests.evaluation.bench.samples import RECORDS, summary_of


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
