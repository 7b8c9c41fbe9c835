"""newsforagers.evaluation.bench.topic: a topic's words from a section of the corpus, checked
against its sections; the topic's documents."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import pytest

from newsforagers.evaluation.bench.config import BenchConfig, BenchError
from newsforagers.evaluation.bench.site import earlier_titles, prepare_site
from newsforagers.evaluation.bench.topic import (
    TOPIC_FILE,
    is_synthetic,
    labelled_text,
    resolve_topic,
    section_words,
    topic_argument,
    topic_documents,
    write_topic_file,
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


def _article(title, hour, *sections):
    from types import SimpleNamespace

    return SimpleNamespace(title=title, sections=sections,
                           published=datetime(2024, 1, 1, hour, tzinfo=timezone.utc))


def test_earlier_titles_are_each_sections_titles_before_the_window():
    articles = [_article("Late", 9, "solar"), _article("Wind farms", 3, "wind", "solar"),
                _article("Panels", 1, "solar"), _article("At the start", 7, "wind")]
    start = datetime(2024, 1, 1, 7, tzinfo=timezone.utc)
    # publication order, only before the start (an article at the start is in the window)
    assert earlier_titles(articles, start) == {"solar": ("Panels", "Wind farms"),
                                               "wind": ("Wind farms",)}
    assert earlier_titles(articles, datetime(2024, 1, 1, 0, tzinfo=timezone.utc)) == {}


def test_a_topic_described_by_examples(tmp_path):
    examples = {"solar": ("Cheap  panels\n", "", "Rooftop solar, again"), "wind": ()}
    config = BenchConfig(corpus="c", out=str(tmp_path), topic="solar", topic_words="examples")
    resolved = resolve_topic(config, ["solar", "wind"], examples)
    # one title a line, white space collapsed, empty titles dropped
    assert resolved.topic_text == "Cheap panels\nRooftop solar, again\n"
    assert topic_argument(resolved) == "@" + str(tmp_path / TOPIC_FILE)
    path = write_topic_file(resolved)
    assert path == tmp_path / TOPIC_FILE
    assert path.read_text(encoding="utf-8") == "Cheap panels\nRooftop solar, again\n"
    # what the crawlers read from it: the same text (-a topic=@FILE)
    from newsforagers.evaluation.baselines import read_topic

    assert read_topic(topic_argument(resolved)) == resolved.topic_text
    with pytest.raises(BenchError, match=r"--topic-words examples: no article of section 'wind' "
                                         r"is published before the window"):
        resolve_topic(replace(config, topic="wind"), ["solar", "wind"], examples)
    with pytest.raises(BenchError, match="no article of section 'solar'"):
        resolve_topic(config, ["solar", "wind"])
    # by name: the words themselves, and no file
    named = resolve_topic(replace(config, topic_words="name"), ["solar", "wind"], examples)
    assert topic_argument(named) == "solar" and write_topic_file(named) is None
    assert not (tmp_path / "other").exists()


def test_a_topic_described_by_its_name_and_labelled_examples(tmp_path):
    examples = {"solar": ("Cheap  panels", "Rooftop solar, again"),
                "wind": ("Wind farms", "Offshore turbines", "Rooftop solar, again"),
                "coal": ("Pits close",), "tides": ()}
    config = BenchConfig(corpus="c", out=str(tmp_path), topic="solar", topic_words="name+examples")
    resolved = resolve_topic(config, ["solar", "wind", "coal", "tides"], examples)
    # the name, the section's titles, then as many other titles, each other section's newest in
    # turn ("wind"'s is the section's own too: not a negative), then their second newest...
    assert resolved.topic_text == ("solar\n+ Cheap panels\n+ Rooftop solar, again\n"
                                   "- Pits close\n- Offshore turbines\n")
    assert labelled_text("coal", "coal", examples) == "coal\n+ Pits close\n- Rooftop solar, again\n"
    # written to the topic file the crawlers are given; the colony reads the name as its words
    # and the lines as its examples, best_first the name alone
    path = write_topic_file(resolved)
    assert topic_argument(resolved) == "@" + str(path)
    from newsforagers.evaluation.baselines import read_topic
    from newsforagers.topics import topic_spec

    spec = topic_spec(path.read_text(encoding="utf-8"))
    assert (spec.words, spec.positives, spec.negatives) == (
        "solar", ("Cheap panels", "Rooftop solar, again"), ("Pits close", "Offshore turbines"))
    assert read_topic(topic_argument(resolved)) == "solar"
    with pytest.raises(BenchError, match="no article of section 'tides'"):
        resolve_topic(replace(config, topic="tides"), ["solar", "wind", "coal", "tides"], examples)


def test_topic_words_are_checked():
    with pytest.raises(BenchError, match=r"--topic-words \('titles'\) must be one of name, examples"):
        BenchConfig(corpus="c", out="o", topic="solar", topic_words="titles").validate()
    with pytest.raises(BenchError, match="--topic-words describes the topic of --topic SECTION"):
        BenchConfig(corpus="c", out="o", topic_words="examples").validate()


def test_the_sites_examples_are_the_corpus_titles_before_its_start(corpus, tmp_path):
    from newsforagers.corpus import load_corpus

    site = prepare_site(config_for(corpus, tmp_path, topic="politics", start="2024-01-02T07:00:00+00:00"))
    start = datetime.fromisoformat(site.start)
    expected = [a.title for a in sorted(load_corpus(corpus).articles, key=lambda a: a.published)
                if a.published < start and "politics" in a.sections]
    assert len(expected) > 10 and list(site.examples["politics"]) == expected
    config = resolve_topic(config_for(corpus, tmp_path, topic="politics", topic_words="examples"),
                           site.sections, site.examples)
    assert config.topic_text.splitlines() == [" ".join(t.split()) for t in expected]
