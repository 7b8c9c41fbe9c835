"""The colony: its foragers (the rows of ``newsforagers status``), its births and deaths, its
population and its efficiency over time.

The rows come from :mod:`newsforagers.colony.status` (``RunMonitor``, ``read_store``,
``build_report``); the series over time from the same two record files, followed with its
``JsonlFollower`` (what is appended is read once, a line still being written waits):

- the population from ``events.jsonl``: ``start`` and ``split`` are births, ``retire`` and
  ``stop`` deaths;
- the efficiency from ``snapshots.jsonl``: at each snapshot time the colony's totals of the
  foragers' cumulative ``sent``, ``rewarded`` and ``downloaded`` counters (a forager that
  ended keeps its last counts), rewarded / downloaded (download efficiency) and rewarded /
  sent (sent efficiency), over the whole run and over the last :data:`RECENT` snapshot
  rounds (``recent_*``).

One :class:`ColonyWatch` serves every request (a lock keeps the followers to one reader).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from newsforagers.colony.status import (
    COLUMNS,
    EVENTS_FILE,
    SNAPSHOTS_FILE,
    JsonlFollower,
    RunMonitor,
    StoreView,
    build_report,
    footer_notes,
    format_age,
    format_cells,
    format_time,
    parse_time,
    read_store,
    visible_columns,
)
from newsforagers.web.sources import Sources, SourceUnavailable
from newsforagers.web.text import http_url

BIRTHS = ("start", "split")
#: Snapshot rounds the recent efficiency is measured over.
RECENT = 5
DEATHS = ("retire", "stop")


@dataclass
class RunHistory:
    """The series of one run directory, folded from its records as they are appended."""

    run_dir: Path
    events: JsonlFollower = field(init=False)
    snapshots: JsonlFollower = field(init=False)

    def __post_init__(self):
        self.run_dir = Path(self.run_dir)
        self._reset()

    def _reset(self) -> None:
        self.events = JsonlFollower(self.run_dir / EVENTS_FILE)
        self.snapshots = JsonlFollower(self.run_dir / SNAPSHOTS_FILE)
        self.origin: datetime | None = None
        self.alive: set[str] = set()
        self.population: list[dict] = []  # after each birth or death
        self.births: list[dict] = []
        self.deaths: list[dict] = []
        self.counters: dict[str, tuple[int, int, int]] = {}  # forager -> sent, rewarded, downloaded
        self.efficiency: list[dict] = []  # one point per snapshot time

    def poll(self) -> "RunHistory":
        events, events_reset = self.events.read()
        snapshots, snapshots_reset = self.snapshots.read()
        if events_reset or snapshots_reset:  # a file was rewritten: fold both again
            self._reset()
            events, _ = self.events.read()
            snapshots, _ = self.snapshots.read()
        for record in events:
            self._event(record)
        for record in snapshots:
            self._snapshot(record)
        return self

    def _elapsed(self, when: datetime) -> float:
        if self.origin is None:  # the run's zero: its first record (events are read first)
            self.origin = when
        return (when - self.origin).total_seconds()

    def _event(self, record: dict) -> None:
        kind, name = record.get("event"), record.get("forager")
        when = parse_time(record.get("time"))
        if not isinstance(name, str) or not name or when is None:
            return
        if kind in BIRTHS:
            self.alive.add(name)
            parent = record.get("parent")
            point = {"forager": name, "kind": kind,
                     "parent": parent if isinstance(parent, str) else None}
            target = self.births
        elif kind in DEATHS:
            self.alive.discard(name)
            point = {"forager": name, "kind": kind}
            target = self.deaths
        else:
            return
        elapsed = self._elapsed(when)
        point.update(t=elapsed, time=when.isoformat(), alive=len(self.alive))
        target.append(point)
        self.population.append({"t": elapsed, "time": when.isoformat(), "alive": len(self.alive)})

    def _snapshot(self, record: dict) -> None:
        name = record.get("forager")
        when = parse_time(record.get("time"))
        if not isinstance(name, str) or not name or when is None:
            return
        values = []
        for key in ("sent", "rewarded", "downloaded"):
            value = record.get(key)
            values.append(int(value) if isinstance(value, (int, float))
                          and not isinstance(value, bool) else None)
        if None in values:
            return
        self.counters[name] = tuple(values)
        sent, rewarded, downloaded = (sum(c[i] for c in self.counters.values()) for i in range(3))
        stamp = when.isoformat()
        point = {"t": self._elapsed(when), "time": stamp, "sent": sent, "rewarded": rewarded,
                 "downloaded": downloaded, "download_efficiency": _ratio(rewarded, downloaded),
                 "sent_efficiency": _ratio(rewarded, sent)}
        # one point per snapshot round: the lines of a round share their time
        if self.efficiency and self.efficiency[-1]["time"] == stamp:
            self.efficiency.pop()
        # the recent efficiency: over the last RECENT rounds (one round is too few pages to
        # say anything: a second with no download is no efficiency of 0)
        before = (self.efficiency[-RECENT] if len(self.efficiency) >= RECENT
                  else {"sent": 0, "rewarded": 0, "downloaded": 0})
        point["recent_download_efficiency"] = _ratio(rewarded - before["rewarded"],
                                                     downloaded - before["downloaded"])
        point["recent_sent_efficiency"] = _ratio(rewarded - before["rewarded"],
                                                 sent - before["sent"])
        self.efficiency.append(point)

    def series(self) -> dict:
        last = max([p["t"] for p in self.population[-1:] + self.efficiency[-1:]], default=None)
        return {"origin": self.origin.isoformat() if self.origin else None, "end": last,
                "population": list(self.population), "births": list(self.births),
                "deaths": list(self.deaths), "efficiency": list(self.efficiency)}


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole > 0 else None


class ColonyWatch:
    """The colony view's state kept between requests: the run's monitor and history (read
    incrementally) and the store's last view. A new run under the runs directory replaces
    them."""

    def __init__(self, sources: Sources):
        self.sources = sources
        self._lock = threading.Lock()
        self._run_dir: Path | None = None
        self._monitor: RunMonitor | None = None
        self._history: RunHistory | None = None
        self._store_view: StoreView | None = None

    def _follow(self) -> Path | None:
        run_dir = self.sources.current_run()
        if run_dir != self._run_dir:
            self._run_dir = run_dir
            self._monitor = RunMonitor(run_dir) if run_dir is not None else None
            self._history = RunHistory(run_dir) if run_dir is not None else None
        return run_dir

    def report(self, now: datetime | None = None) -> dict:
        """The foragers' rows and the colony's summary (``/api/colony``)."""
        now = now or datetime.now(UTC)
        notes: list[str] = []
        with self._lock:
            run_dir = self._follow()
            run = self._monitor.poll() if self._monitor is not None else None
            if run_dir is None:
                notes.append(f"no run directory under {self.sources.runs_base}/ yet (give --run "
                             "RUN_DIR)")
            elif not run_dir.is_dir():
                notes.append(f"no run directory at {run_dir} yet")
            elif not self._monitor.events.exists:
                notes.append(f"no events yet in {self._monitor.events.path}")
            if self.sources.store_url is not None:
                try:
                    with self.sources.store() as store:
                        self._store_view = read_store(store, self._store_view)
                except SourceUnavailable as exc:
                    notes.append(str(exc) + ("; showing the last read" if self._store_view else ""))
            store_view = self._store_view
            monitor = self._monitor
            report = build_report(
                run, store_view, now=now,
                bad_lines=monitor.bad_lines if monitor is not None else (0, 0),
                partial_files=monitor.partial_files if monitor is not None else ())
        rows = []
        for row in report.rows:
            cells = format_cells(row)
            rows.append({
                "forager": row.forager, "parent": row.parent, "state": row.state,
                "process": row.process, "score": row.score, "sent": row.sent,
                "rewarded": row.rewarded, "downloaded": row.downloaded, "found": row.found,
                "download_efficiency": row.rewarded_per_downloaded,
                "sent_efficiency": row.rewarded_per_sent,
                "weblog_head": row.weblog_head, "weblog_link": http_url(row.weblog_head),
                "weight_norm": row.weight_norm, "age_seconds": row.age,
                "cells": dict(zip(CELL_NAMES, cells)),
            })
        columns = [{"key": CELL_NAMES[i],
                    "title": report.value_name if COLUMNS[i][0] == "score" else COLUMNS[i][0],
                    "align": COLUMNS[i][1]}
                   for i in visible_columns(report)]
        last = report.last_event_time
        return {
            "run_dir": str(run_dir) if run_dir is not None else None,
            "store": self.sources.store_label,
            "value_name": report.value_name,
            "has_run": report.has_run, "has_store": report.has_store,
            "columns": columns,
            "rows": rows,
            "summary": {
                "foragers": len(rows), "alive": report.alive, "splits": report.splits,
                "retirements": report.retirements, "teleports": report.teleports,
                "found": report.found, "store_total": report.store_total,
                "last_event": last.isoformat() if last else None,
                "last_event_text": format_time(last),
                "last_event_ago": format_age((now - last).total_seconds()) if last else None,
                "sim_time": report.last_sim_time.isoformat() if report.last_sim_time else None,
            },
            "notes": notes + footer_notes(report),
            "time": now.isoformat(),
        }

    def series(self) -> dict:
        """Births, deaths, the population and the efficiency over time (``/api/colony/series``)."""
        with self._lock:
            run_dir = self._follow()
            if self._history is None:
                return {"run_dir": None, "origin": None, "end": None, "population": [], "births": [],
                        "deaths": [], "efficiency": []}
            return {"run_dir": str(run_dir), **self._history.poll().series()}


# the keys of :func:`format_cells`'s strings, in its order (the status table's columns)
CELL_NAMES = ("forager", "parent", "state", "process", "score", "sent", "rewarded", "downloaded",
              "download_efficiency", "sent_efficiency", "found", "weblog_head", "weight_norm",
              "age")
