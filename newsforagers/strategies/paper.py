"""The papers' strategy (``FORAGERS_STRATEGY=paper``): the forager's mind at run time —
weblog, weights, the current path and its step barrier.

The driver (:mod:`newsforagers.driver`) is its only door to Scrapy: it asks the mind for the
next step and hands it what a downloaded page says. It never imports Scrapy: URLs, texts and
dates in, URLs and numbers out, with the learning core doing the maths (Alg. 1-5 and 10-12
of the selection paper).

A step goes: ``next_step()`` → the scheduler downloads the step page → ``on_step_page()``
returns the probes to download (links not visited in this path, minus pages whose stored
state can be reused, Alg. 2) → each probe ends in ``on_probe_page()`` or ``on_probe_failed()``
→ when the last one is in, the batch of probe texts is featurised at once, the frontier
grows, the TD step (Alg. 4) uses the step's profit, and ``next_step()`` may choose again.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Callable, Sequence

import numpy as np

from newsforagers import defaults
from newsforagers.config import ForagersConfig
from newsforagers.learning import Weblog
from newsforagers.learning.bounded import Bounded
from newsforagers.learning.path import ForagerPath
from newsforagers.pages import SentMemory
from newsforagers.strategies.common import (
    MODES,
    Encoder,
    EncoderBootstrap,
    ForagerCounters,
    Mind,
    guarded_td_step,
)

logger = logging.getLogger(__name__)


@dataclass
class _Probe:
    url: str
    text: str | None = None
    published: datetime | None = None
    done: bool = False


@dataclass
class _Step:
    """The step in progress: its page, its probes and the batch waiting to be featurised."""

    url: str
    index: int
    path_id: int
    page_done: bool = False
    probes: dict[str, _Probe] = field(default_factory=dict)
    step_text: str | None = None
    reused: list[tuple[str, np.ndarray]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.page_done and all(p.done for p in self.probes.values())


class PaperMind(Mind):
    """One forager (a spider's mind). ``rng`` drives every random choice it makes."""

    strategy = "paper"

    def __init__(
        self,
        name: str,
        config: ForagersConfig,
        weblog: Weblog,
        weights: np.ndarray,
        rng: np.random.Generator,
        mode: str = "wlrl",
        encoder: Encoder | None = None,
        bootstrap: Callable[[list[str]], Encoder] | None = None,
        bootstrap_pages: int = 500,
        reuse_states: bool = True,
        state_cache_size: int = defaults.FORAGERS_STATE_CACHE_SIZE,
        max_start_failures: int = 3,
        max_paths: int = 0,
        background_fit: bool = False,
    ):
        if mode not in MODES:
            raise ValueError(f"forager mode ({mode!r}) must be one of {', '.join(MODES)}.")
        if encoder is None and bootstrap is None:
            raise ValueError("a forager needs a state encoder or a way to bootstrap one.")
        Mind.__init__(self, name, config, weights, rng, mode, encoder)
        self.weblog = weblog
        # With ``background_fit`` the forager does not fit its encoder itself: it leaves the
        # texts in ``fit_request`` for its driver (which fits them on a thread) and keeps
        # walking in random order until ``encoder_fitted`` or ``encoder_failed`` is called.
        self.bootstrap = EncoderBootstrap(bootstrap, bootstrap_pages, background=background_fit)
        self._fitted: tuple[Encoder, int] | None = None
        self.reuse_states = reuse_states
        self.path = ForagerPath(k=config.n_clusters, max_steps=config.path_steps)
        self.sent = SentMemory(config.sent_memory_size)
        self.counters = ForagerCounters()
        self.path_id = 0
        self.step: _Step | None = None
        self.retired = False
        self.last_path: dict | None = None
        self.finished_steps: list[tuple[str, float, float]] = []  # (url, profit, value), drained by the driver
        self._teleport_to: str | None = None
        self._resume_step: str | None = None  # a restored step that must be walked again
        self._start_failed = False
        # Alg. 2: state vectors of probed pages by URL, with their publication date; bounded
        self._states: Bounded[str, tuple[np.ndarray, datetime | None]] = Bounded(max(0, state_cache_size))
        # URLs read with a publication date (articles), as bounded as the states: a step to one
        # may be answered from Scrapy's HTTP cache (not a decision of the walk)
        self._articles: Bounded[str, None] = Bounded(max(1, state_cache_size))
        self._start_failures: dict[str, int] = {}
        self._max_start_failures = max_start_failures
        self.max_paths = max_paths

    # -- the scheduler's side ----------------------------------------------------------

    @property
    def busy(self) -> bool:
        """True while the current step waits for its page or probes (the step barrier)."""
        return self.step is not None and not self.step.complete

    @property
    def waiting(self) -> int:
        """How many of the current step's page and probes the barrier still waits for."""
        step = self.step
        if step is None:
            return 0
        return (not step.page_done) + sum(not probe.done for probe in step.probes.values())

    @property
    def done(self) -> bool:
        """Nothing left to do: retired, no starting URL left in the weblog, or ``max_paths``
        paths walked (0: no limit)."""
        if self.max_paths and self.counters.paths >= self.max_paths:
            return True
        return self.retired or len(self.weblog) == 0

    def next_step(self) -> str | None:
        """The URL of the next step, or None while the barrier holds or the forager is done."""
        if self.done or self.busy:
            return None
        if self.step is not None:
            self._finish_step()
        if self._fitted is not None:
            (encoder, n_texts), self._fitted = self._fitted, None
            self._use_encoder(encoder, n_texts)
        if self._resume_step is not None:
            # the step in progress when the checkpoint was taken: its page and probes again
            url, self._resume_step = self._resume_step, None
            return self._begin_step(url)
        if self._teleport_to is not None:
            return self._begin_path()
        if self.path.steps and not self.path.finished:
            url = self.path.choose_next(self.weights) if self.encoder is not None else self._random_next()
            if url is not None:
                return self._begin_step(url)
        return self._begin_path()

    def _random_next(self) -> str | None:
        # Before the encoder is fitted every state is unknown: random order (bootstrap).
        frontier = self.path.frontier()
        if not frontier or self.path.finished:
            return None
        url = frontier[int(self.rng.integers(len(frontier)))]
        return self.path.choose_next_url(url)

    def _begin_path(self) -> str | None:
        if self.path.steps:
            self._end_path()
        if self.done:
            return None
        start, self._teleport_to = self._teleport_to or self.weblog.choose_start(self.rng), None
        self.path_id += 1
        cached = self._states.get(start)
        self.path.begin(start, None if cached is None else cached[0])
        return self._begin_step(start)

    def _end_path(self) -> None:
        """Alg. 1 after a path (not for RL foragers, whose weblog is fixed)."""
        self.counters.paths += 1
        self.last_path = {"id": self.path_id, "steps": len(self.path.steps),
                          "profit": float(sum(self.path.profits))}
        start_failed, self._start_failed = self._start_failed, False
        # a path whose start page could not be read taught nothing, and must not bring a
        # removed start URL back into the weblog
        if self.mode != "rl" and not start_failed:
            self.weblog.update(self.path.steps, self.path.profits)

    def _begin_step(self, url: str) -> str:
        self.step = _Step(url=url, index=len(self.path.steps) - 1, path_id=self.path_id)
        self.counters.steps += 1
        return url

    # -- the spider's side ---------------------------------------------------------------

    def on_step_page(self, url: str, text: str, links: Sequence[str]) -> list[str]:
        """The step page arrived: return the probes to download (Alg. 12)."""
        step = self._current(url)
        if step is None:
            return []
        self._start_failures.pop(url, None)
        self.counters.downloaded += 1
        if self.path.step_states[-1] is None:
            step.step_text = text
        probes = []
        for link in dict.fromkeys(links):
            if link in self.path.visited or link in step.probes or self.path.on_frontier(link):
                continue
            cached = self._states.get(link)
            if self.reuse_states and cached is not None and self._cannot_have_changed(cached[1]):
                step.reused.append((link, cached[0]))
                self.counters.reused_states += 1
                continue
            step.probes[link] = _Probe(link)
            probes.append(link)
        step.page_done = True
        return probes

    def on_step_failed(self, url: str) -> None:
        """The step page could not be downloaded; a start URL failing again and again leaves
        the weblog (an unreachable seed must not be retried forever)."""
        step = self._current(url)
        if step is None:
            return
        step.page_done = True
        if step.index == 0:
            self._start_failed = True
            self.counters.start_failures += 1
            failures = self._start_failures.get(url, 0) + 1
            self._start_failures[url] = failures
            if len(self._start_failures) > 10 * max(1, len(self.weblog)):
                # bounded: forget the failures of URLs the weblog no longer holds
                self._start_failures = {u: n for u, n in self._start_failures.items()
                                        if u in self.weblog or u == url}
            if failures >= self._max_start_failures:
                self._start_failures.pop(url)
                self.weblog.remove(url)
                logger.warning("forager %s: start URL %s failed %d times, removed from the weblog",
                               self.name, url, failures)

    def on_probe_page(self, url: str, text: str, published: datetime | None) -> None:
        probe = self._probe(url)
        if probe is not None:
            probe.text, probe.published, probe.done = text, published, True
            self.counters.probes += 1
            self.counters.downloaded += 1
        if published is not None:
            self._articles.add(url)

    def on_probe_failed(self, url: str) -> None:
        probe = self._probe(url)
        if probe is not None:
            probe.done = True
            self.counters.probe_failures += 1

    def teleport(self, url: str) -> None:
        """Start the next path at ``url`` (energy policy: a page with an energy remnant)."""
        self._teleport_to = url

    def abandon_step(self) -> int:
        """Count the step's page and probes still missing as failed; return how many."""
        step = self.step
        if step is None:
            return 0
        missing = 0
        if not step.page_done:
            step.page_done = True
            missing += 1
        for probe in step.probes.values():
            if not probe.done:
                probe.done = True
                missing += 1
                self.counters.probe_failures += 1
        return missing

    def on_reward(self, path_id: int, step_index: int, profit: float, rewarded: bool) -> None:
        """The reinforcing agent's answer for one send made at ``step_index`` of path ``path_id``."""
        if rewarded:
            self.counters.rewarded += 1
        if path_id != self.path_id or not 0 <= step_index < len(self.path.steps):
            self.counters.late_rewards += 1
            return
        self.path.profits[step_index] += float(profit)

    # -- internals ------------------------------------------------------------------------

    def _current(self, url: str) -> _Step | None:
        if self.step is None or self.step.url != url or self.step.page_done:
            return None
        return self.step

    def _probe(self, url: str) -> _Probe | None:
        if self.step is None:
            return None
        probe = self.step.probes.get(url)
        return None if probe is None or probe.done else probe

    def is_article(self, url: str) -> bool:
        """Whether ``url`` was read as a dated page (an article: it cannot change, so a cached
        copy of it is as good as a fresh one); False when unknown or undated."""
        return url in self._articles

    def _cannot_have_changed(self, published: datetime | None) -> bool:
        # A dated page is an article: its text (so its state) does not change once published.
        return published is not None

    def _finish_step(self) -> None:
        """Featurise the step's batch, grow the frontier, take the TD step (Alg. 2, 4)."""
        step = self.step
        self._featurise_step()
        # the path may have been closed meanwhile (the encoder was just fitted)
        same_path = step.path_id == self.path_id and step.index < len(self.path.steps)
        state = self.path.step_states[step.index] if same_path else None
        value = float(np.dot(self.weights, state)) if state is not None else 0.0
        profit = self.path.profits[step.index] if same_path else 0.0
        self.finished_steps.append((step.url, profit, value))

    def _featurise_step(self) -> None:
        step, self.step = self.step, None
        fetched = [p for p in step.probes.values() if p.text is not None]
        texts = [p.text for p in fetched]
        if step.step_text is not None:
            texts.append(step.step_text)
        if self.encoder is None:
            now = self.bootstrap.add(texts)
            if now is not None:
                self._fit_encoder(now)
            self.path.add_frontier([p.url for p in fetched], np.zeros((len(fetched), self.config.n_clusters)))
            return
        states = self.encoder.transform(texts) if texts else np.zeros((0, self.config.n_clusters))
        if step.step_text is not None:
            self.path.set_current_state(states[-1])
            self._remember(step.url, states[-1], None)
        for probe, state in zip(fetched, states):
            self._remember(probe.url, state, probe.published)
        urls, rows = [p.url for p in fetched], states[: len(fetched)]
        if step.reused:
            urls += [u for u, _ in step.reused]
            rows = np.concatenate([rows, np.stack([s for _, s in step.reused])])
        if urls:
            self.path.add_frontier(urls, rows)
        self._td_update()

    def _td_update(self) -> None:
        if self.mode == "wl":
            return
        transition = self.path.last_transition()
        if transition is None:
            return
        s_tm1, r_t, s_t = transition
        self.weights = guarded_td_step(self.name, self.config, self.counters, self.weights, s_tm1, r_t, s_t)

    def _fit_encoder(self, texts: list[str]) -> None:
        try:
            encoder = self.bootstrap.fit(texts)
        except ValueError as exc:
            self.encoder_failed(texts, exc)
            return
        self._use_encoder(encoder, len(texts))

    def encoder_fitted(self, encoder: Encoder, n_texts: int) -> None:
        """A background fit of ``n_texts`` texts is done: used from the next step on."""
        self.bootstrap.done()
        self._fitted = (encoder, n_texts)

    def _use_encoder(self, encoder: Encoder, n_texts: int) -> None:
        self.encoder = encoder
        logger.info("forager %s: state encoder fitted on %d probed pages", self.name, n_texts)
        # The path so far was walked in random order with unknown states: close it (its
        # profits still update the weblog) and let the next path use real states.
        if self.path.steps:
            self._end_path()
        self.path = ForagerPath(k=self.config.n_clusters, max_steps=self.config.path_steps)

    def _remember(self, url: str, state: np.ndarray, published: datetime | None) -> None:
        self._states.put(url, (np.asarray(state, dtype=np.float32), published))

    # -- persistence (spider state, checkpoints) ------------------------------------------

    def to_state(self, path: bool = True) -> dict:
        """The forager's memory as JSON-able data: weblog, weights, sent memory, counters and,
        with ``path``, the current path (steps, step states, profits, visited, frontier URLs
        and rows) and the step in progress (walked again after a restore)."""
        state = {
            "name": self.name,
            "mode": self.mode,
            "weblog": self.weblog.to_dict(),
            "weights": self.weights.tolist(),
            "sent": self.sent.to_list(),
            "path_id": self.path_id,
            "retired": self.retired,
            "counters": asdict(self.counters),
        }
        if path:
            state["path"] = self.path.to_dict(compact=True) if self.path.steps else None
            step = self._resume_step or (self.step.url if self.step is not None else None)
            # a step is in progress exactly when the path's last step is not finished yet
            state["step"] = step if self.path.steps and step == self.path.steps[-1] else None
        return state

    def restore(self, state: dict, path: bool = True) -> None:
        """Take back :meth:`to_state`'s memory (KeyError, TypeError or ValueError when it does
        not fit this forager). ``path=False`` keeps a fresh path: the saved rows belong to a
        state encoder this forager does not have."""
        weblog = Weblog.from_dict(state["weblog"])
        weights = np.asarray(state["weights"], dtype=np.float64)
        if weights.shape != (self.config.n_clusters,) or not np.all(np.isfinite(weights)):
            raise ValueError("saved forager weights do not fit this forager.")
        saved_path = None
        if path and state.get("path"):
            saved_path = ForagerPath.from_dict(state["path"], k=self.config.n_clusters,
                                               max_steps=self.config.path_steps)
        self.weblog = weblog
        self.weights = weights
        self.sent = SentMemory.from_list(state.get("sent", []), self.config.sent_memory_size)
        self.path_id = int(state.get("path_id", 0))
        self.retired = bool(state.get("retired", False))
        counters = state.get("counters") or {}
        for name in ForagerCounters.__dataclass_fields__:
            if name in counters:
                setattr(self.counters, name, type(getattr(self.counters, name))(counters[name]))
        if saved_path is not None:
            self.path = saved_path
            step = state.get("step")
            self._resume_step = step if step and saved_path.steps and step == saved_path.steps[-1] else None

