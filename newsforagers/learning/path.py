"""One forager path: the visited list, the frontier and the step bookkeeping of Alg. 11-12.

Selection paper (Palotai, Farkas & Lőrincz), Sect. 3.3: a path starts at a URL drawn from the
starting URL list; each step downloads the chosen page and probes its linked pages; probed
URLs not visited in this path join the frontier with their state vectors (Alg. 2); the next
step is the frontier URL with the highest ``w·s`` (Alg. 3). The path ends after MAX_STEP = 100
steps or when the frontier is empty. Both the Scrapy scheduler and the fast simulator drive
this class, so the offline and online foragers take the same decisions.
"""

from __future__ import annotations

import base64
from typing import Iterable, Sequence

import numpy as np

from newsforagers import defaults


class ForagerPath:
    """Short-term memory of the current path: pure, numbers in and URLs out."""

    def __init__(self, k: int = defaults.FORAGERS_N_CLUSTERS, max_steps: int = defaults.FORAGERS_PATH_STEPS):
        if not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps ({max_steps!r}) must be a positive integer.")
        self.k = k
        self.max_steps = max_steps
        self.steps: list[str] = []
        self.step_states: list[np.ndarray | None] = []
        self.profits: list[float] = []
        self.visited: set[str] = set()
        self._frontier_urls: list[str] = []
        self._frontier_index: dict[str, int] = {}
        self._rows = np.zeros((64, k), dtype=np.float32)
        self._alive = np.zeros(64, dtype=bool)
        # w·s of every frontier row under the weights last used (−inf once taken): a choice
        # is one argmax, a new row costs one dot product, and a weight change (a TD step)
        # re-scores the frontier once (a few ms for 100k rows).
        self._values = np.full(64, -np.inf, dtype=np.float32)
        self._scored_weights: np.ndarray | None = None
        self._n_alive = 0

    # -- the frontier -------------------------------------------------------------------

    @property
    def frontier_size(self) -> int:
        return self._n_alive

    def frontier(self) -> list[str]:
        n = len(self._frontier_urls)
        return [u for u, alive in zip(self._frontier_urls, self._alive[:n]) if alive]

    def add_frontier(self, urls: Sequence[str], states) -> list[str]:
        """Add probed URLs that are neither visited in this path nor already on the frontier.

        ``states`` is an ``(len(urls), k)`` array of their state vectors; rows must be finite.
        Returns the URLs actually added.
        """
        states = np.asarray(states, dtype=np.float32).reshape(len(urls), self.k)
        if not np.all(np.isfinite(states)):
            raise ValueError("frontier states hold NaN or infinite values.")
        added = []
        for url, row in zip(urls, states):
            if url in self.visited or url in self._frontier_index:
                continue
            index = len(self._frontier_urls)
            if index == self._rows.shape[0]:
                self._rows = np.concatenate([self._rows, np.zeros_like(self._rows)])
                self._alive = np.concatenate([self._alive, np.zeros_like(self._alive)])
                self._values = np.concatenate([self._values, np.full_like(self._values, -np.inf)])
            self._rows[index] = row
            self._alive[index] = True
            self._n_alive += 1
            self._frontier_urls.append(url)
            self._frontier_index[url] = index
            added.append(url)
        if added and self._scored_weights is not None:
            first, end = len(self._frontier_urls) - len(added), len(self._frontier_urls)
            self._values[first:end] = self._rows[first:end] @ self._scored_weights
        return added

    def on_frontier(self, url: str) -> bool:
        """Whether ``url`` has joined the frontier in this path (taken since, or not): as
        ``state_of(url) is not None``, without copying its row."""
        return url in self._frontier_index

    def state_of(self, url: str) -> np.ndarray | None:
        index = self._frontier_index.get(url)
        return None if index is None else self._rows[index].copy()

    # -- steps --------------------------------------------------------------------------

    def begin(self, start_url: str, state=None) -> None:
        """Forget the previous path and take ``start_url`` as step 1 (Alg. 11's else-branch)."""
        self.steps, self.step_states, self.profits = [], [], []
        self.visited = set()
        self._frontier_urls, self._frontier_index = [], {}
        self._alive[:] = False
        self._values[:] = -np.inf
        self._scored_weights = None
        self._n_alive = 0
        self._take(start_url, state)

    def _take(self, url: str, state) -> None:
        self.steps.append(url)
        self.step_states.append(None if state is None else np.asarray(state, dtype=np.float64))
        self.profits.append(0.0)
        self.visited.add(url)

    def choose_next(self, w) -> str | None:
        """Alg. 3 + 11: take the frontier URL with the highest ``w·s`` as the next step.

        Returns None when the path is over (MAX_STEP reached or the frontier is empty).
        """
        if self.finished:
            return None
        w32 = np.asarray(w, dtype=np.float32)
        if self._scored_weights is None or not np.array_equal(w32, self._scored_weights):
            self._rescore(w32)
        n = len(self._frontier_urls)
        index = int(np.argmax(self._values[:n]))  # the first maximum: ties go to the oldest URL
        self._alive[index] = False
        self._n_alive -= 1
        self._values[index] = -np.inf
        url = self._frontier_urls[index]
        self._take(url, self._rows[index])
        return url

    def _rescore(self, w32: np.ndarray) -> None:
        n = len(self._frontier_urls)
        scores = self._rows[:n] @ w32
        if not np.all(np.isfinite(scores)):
            raise ValueError("frontier values overflow: the weights are too large.")
        scores[~self._alive[:n]] = -np.inf
        self._values[:n] = scores
        self._scored_weights = w32.copy()

    def choose_next_url(self, url: str) -> str | None:
        """Take a given frontier URL as the next step (random order while states are unknown)."""
        index = self._frontier_index.get(url)
        if self.finished or index is None or not self._alive[index]:
            return None
        self._alive[index] = False
        self._n_alive -= 1
        self._values[index] = -np.inf
        self._take(url, self._rows[index])
        return url

    @property
    def finished(self) -> bool:
        return len(self.steps) >= self.max_steps or self.frontier_size == 0

    @property
    def current(self) -> str | None:
        return self.steps[-1] if self.steps else None

    def set_current_state(self, state) -> None:
        """The state of the current step page, once known (a start page is not probed)."""
        self.step_states[-1] = np.asarray(state, dtype=np.float64)

    def add_profit(self, profit: float) -> None:
        """Credit the current step with (part of) its immediate profit."""
        if not np.isfinite(profit):
            raise ValueError(f"profit ({profit!r}) must be finite.")
        self.profits[-1] += float(profit)

    def transitions(self) -> Iterable[tuple[np.ndarray, float, np.ndarray]]:
        """``(s_tm1, r_t, s_t)`` of every step transition with both states known."""
        for i in range(1, len(self.steps)):
            s_tm1, s_t = self.step_states[i - 1], self.step_states[i]
            if s_tm1 is not None and s_t is not None:
                yield s_tm1, self.profits[i], s_t

    def last_transition(self) -> tuple[np.ndarray, float, np.ndarray] | None:
        """The transition into the current step, for the TD update once its profit is in."""
        if len(self.steps) < 2:
            return None
        s_tm1, s_t = self.step_states[-2], self.step_states[-1]
        if s_tm1 is None or s_t is None:
            return None
        return s_tm1, self.profits[-1], s_t

    def to_dict(self, compact: bool = False) -> dict:
        """The path as JSON-able data. ``compact`` packs the state rows as base64 of their
        bytes (float32 frontier rows, float64 step states: no precision lost) instead of
        lists of numbers, about a quarter of the size."""
        n = len(self._frontier_urls)
        alive = self._alive[:n]
        data = {
            "steps": list(self.steps),
            "profits": list(self.profits),
            "frontier": [u for u, a in zip(self._frontier_urls, alive) if a],
            "visited": sorted(self.visited),
        }
        rows = self._rows[:n][alive]
        if not compact:
            data["step_states"] = [None if s is None else s.tolist() for s in self.step_states]
            data["frontier_states"] = rows.tolist()
            return data
        known = [s is not None for s in self.step_states]
        states = np.array([s for s in self.step_states if s is not None], dtype="<f8").reshape(-1, self.k)
        data["step_states_known"] = known
        data["step_states_b64"] = base64.b64encode(states.tobytes()).decode("ascii")
        data["frontier_states_b64"] = base64.b64encode(rows.astype("<f4").tobytes()).decode("ascii")
        return data

    @classmethod
    def from_dict(cls, data: dict, k: int = defaults.FORAGERS_N_CLUSTERS,
                  max_steps: int = defaults.FORAGERS_PATH_STEPS) -> "ForagerPath":
        """Rebuild a path from :meth:`to_dict` (either form); ValueError when it does not fit
        ``k`` or is inconsistent."""
        path = cls(k=k, max_steps=max_steps)
        path.steps = [str(u) for u in data["steps"]]
        path.profits = [float(p) for p in data["profits"]]
        if "step_states_b64" in data:
            known = [bool(b) for b in data["step_states_known"]]
            packed = np.frombuffer(base64.b64decode(data["step_states_b64"]), dtype="<f8")
            if packed.size != sum(known) * k:
                raise ValueError("saved step states do not fit this path.")
            packed = iter(packed.reshape(-1, k).astype(np.float64))
            path.step_states = [next(packed) if b else None for b in known]
            frontier_states = np.frombuffer(base64.b64decode(data["frontier_states_b64"]), dtype="<f4")
        else:
            path.step_states = [None if s is None else np.asarray(s, dtype=np.float64)
                                for s in data["step_states"]]
            frontier_states = np.asarray(data["frontier_states"], dtype=np.float32)
        if not len(path.steps) == len(path.profits) == len(path.step_states):
            raise ValueError("saved path steps, profits and states differ in length.")
        if any(s is not None and s.shape != (k,) for s in path.step_states):
            raise ValueError("saved step states do not fit this path.")
        if frontier_states.size != len(data["frontier"]) * k:
            raise ValueError("saved frontier states do not fit this path.")
        path.visited = set(data["visited"])
        if data["frontier"]:
            path.add_frontier(data["frontier"], frontier_states.reshape(-1, k))
        return path
