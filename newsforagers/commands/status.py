"""``newsforagers status [--run RUN_DIR] [--store STORE [--prefix P]] [--live] [--interval S]``: a colony's foragers.

One row per forager of a run directory (its ``events.jsonl`` and ``snapshots.jsonl``, see
:mod:`newsforagers.colony.status`) and/or a colony store: state, score, counters, efficiency,
documents found, weblog head, weight norm, age; a footer sums the colony up. The run and the
store are named as every command names them (:mod:`~newsforagers.commands.arguments`). Given
neither, the command reads what a crawl with the default settings writes: the newest run under
``.newsforagers/runs/`` and the default store, each when it is there (one of them must be).
Given one, it reads that one alone: a run and a store are shown together only when they are
the pair a crawl wrote, or when both are named. ``RUN_DIR`` as an argument (the old spelling) is
still read, with a note that it is deprecated. ``--live`` redraws the table every
``--interval`` seconds until Ctrl-C. It needs the ``[status]`` extra (``rich``); without it,
one line says so before anything is read. Exit status: 0, or 2 when the run directory or the
store cannot be read or rich is missing.
"""

from __future__ import annotations

import argparse
import sys

from newsforagers import defaults
from newsforagers.commands.arguments import (
    DEFAULT_STORE,
    RUNS_DIR,
    add_run_argument,
    add_store_arguments,
    positive,
    runs_newest_first,
    store_file,
    store_options,
)

HELP = "show a colony's foragers (scores, documents found, efficiency)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_argument(parser, help="the run directory to show",
                     default_note=", unless --store alone is given")
    parser.add_argument("run_dir", nargs="?", metavar="RUN_DIR",
                        help="deprecated: the same as --run RUN_DIR")
    add_store_arguments(parser, help="read scores and documents found per forager from this colony "
                        "store, instead of or in addition to the run",
                        default_note=", read when it is there unless --run alone is given")
    parser.add_argument("--live", action="store_true",
                        help="redraw the table every --interval seconds until Ctrl-C")
    parser.add_argument("--interval", type=positive, default=2.0, metavar="S",
                        help="seconds between two redraws with --live (default 2)")


class _Failure(Exception):
    """A one-line error: the command prints it and exits with status 2."""


def _error(message: str) -> int:
    print(f"newsforagers status: {message}", file=sys.stderr)
    return 2


def _open_store(url: str, prefix: str = defaults.FORAGERS_REDIS_PREFIX, password_file: str = ""):
    from newsforagers.store import open_existing_store

    try:
        return open_existing_store(url, prefix=prefix, password_file=password_file)
    except ValueError as exc:
        raise _Failure(str(exc)) from None


def _default_console():
    import os

    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        # a file or a pipe: wide enough for every column instead of rich's 80
        console = Console(highlight=False, width=180)
    return console


class _View:
    """The sources of one status command and the renderable they make."""

    def __init__(self, run_dir, store, store_url: str | None, note: str | None, live: bool,
                 interval: float):
        from newsforagers.colony.status import RunMonitor

        self.monitor = RunMonitor(run_dir) if run_dir is not None else None
        self.store = store
        self.store_url = store_url
        self.store_view = None
        self.store_error: str | None = None
        self.note = note
        self.live = live
        self.interval = interval

    def report(self):
        from datetime import UTC, datetime

        from newsforagers.colony.status import build_report, read_store

        now = datetime.now(UTC)
        run = self.monitor.poll() if self.monitor is not None else None
        if self.store is not None:
            import sqlite3

            from newsforagers.store import StoreUnavailable

            try:
                self.store_view = read_store(self.store, self.store_view)
                self.store_error = None
            except (sqlite3.Error, StoreUnavailable) as exc:
                # busy or locked for a moment, or a Redis server restarting: keep the last view
                self.store_error = str(exc)
                if self.store_view is None:
                    raise _Failure(f"cannot read store {self.store_url}: {exc}") from None
        report = build_report(
            run, self.store_view, now=now,
            bad_lines=self.monitor.bad_lines if self.monitor is not None else (0, 0),
            partial_files=self.monitor.partial_files if self.monitor is not None else (),
        )
        return report, now

    def renderable(self, console):
        from rich.console import Group
        from rich.text import Text

        from newsforagers.colony.status import COLUMNS, footer_items, footer_notes, visible_columns

        report, now = self.report()
        sources = []
        if self.monitor is not None:
            sources.append(f"run {self.monitor.run_dir}")
        if self.store_url is not None:
            sources.append(f"store {self.store_url}")
        header = " · ".join(sources)
        if self.live:
            header += (f" · updated {now:%H:%M:%S} UTC, every {self.interval:g}s "
                       "(Ctrl-C to quit)")
        parts = []
        if self.note:
            parts.append(Text(self.note))
        parts.append(Text(header, style="bold"))
        if self.store_error:
            parts.append(Text(f"store not read this time ({self.store_error}); showing the last "
                              "read", style="yellow"))
        if report.empty:
            if self.monitor is not None:
                parts.append(Text(f"no events yet in {self.monitor.events.path} (the colony has "
                                  "not started, or FORAGERS_EVENTS put them elsewhere)"))
            else:
                parts.append(Text("the store has no foragers yet"))
            return Group(*parts), report
        from rich.measure import Measurement

        shown = visible_columns(report)
        table = _table(report, shown)
        wide = console.options.update(width=10_000)  # measured unclamped by the screen
        hidden = []
        # a narrow screen: a shorter weblog head, then fewer columns, rather than cropped numbers
        if Measurement.get(console, wide, table).maximum > console.width:
            table = _table(report, shown, head_width=24)
        for title in _GIVE_WAY:
            if Measurement.get(console, wide, table).maximum <= console.width:
                break
            index = next((i for i in shown if COLUMNS[i][0] == title), None)
            if index is not None and len(shown) > 1:
                shown = [i for i in shown if i != index]
                hidden.append(title)
                table = _table(report, shown, head_width=24)
        parts.append(table)
        footer = "  ".join(f"{label}: {value}" for label, value in footer_items(report, now))
        parts.append(Text(footer))
        notes = footer_notes(report)
        if notes:
            parts.append(Text("; ".join(notes), style="yellow"))
        if hidden:
            parts.append(Text(f"too narrow for: {', '.join(hidden)}", style="dim"))
        return Group(*parts), report


