"""Population policies: they decide splits, retirements and teleports; they never act.

- :class:`ScorePolicy` — Alg. 8 ("Manage Forager") of the selection paper (Palotai, Farkas &
  Lőrincz) and the 2003 paper: split at score ≥ MAX_SCORE = 200 while there are fewer than
  MAX_FORAGER = 16 foragers (both parts restart at 100); retire at score ≤ MIN_SCORE = 0 while
  there are more than MIN_FORAGER = 2.
- :class:`EnergyModel` and :class:`EnergyPolicy` — Mouton & Marteau (2008), "Population
  control for multi-agent based topical crawlers": a sigmoid energy variation
  ``Δe = (G + C) / (1 + exp(−λ·(r − R))) − C`` with the self-balancing threshold R read at rank
  ``n* = n / (C/G + 1)`` of the past relevances, λ = h(r_m, r_M, R), an energy buffer on pages,
  bounds UB/LB, ⌊E⌋ clones and teleporting of dying agents to pages with energy remnants.
- :class:`OriginalEnergyModel` — the model that paper starts from, the endogenous fitness of
  Menczer & Belew's InfoSpiders: ``Δe = f(r) = ρ·r − C``; ``EnergyPolicy(model="original")``
  uses it in place of the sigmoid under the same buffer, bounds, clones and teleports.

The paper prints ``r + R`` in the exponent, but its own step approximation g(r, R) (−C for
r ≤ R, G above) centres the sigmoid at r = R, so we use ``r − R``; and it writes
Prob(r > R)/Prob(r ≤ R) = G/|C| where a zero expected energy gives C/G — its n* and its
example (C = 0.5, G = 10: about one page in twenty-one gains energy) agree with C/G.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
from collections import deque
from dataclasses import dataclass
from typing import Hashable, Literal, Mapping

from newsforagers import defaults
from newsforagers.learning.bounded import Bounded

DecisionKind = Literal["split", "retire", "teleport"]


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    forager: str
    clones: int = 0               # split: how many new foragers
    energy: float | None = None   # energy policy: each part's energy after a split
    target: Hashable | None = None  # teleport: the page to jump to (None: no remnant left)


class ScorePolicy:
    """Alg. 8: split at ``split_score`` under ``max_foragers``; retire at ``retire_score``."""

    def __init__(
        self,
        split_score: float = defaults.FORAGERS_SPLIT_SCORE,
        retire_score: float = defaults.FORAGERS_RETIRE_SCORE,
        min_foragers: int = defaults.FORAGERS_MIN,
        max_foragers: int = defaults.FORAGERS_MAX,
        reset_score: float = defaults.FORAGERS_SCORE_INIT,
    ):
        if not 1 <= min_foragers <= max_foragers:
            raise ValueError(
                f"population bounds must satisfy 1 <= MIN ({min_foragers!r}) <= MAX ({max_foragers!r})."
            )
        if not retire_score < reset_score < split_score:
            raise ValueError(
                f"scores must satisfy retire ({retire_score!r}) < reset ({reset_score!r}) "
                f"< split ({split_score!r})."
            )
        self.split_score = split_score
        self.retire_score = retire_score
        self.min_foragers = min_foragers
        self.max_foragers = max_foragers
        self.reset_score = reset_score

    def decide(self, forager: str, score: float, population: int) -> Decision | None:
        if not math.isfinite(score):
            raise ValueError(f"score of forager {forager!r} ({score!r}) must be finite.")
        if score >= self.split_score and population < self.max_foragers:
            return Decision("split", forager, clones=1)
        if score <= self.retire_score and population > self.min_foragers:
            return Decision("retire", forager)
        return None

    def decide_all(self, scores: Mapping[str, float]) -> list[Decision]:
        """Decisions for every forager in turn, counting each one's effect on the population
        so that applying them all keeps the population within [MIN, MAX]."""
        population = len(scores)
        decisions = []
        for forager, score in scores.items():
            decision = self.decide(forager, score, population)
            if decision is not None:
                population += 1 if decision.kind == "split" else -1
                decisions.append(decision)
        return decisions


def _sigmoid(x: float) -> float:
    # Stable for large |x|: exp never overflows.
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def energy_variation(r: float, threshold: float, lam: float, C: float, G: float) -> float:
    """Mouton & Marteau's ``Δe = f(r, R) = (G + C)·σ(λ·(r − R)) − C``.

    With λ infinite (all past relevances equal) this is the step g(r, R): −C for r ≤ R, G above.
    """
    if math.isinf(lam):
        return G if r > threshold else -C
    return (G + C) * _sigmoid(lam * (r - threshold)) - C


def steepness(r_min: float, r_max: float, threshold: float) -> float:
    """λ = h(r_m, r_M, R) as printed in the paper::

        8/(R − r_m) ≤ r_M − R  →  λ = 8/(R − r_m)
        8/(R − r_m) > r_M − R  →  λ = 8/(r_M − R)

    A side of zero width (R at the minimum or the maximum) leaves only the other side;
    both zero (every relevance equal) gives λ = ∞, the step function.
    """
    low, high = threshold - r_min, r_max - threshold
    if low <= 0 and high <= 0:
        return math.inf
    if low <= 0:
        return 8.0 / high
    if high <= 0:
        return 8.0 / low
    return 8.0 / low if 8.0 / low <= high else 8.0 / high


class _Relevances:
    """The relevances a model has seen, sorted ascending, with an optional window (see
    :class:`EnergyModel`): one shape for both energy models, so a checkpoint of either
    restores into the other."""

    def __init__(self, history: int = 0, limit: int = 0):
        if not isinstance(history, int) or history < 0:
            raise ValueError(f"energy history ({history!r}) must be an integer >= 0 (0: all).")
        if not isinstance(limit, int) or limit < 0:
            raise ValueError(f"energy page limit ({limit!r}) must be an integer >= 0 (0: none).")
        self.history = history
        self.window = min(w for w in (history, limit) if w) if (history or limit) else 0
        self._history: list[float] = []  # sorted ascending
        self._order: deque[float] = deque()  # arrival order, with a window

    def __len__(self) -> int:
        return len(self._history)

    def observe(self, relevance: float) -> None:
        if not math.isfinite(relevance):
            raise ValueError(f"relevance ({relevance!r}) must be finite.")
        bisect.insort(self._history, float(relevance))
        if self.window:
            self._order.append(float(relevance))
            if len(self._order) > self.window:
                oldest = self._order.popleft()
                del self._history[bisect.bisect_left(self._history, oldest)]


class EnergyModel(_Relevances):
    """The self-balancing energy function: R and λ from the history of relevances.

    ``history=0`` keeps every relevance seen, as the paper does. A positive ``history`` keeps
    only the last that many: when relevances drift (a news site's profits fall as its news is
    found), a threshold over all history stays where the early, richer pages put it and far
    fewer than C/(G + C) of the new pages pass it; a window follows the drift. That is a
    setting beside the paper's rule (``FORAGERS_ENERGY_HISTORY``), not a change to it.

    ``limit`` (0: none) bounds memory: "all" then means the last ``limit`` relevances, the
    same window the paper's rule reaches only after that many pages (``FORAGERS_ENERGY_PAGES_MAX``).
    """

    def __init__(self, C: float = defaults.FORAGERS_ENERGY_C, G: float = defaults.FORAGERS_ENERGY_G,
                 history: int = 0, limit: int = 0):
        if not (C > 0 and G > 0 and math.isfinite(C) and math.isfinite(G)):
            raise ValueError(f"energy C ({C!r}) and G ({G!r}) must be finite and > 0.")
        super().__init__(history, limit)
        self.C = float(C)
        self.G = float(G)

    def threshold(self) -> float:
        """R = r_{n*}, the relevance of rank ``n* = n/(C/G + 1)`` (1-based, ascending)."""
        n = len(self._history)
        if n == 0:
            raise ValueError("the energy threshold needs at least one observed relevance.")
        rank = n / (self.C / self.G + 1.0)
        index = min(n - 1, max(0, int(round(rank)) - 1))
        return self._history[index]

    def energy(self, relevance: float) -> float:
        """Δe of a page of this relevance given the history (which should include it)."""
        R = self.threshold()
        lam = steepness(self._history[0], self._history[-1], R)
        return energy_variation(relevance, R, lam, self.C, self.G)


class OriginalEnergyModel(_Relevances):
    """The endogenous fitness model's energy (Menczer & Belew; Mouton & Marteau's eq. before
    the sigmoid)::

        Δe = f(r) = ρ·r − C

    C is the cost of a page, ρ the rate converting relevance into energy; nothing bounds the
    gain or balances the population, which is what the sigmoid was introduced for (the
    paper's Fig. 2). "The range of ρ depends on the order of the similarity metric": a page
    pays when r > C/ρ, so ρ must be set to the scale of the relevances.

    Δe reads no history; the relevances are kept all the same (within ``history`` and
    ``limit``) so that a checkpoint has one shape for both models.
    """

    def __init__(self, C: float = defaults.FORAGERS_ENERGY_C, rho: float = defaults.FORAGERS_ENERGY_RHO,
                 history: int = 0, limit: int = 0):
        if not (C > 0 and math.isfinite(C)):
            raise ValueError(f"energy C ({C!r}) must be finite and > 0.")
        if not (rho > 0 and math.isfinite(rho)):
            raise ValueError(f"energy rho ({rho!r}) must be finite and > 0.")
        super().__init__(history, limit)
        self.C = float(C)
        self.rho = float(rho)

    def threshold(self) -> float:
        """The break-even relevance C/ρ, fixed: the pages above it are the ones that gain
        (``Δe > 0``), so the policy's ``relevant_pages`` counts its gainers."""
        return self.C / self.rho

    def energy(self, relevance: float) -> float:
        """Δe = ρ·r − C of a page of this relevance."""
        return self.rho * relevance - self.C


ENERGY_MODELS = ("sigmoid", "original")
ENERGY_SPLITS = ("printed", "shared")
ENERGY_BOUNDS = ("strict", "paper")


class EnergyPolicy:
    """Alg. 2 of Mouton & Marteau (energy conservation): per-forager energy, page buffers.

    ``visit`` is called for each page a forager fetches; it returns the decisions the colony
    should act on.

    ``model`` chooses Δe: ``"sigmoid"`` (:class:`EnergyModel`, the paper's, with C and G) or
    ``"original"`` (:class:`OriginalEnergyModel`, ``ρ·r − C``, with C and ``rho``; G unused).
    Everything else is shared.

    ``split`` says how a forager with ``E > 1`` shares its energy with its ⌊E⌋ clones:

    - ``"printed"`` (the default): Alg. 2 as printed, "create ⌊E⌋ clones with E ÷ ⌊E⌋
      energy; E ← E ÷ ⌊E⌋": ⌊E⌋ + 1 parts of E/⌊E⌋, which hold more than E, and every part of
      a non-integer E > 1 is above 1 again (it splits again at its next visit, even of a
      consumed page, which costs nothing). Measured, every setting runs away
      (docs/algorithms.md).
    - ``"shared"``: Alg. 1's "clone agent and share E between clones": the forager and its
      clones hold ``E/(clones + 1)`` each, E conserved. With ⌊E⌋ clones each part is in
      (1/2, 1): no part splits again before it gains; an agent of E = 11 makes 11 clones ("about
      ten", the paper's G = 10 example).

    ``bounds`` says how UB and LB act:

    - ``"strict"`` (the default): the population stays inside [LB, UB] exactly: clones are
      capped at ``UB − population``, and a dying forager teleports instead of dying while the
      population is at LB or below. The population then never passes UB, so the buffer's
      deferral below never happens: no remnant, no teleport target.
    - ``"paper"``: Alg. 2 exactly: no clone cap, so the population may pass UB; a dying forager
      teleports only while the population is below LB, else it dies.

    Under both, while the population is above UB a visitor pays ``|C|`` and the page keeps its
    energy (a remnant, the teleport target); otherwise the visitor takes it.
    """

    def __init__(
        self,
        C: float = defaults.FORAGERS_ENERGY_C,
        G: float = defaults.FORAGERS_ENERGY_G,
        lower_bound: int = defaults.FORAGERS_ENERGY_LB,
        upper_bound: int = defaults.FORAGERS_ENERGY_UB,
        initial_energy: float = defaults.FORAGERS_ENERGY_INIT,
        history: int = defaults.FORAGERS_ENERGY_HISTORY,
        pages_max: int = 0,
        model: str = defaults.FORAGERS_ENERGY_MODEL,
        rho: float = defaults.FORAGERS_ENERGY_RHO,
        split: str = defaults.FORAGERS_ENERGY_SPLIT,
        bounds: str = defaults.FORAGERS_ENERGY_BOUNDS,
    ):
        if not 1 <= lower_bound <= upper_bound:
            raise ValueError(
                f"energy bounds must satisfy 1 <= LB ({lower_bound!r}) <= UB ({upper_bound!r})."
            )
        if model not in ENERGY_MODELS:
            raise ValueError(f"energy model ({model!r}) must be 'sigmoid' or 'original'.")
        if split not in ENERGY_SPLITS:
            raise ValueError(f"energy split ({split!r}) must be 'printed' or 'shared'.")
        if bounds not in ENERGY_BOUNDS:
            raise ValueError(f"energy bounds ({bounds!r}) must be 'strict' or 'paper'.")
        self.split = split
        self.bounds = bounds
        self.model: EnergyModel | OriginalEnergyModel = (
            EnergyModel(C, G, history, pages_max) if model == "sigmoid"
            else OriginalEnergyModel(C, rho, history, pages_max))
        self.pages_max = pages_max  # pages whose buffer is kept (0: all)
        self.evicted_pages = 0  # buffers forgotten for the cap: such a page counts as new again
        self._remnant_heap: list[tuple[float, int, Hashable]] = []  # (−energy, order, page)
        self._remnant_order = itertools.count()
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.initial_energy = float(initial_energy)
        self.energies: dict[str, float] = {}
        # the buffer, oldest first, at most pages_max (0: no cap)
        self.page_energy: Bounded[Hashable, float] = Bounded(pages_max or None)
        # Pages first seen with r > R (the step model g's "relevant" pages) and with Δe > 0
        # (the sigmoid's gainers); the paper expects about C/(G + C) of pages for both. Under
        # the original model R is the break-even C/ρ: both count the gainers.
        self.relevant_pages = 0
        self.gaining_pages = 0
        self.visits = 0  # every visit, first or not
        self.pages = 0  # first visits

    @property
    def population(self) -> int:
        return len(self.energies)

    def to_dict(self) -> dict:
        """Everything a checkpoint needs (JSON-able; pages must be JSON values)."""
        model = self.model
        return {"energies": dict(self.energies), "history": list(model._history),
                "order": list(model._order), "page_energy": list(self.page_energy.items()),
                "visits": self.visits, "pages": self.pages, "relevant_pages": self.relevant_pages,
                "gaining_pages": self.gaining_pages, "evicted_pages": self.evicted_pages}

    def restore(self, state: Mapping) -> None:
        """The buffer, the threshold history and the counts of ``to_dict`` (energies come back
        as each forager registers again), cut to this policy's caps. Raises TypeError or
        ValueError on a state that is not one, leaving the policy unchanged."""
        history = sorted(float(r) for r in state.get("history", []))
        order = deque(float(r) for r in state.get("order", []))
        buffer = Bounded(self.pages_max or None, ((page, float(e)) for page, e in state.get("page_energy", [])))
        counts = {name: int(state.get(name, 0))
                  for name in ("visits", "pages", "relevant_pages", "gaining_pages", "evicted_pages")}
        window = self.model.window
        if window and not order:
            # saved without a window: the arrival order is lost, the window forgets in rank order
            order = deque(history)
        while window and len(order) > window:
            del history[bisect.bisect_left(history, order.popleft())]
        self.model._history, self.model._order, self.page_energy = history, order, buffer
        self._rebuild_remnants()
        for name, value in counts.items():
            setattr(self, name, value)

    def register(self, forager: str, energy: float | None = None) -> None:
        self.energies[forager] = self.initial_energy if energy is None else float(energy)

    def forget(self, forager: str) -> None:
        self.energies.pop(forager, None)

    def remnants(self) -> dict[Hashable, float]:
        """Pages still holding positive energy (teleport targets)."""
        return {page: e for page, e in self.page_energy.items() if e > 0}

    def best_remnant(self) -> Hashable | None:
        """The page holding the most energy (the teleport target), or None when none holds any.

        A max-heap of the pages first seen with a positive Δe, its stale entries (consumed or
        forgotten pages) dropped as they surface: no scan of the whole buffer per teleport, which
        a forager at LB with negative energy asks for on every page it visits.
        """
        heap = self._remnant_heap
        while heap:
            negative, _, page = heap[0]
            if self.page_energy.get(page) == -negative:
                return page
            heapq.heappop(heap)
        return None

    def _rebuild_remnants(self) -> None:
        self._remnant_heap = [(-e, next(self._remnant_order), page)
                              for page, e in self.page_energy.items() if e > 0]
        heapq.heapify(self._remnant_heap)

    def visit(self, forager: str, page: Hashable, relevance: float) -> list[Decision]:
        """update_energy() then reproduce() for one fetched page."""
        if forager not in self.energies:
            raise KeyError(f"forager {forager!r} is not registered with the energy policy.")
        C = self.model.C
        self.visits += 1
        if page not in self.page_energy:
            self.pages += 1
            self.model.observe(relevance)
            delta = self.model.energy(relevance)
            forgotten = self.page_energy.forgotten
            self.page_energy[page] = delta  # the newest: never the page forgotten for the cap
            self.evicted_pages += self.page_energy.forgotten - forgotten
            if delta > 0:
                heapq.heappush(self._remnant_heap, (-delta, next(self._remnant_order), page))
                if len(self._remnant_heap) > 2 * len(self.page_energy) + 64:
                    self._rebuild_remnants()
            self.relevant_pages += relevance > self.model.threshold()
            self.gaining_pages += delta > 0
        if self.population > self.upper_bound:
            self.energies[forager] -= abs(C)
        else:
            self.energies[forager] += self.page_energy[page]
            self.page_energy[page] = 0.0
        return self._reproduce(forager)

    def _reproduce(self, forager: str) -> list[Decision]:
        energy = self.energies[forager]
        strict = self.bounds == "strict"
        if energy > 1:
            clones = math.floor(energy)
            if strict:
                clones = min(clones, self.upper_bound - self.population)
                if clones <= 0:
                    return []
            if self.split == "shared":
                share = energy / (clones + 1)  # the forager and its clones: E conserved
            else:
                share = energy / math.floor(energy)  # as printed: (⌊E⌋ + 1)·E/⌊E⌋ > E
            self.energies[forager] = share
            return [Decision("split", forager, clones=clones, energy=share)]
        if energy < 0:
            floor = self.population <= self.lower_bound if strict else self.population < self.lower_bound
            if floor:
                target = self.best_remnant()
                return [Decision("teleport", forager, target=target)]
            return [Decision("retire", forager)]
        return []
