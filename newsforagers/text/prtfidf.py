"""The PrTFIDF classifier (Joachims 1997) as sparse matrix algebra.

T. Joachims, "A probabilistic analysis of the Rocchio algorithm with TFIDF for text
categorization", *Proceedings of ICML-97*, pp. 143-151. With ``TF(w, d)`` the count of word
``w`` in document ``d``::

    P(w|d)  = TF(w, d) / Σ_w' TF(w', d)
    P(w|C)  = 1/|C| Σ_{d∈C} P(w|d)
    P(C)    = |C| / N
    P(C|w)  = P(C) P(w|C) / Σ_C' P(C') P(w|C')
    p(C|d') = Σ_w P(C|w) P(w|d')           (over the vocabulary: Σ_C p(C|d') = 1)

Documents are rows of a sparse count matrix (documents x terms); ``P(C|w)`` is a dense
(terms x classes) matrix, so classifying a batch is one sparse-dense product.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = [
    "word_given_document",
    "word_given_class",
    "class_prior",
    "class_given_word",
    "class_given_document",
    "fit_prtfidf",
]


def _counts(counts) -> sp.csr_matrix:
    counts = sp.csr_matrix(counts)
    if counts.nnz and counts.data.min() < 0:
        raise ValueError("PrTFIDF: term counts must be non-negative")
    return counts


def word_given_document(counts) -> sp.csr_matrix:
    """``P(w|d) = TF(w,d) / Σ_w' TF(w',d)``, row by row; a row without any word stays zero."""
    counts = _counts(counts)
    totals = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
    inverse = np.divide(1.0, totals, out=np.zeros_like(totals), where=totals > 0)
    return sp.csr_matrix(sp.diags(inverse) @ counts.astype(np.float64))


def word_given_class(p_word_document, labels, n_classes: int) -> np.ndarray:
    """``P(w|C) = 1/|C| Σ_{d∈C} P(w|d)``: array of shape (n_classes, n_terms).

    ``labels[i]`` is the class of row ``i`` of ``p_word_document``; every class must have
    at least one document.
    """
    p_word_document = sp.csr_matrix(p_word_document)
    labels = np.asarray(labels)
    if labels.shape != (p_word_document.shape[0],):
        raise ValueError(
            f"PrTFIDF: labels of shape {labels.shape} for {p_word_document.shape[0]} documents"
        )
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(f"PrTFIDF: labels must lie in 0 .. {n_classes - 1}")
    sizes = np.bincount(labels, minlength=n_classes)
    if (sizes == 0).any():
        empty = np.flatnonzero(sizes == 0).tolist()
        raise ValueError(f"PrTFIDF: class(es) {empty} have no document")
    membership = sp.csr_matrix(
        (np.ones(labels.size), (labels, np.arange(labels.size))),
        shape=(n_classes, labels.size),
    )
    sums = (membership @ p_word_document).toarray()
    return sums / sizes[:, None]


def class_prior(sizes) -> np.ndarray:
    """``P(C) = |C| / N`` from the class sizes (which may be fractional weights)."""
    sizes = np.asarray(sizes, dtype=np.float64)
    if sizes.ndim != 1 or not np.isfinite(sizes).all() or (sizes < 0).any() or sizes.sum() <= 0:
        raise ValueError("PrTFIDF: class sizes must be finite, non-negative, not all zero")
    return sizes / sizes.sum()


def class_given_word(p_word_class, prior) -> np.ndarray:
    """Bayes' rule ``P(C|w) = P(C) P(w|C) / Σ_C' P(C') P(w|C')``: shape (n_terms, n_classes).

    A word that no class has ever produced carries no evidence: its row is the prior.
    """
    p_word_class = np.asarray(p_word_class, dtype=np.float64)
    prior = np.asarray(prior, dtype=np.float64)
    if p_word_class.ndim != 2 or prior.shape != (p_word_class.shape[0],):
        raise ValueError(
            f"PrTFIDF: P(w|C) of shape {p_word_class.shape} does not match a prior of "
            f"shape {prior.shape}"
        )
    # C order: the sparse-dense product would otherwise copy the whole matrix on every call.
    joint = np.ascontiguousarray((prior[:, None] * p_word_class).T)  # (n_terms, n_classes)
    evidence = joint.sum(axis=1)
    seen = evidence > 0
    posterior = np.empty_like(joint)
    posterior[seen] = joint[seen] / evidence[seen, None]
    posterior[~seen] = prior
    return posterior


def class_given_document(counts, p_class_word) -> tuple[np.ndarray, np.ndarray]:
    """``p(C|d') = Σ_w P(C|w) P(w|d')`` for each row of ``counts``.

    Returns ``(p, known)``: ``p`` of shape (n_documents, n_classes), and the boolean mask of
    the documents with at least one vocabulary word. A document without any has no
    evidence, so its row of ``p`` is left at zero for the caller to decide.
    """
    counts = _counts(counts)
    p_class_word = np.ascontiguousarray(p_class_word, dtype=np.float64)
    if counts.shape[1] != p_class_word.shape[0]:
        raise ValueError(
            f"PrTFIDF: {counts.shape[1]} terms in the documents, {p_class_word.shape[0]} in "
            f"the model"
        )
    totals = np.asarray(counts.sum(axis=1), dtype=np.float64).ravel()
    # Normalising after the product is the same sum and skips building P(w|d').
    p = np.asarray(counts @ p_class_word)
    known = totals > 0
    p[known] /= totals[known, None]
    return p, known


def fit_prtfidf(counts, labels, n_classes: int) -> np.ndarray:
    """Train PrTFIDF with Joachims' priors ``|C|/N``; returns ``P(C|w)`` (n_terms, n_classes).

    Every document must contain at least one counted word: one without any has no ``P(w|d)``.
    """
    counts = _counts(counts)
    empty = np.flatnonzero(np.asarray(counts.sum(axis=1)).ravel() <= 0)
    if empty.size:
        raise ValueError(f"PrTFIDF: training document {int(empty[0])} has no counted word")
    p_word_document = word_given_document(counts)
    p_word_class = word_given_class(p_word_document, labels, n_classes)
    prior = class_prior(np.bincount(np.asarray(labels), minlength=n_classes))
    return class_given_word(p_word_class, prior)
