"""The topic of a topical benchmark (issue 20, ``newsforagers bench --topic SECTION``): one of
the corpus's own sections, the words the topical crawlers are given for it
(:func:`section_words`, :func:`resolve_topic`) and its documents, the ground truth the runs are
judged against (:func:`topic_documents`; the measures are
:mod:`newsforagers.evaluation.bench.harvest`'s).

The words are what a reader of that section would type, as ``benchmarks/topic_threshold.py``
chose the output threshold with: a section's name, ``-`` and ``_`` read as spaces
("data-visualization" → "data visualization"); on the synthetic site
(:mod:`newsforagers.replay.synth`), whose articles seldom name their section, the words its
generator writes a section of ``TOPICS`` with (that topic's subjects and objects). A regional
edition of the synthetic site ("politics-north") keeps its name."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from newsforagers.evaluation.bench.config import BenchConfig, BenchError
from newsforagers.replay.synth import REGIONS, TOPICS

#: How many of the corpus's sections an unknown ``--topic`` lists (the largest first).
SHOWN_SECTIONS = 8


def is_synthetic(sections: Iterable[str]) -> bool:
    """Whether every section is one the synthetic site names: a topic of ``TOPICS`` or one of
    its regional editions (``politics-north``, ``politics-north-2``)."""
    found = False
    for section in sections:
        parts = section.split("-")
        if parts[0] not in TOPICS or len(parts) > 3:
            return False
        if len(parts) > 1 and parts[1] not in REGIONS:
            return False
        if len(parts) == 3 and not parts[2].isdigit():
            return False
        found = True
    return found


def section_words(section: str, synthetic: bool) -> str:
    """The topic's words for ``section``: on the synthetic site, its topic's subjects and
    objects when the section is one of ``TOPICS``; else the name, ``-`` and ``_`` as spaces."""
    if synthetic and section in TOPICS:
        subjects, objects, _ = TOPICS[section]
        return " ".join([*subjects, *objects])
    return " ".join(section.replace("-", " ").replace("_", " ").split())


def resolve_topic(config: BenchConfig, sections: Sequence[str]) -> BenchConfig:
    """``config`` with its topic's words (``topic_text``, unless it has some already), checked
    against the corpus's ``sections`` (largest first: :class:`~newsforagers.evaluation.bench.
    site.Site`'s). Raises :class:`BenchError` for a ``--topic`` that is not one of them,
    naming the closest and the largest sections. A config without a topic is returned as is."""
    if config.topic is None:
        return config
    if config.topic not in sections:
        close = difflib.get_close_matches(config.topic, sections, n=3, cutoff=0.75)
        hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        shown = ", ".join(sections[:SHOWN_SECTIONS])
        more = f" ({len(sections)} in all)" if len(sections) > SHOWN_SECTIONS else ""
        raise BenchError(f"--topic ({config.topic!r}) is not a section of the corpus; {hint}"
                         f"its largest sections: {shown or 'none'}{more}.")
    text = config.topic_text or section_words(config.topic, is_synthetic(sections))
    return replace(config, topic_text=text)


def topic_documents(truth: Iterable[Mapping], section: str) -> set[str]:
    """The paths of the truth's articles filed in ``section`` (their ``sections`` include
    it): the topic's documents."""
    found = set()
    for record in truth:
        try:
            path, sections = record.get("path"), record.get("sections")
        except AttributeError:
            continue
        if isinstance(path, str) and isinstance(sections, (list, tuple)) and section in sections:
            found.add(path)
    return found


__all__ = ["SHOWN_SECTIONS", "is_synthetic", "resolve_topic", "section_words", "topic_documents"]
