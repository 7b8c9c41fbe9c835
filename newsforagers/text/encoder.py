"""The forager's text state: k PrTFIDF outputs over PDDP clusters, squashed by tanh.

Palotai, Mandusitz & Lőrincz (2003) and Palotai, Farkas & Lőrincz ("Evolution of news
foragers", "Selection in scale-free small world"): each forager has a k = 50 dimensional
PrTFIDF classifier (Joachims 1997) trained on 50 clusters made by Boley's PDDP (1998) from
previously downloaded documents, plus a (k+1)-th class of "general texts from the internet".
The outputs are mapped to [-1, +1] by ``tanh((p - 0.5) · 40)`` (footnote 2 of the evolution
paper: "Yes/No-like outputs for the overwhelming majority of the inputs"); the (k+1)-th output
is dismissed. That k-vector is the state ``s`` of the linear value ``w · s``.

See docs/algorithms-text.md for the equations and the choices the papers leave open.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import joblib
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
from sklearn.utils.validation import check_is_fitted

from newsforagers.defaults import FORAGERS_N_CLUSTERS, FORAGERS_TANH_SCALE, PAPER_TANH_OFFSET
from newsforagers.text.pddp import pddp
from newsforagers.text.prtfidf import (
    class_given_document,
    class_given_word,
    class_prior,
    word_given_class,
    word_given_document,
)

__all__ = ["StateEncoder"]

logger = logging.getLogger(__name__)

# scikit-learn's default token pattern without its two \b: on a string, findall of \w\w+
# already yields exactly the maximal runs of two or more word characters, and it runs about
# 25% faster; tokenising is the largest share of the encoder's time.
_TOKEN_PATTERN = r"\w\w+"

# The fitted attribute whose presence means "fitted".
_FITTED = "p_class_given_word_"

# Below this share of fitted documents with any "Yes" component, the state is nearly the
# constant -1 and the value w·s cannot tell pages apart: fit says so.
_DEGENERATE_YES_FRACTION = 0.05


def _check_texts(texts, name: str) -> list[str]:
    """A list of the texts; TypeError naming the first one that is not a ``str``."""
    if isinstance(texts, (str, bytes)):
        # A lone string is an iterable of one-character "documents": never what was meant.
        raise TypeError(f"{name} must be an iterable of str, got a single {type(texts).__name__}")
    try:
        texts = list(texts)
    except TypeError:
        raise TypeError(f"{name} must be an iterable of str, got {type(texts).__name__}") from None
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{name}[{index}] is {type(text).__name__}, not str")
    return texts


def _check_squashing(scale, offset) -> tuple[float, float]:
    def is_number(value):
        return (not isinstance(value, bool) and isinstance(value, (int, float, np.number))
                and math.isfinite(value))

    if not is_number(scale) or scale <= 0:
        raise ValueError(f"tanh_scale ({scale!r}) must be a finite number higher than 0.")
    if not is_number(offset) or not 0 <= offset <= 1:
        raise ValueError(f"tanh_offset ({offset!r}) must be a number between 0 and 1.")
    return float(scale), float(offset)


def _general_class(vectorizer, p_word_document, general):
    """``P(w|general)`` and the number of texts it was estimated from.

    Without general texts, the fitted corpus stands for "general texts from the internet".
    """
    if general is None:
        return np.asarray(p_word_document.mean(axis=0)).ravel(), p_word_document.shape[0]
    counts = vectorizer.transform(general)
    known = np.asarray(counts.sum(axis=1)).ravel() > 0
    if not known.any():
        raise ValueError(
            f"StateEncoder.fit: none of the {len(general)} general_texts contains a "
            f"vocabulary word"
        )
    p_word = word_given_document(counts[np.flatnonzero(known)])
    return np.asarray(p_word.mean(axis=0)).ravel(), int(known.sum())


def _smoothed_idf(df, n: int) -> np.ndarray:
    """scikit-learn's smoothed idf ``ln((1 + n) / (1 + df)) + 1`` of terms found in ``df`` of
    ``n`` documents: at least 1 whenever ``df <= n``."""
    return np.log((1.0 + n) / (1.0 + np.asarray(df, dtype=np.float64))) + 1.0


class StateEncoder(TransformerMixin, BaseEstimator):
    """Texts to k-dimensional forager states in [-1, 1] (PrTFIDF over PDDP clusters).

    ``fit(texts)`` counts terms with a scikit-learn ``CountVectorizer``, clusters the
    documents' L2-normalised tf-idf rows into ``n_clusters`` leaves by PDDP (Boley 1998),
    and trains PrTFIDF (Joachims 1997) on those clusters plus one general class.
    ``transform(texts)`` returns ``tanh((p(C|d) - tanh_offset) · tanh_scale)`` for the
    ``n_clusters`` cluster classes, float32 of shape (n, n_clusters); the general class is
    dropped, as in the papers.

    Parameters
    ----------
    n_clusters : int, default 50
        k, the number of PDDP clusters and the state dimension.
    random_state : None, int or numpy.random.Generator
        Seeds PDDP; an int makes ``fit`` reproducible.
    max_features : int or None, default 20000
        Vocabulary cap (most frequent terms), bounding the model at about
        ``max_features · (k + 1) · 8`` bytes.
    min_df : int or float, default 2
        Minimum document frequency of a term: a word seen in a single document cannot link
        documents, and it is mostly typos and URL fragments.
    stop_words : "english", list or None, default "english"
        Passed to ``CountVectorizer``.
    general_texts : iterable of str or None
        Texts for the (k+1)-th "general" class. The papers used "general texts from the
        internet"; when None, the fitted corpus itself stands for them. Either way the
        general class is weighted like one average cluster: ``P(general) = 1/(k+1)``.
    tanh_scale : float, default 40
        The slope of the squashing (footnote 2 of the evolution paper: 40).
    tanh_offset : float, default 0.5
        The probability mapped to 0 (footnote 2: 0.5). With 50 clusters that share much of
        their vocabulary, p(C|d) rarely reaches 0.5 and the paper's mapping leaves the state
        at -1 almost everywhere; ``yes_fraction_`` measures it (see docs/algorithms-text.md).

    Attributes
    ----------
    vectorizer_ : CountVectorizer
    n_clusters_ : int
    labels_ : ndarray of int64, shape (n_texts,)
        PDDP cluster of each fitted text; -1 for a text without any vocabulary word (such
        texts are not clustered and not trained on).
    cluster_sizes_ : ndarray of int64, shape (n_clusters,)
        All positive.
    class_prior_ : ndarray, shape (n_clusters + 1,)
        ``P(C)``; the last entry is the general class.
    p_class_given_word_ : ndarray, shape (n_terms, n_clusters + 1)
        ``P(C|w)``; the last column is the general class.
    n_documents_ : int
        Fitted texts that were clustered.
    n_unknown_ : int
        Fitted texts without any vocabulary word.
    n_general_texts_ : int
        Texts the general class was trained on.
    idf_ : ndarray of float64, shape (n_terms,)
        Smoothed inverse document frequency of each vocabulary term over all the fitted
        texts (``n_documents_ + n_unknown_`` of them), scikit-learn's
        ``TfidfVectorizer(smooth_idf=True)`` rule ``ln((1 + N) / (1 + df)) + 1``. The
        encoder itself does not use it: :class:`~newsforagers.text.topic.Topic` weighs a
        topic's terms with it. Models saved before it existed lack it.
    yes_fraction_ : float
        Share of the clustered documents whose state has at least one component above 0
        (a "Yes"), with the squashing in force at fit time. Near 0 means a nearly constant
        state.
    """

    def __init__(self, n_clusters=FORAGERS_N_CLUSTERS, random_state=None, max_features=20000,
                 min_df=2, stop_words="english", general_texts=None,
                 tanh_scale=FORAGERS_TANH_SCALE, tanh_offset=PAPER_TANH_OFFSET):
        self.n_clusters = n_clusters
        self.random_state = random_state
        self.max_features = max_features
        self.min_df = min_df
        self.stop_words = stop_words
        self.general_texts = general_texts
        self.tanh_scale = tanh_scale
        self.tanh_offset = tanh_offset

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags

    # -- fitting -----------------------------------------------------------------------------

    def fit(self, texts, y=None):
        """Learn the vocabulary, the PDDP clusters and ``P(C|w)``; returns ``self``."""
        k = self.n_clusters
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"n_clusters ({k!r}) must be an integer higher than 0.")
        k = int(k)
        scale, offset = _check_squashing(self.tanh_scale, self.tanh_offset)
        texts = _check_texts(texts, "texts")
        general = self.general_texts
        if general is not None:
            general = _check_texts(general, "general_texts")
        n_texts = len(texts)
        if n_texts < k:
            raise ValueError(
                f"StateEncoder.fit: {n_texts} texts for n_clusters={k}: every cluster needs "
                f"at least one document"
            )

        vectorizer = CountVectorizer(
            max_features=self.max_features, min_df=self.min_df, stop_words=self.stop_words,
            token_pattern=_TOKEN_PATTERN,
        )
        try:
            counts = vectorizer.fit_transform(texts)
        except ValueError as exc:
            raise ValueError(
                f"StateEncoder.fit: no vocabulary can be built from the {n_texts} texts "
                f"(empty, only stop words, or every term below min_df={self.min_df!r}): {exc}"
            ) from exc

        # Over every fitted text, the ones without a vocabulary word too: the idf that
        # TfidfVectorizer would learn from the same texts and vocabulary.
        idf = _smoothed_idf(np.asarray((counts > 0).sum(axis=0)).ravel(), n_texts)
        totals = np.asarray(counts.sum(axis=1)).ravel()
        used = np.flatnonzero(totals > 0)
        if used.size < k:
            raise ValueError(
                f"StateEncoder.fit: only {used.size} of the {n_texts} texts contain a "
                f"vocabulary word; n_clusters={k} needs at least {k}"
            )
        if used.size < n_texts:
            logger.warning(
                "StateEncoder.fit: %d of %d texts have no vocabulary word and are not clustered",
                n_texts - used.size, n_texts,
            )
        counts = counts[used]

        # PDDP compares directions: Boley scales every document vector to unit length.
        tfidf = TfidfTransformer(norm="l2").fit_transform(counts)
        clusters = pddp(tfidf, k, random_state=self.random_state)
        sizes = np.bincount(clusters, minlength=k)

        p_word_document = word_given_document(counts)
        p_word_cluster = word_given_class(p_word_document, clusters, k)
        p_word_general, n_general = _general_class(vectorizer, p_word_document, general)
        # Weighted like one average cluster: with Joachims' |C|/N and the corpus itself as
        # the general class, that class would hold half of every word's mass, every cluster
        # output would stay below 0.5 and every state component would read "No".
        prior = class_prior(np.append(sizes, used.size / k))
        p_word_class = np.vstack([p_word_cluster, p_word_general[None, :]])

        p_class_word = class_given_word(p_word_class, prior)
        p_fitted, _ = class_given_document(counts, p_class_word)
        yes_fraction = float((p_fitted[:, :k] > offset).any(axis=1).mean())
        if yes_fraction < _DEGENERATE_YES_FRACTION:
            logger.warning(
                "StateEncoder.fit: only %.1f%% of the fitted documents get any state component "
                "above 0 with tanh((p - %g) * %g): the state is nearly constant -1 (median "
                "largest p(C|d) = %.3f); a lower tanh_offset keeps it informative",
                100 * yes_fraction, offset, scale, float(np.median(p_fitted[:, :k].max(axis=1))),
            )

        labels = np.full(n_texts, -1, dtype=np.int64)
        labels[used] = clusters
        self.vectorizer_ = vectorizer
        self.n_clusters_ = k
        self.labels_ = labels
        self.cluster_sizes_ = sizes
        self.class_prior_ = prior
        self.p_class_given_word_ = p_class_word
        self.n_documents_ = int(used.size)
        self.n_unknown_ = int(n_texts - used.size)
        self.n_general_texts_ = n_general
        self.yes_fraction_ = yes_fraction
        self.idf_ = idf
        return self

    # -- encoding ----------------------------------------------------------------------------

    def transform(self, texts) -> np.ndarray:
        """States ``tanh((p(C|d) - tanh_offset) · tanh_scale)``: float32, shape (n, n_clusters).

        A text without any vocabulary word (an empty or non-text page) has no evidence for
        any cluster: it goes wholly to the general class, so its state is
        ``tanh(-tanh_offset · tanh_scale)``, -1.0 with the papers' values.
        """
        states, _ = self.transform_with_unknown(texts)
        return states

    def transform_with_unknown(self, texts) -> tuple[np.ndarray, np.ndarray]:
        """``transform`` plus the boolean mask of texts without any vocabulary word.

        One vectorisation for callers that both encode pages and count the unknown ones.
        """
        check_is_fitted(self, _FITTED)
        scale, offset = _check_squashing(self.tanh_scale, self.tanh_offset)
        texts = _check_texts(texts, "texts")
        k = self.n_clusters_
        if not texts:
            return np.empty((0, k), dtype=np.float32), np.zeros(0, dtype=bool)
        p, known = class_given_document(self.vectorizer_.transform(texts),
                                        self.p_class_given_word_)
        # Rows without evidence are zero for every cluster: all mass on the general class,
        # which is the column dropped below.
        states = np.tanh((p[:, :k] - offset) * scale).astype(np.float32)
        if not np.isfinite(states).all():
            raise FloatingPointError("StateEncoder.transform produced a non-finite state")
        unknown = ~known
        n_unknown = int(unknown.sum())
        if n_unknown:
            logger.debug(
                "StateEncoder.transform: %d of %d texts have no known word: "
                "general class (state all -1)", n_unknown, len(texts),
            )
        return states, unknown

    def count_unknown(self, texts) -> int:
        """How many of ``texts`` contain no vocabulary word (their state is all -1)."""
        check_is_fitted(self, _FITTED)
        texts = _check_texts(texts, "texts")
        if not texts:
            return 0
        counts = self.vectorizer_.transform(texts)
        return int((np.asarray(counts.sum(axis=1)).ravel() == 0).sum())

    # -- persistence -------------------------------------------------------------------------

    def save(self, path) -> None:
        """Write the fitted encoder to ``path`` with joblib."""
        check_is_fitted(self, _FITTED)
        joblib.dump(self, Path(path))

    @classmethod
    def load(cls, path) -> "StateEncoder":
        """Read an encoder written by :meth:`save`.

        Like any pickle, only load files you trust. Raises ``FileNotFoundError`` for a
        missing file, ``ValueError`` for an unreadable one or one that holds anything but a
        fitted ``StateEncoder``.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no state encoder model at {str(path)!r}")
        try:
            obj = joblib.load(path)
        except Exception as exc:  # truncated or foreign files fail in many different ways
            raise ValueError(f"cannot read a state encoder from {str(path)!r}: {exc}") from exc
        if not isinstance(obj, StateEncoder):
            raise ValueError(
                f"{str(path)!r} holds a {type(obj).__name__}, not a StateEncoder"
            )
        try:
            check_is_fitted(obj, _FITTED)
        except NotFittedError:
            raise ValueError(f"{str(path)!r} holds a StateEncoder that was never fitted") from None
        # Models written by early versions kept P(C|w) in Fortran order, which scipy would copy
        # on every transform.
        obj.p_class_given_word_ = np.ascontiguousarray(obj.p_class_given_word_)
        return obj
