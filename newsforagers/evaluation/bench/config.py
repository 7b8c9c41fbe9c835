"""A benchmark's settings: the crawlers it can compare, :class:`BenchConfig` (``newsforagers
bench``'s options, with the defaults they share) and :class:`BenchError`, the one error a bad
value raises, whose message names the option, the value and what is valid. The rest of the
benchmark takes a validated config."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from newsforagers.evaluation.bench.sweep import KNOBS
from newsforagers.evaluation.metrics import as_time
from newsforagers.replay.many import MAX_SITES

COLONY_MODES = ("wlrl", "wl", "rl")
#: Colonies: the papers' three modes and the ``scheduled`` strategy (mode wlrl).
COLONIES = COLONY_MODES + ("scheduled",)
BASELINES = ("bfs", "hubs", "adaptive", "feeds", "random", "oracle", "best_first")
CRAWLERS = COLONIES + BASELINES
#: A benchmark's crawlers when none are named: all but ``feeds``, which needs a site with feeds,
#: and ``best_first``, which needs a topic.
DEFAULT_CRAWLERS = tuple(c for c in CRAWLERS if c not in ("feeds", "best_first"))
#: A topical benchmark's crawlers when none are named : the scheduled colony against
#: the breadth-first re-crawl and the classic topical baseline.
TOPIC_CRAWLERS = ("scheduled", "bfs", "best_first")
#: The crawlers a topical benchmark gives its topic (``-a topic=WORDS``): the colonies and
#: ``best_first``. The others crawl as always and are judged against the same topic.
TOPICAL = COLONIES + ("best_first",)
PROFILES = ("hard", "easy")
#: How a topical benchmark describes its topic to the crawlers (``--topic-words``): ``name``,
#: the section's name as a reader would type it; ``examples``, the titles of the section's
#: articles published before the window (a longer text, given as ``-a topic=@FILE``);
#: ``name+examples``, a topic file as docs/topics.md's *Examples* has users write it: the name,
#: those titles as ``+ `` lines and as many other sections' titles as ``- `` lines.
TOPIC_WORDS = ("name", "examples", "name+examples")
#: How a many-site benchmark (``--sites N``) splits the corpus into sites (the replay's
#: ``--split``): by section when there are enough of them, by section, or by a hash of the URL.
SPLITS = ("auto", "section", "hash")
#: The options of a many-site benchmark: ``results.json``'s ``settings`` has them only when
#: ``--sites`` is given, so that a benchmark of one site writes what it always wrote.
MANY_SITES_OPTIONS = ("sites", "split", "site_profiles")

#: Wall seconds a crawl may take beyond ``duration`` (start-up, a colony's orderly shutdown)
#: before it is killed and its run counted as failed.
DEFAULT_GRACE = 120.0


class BenchError(ValueError):
    """A bad benchmark setting; its message names the option, the value and what is valid."""


@dataclass(frozen=True)
class BenchConfig:
    """Everything a benchmark run depends on (``newsforagers bench``'s options)."""

    corpus: str
    out: str
    profile: str = "hard"
    retime: float | None = None
    speed: float = 600.0
    start: str | None = None  # ISO 8601; None: prepare_site picks the corpus's Monday 07:00
    duration: float = 180.0
    budget: float = 20.0
    repeats: int = 3
    crawlers: tuple[str, ...] = DEFAULT_CRAWLERS
    seed: int = 1
    settings: tuple[tuple[str, str], ...] = ()  # extra Scrapy settings for every crawl
    grace: float = DEFAULT_GRACE
    model: str | None = None  # a state encoder (newsforagers train) for the colonies
    # lag-cost curves: each crawler at several values of its cost knob (evaluation/bench/sweep.py),
    # the values a crawler is given instead of its knob's ((crawler, values), ...), or each
    # crawler at several budgets (requests/s)
    sweep: bool = False
    sweep_values: tuple[tuple[str, tuple[float, ...]], ...] = ()
    budgets: tuple[float, ...] = ()
    feeds: float = 0.0  # the replay's --feeds: share of sections with a feed (0: none)
    # a topical benchmark: a section of the corpus (--topic), and the words the
    # topical crawlers are given for it (evaluation/bench/topic.py resolve_topic reads them
    # off the corpus; None until then)
    topic: str | None = None
    topic_text: str | None = None
    # how the topic is described (--topic-words, TOPIC_WORDS): by the section's name, or by
    # the titles of its articles published before the window (evaluation/bench/topic.py)
    topic_words: str = "name"
    # a many-site benchmark: the corpus served as this many sites of disjoint stories, each on
    # its own loopback address (the replay's --sites; None: one site, as always), split so
    # (--split), each behaving as a profile file says (--site-profiles, docs/replay.md)
    sites: int | None = None
    split: str = "auto"
    site_profiles: str | None = None

    def validate(self) -> "BenchConfig":
        """Raise :class:`BenchError` for the first bad value; return ``self``."""
        if self.profile not in PROFILES:
            raise BenchError(f"--profile ({self.profile!r}) must be one of {', '.join(PROFILES)}.")
        for name in ("speed", "duration", "budget", "grace"):
            value = getattr(self, name)
            if not _finite(value) or not value > 0:
                raise BenchError(f"--{name} ({value!r}) must be higher than 0.")
        if self.retime is not None and (not _finite(self.retime) or not self.retime > 0):
            raise BenchError(f"--retime ({self.retime!r}) must be higher than 0.")
        if not isinstance(self.repeats, int) or self.repeats < 1:
            raise BenchError(f"--repeats ({self.repeats!r}) must be at least 1.")
        if not self.crawlers:
            raise BenchError("--crawlers is empty; choose from " + ",".join(CRAWLERS) + ".")
        unknown = [c for c in self.crawlers if c not in CRAWLERS]
        if unknown:
            raise BenchError(f"--crawlers: unknown crawler(s) {', '.join(map(repr, unknown))}; "
                             f"choose from {','.join(CRAWLERS)}.")
        if len(set(self.crawlers)) != len(self.crawlers):
            raise BenchError(f"--crawlers ({','.join(self.crawlers)}) names a crawler twice.")
        if self.topic is not None and (not isinstance(self.topic, str) or not self.topic.strip()):
            raise BenchError(f"--topic ({self.topic!r}) must name a section of the corpus.")
        if self.topic_words not in TOPIC_WORDS:
            raise BenchError(f"--topic-words ({self.topic_words!r}) must be one of "
                             f"{', '.join(TOPIC_WORDS)}.")
        if self.topic_words != "name" and self.topic is None:
            raise BenchError("--topic-words describes the topic of --topic SECTION: give one.")
        if "best_first" in self.crawlers and self.topic is None:
            raise BenchError("the best_first crawler orders its frontier by relevance to a topic: "
                             "give one with --topic SECTION.")
        if self.topic is not None and (self.sweep or self.sweep_values or self.budgets):
            raise BenchError("--topic and --sweep or --budgets are two benchmarks: choose one "
                             "(the curves read the novelty measures, not the topic's).")
        if self.start is not None and as_time(self.start) is None:
            raise BenchError(f"--start ({self.start!r}) must be an ISO 8601 time with an offset.")
        if self.model is not None and not Path(self.model).is_file():
            raise BenchError(f"--model ({self.model!r}) is not a file (newsforagers train writes one).")
        for key, _ in self.settings:
            if not key or not key.replace("_", "").isalnum():
                raise BenchError(f"--set ({key!r}) must be KEY=VALUE with a Scrapy setting name.")
        for budget in self.budgets:
            if not _finite(budget) or not budget > 0:
                raise BenchError(f"--budgets ({budget!r}) must be numbers higher than 0.")
        if len(set(self.budgets)) != len(self.budgets):
            raise BenchError(f"--budgets ({','.join(f'{b:g}' for b in self.budgets)}) names a budget twice.")
        if self.budgets and (self.sweep or self.sweep_values):
            raise BenchError("--budgets and --sweep are two benchmarks: choose one.")
        for crawler, values in self.sweep_values:
            if crawler not in KNOBS:
                raise BenchError(f"--sweep-values: {crawler!r} has no cost knob; "
                                 f"these have: {', '.join(KNOBS)}.")
            if crawler not in self.crawlers:
                raise BenchError(f"--sweep-values: {crawler!r} is not among --crawlers.")
            if not values or any(not _finite(v) or v < 0 for v in values):
                raise BenchError(f"--sweep-values: {crawler}'s values must be numbers of 0 or more.")
        if not _finite(self.feeds) or not 0.0 <= self.feeds <= 1.0:
            raise BenchError(f"--feeds ({self.feeds!r}) must be a share between 0 and 1.")
        if self.sites is not None and (isinstance(self.sites, bool) or not isinstance(self.sites, int)
                                       or not 1 <= self.sites <= MAX_SITES):
            raise BenchError(f"--sites ({self.sites!r}) must be a whole number from 1 to {MAX_SITES}.")
        if self.split not in SPLITS:
            raise BenchError(f"--split ({self.split!r}) must be one of {', '.join(SPLITS)}.")
        if self.sites is None and (self.split != "auto" or self.site_profiles is not None):
            raise BenchError("--split and --site-profiles say how to serve several sites: give "
                             "--sites N.")
        if self.site_profiles is not None and not Path(self.site_profiles).is_file():
            raise BenchError(f"--site-profiles ({self.site_profiles!r}) is not a file.")
        if "feeds" in self.crawlers and not self.feeds:
            raise BenchError("the feeds crawler reads only feeds and sitemaps: give the replay "
                             "some with --feeds SHARE.")
        return self

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["crawlers"] = list(self.crawlers)
        data["settings"] = {key: value for key, value in self.settings}
        data["sweep_values"] = {crawler: list(values) for crawler, values in self.sweep_values}
        data["budgets"] = list(self.budgets)
        if self.sites is None:
            for key in MANY_SITES_OPTIONS:
                del data[key]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "BenchConfig":
        """The inverse of :meth:`to_dict` (``results.json``'s ``settings``)."""
        data = dict(data)
        data["crawlers"] = tuple(data["crawlers"])
        data["settings"] = tuple((str(k), str(v)) for k, v in dict(data.get("settings") or {}).items())
        data["sweep_values"] = tuple((str(k), tuple(float(x) for x in v))
                                     for k, v in dict(data.get("sweep_values") or {}).items())
        data["budgets"] = tuple(float(b) for b in data.get("budgets") or ())
        return cls(**data)

    @property
    def sim_seconds(self) -> float:
        """Simulated seconds the crawl lasts."""
        return self.duration * self.speed


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


__all__ = [
    "BASELINES", "BenchConfig", "BenchError", "COLONIES", "COLONY_MODES", "CRAWLERS",
    "DEFAULT_CRAWLERS",
    "DEFAULT_GRACE", "MANY_SITES_OPTIONS", "PROFILES", "SPLITS", "TOPICAL", "TOPIC_CRAWLERS",
    "TOPIC_WORDS",
]
