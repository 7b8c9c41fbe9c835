"""Which ``FORAGERS_TOPIC_MIN_RELEVANCE`` separates a topic's documents from the rest?

For the most common sections (tags) of a corpus, the topic is the section's name as a user
would type it ("data-visualization" → "data visualization") — or, for the synthetic site
(``--synth-words``), whose articles seldom name their section, the words the generator writes
that section with (the subjects and objects of ``newsforagers.replay.synth.TOPICS``: what a
reader of that section would type) — idf comes from the corpus itself
(``FORAGERS_TOPIC_CORPUS``), and a document is "about the topic" when the corpus files it in
that section (on the synthetic site, or in one of its regional editions, which the generator
writes from the same words; ``--by-section``: that section alone). For each threshold t,
"relevance ≥ t" is judged against that truth: precision, recall and F1 per topic, then their
means over the topics. The threshold of best mean F1 is printed, and the whole table::

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

With ``--learned`` each topic is judged twice, per topic (issue 32): *before*, the papers'
cosine of the topic's words at ``FORAGERS_TOPIC_MIN_RELEVANCE``; *after*, the topic as the
reinforcing agent learns it by default (``newsforagers.text.feedback.LearningTopic``: the
query moved by pseudo-relevance feedback, the threshold from the scores' mixture), reading the
corpus in publication order as a crawl would: each article judged when read, with the query and
threshold fitted on the articles read before it (refitted as the colony does, whenever their
number grew by a quarter). Beside them, whether the section can be learned from its name at
all: the F1 of a classifier trained on the corpus's own labels (logistic regression on tf·idf,
5-fold cross-validated predictions) — a section it cannot tell apart (F1 < 0.7) no description
can — and the share of the section's documents holding a word of its name — a name most of its
documents do not use (below a half) cannot find them. And the cap of the after's precision:
the precision that classifier's ranking gives at the after's recall (the fewest documents it
ranks first holding as many of the section's): the precision the text gives at that recall
when the very labels it is judged by are learned from, a reference, not a proof, of what a
description by name can reach.
Means are given over all topics and over those learnable by name (both)::

    python benchmarks/topic_threshold.py ../shared/data/digitalgov.jsonl.gz --topics 20 --learned
    python benchmarks/topic_threshold.py synth.jsonl.gz --topics 12 --synth-words --learned

With ``--judged K`` each topic is judged a third way: its name and a topic file's examples, as a
user gives them after a first look at the output by name — the section's first K titles as
``+ `` lines and the first K other titles the name's words accept at the floor as ``- `` lines
(``--whole-examples``: title and text) — every measure then over the other articles only.

(docs/benchmarks.md, "Topical mode", "Topical benches" and "Topic feedback").
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from newsforagers.corpus import load_corpus
from newsforagers.defaults import FORAGERS_TOPIC_MIN_RELEVANCE
from newsforagers.evaluation.bench.topic import filed_under, section_words
from newsforagers.text.feedback import LearningTopic, initialism
from newsforagers.text.topic import Topic

LEARNABLE_F1 = 0.7  # a supervised classifier's F1 below which a section is not told by its text
NAMED_SHARE = 0.5  # ... and the share of its documents naming it below which its name cannot find it
REFIT_GROWTH = 1.25  # as the reinforcing agent: newsforagers.pipelines.TOPIC_REFIT_GROWTH

THRESHOLDS = (0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3)


def truth_of(articles, section: str, synth_words: bool, by_section: bool = False) -> np.ndarray:
    """Which articles are about ``section``'s topic, as the topical bench judges them
    (``filed_under``): filed in it, or on the synthetic site (``synth_words``) in one of its
    regional editions, unless ``by_section`` (its own articles only, as measured before
    2026-12-06)."""
    synthetic = synth_words and not by_section
    return np.array([filed_under(a.sections, section, synthetic) for a in articles])


def scores(relevance: np.ndarray, truth: np.ndarray, threshold) -> tuple[float, float, float]:
    """Precision, recall and F1 of "relevance >= threshold" (an array or a number)."""
    chosen = relevance >= threshold
    hits = int((chosen & truth).sum())
    precision = hits / chosen.sum() if chosen.sum() else 0.0
    recall = hits / truth.sum() if truth.sum() else 0.0
    return precision, recall, (2 * precision * recall / (precision + recall) if hits else 0.0)


def read_as_a_crawl(topic: Topic, documents: list[str], positives=(),
                    negatives=()) -> tuple[np.ndarray, np.ndarray, dict]:
    """Each document's learned relevance and the threshold in effect when it was read, in
    order, with the query and threshold refitted as the colony does; and the last fit's state.
    ``positives`` and ``negatives``: a topic file's examples (``+ `` and ``- `` lines)."""
    learning = LearningTopic(topic, floor=FORAGERS_TOPIC_MIN_RELEVANCE, positives=positives,
                             negatives=negatives)
    relevance, thresholds = np.zeros(len(documents)), np.zeros(len(documents))
    fitted_on = 0
    for i, text in enumerate(documents):
        if i >= max(learning.min_documents, np.ceil(fitted_on * REFIT_GROWTH)):
            learning.refit()
            fitted_on = i
        relevance[i], thresholds[i] = learning.relevance(text), learning.threshold.value
        learning.add(text)
    return relevance, thresholds, learning.state()


