"""The benchmark runner (DESIGN.md, "How we judge discovery") as a library.

``newsforagers bench`` is a thin command over this module::

    config = BenchConfig(corpus="digitalgov.jsonl.gz", out="bench", retime=200, duration=180,
                         crawlers=("wlrl", "adaptive", "oracle"))
    site = prepare_site(config)          # the replay's model: default start, page changes
    results = run_bench(config, site)    # one fresh replay + one crawler subprocess per run
    write_results(config.out, results)   # results.json, results.md

For every repeat ``r`` and every crawler, in that order (repeat-major, so that a slow phase of
a shared machine touches every crawler alike), :func:`run_one` starts a fresh replay of the
same window (``ReplayProcess``: same corpus, profile, retime, speed, start and site seed) and
runs the crawler as ``scrapy crawl`` in its own process under the same request budget
(``FORAGERS_HOST_RATE`` for a colony, ``-a rate`` for a baseline) for ``duration`` wall
seconds (``CLOSESPIDER_TIMEOUT``). :func:`evaluate_run` reads what the run left in its
directory — the replay's truth and request log, the crawler's output and, for a colony, its
snapshots and events — and computes the measures of
:func:`newsforagers.evaluation.metrics.run_metrics` plus the series the plots draw.

What is deterministic for a fixed seed: the plan (:func:`plan_runs`), every command
(:func:`crawl_argv`), the replay's truth for the window (same site seed) and everything computed
from the run records (:func:`summarise`, :func:`results_markdown`: same records, same bytes).
What is not: an HTTP crawl against an accelerated clock depends on wall-clock scheduling (how
fast a process starts, when a response arrives on a shared machine), so two repeats with the
same seed differ a little; the standard deviation over repeats measures it.

A run that fails — the crawler exits non-zero, does not end in time, writes output that is
not JSON lines, or the replay does not start — is a record with ``status: "failed"`` and its
problems; it is left out of the means and listed, and the other runs go on.
"""

from __future__ import annotations

import json
import logging
import math
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from newsforagers.evaluation.metrics import (
    RESULT_KEYS, aggregate, article_changes, as_time, classify_items, run_metrics,
    run_window, truth_times,
)

logger = logging.getLogger(__name__)

COLONY_MODES = ("wlrl", "wl", "rl")
#: Colonies: the papers' three modes and the ``scheduled`` strategy (issue 7, mode wlrl).
COLONIES = COLONY_MODES + ("scheduled",)
BASELINES = ("bfs", "hubs", "adaptive", "random", "oracle")
CRAWLERS = COLONIES + BASELINES
PROFILES = ("hard", "easy")

#: Every crawler's entry in ``results.json`` maps these to ``{"mean", "std", "n"}``.
METRIC_KEYS = RESULT_KEYS + ("compartmentalisation",)
#: Counts aggregated beside them (what the ratios come from).
EXTRA_KEYS = ("novel", "window_articles", "output", "lag_mean")

#: Wall seconds a crawl may take beyond ``duration`` (start-up, a colony's orderly shutdown)
#: before it is killed and its run counted as failed.
DEFAULT_GRACE = 120.0
#: Windows of the time series (efficiency, compartmentalisation) per run.
SERIES_WINDOWS = 20
#: Wall seconds between two snapshots of a colony (its population and scores over time).
SNAPSHOT_INTERVAL = 1.0

REPO = Path(__file__).resolve().parents[2]
SETTINGS_MODULE = "newsforagers.settings"

RESULTS_JSON = "results.json"
RESULTS_MD = "results.md"


class BenchError(ValueError):
    """A bad benchmark setting; its message names the option, the value and what is valid."""


