"""Topic: the tf·idf cosine of Mouton & Marteau (2008, Sect. IV.A) against numbers computed
by hand, the three idf sources (corpus, encoder ``idf_``, online), the encoder's ``idf_``,
class profiles, bad input."""

import logging
import math
import re

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import TfidfVectorizer

from newsforagers.text import StateEncoder
from newsforagers.text.prtfidf import class_given_document
from newsforagers.text.topic import Topic

# Three tiny documents, N = 3. Document frequencies: storm 2; coast, rain, election, vote 1.
CORPUS = ["Storm on the coast", "storm and rain", "election vote"]
# Smoothed idf = ln((1 + N) / (1 + df)) + 1:
IDF_STORM = 1.2876820724517808  # ln(4/3) + 1
IDF_ONCE = 1.6931471805599454  # ln(4/2) + 1   (coast, rain, election, vote)
IDF_UNKNOWN = 2.386294361119891  # ln(4/1) + 1   (df = 0: a term the corpus lacks)


def test_idf_from_a_user_corpus_by_hand():
    topic = Topic("storm coast", corpus=CORPUS)
    assert topic.idf_source == "corpus" and topic.n_documents == 3
    assert topic.terms == {"storm": 1, "coast": 1}
    assert abs(topic.idf("storm") - IDF_STORM) < 1e-12
    assert abs(topic.idf("coast") - IDF_ONCE) < 1e-12
    assert abs(topic.idf("vote") - IDF_ONCE) < 1e-12
    assert abs(topic.idf("hurricane") - IDF_UNKNOWN) < 1e-12
    assert abs(IDF_STORM - (math.log(4 / 3) + 1)) < 1e-15  # the constants above are right


def test_cosine_by_hand_with_corpus_idf():
    topic = Topic("storm coast", corpus=CORPUS)
    # q = (storm 1·1.2876820724517808, coast 1·1.6931471805599454)
    #   ‖q‖² = 1.6581251 + 2.8667474 = 4.5248725, ‖q‖ = 2.1271748
    # page "Storm, storm and rain!": tf storm 2, rain 1 ("and" is a stop word)
    #   d = (storm 2·1.2876820724517808 = 2.5753641449035616, rain 1.6931471805599454)
    #   ‖d‖² = 6.6325005 + 2.8667474 = 9.4992479, ‖d‖ = 3.0820850
    #   q·d = 1.2876820724517808 · 2.5753641449035616 = 3.3162502
    #   r = 3.3162502 / (2.1271748 · 3.0820850) = 0.5058241
    q_storm, q_coast = IDF_STORM, IDF_ONCE
    d_storm, d_rain = 2 * IDF_STORM, IDF_ONCE
    by_hand = (q_storm * d_storm) / (
        math.sqrt(q_storm**2 + q_coast**2) * math.sqrt(d_storm**2 + d_rain**2))
    assert abs(by_hand - 0.5058240933025917) < 1e-12
    assert abs(topic.relevance("Storm, storm and rain!") - by_hand) < 1e-9
    # page "storm hurricane": hurricane is not in the corpus, df = 0
    #   d = (storm 1.2876820724517808, hurricane 2.386294361119891)
    #   r = 1.6581251 / (2.1271748 · sqrt(1.6581251 + 5.6944008))
    #     = 1.6581251 / (2.1271748 · 2.7115541) = 0.2874722
    by_hand = q_storm**2 / (
        math.sqrt(q_storm**2 + q_coast**2) * math.sqrt(q_storm**2 + IDF_UNKNOWN**2))
    assert abs(by_hand - 0.28747219451400635) < 1e-12
    assert abs(topic.relevance("storm hurricane") - by_hand) < 1e-9


def test_corpus_relevance_is_sklearns_tfidf_cosine_on_corpus_words():
    topic = Topic("storm coast", corpus=CORPUS)
    tfidf = TfidfVectorizer(token_pattern=r"\w\w+", stop_words="english", smooth_idf=True)
    tfidf.fit(CORPUS)
    pages = ["Storm, storm and rain!", "the coast", "election vote storm coast coast"]
    rows = tfidf.transform(["storm coast"] + pages).toarray()  # L2-normalised rows
    for page, row in zip(pages, rows[1:]):
        assert abs(topic.relevance(page) - rows[0] @ row) < 1e-12


def test_relevance_is_in_unit_interval_one_for_the_topic_zero_without_terms():
    topic = Topic("Storm warning on the north coast, storm surge expected", corpus=CORPUS)
    assert topic.relevance(topic.text) == pytest.approx(1.0, abs=1e-12)
    assert topic.relevance("STORM WARNING NORTH COAST STORM SURGE EXPECTED") == pytest.approx(1.0)
    for text in ["", "   ", "the and of", "!!! ... ???", "a b c", "election vote", "x" * 10_000]:
        value = topic.relevance(text)
        assert value == 0.0 and not math.isnan(value), text
    rng = np.random.default_rng(0)
    words = "storm coast rain election vote surge north warning the hurricane".split()
    for _ in range(200):
        value = topic.relevance(" ".join(rng.choice(words, size=int(rng.integers(1, 30)))))
        assert 0.0 <= value <= 1.0


