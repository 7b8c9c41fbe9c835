"""``ColonyRecord``: what a host writes of its share of the colony while it runs, and at its end.

In the run directory (``FORAGERS_RUN_DIR``, else ``JOBDIR``, else ``.newsforagers/runs/...``):

- ``events.jsonl``: a line per start, split, teleport, retirement and stop, with the forager's
  score (or energy), the wall time and the site's time as the foragers last read it (through
  the store);
- ``snapshots.jsonl``: a line per live member of the host's share, from the counters each
  forager shares in the store (``snapshot/NAME``), every ``FORAGERS_SNAPSHOT_INTERVAL`` seconds
  (:class:`~newsforagers.extensions.record.ColonyRecordExtension` asks) and once more for a
  forager that stops or retires;
- ``colony.json``: the colony's summary at its end, also logged as one line.

``newsforagers status`` and the dashboard read these files (:mod:`newsforagers.colony.status`).
"""

from __future__ import annotations

import json
import logging
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from newsforagers.colony import checkpoint as checkpoints
from newsforagers.colony.keys import SITE_CLOCK, site_time_now, snapshot_key
from newsforagers.config import ForagersConfig
from newsforagers.learning import EnergyPolicy, ScorePolicy
from newsforagers.store import ColonyStore

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class ColonyRecord:
    """The host's record files and the counts of its summary. Building it does no I/O;
    :meth:`open` opens the files (a host only: a member's record is its host's)."""

    def __init__(self, root: Crawler, config: ForagersConfig, policy: ScorePolicy | EnergyPolicy,
                 store: ColonyStore | None = None):
        self.root = root
        self.config = config
        self.policy = policy
        self.store = store
        self.run_dir: Path | None = None
        self._events = None
        self._snapshots = None
        # what the colony did, for its summary at the end
        self.judged = 0  # sends the reinforcing agent judged
        self.paid = 0  # of them, first finds of novel documents (rewarded)
        self.born = 0  # foragers started (the root, Alg. 9's first ones, children of splits)
        self.retired = 0

    def open(self) -> None:
        config = self.config
        self.run_dir = Path(config.run_dir) if config.run_dir else default_run_dir(self.root)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        events_path = Path(config.events) if config.events else self.run_dir / "events.jsonl"
        # a crash may have cut the record's last line in half: appending starts on a new one
        checkpoints.repair_feed(events_path)
        checkpoints.repair_feed(self.run_dir / "snapshots.jsonl")
        self._events = open(events_path, "a", encoding="utf-8")
        self._snapshots = open(self.run_dir / "snapshots.jsonl", "a", encoding="utf-8")

    def event(self, kind: str, forager: str, parent: str | None, **extra: Any) -> None:
        record = {"event": kind, "forager": forager, "parent": parent}
        if isinstance(self.policy, EnergyPolicy):
            record["energy"] = self.policy.energies.get(forager)
        else:
            record["score"] = self.store.get_score(forager)
        record["time"] = datetime.now(UTC).isoformat()
        record["sim_time"] = self.site_time()
        record.update(extra)
        if kind in ("retire", "stop") and self._snapshots is not None:
            # a forager's last counts: no periodic snapshot will see it again
            self._snapshot_one(forager, record["time"], self.store.scores())
            if not self._snapshots.closed:
                self._snapshots.flush()
        if self._events is not None and not self._events.closed:
            self._events.write(json.dumps(record) + "\n")
            self._events.flush()
        logger.info("colony: %s %s%s", kind, forager, f" (parent {parent})" if parent else "")

    def site_time(self) -> str | None:
        """The site's time now (ISO 8601) as the foragers last read it, through the store."""
        reading = self.store.get_value(SITE_CLOCK) if self.store is not None else None
        return site_time_now(reading, time.time())

    def snapshot(self, names: Iterable[str]) -> bool:
        """A line per forager of ``names``, from what each shared in the store; False when the
        record is not open (a member's, or closed)."""
        if self._snapshots is None or self._snapshots.closed:
            return False
        now = datetime.now(UTC).isoformat()
        scores = self.store.scores()
        for name in names:
            self._snapshot_one(name, now, scores)
        self._snapshots.flush()
        return True

    def _snapshot_one(self, name: str, now: str, scores: dict) -> None:
        shared = self.store.get_value(snapshot_key(name))
        if shared is None or self._snapshots is None or self._snapshots.closed:
            return
        record = {"time": now, "forager": name, "score": scores.get(name),
                  "energy": self.policy.energies.get(name) if isinstance(self.policy, EnergyPolicy) else None}
        record.update(shared)
        self._snapshots.write(json.dumps(record) + "\n")

    def judged_send(self, rewarded: bool) -> None:
        """The reinforcing agent judged one send of a forager of this colony."""
        self.judged += 1
        self.paid += bool(rewarded)

    def write_summary(self, summary: dict) -> None:
        """``RUN_DIR/colony.json``, and the colony's one summary line in the log: each forager's
        crawler dumps its own stats, and none of them sees what the whole colony did."""
        (self.run_dir / "colony.json").write_text(json.dumps(summary, indent=2) + "\n")
        requests = summary["requests_sent"]
        per_host = ", ".join(f"{host} {n}" for host, n in requests.items()) or "none"
        logger.info(
            "colony summary: %d document(s) paid (first finds of novel same-day documents) of %d "
            "send(s) judged; %d request(s) sent to the sites (%s), shared downloads and cache hits "
            "not counted; %d forager(s) born, %d retired, %d alive at the end; record in %s",
            summary["documents_paid"], summary["sends_judged"], sum(requests.values()), per_host,
            summary["foragers_born"], summary["foragers_retired"], len(summary["alive"]),
            self.run_dir)

    def close(self) -> None:
        for stream in (self._events, self._snapshots):
            if stream is not None:
                stream.close()


def default_run_dir(root: Crawler) -> Path:
    jobdir = root.settings.get("JOBDIR")
    if jobdir:
        return Path(jobdir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path(".newsforagers") / "runs" / f"{stamp}-{os.getpid()}"
