"""newsforagers.evaluation.bench.topic: a topic's words from a section of the corpus, checked
against its sections; the topic's documents."""

from __future__ import annotations

import pytest

from newsforagers.evaluation.bench.config import BenchConfig, BenchError
from newsforagers.evaluation.bench.site import prepare_site
from newsforagers.evaluation.bench.topic import (
    is_synthetic, resolve_topic, section_words, topic_documents,
)
from tests.evaluation.bench.samples import config_for

pytestmark = pytest.mark.timeout(120)

POLITICS = ("the parliament the senate the governor the opposition the coalition the mayor party "
            "leaders the prime minister budget election reform bill tax plan ballot measure "
            "campaign cabinet reshuffle spending review")


def test_section_words():
    assert section_words("data-visualization", synthetic=False) == "data visualization"
    assert section_words("open_data ", synthetic=False) == "open data"
    # the synthetic site: the words its generator writes the section with
    assert section_words("politics", synthetic=True) == POLITICS
    assert section_words("politics", synthetic=False) == "politics"
    assert section_words("politics-north", synthetic=True) == "politics north"  # a regional edition


def test_is_synthetic():
    assert is_synthetic(["politics", "business-north", "sports-coast-2"])
    assert not is_synthetic(["politics", "data-visualization"])
    assert not is_synthetic(["health-care"])  # "care" is no region of the synthetic site
    assert not is_synthetic([])


def test_resolve_topic_checks_the_section_and_reads_its_words():
    config = BenchConfig(corpus="c", out="o", topic="politics")
    assert resolve_topic(config, ["politics", "sports"]).topic_text == POLITICS
    assert resolve_topic(config, ["politics", "data-visualization"]).topic_text == "politics"
    assert resolve_topic(BenchConfig(corpus="c", out="o"), ["politics"]).topic_text is None
    sections = ["content-strategy", "mobile", "data-visualization"] + [f"s{i}" for i in range(9)]
    with pytest.raises(BenchError) as error:
        resolve_topic(BenchConfig(corpus="c", out="o", topic="data visualization"), sections)
    assert str(error.value) == (
        "--topic ('data visualization') is not a section of the corpus; did you mean "
        "'data-visualization'? its largest sections: content-strategy, mobile, "
        "data-visualization, s0, s1, s2, s3, s4 (12 in all).")


def test_topic_documents_are_the_truths_articles_of_the_section():
    truth = [{"path": "/a/", "sections": ["solar", "wind"]}, {"path": "/b/", "sections": ["wind"]},
             {"path": "/c/"}, {"sections": ["solar"]}, "not a record"]
    assert topic_documents(truth, "solar") == {"/a/"}


def test_the_corpus_sections_largest_first(corpus, tmp_path):
    site = prepare_site(config_for(corpus, tmp_path, topic="politics"))
    assert site.sections[0] == "politics" and len(site.sections) == 12
    config = resolve_topic(config_for(corpus, tmp_path, topic="politics"), site.sections)
    assert config.topic_text == POLITICS
    assert config.to_dict()["topic_text"] == POLITICS
    assert BenchConfig.from_dict(config.to_dict()) == config
