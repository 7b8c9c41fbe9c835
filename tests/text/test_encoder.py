"""StateEncoder on a small synthetic corpus: API, numbers, persistence, bad input."""

import logging

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from newsforagers.text import StateEncoder
from newsforagers.text.prtfidf import class_given_document

TOPICS = {
    "space": "rocket orbit satellite launch astronaut planet comet telescope lunar galaxy",
    "cooking": "recipe flour oven butter garlic simmer roast pastry saucepan basil",
    "football": "goal striker referee penalty stadium midfield keeper league match coach",
}


def _corpus(per_topic=8, seed=0):
    rng = np.random.default_rng(seed)
    texts, topics = [], []
    for topic, words in TOPICS.items():
        words = words.split()
        for _ in range(per_topic):
            picked = rng.choice(words, size=12)
            texts.append(" ".join(picked) + " the news today")
            topics.append(topic)
    return texts, topics


TEXTS, TOPIC_OF = _corpus()


@pytest.fixture(scope="module")
def encoder():
    return StateEncoder(n_clusters=3, random_state=0, min_df=1).fit(TEXTS)


def test_init_only_stores_and_clone_works():
    est = StateEncoder(n_clusters="bad", tanh_scale=-1)  # validated in fit, not here
    assert est.get_params()["n_clusters"] == "bad"
    assert clone(StateEncoder(n_clusters=7)).n_clusters == 7


def test_clusters_are_the_topics(encoder):
    assert encoder.cluster_sizes_.tolist() == [8, 8, 8]
    for topic in TOPICS:
        members = {label for label, t in zip(encoder.labels_, TOPIC_OF) if t == topic}
        assert len(members) == 1


def test_state_shape_dtype_range_and_yes_for_own_cluster(encoder):
    states = encoder.transform(TEXTS)
    assert states.shape == (len(TEXTS), 3)
    assert states.dtype == np.float32
    assert np.isfinite(states).all() and states.min() >= -1.0 and states.max() <= 1.0
    # Distinct vocabularies: each document says "Yes" to its own cluster, "No" elsewhere.
    own = states[np.arange(len(TEXTS)), encoder.labels_]
    assert (own > 0.9).all()
    others = states.copy()
    others[np.arange(len(TEXTS)), encoder.labels_] = -1.0
    assert (others < -0.9).all()
    assert encoder.yes_fraction_ == 1.0


def test_state_is_the_papers_tanh_of_prtfidf(encoder):
    p, _ = class_given_document(encoder.vectorizer_.transform(TEXTS[:5]),
                                encoder.p_class_given_word_)
    expected = np.tanh((p[:, :3] - 0.5) * 40.0)  # footnote 2: (p - 0.5)·40, class k+1 dropped
    np.testing.assert_allclose(encoder.transform(TEXTS[:5]), expected, rtol=1e-6, atol=1e-6)
    shifted = clone(encoder).set_params(tanh_offset=0.2, tanh_scale=10)
    shifted.fit(TEXTS)
    np.testing.assert_allclose(shifted.transform(TEXTS[:5]), np.tanh((p[:, :3] - 0.2) * 10),
                               rtol=1e-6, atol=1e-6)


def test_general_class_defaults_to_the_corpus_weighted_as_one_cluster(encoder):
    # The corpus average as the general class, with prior 1/(k+1), takes exactly 1/(k+1) of
    # every word.
    np.testing.assert_allclose(encoder.class_prior_[-1], 1 / 4)
    np.testing.assert_allclose(encoder.p_class_given_word_[:, -1], 1 / 4)
    assert encoder.n_general_texts_ == len(TEXTS)
    np.testing.assert_allclose(encoder.p_class_given_word_.sum(axis=1), 1.0)


def test_general_texts_train_the_general_class():
    general = ["the news today weather traffic", "today news rocket recipe goal"] * 3
    est = StateEncoder(n_clusters=3, random_state=0, min_df=1, general_texts=general).fit(TEXTS)
    assert est.n_general_texts_ == 6
    vocab = est.vectorizer_.vocabulary_
    # "news"/"today" appear in every text: the general class claims a large share of them.
    assert est.p_class_given_word_[vocab["news"], -1] > est.p_class_given_word_[vocab["orbit"], -1]
    with pytest.raises(TypeError, match=r"general_texts\[1\] is bytes"):
        StateEncoder(n_clusters=3, min_df=1, general_texts=["ok", b"no"]).fit(TEXTS)
    with pytest.raises(ValueError, match="none of the 2 general_texts contains a vocabulary word"):
        StateEncoder(n_clusters=3, min_df=1, general_texts=["", "zzz"]).fit(TEXTS)


def test_deterministic_for_a_fixed_random_state(encoder):
    again = StateEncoder(n_clusters=3, random_state=0, min_df=1).fit(TEXTS)
    np.testing.assert_array_equal(again.labels_, encoder.labels_)
    np.testing.assert_array_equal(again.transform(TEXTS), encoder.transform(TEXTS))


def test_save_load_round_trip(encoder, tmp_path):
    path = tmp_path / "model.joblib"
    encoder.save(path)
    loaded = StateEncoder.load(path)
    np.testing.assert_array_equal(loaded.transform(TEXTS), encoder.transform(TEXTS))
    assert loaded.get_params() == encoder.get_params()


