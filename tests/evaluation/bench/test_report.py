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
