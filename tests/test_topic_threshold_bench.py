"""benchmarks/topic_threshold.py (issue 32): which articles are a topic's, and the ``--learned``
table end to end on a synthetic corpus with regional editions."""

from __future__ import annotations

import re

import pytest

from newsforagers.corpus import Article
from newsforagers.replay.synth import TOPICS, synth_corpus, topic_of
from tests.benchmark_scripts import benchmark_script


@pytest.fixture(scope="module")
def bench():
    return benchmark_script("topic_threshold")


def article(n: int, *sections: str) -> Article:
    return Article(url=f"https://example.org/{n}", published=None, title=f"story {n}", sections=sections)


def test_a_regional_edition_is_its_topic_s_on_the_synthetic_site_only(bench):
    assert topic_of("crime-north") == topic_of("crime") == "crime" and topic_of("crime-north-2") == "crime"
    articles = [article(0, "crime"), article(1, "crime-north"), article(2, "sports"),
                article(3, "sports", "crime-metro"), article(4, "crimewave")]
    assert bench.truth_of(articles, "crime", synth_words=True).tolist() == [True, True, False, True, False]
    # the section's own articles alone: asked for, or on a corpus not of the generator's
    assert bench.truth_of(articles, "crime", synth_words=True, by_section=True).tolist() == [
        True, False, False, False, False]
    assert bench.truth_of(articles, "crime", synth_words=False).tolist() == [True, False, False, False, False]


def test_the_learned_table_counts_a_topic_s_regional_editions(bench, tmp_path, capsys):
    sections = len(TOPICS) + 4  # the first four topics get a regional edition each
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=1, rate=600, sections=sections, seed=3)
    rows = {}
    for flag in ([], ["--by-section"]):
        bench.main([str(corpus), "--topics", "3", "--synth-words", "--learned", *flag])
        out = capsys.readouterr().out
        table = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in out.splitlines()
                 if line.startswith("| ") and not line.startswith(("| topic", "|---"))}
        assert len(table) == 3 and re.search(r"^all \(3\): before P [\d.]+ R [\d.]+ F1", out, re.MULTILINE), out
        assert re.search(r"the labels' precision at after's recall [\d.]+$", out, re.MULTILINE), out
        for row in table.values():  # the labels' own precision at the learned recall: a share
            after_recall, cap = float(row[8]), float(row[10])
            assert 0 < cap <= 1 if after_recall else cap == 0, row
        rows[bool(flag)] = table
    from newsforagers.corpus import load_corpus

    articles = load_corpus(corpus).articles
    for topic in rows[False]:
        own = sum(topic in a.sections for a in articles)
        editions = sum(any(topic_of(s) == topic for s in a.sections) for a in articles)
        # the "share" column: the topic's articles with its editions', and without
        assert float(rows[False][topic][1]) == pytest.approx(editions / len(articles), abs=5e-4)
        assert float(rows[True][topic][1]) == pytest.approx(own / len(articles), abs=5e-4)
    assert any(float(rows[False][t][1]) > float(rows[True][t][1]) for t in rows[False])


def test_the_bench_counts_a_synthetic_topic_s_regional_editions_as_the_script_does():
    from newsforagers.evaluation.bench.topic import topic_documents

    synthetic = [{"path": "/a", "sections": ["crime"]}, {"path": "/b", "sections": ["crime-north"]},
                 {"path": "/c", "sections": ["sports", "crime-metro-2"]}, {"path": "/d", "sections": ["sports"]}]
    assert topic_documents(synthetic, "crime") == {"/a", "/b", "/c"}
    assert topic_documents(synthetic, "crime-north") == {"/b"}  # an edition is its own section's
    # a corpus of other names (digital.gov's "content-strategy" is no edition of a "content")
    other = [{"path": "/a", "sections": ["content"]}, {"path": "/b", "sections": ["content-strategy"]},
             {"path": "/c", "sections": ["mobile"]}]
    assert topic_documents(other, "content") == {"/a"}
    # one section the synthetic site does not name: the corpus is not the synthetic site's
    assert topic_documents([*synthetic, {"path": "/e", "sections": ["crime-wave"]}], "crime") == {"/a"}


def test_the_labels_precision_at_a_recall_by_hand(bench):
    import numpy as np

    truth = np.array([True, False, True, True, False, False])
    scores = np.array([0.9, 0.8, 0.7, 0.2, 0.5, 0.1])
    # ranked: T(0.9) F(0.8) T(0.7) F(0.5) T(0.2) F(0.1)
    assert bench.precision_at_recall(scores, truth, 1 / 3) == 1.0  # the first document
    assert bench.precision_at_recall(scores, truth, 0.5) == pytest.approx(2 / 3)  # 2 of 3: 2 in the top 3
    assert bench.precision_at_recall(scores, truth, 2 / 3) == pytest.approx(2 / 3)
    assert bench.precision_at_recall(scores, truth, 1.0) == pytest.approx(3 / 5)
    assert bench.precision_at_recall(scores, truth, 0.0) == 1.0  # at least one document of the truth's
    # tied scores: the truth's document first (the ranking's best case)
    tied = np.array([0.5, 0.5, 0.5, 0.1, 0.1, 0.1])
    assert bench.precision_at_recall(tied, truth, 2 / 3) == 1.0
    assert bench.precision_at_recall(tied, truth, 1.0) == pytest.approx(3 / 4)
