"""Which ``FORAGERS_TOPIC_MIN_RELEVANCE`` separates a topic's documents from the rest?

For the most common sections (tags) of a corpus, the topic is the section's name as a user
would type it ("data-visualization" → "data visualization") — or, for the synthetic site
(``--synth-words``), whose articles seldom name their section, the words the generator writes
that section with (the subjects and objects of ``newsforagers.replay.synth.TOPICS``: what a
reader of that section would type) — idf comes from the corpus itself
(``FORAGERS_TOPIC_CORPUS``), and a document is "about the topic" when the corpus files it in
that section. For each threshold t, "relevance ≥ t" is judged against that truth: precision,
recall and F1 per topic, then their means over the topics. The threshold of best mean F1 is
printed, and the whole table::

    python benchmarks/topic_threshold.py ../shared/data/digitalgov.jsonl.gz --topics 20
    python benchmarks/topic_threshold.py synth.jsonl.gz --topics 12 --synth-words

With ``--examples SHARE`` each topic is described instead by example, as
``newsforagers bench --topic-words examples`` does: the titles of the section's articles among
the corpus's first SHARE (by publication time), one a line; every measure is then over the
other articles only, none of which is an example. ``--per-topic`` adds each topic's precision
and recall at ``FORAGERS_TOPIC_MIN_RELEVANCE`` (and beside them its share of the judged
articles: the precision of accepting everything)::

    python benchmarks/topic_threshold.py ../shared/data/digitalgov.jsonl.gz --topics 20 \
        --examples 0.25 --per-topic

(docs/benchmarks.md, "Topical mode" and "Topical benches").
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from newsforagers.corpus import load_corpus
from newsforagers.defaults import FORAGERS_TOPIC_MIN_RELEVANCE
from newsforagers.text.topic import Topic

THRESHOLDS = (0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3)


def topic_text(section: str, synth_words: bool) -> str:
    if synth_words:
        from newsforagers.replay.synth import TOPICS

        subjects, objects, _ = TOPICS[section]
        return " ".join([*subjects, *objects])
    return section.replace("-", " ").replace("_", " ")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--topics", type=int, default=20, help="the N most common sections")
    parser.add_argument("--synth-words", action="store_true",
                        help="topics of the synthetic site's own section words, not the section names")
    parser.add_argument("--examples", type=float, default=None, metavar="SHARE",
                        help="describe each topic by the titles of its articles among the first "
                        "SHARE of the corpus, and judge on the rest")
    parser.add_argument("--per-topic", action="store_true",
                        help="also each topic's precision and recall at the default threshold")
    args = parser.parse_args(argv)
    if args.examples is not None and not 0 < args.examples < 1:
        parser.error(f"--examples ({args.examples}) must be between 0 and 1")
    articles = sorted(load_corpus(args.corpus).articles, key=lambda a: a.published)
    texts = [a.text for a in articles]  # the idf: the whole corpus, as FORAGERS_TOPIC_CORPUS
    earlier: list = []
    if args.examples is not None:
        cut = int(len(articles) * args.examples)
        earlier, articles = articles[:cut], articles[cut:]
    counts = Counter(s for a in articles for s in a.sections)
    sections = [s for s, _ in counts.most_common(args.topics)]
    rows = {t: [] for t in THRESHOLDS}
    per_topic = []
    at = FORAGERS_TOPIC_MIN_RELEVANCE
    print(f"{len(articles)} documents judged, topics: {', '.join(sections)}")
    for section in sections:
        if args.examples is not None:
            titles = [a.title for a in earlier if section in a.sections]
            if not titles:
                print(f"{section}: no example among the first {len(earlier)} articles, skipped")
                continue
            query = "\n".join(titles)
        else:
            titles, query = [], topic_text(section, args.synth_words)
        topic = Topic(query, corpus=texts)
        relevance = np.array([topic.relevance(a.text) for a in articles])
        truth = np.array([section in a.sections for a in articles])
        hits = int((truth & (relevance >= at)).sum())
        chosen = int((relevance >= at).sum())
        per_topic.append((section, len(titles), int(truth.sum()), hits / chosen if chosen else 0.0,
                          hits / truth.sum(), truth.mean()))
        for t in THRESHOLDS:
            chosen = relevance >= t
            hits = int((chosen & truth).sum())
            precision = hits / chosen.sum() if chosen.sum() else 0.0
            recall = hits / truth.sum()
            f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
            rows[t].append((precision, recall, f1))
    print("| threshold | precision | recall | F1 |")
    print("|---:|---:|---:|---:|")
    best = max(THRESHOLDS, key=lambda t: np.mean([r[2] for r in rows[t]]))
    for t in THRESHOLDS:
        p, r, f = (float(np.mean([row[i] for row in rows[t]])) for i in range(3))
        print(f"| {t:g}{' (best)' if t == best else ''} | {p:.3f} | {r:.3f} | {f:.3f} |")
    if args.per_topic:
        print()
        print(f"| topic | examples | documents | precision at {at:g} | recall at {at:g} | share |")
        print("|---|---:|---:|---:|---:|---:|")
        for section, examples, documents, precision, recall, share in per_topic:
            print(f"| {section} | {examples} | {documents} | {precision:.3f} | {recall:.3f} | "
                  f"{share:.3f} |")


if __name__ == "__main__":
    main()
