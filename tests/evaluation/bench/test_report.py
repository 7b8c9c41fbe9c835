"""newsforagers.evaluation.bench.report: ``results.md`` and byte-identical result files."""

from __future__ import annotations

from newsforagers.evaluation.bench.report import results_markdown, write_results
from tests.evaluation.bench.samples import RECORDS, summary_of


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


def test_a_topical_benchmark_has_its_topic_table_and_targets():
    from tests.evaluation.bench.samples import TOPIC_RECORDS, topic_summary_of

    text = results_markdown(topic_summary_of(TOPIC_RECORDS), plots=["topic.png"])
    assert "## Topic `solar`" in text and '`-a topic="solar energy"`' in text
    assert "after the run's first 6 requests" in text
    # harvest rate, topic recall, recall at equal requests, precision, lag, fetch lag median
    # and p90, docs in the window, of them fetched, requests
    assert ("| `bfs` | 1/1 | 0.100 ± 0.000 | 0.750 ± 0.000 | 0.500 ± 0.000 | 0.250 ± 0.000 | — | "
            "2.0 ± 0.0 | 6.5 ± 0.0 | 4.0 ± 0.0 | 4.0 ± 0.0 | 6 ± 0 |") in text
    assert "| harvest rate > bfs | 0.300 | 0.100 (bfs harvest rate) | met |" in text
    assert "| topic recall ≥ 0.9 | 0.750 | 0.900 | **not met** |" in text
    assert "| harvest rate ≥ best_first | 0.300 | — (best_first harvest rate) | not measured |" in text
    assert "recall ≥ 0.95" not in text  # the discovery targets say nothing of a topic
