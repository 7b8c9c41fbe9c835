"""The plan of a benchmark: every run in order (:func:`plan_runs`: repeat-major, each repeat
with its seed) and the commands that make it, as data, nothing started: each run's replay
(:func:`replay_kwargs`) and its ``scrapy crawl`` (:func:`crawl_argv`), and the ``--dry-run``
text that shows them all (:func:`describe_plan`). The same config gives the same plan and the
same commands."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from newsforagers.evaluation.bench.config import (
    COLONIES,
    COLONY_MODES,
    TOPICAL,
    BenchConfig,
    BenchError,
)
from newsforagers.evaluation.bench.sweep import Variant, variants
from newsforagers.evaluation.bench.topic import topic_argument
from newsforagers.topics import topic_spec

#: Wall seconds between two snapshots of a colony (its population and scores over time).
SNAPSHOT_INTERVAL = 1.0
#: A many-site run's seeds: its replay writes every site's home URL here (``--seeds``), one a
#: line, and every crawler starts from all of them (``-a seeds=@FILE``, ``-a start=@FILE``).
SEEDS_FILE = "seeds.txt"


@dataclass(frozen=True)
class PlannedRun:
    """One crawler (one variant of it: a knob value or a budget of a sweep), one repeat: its
    place in the plan and the seed its crawler gets."""

    index: int
    crawler: str
    repeat: int
    seed: int
    variant: Variant | None = None  # None: the crawler at its defaults

    @property
    def key(self) -> str:
        """The crawler's name at its defaults, ``crawler@knob=value`` for another variant."""
        return self.variant.key if self.variant is not None else self.crawler

    @property
    def name(self) -> str:
        return f"{self.key}-r{self.repeat}"


def run_identity(config: BenchConfig, run: PlannedRun) -> dict[str, Any]:
    """What a run's record says of the run: crawler, variant (key, label, knob and its value,
    budget), repeat and seed."""
    variant = run.variant
    return {"crawler": run.crawler, "key": run.key, "variant": variant.label if variant else "",
            "knob": variant.knob if variant else None,
            "knob_value": variant.value if variant else None,
            "budget": variant.budget if variant and variant.budget is not None else config.budget,
            "repeat": run.repeat, "seed": run.seed}


#: A topical benchmark's reference: the ``scheduled`` colony crawling without the topic, judged
#: on the same documents (the topical colony's lag is to be no worse than its).
NO_TOPIC = "no-topic"
#: ... and the topical colony with the papers' relevance (the topic's tf·idf cosine, the fixed
#: threshold ``FORAGERS_TOPIC_MIN_RELEVANCE``): the learned topic's reference (issue 32).
COSINE = "cosine"
COSINE_SETTINGS = (("FORAGERS_TOPIC_FEEDBACK", "off"), ("FORAGERS_TOPIC_THRESHOLD", "fixed"))


def config_variants(config: BenchConfig, crawler: str) -> list[Variant]:
    """The variants of ``crawler`` this benchmark runs (:func:`~newsforagers.evaluation.bench.
    sweep.variants` with the config's ``--sweep``, ``--sweep-values`` and ``--budgets``); with a
    ``--topic``, ``scheduled`` also runs without the topic (``scheduled@no-topic``) and with
    the papers' relevance, which learns nothing (``scheduled@cosine``)."""
    found = variants(crawler, sweep=config.sweep, values=dict(config.sweep_values),
                     budgets=config.budgets, budget=config.budget)
    if config.topic is not None and crawler == "scheduled":
        found.append(Variant(crawler, f"{crawler}@{NO_TOPIC}", NO_TOPIC, topic=False))
        found.append(Variant(crawler, f"{crawler}@{COSINE}", COSINE, settings=COSINE_SETTINGS))
    return found


def run_keys(config: BenchConfig) -> list[str]:
    """Every variant's key, in the plan's order (the results' crawlers)."""
    return [v.key for crawler in config.crawlers for v in config_variants(config, crawler)]


def plan_runs(config: BenchConfig) -> list[PlannedRun]:
    """Every run, repeat-major: repeat 0 of every crawler (each of its variants in turn), then
    repeat 1... Repeat ``r`` seeds its crawler with ``config.seed + r``."""
    runs = []
    for repeat in range(config.repeats):
        for crawler in config.crawlers:
            for variant in config_variants(config, crawler):
                runs.append(PlannedRun(len(runs), crawler, repeat, config.seed + repeat,
                                       variant if variant.key != crawler else None))
    return runs


