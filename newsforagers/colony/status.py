"""What ``newsforagers status`` shows: a colony's foragers from its run directory and store.

A run directory holds two JSON-lines files written by :class:`~newsforagers.colony.local.Colony`:
``events.jsonl`` (``start``, ``split``, ``retire``, ``teleport``, ``stop``) and
``snapshots.jsonl`` (every forager's counters, every ``FORAGERS_SNAPSHOT_INTERVAL`` seconds and
at the end). This module reads them — incrementally, so a live view re-reads only what was
appended — and folds them into one row per forager; nothing here prints or imports ``rich``.

Reading tolerates a colony writing at the same time: a last line without its newline is left
for the next read (a *partial* line, not an error); a line that is not a JSON object with a
``forager`` is a *bad* line, counted and skipped. A file that shrank (rewritten) is read
again from its start.

A forager's state comes from its events: ``alive`` after ``start``/``split``, ``retired``
after ``retire``, ``stopped`` after ``stop``. A forager alive by its events that has dropped
out of the snapshots is ``ended`` (it went without an event, e.g. the process was killed): it is
missing from a snapshot round that is complete — any round but the newest, or the newest once
the colony has logged a ``stop`` after it (``Colony.close`` writes its last round before the
``stop`` events).
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from newsforagers.store import ColonyStore

EVENTS_FILE = "events.jsonl"
SNAPSHOTS_FILE = "snapshots.jsonl"
DEFAULT_RUNS_DIR = Path(".newsforagers") / "runs"

ALIVE, RETIRED, STOPPED, ENDED = "alive", "retired", "stopped", "ended"

# (header, justify) of the table, in the order of :func:`format_cells`
COLUMNS: tuple[tuple[str, str], ...] = (
    ("forager", "left"), ("parent", "left"), ("state", "left"), ("process", "left"), ("score", "right"),
    ("sent", "right"), ("rewarded", "right"), ("downloaded", "right"), ("rew/dl", "right"),
    ("rew/sent", "right"), ("found", "right"), ("weblog head", "left"), ("|w|", "right"),
    ("age", "right"),
)
NONE = "—"
# the columns a store alone can fill
STORE_COLUMNS = ("forager", "state", "process", "score", "found")


# -- reading JSON lines --------------------------------------------------------------------------


def parse_jsonl(data: bytes) -> tuple[list[dict], int, bytes]:
    """Split ``data`` into JSON objects: ``(records, bad, rest)``.

    ``rest`` is what follows the last newline (a line still being written); blank lines are
    skipped, a line that is not valid UTF-8 JSON or not an object counts in ``bad``.
    """
    records: list[dict] = []
    bad = 0
    *lines, rest = data.split(b"\n")
    for raw in lines:
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            bad += 1
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            bad += 1
    return records, bad, rest


class JsonlFollower:
    """Reads the complete lines appended to a JSON-lines file since the last :meth:`read`."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.offset = 0  # bytes consumed, up to the end of the last complete line
        self.rest = b""  # the incomplete line after it
        self.bad = 0
        self.exists = False

    @property
    def partial(self) -> bool:
        """The file ends with a line that has no newline yet."""
        return bool(self.rest.strip())

    def read(self) -> tuple[list[dict], bool]:
        """``(new records, reset)``; ``reset``: the file shrank, the records start over."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            self.exists = False
            reset = self.offset > 0
            self.offset, self.rest = 0, b""
            return [], reset
        self.exists = True
        reset = size < self.offset + len(self.rest)
        if reset:
            self.offset, self.rest, self.bad = 0, b"", 0
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        records, bad, rest = parse_jsonl(data)
        self.bad += bad
        self.offset += len(data) - len(rest)
        self.rest = rest
        return records, reset


# -- values ----------------------------------------------------------------------------------------


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 time (UTC when it has no offset), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _count(value: Any) -> int | None:
    number = _number(value)
    return int(number) if number is not None else None


def forager_sort_key(name: str) -> tuple:
    """Natural order: f1, f2, ..., f10 (digit runs compare as numbers)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.split(r"(\d+)", name) if part)


