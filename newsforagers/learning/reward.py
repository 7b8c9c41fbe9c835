"""The reinforcing agent's rules: rewards, costs and forager scores.

Palotai, Mandusitz & Lőrincz (2003), "Reward system" and "Multiplying by bipartition and
extinction"; selection paper, Sect. 3.2 and Alg. 7 ("Manage Received URL").

A send is *relevant* when its document has not been seen by the agent before (the first
sender) and is not older than 24 hours; then the sender gets REWARD = 100. Every send costs
1. The two papers differ on whether a rewarded send also pays the cost: the 2003 worked
example does (documents E and F sent, F novel: profit 100 − 1 − 1 = 98), Alg. 7 sends REWARD
alone (profit 100 − 1 = 99 for the same step). ``rewarded_send_pays_cost`` chooses; the
default reproduces the worked example.

Scores: 100 at start, −0.05 per send, +1 per rewarded send.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Hashable, Iterable, MutableSet

from newsforagers import defaults


@dataclass(frozen=True)
class RewardRules:
    reward: float = defaults.FORAGERS_REWARD
    send_cost: float = defaults.FORAGERS_SEND_COST
    rewarded_send_pays_cost: bool = defaults.FORAGERS_REWARDED_SEND_PAYS_COST
    novelty_window: float = defaults.FORAGERS_NOVELTY_WINDOW  # seconds
    future_skew: float = defaults.FORAGERS_FUTURE_SKEW  # seconds a date may lie ahead
    score_init: float = defaults.FORAGERS_SCORE_INIT
    score_per_send: float = defaults.FORAGERS_SCORE_PER_SEND
    score_per_reward: float = defaults.FORAGERS_SCORE_PER_REWARD

    def __post_init__(self):
        for name in ("reward", "send_cost", "novelty_window", "future_skew", "score_init",
                     "score_per_send", "score_per_reward"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"reward rule {name} ({value!r}) must be a finite number.")
        if self.future_skew < 0:
            raise ValueError(f"reward rule future_skew ({self.future_skew!r}) must be >= 0.")
        if self.send_cost < 0:
            raise ValueError(f"reward rule send_cost ({self.send_cost!r}) must be >= 0.")
        if self.novelty_window <= 0:
            raise ValueError(
                f"reward rule novelty_window ({self.novelty_window!r}) must be > 0 seconds."
            )


@dataclass(frozen=True)
class SendOutcome:
    """What one send earns its forager."""

    rewarded: bool
    profit: float       # the forager's immediate profit for this send
    score_delta: float  # the change of the forager's score


def judge_send(rules: RewardRules, first_sender: bool, age_seconds: float) -> SendOutcome:
    """Alg. 7 for one send: ``first_sender`` is True when the agent has not seen the document.

    ``age_seconds`` is the document's age on the site's clock at the send; a document older
    than the novelty window, or dated more than ``future_skew`` ahead of the clock, is never
    rewarded (and, by Alg. 7, never enters the seen set).
    """
    if not math.isfinite(age_seconds):
        raise ValueError(f"document age ({age_seconds!r}) must be finite.")
    relevant = first_sender and in_window(rules, age_seconds)
    if relevant:
        profit = rules.reward - (rules.send_cost if rules.rewarded_send_pays_cost else 0.0)
        return SendOutcome(True, profit, rules.score_per_send + rules.score_per_reward)
    return SendOutcome(False, -rules.send_cost, rules.score_per_send)


def in_window(rules: RewardRules, age_seconds: float) -> bool:
    """True when a document of this age may be rewarded: −future_skew ≤ age ≤ window."""
    return -rules.future_skew <= age_seconds <= rules.novelty_window


def step_profit(outcomes: Iterable[SendOutcome]) -> float:
    """The immediate profit of a step: the sum over the sends it made."""
    return float(sum(o.profit for o in outcomes))


@dataclass
class ReinforcingAgent:
    """Alg. 7 with its memory: the seen relevant documents and every forager's score.

    Pure bookkeeping, no clock and no I/O: callers pass the document's key (canonical URL or
    content fingerprint) and its age. The simulator's agent; the Scrapy pipeline
    (:mod:`newsforagers.pipelines`) applies the same rules (:func:`judge_send`, :func:`in_window`)
    with the colony's store as its memory, whose claims are atomic across processes.
    """

    rules: RewardRules = field(default_factory=RewardRules)
    seen: MutableSet[Hashable] = field(default_factory=set)
    scores: dict[str, float] = field(default_factory=dict)

    def register(self, forager: str) -> None:
        self.scores.setdefault(forager, self.rules.score_init)

    def reset(self, forager: str) -> None:
        """Give a forager INIT_SCORE again (both parts of a split, Alg. 8)."""
        self.scores[forager] = self.rules.score_init

    def forget(self, forager: str) -> None:
        self.scores.pop(forager, None)

    def receive(self, forager: str, document: Hashable, age_seconds: float) -> SendOutcome:
        """Judge one send of ``document`` by ``forager`` and update the forager's score."""
        if forager not in self.scores:
            raise KeyError(f"forager {forager!r} is not registered with the reinforcing agent.")
        outcome = judge_send(self.rules, document not in self.seen, age_seconds)
        if outcome.rewarded:
            self.seen.add(document)
        self.scores[forager] += outcome.score_delta
        return outcome


def judge_topical_send(rules: RewardRules, first_sender: bool, age_seconds: float,
                       relevance: float, mode: str) -> SendOutcome:
    """A send judged in the topical mode (after Mouton & Marteau 2008, whose agents
    earn from the relevance ``r ∈ [0, 1]`` of the pages they find to a topic).

    - ``"topic+novelty"``: the first sender of a novel same-day document (as :func:`judge_send`)
      gets ``REWARD·r`` — "new and about X";
    - ``"topic"``: the first sender of a document gets ``REWARD·r`` whatever its age (a
      document dated ahead of the clock by more than ``future_skew`` still earns nothing);
    - ``"novelty"``: :func:`judge_send`, ``r`` unused.

    Every send costs ``send_cost`` (a rewarded one too when ``rewarded_send_pays_cost``), and
    a rewarded send's score change is ``score_per_send + r·score_per_reward``. A rewarded send
    of ``r = 0`` is still *rewarded* (the document was new: it is claimed and never paid
    again) but earns nothing beyond the cost.
    """
    if mode == "novelty":
        return judge_send(rules, first_sender, age_seconds)
    if mode not in ("topic", "topic+novelty"):
        raise ValueError(f"reward mode ({mode!r}) must be 'novelty', 'topic' or 'topic+novelty'.")
    if not math.isfinite(age_seconds):
        raise ValueError(f"document age ({age_seconds!r}) must be finite.")
    if not (math.isfinite(relevance) and 0.0 <= relevance <= 1.0):
        raise ValueError(f"relevance ({relevance!r}) must be in [0, 1].")
    dated_right = age_seconds >= -rules.future_skew if mode == "topic" else in_window(rules, age_seconds)
    if first_sender and dated_right:
        cost = rules.send_cost if rules.rewarded_send_pays_cost else 0.0
        return SendOutcome(True, rules.reward * relevance - cost,
                           rules.score_per_send + rules.score_per_reward * relevance)
    return SendOutcome(False, -rules.send_cost, rules.score_per_send)
