"""A topic that learns from what the colony reads: feedback on the query, a threshold from the
scores (issue 32; docs/topics.md, docs/algorithms.md, "Topic feedback").

A topic typed as a few words is a thin query: one shared word ("output") lifts a document
about cars over a fixed cosine threshold, while a document about the topic in other words
scores nothing. Two classical remedies, both pure functions here (numbers in, numbers out):

**Feedback on the query** (Rocchio, "Relevance feedback in information retrieval", 1971; the
pseudo-relevance form of Lavrenko & Croft's relevance models, RM3 as Anserini runs it). With
``v̂ = v / ‖v‖₂`` and every vector a tf·idf vector over terms::

    F = (1/|R|) Σ_{d ∈ R} d̂                 (the feedback documents R)
    F_m = F cut to its m largest components  (the expansion terms)
    N = (1/|S|) Σ_{n ∈ S} n̂                 (negative examples S, when the user gives some)
    q' = (1 − β) q̂ + β F̂_m − γ N            (restricted to q's and F_m's terms; components
                                              below 0 dropped)

With pseudo-relevance feedback R is the k documents the original query ranks highest among
those read so far; with the user's examples R holds the positive ones and S the negative ones.

**A name written as its initialism.** A topic named in 3 to 5 words ("application programming
interface") whose documents write the name as its initialism ("API") finds few of them by the
words: :func:`initialism` gives the letters, and a fit takes them into the user's query when
the documents read show the name written so (:meth:`LearningTopic._uses_initialism`), weighted
as the words they stand for together.

**A name's words in their other forms** (:func:`word_forms`, Harman's S stemmer): a form the
documents read use with the word (:data:`FORM_EVIDENCE`, :data:`FORM_LIFT`) counts as the word.
**One word of a long name**: while the name's words are judged at the floor, a document holding
fewer than :data:`QUORUM` of the words of a name of :data:`QUORUM_NAME` or more scores 0 (a
coordination level; :meth:`LearningTopic._below_quorum`).

**A threshold from the scores** (a two-component Gaussian mixture of the relevance scores, as
score-distribution models do for retrieval: Manmatha, Rath & Feng, SIGIR 2001; Arampatzis et
al., SIGIR 2009). The positive scores of the documents read (those sharing a term with the
query: the "retrieved" ones) are fitted by two Gaussians (EM,
scikit-learn's ``GaussianMixture``): the low one the documents off the topic, the high one the
topic's. The threshold is the score between the two means where the weighted densities are
equal — a document above it is more likely the high component's::

    w₁ φ(x; μ₁, σ₁) = w₂ φ(x; μ₂, σ₂),   μ₁ < x < μ₂

Only a mixture of two modes apart is trusted: Ashman's
``D = √2 |μ₂ − μ₁| / √(σ₁² + σ₂²) > 2`` (Ashman, Bird & Zepf, *Astron. J.* 108, 1994), or less
than Φ(−1) (16 %) of each component on the wrong side of the crossing x,
``1 − Φ((x − μ₁)/σ₁) < Φ(−1)`` and ``Φ((x − μ₂)/σ₂) < Φ(−1)`` — the same test for two Gaussians
of equal spread and weight, and one that D misses for a narrow low mode beside a broad high one
(the documents that share one word of a short topic, all scored alike, beside the topic's) —
and apart still with each mean moved toward the other to the one-sided 95 % bound of its
estimate, ``μ₁ + 1.645 σ₁/√(w₁ n)`` and ``μ₂ − 1.645 σ₂/√(w₂ n)`` over n scores (a mode of a
dozen documents has a mean known only to σ/√12: the first fits of a crawl found such modes by
chance and gave them up as the pool grew), and the high component holds at least one
document's worth of weight; otherwise (no second
mode: nothing tells the topic's documents from the rest) the threshold is the floor. The
threshold is never below the floor (``FORAGERS_TOPIC_MIN_RELEVANCE``). The feedback documents
themselves are scored by the query the other feedback documents make (leave-one-out, as the
user's examples are below): a query made of ten documents scores those ten high by their own
words, a mode of its own making.

**A threshold from the user's examples** (when a topic file gives both positive and negative
ones). Each example is scored by the query the others make (leave-one-out: an example in the
query would score itself high); of the cuts between two neighbouring scores that leave the
fewest examples on the wrong side (positives below, negatives above), the lowest, and the
threshold just above the highest score it leaves out: what scores like a negative example is
dropped, anything higher kept (a few positives say little of how low the topic's documents
score; the negatives say what to drop). It is taken when above the floor and when it misjudges
fewer examples than keeping all of them or none would. It
stands where the documents read show no mode of the topic's (before the crawl has read enough
of them, or never): the user's own judgment in place of the bare floor.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["LearningTopic", "Mixture", "Threshold", "choose_threshold", "crossing", "example_threshold",
           "feedback_query", "fit_mixture", "initialism", "leave_one_out_scores", "s_stem", "stored_query",
           "unit", "word_forms"]

#: Ashman's D above which two Gaussians count as separate modes (Ashman et al. 1994).
SEPARATED_D = 2.0
#: ... or the most of either component a threshold may leave on the wrong side for the two to
#: count as separate: Φ(−1), which is D = 2 for two Gaussians of equal spread and weight,
#: whose crossing is their midpoint, one σ from each.
MISJUDGED = 0.5 * (1.0 + math.erf(-1.0 / math.sqrt(2.0)))
#: Φ⁻¹(0.95): a mode's mean is taken at the one-sided 95 % bound of its estimate nearest the
#: other mode (:meth:`Mixture.narrowed`) before the two count as apart.
MEAN_BOUND_Z = 1.6448536269514722
#: The words (stop words aside) of a topic's name that may be written as its initialism
#: (:func:`initialism`): fewer, and the letters are a common token ("et", "cs"); more, and the
#: topic is a list of words rather than a name.
INITIALISM_WORDS = (3, 5)
#: The fewest documents that must hold both the words of a name and its initialism before the
#: initialism is taken (one or two could be chance; in a 100-s crawl of digital.gov 4 of the 6
#: posts read that named "application programming interface" wrote "API").
INITIALISM_EVIDENCE = 3
#: A name's word in another form (:func:`word_forms`: "challenge" of "challenges") counts as the
#: word once at least this many documents read hold both (as for the initialism) ...
FORM_EVIDENCE = 3
#: ... and the form is at least this many times as common among the documents holding the word
#: as among the others: a form of the word goes with it. Measured over the digital.gov posts
#: (docs/benchmarks.md, *A name's words in their other forms*): the forms of its tags' words
#: 2.3-97 ("users" beside "user" 2.7, "prizes" beside "prize" 98), the S rule's false friends
#: below 2 ("new" beside "news" 1.3, "good" beside "goods" 1.8).
FORM_LIFT = 2.0
#: A document shares at least :data:`QUORUM` of the words of a name of at least
#: :data:`QUORUM_NAME` words to be judged by them at the floor ...
QUORUM_NAME = 3
#: ... (a coordination level: one shared word of three or more is no evidence of the name).
QUORUM = 2


def s_stem(term: str) -> str:
    """Harman's "S" stemmer (D. Harman, "How effective is suffixing?", *JASIS* 42(1), 1991): the
    first rule that applies of "-ies" → "-y" (not "-eies", "-aies"), "-es" → "-e" (not "-aes",
    "-ees", "-oes"), "-s" → "" (not "-us", "-ss"); else the term."""
    if term.endswith("ies") and not term.endswith(("eies", "aies")):
        return term[:-3] + "y"
    if term.endswith("es") and not term.endswith(("aes", "ees", "oes")):
        return term[:-1]
    if term.endswith("s") and not term.endswith(("us", "ss")):
        return term[:-1]
    return term


def word_forms(term: str) -> list[str]:
    """The other forms of ``term`` that :func:`s_stem` takes where it takes ``term``: its
    singular and plural ("challenges" → ``["challenge"]``, "policy" → ``["policies",
    "policys"]``), sorted; the S rule's false friends ("news" → ``["new"]``) are left to the
    documents' evidence (:data:`FORM_LIFT`)."""
    stem = s_stem(term)
    candidates = {stem, term + "s", term + "es"}
    if term.endswith("y"):
        candidates.add(term[:-1] + "ies")
    return sorted(c for c in candidates if c != term and s_stem(c) == stem)


