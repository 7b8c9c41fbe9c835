"""Where the dashboard reads: a colony store, a document index, a run directory.

Each request opens what it reads and closes it when done (a SQLite connection belongs to the
thread that opened it, and the server answers each request in a thread of its own). Nothing is
opened when the application is built: a source that does not exist yet — a crawl about to
start — is a notice on the page, and the page works as soon as the source appears.
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from newsforagers import defaults
from newsforagers.colony.status import DEFAULT_RUNS_DIR, list_runs

T = TypeVar("T")


class SourceUnavailable(Exception):
    """A source the page needs is not given, not there (yet), or cannot be read: the message
    says which and what to do, and is shown on the page."""


class SourceBusy(SourceUnavailable):
    """A source that is there but could not be read just now (SQLite busy, a Redis server
    restarting): worth asking again (:func:`read_again`)."""


#: How many times, and how many seconds apart, a page's read of a busy source is made before
#: the page says it is unavailable (a crawl writing the store at full speed: measured once in
#: a CI run under load, an /api/latest that found the store unreadable for a moment).
READ_TRIES = 3
READ_PAUSE = 0.2


def read_again(read: Callable[[], T], tries: int = READ_TRIES, pause: float = READ_PAUSE) -> T:
    """``read()``, made again up to ``tries`` times in all, ``pause`` seconds apart, while its
    source is busy (:class:`SourceBusy`); any other :class:`SourceUnavailable` at once."""
    for attempt in range(1, tries + 1):
        try:
            return read()
        except SourceBusy:
            if attempt >= tries:
                raise
            time.sleep(pause)
    raise ValueError(f"tries ({tries!r}) must be at least 1.")


@dataclass(frozen=True)
class Sources:
    """The dashboard's sources. ``run_dir`` None: the newest run under ``runs_base`` (looked
    up again at each request, so a colony started after the dashboard is found)."""

    store_url: str | None = None
    prefix: str = defaults.FORAGERS_REDIS_PREFIX
    index_path: Path | None = None
    run_dir: Path | None = None
    runs_base: Path = DEFAULT_RUNS_DIR
    password_file: str = ""  # a redis:// store's password file (newsforagers/store/secrets.py)

    @property
    def store_label(self) -> str | None:
        if self.store_url is None:
            return None
        from newsforagers.store.base import mask_password

        return mask_password(self.store_url)

    @contextmanager
    def store(self) -> Iterator:
        """The colony store, opened for this request and closed after it."""
        from newsforagers.store import NotAStore, StoreUnavailable, open_existing_store

        if self.store_url is None:
            raise SourceUnavailable("no colony store given (start the dashboard with --store URL)")
        try:
            # read-only: the dashboard never creates, upgrades or writes a store
            store = open_existing_store(self.store_url, prefix=self.prefix, password_file=self.password_file)
        except NotAStore as exc:  # a crawl will not make it one: no "not there yet"
            raise SourceUnavailable(str(exc)) from None
        except ValueError as exc:
            raise SourceUnavailable(f"{exc} (the colony creates it when its crawl starts)") from None
        try:
            yield store
        except (sqlite3.Error, StoreUnavailable) as exc:
            # busy or locked for a moment, or a Redis server restarting: the next poll retries
            raise SourceBusy(f"cannot read store {self.store_label}: {exc}") from None
        finally:
            store.close()

    @contextmanager
    def index(self) -> Iterator:
        """The document index, opened for this request and closed after it."""
        if self.index_path is None:
            raise SourceUnavailable("no document index given (start the dashboard with --index "
                                    "PATH, or --store URL for the index the colony keeps beside it)")
        if not Path(self.index_path).exists():
            raise SourceUnavailable(f"no document index at {self.index_path} yet (the colony "
                                    "writes it beside its store as it pays for documents)")
        from newsforagers.index import DocumentIndex, IndexBroken

        try:
            with DocumentIndex(self.index_path, read_only=True) as index:
                yield index
        except IndexBroken as exc:
            raise SourceUnavailable(str(exc)) from None
        except sqlite3.Error as exc:
            raise SourceBusy(f"cannot read the document index at {self.index_path}: "
                                    f"{exc}") from None

    def current_run(self) -> Path | None:
        """The run directory to show: ``run_dir``, or the newest under ``runs_base``."""
        if self.run_dir is not None:
            return Path(self.run_dir)
        runs = list_runs(self.runs_base)
        return runs[0] if runs else None
