"""The topic as the user gives it (issue 32): words, or a file with examples."""

from __future__ import annotations

import pytest

from newsforagers.config import ForagersConfig
from newsforagers.errors import ForagersUsageError
from newsforagers.topics import TopicSpec, build_topic, learning_topic, topic_spec


def test_words_alone_are_the_topic():
    assert topic_spec("solar energy") == TopicSpec("solar energy")
    # an article whose bullets start with "- " and no "+ " line: all of it words
    article = "Solar panels\n- cheaper\n- on every roof\n"
    assert topic_spec(article) == TopicSpec(article)


def test_a_file_with_examples():
    spec = topic_spec("crude oil\n+ OPEC agrees a quota\n\n+  Refinery margins widen \n"
                      "- Sony to expand television output\n+ \nprices\n")
    assert spec.words == "crude oil\nprices"
    assert spec.positives == ("OPEC agrees a quota", "Refinery margins widen")
    assert spec.negatives == ("Sony to expand television output",)
    # examples only: the positive ones are the words too
    only = topic_spec("+ OPEC agrees a quota\n+ Refinery margins widen\n- Sony output\n")
    assert only.words == "OPEC agrees a quota\nRefinery margins widen"


def test_the_topic_s_models_from_a_file(tmp_path):
    path = tmp_path / "topic.txt"
    path.write_text("crude oil\n+ opec agrees barrels quota\n- sony television output\n", encoding="utf-8")
    config = ForagersConfig.from_settings({"FORAGERS_TOPIC": f"@{path}"})
    topic = build_topic(config)
    assert topic.terms == {"crude": 1, "oil": 1}
    learning = learning_topic(config, topic)
    assert learning.positives == ["opec agrees barrels quota"]
    assert learning.negatives == ["sony television output"]
    assert {"opec", "barrels", "quota"} <= set(learning.query)
    # the papers' cosine: the words only, no example moves the query
    off = learning_topic(ForagersConfig.from_settings({"FORAGERS_TOPIC": f"@{path}",
                                                       "FORAGERS_TOPIC_FEEDBACK": "off"}), topic)
    assert off.query is None and off.positives == [] and off.feedback is False


@pytest.mark.parametrize("setting, value", [("FORAGERS_TOPIC_FEEDBACK", "rm3"),
                                            ("FORAGERS_TOPIC_THRESHOLD", "median"),
                                            ("FORAGERS_TOPIC_FEEDBACK_DOCUMENTS", 0),
                                            ("FORAGERS_TOPIC_FEEDBACK_TERMS", 0),
                                            ("FORAGERS_TOPIC_FEEDBACK_WEIGHT", 1.5)])
def test_bad_feedback_settings_are_one_usage_error(setting, value):
    with pytest.raises(ForagersUsageError, match=setting):
        ForagersConfig.from_settings({"FORAGERS_TOPIC": "oil", setting: value})