# -- settings and plan -----------------------------------------------------------------------


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
    crawlers: tuple[str, ...] = CRAWLERS
    seed: int = 1
    settings: tuple[tuple[str, str], ...] = ()  # extra Scrapy settings for every crawl
    grace: float = DEFAULT_GRACE
    model: str | None = None  # a state encoder (newsforagers train) for the colonies

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
        if self.start is not None and as_time(self.start) is None:
            raise BenchError(f"--start ({self.start!r}) must be an ISO 8601 time with an offset.")
        if self.model is not None and not Path(self.model).is_file():
            raise BenchError(f"--model ({self.model!r}) is not a file (newsforagers train writes one).")
        for key, _ in self.settings:
            if not key or not key.replace("_", "").isalnum():
                raise BenchError(f"--set ({key!r}) must be KEY=VALUE with a Scrapy setting name.")
        return self

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["crawlers"] = list(self.crawlers)
        data["settings"] = {key: value for key, value in self.settings}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "BenchConfig":
        """The inverse of :meth:`to_dict` (``results.json``'s ``settings``)."""
        data = dict(data)
        data["crawlers"] = tuple(data["crawlers"])
        data["settings"] = tuple((str(k), str(v)) for k, v in dict(data.get("settings") or {}).items())
        return cls(**data)

    @property
    def sim_seconds(self) -> float:
        """Simulated seconds the crawl lasts."""
        return self.duration * self.speed


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class PlannedRun:
    """One crawler, one repeat: its place in the plan and the seed its crawler gets."""

    index: int
    crawler: str
    repeat: int
    seed: int

    @property
    def name(self) -> str:
        return f"{self.crawler}-r{self.repeat}"


def plan_runs(config: BenchConfig) -> list[PlannedRun]:
    """Every run, repeat-major: repeat 0 of every crawler, then repeat 1... Repeat ``r`` seeds
    its crawler with ``config.seed + r``."""
    runs = []
    for repeat in range(config.repeats):
        for crawler in config.crawlers:
            runs.append(PlannedRun(len(runs), crawler, repeat, config.seed + repeat))
    return runs


def default_start(published: Sequence[datetime]) -> datetime:
    """The window's default start: the first Monday 07:00 (site-local time, the offset of the
    first article) at or after the first article, as the demo starts on the synthetic week —
    a working morning, when a news site is busy. A corpus with no Monday morning before its
    last article starts one minute before its first article (the replay's own default)."""
    if not published:
        raise BenchError("the corpus has no article")
    first, last = min(published), max(published)
    tz = first.tzinfo or timezone.utc
    local = first.astimezone(tz)
    monday = (local - timedelta(days=local.weekday())).replace(hour=7, minute=0, second=0,
                                                                microsecond=0)
    while monday < local:
        monday += timedelta(days=7)
    if monday <= last:
        return monday
    return first - timedelta(minutes=1)


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
    """The ``scrapy crawl`` command of one run against the replay at ``url``."""
    run_dir = Path(run_dir)
    common = ["-O", str(run_dir / "items.jsonl"),
              "-s", f"CLOSESPIDER_TIMEOUT={config.duration:g}",
              "-s", f"LOG_FILE={run_dir / 'crawl.log'}", "-s", "LOG_LEVEL=INFO",
              "-s", "TELNETCONSOLE_ENABLED=False"]
    if run.crawler in COLONIES:
        mode = run.crawler if run.crawler in COLONY_MODES else "wlrl"
        strategy = "scheduled" if run.crawler == "scheduled" else "paper"
        argv = [python, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={url}",
                "-a", f"mode={mode}", "-a", f"speed={config.speed:g}", *common,
                *colony_settings(strategy, run_dir / "colony.db", run_dir / "colony", run.seed,
                                 config.budget, config.speed),
                "-s", f"FORAGERS_SNAPSHOT_INTERVAL={SNAPSHOT_INTERVAL:g}"]
        if config.model:
            argv += ["-a", f"model={config.model}"]
    else:
        argv = [python, "-m", "scrapy", "crawl", run.crawler, "-a", f"start={url}",
                "-a", f"speed={config.speed:g}", "-a", f"rate={config.budget:g}", *common]
        if run.crawler == "oracle":
            argv += ["-a", f"truth={run_dir / 'truth.jsonl'}"]
        if run.crawler == "random":
            argv += ["-a", f"seed={run.seed}"]
    for key, value in config.settings:
        argv += ["-s", f"{key}={value}"]
    return argv