# -- folding records -------------------------------------------------------------------------------


@dataclass
class ForagerState:
    """Everything the run's records say about one forager."""

    name: str
    parent: str | None = None
    state: str | None = None  # from events: alive / retired / stopped (None: no event)
    born: datetime | None = None
    ended_at: datetime | None = None
    score: float | None = None
    energy: float | None = None
    value_time: datetime | None = None  # time of the record score/energy came from
    sent: int | None = None
    rewarded: int | None = None
    downloaded: int | None = None
    steps: int | None = None
    paths: int | None = None
    weblog_head: str | None = None
    weight_norm: float | None = None
    first_snapshot: datetime | None = None
    last_snapshot: datetime | None = None
    teleports: int = 0
    children: int = 0


@dataclass
class RunState:
    """The fold of a run's events and snapshots (feed it records in file order)."""

    foragers: dict[str, ForagerState] = field(default_factory=dict)
    events: int = 0
    splits: int = 0
    retirements: int = 0
    teleports: int = 0
    stops: int = 0
    bad_events: int = 0
    bad_snapshots: int = 0
    first_event_time: datetime | None = None
    last_event_time: datetime | None = None
    last_stop_time: datetime | None = None
    last_sim_time: datetime | None = None
    energy_mode: bool = False
    rounds: list[datetime] = field(default_factory=list)  # the two newest snapshot times

    def _forager(self, name: str) -> ForagerState:
        state = self.foragers.get(name)
        if state is None:
            state = self.foragers[name] = ForagerState(name)
        return state

    def _value(self, forager: ForagerState, record: dict, when: datetime | None) -> None:
        if forager.value_time is not None and when is not None and when < forager.value_time:
            return
        if "energy" in record and _number(record["energy"]) is not None:
            forager.energy = float(record["energy"])
            self.energy_mode = True
        if _number(record.get("score")) is not None:
            forager.score = float(record["score"])
        if when is not None:
            forager.value_time = when

    def add_event(self, record: dict) -> bool:
        """Fold one event; False (and counted as bad) when it is not an event."""
        kind, name = record.get("event"), record.get("forager")
        if not isinstance(kind, str) or not isinstance(name, str) or not name:
            self.bad_events += 1
            return False
        self.events += 1
        when = parse_time(record.get("time"))
        if when is not None:
            if self.first_event_time is None or when < self.first_event_time:
                self.first_event_time = when
            if self.last_event_time is None or when > self.last_event_time:
                self.last_event_time = when
        sim = parse_time(record.get("sim_time"))
        if sim is not None and (self.last_sim_time is None or sim > self.last_sim_time):
            self.last_sim_time = sim
        forager = self._forager(name)
        parent = record.get("parent")
        if kind in ("start", "split"):
            if forager.state != ALIVE:  # born, or started again (a resumed JOBDIR run)
                forager.born, forager.ended_at = when, None
            forager.state = ALIVE
            if kind == "split":
                self.splits += 1
                if isinstance(parent, str) and parent:
                    forager.parent = parent
                    self._forager(parent).children += 1
        elif kind == "retire":
            self.retirements += 1
            forager.state, forager.ended_at = RETIRED, when
        elif kind == "stop":
            self.stops += 1
            forager.state, forager.ended_at = STOPPED, when
            if when is not None and (self.last_stop_time is None or when > self.last_stop_time):
                self.last_stop_time = when
        elif kind == "teleport":
            self.teleports += 1
            forager.teleports += 1
        # an unknown kind (a newer colony) only refreshes the values below
        self._value(forager, record, when)
        return True

    def add_snapshot(self, record: dict) -> bool:
        """Fold one snapshot line; False (and counted as bad) when it names no forager."""
        name = record.get("forager")
        if not isinstance(name, str) or not name:
            self.bad_snapshots += 1
            return False
        when = parse_time(record.get("time"))
        forager = self._forager(name)
        if when is not None:
            if when not in self.rounds:
                self.rounds = sorted([*self.rounds, when], reverse=True)[:2]
            if forager.last_snapshot is not None and when < forager.last_snapshot:
                return True  # an older line than one already folded
            if forager.first_snapshot is None:
                forager.first_snapshot = when
            forager.last_snapshot = when
        for key in ("sent", "rewarded", "downloaded", "steps", "paths"):
            value = _count(record.get(key))
            if value is not None:
                setattr(forager, key, value)
        if _number(record.get("weight_norm")) is not None:
            forager.weight_norm = float(record["weight_norm"])
        head = record.get("weblog_head")
        if isinstance(head, list):
            first = head[0] if head else None
            if isinstance(first, (list, tuple)) and first and isinstance(first[0], str):
                forager.weblog_head = first[0]
            elif isinstance(first, str):
                forager.weblog_head = first
            else:
                forager.weblog_head = None
        self._value(forager, record, when)
        return True

    def state_of(self, forager: ForagerState) -> str | None:
        """The displayed state: the events' state, or ``ended`` when the snapshots lost it."""
        if forager.state not in (None, ALIVE) or forager.last_snapshot is None:
            return forager.state
        last, rounds = forager.last_snapshot, self.rounds
        if len(rounds) == 2 and last < rounds[1]:  # missing from the two newest rounds
            return ENDED
        if rounds and last < rounds[0] and self.last_stop_time is not None \
                and self.last_stop_time >= rounds[0]:  # from the colony's last round
            return ENDED
        return forager.state if forager.state is not None else ALIVE


