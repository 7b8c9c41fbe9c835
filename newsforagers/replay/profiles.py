"""How each site of a many-site replay behaves as a web server: latency, stalls, error bursts
and down windows (docs/replay.md, "Many sites").

A profile file is JSON: a ``default`` profile and per-site overrides, by site number::

    {"default": {"latency": 0.3, "spread": 0.5, "stall_share": 0.02, "stall_seconds": 30},
     "sites": {"3": {"down": [[0.33, 0.67]]},
               "7": {"errors": [{"from": 0.1, "to": 0.2, "status": 429, "retry_after": 60}]}}}

Latency is wall seconds (log-normal: ``latency`` its median, ``spread`` the σ of its log);
a stalled answer sends its headers, then nothing for ``stall_seconds``, then its body. Windows
(``down``: connection refused; ``errors``: every request answered ``status`` with
``Retry-After``) are given either in simulated seconds from the replay's start (``"from"``,
``"to"`` as numbers ≥ 1) or, as numbers below 1, as shares of ``run`` simulated seconds when
the replay is told how long the run is (``--run-seconds``). ``Retry-After`` is in the site's own
seconds, as every time the site states (its ``Date`` header is simulated too).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

ERROR_STATUSES = (429, 500, 502, 503, 504)


class ProfileError(ValueError):
    """The profile file cannot be used (what is wrong, and where)."""


@dataclass(frozen=True)
class Window:
    start: float  # simulated seconds from the replay's start (or a share of the run, below 1)
    end: float

    def resolved(self, run: float | None) -> Window:
        """The window in simulated seconds, shares of the run made seconds."""
        if self.end > 1.0:
            return self
        if run is None:
            raise ProfileError(f"the window [{self.start:g}, {self.end:g}] is a share of the run: "
                               "say how long the run is (--run-seconds SECONDS)")
        return Window(self.start * run, self.end * run)

    def holds(self, offset: float) -> bool:
        return self.start <= offset < self.end


@dataclass(frozen=True)
class ErrorWindow(Window):
    status: int = 503
    retry_after: float | None = None  # seconds (the site's), None: no header

    def resolved(self, run: float | None) -> ErrorWindow:
        window = Window.resolved(self, run)
        return replace(self, start=window.start, end=window.end)


@dataclass(frozen=True)
class SiteProfile:
    """One site's behaviour (all defaults: a fast, healthy site)."""

    latency: float = 0.0  # median wall seconds before an answer starts
    spread: float = 0.5  # σ of log(latency)
    stall_share: float = 0.0  # share of answers that stall after their headers
    stall_seconds: float = 30.0  # wall seconds a stalled answer sends nothing
    down: tuple[Window, ...] = ()
    errors: tuple[ErrorWindow, ...] = ()
    feeds: float | None = None  # share of sections with a feed (None: the replay's --feeds)

    def resolved(self, run: float | None) -> SiteProfile:
        return replace(self, down=tuple(w.resolved(run) for w in self.down),
                       errors=tuple(w.resolved(run) for w in self.errors))

    def error_at(self, offset: float) -> ErrorWindow | None:
        for window in self.errors:
            if window.holds(offset):
                return window
        return None

    def down_at(self, offset: float) -> bool:
        return any(window.holds(offset) for window in self.down)

    def delay(self, rng) -> float:
        """Wall seconds before the answer starts: a log-normal draw around ``latency``."""
        if self.latency <= 0:
            return 0.0
        return self.latency * math.exp(self.spread * rng.standard_normal())

    def stalls(self, rng) -> bool:
        return self.stall_share > 0 and rng.random() < self.stall_share


