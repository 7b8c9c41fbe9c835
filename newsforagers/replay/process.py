"""Run ``newsforagers replay`` in a subprocess, for code that does not run a reactor itself.

::

    with ReplayProcess(corpus_path, speed=600, retime=200) as replay:
        urllib.request.urlopen(replay.url)
    # leaving the block sends SIGTERM and waits for a clean exit
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path


def parse_serving_line(line: str) -> str:
    """The URL of the command's first stdout line (``serving URL sim_now=...``)."""
    words = line.split()
    if len(words) < 2 or words[0] != "serving" or not words[1].startswith("http://"):
        raise ValueError(f"not a replay 'serving' line: {line!r}")
    return words[1]


class ReplayProcess:
    """``python -m newsforagers.cli replay CORPUS --port 0 ...`` with its URL parsed."""

    def __init__(self, corpus: str | Path, *, profile: str = "hard", speed: float = 600.0,
                 start: str | None = None, retime: float | None = None,
                 log_path: str | Path | None = None, truth_path: str | Path | None = None,
                 seed: int = 0, feeds: float = 0.0, extra_args: list[str] | None = None,
                 startup_timeout: float = 60.0):
        self.argv = [sys.executable, "-m", "newsforagers.cli", "replay", str(corpus),
                     "--port", "0", "--profile", profile, "--speed", repr(speed),
                     "--seed", str(seed)]
        if start is not None:
            self.argv += ["--start", start]
        if retime is not None:
            self.argv += ["--retime", repr(retime)]
        if log_path is not None:
            self.argv += ["--log", str(log_path)]
        if truth_path is not None:
            self.argv += ["--truth", str(truth_path)]
        if feeds:
            self.argv += ["--feeds", repr(feeds)]
        self.argv += list(extra_args or [])
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen | None = None
        self.first_line = ""
        self.url = ""
        self.output: deque[str] = deque(maxlen=1000)  # later stdout and stderr lines
        self._drains: list[threading.Thread] = []

    def start(self) -> "ReplayProcess":
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=env)
        # Wait for the first line on the pipe itself (no polling sleep), with a deadline in
        # case the command dies or hangs before it listens.
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + self.startup_timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise TimeoutError(f"replay did not start within {self.startup_timeout} s")
                self.first_line = self.process.stdout.readline()
                if self.first_line or self.process.poll() is not None:
                    break
            if not self.first_line:
                raise RuntimeError("replay exited before listening: "
                                   + (self.process.stderr.read() or "").strip()[-2000:])
            self.url = parse_serving_line(self.first_line)
            # Keep reading both pipes so a chatty server never blocks on a full pipe.
            for stream in (self.process.stdout, self.process.stderr):
                drain = threading.Thread(target=self._drain, args=(stream,), daemon=True)
                drain.start()
                self._drains.append(drain)
        except BaseException:
            self.stop()
            raise
        finally:
            selector.close()
        return self

    def _drain(self, stream) -> None:
        for line in stream:
            self.output.append(line)

    def stop(self, timeout: float = 30.0, sig: int = signal.SIGTERM) -> int | None:
        """Send ``sig`` (SIGTERM), then wait; returns the exit code (None if never started)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for drain in self._drains:
            drain.join(timeout)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return self.process.returncode

    def __enter__(self) -> "ReplayProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
