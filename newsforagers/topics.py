"""The topical mode's topic (docs/topics.md): ``-a topic="words"`` or
``-a topic=@PATH`` (words, and examples on ``+ `` and ``- `` lines), ``FORAGERS_TOPIC``, the
relevance model built from it (:class:`~newsforagers.text.topic.Topic`) with its idf from
``FORAGERS_TOPIC_CORPUS``, the forager's encoder, or the documents read so far, and what the
reinforcing agent learns on top of it (:class:`~newsforagers.text.feedback.LearningTopic`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from newsforagers.config import ForagersConfig
from newsforagers.errors import ForagersUsageError


@dataclass(frozen=True)
class TopicSpec:
    """A topic as the user gave it: its words (a few, a description, an example article) and
    the examples of a topic file: ``positives`` (lines ``+ text``), ``negatives``
    (``- text``)."""

    words: str
    positives: tuple[str, ...] = ()
    negatives: tuple[str, ...] = ()


def topic_spec(text: str) -> TopicSpec:
    """The topic's words and examples from its text (docs/topics.md, "Examples").

    A text with at least one line starting ``+ `` holds examples: each ``+ `` line a positive
    one, each ``- `` line a negative one, the other non-empty lines the topic's words (when
    there are none, the positive examples are the words as well). A text without a ``+ `` line
    is words only, whatever its lines start with (an article's ``- `` bullets stay words)."""
    lines = [line.strip() for line in text.splitlines()]
    if not any(line.startswith("+ ") for line in lines):
        return TopicSpec(text)
    positives = tuple(line[2:].strip() for line in lines if line.startswith("+ ") and line[2:].strip())
    negatives = tuple(line[2:].strip() for line in lines if line.startswith("- ") and line[2:].strip())
    # (a marker without an example, stripped to "+" or "-", is no word either)
    words = "\n".join(line for line in lines
                       if line and line not in ("+", "-") and not line.startswith(("+ ", "- ")))
    return TopicSpec(words or "\n".join(positives), positives, negatives)


def topic_text(value: str) -> str:
    """``FORAGERS_TOPIC`` as text: the value, or the contents of the file ``@PATH`` names.
    ForagersUsageError for a file that cannot be read."""
    value = value.strip()
    if not value.startswith("@"):
        return value
    path = value[1:]
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ForagersUsageError(f"topic: cannot read {path!r} ({exc}); give -a topic=\"words\" "
                                 "or -a topic=@PATH of a UTF-8 text file") from None


def topic_state_key(text: str) -> str:
    """The store key of the colony's topic state (what the reinforcing agent learned of the
    topic, :class:`~newsforagers.text.feedback.LearningTopic`'s ``state``): of the topic's
    ``text`` (:func:`topic_text`: a topic file's contents, not its path), so that a file edited
    between two runs is another topic and what was learned of the old one is not taken back."""
    digest = hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:16]
    return f"topic:{digest}"


def build_topic(config: ForagersConfig, encoder=None):
    """The topic's relevance model (the papers' cosine of the topic's words, :func:`topic_spec`):
    idf from ``FORAGERS_TOPIC_CORPUS`` when set, else from the
    forager's encoder (``-a model``) when it has one, else from the documents read so far.
    ForagersUsageError for a topic without a word or a corpus that cannot be read."""
    from newsforagers.corpus import CorpusError, load_corpus
    from newsforagers.text.topic import Topic

    text = topic_spec(topic_text(config.topic)).words
    corpus = None
    if config.topic_corpus:
        try:
            corpus = [article.text for article in load_corpus(config.topic_corpus, sort=False)]
        except (OSError, CorpusError) as exc:
            raise ForagersUsageError(f"FORAGERS_TOPIC_CORPUS ({config.topic_corpus!r}): {exc}") from None
    try:
        return Topic(text, corpus=corpus, encoder=None if corpus else encoder)
    except (TypeError, ValueError) as exc:
        raise ForagersUsageError(f"topic: {exc}") from None


def learning_topic(config: ForagersConfig, topic, text: str | None = None):
    """The reinforcing agent's topic (:class:`~newsforagers.text.feedback.LearningTopic`):
    ``topic`` (:func:`build_topic`'s) with the feedback and threshold of the settings and the
    examples of the topic's text (``text``: :func:`topic_text`'s, when the caller read it)."""
    from newsforagers.text.feedback import LearningTopic

    spec = topic_spec(text if text is not None else topic_text(config.topic))
    feedback = config.topic_feedback != "off"
    return LearningTopic(topic, floor=config.topic_min_relevance, feedback=feedback,
                         threshold=config.topic_threshold, documents=config.topic_feedback_documents,
                         terms=config.topic_feedback_terms, weight=config.topic_feedback_weight,
                         positives=spec.positives if feedback else (),
                         negatives=spec.negatives if feedback else ())


__all__ = ["TopicSpec", "build_topic", "learning_topic", "topic_spec", "topic_text"]