def test_online_idf_counts_the_pages_observed():
    topic = Topic("storm coast")
    assert topic.idf_source == "online" and topic.n_documents == 0
    # Nothing observed: every idf is ln(1/1) + 1 = 1, the cosine of raw counts:
    # q = (1, 1), d = (storm 2, rain 1): r = 2 / (√2 · √5) = 0.6324555...
    assert abs(topic.relevance("storm storm rain") - 2 / math.sqrt(10)) < 1e-12
    for text in CORPUS:
        topic.observe(text)
    # The corpus's own document frequencies: the numbers of the corpus test.
    assert topic.n_documents == 3
    assert abs(topic.idf("storm") - IDF_STORM) < 1e-12
    assert abs(topic.idf("rain") - IDF_ONCE) < 1e-12
    assert abs(topic.idf("hurricane") - IDF_UNKNOWN) < 1e-12
    assert abs(topic.relevance("Storm, storm and rain!") - 0.5058240933025917) < 1e-9


def test_online_table_is_bounded_and_keeps_the_topics_and_frequent_terms():
    topic = Topic("storm", max_terms=2)
    topic.observe("alpha beta storm")
    topic.observe("alpha gamma")  # alpha 2, beta 1, gamma 1: over 2 terms, keep the top 1
    # N = 2: alpha df 2 -> ln(3/3) + 1 = 1; beta forgotten, df 0 -> ln(3/1) + 1
    assert abs(topic.idf("alpha") - 1.0) < 1e-12
    assert abs(topic.idf("beta") - (math.log(3) + 1)) < 1e-12
    assert abs(topic.idf("storm") - (math.log(3 / 2) + 1)) < 1e-12  # exact, never forgotten
    for i in range(1000):
        topic.observe(f"storm word{i} other{i}")
    assert len(topic._df) <= 2  # bounded memory
    assert abs(topic.idf("storm") - (math.log(1003 / 1002) + 1)) < 1e-12


def test_observe_is_a_no_op_for_a_fixed_idf():
    topic = Topic("storm coast", corpus=CORPUS)
    topic.observe("storm storm storm")
    assert topic.n_documents == 3 and abs(topic.idf("storm") - IDF_STORM) < 1e-12


# -- the encoder's idf_ ---------------------------------------------------------------------

ENCODER_TEXTS = [
    "rocket orbit satellite launch", "rocket planet comet orbit", "satellite telescope lunar",
    "recipe flour oven butter", "oven garlic roast recipe", "flour pastry basil butter",
    "goal striker referee penalty", "stadium goal league match", "coach keeper match goal",
    "!!!",  # no vocabulary word: counts in N all the same, as in TfidfVectorizer
]


@pytest.fixture(scope="module")
def encoder():
    return StateEncoder(n_clusters=3, random_state=0, min_df=1).fit(ENCODER_TEXTS)


def test_encoder_idf_is_tfidfvectorizers_on_the_same_texts_and_vocabulary(encoder):
    tfidf = TfidfVectorizer(vocabulary=encoder.vectorizer_.vocabulary_, token_pattern=r"\w\w+",
                            stop_words="english", smooth_idf=True).fit(ENCODER_TEXTS)
    assert encoder.idf_.dtype == np.float64
    assert encoder.idf_.shape == (len(encoder.vectorizer_.vocabulary_),)
    np.testing.assert_allclose(encoder.idf_, tfidf.idf_, rtol=0, atol=1e-12)
    # by hand: "goal" is in 3 of the 10 texts -> ln(11/4) + 1
    assert abs(encoder.idf_[encoder.vectorizer_.vocabulary_["goal"]]
               - (math.log(11 / 4) + 1)) < 1e-12


def test_topic_uses_the_encoders_idf(encoder):
    topic = Topic("goal rocket", encoder=encoder)
    assert topic.idf_source == "encoder" and topic.n_documents == 10
    assert abs(topic.idf("goal") - (math.log(11 / 4) + 1)) < 1e-12
    assert abs(topic.idf("rocket") - (math.log(11 / 3) + 1)) < 1e-12
    assert abs(topic.idf("unheard") - (math.log(11) + 1)) < 1e-12
    # page "goal goal striker": d = (goal 2·idf_goal, striker idf_striker), q = (goal, rocket)
    goal, rocket, striker = (math.log(11 / 4) + 1, math.log(11 / 3) + 1, math.log(11 / 2) + 1)
    by_hand = goal * 2 * goal / (math.hypot(goal, rocket) * math.hypot(2 * goal, striker))
    assert abs(topic.relevance("goal goal striker") - by_hand) < 1e-9


