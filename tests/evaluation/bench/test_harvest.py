"""newsforagers.evaluation.bench.harvest: a topical benchmark's measures on a hand-built run
whose every value is counted by hand (docs/bench.md, *Topics*)."""

from __future__ import annotations

import pytest

from newsforagers.evaluation.bench.harvest import (
    TOPIC_KEYS,
    recall_at_requests,
    topic_measures,
    topic_series,
    topic_targets,
)
from newsforagers.evaluation.metrics import as_time
from tests.evaluation.bench.samples import TOPIC_RECORDS, topic_summary_of

HOST = "http://127.0.0.1:8080"


def t(clock: str) -> str:
    return f"2024-01-02T{clock}:00+00:00"


def req(clock: str, path: str) -> dict:
    return {"sim_time": t(clock), "wall_time": 0.0, "path": path, "status": 200, "forager": "f1"}


def item(path: str, found: str) -> dict:
    return {"url": HOST + path, "found_at": t(found)}


# The topic "solar": /a/, /b/, /d/, /ü/ published in the window (10:00 to 12:00), /e/ before
# it, /f/ after it; /c/ and /g/ are another section's.
TRUTH = [
    {"path": "/a/", "published": t("10:00"), "sections": ["solar"]},
    {"path": "/b/", "published": t("10:30"), "sections": ["energy", "solar"]},
    {"path": "/c/", "published": t("11:00"), "sections": ["wind"]},
    {"path": "/d/", "published": t("11:30"), "sections": ["solar"]},
    {"path": "/e/", "published": t("09:00"), "sections": ["solar"]},
    {"path": "/f/", "published": t("12:30"), "sections": ["solar"]},
    {"path": "/g/", "published": t("10:45"), "sections": ["wind"]},
    {"path": "/ü/", "published": t("10:50"), "sections": ["solar"]},
    {"path": "/h/", "published": t("10:20")},  # no sections: in no topic
]

LOG = [
    req("10:00", "/robots.txt"),  # 1
    req("10:01", "/"),  # 2
    req("10:05", "/a/"),  # 3: a topic document
    req("10:10", "/e/"),  # 4: one too, of any date
    req("10:35", "/a/"),  # 5: fetched again: not harvested again
    req("10:40", "/b/"),  # 6: a topic document
    req("10:50", "/c/"),  # 7
    req("10:55", "/%C3%BC/"),  # 8: /ü/ as a crawler spells it
    req("11:40", "/"),  # 9
    req("12:00", "/g/"),  # 10
]

ITEMS = [item("/a/", "10:05"), item("/e/", "10:10"), item("/b/", "10:40"), item("/c/", "10:50"),
         item("/%C3%BC/", "10:55"), item("/zzz/", "11:00")]


def test_harvest_rate_topic_recall_and_precision_counted_by_hand():
    measures = topic_measures(TRUTH, LOG, ITEMS, "solar")
    assert list(measures) == list(TOPIC_KEYS)
    # harvest: a, e, b, ü fetched (a twice, harvested once) in 10 requests
    assert measures["relevant_fetched"] == 4 and measures["requests"] == 10
    assert measures["harvest_rate"] == pytest.approx(0.4)
    # recall: of a, b, d, ü (published in the window), a, b and ü were output as novel
    assert measures["topic_window_articles"] == 4 and measures["topic_found"] == 3
    assert measures["topic_recall"] == pytest.approx(0.75)
    assert measures["topic_lag_median"] == pytest.approx(5.0)  # lags 5, 10, 5 minutes
    # fetch lag: of a, b, d, ü, fetched first at 10:05, 10:40, never, 10:55 (a's second fetch,
    # and e, older than the window, do not count): 5, 10 and 5 minutes — output or not
    assert measures["topic_fetched"] == 3
    assert measures["topic_fetch_lag_median"] == pytest.approx(5.0)
    assert measures["topic_fetch_lag_p90"] == pytest.approx(9.0)  # 5, 5, 10: 5 + 0.8 × 5
    # b not output (a crawler that judged it off the topic): not found, fetched all the same
    unsent = topic_measures(TRUTH, LOG, [i for i in ITEMS if i["url"] != HOST + "/b/"], "solar")
    assert (unsent["topic_found"], unsent["topic_fetched"]) == (2, 3)
    assert unsent["topic_fetch_lag_p90"] == pytest.approx(9.0)
    # precision: a, e, b, ü of the 6 items output are the topic's
    assert measures["topic_output"] == 4 and measures["output"] == 6
    assert measures["topic_precision"] == pytest.approx(4 / 6)


