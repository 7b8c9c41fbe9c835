"""The topic of a topical benchmark (``newsforagers bench --topic SECTION``): one of
the corpus's own sections, the words the topical crawlers are given for it
(:func:`section_words`, :func:`resolve_topic`) and its documents, the ground truth the runs are
judged against (:func:`topic_documents`; the measures are
:mod:`newsforagers.evaluation.bench.harvest`'s).

The words are what a reader of that section would type, as ``benchmarks/topic_threshold.py``
chose the output threshold with: a section's name, ``-`` and ``_`` read as spaces
("data-visualization" → "data visualization"); on the synthetic site
(:mod:`newsforagers.replay.synth`), whose articles seldom name their section, the words its
generator writes a section of ``TOPICS`` with (that topic's subjects and objects). A regional
edition of the synthetic site ("politics-north") keeps its name. The topic's documents are the
articles filed in the section and, on the synthetic site, in its regional editions (written
from the same words: :func:`filed_under`).

With ``--topic-words examples`` the topic is described instead by example: the titles of the
section's articles published before the window (:func:`example_text`), as a user would describe
"more like these" with ``-a topic=@FILE``. An editorial tag is often a topic its name does not
say (digital.gov's ``emerging-tech`` posts seldom contain the words), and the examples are
what the site itself filed under it; none of them is a document the run is judged on. With
``--topic-words name+examples`` the file is one a user writes (docs/topics.md, *Examples*): the
section's words, its titles as ``+ `` lines, and as many titles of the other sections as ``- ``
lines (:func:`labelled_text`), from which the colony also sets its threshold; best_first takes
the words alone. The crawlers read the text from :data:`TOPIC_FILE` in the benchmark's directory
(:func:`write_topic_file`, :func:`topic_argument`)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from newsforagers.evaluation.bench.config import BenchConfig, BenchError
from newsforagers.replay.synth import REGIONS, TOPICS, topic_of

#: How many of the corpus's sections an unknown ``--topic`` lists (the largest first).
SHOWN_SECTIONS = 8
#: The file, in the benchmark's directory, a topic described by examples is written to and
#: given to the crawlers from (``-a topic=@FILE``).
TOPIC_FILE = "topic.txt"


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


def example_text(section: str, examples: Mapping[str, Sequence[str]]) -> str:
    """The topic text of ``section`` described by example: its titles in ``examples`` (a
    :class:`~newsforagers.evaluation.bench.site.Site`'s, published before the window), one a
    line. :class:`BenchError` when the section has none."""
    titles = [" ".join(t.split()) for t in examples.get(section, ()) if isinstance(t, str)]
    titles = [t for t in titles if t]
    if not titles:
        raise BenchError(f"--topic-words examples: no article of section {section!r} is "
                         "published before the window to describe it by; use --topic-words "
                         "name or a later --start.")
    return "\n".join(titles) + "\n"


def labelled_text(section: str, words: str, examples: Mapping[str, Sequence[str]]) -> str:
    """A topic file of ``section`` as a user writes one: ``words`` on the first line, the
    section's titles in ``examples`` (:func:`example_text`'s) as ``+ `` lines, then as many
    titles of the other sections as ``- `` lines, taken in turn from each other section (in
    ``examples``' order), newest first, none that is also one of the section's."""
    positives = example_text(section, examples).splitlines()
    own = set(positives)
    others = [[" ".join(t.split()) for t in reversed(titles) if isinstance(t, str)]
              for name, titles in examples.items() if name != section]
    negatives: list[str] = []
    for turn in range(max((len(titles) for titles in others), default=0)):
        for titles in others:
            if len(negatives) < len(positives) and turn < len(titles):
                title = titles[turn]
                if title and title not in own and title not in negatives:
                    negatives.append(title)
    return "".join([words.strip() + "\n", *(f"+ {t}\n" for t in positives),
                    *(f"- {t}\n" for t in negatives)])


def resolve_topic(config: BenchConfig, sections: Sequence[str],
                  examples: Mapping[str, Sequence[str]] | None = None) -> BenchConfig:
    """``config`` with its topic's words (``topic_text``, unless it has some already), checked
    against the corpus's ``sections`` (largest first: :class:`~newsforagers.evaluation.bench.
    site.Site`'s): the section's words, or with ``topic_words="examples"`` the titles
    ``examples`` holds for it (:func:`example_text`). Raises :class:`BenchError` for a
    ``--topic`` that is not one of them, naming the closest and the largest sections, and for
    a section without examples. A config without a topic is returned as is."""
    if config.topic is None:
        return config
    if config.topic not in sections:
        close = difflib.get_close_matches(config.topic, sections, n=3, cutoff=0.75)
        hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        shown = ", ".join(sections[:SHOWN_SECTIONS])
        more = f" ({len(sections)} in all)" if len(sections) > SHOWN_SECTIONS else ""
        raise BenchError(f"--topic ({config.topic!r}) is not a section of the corpus; {hint}"
                         f"its largest sections: {shown or 'none'}{more}.")
    text = config.topic_text
    if not text:
        if config.topic_words == "examples":
            text = example_text(config.topic, examples or {})
        elif config.topic_words == "name+examples":
            text = labelled_text(config.topic, section_words(config.topic, is_synthetic(sections)),
                                 examples or {})
        else:
            text = section_words(config.topic, is_synthetic(sections))
    return replace(config, topic_text=text)


def topic_argument(config: BenchConfig) -> str:
    """The value of the crawlers' ``-a topic=``: the words themselves, or for a topic
    described by examples ``@`` and the path of :data:`TOPIC_FILE` in the benchmark's
    directory (written by :func:`write_topic_file`)."""
    if config.topic_words != "name":
        return "@" + str(Path(config.out) / TOPIC_FILE)
    return config.topic_text or ""


def write_topic_file(config: BenchConfig) -> Path | None:
    """Write a topic described by examples to :data:`TOPIC_FILE` in the benchmark's directory
    (which must exist) and return its path; None when the topic is given as words."""
    if config.topic is None or config.topic_words == "name" or not config.topic_text:
        return None
    path = Path(config.out) / TOPIC_FILE
    path.write_text(config.topic_text, encoding="utf-8")
    return path


def filed_under(sections: Sequence[str], section: str, synthetic: bool) -> bool:
    """Whether an article filed in ``sections`` is one of ``section``'s topic: filed in it, or,
    on the synthetic site, in one of its regional editions (``politics-north`` is ``politics``:
    the generator writes both from the same words, :func:`~newsforagers.replay.synth.topic_of`)."""
    return section in sections or (synthetic and section in TOPICS
                                   and any(topic_of(s) == section for s in sections))


def topic_documents(truth: Iterable[Mapping], section: str) -> set[str]:
    """The paths of the truth's articles of ``section``'s topic (:func:`filed_under`; the
    synthetic site told by its sections' names, :func:`is_synthetic`): the topic's documents."""
    filed = []
    for record in truth:
        try:
            path, sections = record.get("path"), record.get("sections")
        except AttributeError:
            continue
        if isinstance(path, str) and isinstance(sections, (list, tuple)):
            filed.append((path, sections))
    synthetic = is_synthetic({s for _, sections in filed for s in sections if isinstance(s, str)})
    return {path for path, sections in filed if filed_under(sections, section, synthetic)}


__all__ = ["SHOWN_SECTIONS", "TOPIC_FILE", "example_text", "filed_under", "is_synthetic", "labelled_text",
           "resolve_topic", "section_words", "topic_argument", "topic_documents", "write_topic_file"]
