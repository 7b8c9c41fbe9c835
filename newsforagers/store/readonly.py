"""Reading an SQLite file without writing to it: the store and the index that ``status``,
``export``, ``search``, ``index`` (its store) and the dashboard read.

Those commands are pointed at files a crawl writes or, by a slip, at another program's
database. :func:`connect` opens a file with SQLite's ``mode=ro``: SQLite never creates the
file, and refuses every write on the connection ("attempt to write a readonly database"), so no
schema is made or upgraded and no journal mode is switched. :func:`file_problem` says, before
SQLite is asked, why a path holds no SQLite database at all (empty, another kind of file), and
:func:`glance` opens a file for a first look at what it is.

What SQLite does beside a file in WAL mode, as a crawl keeps its store and index (measured with
SQLite 3.40.1, docs/status.md, *Reading only*): a reader shares the ``-wal`` and ``-shm`` files
of the process writing, and sees each of its transactions once committed. When no process has
the file open those two files are not there, and a ``mode=ro`` reader creates them (an empty
``-wal``, a 32 KB ``-shm``) and leaves them when it closes; the next crawl to open the file uses
them and removes them when it ends. The database file itself is never changed. :func:`glance`
creates neither: without a ``-wal``, a ``-shm`` or a ``-journal`` beside the file, nothing is
writing it and nothing is left to recover, so it is read as ``immutable``.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

#: What SQLite keeps beside a database file while it is written (or after a crash).
SIDECARS = ("-wal", "-shm", "-journal")
_HEADER = b"SQLite format 3\x00"


def sidecars(path: str | Path) -> list[Path]:
    """The files SQLite may keep beside ``path``: its WAL, its shared memory, its rollback journal."""
    return [Path(f"{path}{suffix}") for suffix in SIDECARS]


def file_problem(path: str | Path) -> str | None:
    """None when ``path`` may hold an SQLite database; else why not, as words that follow the
    path in a sentence: ``"does not exist"``, ``"is not a regular file"``, ``"is empty (0
    bytes)"``, ``"is not an SQLite file"``, ``"cannot be read (...)"``. Reads the file's first
    16 bytes (a FIFO or a device is never opened)."""
    path = Path(path)
    if not path.exists():
        return "does not exist"
    if not path.is_file():
        return "is not a regular file"
    try:
        with open(path, "rb") as file:
            header = file.read(len(_HEADER))
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not header:
        return "is empty (0 bytes)"
    if header != _HEADER:
        return "is not an SQLite file"
    return None


def connect(path: str | Path, *, timeout: float = 30.0, check_same_thread: bool = True,
            immutable: bool = False) -> sqlite3.Connection:
    """A read-only connection to the database in ``path`` (which must exist: SQLite is told
    never to create it). ``immutable``: the file is read as one that nobody changes (no lock, no
    ``-wal`` or ``-shm`` opened or made). A file in WAL mode that has neither beside it, in a
    folder this user may not write, cannot be read (SQLite needs to make the ``-shm``): the
    :class:`sqlite3.OperationalError` then says so."""
    uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro" + ("&immutable=1" if immutable else "")
    # isolation_level=None: no transaction is ever opened on the reader's behalf
    db = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None,
                         check_same_thread=check_same_thread)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the file now
    except sqlite3.OperationalError as exc:
        db.close()
        folder = Path(os.path.abspath(path)).parent
        if "readonly" in str(exc) and not any(p.exists() for p in sidecars(path)) and not os.access(folder, os.W_OK):
            raise sqlite3.OperationalError(
                f"{exc}: SQLite reads a file in WAL mode through a {Path(path).name}-shm file beside "
                f"it, which no crawl has open now and this user may not create in {folder}; read "
                "it while its crawl runs, or as a user who may write there") from None
        raise
    return db


def glance(path: str | Path) -> sqlite3.Connection:
    """A read-only connection for a first look at ``path`` (its tables, a format row), which
    creates no file beside it: read as immutable when nothing is writing it (no ``-wal``,
    ``-shm`` or ``-journal`` beside it). Close it after the look: an immutable reader would not
    see later writes."""
    return connect(path, immutable=not any(p.exists() for p in sidecars(path)))


def tables(db: sqlite3.Connection, schema: str = "main") -> dict[str, set[str]]:
    """The tables of ``schema`` and the names of their columns."""
    names = [row[0] for row in db.execute(f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table'")]
    return {name: {row[0] for row in db.execute("SELECT name FROM pragma_table_info(?, ?)", (name, schema))}
            for name in names}