def initialism(terms: Sequence[str]) -> str | None:
    """The initialism a name of :data:`INITIALISM_WORDS` words is written as, lower-cased
    ("application programming interface" → ``"api"``), or None (too few or too many words, or a
    word not all letters)."""
    low, high = INITIALISM_WORDS
    if not low <= len(terms) <= high or not all(term.isalpha() for term in terms):
        return None
    return "".join(term[0] for term in terms).lower()


def unit(vector: Mapping[str, float]) -> dict[str, float]:
    """``v / ‖v‖₂``; an empty or all-zero vector gives ``{}``."""
    norm = math.sqrt(sum(float(w) * float(w) for w in vector.values()))
    if norm == 0.0:
        return {}
    return {term: float(w) / norm for term, w in vector.items() if w}


def stored_query(query: object) -> dict[str, float] | None:
    """A topic query as saved with the colony's topic state (:meth:`LearningTopic.state`):
    term -> weight, the terms of weight zero left out; None for None (no query yet).
    ``ValueError`` for anything else: not a mapping, a weight not a finite number >= 0, or no
    term left."""
    if query is None:
        return None
    if not isinstance(query, Mapping):
        raise ValueError(f"a query that is not term -> weight: {type(query).__name__}")
    parsed = {}
    for term, weight in query.items():
        try:
            weight = float(weight)
        except (TypeError, ValueError):
            raise ValueError(f"the weight of {str(term)!r} is not a number: {weight!r}") from None
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"the weight of {str(term)!r} is {weight}")
        if weight > 0:
            parsed[str(term)] = weight
    if not parsed:
        raise ValueError("a query without a term")
    return parsed


def _check(terms: int, weight: float, nonrelevant_weight: float) -> None:
    if terms < 1:
        raise ValueError(f"terms ({terms}) must be at least 1")
    for name, value in (("weight", weight), ("nonrelevant_weight", nonrelevant_weight)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} ({value}) must be within [0, 1]")


@dataclass(frozen=True)
class _Rows:
    """Vectors as sparse rows over a :class:`_Space`'s terms: their tf·idf weights, norms,
    units, where each has a term, and the units' and presences' sums over the rows."""

    raw: object
    norms: np.ndarray
    units: object
    present: object
    total: np.ndarray
    counts: np.ndarray

    def mean_without(self, row: int | None = None) -> np.ndarray | None:
        """The mean of the non-empty units, but ``row``'s (None when none is left), zero where
        no other unit has the term (as a mean of dicts leaves it out)."""
        total, counts, left = self.total, self.counts, int((self.norms > 0).sum())
        if row is not None:
            total = total - self.units[row].toarray().ravel()
            counts = counts - self.present[row].toarray().ravel()
            left -= int(self.norms[row] > 0)
        if left == 0:
            return None
        return np.where(counts > 0, total / left, 0.0)

    def cosine(self, row: int, vector: np.ndarray) -> float:
        """The cosine of row ``row`` and ``vector``, in [0, 1] (0 for an empty one)."""
        length, norm = float(np.linalg.norm(vector)), float(self.norms[row])
        if norm == 0.0 or length == 0.0:
            return 0.0
        return min(1.0, max(0.0, float(self.raw[row].toarray().ravel() @ vector) / (norm * length)))


