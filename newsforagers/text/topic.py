"""A topic and the relevance of a page to it: the tf·idf cosine of topical crawlers.

Mouton & Marteau, "Population control for multi-agent based topical crawlers" (2008),
Sect. IV.A: "The target topics are described as simple text queries and our prototype uses
the tf*idf metric to evaluate the relevance of crawled pages and of links contexts. Links
contexts are extracted according to the recommendation of Pant & al." (G. Pant and
P. Srinivasan, "Link contexts in classifier-guided topical crawlers", *IEEE TKDE* 18(1),
2006; the link context itself is read by :func:`newsforagers.pages.links.link_contexts`).
With ``tf(w, x)`` the count of term ``w`` in text ``x``::

    q_w = tf(w, topic) · idf(w)        d_w = tf(w, page) · idf(w)
    r(page) = Σ_w q_w d_w / (‖q‖₂ ‖d‖₂)        (0 when either vector is zero)

r lies in [0, 1]: every weight is non-negative. The paper "estimated [idf] before
initialization by using the number of results returned by google queries on the keywords of
the topic"; we have no search engine, so idf comes, in this order of preference, from

a. a corpus the user gives: scikit-learn's smoothed idf
   (``TfidfVectorizer(smooth_idf=True)``) ``idf(w) = ln((1 + N) / (1 + df(w))) + 1`` over its
   N texts;
b. a fitted :class:`~newsforagers.text.encoder.StateEncoder`: its ``idf_``, the same rule over
   the texts it was fitted on (an encoder saved before ``idf_`` existed falls back to c);
c. online: the same rule over the pages seen so far (:meth:`Topic.observe`).

Every term has an idf: a term the source does not know gets ``df = 0`` (the rule's own value,
``ln(1 + N) + 1``). An unknown term is a rare one, since a corpus counts every term, an
encoder keeps its most frequent terms, and the online table keeps the most frequent ones;
the page norm ``‖d‖`` needs the idf of every page term, not only of the topic's.

Texts are tokenised exactly as the encoder does: lower-cased, tokens matching
``_TOKEN_PATTERN`` (``\\w\\w+``), the encoder's default English stop words removed (with an
encoder as the source, that encoder's own analyser). See docs/algorithms.md, "Topic
relevance".
"""

from __future__ import annotations

import heapq
import logging
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from operator import itemgetter

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.utils.validation import check_is_fitted

from newsforagers.text.encoder import _TOKEN_PATTERN, StateEncoder, _smoothed_idf
from newsforagers.text.prtfidf import class_given_document

__all__ = ["TOPIC_MAX_TERMS", "Topic"]

logger = logging.getLogger(__name__)

#: Distinct terms whose document frequency a :class:`Topic` keeps (besides the topic's own
#: terms): the encoder's ``max_features``. A corpus is cut to its most frequent terms; the
#: online table, when full, forgets the less frequent half.
TOPIC_MAX_TERMS = 20_000

# The encoder's default: a topic without an encoder reads texts as a default encoder would.
_STOP_WORDS = StateEncoder().stop_words

# How much of a topic text an error message quotes.
_QUOTED = 60


def _quoted(topic) -> str:
    text = repr(topic)
    return text if len(text) <= _QUOTED else text[: _QUOTED - 3] + "..."


def _default_analyzer() -> Callable[[str], list[str]]:
    return CountVectorizer(token_pattern=_TOKEN_PATTERN, stop_words=_STOP_WORDS).build_analyzer()


def _checked_texts(corpus) -> Iterator[str]:
    """The corpus's texts, one at a time; TypeError naming the first that is not a ``str``."""
    for index, text in enumerate(corpus):
        if not isinstance(text, str):
            raise TypeError(f"corpus[{index}] is {type(text).__name__}, not str")
        yield text


def _check_text(text, name: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}")
    return text


