"""The weblog: a forager's ranked memory of good starting URLs.

Palotai, Farkas & Lőrincz, "Selection in scale-free small world", Sect. 3.1.1 (Alg. 1, the
weblog update), Sect. 3.1.4 (Alg. 6, multiplication) and Alg. 10 (seeding); Palotai,
Mandusitz & Lőrincz (2003), "URL lists and decisions".

The weblog holds at most ``size`` (WEBLOG_SIZE = 100) URLs with their weblog values in
descending order; the first ``start_size`` (START_SIZE = 10) are the starting URLs. A URL's
value estimates the sum of profits collected during a path after visiting it.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from newsforagers import defaults


class Weblog:
    """A forager's procedural memory (Alg. 1, 6 and 10 of the selection paper)."""

    def __init__(
        self,
        size: int = defaults.FORAGERS_WEBLOG_SIZE,
        start_size: int = defaults.FORAGERS_WEBLOG_START_SIZE,
        beta: float = defaults.FORAGERS_WEBLOG_BETA,
    ):
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"weblog size ({size!r}) must be an integer of at least 1.")
        if not isinstance(start_size, int) or not 1 <= start_size <= size:
            raise ValueError(
                f"weblog start_size ({start_size!r}) must be an integer between 1 and size ({size})."
            )
        if not (isinstance(beta, (int, float)) and 0.0 < beta <= 1.0):
            raise ValueError(f"weblog beta ({beta!r}) must be in (0, 1].")
        self.size = size
        self.start_size = start_size
        self.beta = float(beta)
        # Kept sorted by descending value; ties keep their earlier order (stable sort).
        self._entries: list[tuple[str, float]] = []

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_seeds(cls, urls: Iterable[str], **kwargs) -> "Weblog":
        """Alg. 10: put the seed URLs into the weblog with weblog value 0.

        Duplicates are dropped (first occurrence kept); seeds beyond ``size`` are clipped,
        as any weblog is.
        """
        weblog = cls(**kwargs)
        seen: set[str] = set()
        for url in urls:
            if not isinstance(url, str) or not url:
                raise ValueError(f"seed {url!r} is not a non-empty URL string.")
            if url not in seen:
                seen.add(url)
                weblog._entries.append((url, 0.0))
        if not weblog._entries:
            raise ValueError("cannot seed a weblog from an empty list of URLs.")
        del weblog._entries[weblog.size:]
        return weblog

    # -- reading ------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, url: object) -> bool:
        return any(u == url for u, _ in self._entries)

    def entries(self) -> list[tuple[str, float]]:
        """``(url, value)`` pairs in descending order of value."""
        return list(self._entries)

    def value(self, url: str) -> float | None:
        for u, v in self._entries:
            if u == url:
                return v
        return None

    def starting_urls(self) -> list[str]:
        """The starting URL list: the first ``start_size`` URLs of the weblog."""
        return [u for u, _ in self._entries[: self.start_size]]

    def choose_start(self, rng: np.random.Generator) -> str:
        """A uniformly random URL of the starting URL list (Alg. 11)."""
        starts = self.starting_urls()
        if not starts:
            raise ValueError("the weblog is empty: there is no starting URL to choose.")
        return starts[int(rng.integers(len(starts)))]

    def remove(self, url: str) -> bool:
        """Drop a URL (e.g. a start URL that cannot be downloaded); True if it was there."""
        before = len(self._entries)
        self._entries = [e for e in self._entries if e[0] != url]
        return len(self._entries) < before

    # -- learning -----------------------------------------------------------------------

    def update(self, urls: Sequence[str], profits: Sequence[float]) -> None:
        """Alg. 1, the weblog update, after a path.

        ``urls[i]`` is the i-th step of the path and ``profits[i]`` the immediate profit
        received for visiting it. With ``cumValues(URL_i) = Σ_{j ≥ i} profits[j]``::

            weblog(URL) ← cumValues(URL)                          URL new to the weblog
            weblog(URL) ← (1 − β)·weblog(URL) + β·cumValues(URL)  URL already in it

        then the weblog is sorted by descending value and clipped after the
        ``size``-th element. A path never repeats a URL (the visited list prevents loops); if
        a caller's does, the URL's first visit counts.
        """
        if len(urls) != len(profits):
            raise ValueError(
                f"weblog update needs one profit per step: {len(urls)} URLs, {len(profits)} profits."
            )
        profit_array = np.asarray(profits, dtype=float)
        if profit_array.size and not np.all(np.isfinite(profit_array)):
            raise ValueError("weblog update received a NaN or infinite profit.")
        # cumulated sum of values in reverse order: target of step i = sum of profits[i:]
        cum_values = np.cumsum(profit_array[::-1])[::-1]
        targets: dict[str, float] = {}
        for url, target in zip(urls, cum_values):
            if not isinstance(url, str) or not url:
                raise ValueError(f"weblog update received an invalid URL {url!r}.")
            targets.setdefault(url, float(target))

        updated: list[tuple[str, float]] = []
        for url, old in self._entries:
            if url in targets:
                updated.append((url, (1.0 - self.beta) * old + self.beta * targets.pop(url)))
            else:
                updated.append((url, old))
        updated.extend(targets.items())  # new URLs, in path order
        updated.sort(key=lambda entry: -entry[1])
        self._entries = updated[: self.size]

    def split(self, rng: np.random.Generator) -> "Weblog":
        """Alg. 6: move a random half of the entries into a new weblog for the child.

        The parent keeps the other half (for the full weblog of 100: 50 and 50). Both
        halves stay in descending order of value.
        """
        n_child = len(self._entries) // 2
        chosen = set(rng.choice(len(self._entries), size=n_child, replace=False).tolist())
        child = Weblog(self.size, self.start_size, self.beta)
        child._entries = [e for i, e in enumerate(self._entries) if i in chosen]
        self._entries = [e for i, e in enumerate(self._entries) if i not in chosen]
        return child

    # -- persistence --------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {
            "size": self.size,
            "start_size": self.start_size,
            "beta": self.beta,
            "entries": [[url, value] for url, value in self._entries],
        }

    def clone(self) -> "Weblog":
        return Weblog.from_dict(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict) -> "Weblog":
        try:
            weblog = cls(int(data["size"]), int(data["start_size"]), float(data["beta"]))
            entries = [(str(url), float(value)) for url, value in data["entries"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a weblog dictionary: {exc}") from exc
        if any(not math.isfinite(v) for _, v in entries):
            raise ValueError("weblog dictionary holds a NaN or infinite value.")
        if len({u for u, _ in entries}) != len(entries):
            raise ValueError("weblog dictionary holds a URL twice.")
        entries.sort(key=lambda entry: -entry[1])
        weblog._entries = entries[: weblog.size]
        return weblog

    def __repr__(self) -> str:
        head = ", ".join(f"{u}={v:.3g}" for u, v in self._entries[:3])
        return f"<Weblog {len(self)}/{self.size} [{head}{', ...' if len(self) > 3 else ''}]>"