def replay_kwargs(config: BenchConfig, start: str, run_dir: Path | str) -> dict[str, Any]:
    """The :class:`~newsforagers.replay.process.ReplayProcess` arguments of one run: every run
    gets the same site (corpus, profile, retime, site seed) and the same window."""
    run_dir = Path(run_dir)
    return {"corpus": config.corpus, "profile": config.profile, "speed": config.speed,
            "start": start, "retime": config.retime, "seed": config.seed,
            "log_path": run_dir / "requests.jsonl", "truth_path": run_dir / "truth.jsonl"}


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
    lines = [f"bench plan: {config.repeats} repeat(s) x {len(config.crawlers)} crawler(s) = "
             f"{config.repeats * len(config.crawlers)} runs of {config.duration:g} s "
             f"({config.sim_seconds / 60:g} simulated minutes) from {start}",
             f"corpus {config.corpus}, profile {config.profile}, retime "
             f"{'off' if config.retime is None else f'{config.retime:g}/day'}, speed "
             f"{config.speed:g}, budget {config.budget:g} req/s, site seed {config.seed}"]
    for run in plan_runs(config):
        run_dir = out / "runs" / run.name
        replay = ReplayProcess(**replay_kwargs(config, start, run_dir))
        lines.append(f"run {run.index + 1}: {run.crawler} repeat {run.repeat} seed {run.seed}")
        lines.append("  replay: " + show_argv(replay.argv, "$REPLAY", out))
        lines.append("  crawl:  " + show_argv(crawl_argv(config, run, "$REPLAY", run_dir), "$REPLAY", out))
    return "\n".join(lines) + "\n"


# -- the site -------------------------------------------------------------------------------


@dataclass
class Site:
    """What the benchmark knows of the replay before any run: the window's start and, for
    freshness, when each article page changes (:func:`article_changes`)."""

    start: str
    changes: dict[str, list[float]]
    articles: int
    first: str
    last: str

    def describe(self) -> dict[str, Any]:
        """The site as ``results.json`` records it (the changes counted, not listed)."""
        return {"start": self.start, "articles": self.articles, "first": self.first,
                "last": self.last, "changing_articles": len(self.changes)}


def prepare_site(config: BenchConfig) -> Site:
    """Build the replay's model in this process (the same corpus, retime and seed as every
    run's replay), resolve the window's start. Raises :class:`BenchError` for a corpus that
    cannot be read."""
    from newsforagers.corpus import CorpusError, load_corpus
    from newsforagers.replay.index import SiteIndex

    path = Path(config.corpus)
    if not path.is_file():
        raise BenchError(f"--corpus ({config.corpus!r}) is not a file.")
    try:
        index = SiteIndex(load_corpus(path), retime=config.retime, seed=config.seed)
    except (CorpusError, ValueError, OSError) as exc:
        raise BenchError(f"--corpus ({config.corpus!r}) cannot be read: {exc}") from None
    if not index.articles:
        raise BenchError(f"--corpus ({config.corpus!r}) has no article.")
    published = [a.published for a in index.articles]
    start = as_time(config.start) if config.start else default_start(published)
    return Site(start=start.isoformat(), changes=article_changes(index),
                articles=len(index.articles), first=published[0].isoformat(),
                last=published[-1].isoformat())


# -- reading a run's files ---------------------------------------------------------------------


def read_jsonl(path: Path | str) -> tuple[list[dict], int]:
    """The JSON objects of a JSON-lines file and how many lines were not one (a last line
    without its newline included: the run is over, nothing is still writing it)."""
    from newsforagers.colony.status import parse_jsonl

    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], 0
    records, bad, _ = parse_jsonl(data + b"\n")
    return records, bad


def colony_counts(snapshots: Iterable[Mapping]) -> dict[str, dict[str, int]]:
    """forager → ``{"sent", "rewarded"}``, from each forager's latest snapshot (the colony
    writes a last one for every forager when it retires or stops)."""
    counts: dict[str, dict[str, int]] = {}
    for record in snapshots:
        name = record.get("forager")
        sent, rewarded = record.get("sent"), record.get("rewarded")
        if isinstance(name, str) and _finite(sent) and _finite(rewarded):
            counts[name] = {"sent": int(sent), "rewarded": int(rewarded)}
    return counts


def _sim_clock(log: Sequence[Mapping], speed: float) -> Callable[[float], float] | None:
    """wall POSIX seconds → the site's simulated POSIX seconds, anchored on the first log
    record that has both (the replay's clock: ``sim = start + speed × (wall − wall0)``)."""
    for record in log:
        sim, wall = as_time(record.get("sim_time")), record.get("wall_time")
        if sim is not None and _finite(wall):
            sim0, wall0 = sim.timestamp(), float(wall)
            return lambda w: sim0 + speed * (w - wall0)
    return None


def _minutes(ts: float, start: float) -> float:
    return round((ts - start) / 60.0, 3)