def test_a_window_and_an_empty_run():
    # 10:30 to 11:00: requests 5-8, of which a, b and ü are topic documents (a's first fetch
    # in the window); b and ü published in it
    window = (as_time(t("10:30")), as_time(t("11:00")))
    measures = topic_measures(TRUTH, LOG, ITEMS, "solar", window)
    assert (measures["requests"], measures["relevant_fetched"]) == (4, 3)
    assert measures["harvest_rate"] == pytest.approx(0.75)
    assert (measures["topic_window_articles"], measures["topic_found"]) == (2, 2)
    assert measures["topic_fetched"] == 2 and measures["topic_fetch_lag_p90"] == pytest.approx(9.5)  # 5, 10
    # no request: no window, nothing to divide by, but the output still has a precision
    empty = topic_measures(TRUTH, [], ITEMS[:2], "solar")
    assert empty["harvest_rate"] is None and empty["topic_recall"] is None
    assert empty["topic_precision"] == 1.0 and empty["requests"] == 0
    assert empty["topic_fetch_lag_median"] is None and empty["topic_fetched"] == 0
    assert topic_measures(TRUTH, LOG, [], "solar")["topic_precision"] is None
    assert topic_measures(TRUTH, LOG, ITEMS, "none")["harvest_rate"] == 0.0


def test_series_per_window_and_requests_by_each_find():
    window = (as_time(t("10:00")), as_time(t("12:00")))
    series = topic_series(TRUTH, LOG, ITEMS, "solar", window, 3600.0)
    # the first hour: requests 1-8, a, e, b, ü first fetched; the second: 11:40 and 12:00
    assert series["harvest"] == [[0.0, 8, 4], [60.0, 2, 0]]
    # a found at 10:05 (3 requests by then), b at 10:40 (6), ü at 10:55 (8); e is older
    assert series["found_requests"] == [3, 6, 8]


def test_recall_at_requests():
    assert recall_at_requests([3, 6, 8], 4, 6) == 0.5
    assert recall_at_requests([3, 6, 8], 4, 5.5) == 0.25
    assert recall_at_requests([3, 6, 8], 4, 2) == 0.0
    assert recall_at_requests([3, 6, 8], 0, 6) is None
    assert recall_at_requests([3, 6, 8], 4, None) is None


def test_summary_reads_recall_at_the_fewest_requests_and_judges_the_targets():
    results = topic_summary_of(TOPIC_RECORDS)
    # mean requests: scheduled 15, bfs 6: recall at 6 requests
    assert results["topic"] == {"section": "solar", "text": "solar energy", "at_requests": 6.0,
                                "words": "name"}
    scheduled, bfs = (results["crawlers"][name]["topic"] for name in ("scheduled", "bfs"))
    assert scheduled["harvest_rate"]["mean"] == pytest.approx(0.3)
    # scheduled: 2 of 4 by request 6, then 1 of 4; bfs: 2 of 4
    assert scheduled["recall_at_requests"] == {"mean": 0.375, "std": pytest.approx(0.1767767), "n": 2}
    assert bfs["recall_at_requests"] == {"mean": 0.5, "std": 0.0, "n": 1}
    assert bfs["topic_precision"]["mean"] == 0.25
    rows = {row["target"]: row for row in results["targets"]}
    assert list(rows) == ["harvest rate > bfs", "harvest rate ≥ best_first", "topic recall ≥ 0.9",
                          "topic lag ≤ without the topic"]
    assert rows["harvest rate > bfs"]["met"] is True  # 0.3 > 0.1
    assert rows["harvest rate ≥ best_first"]["met"] is None  # best_first did not run
    assert rows["topic recall ≥ 0.9"]["met"] is False  # 0.75
    assert rows["topic lag ≤ without the topic"]["met"] is None  # scheduled@no-topic did not run
    assert topic_targets("hard", results["crawlers"], ("wlrl",)) == []


def test_the_topic_lag_is_judged_against_the_colony_without_the_topic():
    def crawler(lag):
        return {"topic": {"topic_lag_median": {"mean": lag, "std": 0.0, "n": 3}}}

    for lag, reference, met in ((2.0, 2.5, True), (2.5, 2.5, True), (3.0, 2.5, False)):
        rows = topic_targets("hard", {"scheduled": crawler(lag), "scheduled@no-topic": crawler(reference)},
                             ("scheduled",))
        row = next(r for r in rows if r["metric"] == "topic_lag_median")
        assert (row["value"], row["bound"], row["met"]) == (lag, reference, met)
        assert row["reference"] == "scheduled@no-topic topic lag"


def test_the_topic_plot(tmp_path):
    pytest.importorskip("matplotlib")
    from newsforagers.evaluation.plots import plot_results, plot_topic

    records = [dict(r) for r in TOPIC_RECORDS]
    for r in records:
        r["key"] = r["crawler"]
        r["series"] = {**r["series"], "width_minutes": 60.0,
                       "topic": {**r["series"]["topic"], "harvest": [[0.0, 8, 4], [60.0, 2, 0]]}}
    results = topic_summary_of(records)
    assert "topic.png" in plot_results(results, tmp_path)
    assert (tmp_path / "topic.png").read_bytes()[:4] == b"\x89PNG"
    assert plot_topic({**results, "topic": None}, tmp_path / "none.png") is None