class _Space:
    """The module docstring's update over dense vectors of the terms of a query and its
    feedback and negative vectors, the terms sorted (the index order is the terms' order, by
    which ties among expansion terms are broken): :func:`feedback_query` and
    :func:`leave_one_out_scores` both compute ``q'`` here."""

    def __init__(self, query: Mapping[str, float], *groups: Sequence[Mapping[str, float]], terms: int,
                 weight: float, nonrelevant_weight: float):
        _check(terms, weight, nonrelevant_weight)
        self.terms, self.weight, self.nonrelevant_weight = terms, weight, nonrelevant_weight
        self.vocabulary = sorted({*query, *(t for group in groups for v in group for t in v)})
        self.index = {term: i for i, term in enumerate(self.vocabulary)}
        self.base = np.zeros(len(self.vocabulary))
        for term, w in unit(query).items():
            self.base[self.index[term]] = w
        if not self.base.any():
            raise ValueError("feedback_query: the query has no term of positive weight")

    def rows(self, vectors: Sequence[Mapping[str, float]]) -> _Rows:
        from scipy.sparse import csr_matrix

        data, columns, pointers = [], [], [0]
        for vector in vectors:
            kept = [(self.index[t], float(w)) for t, w in vector.items() if w]
            columns.extend(i for i, _ in kept)
            data.extend(w for _, w in kept)
            pointers.append(len(columns))
        raw = csr_matrix((np.asarray(data, dtype=np.float64), np.asarray(columns, dtype=np.int64),
                          np.asarray(pointers)), shape=(len(vectors), len(self.vocabulary)))
        norms = np.sqrt(np.asarray(raw.multiply(raw).sum(axis=1)).ravel())
        units = csr_matrix(raw.multiply(1.0 / np.where(norms > 0, norms, 1.0)[:, np.newaxis]))
        present = csr_matrix((units > 0).astype(np.float64))
        return _Rows(raw, norms, units, present, np.asarray(units.sum(axis=0)).ravel(),
                     np.asarray(present.sum(axis=0)).ravel())

    def expanded(self, feedback: np.ndarray | None, negative: np.ndarray | None) -> np.ndarray:
        """``q'`` from the feedback mean F and the negative mean N (None: none), components ≤ 0
        dropped."""
        expanded = self.base.copy()
        if feedback is not None:
            top = _top(feedback, self.terms)
            chosen = np.zeros_like(feedback)
            chosen[top] = feedback[top]
            expanded = (1.0 - self.weight) * self.base + self.weight * chosen / np.linalg.norm(chosen)
        if negative is not None:
            expanded = expanded - np.where(expanded != 0.0, self.nonrelevant_weight * negative, 0.0)
        return np.where(expanded > 0.0, expanded, 0.0)


def _top(values: np.ndarray, m: int) -> np.ndarray:
    """The indices of the ``m`` largest positive ``values``, ties by the lower index (the
    earlier term)."""
    support = np.flatnonzero(values > 0.0)
    if support.size <= m:
        return support
    kth = np.partition(values[support], support.size - m)[support.size - m]  # the m-th largest
    above = support[values[support] > kth]
    tied = support[values[support] == kth][: m - above.size]
    return np.concatenate([above, tied])


def feedback_query(query: Mapping[str, float], relevant: Sequence[Mapping[str, float]] = (), *,
                   terms: int = 50, weight: float = 0.5,
                   nonrelevant: Sequence[Mapping[str, float]] = (),
                   nonrelevant_weight: float = 0.25) -> dict[str, float]:
    """The expanded query ``q'`` of the module docstring: ``query`` (tf·idf weights) moved
    toward the mean of the ``relevant`` vectors' units (its ``terms`` largest components) by
    ``weight`` β, and away from the mean of ``nonrelevant``'s by ``nonrelevant_weight`` γ.

    Ties among the expansion terms are broken by the term (so the result does not depend on
    the documents' order). Without relevant vectors the query's unit comes back (minus γN).
    ``ValueError`` for an empty query, ``terms`` < 1, or a weight outside [0, 1].
    """
    space = _Space(query, relevant, nonrelevant, terms=terms, weight=weight,
                   nonrelevant_weight=nonrelevant_weight)
    vector = space.expanded(space.rows(relevant).mean_without(), space.rows(nonrelevant).mean_without())
    return {space.vocabulary[i]: float(vector[i]) for i in np.flatnonzero(vector)}


@dataclass(frozen=True)
class Mixture:
    """Two Gaussians over the scores: the low one (off the topic) and the high one."""

    low_mean: float
    low_sd: float
    high_mean: float
    high_sd: float
    high_share: float  # the high component's weight w₂ (w₁ = 1 − w₂)

    @property
    def separation(self) -> float:
        """Ashman's D: ``√2 |μ₂ − μ₁| / √(σ₁² + σ₂²)``."""
        spread = math.sqrt(self.low_sd ** 2 + self.high_sd ** 2)
        return math.inf if spread == 0.0 else math.sqrt(2.0) * abs(self.high_mean - self.low_mean) / spread

    def misjudged(self, threshold: float) -> tuple[float, float]:
        """Each component's share on the wrong side of ``threshold``: the low one's above it,
        ``1 − Φ((t − μ₁)/σ₁)``, the high one's below it, ``Φ((t − μ₂)/σ₂)``."""
        def below(x: float, mean: float, sd: float) -> float:
            return 0.5 * (1.0 + math.erf((x - mean) / (sd * math.sqrt(2.0))))

        return 1.0 - below(threshold, self.low_mean, self.low_sd), below(threshold, self.high_mean, self.high_sd)

    def apart(self, threshold: float) -> bool:
        """Whether the components are two modes ``threshold`` tells apart: Ashman's D > 2, or
        less than :data:`MISJUDGED` of each component on the wrong side of it (which D misses
        for a narrow mode beside a broad one; the two agree for Gaussians of equal spread and
        weight)."""
        return self.separation > SEPARATED_D or max(self.misjudged(threshold)) < MISJUDGED

    def narrowed(self, scores: int, z: float = MEAN_BOUND_Z) -> Mixture | None:
        """The mixture with each mean moved toward the other by ``z`` standard errors of the
        mean of its component's share of ``scores`` scores, ``μ₁ + z σ₁/√(w₁ n)`` and
        ``μ₂ − z σ₂/√(w₂ n)``: the two modes as near as their means may be at that confidence
        (a mode of ten documents has a mean known to σ/√10); None when the moved means meet."""
        low_n, high_n = (1.0 - self.high_share) * scores, self.high_share * scores
        if low_n <= 0.0 or high_n <= 0.0:
            return None
        low = self.low_mean + z * self.low_sd / math.sqrt(low_n)
        high = self.high_mean - z * self.high_sd / math.sqrt(high_n)
        if low >= high:
            return None
        return Mixture(low, self.low_sd, high, self.high_sd, self.high_share)


