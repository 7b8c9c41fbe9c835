"""``sqlite:///path``: the embedded default store, one SQLite file (WAL, transactions).

Every write is one transaction, so a crash never leaves a half-made claim; ``BEGIN IMMEDIATE``
makes ``claim`` atomic between processes that share the file. Claims keep their document's
publication time (``expire_claims``) and per-URL records the order they were written in
(``touched``, for the cap); a file from before those columns is upgraded when opened.
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
    document INTEGER NOT NULL REFERENCES documents(id),
    published REAL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scores (forager TEXT PRIMARY KEY, score REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS urls (
    url TEXT PRIMARY KEY, record TEXT NOT NULL, touched INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
"""
# columns added after the first release of the schema: (table, column, declaration)
_ADDED_COLUMNS = (("claims", "published", "REAL"), ("urls", "touched", "INTEGER NOT NULL DEFAULT 0"))
_INDEXES = """
CREATE INDEX IF NOT EXISTS claims_published ON claims(published);
CREATE INDEX IF NOT EXISTS urls_touched ON urls(touched);
"""
# per-URL records written between two counts of the table, at most (the cap may be passed by
# this many, or an eighth of the cap when that is fewer)
_CHECK_EVERY = 256


class SQLiteStore(ColonyStore):
    def __init__(self, path: str | Path, url: str | None = None, url_records_max: int = 0):
        self.path = Path(path)
        self.url = url or f"sqlite:///{self.path}"
        self.url_records_max = url_records_max
        self._puts = 0
        self._check_every = min(_CHECK_EVERY, max(1, url_records_max // 8))
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we open the transactions ourselves
        self._db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        for table, column, declaration in _ADDED_COLUMNS:
            present = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        self._db.executescript(_INDEXES)

    def claim(self, keys: Sequence[str], record: DocumentRecord, published: float | None = None) -> bool:
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
            db.executemany("INSERT OR IGNORE INTO claims (key, document, published) VALUES (?, ?, ?)",
                           [(key, cursor.lastrowid, published) for key in keys])
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def is_claimed(self, key: str) -> bool:
        return self._db.execute("SELECT 1 FROM claims WHERE key = ?", (key,)).fetchone() is not None

    def expire_claims(self, before: float) -> int:
        gone = self._db.execute("DELETE FROM claims WHERE published < ?", (float(before),)).rowcount
        self.expired_claims += gone
        return gone

    def claim_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM claims").fetchone()[0]

    def url_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM urls").fetchone()[0]

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

    def claim_url(self, url: str, record: dict) -> bool:
        return self._write_url(url, record, only_new=True)

    def put_url(self, url: str, record: dict) -> None:
        self._write_url(url, record, only_new=False)

    def _write_url(self, url: str, record: dict, only_new: bool) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT record FROM urls WHERE url = ?", (url,)).fetchone()
            if row is not None and only_new:
                db.execute("ROLLBACK")
                return False
            merged = {**(json.loads(row[0]) if row else {}), **record}
            db.execute("INSERT INTO urls (url, record, touched) "
                       "VALUES (?, ?, (SELECT COALESCE(MAX(touched), 0) + 1 FROM urls)) "
                       "ON CONFLICT(url) DO UPDATE SET record = excluded.record, touched = excluded.touched",
                       (url, json.dumps(merged)))
            self._puts += 1
            if self.url_records_max and self._puts % self._check_every == 0:
                self._evict_urls()
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _evict_urls(self) -> None:
        """Inside put_url's transaction: down to the cap, least recently written first."""
        excess = self.url_count() - self.url_records_max
        if excess > 0:
            self._db.execute("DELETE FROM urls WHERE url IN "
                             "(SELECT url FROM urls ORDER BY touched LIMIT ?)", (excess,))
            self.evicted_urls += excess

    def close(self) -> None:
        self._db.close()
