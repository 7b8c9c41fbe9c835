"""``sqlite:///path``: the embedded default store, one SQLite file (WAL, transactions).

Every write is one transaction, so a crash never leaves a half-made claim; ``BEGIN IMMEDIATE``
makes ``claim`` atomic between processes that share the file.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Iterator, Sequence

from newsforagers.store.base import ColonyStore, DocumentRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    url TEXT NOT NULL, title TEXT NOT NULL, published TEXT NOT NULL,
    found_at TEXT NOT NULL, forager TEXT NOT NULL, reward REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    document INTEGER NOT NULL REFERENCES documents(id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scores (forager TEXT PRIMARY KEY, score REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS urls (url TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID;
"""


class SQLiteStore(ColonyStore):
    def __init__(self, path: str | Path, url: str | None = None):
        self.path = Path(path)
        self.url = url or f"sqlite:///{self.path}"
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we open the transactions ourselves
        self._db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def claim(self, keys: Sequence[str], record: DocumentRecord) -> bool:
        if not keys:
            raise ValueError("a claim needs at least one key.")
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            marks = ",".join("?" * len(keys))
            taken = db.execute(f"SELECT 1 FROM claims WHERE key IN ({marks}) LIMIT 1", list(keys)).fetchone()
            if taken:
                db.execute("ROLLBACK")
                return False
            cursor = db.execute(
                "INSERT INTO documents (url, title, published, found_at, forager, reward) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (record.url, record.title, record.published, record.found_at, record.forager,
                 float(record.reward)),
            )
            db.executemany("INSERT OR IGNORE INTO claims (key, document) VALUES (?, ?)",
                           [(key, cursor.lastrowid) for key in keys])
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def is_claimed(self, key: str) -> bool:
        return self._db.execute("SELECT 1 FROM claims WHERE key = ?", (key,)).fetchone() is not None

    def documents(self) -> Iterator[DocumentRecord]:
        rows = self._db.execute(
            "SELECT url, title, published, found_at, forager, reward FROM documents ORDER BY id"
        ).fetchall()
        return (DocumentRecord(*row) for row in rows)

    def document_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM documents").fetchone()[0]

    def get_score(self, forager: str) -> float | None:
        row = self._db.execute("SELECT score FROM scores WHERE forager = ?", (forager,)).fetchone()
        return None if row is None else row[0]

    def set_score(self, forager: str, score: float) -> None:
        self._db.execute("INSERT INTO scores (forager, score) VALUES (?, ?) "
                         "ON CONFLICT(forager) DO UPDATE SET score = excluded.score",
                         (forager, float(score)))

    def add_score(self, forager: str, delta: float) -> float:
        row = self._db.execute("UPDATE scores SET score = score + ? WHERE forager = ? RETURNING score",
                               (float(delta), forager)).fetchone()
        if row is None:
            raise KeyError(f"forager {forager!r} has no score in the store.")
        return row[0]

    def scores(self) -> dict[str, float]:
        return dict(self._db.execute("SELECT forager, score FROM scores").fetchall())

    def get_url(self, url: str) -> dict | None:
        row = self._db.execute("SELECT record FROM urls WHERE url = ?", (url,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put_url(self, url: str, record: dict) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT record FROM urls WHERE url = ?", (url,)).fetchone()
            merged = {**(json.loads(row[0]) if row else {}), **record}
            db.execute("INSERT INTO urls (url, record) VALUES (?, ?) "
                       "ON CONFLICT(url) DO UPDATE SET record = excluded.record",
                       (url, json.dumps(merged)))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()