class RunMonitor:
    """A run directory followed incrementally: :meth:`poll` folds what was appended."""

    def __init__(self, run_dir: str | Path):
        self.run_dir = Path(run_dir)
        self.events = JsonlFollower(self.run_dir / EVENTS_FILE)
        self.snapshots = JsonlFollower(self.run_dir / SNAPSHOTS_FILE)
        self.state = RunState()

    def poll(self) -> RunState:
        event_records, events_reset = self.events.read()
        snapshot_records, snapshots_reset = self.snapshots.read()
        if events_reset or snapshots_reset:  # a file was rewritten: fold both again
            self.events = JsonlFollower(self.events.path)
            self.snapshots = JsonlFollower(self.snapshots.path)
            self.state = RunState()
            event_records, _ = self.events.read()
            snapshot_records, _ = self.snapshots.read()
        state = self.state
        for record in event_records:
            state.add_event(record)
        for record in snapshot_records:
            state.add_snapshot(record)
        return state

    @property
    def bad_lines(self) -> tuple[int, int]:
        """Bad lines in (events, snapshots): unparsable lines plus records of no forager."""
        return (self.events.bad + self.state.bad_events,
                self.snapshots.bad + self.state.bad_snapshots)

    @property
    def partial_files(self) -> list[str]:
        return [f.path.name for f in (self.events, self.snapshots) if f.partial]


def read_run(run_dir: str | Path) -> RunMonitor:
    """A run directory read once (the monitor keeps its counts of bad and partial lines)."""
    monitor = RunMonitor(run_dir)
    monitor.poll()
    return monitor


# -- the store -------------------------------------------------------------------------------------


@dataclass
class StoreView:
    """What a colony store says per forager: its score, the documents it found, and, for the
    live members of the population, the process each runs in (``host:pid``, as it registered)."""

    scores: dict[str, float] = field(default_factory=dict)
    found: dict[str, int] = field(default_factory=dict)
    total: int = 0
    members: dict[str, str] = field(default_factory=dict)


def read_store(store: ColonyStore, previous: StoreView | None = None) -> StoreView:
    """Read scores and per-forager document counts; documents are counted again only when
    the store's count changed since ``previous`` (they are only ever added)."""
    scores = {str(k): float(v) for k, v in store.scores().items()}
    members = {str(name): str(member.fields.get("process") or "")
               for name, member in store.members(time.time()).items()}
    total = store.document_count()
    if previous is not None and previous.total == total:
        return StoreView(scores, dict(previous.found), total, members)
    found: dict[str, int] = {}
    for document in store.documents():
        found[document.forager] = found.get(document.forager, 0) + 1
    return StoreView(scores, found, total, members)


