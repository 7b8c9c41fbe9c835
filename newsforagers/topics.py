"""The topical mode's topic (docs/topics.md): ``-a topic="words"`` or
``-a topic=@PATH``, ``FORAGERS_TOPIC``, and the relevance model built from it
(:class:`~newsforagers.text.topic.Topic`) with its idf from ``FORAGERS_TOPIC_CORPUS``, the
forager's encoder, or the documents read so far."""

from __future__ import annotations

from newsforagers.config import ForagersConfig
from newsforagers.errors import ForagersUsageError


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


def build_topic(config: ForagersConfig, encoder=None):
    """The topic's relevance model: idf from ``FORAGERS_TOPIC_CORPUS`` when set, else from the
    forager's encoder (``-a model``) when it has one, else from the documents read so far.
    ForagersUsageError for a topic without a word or a corpus that cannot be read."""
    from newsforagers.corpus import CorpusError, load_corpus
    from newsforagers.text.topic import Topic

    text = topic_text(config.topic)
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


__all__ = ["build_topic", "topic_text"]