def _number(value: Any, where: str, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ProfileError(f"{where}: {value!r} is not a number")
    if value < minimum:
        raise ProfileError(f"{where}: {value!r} is below {minimum:g}")
    return float(value)


def _window(raw: Any, where: str) -> Window:
    if isinstance(raw, dict):
        start, end = raw.get("from"), raw.get("to")
    elif isinstance(raw, (list, tuple)) and len(raw) == 2:
        start, end = raw
    else:
        raise ProfileError(f"{where}: a window is [from, to] or {{\"from\": ..., \"to\": ...}}, not {raw!r}")
    start, end = _number(start, f"{where}.from"), _number(end, f"{where}.to")
    if end <= start:
        raise ProfileError(f"{where}: 'to' ({end:g}) must be after 'from' ({start:g})")
    return Window(start, end)


def _errors(raw: Any, where: str) -> ErrorWindow:
    window = _window(raw, where)
    status = raw.get("status", 503) if isinstance(raw, dict) else 503
    if status not in ERROR_STATUSES:
        raise ProfileError(f"{where}.status: {status!r} is not one of {', '.join(map(str, ERROR_STATUSES))}")
    retry_after = raw.get("retry_after") if isinstance(raw, dict) else None
    if retry_after is not None:
        retry_after = _number(retry_after, f"{where}.retry_after")
    return ErrorWindow(window.start, window.end, status, retry_after)


_KNOWN = {f.name for f in fields(SiteProfile)}


def parse_profile(raw: Any, where: str, base: SiteProfile | None = None) -> SiteProfile:
    """A profile from its JSON object, over ``base`` (unknown keys are an error: a typo would
    silently serve a healthy site)."""
    if not isinstance(raw, dict):
        raise ProfileError(f"{where}: a profile is a JSON object, not {type(raw).__name__}")
    unknown = sorted(set(raw) - _KNOWN)
    if unknown:
        raise ProfileError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_KNOWN))})")
    changes: dict[str, Any] = {}
    for name in ("latency", "spread", "stall_seconds"):
        if name in raw:
            changes[name] = _number(raw[name], f"{where}.{name}")
    for name in ("stall_share", "feeds"):
        if name in raw and raw[name] is not None:
            value = _number(raw[name], f"{where}.{name}")
            if value > 1:
                raise ProfileError(f"{where}.{name}: {value:g} is a share, at most 1")
            changes[name] = value
    if "down" in raw:
        if not isinstance(raw["down"], list):
            raise ProfileError(f"{where}.down: a list of windows")
        changes["down"] = tuple(_window(w, f"{where}.down[{i}]") for i, w in enumerate(raw["down"]))
    if "errors" in raw:
        if not isinstance(raw["errors"], list):
            raise ProfileError(f"{where}.errors: a list of windows")
        changes["errors"] = tuple(_errors(w, f"{where}.errors[{i}]") for i, w in enumerate(raw["errors"]))
    return replace(base or SiteProfile(), **changes)


@dataclass
class Profiles:
    """The profiles of ``n`` sites: a default and per-site overrides."""

    default: SiteProfile = field(default_factory=SiteProfile)
    sites: dict[int, SiteProfile] = field(default_factory=dict)

    def of(self, site: int) -> SiteProfile:
        return self.sites.get(site, self.default)

    @classmethod
    def from_json(cls, raw: Any, n_sites: int, where: str = "profiles") -> Profiles:
        if not isinstance(raw, dict):
            raise ProfileError(f"{where}: a JSON object with 'default' and 'sites'")
        unknown = sorted(set(raw) - {"default", "sites"})
        if unknown:
            raise ProfileError(f"{where}: unknown key(s) {', '.join(unknown)} (known: default, sites)")
        default = parse_profile(raw.get("default", {}), f"{where}.default")
        sites: dict[int, SiteProfile] = {}
        overrides = raw.get("sites", {})
        if not isinstance(overrides, dict):
            raise ProfileError(f"{where}.sites: an object from site number to profile")
        for key, value in overrides.items():
            try:
                number = int(key)
            except ValueError:
                raise ProfileError(f"{where}.sites: {key!r} is not a site number") from None
            if not 0 <= number < n_sites:
                raise ProfileError(f"{where}.sites: site {number} does not exist (sites 0 to {n_sites - 1})")
            sites[number] = parse_profile(value, f"{where}.sites.{key}", default)
        return cls(default, sites)

    @classmethod
    def load(cls, path: str | Path, n_sites: int) -> Profiles:
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ProfileError(f"cannot read the profile file {path}: {exc.strerror or exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ProfileError(f"the profile file {path} is not JSON: {exc}") from None
        return cls.from_json(raw, n_sites, where=str(path))

    def resolved(self, run: float | None) -> Profiles:
        return Profiles(self.default.resolved(run), {k: v.resolved(run) for k, v in self.sites.items()})