class Topic:
    """A topic query and the relevance of texts to it (Mouton & Marteau 2008, Sect. IV.A).

    ``relevance(text)`` is the cosine between the topic's and the text's tf·idf vectors
    (raw term counts times idf), in [0, 1]; see the module docstring for the equation and
    where idf comes from.

    Parameters
    ----------
    text : str
        The topic: a few words, or a longer text (a description, an example article).
    corpus : iterable of str, optional
        Texts to learn idf from (source a). Read once; only its ``max_terms`` terms of
        highest document frequency are kept.
    encoder : StateEncoder, optional
        A fitted encoder whose ``idf_`` gives idf (source b), used when no ``corpus`` is
        given. An encoder without ``idf_`` (saved by an earlier version) leaves the topic
        on online idf, with a warning.
    max_terms : int, default :data:`TOPIC_MAX_TERMS`
        Bounds the memory: terms of a corpus kept, and distinct non-topic terms whose online
        document frequency is counted.

    Raises ``ValueError`` naming the topic when it is not a ``str`` or has no term (empty,
    punctuation, only stop words); ``TypeError`` for a corpus that is not an iterable of
    ``str`` or an encoder that is not a ``StateEncoder``; ``ValueError`` for an empty corpus
    or one without any term, and for a bad ``max_terms``; scikit-learn's ``NotFittedError``
    for an unfitted encoder.

    Attributes
    ----------
    text : str
    terms : dict of str to int
        The topic's terms and their counts ``tf(w, topic)``.
    idf_source : {"corpus", "encoder", "online"}
    n_documents : int
        N, the texts the idf is counted over (for online idf, the pages observed so far).
    """

    def __init__(self, text, *, corpus: Iterable[str] | None = None,
                 encoder: StateEncoder | None = None, max_terms: int = TOPIC_MAX_TERMS):
        if isinstance(max_terms, bool) or not isinstance(max_terms, int) or max_terms < 1:
            raise ValueError(f"max_terms ({max_terms!r}) must be an integer higher than 0.")
        if not isinstance(text, str):
            raise ValueError(
                f"topic ({_quoted(text)}) must be a str of words, not {type(text).__name__}"
            )
        if encoder is not None and not isinstance(encoder, StateEncoder):
            raise TypeError(f"encoder must be a StateEncoder, got {type(encoder).__name__}")
        self.text = text
        self.max_terms = max_terms
        # Set by the source below: how texts are tokenised, and either a fixed vocabulary
        # with its idf (corpus, encoder) or the online document frequencies.
        self._vocabulary: dict[str, int] | None = None
        self._idf: np.ndarray | None = None
        self._df: dict[str, int] = {}
        with_idf = encoder is not None and getattr(encoder, "idf_", None) is not None
        if encoder is not None and corpus is None:
            check_is_fitted(encoder, "vectorizer_")
            # exactly the encoder's tokens, whatever stop words it was fitted with
            self._analyze = encoder.vectorizer_.build_analyzer()
        else:
            self._analyze = _default_analyzer()
        # checked before a corpus is read: a bad topic should not cost a pass over it
        self.terms = dict(Counter(self._analyze(text)))
        if not self.terms:
            raise ValueError(
                f"topic ({_quoted(text)}) has no term: it is empty, or only punctuation, "
                f"one-letter words or stop words"
            )
        if corpus is not None:
            self._fit_corpus(corpus)
            self.idf_source = "corpus"
        elif with_idf:
            self._vocabulary = encoder.vectorizer_.vocabulary_
            self._idf = np.asarray(encoder.idf_, dtype=np.float64)
            self.n_documents = int(encoder.n_documents_ + encoder.n_unknown_)
            self.idf_source = "encoder"
        else:
            if encoder is not None:
                logger.warning(
                    "Topic: the state encoder has no idf_ (saved by an earlier version): "
                    "idf is counted online over the pages observed; refit the model to use "
                    "its vocabulary's idf"
                )
            self.n_documents = 0
            self.idf_source = "online"
        # Online df of the topic's own terms is exact, whatever the table forgets: they
        # make the cosine's numerator.
        self._topic_df = dict.fromkeys(self.terms, 0)
        self._topic_weights: np.ndarray | None = None
        if self.idf_source != "online":
            self._topic_weights = self._weights(self.terms)

    def _fit_corpus(self, corpus) -> None:
        if isinstance(corpus, (str, bytes)):
            # A lone string is an iterable of one-character "documents": never what was meant.
            raise TypeError(
                f"corpus must be an iterable of str, got a single {type(corpus).__name__}")
        try:
            texts = iter(corpus)
        except TypeError:
            raise TypeError(
                f"corpus must be an iterable of str, got {type(corpus).__name__}") from None
        # binary: a column sum is a document frequency, so max_features keeps the terms of
        # highest df.
        vectorizer = CountVectorizer(analyzer=self._analyze, binary=True,
                                     max_features=self.max_terms)
        try:
            present = vectorizer.fit_transform(_checked_texts(texts))
        except ValueError as exc:
            raise ValueError(
                f"Topic: no term can be read from the corpus (empty, or only stop words): {exc}"
            ) from exc
        self.n_documents = int(present.shape[0])
        self._vocabulary = vectorizer.vocabulary_
        self._idf = _smoothed_idf(np.asarray(present.sum(axis=0)).ravel(), self.n_documents)

    # -- idf -----------------------------------------------------------------------------

    def idf(self, term: str) -> float:
        """``idf(term)`` as :meth:`relevance` uses it now (``df = 0`` for an unknown term)."""
        return float(self._idf_of([term])[0])

    def idfs(self, terms: list[str]) -> np.ndarray:
        """:meth:`idf` of each of ``terms``, as an array."""
        return self._idf_of(list(terms))

    def _idf_of(self, terms: list[str]) -> np.ndarray:
        if self._vocabulary is not None:
            unknown = -1
            columns = np.fromiter((self._vocabulary.get(t, unknown) for t in terms),
                                  dtype=np.int64, count=len(terms))
            idf = np.full(len(terms), _smoothed_idf(0, self.n_documents))
            known = columns != unknown
            idf[known] = self._idf[columns[known]]
            return idf
        df = [self._topic_df[t] if t in self._topic_df else self._df.get(t, 0) for t in terms]
        return _smoothed_idf(df, self.n_documents)

    def _weights(self, counts: dict[str, int]) -> np.ndarray:
        terms = list(counts)
        tf = np.fromiter(counts.values(), dtype=np.float64, count=len(terms))
        return tf * self._idf_of(terms)

    def observe(self, text: str) -> None:
        """Count ``text`` as one more page for online idf (source c).

        A no-op when idf comes from a corpus or an encoder, so the caller may observe every
        page whatever the source. Call it before :meth:`relevance` of the same page, so a
        page counts in its own document frequencies as a corpus document does.

        Memory is bounded: document frequencies of the topic's terms are exact; other terms
        are counted in a table of at most ``max_terms`` terms, which, when full, keeps its
        ``max_terms // 2`` most frequent terms and forgets the rest. A forgotten term reads
        ``df = 0`` until seen again, then counts from 1: its idf is overestimated, by at most
        ``ln((1 + df) / 1)`` for a term of true ``df``, and only for terms rarer than those kept,
        whose idf is highest and least in error anyway.
        """
        text = _check_text(text, "text")
        if self.idf_source != "online":
            return
        self.n_documents += 1
        for term in set(self._analyze(text)):
            if term in self._topic_df:
                self._topic_df[term] += 1
            else:
                self._df[term] = self._df.get(term, 0) + 1
        if len(self._df) > self.max_terms:
            kept = heapq.nlargest(self.max_terms // 2, self._df.items(), key=itemgetter(1))
            self._df = dict(kept)

    # -- relevance -----------------------------------------------------------------------

    def relevance(self, text: str, query: dict[str, float] | None = None) -> float:
        """The cosine ``r = q·d / (‖q‖ ‖d‖)`` of the topic's and ``text``'s tf·idf vectors.

        In [0, 1]; 1.0 for the topic's own text (up to rounding); 0.0 for a text without any
        term (empty, punctuation, only stop words). Never NaN. A text that is not a ``str``
        raises ``TypeError``. ``query`` (term to its weight, already tf·idf: a query moved by
        feedback, :class:`LearningTopic`) replaces the topic's own vector.
        """
        return self.relevance_of(Counter(self._analyze(_check_text(text, "text"))), query)

    def relevance_of(self, counts: Mapping[str, int], query: dict[str, float] | None = None) -> float:
        """:meth:`relevance` of a text already read into its terms' counts (``counts``: term to
        ``tf``; :class:`LearningTopic` counts a word's other forms as the word's)."""
        if not counts:
            return 0.0
        page = self._weights(counts)
        if query is not None:
            terms = list(query)
            topic = np.fromiter(query.values(), dtype=np.float64, count=len(terms))
        else:
            terms = list(self.terms)
            topic = self._topic_weights
            if topic is None:  # online idf moves with every page observed
                topic = self._weights(self.terms)
        position = {term: i for i, term in enumerate(counts)}
        shared = [(i, position[term]) for i, term in enumerate(terms) if term in position]
        if not shared:
            return 0.0
        topic_index, page_index = np.array(shared).T
        dot = float(topic[topic_index] @ page[page_index])
        # idf >= 1, so both norms are positive here (a query's weights are positive).
        cosine = dot / (math.sqrt(float(topic @ topic)) * math.sqrt(float(page @ page)))
        return min(1.0, max(0.0, cosine))

    def weights(self, text: str) -> dict[str, float]:
        """``text``'s tf·idf vector as a mapping, term to ``tf · idf`` (empty without a term)."""
        return self.weights_of(Counter(self._analyze(_check_text(text, "text"))))

    def weights_of(self, counts: Mapping[str, int]) -> dict[str, float]:
        """:meth:`weights` of a text already read into its terms' counts."""
        return dict(zip(counts, self._weights(counts).tolist())) if counts else {}

    def query_weights(self) -> dict[str, float]:
        """The topic's own tf·idf vector ``q``, term to weight."""
        return dict(zip(self.terms, self._weights(self.terms).tolist()))

    def analyze(self, text: str) -> list[str]:
        """``text``'s terms as the topic reads them (the encoder's tokens)."""
        return self._analyze(_check_text(text, "text"))

    def class_relevance(self, encoder: StateEncoder, text: str) -> float:
        """The cosine of the topic's and ``text``'s class profiles under ``encoder``.

        The profile of a text is its PrTFIDF output ``p(C|x) = Σ_w P(C|w) P(w|x)`` over the
        encoder's k clusters (Joachims 1997; ``prtfidf.class_given_document``, as
        :meth:`StateEncoder.transform` computes it before squashing), without the general
        class, which the state drops too: two texts close to "general text" are not thereby
        about the same thing. The issue's option beside the tf·idf relevance: a page about the
        topic in other words than the topic's scores by the clusters it shares with it.

        In [0, 1] (profiles are non-negative); 0.0 when the topic or the text has no word of
        the encoder's vocabulary (no evidence for any cluster).
        """
        check_is_fitted(encoder, "p_class_given_word_")
        text = _check_text(text, "text")
        counts = encoder.vectorizer_.transform([self.text, text])
        p, known = class_given_document(counts, encoder.p_class_given_word_)
        if not known.all():
            return 0.0
        topic, page = p[0, : encoder.n_clusters_], p[1, : encoder.n_clusters_]
        norms = float(np.linalg.norm(topic)) * float(np.linalg.norm(page))
        if norms == 0.0:
            return 0.0
        return min(1.0, max(0.0, float(topic @ page) / norms))

    def __repr__(self) -> str:
        return (f"Topic({_quoted(self.text)}, idf_source={self.idf_source!r}, "
                f"n_documents={self.n_documents})")