def colony_settings(strategy: str, store: Path, run_dir: Path, seed: int, budget: float,
                    speed: float) -> list[str]:
    """``-s`` options of a benchmarked colony against a replay running ``speed`` times faster:
    its own SQLite store and run directory, a seed, the host budget, and downloads shared for
    one simulated minute (``FORAGERS_FETCH_TTL`` is wall seconds)."""
    return ["-s", f"FORAGERS_STRATEGY={strategy}", "-s", f"FORAGERS_STORE=sqlite:///{store}",
            "-s", f"FORAGERS_RUN_DIR={run_dir}", "-s", f"FORAGERS_SEED={seed}",
            "-s", f"FORAGERS_HOST_RATE={budget:g}", "-s", f"FORAGERS_FETCH_TTL={60.0 / speed:g}"]


def crawl_argv(config: BenchConfig, run: PlannedRun, url: str, run_dir: Path | str,
               python: str = sys.executable) -> list[str]:
    """The ``scrapy crawl`` command of one run against the replay at ``url``; with a
    ``--topic``, a colony's and ``best_first``'s carry ``-a topic=WORDS`` (the config's
    ``topic_text``: :class:`BenchError` when it has none), but for the reference variant
    ``scheduled@no-topic``. With ``--sites`` every crawler starts from every site's home page,
    the run's seeds file (``@RUN/seeds.txt``, written by its replay) instead of ``url``; the
    budget is per host for all of them."""
    run_dir = Path(run_dir)
    start = f"@{run_dir / SEEDS_FILE}" if config.sites is not None else url
    variant = run.variant
    budget = variant.budget if variant is not None and variant.budget is not None else config.budget
    common = ["-O", str(run_dir / "items.jsonl"),
              "-s", f"CLOSESPIDER_TIMEOUT={config.duration:g}",
              "-s", f"LOG_FILE={run_dir / 'crawl.log'}", "-s", "LOG_LEVEL=INFO",
              "-s", "TELNETCONSOLE_ENABLED=False"]
    if run.crawler in COLONIES:
        mode = run.crawler if run.crawler in COLONY_MODES else "wlrl"
        strategy = "scheduled" if run.crawler == "scheduled" else "paper"
        argv = [python, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={start}",
                "-a", f"mode={mode}", "-a", f"speed={config.speed:g}", *common,
                *colony_settings(strategy, run_dir / "colony.db", run_dir / "colony", run.seed,
                                 budget, config.speed),
                "-s", f"FORAGERS_SNAPSHOT_INTERVAL={SNAPSHOT_INTERVAL:g}"]
        if config.model:
            argv += ["-a", f"model={config.model}"]
    else:
        argv = [python, "-m", "scrapy", "crawl", run.crawler, "-a", f"start={start}",
                "-a", f"speed={config.speed:g}", "-a", f"rate={budget:g}", *common]
        if run.crawler == "oracle":
            argv += ["-a", f"truth={run_dir / 'truth.jsonl'}"]
        if run.crawler == "random":
            argv += ["-a", f"seed={run.seed}"]
    if config.topic is not None and run.crawler in TOPICAL and (variant is None or variant.topic):
        if not config.topic_text:
            raise BenchError(f"--topic ({config.topic!r}) has no words yet: resolve them from the "
                             "corpus first (evaluation/bench/topic.py resolve_topic).")
        argv += ["-a", f"topic={topic_argument(config)}"]
    for key, value in config.settings:
        argv += ["-s", f"{key}={value}"]
    if variant is not None:  # after --set: the sweep's knob wins
        for key, value in variant.args:
            argv += ["-a", f"{key}={value}"]
        for key, value in variant.settings:
            argv += ["-s", f"{key}={value}"]
    return argv


def replay_kwargs(config: BenchConfig, start: str, run_dir: Path | str) -> dict[str, Any]:
    """The :class:`~newsforagers.replay.process.ReplayProcess` arguments of one run: every run
    gets the same site (corpus, profile, retime, site seed) and the same window; with
    ``--sites``, the same sites (:func:`sites_args`)."""
    run_dir = Path(run_dir)
    kwargs = {"corpus": config.corpus, "profile": config.profile, "speed": config.speed,
              "start": start, "retime": config.retime, "seed": config.seed,
              "log_path": run_dir / "requests.jsonl", "truth_path": run_dir / "truth.jsonl"}
    if config.feeds:
        kwargs["feeds"] = config.feeds
    if config.sites is not None:
        kwargs["extra_args"] = sites_args(config, run_dir)
    return kwargs