def crossing(mixture: Mixture) -> float:
    """The score x between the two means where ``w₁ φ(x; μ₁, σ₁) = w₂ φ(x; μ₂, σ₂)``.

    Taking logs gives ``a x² + b x + c = 0`` with ``a = 1/σ₁² − 1/σ₂²``,
    ``b = 2 (μ₂/σ₂² − μ₁/σ₁²)``, ``c = μ₁²/σ₁² − μ₂²/σ₂² + 2 ln(w₂ σ₁ / (w₁ σ₂))``; the root
    between the means is the one wanted. When none lies between them (one component dominates
    the other everywhere between the means), the mean the dominating component is not at:
    the high mean when the low component dominates, the low mean otherwise.
    """
    m1, s1, m2, s2 = mixture.low_mean, mixture.low_sd, mixture.high_mean, mixture.high_sd
    w2 = mixture.high_share
    w1 = 1.0 - w2
    if not (s1 > 0 and s2 > 0 and 0 < w2 < 1 and m1 < m2):
        raise ValueError(f"crossing: not two weighted Gaussians with μ₁ < μ₂: {mixture}")
    a = 1.0 / s1 ** 2 - 1.0 / s2 ** 2
    b = 2.0 * (m2 / s2 ** 2 - m1 / s1 ** 2)
    c = m1 ** 2 / s1 ** 2 - m2 ** 2 / s2 ** 2 + 2.0 * math.log(w2 * s1 / (w1 * s2))
    if abs(a) < 1e-12:
        roots = [-c / b]
    else:
        disc = b * b - 4.0 * a * c
        roots = [] if disc < 0 else [(-b + sign * math.sqrt(disc)) / (2.0 * a) for sign in (1.0, -1.0)]
    between = [x for x in roots if m1 <= x <= m2]
    if between:
        return min(between)
    # no crossing between the means: which one is above there, at their midpoint?
    mid = (m1 + m2) / 2.0

    def log_density(x, m, s, w):
        return math.log(w) - math.log(s) - 0.5 * ((x - m) / s) ** 2

    return m2 if log_density(mid, m1, s1, w1) > log_density(mid, m2, s2, w2) else m1


def fit_mixture(scores: Sequence[float] | np.ndarray) -> Mixture | None:
    """Two Gaussians fitted to ``scores`` by EM (scikit-learn's ``GaussianMixture``, seeded by
    k-means with a fixed ``random_state``: the same scores give the same mixture); ``None``
    for fewer than 4 scores or fewer than 2 distinct ones."""
    from sklearn.mixture import GaussianMixture

    x = np.asarray(scores, dtype=np.float64).reshape(-1, 1)
    if x.shape[0] < 4 or np.unique(x).size < 2:
        return None
    model = GaussianMixture(n_components=2, covariance_type="full", random_state=0,
                            reg_covar=1e-6, max_iter=200).fit(x)
    means = model.means_.ravel()
    sds = np.sqrt(model.covariances_.ravel())
    low, high = (0, 1) if means[0] <= means[1] else (1, 0)
    if means[low] == means[high]:
        return None
    return Mixture(float(means[low]), float(sds[low]), float(means[high]), float(sds[high]),
                   float(model.weights_[high]))


@dataclass(frozen=True)
class Threshold:
    """The relevance a document needs, and why: ``"mixture"`` (the crossing of a separated
    mixture), ``"floor"`` (no separated mixture, or a crossing below the floor),
    ``"too_few"`` (fewer scores than the fit needs), ``"examples"`` (the user's examples'
    cut, :func:`example_threshold`); :class:`LearningTopic` adds ``"fixed"``
    (``FORAGERS_TOPIC_THRESHOLD=fixed``: the floor)."""

    value: float
    reason: str
    mixture: Mixture | None = None
    fitted: int = 0  # the scores the mixture was fitted to (the positive ones)
    why: str = ""  # why the floor, when choose_threshold chose it


def choose_threshold(scores: Sequence[float] | np.ndarray, floor: float, *,
                     min_scores: int = 20, min_mode: float = 1.0) -> Threshold:
    """The threshold of the module docstring over ``scores``: the crossing of a two-Gaussian
    mixture it tells apart (:meth:`Mixture.apart`), never below ``floor``. Scores of 0
    (documents sharing no term with the query: not retrieved, in the score-distribution
    models' terms) are left out. The floor
    when there are fewer than ``min_scores`` positive scores, when the crossing does not tell
    the components apart, when it does not with each mean at the 95 % bound of its estimate
    nearest the other (:meth:`Mixture.narrowed`: a mode of a dozen scores may be one by
    chance) or when the high component holds less than ``min_mode`` scores' weight (a mode of
    one or two documents is no estimate of the topic's scores). ``why`` says which."""
    x = np.asarray(scores, dtype=np.float64)
    x = x[x > 0.0]  # a document sharing no term with the query is not retrieved: no evidence
    if x.size < max(min_scores, 4):
        return Threshold(floor, "too_few", why=f"{x.size} scores above 0, fewer than {max(min_scores, 4)}")
    mixture = fit_mixture(x)
    if mixture is None:
        return Threshold(floor, "floor", fitted=x.size, why="no two components")

    def floor_for(why: str) -> Threshold:
        return Threshold(floor, "floor", mixture, x.size, why)

    if mixture.high_share * x.size < min_mode:
        return floor_for(f"a mode of fewer than {min_mode:g} documents")
    value = crossing(mixture)
    if not mixture.apart(value):
        return floor_for("its modes overlap")
    if value <= floor:
        return floor_for("its crossing is not above the floor")
    near = mixture.narrowed(x.size)
    if near is None or not near.apart(crossing(near)):
        return floor_for("its modes overlap at their means' 95 % bounds")
    return Threshold(value, "mixture", mixture, x.size)