# -- rows ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusRow:
    forager: str
    parent: str | None = None
    state: str | None = None
    process: str | None = None  # host:pid of a live member (from the store)
    score: float | None = None  # the energy under the energy policy
    sent: int | None = None
    rewarded: int | None = None
    downloaded: int | None = None
    found: int | None = None
    weblog_head: str | None = None
    weight_norm: float | None = None
    age: float | None = None  # seconds

    @property
    def rewarded_per_downloaded(self) -> float | None:
        return _ratio(self.rewarded, self.downloaded)

    @property
    def rewarded_per_sent(self) -> float | None:
        return _ratio(self.rewarded, self.sent)


def _ratio(part: int | None, whole: int | None) -> float | None:
    if part is None or not whole:
        return None
    return part / whole


@dataclass
class StatusReport:
    rows: list[StatusRow]
    value_name: str = "score"  # or "energy"
    has_run: bool = False
    has_store: bool = False
    alive: int | None = None
    splits: int | None = None
    retirements: int | None = None
    teleports: int | None = None
    found: int | None = None  # by the foragers shown (store) or their rewarded sends (run only)
    store_total: int | None = None
    last_event_time: datetime | None = None
    last_sim_time: datetime | None = None
    bad_lines: tuple[int, int] = (0, 0)
    partial_files: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.rows


def build_report(run: RunState | None = None, store: StoreView | None = None, *,
                 now: datetime | None = None, bad_lines: tuple[int, int] = (0, 0),
                 partial_files: Iterable[str] = ()) -> StatusReport:
    """The rows (sorted by forager, f1 before f10) and footer of the status table.

    With a run, the rows are its foragers; with a store as well, their scores, documents found
    and processes come from the store (its scores are newer than the last snapshot). With a
    store only, the rows are the store's foragers, ``alive`` for the live members of the
    population (with their process), without counters or age.
    """
    now = now or datetime.now(UTC)
    energy = run is not None and run.energy_mode
    rows: list[StatusRow] = []
    if run is not None:
        for name, forager in run.foragers.items():
            state = run.state_of(forager)
            if energy:
                value = forager.energy
            elif store is not None and name in store.scores:
                value = store.scores[name]
            else:
                value = forager.score
            rows.append(StatusRow(
                forager=name, parent=forager.parent, state=state, score=value,
                process=(store.members.get(name) or None) if store is not None else None,
                sent=forager.sent, rewarded=forager.rewarded, downloaded=forager.downloaded,
                found=store.found.get(name, 0) if store is not None else None,
                weblog_head=forager.weblog_head, weight_norm=forager.weight_norm,
                age=_age(forager, state, now),
            ))
    elif store is not None:
        for name in set(store.scores) | set(store.found) | set(store.members):
            alive = name in store.members
            rows.append(StatusRow(forager=name, state=ALIVE if alive else None,
                                  process=(store.members[name] or None) if alive else None,
                                  score=store.scores.get(name), found=store.found.get(name, 0)))
    rows.sort(key=lambda row: forager_sort_key(row.forager))
    report = StatusReport(rows, value_name="energy" if energy else "score",
                          has_run=run is not None, has_store=store is not None,
                          bad_lines=tuple(bad_lines), partial_files=tuple(partial_files))
    if run is not None:
        report.alive = sum(1 for row in rows if row.state == ALIVE)
        report.splits, report.retirements = run.splits, run.retirements
        report.teleports = run.teleports
        report.last_event_time, report.last_sim_time = run.last_event_time, run.last_sim_time
    if store is not None:
        report.found = sum(row.found or 0 for row in rows)
        report.store_total = store.total
        if run is None:
            report.alive = len(store.members)
    elif run is not None:
        report.found = sum(row.rewarded or 0 for row in rows)
    return report


def _age(forager: ForagerState, state: str | None, now: datetime) -> float | None:
    born = forager.born or forager.first_snapshot
    if born is None:
        return None
    if state in (RETIRED, STOPPED):
        end = forager.ended_at or forager.last_snapshot or now
    elif state == ENDED:
        end = forager.last_snapshot or now
    else:
        end = now
    return max(0.0, (end - born).total_seconds())