def sites_args(config: BenchConfig, run_dir: Path | str) -> list[str]:
    """A many-site run's replay options: the sites, their split and profiles, the run's
    simulated length (``--run``: profile windows given as shares of the run) and where the
    replay writes the sites' home URLs (``--seeds``)."""
    args = ["--sites", str(config.sites), "--split", config.split, "--run-seconds", repr(float(config.sim_seconds))]
    if config.site_profiles is not None:
        args += ["--site-profiles", config.site_profiles]
    return args + ["--seeds", str(Path(run_dir) / SEEDS_FILE)]


def show_argv(argv: Sequence[str], url: str, out: Path | str) -> str:
    """A command as a person reads it: the interpreter as ``python``, the replay's URL as
    ``$REPLAY``, the output directory as ``$OUT``."""
    shown = []
    for arg in argv:
        arg = "python" if arg == sys.executable else arg
        shown.append(arg.replace(url, "$REPLAY").replace(str(out), "$OUT"))
    return shlex.join(shown)


def describe_plan(config: BenchConfig, start: str) -> str:
    """The ``--dry-run`` text: the settings, then each run's replay and crawl commands."""
    from newsforagers.replay.process import ReplayProcess

    out = Path(config.out)
    keys = run_keys(config)
    shown = f"{len(config.crawlers)} crawler(s)" if len(keys) == len(config.crawlers) else \
        f"{len(keys)} variant(s) of {len(config.crawlers)} crawler(s)"
    lines = [f"bench plan: {config.repeats} repeat(s) x {shown} = "
             f"{config.repeats * len(keys)} runs of {config.duration:g} s "
             f"({config.sim_seconds / 60:g} simulated minutes) from {start}",
             f"corpus {config.corpus}, profile {config.profile}, retime "
             f"{'off' if config.retime is None else f'{config.retime:g}/day'}, speed "
             f"{config.speed:g}, budget {config.budget:g} req/s, site seed {config.seed}"]
    if config.sites is not None:
        lines.append(f"{config.sites} sites (split {config.split}, profiles "
                     f"{config.site_profiles or 'none: fast and healthy'}), every crawler seeded "
                     f"with every site's home page; the budget is per host")
    if config.topic is not None:
        given = [c for c in config.crawlers if c in TOPICAL]
        if config.topic_words == "examples":
            words = (f"{len((config.topic_text or '').splitlines())} example titles in "
                     f"{topic_argument(config)[1:]}")
        elif config.topic_words == "name+examples":
            spec = topic_spec(config.topic_text or "")
            words = (f"words {spec.words!r} with {len(spec.positives)} titles of it and "
                     f"{len(spec.negatives)} of other sections as examples in {topic_argument(config)[1:]}")
        else:
            words = f"words {config.topic_text!r}"
        lines.append(f"topic: section {config.topic!r}, {words}, given to "
                     f"{', '.join(given) or 'no crawler'}"
                     + ("; scheduled@no-topic: the colony without it, the topic lag's reference; "
                        "scheduled@cosine: with the papers' relevance, the learned topic's reference"
                        if "scheduled" in config.crawlers else ""))
    for run in plan_runs(config):
        run_dir = out / "runs" / run.name
        replay = ReplayProcess(**replay_kwargs(config, start, run_dir))
        lines.append(f"run {run.index + 1}: {run.key} repeat {run.repeat} seed {run.seed}")
        lines.append("  replay: " + show_argv(replay.argv, "$REPLAY", out))
        lines.append("  crawl:  " + show_argv(crawl_argv(config, run, "$REPLAY", run_dir), "$REPLAY", out))
    return "\n".join(lines) + "\n"


__all__ = [
    "PlannedRun", "SEEDS_FILE", "SNAPSHOT_INTERVAL", "colony_settings", "config_variants",
    "crawl_argv", "describe_plan", "plan_runs", "replay_kwargs", "run_identity", "run_keys",
    "show_argv", "sites_args",
]
