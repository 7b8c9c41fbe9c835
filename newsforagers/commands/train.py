"""``newsforagers train``: fit the text state encoder on a corpus and save it.

``newsforagers train CORPUS -o model.joblib [--clusters 50] [--seed N]`` loads a JSON-lines
corpus (``newsforagers.corpus``), fits a :class:`newsforagers.text.StateEncoder` (PDDP
clusters, PrTFIDF classifier) on the article texts and writes it with joblib.
"""

from __future__ import annotations

import sys

from newsforagers.commands.arguments import at_least_one
from newsforagers.defaults import FORAGERS_N_CLUSTERS

HELP = "fit the k-dimensional text state encoder (PDDP + PrTFIDF) on a corpus and save it"


def add_arguments(parser) -> None:
    parser.add_argument("corpus", help="corpus file, JSON lines (.jsonl or .jsonl.gz)")
    parser.add_argument("-o", "--output", required=True, help="where to write the model (.joblib)")
    parser.add_argument("--clusters", type=at_least_one, default=FORAGERS_N_CLUSTERS,
                        help=f"PDDP clusters = state dimension k (default {FORAGERS_N_CLUSTERS})")
    # A fixed default seed: two runs on the same corpus give the same model.
    parser.add_argument("--seed", type=int, default=0, help="random seed for PDDP (default 0)")


def _error(message: str) -> int:
    print(f"newsforagers train: error: {message}", file=sys.stderr)
    return 2


def run(args) -> int:
    import time
    from pathlib import Path

    import numpy as np

    from newsforagers.corpus import CorpusError, load_corpus
    from newsforagers.text import StateEncoder

    output = Path(args.output)
    # Fail before the fit, not after it.
    if not output.parent.is_dir():
        return _error(f"output directory {str(output.parent)!r} does not exist")
    started = time.perf_counter()
    try:
        corpus = load_corpus(args.corpus)
    except CorpusError as exc:
        return _error(str(exc))
    texts = [article.text for article in corpus.articles]
    encoder = StateEncoder(n_clusters=args.clusters, random_state=args.seed)
    try:
        encoder.fit(texts)
    except ValueError as exc:  # too few documents for the clusters, no vocabulary, ...
        return _error(str(exc))
    try:
        encoder.save(output)
    except OSError as exc:
        return _error(f"cannot write {str(output)!r}: {exc}")
    seconds = time.perf_counter() - started

    sizes = encoder.cluster_sizes_
    print(f"corpus: {corpus.source} — {encoder.n_documents_} documents clustered, "
          f"{len(corpus.skipped)} corpus line(s) skipped, "
          f"{encoder.n_unknown_} document(s) without vocabulary")
    print(f"clusters: {encoder.n_clusters_}, sizes min/median/max "
          f"{sizes.min()}/{float(np.median(sizes)):g}/{sizes.max()}; "
          f"vocabulary: {len(encoder.vectorizer_.vocabulary_)} terms")
    print(f"state: {100 * encoder.yes_fraction_:.1f}% of documents have a component above 0 "
          f"(tanh((p - {encoder.tanh_offset:g}) * {encoder.tanh_scale:g}))")
    print(f"model written to {output} in {seconds:.1f} s")
    return 0
