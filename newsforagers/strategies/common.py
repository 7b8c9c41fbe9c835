"""What both strategies' minds share: counters, Alg. 5, the guarded TD step, the encoder's
bootstrap, what a split's child inherits (Alg. 6) and the energy policy's tie-break.

Pure like the minds: no Scrapy, no I/O. The maths stays in :mod:`newsforagers.learning`; here
are the rules that apply it the same way for the papers' forager and the scheduled one.
"""

from __future__ import annotations

import functools
import logging
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable, Protocol, Sequence

import numpy as np

from newsforagers.config import ForagersConfig
from newsforagers.learning import copy_weights, random_weights, td_error, td_step
from newsforagers.pages import SentMemory, is_candidate

logger = logging.getLogger(__name__)

MODES = ("wlrl", "wl", "rl")


class Encoder(Protocol):
    def transform(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass
class ForagerCounters:
    downloaded: int = 0  # step pages and probes that arrived
    steps: int = 0
    paths: int = 0
    probes: int = 0
    probe_failures: int = 0
    reused_states: int = 0
    sent: int = 0
    rewarded: int = 0
    late_rewards: int = 0
    td_updates: int = 0
    td_error_abs_sum: float = 0.0
    start_failures: int = 0
    td_overflows: int = 0


def select_send(config: ForagersConfig, sent: SentMemory, counters: ForagerCounters, url: str,
                published: datetime | None, now: datetime) -> bool:
    """Alg. 5, for either strategy: ``url`` is sent if it is a candidate (at most the novelty
    window old, not dated ahead of ``now`` beyond the skew) and not in ``sent``; then it is
    remembered there and counted."""
    window = timedelta(seconds=config.novelty_window)
    skew = timedelta(seconds=config.future_skew)
    if not is_candidate(published, now, window, skew=skew) or url in sent:
        return False
    sent.select([url])
    counters.sent += 1
    return True


def initial_weights(config: ForagersConfig, rng: np.random.Generator) -> np.ndarray:
    return random_weights(config.n_clusters, rng)


def guarded_td_step(name: str, config: ForagersConfig, counters: ForagerCounters, weights: np.ndarray,
                    s_tm1: np.ndarray, r_t: float, s_t: np.ndarray) -> np.ndarray:
    """Alg. 4's TD(0) step (:func:`~newsforagers.learning.td_step`), counted; the new weights.

    A diverging value estimate must not take the forager down: when the step overflows the
    old weights are kept (``td_overflows`` counted, a warning logged)."""
    try:
        delta = td_error(weights, s_tm1, r_t, s_t, config.td_gamma)
        new = td_step(weights, s_tm1, r_t, s_t, config.td_alpha, config.td_gamma)
    except ValueError:
        counters.td_overflows += 1
        logger.warning("forager %s: TD step overflowed; weights kept", name)
        return weights
    counters.td_updates += 1
    counters.td_error_abs_sum += abs(delta)
    return new


class EncoderBootstrap:
    """The state encoder's bootstrap: a mind without an encoder collects page texts; with
    ``pages`` of them it asks for a fit. ``background``: the texts wait in ``request`` for the
    driver, which fits them on a thread (:meth:`fit` is pure) and answers
    :meth:`done` or :meth:`failed`; otherwise :meth:`add` hands them back to fit at once."""

    def __init__(self, fit: Callable[[list[str]], Encoder] | None, pages: int, background: bool = True):
        self._fit = fit
        self.pages = pages
        self.background = background
        self.texts: list[str] = []
        self.request: list[str] | None = None  # texts waiting for the driver's fit
        self.fitting = False

    @property
    def possible(self) -> bool:
        return self._fit is not None

    def add(self, texts: Sequence[str]) -> list[str] | None:
        """Collect ``texts``; the texts to fit now (not ``background``) or None."""
        self.texts.extend(texts)
        if len(self.texts) < self.pages or self.fitting:
            return None
        texts, self.texts = self.texts, []
        if not self.background:
            return texts
        self.fitting = True
        self.request = texts
        return None

    def fit(self, texts: list[str]) -> Encoder:
        """Fit an encoder on ``texts`` (pure: safe to call on another thread)."""
        return self._fit(texts)

    @property
    def function(self) -> Callable[[list[str]], Encoder] | None:
        """The fit itself (:meth:`fit` calls it), for a driver that runs it in another process."""
        return self._fit

    def done(self) -> None:
        self.fitting = False

    def failed(self, name: str, texts: list[str], exc: Exception) -> None:
        """A fit failed (too few distinct texts yet): keep collecting, twice as many."""
        self.fitting = False
        logger.info("forager %s: encoder bootstrap postponed (%s)", name, exc)
        self.texts = list(texts) + self.texts
        self.pages = len(texts) * 2


def load_state_encoder_libraries() -> None:
    """Import the state encoder's libraries (scikit-learn, scipy: a second of CPU) now. A
    forager that will fit its encoder calls it when it is built, before its crawl is busy: a
    fitted encoder coming back from a worker process imports them as it is unpickled, and a fit
    on a thread imports them as it starts, either way holding the interpreter for a second in
    which every host of the process waited (docs/benchmarks.md, *Encoder fits in a worker
    process*)."""
    import newsforagers.text  # noqa: F401


def fit_state_encoder(texts: list[str], *, n_clusters: int, tanh_scale: float, tanh_offset: float,
                      random_state: int | None) -> Encoder:
    """A state encoder (PDDP clusters, PrTFIDF state, tanh squashing) fitted on ``texts``; a
    module's function, so that a worker process can run it (:func:`state_encoder_fit`)."""
    # (imported where the fit runs: the crawl process imported it when the forager was built,
    # load_state_encoder_libraries; a worker process imports it at its first fit)
    from newsforagers.text import StateEncoder

    return StateEncoder(n_clusters=n_clusters, tanh_scale=tanh_scale, tanh_offset=tanh_offset,
                        random_state=random_state).fit(texts)


def state_encoder_fit(config: ForagersConfig) -> Callable[[list[str]], Encoder]:
    """How either mind fits its own state encoder (``FORAGERS_N_CLUSTERS`` and the tanh
    squashing of the settings; ``FORAGERS_SEED`` for its k-means): picklable, so the driver
    can hand the fit to a worker process."""
    return functools.partial(fit_state_encoder, n_clusters=config.n_clusters, tanh_scale=config.tanh_scale,
                             tanh_offset=config.tanh_offset,
                             random_state=None if config.seed < 0 else config.seed)


def inherit(weblog, weights: np.ndarray, mode: str, rng: np.random.Generator):
    """What a split's child is born with (Alg. 6): a random half of the weblog (a weblog of
    one URL cannot be halved: both keep it) and the weights (random ones for ``wl``, whose
    weights are not learnt). An ``rl`` forager's weblog is not learnt either: every RL forager
    has the same one ([Sel] Sect. 4.2.1, "RL foragers had the same weblog"), so its child gets
    a copy of the whole. Returns ``(weblog, weights)``; the parent keeps the other half. Draws
    from ``rng`` in that order."""
    if len(weblog) >= 2 and mode != "rl":
        child = weblog.split(rng)
    else:
        child = weblog.clone()
    child_weights = random_weights(len(weights), rng) if mode == "wl" else copy_weights(weights)
    return child, child_weights


def energy_relevance(rng: np.random.Generator, profit: float, value: float,
                     relevance: float | None = None) -> float:
    """A step's relevance for the energy policy (Mouton & Marteau).

    The step's profit is the page's relevance. Profits are discrete (most steps earn 0), and a
    rank threshold R cannot split tied pages: tanh(w·s) orders equally profitable steps by
    their estimated value, and a random part far below one unit of profit breaks what is still
    tied, so that R is a true quantile (Mouton & Marteau's similarities are continuous). With
    ``relevance`` (the topical mode: the page's tf·idf relevance to the topic, the paper's own
    r; continuous, but many pages share r = 0) the same tie-breakers, far smaller. One draw
    from ``rng``."""
    jitter = float(rng.random())
    if relevance is not None:
        return float(relevance) + 1e-6 * (1.0 + math.tanh(value)) / 2.0 + 1e-9 * jitter
    return float(profit) + 1e-3 * math.tanh(value) + 1e-6 * jitter


class Mind:
    """What every strategy's mind does alike (the protocol the driver relies on, beside each
    strategy's own walk: ``next_step``/``on_step_page``... for the papers' forager,
    ``next_fetch``/``on_page``... for the scheduled one). A subclass sets ``name``, ``config``,
    ``weblog``, ``weights``, ``rng``, ``mode``, ``sent``, ``counters``, ``encoder``,
    ``retired`` and ``bootstrap`` (an :class:`EncoderBootstrap`)."""

    name: str
    config: ForagersConfig
    weights: np.ndarray
    rng: np.random.Generator
    mode: str
    sent: SentMemory
    counters: ForagerCounters
    encoder: Encoder | None
    retired: bool
    bootstrap: EncoderBootstrap

    def __init__(self, name: str, config: ForagersConfig, weights, rng: np.random.Generator,
                 mode: str, encoder: Encoder | None):
        """What every mind is made with: its id, the settings, its value weights (a float
        vector), its random stream, its mode and its state encoder (None until bootstrapped)."""
        self.name = name
        self.config = config
        self.weights = np.asarray(weights, dtype=np.float64)
        self.rng = rng
        self.mode = mode
        self.encoder = encoder

    # -- what a page teaches: Alg. 5 -----------------------------------------------------

    def should_send(self, url: str, published: datetime | None, now: datetime) -> bool:
        """Alg. 5: a candidate (≤ 24 h old, not dated ahead) not sent before by this forager."""
        return select_send(self.config, self.sent, self.counters, url, published, now)

    # -- when to split, what a child inherits ---------------------------------------------

    def inherit(self):
        """A split's child's weblog and weights (:func:`inherit`); this mind keeps the rest."""
        return inherit(self.weblog, self.weights, self.mode, self.rng)

    def energy_relevance(self, profit: float, value: float, relevance: float | None = None) -> float:
        """A finished step's relevance for the energy policy (:func:`energy_relevance`)."""
        return energy_relevance(self.rng, profit, value, relevance)

    # -- the encoder's bootstrap (the driver fits it on a thread) -------------------------

    @property
    def fit_request(self) -> list[str] | None:
        """Texts waiting for the driver to fit an encoder on (None: none)."""
        return self.bootstrap.request

    @fit_request.setter
    def fit_request(self, texts: list[str] | None) -> None:
        self.bootstrap.request = texts

    @property
    def bootstrap_pages(self) -> int:
        return self.bootstrap.pages

    @bootstrap_pages.setter
    def bootstrap_pages(self, pages: int) -> None:
        self.bootstrap.pages = pages

    def fit(self, texts: list[str]) -> Encoder:
        """Fit an encoder on ``texts`` (pure: safe to call on another thread)."""
        return self.bootstrap.fit(texts)

    def encoder_failed(self, texts: list[str], exc: Exception) -> None:
        """A fit failed (too few distinct texts yet): keep collecting, twice as many."""
        self.bootstrap.failed(self.name, texts, exc)
