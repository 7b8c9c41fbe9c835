"""The must-show: the encoder on the real digital.gov corpus (skipped when it is absent)."""

import numpy as np
import pytest

from newsforagers.corpus import default_corpus_path, load_corpus
from newsforagers.text import StateEncoder
from newsforagers.text.prtfidf import class_given_document


@pytest.fixture(scope="module")
def texts():
    path = default_corpus_path()
    if path is None:
        pytest.skip("../shared/data/digitalgov.jsonl.gz is not available")
    return [article.text for article in load_corpus(path).articles]


@pytest.fixture(scope="module")
def encoder(texts):
    return StateEncoder(n_clusters=50, random_state=0).fit(texts)


@pytest.fixture(scope="module")
def states(encoder, texts):
    return encoder.transform(texts)


def test_fifty_non_empty_clusters(encoder, texts):
    assert encoder.cluster_sizes_.shape == (50,)
    assert encoder.cluster_sizes_.min() > 0
    assert encoder.cluster_sizes_.sum() == encoder.n_documents_ == len(texts) - encoder.n_unknown_
    assert set(encoder.labels_[encoder.labels_ >= 0].tolist()) == set(range(50))


def test_states_in_range(states, texts):
    assert states.shape == (len(texts), 50) and states.dtype == np.float32
    assert np.isfinite(states).all()
    assert states.min() >= -1.0 and states.max() <= 1.0


def test_deterministic_for_a_fixed_random_state(encoder, states, texts):
    again = StateEncoder(n_clusters=50, random_state=0).fit(texts)
    np.testing.assert_array_equal(again.labels_, encoder.labels_)
    np.testing.assert_array_equal(again.transform(texts), states)


def test_classifier_recognises_the_clusters(encoder, texts):
    # PrTFIDF's most probable class is the document's own PDDP cluster for most documents,
    # even though the absolute p(C|d) stay far below the papers' 0.5 (see the docs).
    p, _ = class_given_document(encoder.vectorizer_.transform(texts), encoder.p_class_given_word_)
    clustered = encoder.labels_ >= 0
    agree = p[clustered, :50].argmax(axis=1) == encoder.labels_[clustered]
    assert agree.mean() > 0.8
