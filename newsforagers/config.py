"""The one place that reads ``FORAGERS_*`` settings: parsed once, validated, immutable.

``ForagersConfig.from_settings(settings)`` accepts a Scrapy ``Settings`` object or any
mapping; a missing key takes its default from :mod:`newsforagers.defaults`; a bad value raises
:class:`~newsforagers.errors.ForagersUsageError` (a ``ValueError``) naming the setting, the
value and the valid range, and so does a ``FORAGERS_*`` key that is no setting (a typo), with
the closest setting's name.
"""

from __future__ import annotations

import difflib
import math
import os
import re
from dataclasses import dataclass, fields
from typing import Any, Mapping

from newsforagers import defaults
from newsforagers.errors import ForagersUsageError, mask_password, url_secrets
from newsforagers.learning import RewardRules

PREFIX = "FORAGERS_"


def _default(name: str) -> Any:
    return getattr(defaults, f"FORAGERS_{name.upper()}")


@dataclass(frozen=True)
class ForagersConfig:
    weblog_size: int = _default("weblog_size")
    weblog_start_size: int = _default("weblog_start_size")
    weblog_beta: float = _default("weblog_beta")
    path_steps: int = _default("path_steps")
    td_alpha: float = _default("td_alpha")
    td_gamma: float = _default("td_gamma")
    reward: float = _default("reward")
    send_cost: float = _default("send_cost")
    rewarded_send_pays_cost: bool = _default("rewarded_send_pays_cost")
    novelty_window: float = _default("novelty_window")
    future_skew: float = _default("future_skew")
    sent_memory_size: int = _default("sent_memory_size")
    score_init: float = _default("score_init")
    score_per_send: float = _default("score_per_send")
    score_per_reward: float = _default("score_per_reward")
    split_score: float = _default("split_score")
    retire_score: float = _default("retire_score")
    min: int = _default("min")
    max: int = _default("max")
    energy_c: float = _default("energy_c")
    energy_g: float = _default("energy_g")
    energy_init: float = _default("energy_init")
    energy_lb: int = _default("energy_lb")
    energy_ub: int = _default("energy_ub")
    energy_history: int = _default("energy_history")
    energy_model: str = _default("energy_model")
    energy_rho: float = _default("energy_rho")
    energy_split: str = _default("energy_split")
    energy_bounds: str = _default("energy_bounds")
    n_clusters: int = _default("n_clusters")
    tanh_scale: float = _default("tanh_scale")
    tanh_offset: float | None = _default("tanh_offset")
    store: str = _default("store")
    redis_prefix: str = _default("redis_prefix")
    store_retry: float = _default("store_retry")
    store_password_file: str = _default("store_password_file")
    index: str = _default("index")
    index_interval: float = _default("index_interval")
    clock: str = _default("clock")
    bootstrap_pages: int = _default("bootstrap_pages")
    reuse_states: bool = _default("reuse_states")
    state_cache_size: int = _default("state_cache_size")
    step_timeout: float = _default("step_timeout")
    start_failures: int = _default("start_failures")
    max_paths: int = _default("max_paths")
    seed: int = _default("seed")
    item_text: bool = _default("item_text")
    library_log_level: str = _default("library_log_level")
    languages: str = _default("languages")
    max_links: int = _default("max_links")
    max_text: int = _default("max_text")
    document_workers: int = _default("document_workers")
    population: str = _default("population")
    host_rate: float = _default("host_rate")
    host_concurrency: int = _default("host_concurrency")
    retry_after_max: float = _default("retry_after_max")
    host_backoff_max: float = _default("host_backoff_max")
    close_grace: float = _default("close_grace")
    fetch_ttl: float = _default("fetch_ttl")
    fetch_cache_size: int = _default("fetch_cache_size")
    run_dir: str = _default("run_dir")
    events: str = _default("events")
    snapshot_interval: float = _default("snapshot_interval")
    checkpoint_interval: float = _default("checkpoint_interval")
    lease: float = _default("lease")
    spawner: str = _default("spawner")
    scrapyd_urls: str = _default("scrapyd_urls")
    scrapyd_project: str = _default("scrapyd_project")
    url_records_max: int = _default("url_records_max")
    url_memory_size: int = _default("url_memory_size")
    expire_claims: bool = _default("expire_claims")
    energy_pages_max: int = _default("energy_pages_max")
    strategy: str = _default("strategy")
    schedule_size: int = _default("schedule_size")
    schedule_min_interval: float = _default("schedule_min_interval")
    schedule_max_interval: float = _default("schedule_max_interval")
    schedule_threshold: float = _default("schedule_threshold")
    schedule_barren_after: int = _default("schedule_barren_after")
    schedule_priority: str = _default("schedule_priority")
    schedule_in_flight: int = _default("schedule_in_flight")
    schedule_hedge: bool = _default("schedule_hedge")
    schedule_poll_share: float = _default("schedule_poll_share")
    schedule_poll_yield: float = _default("schedule_poll_yield")
    schedule_scarce_floor: float = _default("schedule_scarce_floor")
    schedule_visit_yield: float = _default("schedule_visit_yield")
    schedule_rhythm: bool = _default("schedule_rhythm")
    schedule_credit: str = _default("schedule_credit")
    schedule_family_complete: bool = _default("schedule_family_complete")
    explore_share: float = _default("explore_share")
    explore_steps: int = _default("explore_steps")
    explore_patience: int = _default("explore_patience")
    conditional: bool = _default("conditional")
    url_records: bool = _default("url_records")
    feeds: bool = _default("feeds")
    topic: str = _default("topic")
    topic_corpus: str = _default("topic_corpus")
    reward_mode: str = _default("reward_mode")
    topic_min_relevance: float = _default("topic_min_relevance")
    topic_feedback: str = _default("topic_feedback")
    topic_feedback_documents: int = _default("topic_feedback_documents")
    topic_feedback_terms: int = _default("topic_feedback_terms")
    topic_feedback_weight: float = _default("topic_feedback_weight")
    topic_threshold: str = _default("topic_threshold")

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> "ForagersConfig":
        check_names(settings)
        values = {}
        for f in fields(cls):
            key = f"{PREFIX}{f.name.upper()}"
            raw = settings.get(key)
            kind = _KINDS.get(f.name, type(f.default))
            values[f.name] = f.default if raw is None else _coerce(key, raw, kind)
        if values["tanh_offset"] is None:  # each strategy's own (defaults.py says why)
            values["tanh_offset"] = (defaults.PAPER_TANH_OFFSET if values["strategy"] == "paper"
                                     else defaults.SCHEDULED_TANH_OFFSET)
        config = cls(**values)
        config.validate()
        return config

    def validate(self) -> None:
        def need(ok: bool, name: str, value: Any, valid: str) -> None:
            if not ok:
                raise ForagersUsageError(f"{PREFIX}{name.upper()} ({value!r}) must be {valid}.")

        need(self.weblog_size >= 1, "weblog_size", self.weblog_size, "at least 1")
        need(1 <= self.weblog_start_size <= self.weblog_size, "weblog_start_size",
             self.weblog_start_size, f"between 1 and FORAGERS_WEBLOG_SIZE ({self.weblog_size})")
        need(0 < self.weblog_beta <= 1, "weblog_beta", self.weblog_beta, "in (0, 1]")
        need(self.path_steps >= 1, "path_steps", self.path_steps, "at least 1")
        need(0 < self.td_alpha <= 1, "td_alpha", self.td_alpha, "in (0, 1]")
        need(0 <= self.td_gamma < 1, "td_gamma", self.td_gamma, "in [0, 1)")
        need(self.reward > 0, "reward", self.reward, "> 0")
        need(self.send_cost >= 0, "send_cost", self.send_cost, ">= 0")
        # With the cost paid by rewarded sends too, a reward at or below the cost makes finding a
        # novel document a loss (or nothing) to the forager's TD learning: the sign is wrong.
        need(not self.rewarded_send_pays_cost or self.reward > self.send_cost, "reward", self.reward,
             f"more than FORAGERS_SEND_COST ({self.send_cost}) while "
             "FORAGERS_REWARDED_SEND_PAYS_COST is true: a rewarded send must profit")
        need(self.novelty_window > 0, "novelty_window", self.novelty_window, "> 0 seconds")
        need(self.future_skew >= 0, "future_skew", self.future_skew, ">= 0 seconds")
        need(self.sent_memory_size >= 1, "sent_memory_size", self.sent_memory_size, "at least 1")
        need(self.score_per_send <= 0, "score_per_send", self.score_per_send,
             "<= 0 (a send costs score; FORAGERS_SCORE_PER_REWARD pays for the novel ones)")
        # Per-send and per-reward changes add up on a rewarded send: below zero, finding news
        # would lower a forager's score and every forager could only decline towards retirement.
        need(self.score_per_reward >= -self.score_per_send, "score_per_reward", self.score_per_reward,
             f">= 0 and at least -FORAGERS_SCORE_PER_SEND ({-self.score_per_send:g}): a rewarded "
             "send must not lower a forager's score")
        need(self.retire_score < self.score_init < self.split_score, "score_init", self.score_init,
             f"between FORAGERS_RETIRE_SCORE ({self.retire_score}) and FORAGERS_SPLIT_SCORE "
             f"({self.split_score})")
        need(1 <= self.min <= self.max, "min", self.min, f"between 1 and FORAGERS_MAX ({self.max})")
        need(self.energy_c > 0, "energy_c", self.energy_c, "> 0")
        need(self.energy_g > 0, "energy_g", self.energy_g, "> 0")
        need(self.energy_model in ("sigmoid", "original"), "energy_model", self.energy_model,
             "'sigmoid' or 'original'")
        need(self.energy_rho > 0, "energy_rho", self.energy_rho, "> 0")
        need(self.energy_split in ("printed", "shared"), "energy_split", self.energy_split,
             "'printed' (Alg. 2 as printed) or 'shared' (Alg. 1: the clones share E)")
        need(self.energy_bounds in ("strict", "paper"), "energy_bounds", self.energy_bounds,
             "'strict' (the population stays in [LB, UB]) or 'paper' (Alg. 2: it may pass UB)")
        # Mouton & Marteau: a forager dies below 0 energy and clones above 1; a newborn starts
        # with some energy and must not clone before it has visited anything (the paper's E = 1).
        need(0 < self.energy_init <= 1, "energy_init", self.energy_init,
             "in (0, 1]: a new forager needs energy to live, and above 1 it clones at once")
        need(self.energy_history >= 0, "energy_history", self.energy_history, ">= 0 (0: all)")
        need(1 <= self.energy_lb <= self.energy_ub, "energy_lb", self.energy_lb,
             f"between 1 and FORAGERS_ENERGY_UB ({self.energy_ub})")
        need(self.n_clusters >= 1, "n_clusters", self.n_clusters, "at least 1")
        need(self.tanh_scale > 0, "tanh_scale", self.tanh_scale, "> 0")
        need(0 < self.tanh_offset < 1, "tanh_offset", self.tanh_offset, "in (0, 1)")
        need(self.store.startswith("memory://")
             or (self.store.startswith("sqlite:///") and len(self.store) > len("sqlite:///"))
             or self.store.startswith(("redis://", "rediss://")),
             "store", mask_password(self.store), "a store URL: memory://, sqlite:///PATH (a file name after ///) "
             "or redis://[:password@]host:port/db")
        need(bool(self.redis_prefix), "redis_prefix", self.redis_prefix, "a non-empty string")
        need(self.store_retry >= 0, "store_retry", self.store_retry, ">= 0 seconds (0: no retry)")
        need(not self.store.startswith("sqlite:///") or not self.index
             or os.path.normpath(self.index) != os.path.normpath(self.store[len("sqlite:///"):]),
             "index", self.index, "another file than the store's (empty: beside it), or 'off'")
        need(self.index_interval > 0, "index_interval", self.index_interval, "> 0 seconds")
        need(self.clock in ("site", "system"), "clock", self.clock, "'site' or 'system'")
        need(self.bootstrap_pages >= self.n_clusters, "bootstrap_pages", self.bootstrap_pages,
             f"at least FORAGERS_N_CLUSTERS ({self.n_clusters})")
        need(self.state_cache_size >= 0, "state_cache_size", self.state_cache_size,
             ">= 0 (0: no state kept)")
        need(self.step_timeout > 0, "step_timeout", self.step_timeout, "> 0 seconds")
        need(self.start_failures >= 1, "start_failures", self.start_failures, "at least 1")
        need(self.max_paths >= 0, "max_paths", self.max_paths, ">= 0 (0: no limit)")
        need(self.seed >= -1, "seed", self.seed, ">= 0, or -1 for fresh entropy")
        need(self.library_log_level.upper() in LOG_LEVELS, "library_log_level",
             self.library_log_level, f"a log level: {', '.join(LOG_LEVELS)}")
        need(self.max_links >= 0, "max_links", self.max_links, ">= 0 (0: no cap)")
        need(self.max_text >= 0, "max_text", self.max_text, ">= 0 characters (0: no cap)")
        need(self.document_workers >= 0, "document_workers", self.document_workers,
             ">= 0 processes (0: documents read in the crawl's thread)")
        need(all(re.fullmatch(r"[a-z]{2,3}", code) for code in self.language_codes), "languages",
             self.languages, "ISO 639-1 language codes, comma separated (en,es), or empty for any")
        need(self.population in ("score", "energy"), "population", self.population,
             "'score' or 'energy'")
        need(self.host_rate >= 0, "host_rate", self.host_rate, ">= 0 requests/s (0: no limit)")
        need(self.host_concurrency >= 0, "host_concurrency", self.host_concurrency, ">= 0 (0: no limit)")
        need(self.retry_after_max >= 0, "retry_after_max", self.retry_after_max,
             ">= 0 seconds (0: never pause)")
        need(self.host_backoff_max >= 0, "host_backoff_max", self.host_backoff_max,
             ">= 0 seconds (0: no back-off)")
        need(self.close_grace >= 0, "close_grace", self.close_grace,
             ">= 0 seconds (0: cancel in-flight downloads as soon as the crawler closes)")
        need(self.fetch_ttl >= 0, "fetch_ttl", self.fetch_ttl, ">= 0 seconds (0: no sharing)")
        need(self.fetch_cache_size >= 0, "fetch_cache_size", self.fetch_cache_size,
             ">= 0 (0: no sharing)")
        need(self.snapshot_interval >= 0, "snapshot_interval", self.snapshot_interval, ">= 0 seconds")
        need(self.checkpoint_interval >= 0, "checkpoint_interval", self.checkpoint_interval,
             ">= 0 seconds (0: only at path ends, population changes and close)")
        need(self.lease > 0, "lease", self.lease, "> 0 seconds")
        need(self.spawner in ("inprocess", "process", "scrapyd"), "spawner", self.spawner,
             "'inprocess', 'process' or 'scrapyd'")
        need(self.spawner == "inprocess" or not str(self.store).startswith("memory:"), "spawner",
             self.spawner, "'inprocess' with FORAGERS_STORE=memory:// (a store in one process's "
             "memory cannot be shared with other processes: give sqlite:///PATH or redis://...)")
        need(self.spawner != "scrapyd" or str(self.store).startswith(("redis://", "rediss://")),
             "spawner", self.spawner, "used with a store every scrapyd node reaches: "
             "FORAGERS_STORE=redis://host:port/db")
        need(self.spawner != "scrapyd" or not url_secrets(self.store), "store", mask_password(self.store),
             "without a password with FORAGERS_SPAWNER=scrapyd: scrapyd would put it on every job's "
             "command line and in its log. Keep it on each node instead, in FORAGERS_STORE_PASSWORD_FILE "
             "(a file), $NEWSFORAGERS_STORE_PASSWORD or ~/.netrc (docs/deployment.md, Secrets)")
        need(self.spawner != "scrapyd" or bool(self.scrapyd_urls.strip(", ")), "scrapyd_urls",
             self.scrapyd_urls, "one or more scrapyd nodes (http://host:6800,...) with "
             "FORAGERS_SPAWNER=scrapyd")
        need(self.spawner == "inprocess" or self.population == "score", "spawner", self.spawner,
             "'inprocess' with FORAGERS_POPULATION='energy' (the energy policy lives in the root's "
             "process)")
        need(self.url_records_max >= 0, "url_records_max", self.url_records_max, ">= 0 (0: no cap)")
        need(self.url_memory_size >= 1, "url_memory_size", self.url_memory_size, "at least 1")
        need(self.energy_pages_max >= 0, "energy_pages_max", self.energy_pages_max, ">= 0 (0: no cap)")
        need(self.strategy in ("paper", "scheduled"), "strategy", self.strategy, "'paper' or 'scheduled'")
        need(self.strategy == "paper" or self.population == "score", "strategy", self.strategy,
             "'paper' with FORAGERS_POPULATION='energy': the energy policy is defined on the papers' "
             "step relevances (add -s FORAGERS_STRATEGY=paper)")
        need(self.schedule_size >= 1, "schedule_size", self.schedule_size, "at least 1")
        need(self.schedule_min_interval >= 0, "schedule_min_interval", self.schedule_min_interval,
             ">= 0 seconds")
        need(self.schedule_max_interval > 0 and self.schedule_max_interval >= self.schedule_min_interval,
             "schedule_max_interval", self.schedule_max_interval,
             f"> 0 and at least FORAGERS_SCHEDULE_MIN_INTERVAL ({self.schedule_min_interval})")
        need(self.schedule_threshold >= 0, "schedule_threshold", self.schedule_threshold, ">= 0")
        need(self.schedule_barren_after >= 1, "schedule_barren_after", self.schedule_barren_after,
             "at least 1")
        need(self.schedule_priority in ("return", "lag"), "schedule_priority", self.schedule_priority,
             "'return' or 'lag'")
        need(self.schedule_credit in ("listed", "found"), "schedule_credit", self.schedule_credit,
             "'listed' or 'found'")
        need(self.schedule_in_flight >= 0, "schedule_in_flight", self.schedule_in_flight,
             ">= 0 (0: no limit)")
        need(0 <= self.schedule_poll_share <= 1, "schedule_poll_share", self.schedule_poll_share,
             "in [0, 1] (0: the threshold alone)")
        need(self.schedule_poll_yield >= 0, "schedule_poll_yield", self.schedule_poll_yield,
             ">= 0 novel documents per visit (0: no bound)")
        need(self.schedule_visit_yield >= 0, "schedule_visit_yield", self.schedule_visit_yield,
             ">= 0 novel documents a visit must expect (0: off)")
        need(0 <= self.schedule_scarce_floor <= 1, "schedule_scarce_floor",
             self.schedule_scarce_floor, "in [0, 1] (0: a scarce budget never raises the threshold)")
        need(0 <= self.explore_share < 1, "explore_share", self.explore_share, "in [0, 1)")
        need(self.explore_steps >= 1, "explore_steps", self.explore_steps, "at least 1")
        need(self.explore_patience >= 1, "explore_patience", self.explore_patience, "at least 1")
        need(self.reward_mode in REWARD_MODES, "reward_mode", self.reward_mode,
             "'novelty', 'topic' or 'topic+novelty' (empty: topic+novelty with a FORAGERS_TOPIC, "
             "novelty without)")
        need(self.topic.strip() != "" or self.reward_mode in ("", "novelty"), "reward_mode",
             self.reward_mode, "'novelty' without a topic: give one with -a topic=\"words\" "
             "(or FORAGERS_TOPIC)")
        need(self.topic.strip() != "@", "topic", self.topic, "words, or @PATH of a file holding them")
        need(0 <= self.topic_min_relevance <= 1, "topic_min_relevance", self.topic_min_relevance,
             "in [0, 1] (0: output every paid document)")
        need(self.topic_feedback in ("pseudo", "off"), "topic_feedback", self.topic_feedback,
             "'pseudo' (the query learns from the documents read and the examples) or 'off' "
             "(the papers' cosine of the topic's words)")
        need(self.topic_feedback_documents >= 1, "topic_feedback_documents",
             self.topic_feedback_documents, "at least 1")
        need(self.topic_feedback_terms >= 1, "topic_feedback_terms", self.topic_feedback_terms,
             "at least 1")
        need(0 <= self.topic_feedback_weight <= 1, "topic_feedback_weight",
             self.topic_feedback_weight, "in [0, 1] (0: the topic's words only)")
        need(self.topic_threshold in ("mixture", "fixed"), "topic_threshold", self.topic_threshold,
             "'mixture' (from the scores of the documents read) or 'fixed' "
             "(FORAGERS_TOPIC_MIN_RELEVANCE)")

    @property
    def paid_for(self) -> str:
        """The reward mode in effect: ``FORAGERS_REWARD_MODE``, or when empty ``topic+novelty``
        with a topic and ``novelty`` without."""
        if self.reward_mode:
            return self.reward_mode
        return "topic+novelty" if self.topic.strip() else "novelty"

    @property
    def language_codes(self) -> tuple[str, ...]:
        """``FORAGERS_LANGUAGES`` as codes, lower case, each once."""
        return tuple(dict.fromkeys(code.strip().lower() for code in self.languages.split(",") if code.strip()))

    def reward_rules(self) -> RewardRules:
        return RewardRules(
            reward=self.reward, send_cost=self.send_cost,
            rewarded_send_pays_cost=self.rewarded_send_pays_cost,
            novelty_window=self.novelty_window, future_skew=self.future_skew,
            score_init=self.score_init,
            score_per_send=self.score_per_send, score_per_reward=self.score_per_reward,
        )