def test_load_refuses_what_is_not_a_fitted_encoder(tmp_path):
    with pytest.raises(FileNotFoundError, match="no state encoder model"):
        StateEncoder.load(tmp_path / "missing.joblib")
    joblib.dump({"not": "an encoder"}, tmp_path / "dict.joblib")
    with pytest.raises(ValueError, match="holds a dict, not a StateEncoder"):
        StateEncoder.load(tmp_path / "dict.joblib")
    joblib.dump(StateEncoder(), tmp_path / "unfitted.joblib")
    with pytest.raises(ValueError, match="never fitted"):
        StateEncoder.load(tmp_path / "unfitted.joblib")
    (tmp_path / "garbage.joblib").write_bytes(b"\x00not a pickle")
    with pytest.raises(ValueError, match="cannot read a state encoder"):
        StateEncoder.load(tmp_path / "garbage.joblib")
    with pytest.raises(NotFittedError):
        StateEncoder().save(tmp_path / "x.joblib")


def test_unknown_documents_go_to_the_general_class(encoder, caplog):
    texts = ["", "   ", "1234 %%% zzzz", TEXTS[0], "<html></html>"]
    with caplog.at_level(logging.DEBUG, logger="newsforagers.text.encoder"):
        states, unknown = encoder.transform_with_unknown(texts)
    np.testing.assert_array_equal(unknown, [True, True, True, False, True])
    assert (states[unknown] == -1.0).all()
    assert states[3].max() > 0.9
    assert encoder.count_unknown(texts) == 4
    assert encoder.count_unknown([]) == 0
    messages = [r for r in caplog.records if "no known word" in r.getMessage()]
    assert len(messages) == 1 and "4 of 5" in messages[0].getMessage()
    assert encoder.transform([]).shape == (0, 3)


def test_fit_skips_and_counts_texts_without_vocabulary():
    est = StateEncoder(n_clusters=3, random_state=0, min_df=1).fit(TEXTS + ["", "the"])
    assert est.n_unknown_ == 2 and est.n_documents_ == len(TEXTS)
    assert est.labels_[-2:].tolist() == [-1, -1]
    assert est.cluster_sizes_.sum() == len(TEXTS)


@pytest.mark.parametrize("bad, index, kind", [
    (None, 1, "NoneType"), (b"bytes", 1, "bytes"), (3.5, 1, "float"),
])
def test_non_string_texts_are_named_by_index(encoder, bad, index, kind):
    texts = [TEXTS[0], bad, TEXTS[1]]
    with pytest.raises(TypeError, match=rf"texts\[{index}\] is {kind}, not str"):
        StateEncoder(n_clusters=1, min_df=1).fit(texts)
    with pytest.raises(TypeError, match=rf"texts\[{index}\] is {kind}, not str"):
        encoder.transform(texts)
    with pytest.raises(TypeError, match=rf"texts\[{index}\] is {kind}, not str"):
        encoder.count_unknown(texts)


def test_a_lone_string_is_refused(encoder):
    with pytest.raises(TypeError, match="got a single str"):
        encoder.transform("one page")
    with pytest.raises(TypeError, match="iterable of str, got int"):
        encoder.transform(5)


def test_fit_errors():
    with pytest.raises(ValueError, match="2 texts for n_clusters=3"):
        StateEncoder(n_clusters=3).fit(["a b", "c d"])
    with pytest.raises(ValueError, match="no vocabulary can be built from the 4 texts"):
        StateEncoder(n_clusters=2).fit(["", "", "  ", ""])
    with pytest.raises(ValueError, match="no vocabulary can be built"):
        StateEncoder(n_clusters=2, min_df=1).fit(["the and", "of the", "is a"])
    with pytest.raises(ValueError, match=r"only 2 of the 4 texts contain a vocabulary word"):
        StateEncoder(n_clusters=3, min_df=1).fit(["orbit", "", "", "recipe"])
    with pytest.raises(ValueError, match="must be an integer higher than 0"):
        StateEncoder(n_clusters=0).fit(TEXTS)
    with pytest.raises(ValueError, match="tanh_scale"):
        StateEncoder(n_clusters=3, tanh_scale=float("nan")).fit(TEXTS)
    with pytest.raises(ValueError, match="tanh_offset"):
        StateEncoder(n_clusters=3, tanh_offset=2).fit(TEXTS)
    with pytest.raises(NotFittedError):
        StateEncoder().transform(TEXTS)


def test_each_strategy_gets_its_own_squashing_and_the_default_ones_state_is_informative(tmp_path, caplog):
    """``FORAGERS_TANH_OFFSET`` unset: the papers' 0.5 for ``paper`` (kept exact, and on one
    site's vocabulary nearly constant: fit warns), 0.08 for ``scheduled``, the default strategy,
    whose state on the synthetic site is Yes/No-like: no warning in a default run."""
    from newsforagers.config import ForagersConfig
    from newsforagers.corpus import load_corpus
    from newsforagers.replay.synth import synth_corpus

    paper = ForagersConfig.from_settings({"FORAGERS_STRATEGY": "paper"})
    default = ForagersConfig.from_settings({})
    assert (paper.tanh_offset, default.strategy, default.tanh_offset) == (0.5, "scheduled", 0.08)
    assert ForagersConfig.from_settings({"FORAGERS_TANH_OFFSET": "0.2"}).tanh_offset == 0.2

    corpus = load_corpus(synth_corpus(tmp_path / "synth.jsonl.gz", days=1, rate=300, sections=16, seed=1))
    texts = [f"{a.title}\n{a.summary or ''}\n{a.body or ''}" for a in corpus][:300]

    def fit(config):
        caplog.clear()
        with caplog.at_level("WARNING", logger="newsforagers.text.encoder"):
            encoder = StateEncoder(n_clusters=config.n_clusters, tanh_scale=config.tanh_scale,
                                   tanh_offset=config.tanh_offset, random_state=0).fit(texts)
        return encoder, [r for r in caplog.records if "nearly constant" in r.getMessage()]

    encoder, warned = fit(paper)
    assert encoder.yes_fraction_ < 0.05 and warned
    encoder, warned = fit(default)
    assert encoder.yes_fraction_ > 0.2 and not warned
