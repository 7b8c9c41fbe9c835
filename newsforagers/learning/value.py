"""The linear long-term-profit estimate ``V(s) = w·s``, greedy URL ordering and TD(0).

Selection paper (Palotai, Farkas & Lőrincz), Sect. 3.1.2: Alg. 3 (URL ordering) and Alg. 4
(URL ordering update); the TD rule is Sutton (1988), "Learning to predict by the methods of
temporal differences". Names follow the time-indexed convention: ``s_tm1`` is the state of
the step being left, ``r_t`` the profit received on arriving at the next step, ``s_t`` its state.
"""

from __future__ import annotations

import numpy as np

from newsforagers import defaults


def _as_vector(x, name: str) -> np.ndarray:
    array = np.asarray(x, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a vector, got shape {array.shape}.")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} holds NaN or infinite values.")
    return array


def value(w, s) -> float:
    """``V(s) = Σ_i w_i·s_i``, the estimated long-term cumulated profit of a page."""
    w, s = _as_vector(w, "w"), _as_vector(s, "s")
    if w.shape != s.shape:
        raise ValueError(f"w {w.shape} and s {s.shape} must have the same length.")
    return float(w @ s)


def values(w, states) -> np.ndarray:
    """``V`` of every row of a ``(n, k)`` matrix of states."""
    w = _as_vector(w, "w")
    states = np.asarray(states)
    if states.dtype != np.float32:  # frontiers are stored as float32; keep that precision
        states = states.astype(np.float64, copy=False)
    if states.ndim != 2 or states.shape[1] != w.shape[0]:
        raise ValueError(f"states must have shape (n, {w.shape[0]}), got {states.shape}.")
    if not np.all(np.isfinite(states)):
        raise ValueError("states hold NaN or infinite values.")
    return states @ w.astype(states.dtype, copy=False)


def greedy(w, states) -> int:
    """Alg. 3: the index of the frontier state with the highest ``w·s`` (first one on ties)."""
    v = values(w, states)
    if v.shape[0] == 0:
        raise ValueError("cannot choose from an empty frontier.")
    return int(np.argmax(v))


def td_error(w, s_tm1, r_t: float, s_t, gamma: float = defaults.FORAGERS_TD_GAMMA) -> float:
    """``δ = r_t + γ·V(s_t) − V(s_tm1)``."""
    if not np.isfinite(r_t):
        raise ValueError(f"reward r_t ({r_t!r}) must be finite.")
    return float(r_t) + gamma * value(w, s_t) - value(w, s_tm1)


def td_step(
    w,
    s_tm1,
    r_t: float,
    s_t,
    alpha: float = defaults.FORAGERS_TD_ALPHA,
    gamma: float = defaults.FORAGERS_TD_GAMMA,
) -> np.ndarray:
    """One TD(0) step of Alg. 4; returns the new weights (``w`` itself is not modified).

    Sutton (1988)::

        δ = r_t + γ·V(s_t) − V(s_tm1)
        w ← w + α·δ·s_tm1

    with α = 0.1 and γ = 0.9 in the papers.
    """
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"alpha ({alpha!r}) must be in (0, 1].")
    if not 0.0 <= gamma < 1.0:
        raise ValueError(f"gamma ({gamma!r}) must be in [0, 1).")
    delta = td_error(w, s_tm1, r_t, s_t, gamma)
    w_new = np.asarray(w, dtype=np.float64) + alpha * delta * _as_vector(s_tm1, "s_tm1")
    if not np.all(np.isfinite(w_new)):
        raise ValueError("the TD step overflowed: the new weights are not finite.")
    return w_new


def random_weights(k: int, rng: np.random.Generator) -> np.ndarray:
    """Fresh weights for a WL forager (Alg. 6, "generate a new random weight vector").

    The papers do not give the distribution; uniform on [−1, 1] keeps ``w·s`` of the same
    order for every forager, whatever ``k``.
    """
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"k ({k!r}) must be a positive integer.")
    return rng.uniform(-1.0, 1.0, size=k)


def copy_weights(w) -> np.ndarray:
    """Weights for an RL/WLRL child (Alg. 6, "copy the weight vector")."""
    return _as_vector(w, "w").copy()