def setting_names() -> list[str]:
    """Every ``FORAGERS_*`` setting (the config's fields, which are exactly the defaults)."""
    return [f"{PREFIX}{f.name.upper()}" for f in fields(ForagersConfig)]


def check_names(settings: Mapping[str, Any]) -> None:
    """Refuse a ``FORAGERS_*`` key that is no setting: Scrapy keeps any key it is given, so a
    typo (``FORAGERS_WEBLOG_SIZ``) would otherwise run the crawl with the default unnoticed.

    Keys are matched without regard to case (a lower-case ``foragers_min`` is a mistake too),
    and the closest setting is found on the part after the prefix, which every name shares
    and which would otherwise make any two names look alike.
    """
    known = setting_names()
    unknown = sorted(key for key in settings
                     if isinstance(key, str) and key.upper().startswith(PREFIX) and key not in known)
    if not unknown:
        return
    suffixes = {name[len(PREFIX):]: name for name in known}
    problems = []
    for key in unknown:
        close = difflib.get_close_matches(key[len(PREFIX):].upper(), list(suffixes), n=1, cutoff=0.6)
        hint = f"did you mean {suffixes[close[0]]}?" if close else "docs/settings.md lists them."
        problems.append(f"{key} is not a newsforagers setting; {hint}")
    raise ForagersUsageError(" ".join(problems))


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


#: Types of the settings whose default is None ("chosen from other settings").
_KINDS = {"tanh_offset": float}
REWARD_MODES = ("", "novelty", "topic", "topic+novelty")
#: The levels ``FORAGERS_LIBRARY_LOG_LEVEL`` takes (any case), Python's and Scrapy's names.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _coerce(key: str, raw: Any, kind: type) -> Any:
    """Settings arrive as strings from ``-s KEY=VALUE``; turn them into the default's type."""
    try:
        if kind is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in _TRUE | _FALSE:
                return text in _TRUE
            raise ValueError
        if kind is int:
            if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                raise ValueError
            return int(str(raw).strip()) if not isinstance(raw, (int, float)) else int(raw)
        if kind is float:
            if isinstance(raw, bool):
                raise ValueError
            value = float(raw)
            if not math.isfinite(value):
                raise ValueError
            return value
        if kind is str:
            if not isinstance(raw, str):
                raise ValueError
            return raw.strip()
        return raw
    except (TypeError, ValueError):
        expected = {bool: "true or false", str: "a string"}.get(kind, f"a finite {kind.__name__}")
        raise ForagersUsageError(f"{key} ({raw!r}) must be {expected}.") from None