def efficiency_series(log: Sequence[Mapping], novel: Sequence[tuple[str, datetime, datetime]],
                      window: tuple[datetime, datetime], width: float) -> list[list[float]]:
    """``[minutes from the window's start, requests, novel found]`` per ``width``-second
    window of simulated time over the run's window."""
    start, end = window[0].timestamp(), window[1].timestamp()
    count = max(1, int(math.ceil((end - start) / width)))
    rows = [[_minutes(start + i * width, start), 0, 0] for i in range(count)]

    def slot(ts: float) -> int | None:
        if not start <= ts <= end:
            return None
        return min(int((ts - start) // width), count - 1)

    for record in log:
        when = as_time(record.get("sim_time"))
        i = slot(when.timestamp()) if when is not None else None
        if i is not None:
            rows[i][1] += 1
    for _, _, found_at in novel:
        i = slot(found_at.timestamp())
        if i is not None:
            rows[i][2] += 1
    return rows


def window_lags(truth_by_path: Mapping[str, datetime],
                novel: Sequence[tuple[str, datetime, datetime]],
                window: tuple[datetime, datetime]) -> list[float]:
    """The discovery lags (simulated minutes, sorted) of the window's articles output as novel,
    as :func:`run_metrics` takes its median and p90 of them."""
    start, end = window
    return sorted(max(0.0, (found_at - published).total_seconds() / 60.0)
                  for path, published, found_at in novel
                  if start <= truth_by_path[path] <= end)


def colony_series(snapshots: Sequence[Mapping], events: Sequence[Mapping],
                  to_sim: Callable[[float], float] | None, start: float) -> dict[str, Any]:
    """The colony's population, mean score and every forager's score per snapshot round, and
    its events, in simulated minutes from the window's start."""
    rounds: dict[str, list[Mapping]] = {}
    for record in snapshots:
        if isinstance(record.get("time"), str):
            rounds.setdefault(record["time"], []).append(record)
    population, scores = [], {}
    for stamp, records in rounds.items():
        wall = as_time(stamp)
        if wall is None or to_sim is None:
            continue
        t = _minutes(to_sim(wall.timestamp()), start)
        values = [r["score"] for r in records if _finite(r.get("score"))]
        population.append([t, len(records), sum(values) / len(values) if values else None])
        for r in records:
            if _finite(r.get("score")) and isinstance(r.get("forager"), str):
                scores.setdefault(r["forager"], []).append([t, r["score"]])
    marks = []
    for event in events:
        when = as_time(event.get("sim_time"))
        if when is None:
            wall = as_time(event.get("time"))
            if wall is None or to_sim is None:
                continue
            ts = to_sim(wall.timestamp())
        else:
            ts = when.timestamp()
        marks.append([_minutes(ts, start), str(event.get("event")), str(event.get("forager"))])
    return {"population": population, "scores": scores, "events": marks}


def compartment_series(log: Sequence[Mapping], window: tuple[datetime, datetime], width: float,
                       seed: int) -> list[list[Any]]:
    """``[minutes, visits, foragers, one-forager share, shuffled share]`` per window
    (:func:`newsforagers.evaluation.compartments.window_table`; the shuffled share, forager
    labels permuted with ``seed``, is the share chance alone would give)."""
    import numpy as np

    from newsforagers.evaluation.compartments import Visit, window_table

    visits = []
    for record in log:
        when, forager, path = as_time(record.get("sim_time")), record.get("forager"), record.get("path")
        if when is None or not forager or not isinstance(path, str) or path == "/robots.txt":
            continue
        visits.append(Visit(when.timestamp(), str(forager), path))
    start, end = window[0].timestamp(), window[1].timestamp()
    rows = window_table(visits, width, rng=np.random.default_rng(seed), start=start, end=end)
    return [[_minutes(r["begin"], start), r["visits"], r["foragers"],
             r["one_forager_share"], r.get("shuffled_one_forager_share")] for r in rows]


def evaluate_files(config: BenchConfig, run: PlannedRun, run_dir: Path | str,
                   changes: Mapping[str, Sequence[float]]) -> dict[str, Any]:
    """The measures and series of one run from the files in its directory (no subprocess):
    ``{"metrics", "window", "series", "problems", "bad_lines"}``."""
    run_dir = Path(run_dir)
    truth, bad_truth = read_jsonl(run_dir / "truth.jsonl")
    log, bad_log = read_jsonl(run_dir / "requests.jsonl")
    items, bad_items = read_jsonl(run_dir / "items.jsonl")
    problems = []
    if not (run_dir / "items.jsonl").exists():
        problems.append("the crawler wrote no output (items.jsonl)")
    if bad_items:
        problems.append(f"the crawler's output has {bad_items} line(s) that are not JSON objects")
    if not truth:
        problems.append("the replay wrote no truth")
    elif not log:
        problems.append("the replay served the crawler no request")
    counts = snapshots = events = None
    if run.crawler in COLONIES:
        snapshots, _ = read_jsonl(run_dir / "colony" / "snapshots.jsonl")
        events, _ = read_jsonl(run_dir / "colony" / "events.jsonl")
        counts = colony_counts(snapshots) or None
    window = run_window(log)
    metrics = run_metrics(truth, log, items, window, counts=counts, changes=changes)
    record: dict[str, Any] = {
        "metrics": metrics,
        "window": [window[0].isoformat(), window[1].isoformat()] if window else None,
        "counts": counts, "problems": problems,
        "bad_lines": {"truth": bad_truth, "requests": bad_log, "items": bad_items},
        "series": {},
    }
    if window is None:
        return record
    times, _ = truth_times(truth)
    novel, _ = classify_items(items, times)
    lags = window_lags(times, novel, window)
    width = max(60.0, config.sim_seconds / SERIES_WINDOWS)
    start = window[0].timestamp()
    series: dict[str, Any] = {
        "width_minutes": round(width / 60.0, 3),
        "efficiency": efficiency_series(log, novel, window, width),
        "lags": [round(lag, 3) for lag in lags],
    }
    if run.crawler in COLONIES:
        series["colony"] = colony_series(snapshots or [], events or [],
                                         _sim_clock(log, config.speed), start)
        series["compartments"] = compartment_series(log, window, width, run.seed)
    record["series"] = series
    return record


# -- running ------------------------------------------------------------------------------------

CommandFactory = Callable[[BenchConfig, PlannedRun, str, Path], list[str]]


def run_one(config: BenchConfig, run: PlannedRun, site: Site, *,
            command: CommandFactory = crawl_argv) -> dict[str, Any]:
    """Start a fresh replay, run the crawler against it, evaluate the run: its record.

    Never raises for a failure of the run (a crawler that crashes, hangs or writes garbage; a
    replay that does not start): the record says ``status: "failed"`` and why.
    """
    from newsforagers.replay.process import ReplayProcess

    out = Path(config.out)
    run_dir = out / "runs" / run.name
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("requests.jsonl", "truth.jsonl", "items.jsonl", "crawl.log", "colony.db"):
        (run_dir / stale).unlink(missing_ok=True)
    record: dict[str, Any] = {"crawler": run.crawler, "repeat": run.repeat, "seed": run.seed,
                              "run_dir": str(Path("runs") / run.name), "status": "ok",
                              "returncode": None, "wall_seconds": None, "argv": None}
    problems = []
    began = time.monotonic()
    try:
        with ReplayProcess(**replay_kwargs(config, site.start, run_dir)) as replay:
            argv = command(config, run, replay.url, run_dir)
            record["argv"] = show_argv(argv, replay.url, out)
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            cwd = REPO if (REPO / "scrapy.cfg").is_file() else run_dir
            env.setdefault("SCRAPY_SETTINGS_MODULE", SETTINGS_MODULE)
            with open(run_dir / "stderr.txt", "w", encoding="utf-8") as stderr:
                try:
                    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                          stderr=stderr, timeout=config.duration + config.grace)
                    record["returncode"] = done.returncode
                    if done.returncode != 0:
                        problems.append(f"the crawler exited with status {done.returncode} "
                                        f"(see {record['run_dir']}/stderr.txt, crawl.log)")
                except subprocess.TimeoutExpired:
                    problems.append(f"the crawler did not end within "
                                    f"{config.duration + config.grace:g} s and was killed")
    except Exception as exc:  # the replay did not start, or died: a failed run, not a crash
        problems.append(f"the replay failed: {exc}")
    record["wall_seconds"] = round(time.monotonic() - began, 1)
    try:
        evaluated = evaluate_files(config, run, run_dir, site.changes)
    except Exception as exc:  # garbage beyond what the readers tolerate
        logger.exception("bench: cannot evaluate run %s", run.name)
        evaluated = {"metrics": None, "window": None, "counts": None, "series": {},
                     "problems": [f"cannot evaluate the run: {exc!r}"], "bad_lines": {}}
    problems += evaluated.pop("problems")
    record.update(evaluated)
    record["log_errors"] = _log_errors(run_dir / "crawl.log")
    if problems:
        record["status"] = "failed"
    record["problems"] = problems
    return record


def _log_errors(path: Path) -> dict[str, int]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return {"errors": 0, "tracebacks": 0}
    return {"errors": text.count("] ERROR: "), "tracebacks": text.count("Traceback")}


def run_bench(config: BenchConfig, site: Site, *,
              runner: Callable[[BenchConfig, PlannedRun, Site], dict] = run_one,
              progress: "Progress | None" = None, command: Sequence[str] = ()) -> dict[str, Any]:
    """Run the whole plan; results are written after every run (an interrupted benchmark
    keeps what it measured) and returned."""
    records: list[dict] = []
    results = summarise(config, site.describe(), records, command)
    for run in plan_runs(config):
        if progress is not None:
            progress.begin(run)
        try:
            record = runner(config, run, site)
        except Exception as exc:  # a runner must not raise; if it does, the run failed
            logger.exception("bench: run %s", run.name)
            record = {"crawler": run.crawler, "repeat": run.repeat, "seed": run.seed,
                      "status": "failed", "problems": [f"the run raised {exc!r}"], "metrics": None}
        records.append(record)
        results = summarise(config, site.describe(), records, command)
        write_results(config.out, results)
        if progress is not None:
            progress.end(run, record)
    return results


# -- results ----------------------------------------------------------------------------------------

#: The crawlers with targets: the papers' colony (issue 6) and the scheduled one (issue 7).
TARGET_CRAWLERS = ("wlrl", "scheduled")


def summarise(config: BenchConfig, site: Mapping[str, Any] | None, records: Sequence[Mapping],
              command: Sequence[str] = ()) -> dict[str, Any]:
    """``results.json``: the settings and command, each crawler's mean ± std of every measure
    over its successful runs, the targets, the failures and every run's raw record. A pure
    function of its arguments: the same records give the same bytes."""
    crawlers: dict[str, Any] = {}
    for name in config.crawlers:
        mine = [r for r in records if r.get("crawler") == name]
        ok = [r["metrics"] for r in mine if r.get("status") == "ok" and r.get("metrics")]
        summary = aggregate(ok, METRIC_KEYS + EXTRA_KEYS)
        summary["runs"] = {"ok": len(ok), "failed": len(mine) - len(ok)}
        crawlers[name] = summary
    failures = [{"crawler": r.get("crawler"), "repeat": r.get("repeat"),
                 "problems": list(r.get("problems") or [])}
                for r in records if r.get("status") != "ok"]
    results = {
        "command": shlex.join(command) if command else None,
        "settings": config.to_dict(),
        "site": dict(site) if site is not None else None,
        "crawlers": crawlers,
        "targets": targets(config.profile, crawlers),
        "failures": {"count": len(failures), "runs": failures},
        "runs": list(records),
    }
    return results


def _mean(crawlers: Mapping[str, Any], name: str, key: str) -> float | None:
    entry = crawlers.get(name, {}).get(key)
    return entry.get("mean") if isinstance(entry, Mapping) else None


def targets(profile: str, crawlers: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The targets of each target crawler that ran (``wlrl``: issue 6's; ``scheduled``: issue
    7's), on the hard profile, each ``met`` True/False from the means, or None when a number it
    needs was not measured."""
    rows = []
    bfs_lag = _mean(crawlers, "bfs", "lag_median")
    adaptive = lambda key: _mean(crawlers, "adaptive", key)  # noqa: E731

    for crawler in TARGET_CRAWLERS:
        if crawler not in crawlers:
            continue
        mine = lambda key, c=crawler: _mean(crawlers, c, key)  # noqa: E731

        def add(label: str, key: str, op: str, bound: float | None, reference: str) -> None:
            value = mine(key)
            if value is None or bound is None:
                met = None
            else:
                met = value >= bound if op == ">=" else value <= bound
            rows.append({"crawler": crawler, "target": label, "metric": key, "value": value,
                         "bound": bound, "reference": reference, "met": met, "profile": profile})

        add("recall ≥ 0.95", "recall", ">=", 0.95, "0.95")
        if crawler == "wlrl":
            add("median lag ≤ 0.5 × bfs", "lag_median", "<=",
                None if bfs_lag is None else 0.5 * bfs_lag, "0.5 × bfs median lag")
        add("median lag ≤ adaptive", "lag_median", "<=", adaptive("lag_median"), "adaptive median lag")
        if crawler == "scheduled":
            add("p90 lag ≤ adaptive", "lag_p90", "<=", adaptive("lag_p90"), "adaptive p90 lag")
        if crawler == "wlrl":
            add("download efficiency ≥ 0.05", "download_efficiency", ">=", 0.05, "0.05")
        add("download efficiency ≥ adaptive", "download_efficiency", ">=",
            adaptive("download_efficiency"), "adaptive download efficiency")
        if crawler == "wlrl":
            add("sent efficiency ≥ 0.6", "sent_efficiency", ">=", 0.6, "0.6")
    return rows


# metric -> (column header, decimals)
COLUMNS: dict[str, tuple[str, int]] = {
    "recall": ("recall", 3), "lag_median": ("lag median (min)", 1),
    "lag_p90": ("lag p90 (min)", 1), "download_efficiency": ("download eff.", 4),
    "sent_efficiency": ("sent eff.", 3), "found_urls": ("found URLs", 0),
    "relative_found_urls": ("rel. found URLs", 3), "freshness": ("freshness", 3),
    "age": ("age (min)", 1), "compartmentalisation": ("compart.", 3), "requests": ("requests", 0),
}


def _number(value: float | None, decimals: int) -> str:
    return "—" if value is None else f"{value:.{decimals}f}"


def _mean_std(entry: Mapping | None, decimals: int) -> str:
    if not entry or entry.get("mean") is None:
        return "—"
    return f"{entry['mean']:.{decimals}f} ± {entry['std']:.{decimals}f}"


def results_markdown(results: Mapping[str, Any], plots: Sequence[str] = ()) -> str:
    """``results.md``: the settings, a mean ± std table per crawler, the targets, the failed
    runs and the plots. A pure function of ``results`` (and the plot names)."""
    s = results["settings"]
    site = results.get("site") or {}
    lines = ["# Benchmark results", ""]
    retime = "off" if s["retime"] is None else f"{s['retime']:g} articles/day"
    lines.append(f"Corpus `{s['corpus']}` ({site.get('articles', '?')} articles), profile "
                 f"**{s['profile']}**, retime {retime}, speed {s['speed']:g}; each run "
                 f"{s['duration']:g} s ({s['duration'] * s['speed'] / 60:g} simulated minutes) "
                 f"from {site.get('start', s['start'])}, budget {s['budget']:g} requests/s, "
                 f"{s['repeats']} repeat(s), seed {s['seed']} (repeat r: seed + r).")
    if s.get("settings"):
        lines.append("Extra settings: " + ", ".join(f"`{k}={v}`" for k, v in s["settings"].items()) + ".")
    if results.get("command"):
        lines += ["", f"Command: `{results['command']}`"]
    lines += ["", "Mean ± standard deviation over the successful runs (docs/bench.md defines "
              "each measure; lags and age in simulated minutes).", ""]
    header = ["crawler", "runs"] + [COLUMNS[k][0] for k in COLUMNS]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * 2 + "---:|" * len(COLUMNS))
    for name, summary in results["crawlers"].items():
        runs = summary.get("runs", {})
        total = runs.get("ok", 0) + runs.get("failed", 0)
        cells = [f"`{name}`", f"{runs.get('ok', 0)}/{total}"]
        cells += [_mean_std(summary.get(key), decimals) for key, (_, decimals) in COLUMNS.items()]
        lines.append("| " + " | ".join(cells) + " |")
    for crawler in TARGET_CRAWLERS:
        rows = [row for row in results["targets"] if row.get("crawler", "wlrl") == crawler]
        if not rows:
            continue
        lines += ["", f"## Targets (colony `{crawler}`, hard profile)", ""]
        if s["profile"] != "hard":
            lines += [f"The targets are set for the hard profile; this run used **{s['profile']}**, "
                      "so they are shown for information only.", ""]
        lines += ["From the means above.", "", "| target | value | bound | result |", "|---|---:|---:|---|"]
        for row in rows:
            decimals = COLUMNS[row["metric"]][1] if row["metric"] != "download_efficiency" else 4
            result = {True: "met", False: "**not met**", None: "not measured"}[row["met"]]
            bound = _number(row["bound"], decimals)
            if row["reference"] not in {"0.95", "0.05", "0.6"}:
                bound += f" ({row['reference']})"
            lines.append(f"| {row['target']} | {_number(row['value'], decimals)} | {bound} | {result} |")
    failures = results["failures"]
    lines += ["", "## Failed runs", ""]
    if not failures["count"]:
        lines.append("None.")
    for failure in failures["runs"]:
        lines.append(f"- `{failure['crawler']}` repeat {failure['repeat']}: "
                     + "; ".join(failure["problems"] or ["unknown"]))
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{Path(p).stem}]({p})" for p in plots]
    return "\n".join(lines) + "\n"


def write_results(out: Path | str, results: Mapping[str, Any], plots: Sequence[str] = ()
                  ) -> tuple[Path, Path]:
    """Write ``results.json`` and ``results.md`` into ``out``; return their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / RESULTS_JSON, out / RESULTS_MD
    json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md_path.write_text(results_markdown(results, plots), encoding="utf-8")
    return json_path, md_path


# -- progress -----------------------------------------------------------------------------------


@dataclass
class Progress:
    """A progress line on ``stream`` (stderr): redrawn in place with ``\\r`` every second on a
    terminal, one line per finished run otherwise."""

    total: int
    duration: float
    stream: Any = field(default_factory=lambda: sys.stderr)
    tty: bool | None = None
    width: int = 24
    done: int = 0
    failed: int = 0
    _began: float = field(default_factory=time.monotonic)
    _run_began: float = 0.0
    _current: str = ""
    _ticker: Any = None
    _stop: Any = None
    _lock: Any = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.tty is None:
            self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def _line(self) -> str:
        running = min(1.0, (time.monotonic() - self._run_began) / self.duration) if self._current else 0.0
        share = (self.done + running) / self.total if self.total else 1.0
        filled = int(round(share * self.width))
        elapsed = time.monotonic() - self._began
        text = f"bench [{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} runs"
        if self._current:
            text += f", {self._current}"
        text += f", {_clock(elapsed)} elapsed"
        if share > 0:
            text += f", ~{_clock(elapsed / share - elapsed)} left"
        if self.failed:
            text += f", {self.failed} failed"
        return text

    def _draw(self) -> None:
        with self._lock:
            self.stream.write("\r" + self._line().ljust(100)[:120])
            self.stream.flush()

    def begin(self, run: PlannedRun) -> None:
        self._current, self._run_began = f"{run.name} running", time.monotonic()
        if self.tty:
            self._draw()
            if self._ticker is None:
                self._stop = threading.Event()

                def tick():
                    while not self._stop.wait(1.0):
                        self._draw()

                self._ticker = threading.Thread(target=tick, daemon=True)
                self._ticker.start()

    def end(self, run: PlannedRun, record: Mapping) -> None:
        self.done += 1
        self._current = ""
        ok = record.get("status") == "ok"
        self.failed += not ok
        metrics = record.get("metrics") or {}
        recall = metrics.get("recall")
        summary = (f"run {self.done}/{self.total} {run.name}: "
                   + ("ok" if ok else "FAILED: " + "; ".join(record.get("problems") or []))
                   + (f", recall {recall:.3f}" if recall is not None else "")
                   + (f", {metrics.get('requests', 0)} requests" if metrics else "")
                   + (f", {record['wall_seconds']:g} s" if record.get("wall_seconds") else ""))
        with self._lock:
            self.stream.write(("\r" + summary.ljust(100) if self.tty else summary) + "\n")
            self.stream.flush()
        if self.tty:
            self._draw()

    def close(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._ticker.join(2)
        if self.tty:
            self.stream.write("\r" + self._line().ljust(100)[:120] + "\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


__all__ = [
    "BASELINES", "BenchConfig", "BenchError", "COLONIES", "COLONY_MODES", "CRAWLERS", "METRIC_KEYS",
    "PlannedRun", "Progress", "Site", "colony_counts", "crawl_argv", "default_start",
    "describe_plan", "evaluate_files", "plan_runs", "prepare_site", "read_jsonl", "replay_kwargs",
    "results_markdown", "run_bench", "run_one", "summarise", "targets", "write_results",
]
