"""Files a read-only command may be pointed at by a slip (another program's SQLite database, an
empty file), and what a file is on disk, to tell that a command left it as it was (issue 29)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

# a database file's header, bytes 18 and 19: its journal mode (the read and write versions)
_JOURNAL = {b"\x01\x01": "rollback", b"\x02\x02": "wal"}


def another_programs_database(path: Path) -> Path:
    """An SQLite file in the default (rollback) journal mode with a ``documents`` table of its
    own, ``documents(id, name)``, as some other program keeps."""
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE documents (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        INSERT INTO documents (name) VALUES ('minutes.odt'), ('budget.ods');
    """)
    db.commit()
    db.close()
    return path


def on_disk(path: Path) -> dict:
    """The file's size and digest, its journal mode as its header says, and the files beside it
    whose names start with its own (``-wal``, ``-shm``, ``-journal``, an index)."""
    path = Path(path)
    data = path.read_bytes()
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "journal": _JOURNAL.get(data[18:20], "none"),
            "beside": sorted(p.name for p in path.parent.iterdir()
                             if p != path and p.name.startswith(path.stem))}


def files_that_are_no_store(folder: Path) -> list[tuple[Path, str]]:
    """Another program's database and an empty file in ``folder``, each with the words that
    follow its path when a read-only command refuses it."""
    other = another_programs_database(folder / "other.db")
    empty = folder / "empty.db"
    empty.touch()
    return [(other, "is an SQLite file but no colony store (it has no column documents.url)"),
            (empty, "is no colony store: it is empty (0 bytes)")]
