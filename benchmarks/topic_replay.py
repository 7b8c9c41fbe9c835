"""A topical bench run's documents judged again, in the order its colony paid for them.

``newsforagers bench --topic SECTION`` leaves each run's store (``runs/<crawler>-r<N>/colony.db``)
and the replay's truth (``truth.jsonl``: every story served and its sections). This reads the
store's documents in the order the colony paid for them and judges each as the reinforcing
agent does by default (``newsforagers.text.feedback.LearningTopic``, refitted as the colony
refits: at ``min_documents``, then whenever the documents grew by ``TOPIC_REFIT_GROWTH``), or
with ``--cosine`` as the papers' relevance does (the topic's words at
``FORAGERS_TOPIC_MIN_RELEVANCE``): how many of the section's documents would be output, and
how many others. The same documents judged two ways, so a change to the learned topic is
measured on what a crawl reads without crawling again (a crawl judged otherwise may read
otherwise: confirm with the bench)::

    python benchmarks/topic_replay.py OUT/runs/scheduled-r0 --topic mobile --section mobile \\
        --model dg-model.joblib [--cosine] [--fits]

``--model``: the ``-a model`` the bench was given (``--model``), whose idf the topic takes;
without it, idf is counted online over the documents read, as a colony without one does.
``--fits`` prints each fit: its threshold, why, and the learned query's mode (taken or not).
(docs/benchmarks.md, "Topic feedback".)
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from newsforagers.defaults import FORAGERS_TOPIC_MIN_RELEVANCE
from newsforagers.pipelines import TOPIC_REFIT_GROWTH
from newsforagers.store.sqlite import SQLiteStore
from newsforagers.text.feedback import LearningTopic
from newsforagers.text.topic import Topic


def section_truth(path: Path, section: str) -> dict[str, bool]:
    """Each served story's URL and whether it is filed in ``section``."""
    truth = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            truth[row["url"]] = section in row.get("sections", [])
    return truth


def replay(run: Path, words: str, section: str, model: str | None, cosine: bool, fits: bool) -> dict:
    encoder = None
    if model:
        from newsforagers.text.encoder import StateEncoder

        encoder = StateEncoder.load(model)
    topic = Topic(words, encoder=encoder)
    floor = FORAGERS_TOPIC_MIN_RELEVANCE
    learning = (LearningTopic(topic, floor=floor, feedback=False, threshold="fixed") if cosine
                else LearningTopic(topic, floor=floor))
    truth = section_truth(run / "truth.jsonl", section)
    store = SQLiteStore(run / "colony.db", read_only=True)
    try:
        documents = store.documents_after(0)
    finally:
        store.close()
    fitted_on = 0
    counts = {"documents": len(documents), "section": 0, "kept": 0, "kept_others": 0, "fits": 0}
    for i, record in enumerate(documents):
        if not cosine and i >= max(learning.min_documents, math.ceil(fitted_on * TOPIC_REFIT_GROWTH)):
            learning.refit()
            fitted_on = i
            counts["fits"] += 1
            if fits:
                print(f"fit on {i}: threshold {learning.threshold.value:.3f} ({learning.threshold.reason}); "
                      f"mode: {learning.describe_mode()}")
        text = f"{record.title}\n{record.text or record.description}"
        topic.observe(text)
        relevance = learning.relevance(text)
        learning.add(text)
        on = truth.get(record.url)
        if on is None:
            continue  # (not a story of the replay)
        counts["section"] += on
        if relevance >= learning.threshold.value:
            counts["kept" if on else "kept_others"] += 1
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories (runs/<crawler>-r<N>)")
    parser.add_argument("--topic", required=True, help="the words the colony was given (-a topic)")
    parser.add_argument("--section", required=True, help="the section whose documents are the topic's")
    parser.add_argument("--model", default=None, help="the -a model the bench was given")
    parser.add_argument("--cosine", action="store_true", help="the papers' relevance at the floor")
    parser.add_argument("--fits", action="store_true", help="print each fit")
    args = parser.parse_args(argv)
    print("| run | documents | of the section | output of them | output of others | precision |")
    print("|---|---:|---:|---:|---:|---:|")
    for run in args.runs:
        c = replay(run, args.topic, args.section, args.model, args.cosine, args.fits)
        output = c["kept"] + c["kept_others"]
        print(f"| {run} | {c['documents']} | {c['section']} | {c['kept']} | {c['kept_others']} | "
              f"{c['kept'] / output if output else 0.0:.3f} |")


if __name__ == "__main__":
    main()
