"""The benchmark's measures on hand-built runs whose every value is known."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from newsforagers.evaluation.metrics import (
    RESULT_KEYS,
    aggregate,
    article_changes,
    classify_items,
    item_path,
    percentile,
    run_metrics,
    run_window,
)

DAY = "2024-01-02"
HOST = "http://127.0.0.1:8080"


def t(clock: str, day: str = DAY) -> str:
    return f"{day}T{clock}:00+00:00"


def ts(clock: str, day: str = DAY) -> float:
    return datetime.fromisoformat(t(clock, day)).timestamp()


def req(clock: str, path: str, forager: str = "f1", status: int = 200) -> dict:
    return {"sim_time": t(clock), "wall_time": 0.0, "method": "GET", "path": path,
            "status": status, "bytes": 100, "forager": forager}


def item(path: str, found: str | None, day: str = DAY, **extra) -> dict:
    return {"url": HOST + path, "title": path, "published": None,
            "found_at": None if found is None else t(found, day), "forager": "f1", **extra}


TRUTH = [
    {"path": "/a/", "published": t("10:00")},
    {"path": "/b/", "published": t("10:30")},
    {"path": "/c/", "published": t("11:00")},
    {"path": "/d/", "published": t("11:30")},
    {"path": "/e/", "published": t("09:00")},  # before the window, still news in it
    {"path": "/f/", "published": t("10:00", "2023-12-30")},  # days old
    {"path": "/broken/"},  # no publication time: counted, skipped
    "not a record",
]

LOG = [
    req("09:59", "/"),  # before the window
    req("10:00", "/robots.txt"),
    req("10:01", "/"),
    req("10:06", "/a/"),
    req("10:10", "/e/", "f2"),
    req("10:20", "/f/"),
    req("10:30", "/a/", "g1"),  # another run sharing the replay
    req("10:40", "/b/", "f2"),
    req("11:00", "/"),
    req("11:20", "/d/", status=404),
    req("11:30", "/c/"),
    req("11:50", "/c/", "f2", status=304),  # a refreshed copy: still current
    req("12:01", "/b/"),  # after the window
    {"sim_time": "garbage", "path": "/", "forager": "f1"},
    "not a record",
]

ITEMS = [
    item("/a/", "10:06"),  # novel, lag 6
    item("/b/", "10:40"),  # novel, lag 10
    item("/a/", "10:50"),  # duplicate
    item("/e/", "10:10"),  # novel (published before the window: no recall, no lag)
    item("/x/", "10:15"),  # unknown
    item("/f/", "10:20"),  # late: older than 24 h
    item("/c/", "11:30"),  # novel, lag 30
    {"url": None, "found_at": t("11:00")},  # malformed
    item("/d/", "11:20"),  # early: 10 minutes before its publication (skew 5 min)
]

WINDOW = (t("10:00"), t("12:00"))
CHANGES = {"/a/": [ts("10:30")], "/b/": [ts("12:30")], "/c/": [ts("11:45")]}
FORAGERS = {"f1", "f2"}


def test_every_metric_of_a_hand_built_run():
    m = run_metrics(TRUTH, LOG, ITEMS, WINDOW, foragers=FORAGERS, changes=CHANGES)
    assert list(m)[:len(RESULT_KEYS)] == list(RESULT_KEYS)
    assert m["window_articles"] == 4  # a, b, c, d
    assert m["recall"] == 0.75  # a, b, c (d was output "early": not credible)
    assert m["lag_median"] == 10.0
    assert m["lag_p90"] == pytest.approx(10 + 0.8 * 20)  # linear between 10 and 30
    assert m["lag_mean"] == pytest.approx(46 / 3)
    # requests of f1 and f2 in [10:00, 12:00]: 10, over 8 distinct paths
    assert m["requests"] == 10
    assert m["found_urls"] == 8
    assert m["relative_found_urls"] == 0.8
    # novel documents found in the window: a, b, e, c
    assert m["novel"] == m["found_relevant"] == 4
    assert m["download_efficiency"] == 0.4
    # no agent counts: every output is a send (8 found in the window + 1 malformed)
    assert m["sent_efficiency"] == pytest.approx(4 / 9)
    # a changed at 10:30 after its only copy (10:06): obsolete for 90 minutes at 12:00;
    # c changed at 11:45 but the 304 at 11:50 refreshed it; b changes after the window; e never
    assert m["freshness"] == 0.75
    assert m["age"] == pytest.approx(90 / 4)
    # 7 of the 8 pages were requested by one forager only (/c/ by both)
    assert m["compartmentalisation"] == 0.875
    assert m["invalid"] == {"malformed": 1, "unknown": 1, "duplicate": 1, "late": 1, "early": 1}
    assert m["output"] == len(ITEMS)
    assert m["bad_truth"] == 2 and m["bad_log"] == 2
    json.dumps(m)  # results.json-ready


def test_agent_counts_give_the_sent_efficiency():
    counts = {"f1": {"sent": 8, "rewarded": 2}, "f2": {"sent": 2, "rewarded": 2},
              "f3": "garbage", "f4": {"sent": "x"}}
    m = run_metrics(TRUTH, LOG, ITEMS, WINDOW, foragers=FORAGERS, counts=counts)
    assert m["sent_efficiency"] == 0.4
    zero = run_metrics(TRUTH, LOG, ITEMS, WINDOW, counts={"f1": {"sent": 0, "rewarded": 0}})
    assert zero["sent_efficiency"] is None


def test_without_changes_every_found_article_is_current():
    m = run_metrics(TRUTH, LOG, ITEMS, WINDOW, foragers=FORAGERS)
    assert m["freshness"] == 1.0 and m["age"] == 0.0


def test_a_copy_is_at_least_the_one_output():
    # a found article the log never shows (another log, a shared download): its copy is found_at
    m = run_metrics(TRUTH, [], [item("/c/", "11:50")], WINDOW, changes=CHANGES)
    assert m["freshness"] == 1.0 and m["requests"] == 0 and m["download_efficiency"] is None
    m = run_metrics(TRUTH, [], [item("/c/", "11:40")], WINDOW, changes=CHANGES)
    assert m["freshness"] == 0.0 and m["age"] == 15.0


def test_the_forager_filter_picks_the_run_from_a_shared_log():
    alone = run_metrics(TRUTH, LOG, [], WINDOW, foragers="g1")
    assert alone["requests"] == 1 and alone["found_urls"] == 1
    everyone = run_metrics(TRUTH, LOG, [], WINDOW)
    assert everyone["requests"] == 11
    assert everyone["compartmentalisation"] == pytest.approx(6 / 8)  # /a/: f1 and g1 too


def test_default_window_is_the_runs_first_to_last_request():
    start, end = run_window(LOG, FORAGERS)
    assert start == datetime(2024, 1, 2, 9, 59, tzinfo=UTC) and end == datetime.fromisoformat(t("12:01"))
    m = run_metrics(TRUTH, LOG, ITEMS, foragers=FORAGERS)
    assert m["requests"] == 12 and m["window_articles"] == 4
    # the start is floored to the second: a Date header (found_at) has whole seconds
    log = [{**req("10:00", "/"), "sim_time": "2024-01-02T10:00:00.700000+00:00"}, req("10:10", "/a/")]
    start, _ = run_window(log)
    assert start == datetime(2024, 1, 2, 10, 0, tzinfo=UTC)
    assert run_metrics(TRUTH, log, [item("/a/", "10:00")])["novel"] == 1


def test_an_empty_run_is_reported_not_an_error():
    m = run_metrics(TRUTH, [], [], WINDOW)
    assert m["recall"] == 0.0 and m["window_articles"] == 4
    assert m["lag_median"] is None and m["lag_p90"] is None
    assert m["download_efficiency"] is None and m["sent_efficiency"] is None
    assert m["found_urls"] == 0 and m["relative_found_urls"] is None and m["requests"] == 0
    assert m["freshness"] is None and m["age"] is None
    nothing = run_metrics([], [], [])  # no window at all
    assert set(RESULT_KEYS) <= set(nothing) and nothing["recall"] is None
    assert nothing["requests"] == 0 and nothing["found_urls"] == 0
    json.dumps(nothing)
    quiet = run_metrics(TRUTH, [], [], (t("13:00"), t("14:00")))  # nothing published then
    assert quiet["recall"] is None and quiet["window_articles"] == 0


def test_bad_items_are_counted():
    bad = [
        "not an item", {"url": 42, "found_at": t("10:10")},
        {"url": HOST + "/a/", "found_at": "2024-01-02T10:10:00"},  # naive: no offset
        {"url": HOST + "/a/"},  # no found_at
        item("/a/", "10:00", day="2024-01-03"),  # found exactly 24 h after publication
        item("/b/", "10:31", day="2024-01-03"),  # 24 h and a minute: late
        item("/nowhere/", "10:10"),
    ]
    novel, invalid = classify_items(bad, {"/a/": datetime.fromisoformat(t("10:00")),
                                          "/b/": datetime.fromisoformat(t("10:30"))})
    assert [p for p, _, _ in novel] == ["/a/"]  # 24 h exactly is still news
    assert invalid == {"malformed": 4, "late": 1, "unknown": 1}
    m = run_metrics(TRUTH, LOG, bad, WINDOW, foragers=FORAGERS)
    # /a/ was found as news (24 h after it appeared), but after the window: recalled, with its
    # lag, yet not one of the window's finds (download efficiency)
    assert m["recall"] == 0.25 and m["lag_median"] == 24 * 60.0
    assert m["novel"] == 0 and m["download_efficiency"] == 0.0
    assert m["invalid"]["malformed"] == 4


def test_lag_is_never_negative_within_the_skew():
    # found 2 minutes "before" publication: clocks disagree a little (skew 5 min); lag 0
    m = run_metrics(TRUTH, [], [item("/b/", "10:28")], WINDOW)
    assert m["recall"] == 0.25 and m["lag_median"] == 0.0
    strict = run_metrics(TRUTH, [], [item("/b/", "10:28")], WINDOW, skew=timedelta(0))
    assert strict["recall"] == 0.0 and strict["invalid"]["early"] == 1


def test_item_paths_match_the_truths_spelling():
    truth = [{"path": "/ünï/", "published": t("10:00")},
             {"path": "/story?id=7", "published": t("10:00")}]
    items = [{"url": HOST + "/%C3%BCn%C3%AF/", "found_at": t("10:05")},
             {"url": HOST + "/story?id=7#comments", "found_at": t("10:05")}]
    m = run_metrics(truth, [], items, WINDOW)
    assert m["recall"] == 1.0 and m["lag_median"] == 5.0
    assert item_path("http://h") == "/" and item_path("") is None and item_path(None) is None
    assert item_path("http://[::1") is None


def test_a_bad_window_is_a_clear_error():
    with pytest.raises(ValueError, match="window"):
        run_metrics(TRUTH, LOG, ITEMS, ("10:00", t("12:00")))


def test_percentile():
    assert percentile([], 50) is None
    assert percentile([7.0], 90) == 7.0
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([4, 1, 3, 2, 5], 90) == pytest.approx(4.6)
    assert percentile([1, 2], 100) == 2 and percentile([1, 2], 0) == 1


def test_article_changes_from_the_replays_index():
    articles = [SimpleNamespace(path="/a/", ts=100.0), SimpleNamespace(path="/b/", ts=200.0),
                SimpleNamespace(path="/c/", ts=300.0)]
    # a links to b (published later) and to nothing older; b links back to a (no change); c none
    index = SimpleNamespace(articles=articles, link_ts=[[300.0, 200.0], [100.0], []])
    assert article_changes(index) == {"/a/": [200.0, 300.0]}


def test_article_changes_of_a_real_index(tmp_path):
    from newsforagers.corpus import load_corpus
    from newsforagers.replay.index import SiteIndex

    lines = [
        {"url": "https://x.org/old/", "published": "2024-01-01T08:00:00+00:00", "title": "Old",
         "links": ["https://x.org/new/"]},  # links to a story published after it
        {"url": "https://x.org/new/", "published": "2024-01-01T09:00:00+00:00", "title": "New",
         "links": ["https://x.org/old/"]},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    changes = article_changes(SiteIndex(load_corpus(path)))
    assert changes == {"/old/": [datetime(2024, 1, 1, 9, tzinfo=UTC).timestamp()]}


def test_aggregate_repeats():
    runs = [
        {"recall": 0.5, "lag_median": None, "invalid": {"late": 1}, "flag": True, "requests": 10},
        {"recall": 1.0, "lag_median": 4.0, "requests": 20},
        {"recall": 0.75, "lag_median": 6.0, "requests": 30, "age": float("nan")},
        "not a run",
    ]
    summary = aggregate(runs)
    assert set(summary) == {"recall", "lag_median", "requests"}
    assert summary["recall"] == {"mean": 0.75, "std": pytest.approx(0.25), "n": 3}
    assert summary["lag_median"] == {"mean": 5.0, "std": pytest.approx(math.sqrt(2)), "n": 2}
    assert summary["requests"]["mean"] == 20.0 and summary["requests"]["std"] == 10.0
    assert aggregate(runs, keys=["age", "recall"])["age"] == {"mean": None, "std": None, "n": 0}
    assert aggregate([{"recall": 0.4}])["recall"] == {"mean": 0.4, "std": 0.0, "n": 1}
    assert aggregate([]) == {}


def test_aggregate_of_real_run_records():
    first = run_metrics(TRUTH, LOG, ITEMS, WINDOW, foragers=FORAGERS, changes=CHANGES)
    second = run_metrics(TRUTH, [], [], WINDOW)
    summary = aggregate([first, second], keys=RESULT_KEYS)
    assert list(summary) == list(RESULT_KEYS)
    assert summary["recall"]["mean"] == pytest.approx(0.375)
    assert summary["lag_median"] == {"mean": 10.0, "std": 0.0, "n": 1}
    assert summary["requests"]["mean"] == 5.0
    json.dumps(summary)