def test_a_corpus_is_preferred_to_an_encoder(encoder):
    topic = Topic("storm coast", corpus=CORPUS, encoder=encoder)
    assert topic.idf_source == "corpus" and abs(topic.idf("storm") - IDF_STORM) < 1e-12


def test_an_encoder_saved_without_idf_loads_works_and_the_topic_falls_back(encoder, tmp_path,
                                                                            caplog):
    old = StateEncoder(n_clusters=3, random_state=0, min_df=1).fit(ENCODER_TEXTS)
    del old.idf_  # as saved before idf_ existed
    old.save(tmp_path / "old.joblib")
    loaded = StateEncoder.load(tmp_path / "old.joblib")
    assert not hasattr(loaded, "idf_")
    np.testing.assert_array_equal(loaded.transform(ENCODER_TEXTS), encoder.transform(ENCODER_TEXTS))
    with caplog.at_level(logging.WARNING, logger="newsforagers.text.topic"):
        topic = Topic("goal rocket", encoder=loaded)
    assert topic.idf_source == "online" and topic.n_documents == 0
    assert "no idf_" in caplog.text
    assert topic.relevance("goal rocket") == pytest.approx(1.0)


def test_class_relevance_is_the_cosine_of_the_cluster_profiles(encoder):
    topic = Topic("rocket orbit", encoder=encoder)
    page = "satellite launch orbit"
    p, _ = class_given_document(encoder.vectorizer_.transform(["rocket orbit", page]),
                                encoder.p_class_given_word_)
    a, b = p[0, :3], p[1, :3]  # the general class dropped
    expected = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
    assert abs(topic.class_relevance(encoder, page) - expected) < 1e-12
    assert topic.class_relevance(encoder, "rocket orbit") == pytest.approx(1.0)
    assert topic.class_relevance(encoder, "recipe flour") < topic.class_relevance(encoder, page)
    assert topic.class_relevance(encoder, "") == 0.0
    assert topic.class_relevance(encoder, "unheard words") == 0.0
    assert Topic("unheard words").class_relevance(encoder, page) == 0.0
    with pytest.raises(NotFittedError):
        topic.class_relevance(StateEncoder(), page)


# -- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [None, 42, b"storm", ["storm"]])
def test_a_topic_that_is_not_a_str_is_refused_by_name(text):
    with pytest.raises(ValueError, match=r"topic \(.*\) must be a str"):
        Topic(text)


@pytest.mark.parametrize("text", ["", "   ", "the and of", "!!! ???", "a b c"])
def test_a_topic_without_terms_is_refused_by_name(text):
    with pytest.raises(ValueError, match=re.escape(f"topic ({text!r}) has no term")):
        Topic(text)
    with pytest.raises(ValueError, match="has no term"):
        Topic(text, corpus=CORPUS)


def test_a_long_topic_is_quoted_short():
    with pytest.raises(ValueError) as error:
        Topic("the " * 1000)
    assert len(str(error.value)) < 200


def test_bad_corpus_encoder_and_caps():
    with pytest.raises(TypeError, match="single str"):
        Topic("storm", corpus="storm coast")
    with pytest.raises(TypeError, match=r"corpus\[1\] is int"):
        Topic("storm", corpus=["storm", 3])
    with pytest.raises(TypeError, match="iterable of str"):
        Topic("storm", corpus=5)
    with pytest.raises(ValueError, match="no term can be read from the corpus"):
        Topic("storm", corpus=[])
    with pytest.raises(ValueError, match="no term can be read from the corpus"):
        Topic("storm", corpus=["the", "!!!"])
    with pytest.raises(TypeError, match="StateEncoder"):
        Topic("storm", encoder=object())
    with pytest.raises(NotFittedError):
        Topic("storm", encoder=StateEncoder())
    for bad in (0, -1, 1.5, True, None):
        with pytest.raises(ValueError, match=r"max_terms \(.*\) must be an integer"):
            Topic("storm", max_terms=bad)
    topic = Topic("storm")
    with pytest.raises(TypeError, match="text must be a str"):
        topic.relevance(None)
    with pytest.raises(TypeError, match="text must be a str"):
        topic.observe(b"storm")


def test_a_corpus_is_cut_to_its_most_frequent_terms():
    topic = Topic("storm", corpus=CORPUS, max_terms=1)
    assert abs(topic.idf("storm") - IDF_STORM) < 1e-12  # df 2: kept
    assert abs(topic.idf("coast") - IDF_UNKNOWN) < 1e-12  # df 1: cut, read as unknown