# -- text ------------------------------------------------------------------------------------------


def format_age(seconds: float | None) -> str:
    if seconds is None:
        return NONE
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    if seconds < 86400:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 86400}d{seconds % 86400 // 3600:02d}h"


def format_time(moment: datetime | None) -> str:
    if moment is None:
        return NONE
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _fmt(value: Any, spec: str = "") -> str:
    return NONE if value is None else format(value, spec)


def _percent(value: float | None) -> str:
    return NONE if value is None else f"{100.0 * value:.1f}%"


def format_cells(row: StatusRow) -> list[str]:
    """The row as the strings of :data:`COLUMNS`."""
    return [
        row.forager, row.parent or NONE, row.state or NONE, row.process or NONE,
        _fmt(row.score, ".2f"),
        _fmt(row.sent), _fmt(row.rewarded), _fmt(row.downloaded),
        _percent(row.rewarded_per_downloaded), _percent(row.rewarded_per_sent),
        _fmt(row.found), row.weblog_head or NONE, _fmt(row.weight_norm, ".3f"),
        format_age(row.age),
    ]


def visible_columns(report: StatusReport) -> list[int]:
    """Indices into :data:`COLUMNS` worth showing: with a run all (the process only with a
    store, where members register it), a store's own without."""
    if report.has_run:
        return [i for i, (title, _) in enumerate(COLUMNS) if title != "process" or report.has_store]
    return [i for i, (title, _) in enumerate(COLUMNS) if title in STORE_COLUMNS]


def footer_items(report: StatusReport, now: datetime | None = None) -> list[tuple[str, str]]:
    """``(label, value)`` pairs summing up the colony under the table."""
    now = now or datetime.now(UTC)
    items: list[tuple[str, str]] = []
    if report.has_run:
        items += [("alive", _fmt(report.alive)), ("splits", _fmt(report.splits)),
                  ("retirements", _fmt(report.retirements))]
        if report.teleports:
            items.append(("teleports", str(report.teleports)))
    if report.has_store and not report.has_run:
        items.append(("alive", _fmt(report.alive)))
    if report.has_store:
        found = _fmt(report.found)
        if report.store_total is not None and report.store_total != report.found:
            found += f" (store total {report.store_total})"
        items.append(("found", found))
    elif report.has_run:
        items.append(("found (rewarded)", _fmt(report.found)))
    if report.has_run:
        last = format_time(report.last_event_time)
        if report.last_event_time is not None:
            last += f" ({format_age((now - report.last_event_time).total_seconds())} ago)"
        items += [("last event", last), ("sim time", format_time(report.last_sim_time))]
    return items


def footer_notes(report: StatusReport) -> list[str]:
    """What reading the run skipped: bad lines, a last line still being written."""
    notes = []
    bad_events, bad_snapshots = report.bad_lines
    if bad_events or bad_snapshots:
        notes.append(f"bad lines skipped: {EVENTS_FILE} {bad_events}, "
                     f"{SNAPSHOTS_FILE} {bad_snapshots}")
    if report.partial_files:
        notes.append(f"incomplete last line (not read yet): {', '.join(report.partial_files)}")
    return notes


# -- run directories -------------------------------------------------------------------------------


def is_run_dir(path: Path) -> bool:
    return path.is_dir() and ((path / EVENTS_FILE).is_file() or (path / SNAPSHOTS_FILE).is_file())


def list_runs(base: str | Path = DEFAULT_RUNS_DIR) -> list[Path]:
    """The run directories under ``base``, newest first (by their records' last write)."""
    base = Path(base)
    if not base.is_dir():
        return []
    runs = [path for path in base.iterdir() if is_run_dir(path)]

    def written(path: Path) -> float:
        times = [os.stat(f).st_mtime for f in (path / EVENTS_FILE, path / SNAPSHOTS_FILE)
                 if f.is_file()]
        return max(times, default=path.stat().st_mtime)

    return sorted(runs, key=lambda path: (written(path), path.name), reverse=True)
