"""PrTFIDF (Joachims 1997) against numbers computed by hand."""

import numpy as np
import pytest
import scipy.sparse as sp

from newsforagers.text.prtfidf import (
    class_given_document,
    class_given_word,
    class_prior,
    fit_prtfidf,
    word_given_class,
    word_given_document,
)

# Three words (w1, w2, w3), two classes (A, B), three training documents:
#   d1 = (2, 1, 0) in A,  d2 = (0, 1, 1) in A,  d3 = (0, 0, 3) in B.
COUNTS = sp.csr_matrix(np.array([[2, 1, 0], [0, 1, 1], [0, 0, 3]]))
LABELS = np.array([0, 0, 1])


def test_hand_computed_example():
    # P(w|d1) = (2/3, 1/3, 0), P(w|d2) = (0, 1/2, 1/2), P(w|d3) = (0, 0, 1)
    p_wd = word_given_document(COUNTS).toarray()
    np.testing.assert_allclose(p_wd, [[2 / 3, 1 / 3, 0], [0, 1 / 2, 1 / 2], [0, 0, 1]])
    # P(w|A) = (P(w|d1) + P(w|d2)) / 2 = (1/3, 5/12, 1/4);  P(w|B) = (0, 0, 1)
    p_wc = word_given_class(p_wd, LABELS, 2)
    np.testing.assert_allclose(p_wc, [[1 / 3, 5 / 12, 1 / 4], [0, 0, 1]])
    # P(A) = 2/3, P(B) = 1/3
    prior = class_prior([2, 1])
    np.testing.assert_allclose(prior, [2 / 3, 1 / 3])
    # P(A)P(w|A) = (2/9, 5/18, 1/6);  P(B)P(w|B) = (0, 0, 1/3)
    # P(A|w) = (1, 1, (1/6) / (1/6 + 1/3) = 1/3);  P(B|w) = (0, 0, 2/3)
    p_cw = class_given_word(p_wc, prior)
    np.testing.assert_allclose(p_cw, [[1, 0], [1, 0], [1 / 3, 2 / 3]])
    np.testing.assert_allclose(fit_prtfidf(COUNTS, LABELS, 2), p_cw)
    # New document d' = (1, 1, 2): P(w|d') = (1/4, 1/4, 1/2)
    # p(A|d') = 1/4·1 + 1/4·1 + 1/2·1/3 = 2/3;  p(B|d') = 1/2·2/3 = 1/3
    p, known = class_given_document(sp.csr_matrix([[1, 1, 2]]), p_cw)
    np.testing.assert_allclose(p, [[2 / 3, 1 / 3]])
    np.testing.assert_array_equal(known, [True])


def test_outputs_sum_to_one_and_empty_documents_are_flagged():
    p_cw = fit_prtfidf(COUNTS, LABELS, 2)
    p, known = class_given_document(sp.csr_matrix([[0, 0, 0], [5, 0, 0], [1, 2, 3]]), p_cw)
    np.testing.assert_array_equal(known, [False, True, True])
    np.testing.assert_allclose(p[0], [0, 0])  # no evidence: the caller decides
    np.testing.assert_allclose(p[known].sum(axis=1), 1.0)


def test_word_no_class_has_seen_gets_the_prior():
    p_cw = class_given_word(np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]), [0.75, 0.25])
    np.testing.assert_allclose(p_cw[2], [0.75, 0.25])


def test_errors():
    with pytest.raises(ValueError, match=r"class\(es\) \[2\] have no document"):
        word_given_class(word_given_document(COUNTS), LABELS, 3)
    with pytest.raises(ValueError, match="training document 1 has no counted word"):
        fit_prtfidf(sp.csr_matrix([[1, 0], [0, 0]]), [0, 1], 2)
    with pytest.raises(ValueError, match="non-negative"):
        word_given_document(sp.csr_matrix([[1, -1]]))
    with pytest.raises(ValueError, match="3 terms in the documents, 2 in the model"):
        class_given_document(COUNTS, np.ones((2, 2)) / 2)