# the columns dropped, in this order, when the table is wider than the screen
_GIVE_WAY = ("weblog head", "|w|", "parent", "rew/sent", "age", "downloaded")


def _table(report, shown: list[int], head_width: int = 48):
    from rich.table import Table
    from rich.text import Text

    from newsforagers.colony.status import COLUMNS, format_cells
    from newsforagers.terminal import printable

    table = Table(header_style="bold")
    for title, justify in (COLUMNS[i] for i in shown):
        if title == "score":
            title = report.value_name
        if title == "weblog head":
            table.add_column(title, justify=justify, no_wrap=True, overflow="ellipsis",
                             max_width=head_width)
        else:
            table.add_column(title, justify=justify, no_wrap=True)
    state_styles = {"alive": "green", "retired": "yellow", "stopped": "dim", "ended": "red"}
    for row in report.rows:
        # what foragers report comes from pages (a weblog head is a URL): as Text, no markup is
        # read in it ([link=...]), and printable, no control character reaches the terminal
        cells: list = [Text(printable(cell)) for cell in format_cells(row)]
        style = state_styles.get(row.state or "")
        if style:
            cells[2].style = style
        table.add_row(*(cells[i] for i in shown))
    return table


def _resolve(args) -> tuple[object, str | None, str | None]:
    """The run directory (or None), the store's URL (or None) and a note on how they were
    picked."""
    from pathlib import Path

    if args.run and args.run_dir:
        raise _Failure("give the run directory once: --run RUN_DIR (RUN_DIR alone is its old, "
                       "deprecated spelling)")
    named = args.run or args.run_dir
    run_dir = None
    if named:
        run_dir = Path(named)
        if not run_dir.exists():
            raise _Failure(f"no run directory at {run_dir}")
        if not run_dir.is_dir():
            raise _Failure(f"{run_dir} is not a directory (give a run directory, which holds "
                           "events.jsonl)")
    if named or args.store:
        return run_dir, args.store, None
    # neither named: the newest run and the default store, what a crawl with the default
    # settings writes (each only when it is there)
    runs = runs_newest_first()
    default = store_file(DEFAULT_STORE)
    store = DEFAULT_STORE if default is not None and default.is_file() else None
    if not runs and store is None:
        raise _Failure(f"no run under {RUNS_DIR}/ and no store at {default} (give --run RUN_DIR "
                       "or --store STORE)")
    if not runs:
        return None, store, f"no run under {RUNS_DIR}/: showing the default store alone"
    others = f" of {len(runs)}" if len(runs) > 1 else ""
    note = f"showing the newest run{others} under {RUNS_DIR}/: {runs[0].name}"
    return runs[0], store, note + (" (and the default store)" if store else "")


def run(args, *, console=None, sleep=None, max_refreshes: int | None = None) -> int:
    """``console``, ``sleep`` and ``max_refreshes`` (redraws before returning, with --live)
    are for tests."""
    import time

    from newsforagers.cli import missing_extra

    # rich is an optional dependency (the [status] extra): checked before anything is read
    problem = missing_extra("rich", "status")
    if problem:
        return _error(f"the table needs rich, and {problem}")
    try:
        run_dir, store_url, note = _resolve(args)
        store = _open_store(store_url, **store_options(args)) if store_url else None
    except _Failure as exc:
        return _error(str(exc))
    if args.run_dir:
        print(f"newsforagers status: RUN_DIR as an argument is deprecated: give --run {args.run_dir}",
              file=sys.stderr)
    console = console or _default_console()
    sleep = sleep or time.sleep
    view = _View(run_dir, store, store.safe_url if store is not None else None, note, args.live,
                 args.interval)
    try:
        if not args.live:
            renderable, _ = view.renderable(console)
            console.print(renderable)
            return 0
        return _live(view, console, args.interval, sleep, max_refreshes)
    except _Failure as exc:
        return _error(str(exc))
    except OSError as exc:  # a record file that cannot be read (permissions, a disk error)
        return _error(f"cannot read {exc.filename or 'the run'}: {exc.strerror or exc}")
    finally:
        if store is not None:
            store.close()


def _live(view: _View, console, interval: float, sleep, max_refreshes: int | None) -> int:
    from rich.live import Live

    renderable, _ = view.renderable(console)
    refreshes = 0
    try:
        with Live(renderable, console=console, auto_refresh=False, redirect_stdout=False,
                  redirect_stderr=False) as live:
            while max_refreshes is None or refreshes < max_refreshes:
                sleep(interval)
                renderable, _ = view.renderable(console)
                live.update(renderable, refresh=True)
                refreshes += 1
    except KeyboardInterrupt:
        pass
    return 0