def leave_one_out_scores(query: Mapping[str, float], positives: Sequence[Mapping[str, float]],
                         negatives: Sequence[Mapping[str, float]], *, terms: int = 50,
                         weight: float = 0.5, nonrelevant_weight: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """Each example's cosine to the query the other examples make: positive i's to
    ``feedback_query(query, positives but i, nonrelevant=negatives)``, negative j's to
    ``feedback_query(query, positives, nonrelevant=negatives but j)`` (tf·idf vectors in), the
    sums over the examples taken once: k examples of V terms cost O(k·V), not k calls over all
    k examples each."""
    space = _Space(query, positives, negatives, terms=terms, weight=weight,
                   nonrelevant_weight=nonrelevant_weight)
    good, bad = space.rows(positives), space.rows(negatives)
    everyone = bad.mean_without()
    inside = np.array([good.cosine(i, space.expanded(good.mean_without(i), everyone))
                       for i in range(len(positives))])
    every_positive = good.mean_without()
    outside = np.array([bad.cosine(j, space.expanded(every_positive, bad.mean_without(j)))
                        for j in range(len(negatives))])
    return inside, outside


def example_threshold(positives: Sequence[float], negatives: Sequence[float], floor: float) -> Threshold:
    """The threshold the user's examples show (the module docstring): of the cuts between two
    neighbouring scores of ``positives`` and ``negatives`` (the examples' scores), the lowest
    of those that leave the fewest examples on the wrong side (a positive below the cut, a
    negative above it); the threshold is just above the highest score that cut leaves out (a
    document scoring like a negative example is dropped, one scoring any higher kept). Reason
    ``"examples"``. The floor (reason ``"floor"``) without a positive and a negative score,
    when that threshold is not above ``floor``, or when the cut misjudges as many examples as
    keeping all of them (every negative) or none (every positive) does."""
    pos = np.asarray(positives, dtype=np.float64)
    neg = np.asarray(negatives, dtype=np.float64)
    if pos.size == 0 or neg.size == 0:
        return Threshold(floor, "floor")
    values = np.unique(np.concatenate([pos, neg]))
    best: tuple[int, float] | None = None  # (errors, the highest score left out)
    for low, high in zip(values[:-1], values[1:]):
        errors = int((pos <= low).sum() + (neg >= high).sum())
        if best is None or (errors, low) < best:
            best = (errors, float(low))
    # a cut must misjudge fewer examples than keeping them all (every negative wrong) or none
    # (every positive wrong) does; else the examples show no part (or every one scored alike)
    if best is None or best[0] >= min(pos.size, neg.size):
        return Threshold(floor, "floor")
    value = float(np.nextafter(best[1], np.inf))
    return Threshold(value, "examples") if value > floor else Threshold(floor, "floor")


#: Scores of two modes, fitted once when a :class:`LearningTopic` is built (see there).
_WARM_SCORES = (0.0, 0.01, 0.02, 0.5, 0.51, 0.52)


class LearningTopic:
    """A :class:`~newsforagers.text.topic.Topic` whose query and threshold learn from the
    documents read (the module docstring's two rules), for the reinforcing agent.

    Documents are :meth:`add`-ed to a pool (the newest ``pool`` of them, as term counts); a
    :meth:`refit` over the pool ranks them by the topic's own cosine, expands the query with
    the ``documents`` best (``feedback``) and the user's ``positives``, away from the user's
    ``negatives``, scores the pool with the expanded query and chooses the threshold from those
    scores (``threshold="mixture"``; ``"fixed"``: always ``floor``). :meth:`relevance` is the
    cosine to the query as last fitted (the topic's own before the first fit, moved by the
    examples when there are some). Before ``min_documents`` documents the query is not
    expanded by the pool and the threshold is the floor, or the one the user's examples show
    (:func:`example_threshold`, with positive and negative examples). The expanded query is
    taken, with the threshold its scores show, only when its scores over the pool show the
    topic as a mode of their own (a separated mixture); else the query stays the topic's own
    words (moved by the examples, if any) at the floor or the examples' threshold: without
    evidence, the user's words are not changed. (With
    ``feedback`` off, the threshold is the one the words' own scores show, or the floor.) Only
    documents the topic's own cosine accepts at the floor are feedback documents (early in a
    crawl, before any of the topic's documents was read, none is).

    :meth:`state` and :meth:`load_state` carry what was learned (the query's terms and
    weights, the threshold) to the colony's store and back; the pool is not saved.
    """

    def __init__(self, topic, *, floor: float, feedback: bool = True, threshold: str = "mixture",
                 documents: int = 10, terms: int = 50, weight: float = 0.5,
                 positives: Sequence[str] = (), negatives: Sequence[str] = (),
                 negative_weight: float = 0.25, pool: int = 2000, min_documents: int = 20):
        if threshold not in ("mixture", "fixed"):
            raise ValueError(f"threshold ({threshold!r}) must be 'mixture' or 'fixed'")
        if documents < 1 or pool < 1 or min_documents < 1:
            raise ValueError(f"documents ({documents}), pool ({pool}) and min_documents "
                             f"({min_documents}) must be at least 1")
        self.topic = topic
        self.floor = float(floor)
        self.feedback = bool(feedback)
        self.mode = threshold
        self.documents, self.terms, self.weight = documents, terms, weight
        self.negative_weight = negative_weight
        self.min_documents = min_documents
        self.positives = [p for p in positives if p.strip()]
        self.negatives = [n for n in negatives if n.strip()]
        self.query: dict[str, float] | None = None
        self.threshold = Threshold(self.floor, "too_few" if threshold == "mixture" else "fixed")
        self.judged = 0  # documents in the pool at the last fit
        self.kept = 0  # of them at or above the threshold then
        # the last fit's threshold of the learned query's scores, taken or not (None: no feedback
        # document then): what the fit saw, for the log
        self.candidate: Threshold | None = None
        self._pool: deque[tuple[np.ndarray, np.ndarray]] = deque(maxlen=pool)
        self._vocabulary: dict[str, int] = {}
        self._terms: list[str] = []
        # the name's initialism (None: the topic is no name of 3 to 5 words), and whether the
        # documents read write the name so (the last fit's finding, :meth:`_own_query`)
        self.initialism = initialism(list(topic.terms)) if feedback else None
        self.initialism_used = False
        # the name's words in their other forms the documents read use (form -> the name's word,
        # the last fit's finding, :meth:`_forms_of`), counted as the word
        self.forms: dict[str, str] = {}
        # a name of QUORUM_NAME words or more is judged at the floor only in documents holding
        # QUORUM of them (:meth:`_below_quorum`)
        self._quorum = self.feedback and len(topic.terms) >= QUORUM_NAME
        if self.feedback and (self.positives or self.negatives):
            self.query = self._expanded([])
            if threshold == "mixture":
                self.threshold = self._examples_threshold()
        # checked now: a bad setting should fail at start, not at the first fit
        feedback_query({"x": 1.0}, (), terms=terms, weight=weight, nonrelevant_weight=negative_weight)
        if self.feedback or threshold == "mixture":
            # scikit-learn's mixture imported and run once now, at the crawl's start: its import
            # and first call took 0.2 s (up to 1 s cold) at the first fit, mid-crawl, on the
            # thread that judges every forager's sends (docs/benchmarks.md, issue 32)
            fit_mixture(_WARM_SCORES)

    def add(self, text: str) -> None:
        """One more document read (its title and text) into the pool."""
        counts: dict[int, int] = {}
        for term in self.topic.analyze(text):
            index = self._vocabulary.get(term)
            if index is None:
                index = self._vocabulary[term] = len(self._terms)
                self._terms.append(term)
            counts[index] = counts.get(index, 0) + 1
        self._pool.append((np.fromiter(counts, dtype=np.int64, count=len(counts)),
                           np.fromiter(counts.values(), dtype=np.float64, count=len(counts))))

    def __len__(self) -> int:
        return len(self._pool)

    @property
    def pool_size(self) -> int:
        """The most documents the pool keeps."""
        return self._pool.maxlen

    def relevance(self, text: str) -> float:
        """The cosine of ``text`` to the query as last fitted, in [0, 1], a form of a name's
        word the documents use counted as the word (:attr:`forms`); 0 for a document holding
        fewer than :data:`QUORUM` of the words of a name of :data:`QUORUM_NAME` or more while it
        is judged by them at the floor (:meth:`_below_quorum`)."""
        counts = self._counts(text)
        if self._below_quorum(counts):
            return 0.0
        return self.topic.relevance_of(counts, self.query)

    def _counts(self, text: str) -> Counter:
        """``text``'s term counts as the topic reads them, each form taken counted as its word."""
        terms, forms = self.topic.analyze(text), self.forms
        return Counter(forms.get(term, term) for term in terms) if forms else Counter(terms)

    def _below_quorum(self, counts: Mapping[str, int]) -> bool:
        """Whether a document of term counts ``counts`` (forms counted as their words) holds too
        few of the name's words to be judged by them: fewer than :data:`QUORUM` of a name of at
        least :data:`QUORUM_NAME` words (the initialism, when taken, standing for them all),
        while the threshold is the floor for want of a mode of the topic's (with a learned
        query, a threshold of its scores or of the user's examples, the quorum stands aside)."""
        if not self._quorum or self.threshold.reason not in ("floor", "too_few"):
            return False
        if self.initialism_used and self.initialism in counts:
            return False
        return sum(1 for word in self.topic.terms if word in counts) < QUORUM

    def _example_vectors(self) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
        """The user's positive and negative examples as tf·idf vectors, with the topic's idf as
        it is now (online idf changes as documents are read), a name's word's forms counted as
        the word."""
        return ([self.topic.weights_of(self._counts(text)) for text in self.positives],
                [self.topic.weights_of(self._counts(text)) for text in self.negatives])

    def _forms_of(self, counts) -> dict[str, str]:
        """The name's words' other forms (:func:`word_forms`) the documents read use as the
        word: held with it by at least :data:`FORM_EVIDENCE` documents, and at least
        :data:`FORM_LIFT` times as common among those holding the word as among the others
        (``P(form | word) ≥ 2 P(form | no word)``: "challenge" beside "challenges", not "new"
        beside "news"). ``counts``: the pool's term counts (a row a document, a column a term),
        each term as read."""
        found: dict[str, str] = {}
        n = counts.shape[0]
        for word in self.topic.terms:
            column = self._vocabulary.get(word)
            if column is None:
                continue
            holding = np.asarray((counts[:, column] > 0).todense()).ravel()
            with_word = int(holding.sum())
            for form in word_forms(word):
                other = self._vocabulary.get(form)
                if other is None or form in self.topic.terms or form in found:
                    continue
                held = np.asarray((counts[:, other] > 0).todense()).ravel()
                both = int((held & holding).sum())
                if both < FORM_EVIDENCE:
                    continue
                # P(form | word) >= FORM_LIFT · P(form | no word), without a division
                if both * (n - with_word) >= FORM_LIFT * int((held & ~holding).sum()) * with_word:
                    found[form] = word
        return found

    def _own_query(self) -> dict[str, float]:
        """The topic's own tf·idf vector, with its name's initialism when the documents read
        write the name so (:meth:`_uses_initialism`), counted as often as the words it stands
        for together (a document writing "API" names what one writing "application
        programming interface" names)."""
        query = self.topic.query_weights()
        if self.initialism_used and self.initialism not in query:
            tf = sum(self.topic.terms.values())
            query[self.initialism] = tf * self.topic.idf(self.initialism)
        return query

    def _uses_initialism(self, counts) -> bool:
        """Whether the documents read write the topic's name as its initialism: of those that
        hold every word of the name, at least half hold the initialism too ("... an
        application programming interface (API) ..."), and at least
        :data:`INITIALISM_EVIDENCE` of them: a name whose letters its own documents do not write
        ("challenges and prize competitions", "cpc"), or seldom ("human-centered design",
        "hcd": in 11 of the 92 posts naming it on digital.gov), keeps its words alone — a rare
        term of high idf in the query would only lower the cosine of the documents naming it
        in words. ``counts``: the pool's term counts (a row a document, a column a term)."""
        if self.initialism is None or self.initialism not in self._vocabulary:
            return False
        name = [self._vocabulary.get(term) for term in self.topic.terms]
        if None in name:
            return False
        naming = np.asarray((counts[:, name] > 0).sum(axis=1)).ravel() == len(name)
        holding = int((naming & (counts[:, self._vocabulary[self.initialism]].toarray().ravel() > 0)).sum())
        return holding >= INITIALISM_EVIDENCE and 2 * holding >= int(naming.sum())

    def _expanded(self, relevant: list[dict[str, float]], examples=None) -> dict[str, float]:
        positives, negatives = examples if examples is not None else self._example_vectors()
        return feedback_query(self._own_query(), [*positives, *relevant], terms=self.terms,
                              weight=self.weight, nonrelevant=negatives,
                              nonrelevant_weight=self.negative_weight)

    def _left_out(self, relevant: list[dict[str, float]], examples) -> list[dict[str, float]]:
        """For each feedback document k, :meth:`_expanded` of the others: the query the user's
        positive examples and the feedback documents but k make (the sums over them taken once
        and k's own subtracted, as :func:`leave_one_out_scores` does)."""
        positives, negatives = examples
        space = _Space(self._own_query(), [*positives, *relevant], negatives, terms=self.terms,
                       weight=self.weight, nonrelevant_weight=self.negative_weight)
        given = space.rows([*positives, *relevant])
        away = space.rows(negatives).mean_without()
        queries = []
        for k in range(len(relevant)):
            vector = space.expanded(given.mean_without(len(positives) + k), away)
            queries.append({space.vocabulary[i]: float(vector[i]) for i in np.flatnonzero(vector)})
        return queries

    def _examples_threshold(self, examples=None) -> Threshold:
        """:func:`example_threshold` over the user's examples (``examples``: their vectors,
        :meth:`_example_vectors`'s), each scored by the query the other examples make with the
        topic's words (leave-one-out); the floor without both kinds of example."""
        if not (self.feedback and self.positives and self.negatives):
            return Threshold(self.floor, "floor")
        positives, negatives = examples if examples is not None else self._example_vectors()
        scores_in, scores_out = leave_one_out_scores(
            self._own_query(), positives, negatives, terms=self.terms,
            weight=self.weight, nonrelevant_weight=self.negative_weight)
        return example_threshold(scores_in, scores_out, self.floor)

    def _compact(self) -> None:
        used = sorted({int(i) for ids, _ in self._pool for i in ids})
        renumber = np.full(len(self._terms), -1, dtype=np.int64)
        renumber[used] = np.arange(len(used))
        self._terms = [self._terms[i] for i in used]
        self._vocabulary = {term: i for i, term in enumerate(self._terms)}
        self._pool = deque(((renumber[ids], counts) for ids, counts in self._pool),
                           maxlen=self._pool.maxlen)

    def refit(self) -> Threshold:
        """Fit the query and the threshold to the pool (see the class docstring); the new
        threshold."""
        from scipy.sparse import csr_matrix

        n = len(self._pool)
        if n < self.min_documents:
            return self.threshold
        if len(self._terms) > 4 * max(1, sum(len(ids) for ids, _ in self._pool) // n) * n:
            self._compact()
        width = len(self._terms)
        indptr = np.cumsum([0, *(len(ids) for ids, _ in self._pool)])
        counts = csr_matrix((np.concatenate([c for _, c in self._pool]),
                             np.concatenate([ids for ids, _ in self._pool]), indptr), shape=(n, width))
        forms = self._forms_of(counts) if self.feedback else {}
        if forms:  # each form's counts added to its word's column (each fit afresh)
            columns = np.arange(width)
            for form, word in forms.items():
                columns[self._vocabulary[form]] = self._vocabulary[word]
            counts = csr_matrix(counts @ csr_matrix((np.ones(width), (np.arange(width), columns)),
                                                    shape=(width, width)))
        x = csr_matrix(counts.multiply(self.topic.idfs(self._terms)[np.newaxis, :]))
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        norms[norms == 0.0] = np.inf  # a document without a term scores 0
        # the user's own query: the topic's words, moved by the examples when there are some
        # (the examples' vectors once a fit: the own query, the learned one and the examples'
        # threshold all read them)
        examples = self._example_vectors() if self.feedback else ([], [])
        self.initialism_used = self._uses_initialism(counts)  # (each fit afresh)
        if self.feedback and (self.positives or self.negatives):
            own = self._expanded([], examples)
        else:  # (None: the topic's own words, as typed)
            own = self._own_query() if self.initialism_used else None
        base = self._scores(x, norms, own if own is not None else self.topic.query_weights())
        if self._quorum:  # (the user's words judge only the documents holding enough of them)
            base[self._short_of_quorum(counts)] = 0.0
        query, scores = own, base
        # with feedback, a learned threshold comes only with the learned query (below); the
        # user's own words keep the floor (a mode of one word's counts is not the topic's)
        # (or the one the user's examples show, when there are both kinds)
        chosen = None
        self.candidate = None
        if self.feedback:
            ranked = np.lexsort((np.arange(n), -base))[: self.documents]
            relevant = []
            # (a document the user's query does not accept at the floor is no evidence of the
            # topic: early in a crawl, before any of the topic's documents, none is)
            rows = ranked[base[ranked] >= self.floor]
            for row in rows:
                start, end = x.indptr[row], x.indptr[row + 1]
                relevant.append({self._terms[j]: float(w) for j, w in zip(x.indices[start:end], x.data[start:end])})
            if relevant:
                expanded = self._expanded(relevant, examples)
                learned = self._scores(x, norms, expanded)
                # each feedback document scored by the query the others make (leave-one-out, as
                # the examples are): a query made of ten documents scores those ten high, a mode
                # of its own making
                for row, others in zip(rows, self._left_out(relevant, examples)):
                    learned[row] = self._scores(x[row], norms[row:row + 1], others)[0]
                separate = self._threshold_of(learned)
                self.candidate = separate
                # The learned query and its threshold are taken only when its scores show the
                # topic as a mode of their own; else the user's query stays, at the floor: no
                # evidence, no change (docs/algorithms.md, "Topic feedback").
                if separate.reason == "mixture":
                    query, scores, chosen = expanded, learned, separate
        if self.mode == "fixed":
            chosen = Threshold(self.floor, "fixed")
        elif chosen is None:  # (computed only when the learned query's threshold is not taken)
            chosen = self._threshold_of(base) if not self.feedback else self._examples_threshold(examples)
        self.query = query
        self.forms = forms
        self.threshold = chosen
        self.judged = n
        self.kept = int((scores >= self.threshold.value).sum())
        return self.threshold

    def _short_of_quorum(self, counts) -> np.ndarray:
        """The rows of ``counts`` (forms counted as their words) :meth:`_below_quorum` holds too
        few of the name's words, whatever the threshold."""
        name = [self._vocabulary[word] for word in self.topic.terms if word in self._vocabulary]
        if not name:
            return np.ones(counts.shape[0], dtype=bool)
        held = np.asarray((counts[:, name] > 0).sum(axis=1)).ravel()
        short = held < QUORUM
        if self.initialism_used:
            short &= counts[:, self._vocabulary[self.initialism]].toarray().ravel() == 0
        return short

    def _threshold_of(self, scores: np.ndarray) -> Threshold:
        # a mode of the topic is trusted once it holds as many documents as the feedback takes
        # to describe the topic (FORAGERS_TOPIC_FEEDBACK_DOCUMENTS)
        return choose_threshold(scores, self.floor, min_scores=self.min_documents, min_mode=self.documents)

    def _scores(self, x, norms: np.ndarray, query: Mapping[str, float]) -> np.ndarray:
        vector = np.zeros(x.shape[1])
        for term, w in query.items():
            index = self._vocabulary.get(term)
            if index is not None:
                vector[index] = w
        length = math.sqrt(sum(w * w for w in query.values()))
        return np.clip(np.asarray(x @ vector).ravel() / (norms * length), 0.0, 1.0)

    def state(self) -> dict:
        """What was learned, as JSON-able values: the query, the threshold, the counts; and
        ``"mode"``, what the last fit's mixture of the learned query's scores was, taken or not
        (the reason its threshold had, the high component's documents, each component's mean
        and standard deviation, Ashman's D), when it fitted one (:meth:`describe_mode`)."""
        state = {"query": dict(self.query) if self.query is not None else None,
                 "threshold": self.threshold.value, "reason": self.threshold.reason,
                 "judged": self.judged, "kept": self.kept}
        if self.forms:
            state["forms"] = dict(self.forms)
        mode = self.describe_mode()
        if mode is not None:
            state["mode"] = mode
        return state

    def describe_mode(self) -> str | None:
        """The last fit's mixture of the learned query's scores in words, taken or not:
        ``"not taken (its modes overlap at their means' 95 % bounds): 12 of the 39 documents
        sharing a term with it at 0.221 ± 0.103 beside 0.034 ± 0.036, D 2.42"``; None
        when the last fit had no feedback document or fitted no mixture."""
        candidate = self.candidate
        if candidate is None or candidate.mixture is None:
            return None
        m = candidate.mixture
        taken = "taken" if candidate.reason == "mixture" else f"not taken ({candidate.why})"
        return (f"{taken}: {m.high_share * candidate.fitted:.0f} of the {candidate.fitted} documents sharing a "
                f"term with it at {m.high_mean:.3f} "
                f"± {m.high_sd:.3f} beside {m.low_mean:.3f} ± {m.low_sd:.3f}, D {m.separation:.2f}")

    def load_state(self, state: Mapping) -> None:
        """Take what :meth:`state` gave (of this colony's topic, fitted elsewhere or earlier).
        ``ValueError`` for a state of the wrong shape; nothing changes then."""
        try:
            query = stored_query(state["query"])
            value = float(state["threshold"])
            reason = str(state.get("reason", "mixture"))
            judged, kept = int(state.get("judged", 0)), int(state.get("kept", 0))
            forms = self._stored_forms(state.get("forms"))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"a topic state of the wrong shape: {exc}") from None
        if not 0.0 <= value <= 1.0 or not math.isfinite(value):
            raise ValueError(f"a topic state with a threshold of {value}")
        self.query = query
        self.forms = forms
        self.initialism_used = self.initialism is not None and query is not None and self.initialism in query
        if self.mode == "mixture":
            self.threshold = Threshold(max(self.floor, value), reason)
        self.judged, self.kept = judged, kept

    def _stored_forms(self, forms: object) -> dict[str, str]:
        """:meth:`state`'s ``"forms"`` read back: {} for none; ``ValueError`` unless each is
        one of :func:`word_forms` of a word of this topic's name."""
        if forms is None:
            return {}
        if not isinstance(forms, Mapping):
            raise ValueError(f"forms that are not form -> word: {type(forms).__name__}")
        for form, word in forms.items():
            if word not in self.topic.terms or form not in word_forms(str(word)):
                raise ValueError(f"{str(form)!r} is no form of a word of the topic's name ({str(word)!r})")
        return {str(form): str(word) for form, word in forms.items()} if self.feedback else {}
