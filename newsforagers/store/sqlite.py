"""``sqlite:///path``: the embedded default store, one SQLite file (WAL, transactions).

Every write is one transaction, so a crash never leaves a half-made claim; ``BEGIN IMMEDIATE``
makes ``claim`` atomic between processes that share the file. ``claim_urls`` claims a page's
links in one transaction (not one per link). Claims keep
their document's publication time (``expire_claims``) and per-URL records the order they were
written in (``touched``, for the cap); a file from before those columns is upgraded when opened,
and gains the tables added since (``CREATE TABLE IF NOT EXISTS``). Host budgets read ``clock``
(``time.time``: the processes sharing a file share a machine, and its clock).

``SQLiteStore(path, read_only=True)`` is the store as ``status``, ``export``, ``index`` and the
dashboard read it (:func:`~newsforagers.store.open_existing_store`): opened with SQLite's
``mode=ro`` (:mod:`newsforagers.store.readonly`), never created, upgraded or switched to WAL,
every write refused by SQLite; a file that is no colony store is refused (:class:`NotAStore`).
A store an older version wrote is read as it is: what was added since reads as empty.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from newsforagers.store import readonly, records
from newsforagers.store.base import (
    ColonyStore,
    DocumentRecord,
    Member,
    Output,
    start_wait,
    with_settled_start,
    with_start,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    url TEXT NOT NULL, title TEXT NOT NULL, published TEXT NOT NULL,
    found_at TEXT NOT NULL, forager TEXT NOT NULL, reward REAL NOT NULL,
    text TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    keywords TEXT NOT NULL DEFAULT '[]', authors TEXT NOT NULL DEFAULT '[]',
    site_name TEXT NOT NULL DEFAULT '', html TEXT NOT NULL DEFAULT '',
    language TEXT NOT NULL DEFAULT '',
    relevance REAL
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
CREATE TABLE IF NOT EXISTS members (
    name TEXT PRIMARY KEY, lease REAL NOT NULL, fields TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS shared (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outputs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, host TEXT NOT NULL, forager TEXT NOT NULL, item TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS host_budget (
    host TEXT PRIMARY KEY, starts TEXT NOT NULL DEFAULT '[]', pause_until REAL NOT NULL DEFAULT 0
) WITHOUT ROWID;
"""
# columns added after the first release of the schema: (table, column, declaration)
_ADDED_COLUMNS = (("claims", "published", "REAL"), ("urls", "touched", "INTEGER NOT NULL DEFAULT 0"),
                  ("documents", "text", "TEXT NOT NULL DEFAULT ''"),
                  ("documents", "description", "TEXT NOT NULL DEFAULT ''"),
                  ("documents", "keywords", "TEXT NOT NULL DEFAULT '[]'"),
                  ("documents", "authors", "TEXT NOT NULL DEFAULT '[]'"),
                  ("documents", "site_name", "TEXT NOT NULL DEFAULT ''"),
                  ("documents", "html", "TEXT NOT NULL DEFAULT ''"),
                  ("documents", "language", "TEXT NOT NULL DEFAULT ''"),
                  ("documents", "relevance", "REAL"))
_INDEXES = """
CREATE INDEX IF NOT EXISTS claims_published ON claims(published);
CREATE INDEX IF NOT EXISTS urls_touched ON urls(touched);
"""
_DOCUMENT = ("url, title, published, found_at, forager, reward, text, description, keywords, "
             "authors, site_name, html, language, relevance")
# per-URL records written between two counts of the table, at most (the cap may be passed by
# this many, or an eighth of the cap when that is fewer)
_CHECK_EVERY = 256
# URLs looked up per SELECT ... IN (...): below SQLite's smallest limit on a statement's
# parameters (999 before SQLite 3.32)
_IN_BATCH = 500
#: Members whose decoded fields are kept (SQLiteStore._member_fields): more than a colony has.
_MEMBERS_READ = 4_096


