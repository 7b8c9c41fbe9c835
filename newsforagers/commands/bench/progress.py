"""The benchmark's progress line on stderr: on a terminal a bar, the run in progress, the
time elapsed and an estimate of the time left, redrawn in place every second; otherwise one
line per finished run."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from newsforagers.evaluation.bench.plan import PlannedRun


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
        harvest = (record.get("topic") or {}).get("harvest_rate")  # a topical benchmark's
        summary = (f"run {self.done}/{self.total} {run.name}: "
                   + ("ok" if ok else "FAILED: " + "; ".join(record.get("problems") or []))
                   + (f", recall {recall:.3f}" if recall is not None else "")
                   + (f", harvest rate {harvest:.3f}" if harvest is not None else "")
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


__all__ = ["Progress"]