def learnability(documents: list[str], truths: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each section's probability, for each document, that the labels file it there: a classifier
    trained on the labels (logistic regression on tf·idf), 5-fold cross-validated (each document
    judged by a classifier that did not see it)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    x = TfidfVectorizer(sublinear_tf=True, min_df=2, stop_words="english").fit_transform(documents)
    return {section: cross_val_predict(LogisticRegression(C=10, class_weight="balanced", max_iter=2000),
                                       x, truth, cv=5, method="predict_proba")[:, 1]
            for section, truth in truths.items()}


def precision_at_recall(scores_: np.ndarray, truth: np.ndarray, recall: float) -> float:
    """The precision of the fewest highest-scoring documents holding ``recall`` of the truth's
    (at least one): what a ranking by ``scores_`` gives up to reach that recall. Of tied scores,
    the truth's first (the ranking's best case)."""
    wanted = max(1, int(np.ceil(recall * truth.sum() - 1e-9)))
    order = np.lexsort((~truth, -scores_))
    hits = np.cumsum(truth[order])
    taken = int(np.searchsorted(hits, wanted)) + 1
    return wanted / taken


def judged_examples(articles, documents: list[str], truth: np.ndarray, topic: Topic, k: int,
                    whole: bool) -> tuple[list[str], list[str], np.ndarray]:
    """A user's examples after a first look at the output: the section's first ``k`` articles
    (``+ ``) and the first ``k`` others the topic's words accept at the floor (``- ``: the
    misfits output first), as titles or (``whole``) as the documents; and the mask of the
    articles left to judge (the examples' own left out)."""
    def text(i: int) -> str:
        return documents[i].replace("\n", " ") if whole else articles[i].title

    inside = [i for i in range(len(articles)) if truth[i]][:k]
    misfits = [i for i in range(len(articles))
               if not truth[i] and topic.relevance(documents[i]) >= FORAGERS_TOPIC_MIN_RELEVANCE][:k]
    mask = np.ones(len(articles), dtype=bool)
    mask[inside + misfits] = False
    return [text(i) for i in inside], [text(i) for i in misfits], mask


def learned(articles, texts: list[str], sections: list[str], synth_words: bool, judged: int = 0,
            whole: bool = False, by_section: bool = False) -> None:
    documents = [f"{a.title}\n{a.text}" for a in articles]  # as the agent reads a document
    truths = {s: truth_of(articles, s, synth_words, by_section) for s in sections}
    labelled = learnability(documents, truths)
    ceiling = {s: scores(labelled[s], truths[s], 0.5)[2] for s in sections}
    at = FORAGERS_TOPIC_MIN_RELEVANCE
    extra = f" with {judged} + {judged} examples P | R | F1 | their threshold |" if judged else ""
    print("| topic | share | learnable (F1) | name in its documents | before P | R | F1 | after P | R | F1 | "
          "the labels' P at that R | last threshold | reason | query learned | forms taken |" + extra)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
          + ("---:|---:|---:|---|" if judged else ""))
    rows = []
    for section in sections:
        words = section_words(section, synth_words)
        topic = Topic(words, corpus=texts)
        truth = truths[section]
        # the share of the section's documents holding a word of its name (or the initialism of
        # a name of 3 to 5 words, which the learned topic takes when the documents write it): a
        # name its documents seldom use cannot find them, however the threshold is set
        named = set(topic.terms) | ({initialism(list(topic.terms))} - {None})  # (or its initialism)
        inside = [d for d, t in zip(documents, truth) if t]
        covered = sum(bool(named & set(topic.analyze(d))) for d in inside) / len(inside)
        mask = np.ones(len(documents), dtype=bool)
        if judged:
            positives, negatives, mask = judged_examples(articles, documents, truth, topic, judged, whole)
        before = scores(np.array([topic.relevance(d) for d in documents])[mask], truth[mask], at)
        relevance, thresholds, state = read_as_a_crawl(topic, documents)
        after = scores(relevance[mask], truth[mask], thresholds[mask])
        learnable = ceiling[section] >= LEARNABLE_F1 and covered >= NAMED_SHARE
        # the cap of precision at the learned recall: what the labels' own classifier, which has
        # seen the section's other documents, keeps beside them to reach that recall
        cap = precision_at_recall(labelled[section][mask], truth[mask], after[1]) if after[1] else 0.0
        line = (f"| {section} | {truth.mean():.3f} | {ceiling[section]:.2f} | {covered:.2f} | "
                + " | ".join(f"{v:.3f}" for v in (*before, *after, cap))
                + f" | {state['threshold']:.3f} | {state['reason']} | "
                + f"{'yes' if state['query'] else 'no'} | "
                + f"{', '.join(sorted(state.get('forms', {}))) or '-'} |")
        if judged:
            relevance, thresholds, state = read_as_a_crawl(topic, documents, positives, negatives)
            with_examples = scores(relevance[mask], truth[mask], thresholds[mask])
            rows.append((section, learnable, before, after, cap, with_examples))
            line += (" " + " | ".join(f"{v:.3f}" for v in with_examples)
                     + f" | {thresholds[mask][0]:.3f} → {state['threshold']:.3f} ({state['reason']}) |")
        else:
            rows.append((section, learnable, before, after, cap))
        print(line)
    print()
    print(f"learnable by name: a classifier trained on the labels reaches F1 >= {LEARNABLE_F1} and "
          f"at least {NAMED_SHARE:.0%} of the section's documents hold a word of its name (or its initialism)")
    for name, chosen in (("all", rows), ("learnable by name", [r for r in rows if r[1]])):
        if not chosen:
            print(f"{name}: none")
            continue
        mean = [np.mean([r[k][i] for r in chosen]) for k in (2, 3) for i in range(3)]
        low = min(r[3][0] for r in chosen)
        print(f"{name} ({len(chosen)}): before P {mean[0]:.3f} R {mean[1]:.3f} F1 {mean[2]:.3f}; "
              f"after P {mean[3]:.3f} R {mean[4]:.3f} F1 {mean[5]:.3f}; lowest precision after {low:.3f}; "
              f"the labels' precision at after's recall {np.mean([r[4] for r in chosen]):.3f}")
        if judged:
            mean = [np.mean([r[5][i] for r in chosen]) for i in range(3)]
            print(f"{name} ({len(chosen)}), with {judged} + {judged} examples: P {mean[0]:.3f} "
                  f"R {mean[1]:.3f} F1 {mean[2]:.3f}; lowest precision {min(r[5][0] for r in chosen):.3f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--topics", type=int, default=20, help="the N most common sections")
    parser.add_argument("--synth-words", action="store_true",
                        help="topics of the synthetic site's own section words, not the section names")
    parser.add_argument("--by-section", action="store_true",
                        help="with --synth-words: a topic's documents are its section's alone, not "
                        "also its regional editions' (written from the same words)")
    parser.add_argument("--examples", type=float, default=None, metavar="SHARE",
                        help="describe each topic by the titles of its articles among the first "
                        "SHARE of the corpus, and judge on the rest")
    parser.add_argument("--per-topic", action="store_true",
                        help="also each topic's precision and recall at the default threshold")
    parser.add_argument("--learned", action="store_true",
                        help="before/after per topic: the papers' cosine at the default threshold "
                        "against the learned topic read as a crawl reads, with each section's "
                        "learnability")
    parser.add_argument("--judged", type=int, default=0, metavar="K",
                        help="with --learned: also each topic by its name and a topic file's "
                        "examples, K + lines (the section's first K titles) and K - lines (the first "
                        "K other titles its words accept), judged on the other articles")
    parser.add_argument("--whole-examples", action="store_true",
                        help="with --judged: the examples are the articles' title and text, not titles")
    args = parser.parse_args(argv)
    if args.judged and not args.learned:
        parser.error("--judged goes with --learned")
    if args.learned and args.examples is not None:
        parser.error("--learned describes each topic by its name: leave --examples out")
    if args.examples is not None and not 0 < args.examples < 1:
        parser.error(f"--examples ({args.examples}) must be between 0 and 1")
    articles = sorted(load_corpus(args.corpus).articles, key=lambda a: a.published)
    texts = [a.text for a in articles]  # the idf: the whole corpus, as FORAGERS_TOPIC_CORPUS
    earlier: list = []
    if args.examples is not None:
        cut = int(len(articles) * args.examples)
        earlier, articles = articles[:cut], articles[cut:]
    counts = Counter(s for a in articles for s in a.sections)
    if args.synth_words:
        # a regional edition ("politics-north") is written with its topic's words: no words
        # tell it from its topic's own section, so only the topics' sections are judged, each
        # with its regional editions' articles as its own (truth_of; --by-section: without)
        from newsforagers.replay.synth import TOPICS

        counts = Counter({s: n for s, n in counts.items() if s in TOPICS})
    sections = [s for s, _ in counts.most_common(args.topics)]
    if args.learned:
        print(f"{len(articles)} documents judged, topics: {', '.join(sections)}")
        learned(articles, texts, sections, args.synth_words, args.judged, args.whole_examples, args.by_section)
        return
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
            titles, query = [], section_words(section, args.synth_words)
        topic = Topic(query, corpus=texts)
        relevance = np.array([topic.relevance(a.text) for a in articles])
        truth = truth_of(articles, section, args.synth_words, args.by_section)
        hits = int((truth & (relevance >= at)).sum())
        chosen = int((relevance >= at).sum())
        per_topic.append((section, len(titles), int(truth.sum()), hits / chosen if chosen else 0.0,
                          hits / truth.sum(), truth.mean()))
        for t in THRESHOLDS:
            rows[t].append(scores(relevance, truth, t))
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