def _has_json_functions(db: sqlite3.Connection) -> bool:
    """Whether this SQLite has its JSON functions (built in since 3.38; before, an extension
    most builds compile in): URL records are then updated in SQL (:meth:`SQLiteStore.write_url_records`)."""
    try:
        return db.execute("""SELECT json_set(json_patch('{"a": 1}', '{"b": 2}'), '$.c', 3)""").fetchone()[0] \
            == '{"a":1,"b":2,"c":3}'
    except sqlite3.OperationalError:  # no such function
        return False


def _writes(method):
    """A method that writes to the store: refused by a read-only store before SQLite is asked
    (which would refuse it too, in words that depend on the file's version)."""

    @functools.wraps(method)
    def write(self, *args, **kwargs):
        if self.read_only:
            raise sqlite3.OperationalError(f"attempt to write a readonly database: {self.path} is "
                                           f"open read-only ({method.__name__})")
        return method(self, *args, **kwargs)

    return write


class NotAStore(ValueError):
    """A file that holds no colony store (empty, not SQLite, another program's database): the
    message names the file and says what it is instead."""


class SQLiteStore(ColonyStore):
    """The store in the SQLite file ``path``, made or upgraded when opened; with ``read_only``,
    a store that must already be there, read without writing (the module's docstring)."""

    def __init__(self, path: str | Path, url: str | None = None, url_records_max: int = 0,
                 clock: Callable[[], float] = time.time, *, read_only: bool = False):
        self.path = Path(path)
        self.url = url or f"sqlite:///{self.path}"
        self.url_records_max = url_records_max
        self.clock = clock
        self.read_only = read_only
        self._puts = 0
        self._check_every = min(_CHECK_EVERY, max(1, url_records_max // 8))
        self._json_in_sql = False
        self._members_read: dict[str, tuple[str, dict]] = {}  # name -> (fields' text, decoded)
        if read_only:
            self._db = _open_read_only(self.path)
            return
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we open the transactions ourselves
        self._db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._json_in_sql = _has_json_functions(self._db)
        self._db.executescript(_SCHEMA)
        for table, column, declaration in _ADDED_COLUMNS:
            present = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        self._db.executescript(_INDEXES)

    @_writes
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
                f"INSERT INTO documents ({_DOCUMENT}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (record.url, record.title, record.published, record.found_at, record.forager,
                 float(record.reward), record.text or "", record.description or "",
                 json.dumps(list(record.keywords)), json.dumps(list(record.authors)),
                 record.site_name or "", record.html or "", record.language or "", record.relevance),
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

    @_writes
    def expire_claims(self, before: float) -> int:
        gone = self._db.execute("DELETE FROM claims WHERE published < ?", (float(before),)).rowcount
        self.expired_claims += gone
        return gone

    def claim_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM claims").fetchone()[0]

    def url_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM urls").fetchone()[0]

    def documents(self) -> Iterator[DocumentRecord]:
        rows = self._db.execute(f"SELECT {_DOCUMENT} FROM documents ORDER BY id").fetchall()
        return (_document(row) for row in rows)

    def documents_after(self, position: int, limit: int = 0) -> list[DocumentRecord]:
        # ids are 1, 2, 3...: documents are never deleted, and a claim rolled back gives its
        # AUTOINCREMENT number back (the sequence is written in the same transaction)
        rows = self._db.execute(f"SELECT {_DOCUMENT} FROM documents WHERE id > ? ORDER BY id LIMIT ?",
                                (max(0, int(position)), int(limit) if limit else -1)).fetchall()
        return [_document(row) for row in rows]

    # -- the output ----------------------------------------------------------------------------

    @_writes
    def add_output(self, item: dict, host: str, forager: str) -> None:
        self._db.execute("INSERT INTO outputs (host, forager, item) VALUES (?, ?, ?)",
                         (host, forager, json.dumps(item, ensure_ascii=False)))

    def outputs_after(self, position: int, limit: int = 0) -> list[Output]:
        # ids are 1, 2, 3...: outputs are never deleted, each insert is its own transaction
        rows = self._db.execute("SELECT id, host, forager, item FROM outputs WHERE id > ? ORDER BY id LIMIT ?",
                                (max(0, int(position)), int(limit) if limit else -1)).fetchall()
        return [Output(row[0], row[1], row[2], json.loads(row[3])) for row in rows]

    def output_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM outputs").fetchone()[0]

    # -- the population ------------------------------------------------------------------------

    @_writes
    def join(self, name: str, lease: float, now: float, max_members: int = 0,
             fields: dict | None = None) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            # members whose lease ran out are counted out: their places can be taken
            db.execute("DELETE FROM members WHERE lease <= ?", (float(now),))
            row = db.execute("SELECT fields FROM members WHERE name = ?", (name,)).fetchone()
            if row is None and max_members:
                others = db.execute("SELECT COUNT(*) FROM members").fetchone()[0]
                if others >= max_members:
                    db.execute("ROLLBACK")
                    return False
            merged = {**(json.loads(row[0]) if row else {}), **(fields or {})}
            db.execute("INSERT INTO members (name, lease, fields) VALUES (?, ?, ?) "
                       "ON CONFLICT(name) DO UPDATE SET lease = excluded.lease, fields = excluded.fields",
                       (name, float(lease), json.dumps(merged)))
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @_writes
    def renew(self, name: str, lease: float) -> bool:
        return self._db.execute("UPDATE members SET lease = ? WHERE name = ?",
                                (float(lease), name)).rowcount > 0

    @_writes
    def leave(self, name: str, now: float, min_members: int = 0) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            live = {row[0] for row in db.execute("SELECT name FROM members WHERE lease > ?", (float(now),))}
            if name in live and min_members and len(live) <= min_members:
                db.execute("ROLLBACK")
                return False
            db.execute("DELETE FROM members WHERE name = ?", (name,))
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def members(self, now: float) -> dict[str, Member]:
        rows = self._db.execute("SELECT name, lease, fields FROM members WHERE lease > ? ORDER BY name",
                                (float(now),)).fetchall()
        return {name: Member(name, lease, self._member_fields(name, fields)) for name, lease, fields in rows}

    def _member_fields(self, name: str, text: str) -> dict:
        # A member's fields decoded once for each text they are stored as: a colony's foragers
        # read every member's (their listing demand per host, thousands of hosts) four times a
        # second, and a member's change a few times a minute. (The fields are the store's
        # reading, as every reader of members() takes them: not to be changed.)
        known = self._members_read.get(name)
        if known is not None and known[0] == text:
            return known[1]
        if len(self._members_read) >= _MEMBERS_READ:
            self._members_read.clear()
        fields = json.loads(text)
        self._members_read[name] = (text, fields)
        return fields

    @_writes
    def update_member(self, name: str, fields: dict) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT fields FROM members WHERE name = ?", (name,)).fetchone()
            if row is not None:
                db.execute("UPDATE members SET fields = ? WHERE name = ?",
                           (json.dumps({**json.loads(row[0]), **fields}), name))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def is_member(self, name: str, now: float) -> bool:
        return self._db.execute("SELECT 1 FROM members WHERE name = ? AND lease > ?",
                                (name, float(now))).fetchone() is not None

    # -- host budgets ---------------------------------------------------------------------------

    @_writes
    def reserve_start(self, host: str, capacity: int, window: float, spacing: float) -> float:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            # read inside the transaction: another process's start is either before or after
            now = self.clock()
            row = db.execute("SELECT starts, pause_until FROM host_budget WHERE host = ?", (host,)).fetchone()
            starts, pause_until = (json.loads(row[0]), row[1]) if row else ([], 0.0)
            wait = start_wait(starts, pause_until, now, capacity, window, spacing)
            if wait > 0:
                db.execute("ROLLBACK")
                return wait
            db.execute("INSERT INTO host_budget (host, starts) VALUES (?, ?) "
                       "ON CONFLICT(host) DO UPDATE SET starts = excluded.starts",
                       (host, json.dumps(with_start(starts, now, capacity, window))))
            db.execute("COMMIT")
            return 0.0
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @_writes
    def settle_start(self, host: str) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            now = self.clock()
            row = db.execute("SELECT starts FROM host_budget WHERE host = ?", (host,)).fetchone()
            if row is not None:
                db.execute("UPDATE host_budget SET starts = ? WHERE host = ?",
                           (json.dumps(with_settled_start(json.loads(row[0]), now)), host))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @_writes
    def pause_host(self, host: str, seconds: float) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            until = self.clock() + float(seconds)
            db.execute("INSERT INTO host_budget (host, pause_until) VALUES (?, ?) "
                       "ON CONFLICT(host) DO UPDATE SET pause_until = MAX(pause_until, excluded.pause_until)",
                       (host, until))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # -- shared readings ----------------------------------------------------------------------------

    @_writes
    def put_value(self, key: str, value: dict) -> None:
        self._db.execute("INSERT INTO shared (key, value) VALUES (?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, json.dumps(value)))

    def get_value(self, key: str) -> dict | None:
        row = self._db.execute("SELECT value FROM shared WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    @_writes
    def delete_value(self, key: str) -> None:
        self._db.execute("DELETE FROM shared WHERE key = ?", (key,))

    @_writes
    def swap_value(self, key: str, expected: dict | None, value: dict | None) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT value FROM shared WHERE key = ?", (key,)).fetchone()
            if (None if row is None else json.loads(row[0])) != expected:
                db.execute("ROLLBACK")
                return False
            if value is None:
                db.execute("DELETE FROM shared WHERE key = ?", (key,))
            else:
                db.execute("INSERT INTO shared (key, value) VALUES (?, ?) "
                           "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, json.dumps(value)))
            db.execute("COMMIT")
            return True
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def document_count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM documents").fetchone()[0]

    def get_score(self, forager: str) -> float | None:
        row = self._db.execute("SELECT score FROM scores WHERE forager = ?", (forager,)).fetchone()
        return None if row is None else row[0]

    @_writes
    def set_score(self, forager: str, score: float) -> None:
        self._db.execute("INSERT INTO scores (forager, score) VALUES (?, ?) "
                         "ON CONFLICT(forager) DO UPDATE SET score = excluded.score",
                         (forager, float(score)))

    @_writes
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

    @_writes
    def claim_url(self, url: str, record: dict) -> bool:
        return self._write_url(url, record, only_new=True)

    @_writes
    def claim_urls(self, urls: Iterable[str], record: dict) -> list[str]:
        """One transaction, and the same outcome as :meth:`claim_url` for each URL in turn:
        the same records in the same write order, the table counted down to the cap after the
        same writes, the same evictions (a URL evicted by this batch's writes is claimed again
        when it comes later in it, as one by one), and no other process's write in between."""
        urls = list(dict.fromkeys(urls))
        if not urls:
            return []
        text = json.dumps(record)
        db = self._db
        puts, evicted = self._puts, self.evicted_urls
        db.execute("BEGIN IMMEDIATE")
        try:
            taken = {row[0] for row in self._urls_among(urls, "url")}
            touched = db.execute("SELECT COALESCE(MAX(touched), 0) FROM urls").fetchone()[0]
            # The table is counted at the batch's first check only (a count reads the whole
            # table: at every batch it cost as much as the rest of the claim on a long crawl),
            # then kept up to date: nobody else writes during the transaction (one by one
            # counts the table at each check). Rows not written yet count too.
            count: int | None = None
            insert = "INSERT INTO urls (url, record, touched) VALUES (?, ?, ?)"
            claimed: list[str] = []
            rows: list[tuple[str, str, int]] = []
            for url in urls:
                if url in taken:
                    continue
                touched += 1
                rows.append((url, text, touched))
                claimed.append(url)
                if count is not None:
                    count += 1
                self._puts += 1
                if self.url_records_max and self._puts % self._check_every == 0:
                    if count is None:
                        count = self.url_count() + len(rows)
                    if count > self.url_records_max:
                        db.executemany(insert, rows)
                        rows = []
                        gone = self._evict_oldest(count - self.url_records_max)
                        count -= len(gone)
                        taken.difference_update(gone)
            db.executemany(insert, rows)
            db.execute("COMMIT")
            return claimed
        except BaseException:
            db.execute("ROLLBACK")
            self._puts, self.evicted_urls = puts, evicted
            raise

    @_writes
    def put_url(self, url: str, record: dict) -> None:
        self._write_url(url, record, only_new=False)

    @_writes
    def write_url_records(self, writes: Sequence[records.Write]) -> int:
        """One transaction: the writes applied (by SQLite's JSON functions where it has them,
        :meth:`_apply_in_sql`; else in Python, :meth:`_apply_here`), the cap checked as
        :meth:`put_url` does; returns the records created."""
        if not writes:
            return 0
        db = self._db
        puts, evicted = self._puts, self.evicted_urls
        db.execute("BEGIN IMMEDIATE")
        try:
            keys = list(dict.fromkeys(write.key for write in writes))
            touched = db.execute("SELECT COALESCE(MAX(touched), 0) FROM urls").fetchone()[0]
            apply = self._apply_in_sql if self._json_in_sql else self._apply_here
            created = apply(writes, keys, touched)
            self._puts += len(keys)
            if self.url_records_max and self._puts // self._check_every != puts // self._check_every:
                self._evict_urls()
            db.execute("COMMIT")
            return created
        except BaseException:
            db.execute("ROLLBACK")
            self._puts, self.evicted_urls = puts, evicted
            raise

    def _apply_in_sql(self, writes: Sequence[records.Write], keys: list[str], touched: int) -> int:
        """:meth:`write_url_records`' writes applied by SQLite's JSON functions, inside its
        transaction: a URL without a record gets its first write's ``new``, every later write
        of it (or any write of a URL with one) patches the stored JSON with its ``changes`` and
        adds its in-links (:func:`records.apply`, in C: no record is read into Python and
        written back). Each write's ``touched`` is the one after the last; returns the records
        created."""
        db = self._db
        known = {row[0] for row in self._urls_among(keys, "url")}
        inserts: list[tuple[str, str, int]] = []
        updates: list[tuple[str, int, int, str]] = []
        patches: dict[int, str] = {}  # a page's link writes share one dict of changes
        for n, write in enumerate(writes, touched + 1):
            if write.key not in known:
                known.add(write.key)
                inserts.append((write.key, json.dumps(write.new), n))
                continue
            patch = patches.get(id(write.changes))
            if patch is None:
                patch = patches[id(write.changes)] = json.dumps(write.changes)
            updates.append((patch, write.in_links, n, write.key))
        db.executemany("INSERT INTO urls (url, record, touched) VALUES (?, ?, ?)", inserts)
        db.executemany("UPDATE urls SET record = json_set(json_patch(record, ?1), '$.in_links', "
                       "COALESCE(json_extract(record, '$.in_links'), 0) + ?2), touched = ?3 WHERE url = ?4",
                       updates)
        return len(inserts)

    def _urls_among(self, keys: list[str], columns: str) -> Iterator[tuple]:
        """``columns`` of the rows of ``urls`` whose URL is one of ``keys`` (``_IN_BATCH`` a
        statement)."""
        for start in range(0, len(keys), _IN_BATCH):
            chunk = keys[start:start + _IN_BATCH]
            yield from self._db.execute(f"SELECT {columns} FROM urls WHERE url IN ({','.join('?' * len(chunk))})",
                                        chunk)

    def _apply_here(self, writes: Sequence[records.Write], keys: list[str], touched: int) -> int:
        """:meth:`_apply_in_sql` for a SQLite without its JSON functions: the records read,
        the writes applied in Python (:func:`records.apply`), each record written once, in the
        order of its last write. Returns the records created."""
        db = self._db
        now: dict[str, dict] = {key: json.loads(text) for key, text in self._urls_among(keys, "url, record")}
        created = 0
        order: dict[str, None] = {}
        for write in writes:
            old = now.get(write.key)
            created += old is None
            now[write.key] = records.apply(old, write)
            order.pop(write.key, None)
            order[write.key] = None
        db.executemany("INSERT INTO urls (url, record, touched) VALUES (?, ?, ?) "
                       "ON CONFLICT(url) DO UPDATE SET record = excluded.record, touched = excluded.touched",
                       [(key, json.dumps(now[key]), touched + n) for n, key in enumerate(order, 1)])
        return created

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

    def _evict_oldest(self, excess: int) -> list[str]:
        """Inside a write's transaction: the ``excess`` least recently written records go;
        returns their URLs."""
        if excess <= 0:
            return []
        oldest = self._db.execute("SELECT url FROM urls ORDER BY touched LIMIT ?", (excess,))
        gone = [row[0] for row in oldest]
        self._db.executemany("DELETE FROM urls WHERE url = ?", [(url,) for url in gone])
        self.evicted_urls += len(gone)
        return gone

    def _evict_urls(self) -> None:
        """Inside put_url's transaction: down to the cap, least recently written first."""
        self._evict_oldest(self.url_count() - self.url_records_max)

    def close(self) -> None:
        self._db.close()


# What every store has held since the first release: a file without it is no colony store.
# (What came later may be missing from a store an older version wrote; it reads as empty.)
_FIRST_RELEASE = {"documents": ("url", "title", "published", "found_at", "forager", "reward"),
                  "claims": ("key", "document"), "scores": ("forager", "score"),
                  "urls": ("url", "record")}


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to the colony store in ``path``; :class:`NotAStore` when the file
    holds none, ValueError when it is not there, :class:`sqlite3.Error` when SQLite cannot
    read it."""
    problem = readonly.file_problem(path)
    if problem == "does not exist":
        raise ValueError(f"no store at {path}")
    if problem:
        raise NotAStore(f"{path} is no colony store: it {problem}")
    try:
        with closing(readonly.glance(path)) as db:
            found = readonly.tables(db)
    except sqlite3.OperationalError:
        raise
    except sqlite3.DatabaseError as exc:  # a header, then no database ("file is not a database")
        raise NotAStore(f"{path} is no colony store: {exc}") from None
    for table, columns in _FIRST_RELEASE.items():
        lacking = f"table {table}" if table not in found else next(
            (f"column {table}.{c}" for c in columns if c not in found[table]), None)
        if lacking:
            raise NotAStore(f"{path} is an SQLite file but no colony store (it has no {lacking})")
    db = readonly.connect(path)
    try:
        # temporary tables and views in memory only: nothing reaches the disk
        db.execute("PRAGMA temp_store=MEMORY")
        _read_as_this_version(db, readonly.tables(db))
        # the temporary tables are writable where the file is not: closed to writes too
        db.execute("PRAGMA query_only=ON")
    except BaseException:
        db.close()
        raise
    return db


def _read_as_this_version(db: sqlite3.Connection, found: dict[str, set[str]]) -> None:
    """A store an older version wrote, read as one of this version's without changing it: a
    table added since is an empty temporary table of its name, a column added since comes from
    a temporary view of its table that gives the column's default. SQLite looks a name up in the
    temporary schema first, so every method reads such a store as it reads a new one (the
    output of a store from before the output was kept is empty: a crawl that upgrades
    the store starts it empty too)."""
    for statement in _SCHEMA.split(";"):
        named = re.search(r"CREATE TABLE IF NOT EXISTS (\w+)", statement)
        if named and named.group(1) not in found:
            db.execute(statement.replace("CREATE TABLE IF NOT EXISTS", "CREATE TEMP TABLE", 1))
    added: dict[str, list[str]] = {}
    for table, column, declaration in _ADDED_COLUMNS:
        if table in found and column not in found[table]:
            default = re.search(r"DEFAULT (.+)$", declaration)
            added.setdefault(table, []).append(f"{default.group(1) if default else 'NULL'} AS {column}")
    for table, columns in added.items():
        db.execute(f"CREATE TEMP VIEW {table} AS SELECT *, {', '.join(columns)} FROM main.{table}")


def _document(row: Sequence) -> DocumentRecord:
    """A row of ``SELECT {_DOCUMENT}`` as a record (keywords and authors are JSON lists)."""
    *head, keywords, authors, site_name, html, language, relevance = row
    return DocumentRecord(*head, keywords=tuple(_json_list(keywords)), authors=tuple(_json_list(authors)),
                          site_name=site_name, html=html, language=language, relevance=relevance)


def _json_list(text: str) -> list[str]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []
