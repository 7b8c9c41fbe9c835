"""``DocumentIndex``: full-text search over the documents a colony output (the i-Bot indexer).

The i-Bot paper's indexer keeps the documents its bots deliver searchable; here the index is one
SQLite file with an FTS5 table, filled from the colony store's output — the items the foragers'
item pipelines let through, as they left them (an item a pipeline dropped is never indexed).
The output is a cursor — outputs are never deleted, and ``outputs_after(position)`` gives what
came after the first ``position`` — so the index remembers the position it has read up to and
:meth:`DocumentIndex.follow` reads only what is new. A document's URL is its key: following
twice, or two processes following one store at the same time, index each document once; an
output without a ``url`` (a user's pipeline removed it) cannot be indexed and is skipped.

Ranking is Okapi BM25 (SQLite's ``bm25()``, Robertson & Zaragoza 2009) over four columns
weighted by :data:`WEIGHTS`: a word of the title counts most, then the description and the
keywords, then the main text. Words are matched after Unicode case folding, without diacritics,
and stemmed with Porter's English stemmer (``elections`` finds ``election``).

A query that matches more than :data:`RANKED_MAX` documents (a common word in an index of
100,000) is ranked among the :data:`RANKED_MAX` of them indexed last — for a colony's index,
found last — so that its latency stays that of a narrower one (docs/search.md, *Speed*):
BM25 costs about a microsecond per matching document, and a word in every other document
gives it little weight anyway (its inverse document frequency is near zero).

Nothing here knows Scrapy: the colony's root follows the store from its extension
(:mod:`newsforagers.extensions.index`), ``newsforagers index`` does it beside a shared store,
and ``newsforagers search`` or a dashboard reads the file: ``DocumentIndex(path,
read_only=True)``, which opens it with SQLite's ``mode=ro`` (:mod:`newsforagers.store.readonly`)
and never creates, fills or switches a file.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import unicodedata
from collections import Counter
from contextlib import closing
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from newsforagers.index.query import fts_query
from newsforagers.store import ColonyStore, DocumentRecord, readonly
from newsforagers.store.base import Output

logger = logging.getLogger(__name__)

#: BM25 weights of the columns title, description, keywords, main text: FTS5 weighs each
#: column's count of a word and adds them up, so a word of the title counts as ten of the text.
WEIGHTS = (10.0, 4.0, 4.0, 1.0)
#: What marks the matched words in a snippet, and the ellipsis where it cuts the text. The
#: indexed copy of a document has its own ``[`` and ``]`` turned into ``(`` and ``)``, so every
#: bracket in a snippet is a marker.
MARK_START, MARK_END, ELLIPSIS = "[", "]", "…"
#: Documents a query's hits are ranked among, at most: the matches indexed last (0: all).
RANKED_MAX = 20_000
SNIPPET_TOKENS = 24  # words of a snippet, at most (FTS5 allows 64)
SUMMARY_CHARS = 240  # characters of a snippet made from the text's beginning

FORMAT = "newsforagers-index"
VERSION = 1

_SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents (
    id INTEGER PRIMARY KEY,       -- also the rowid of documents_fts and the id of facts
    url TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL, published TEXT NOT NULL, found_at TEXT NOT NULL,
    forager TEXT NOT NULL, language TEXT NOT NULL,
    summary TEXT NOT NULL         -- the description, or the text's beginning
);
-- what the filters and facets read, in rows of their own: joining 86,000 matches with these
-- small rows took 10 ms, with the documents' 27 ms (100,000 documents, docs/benchmarks.md)
CREATE TABLE facts (
    id INTEGER PRIMARY KEY,
    found_ts REAL,                -- found_at in POSIX seconds; NULL if unreadable
    language TEXT NOT NULL,
    published_day TEXT NOT NULL   -- YYYY-MM-DD as the page dates itself; '' if unreadable
);
CREATE INDEX facts_found ON facts(found_ts);
-- the facets' counts in index order (no sort: 7 ms for 100,000 documents, 100 ms without),
-- and the filters' count of candidates
CREATE INDEX facts_facets ON facts(language, published_day, found_ts);
CREATE VIRTUAL TABLE documents_fts USING fts5(
    title, description, keywords, text,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO meta (key, value) VALUES ('format', '{FORMAT}'), ('version', '{VERSION}'),
    ('position', '0'), ('last_url', '');
"""
_BM25 = f"bm25(documents_fts, {', '.join(str(w) for w in WEIGHTS)})"
_HIT = "d.url, d.title, d.published, d.found_at, d.forager, d.language"
# a hit's snippet: from the text, the description, or the best column (FTS5's choice: here
# the title or the keywords), the first that holds a match
_SNIPPETS = ", ".join(f"snippet(documents_fts, {column}, '{MARK_START}', '{MARK_END}', '{ELLIPSIS}', "
                      f"{SNIPPET_TOKENS})" for column in (3, 1, -1))
# SQLite allows 32,766 variables in one statement; the batches stay well below
_CHUNK = 500


class IndexBroken(Exception):
    """The file is no index this version can use: not SQLite, another program's database (a
    colony store given for its index?), or an index written by a newer version."""


@dataclass(frozen=True)
class Hit:
    """One document found. ``published`` and ``found_at`` are the store's ISO 8601 strings;
    ``snippet`` is plain text (never HTML) with the matched words between :data:`MARK_START`
    and :data:`MARK_END` (``[`` and ``]``) and :data:`ELLIPSIS` (``…``) where the text was cut.
    ``score`` is FTS5's BM25: lower is better, and negative (0.0 for :meth:`DocumentIndex.latest`);
    :attr:`relevance` is its opposite, higher better."""

    url: str
    title: str
    snippet: str
    published: str
    found_at: str
    forager: str
    language: str
    score: float

    @property
    def relevance(self) -> float:
        return -self.score

    def to_dict(self) -> dict:
        data = asdict(self)
        data["relevance"] = self.relevance
        return data


class DocumentIndex:
    """The full-text index in the SQLite file ``path`` (``":memory:"`` for one that lives with
    the object). The file and its tables are made on first use, not by the constructor; the
    object is safe to share between threads, and several processes may use one file (each
    write is a short transaction; ``timeout`` is how many seconds one waits for another's).
    Use it as a context manager, or call :meth:`close`. ``ranked_max``: see :data:`RANKED_MAX`.
    ``read_only``: an index that must be there, to search (SQLite's ``mode=ro``: the file is
    never created nor switched to WAL, and every write is refused).

    Raises :class:`IndexBroken` on first use when the file is no index of this version (read
    only: also when it is missing or empty)."""

    def __init__(self, path: str | Path, *, timeout: float = 30.0, ranked_max: int = RANKED_MAX,
                 read_only: bool = False):
        if read_only and str(path) == ":memory:":
            raise ValueError("an index in memory cannot be opened read-only: it would be empty")
        self.path = path if str(path) == ":memory:" else Path(path)
        self.timeout = timeout
        self.ranked_max = ranked_max
        self.read_only = read_only
        self.skipped = 0  # outputs without a url this object skipped
        self._db: sqlite3.Connection | None = None
        self._closed = False
        self._lock = threading.RLock()

    # -- lifecycle ------------------------------------------------------------------------------

    def __enter__(self) -> "DocumentIndex":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
            self._closed = True

    def _connection(self) -> sqlite3.Connection:
        if self._closed:
            raise ValueError(f"the index {self.path} is closed")
        if self._db is None:
            self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        if self.read_only:
            return self._open_read_only()
        if isinstance(self.path, Path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: the transactions are opened here, each short and explicit
        db = sqlite3.connect(str(self.path), timeout=self.timeout, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute("PRAGMA synchronous=NORMAL")
            if not _tables(db):
                # made under the write lock, so that two processes starting together make it once;
                # an index that exists is only read here (a search takes no write lock)
                db.execute("PRAGMA journal_mode=WAL")  # kept in the file: readers never wait for the writer
                db.execute("BEGIN IMMEDIATE")
                try:
                    if not _tables(db):
                        for statement in _statements(_SCHEMA):
                            db.execute(statement)
                    db.execute("COMMIT")
                finally:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
            self._check_format(db, _tables(db))
        except sqlite3.OperationalError:
            db.close()
            raise
        except sqlite3.DatabaseError as exc:  # "file is not a database"
            db.close()
            raise IndexBroken(f"{self.path} is no newsforagers index: {exc}") from None
        except IndexBroken:
            db.close()
            raise
        return db

    def _open_read_only(self) -> sqlite3.Connection:
        problem = readonly.file_problem(self.path)
        if problem:
            raise IndexBroken(f"{self.path} is no newsforagers index: it {problem}")
        try:
            # a first look that leaves nothing beside another program's file, then the reader
            with closing(readonly.glance(self.path)) as db:
                self._check_format(db, _tables(db))
            db = readonly.connect(self.path, timeout=self.timeout, check_same_thread=False)
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as exc:  # "file is not a database"
            raise IndexBroken(f"{self.path} is no newsforagers index: {exc}") from None
        try:
            db.execute("PRAGMA query_only=ON")
        except BaseException:
            db.close()
            raise
        return db

    def _check_format(self, db: sqlite3.Connection, tables: set[str]) -> None:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall()) if "meta" in tables else {}
        if meta.get("format") != FORMAT:
            raise IndexBroken(f"{self.path} is an SQLite file but no newsforagers index "
                              "(a colony store? give the index file, or the store with --store)")
        version = meta.get("version", "")
        if not version.isdigit() or int(version) > VERSION:
            raise IndexBroken(f"{self.path} was written by a newer newsforagers (index version "
                              f"{version!r}, this one reads {VERSION})")

    # -- writing --------------------------------------------------------------------------------

    def add(self, records: Iterable[DocumentRecord]) -> int:
        """Index ``records`` (a URL already indexed is left as it is); returns how many were new."""
        self._writable("add")
        return self._write(list(records))

    def follow(self, store: ColonyStore, batch: int = 1000, *, limit: int = 0) -> int:
        """Index what ``store`` output since the position this index has read up to, ``batch``
        outputs a transaction (and ``limit`` outputs in all at most; 0: until the end); returns
        how many documents were new. Idempotent, and safe with several followers of one store.

        An index that followed another store (a new ``memory://`` store, a store file made
        again) follows this one from its start: the store's output at the position remembered
        is not the one indexed there."""
        if batch < 1:
            raise ValueError(f"batch ({batch!r}) must be at least 1")
        self._writable("follow")
        added = read = 0
        checked = False
        while not limit or read < limit:
            position, last_url = self._cursor()
            # once a call: one more read of the store (another follower of the file follows the same)
            if position and not checked and not self._same_store(store, position, last_url):
                logger.info("index %s: the store %s does not hold the documents this index followed "
                            "(a new store?); following it from its start", self.path, store.safe_url)
                self._reset(position, last_url)
                continue
            checked = True
            wanted = min(batch, limit - read) if limit else batch
            outputs = store.outputs_after(position, wanted)
            if not outputs:
                break
            records, skipped = _records(outputs)
            if skipped:
                self.skipped += skipped
                logger.warning("index %s: %d output(s) without a url skipped (%d so far): the index "
                               "keys on the url an item pipeline left", self.path, skipped, self.skipped)
            added += self._write(records, advance_from=position, read=outputs)
            read += len(outputs)
            if len(outputs) < wanted:
                break
        return added

    def _writable(self, method: str) -> None:
        # refused here, before SQLite would (with words that depend on what it was asked)
        if self.read_only:
            raise sqlite3.OperationalError(f"attempt to write a readonly database: the index {self.path} "
                                           f"is open read-only ({method})")

    def _same_store(self, store: ColonyStore, position: int, last_url: str) -> bool:
        previous = store.outputs_after(position - 1, 1)
        return bool(previous) and previous[0].url == last_url

    def _cursor(self) -> tuple[int, str]:
        with self._lock:
            return self._cursor_in(self._connection())

    def _reset(self, position: int, last_url: str) -> None:
        """Back to position 0, unless another follower has moved the cursor meanwhile."""
        with self._lock:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                if self._cursor_in(db) == (position, last_url):
                    db.executemany("UPDATE meta SET value = ? WHERE key = ?",
                                   [("0", "position"), ("", "last_url")])
                db.execute("COMMIT")
            finally:
                if db.in_transaction:
                    db.execute("ROLLBACK")

    @staticmethod
    def _cursor_in(db: sqlite3.Connection) -> tuple[int, str]:
        meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('position', 'last_url')").fetchall())
        return int(meta.get("position", 0)), meta.get("last_url", "")

    def _write(self, records: list[DocumentRecord], advance_from: int | None = None,
               read: list[Output] | None = None) -> int:
        """Index ``records`` in one transaction; with ``advance_from``, they come from ``read``,
        the store's outputs after that position, and the cursor moves past those (never back:
        a follower that was faster has indexed them already)."""
        # the rows are made before the transaction, which then holds the file's lock briefly
        rows = {}
        for record in records:
            rows.setdefault(record.url, _rows(record))
        added = 0
        with self._lock:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                urls = list(rows)
                known: set[str] = set()
                for start in range(0, len(urls), _CHUNK):
                    chunk = urls[start:start + _CHUNK]
                    known.update(row[0] for row in db.execute(
                        f"SELECT url FROM documents WHERE url IN ({', '.join('?' * len(chunk))})", chunk))
                new = [rows[url] for url in urls if url not in known]
                if new:
                    # ids given here (no other writer while this transaction holds the lock), so
                    # that each table is filled with one statement
                    first = db.execute("SELECT coalesce(max(id), 0) + 1 FROM documents").fetchone()[0]
                    db.executemany(
                        "INSERT INTO documents (id, url, title, published, found_at, forager, language, "
                        "summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [(first + i, *document) for i, (document, _, _) in enumerate(new)])
                    db.executemany(
                        "INSERT INTO facts (id, found_ts, language, published_day) VALUES (?, ?, ?, ?)",
                        [(first + i, *facts) for i, (_, facts, _) in enumerate(new)])
                    db.executemany(
                        "INSERT INTO documents_fts (rowid, title, description, keywords, text) "
                        "VALUES (?, ?, ?, ?, ?)", [(first + i, *text) for i, (_, _, text) in enumerate(new)])
                    added = len(new)
                if advance_from is not None and read:
                    position, _ = self._cursor_in(db)
                    if advance_from + len(read) > position:
                        db.executemany("UPDATE meta SET value = ? WHERE key = ?",
                                       [(str(advance_from + len(read)), "position"),
                                        (read[-1].url, "last_url")])
                db.execute("COMMIT")
            finally:
                if db.in_transaction:
                    db.execute("ROLLBACK")
        return added

    # -- reading --------------------------------------------------------------------------------

    @property
    def position(self) -> int:
        """How many of the store's outputs this index has read (its cursor in the store)."""
        return self._cursor()[0]

    def count(self) -> int:
        """How many documents the index holds."""
        with self._lock:
            return self._last_id(self._connection())

    @staticmethod
    def _last_id(db: sqlite3.Connection) -> int:
        # The number of documents: ids are 1, 2, 3... and none is ever deleted. (A count would
        # read every row of an index: 3 ms at 100,000 documents, 50 ms from disk; this reads one.)
        return db.execute("SELECT coalesce(max(id), 0) FROM documents").fetchone()[0]

    def search(self, query: str, since: datetime | None = None, lang: str | None = None,
               limit: int = 10, offset: int = 0) -> list[Hit]:
        """The documents that hold every word of ``query`` (free text: see
        :mod:`newsforagers.index.query`), best first (equal scores: the one indexed last
        first), ``limit`` of them after the first ``offset``. A query that matches more than
        ``ranked_max`` documents is ranked among the ``ranked_max`` of them indexed last.

        ``since``: only documents *found* since then (their ``found_at``; a naive datetime is
        taken as UTC); ``lang``: only documents in that language (ISO 639-1, ``en``). A hit's
        snippet is from the main text where the query matches it, else from the description,
        else from the best column (FTS5's choice), else the description or the text's beginning.

        Raises ValueError for an empty query; a query of punctuation alone finds nothing."""
        match = fts_query(query)
        if match is None or limit <= 0:
            return []
        where, params = _filters(since, lang)
        # the filters join each match with its facts; the planner is told to start from the
        # matches (CROSS JOIN): from the facts it would look each one up in the full-text index
        source = "documents_fts CROSS JOIN facts AS f ON f.id = documents_fts.rowid" if where else "documents_fts"
        with self._lock:
            db = self._connection()
            if self.ranked_max > 0 and self._candidates(db, where, params) > self.ranked_max:
                cut = db.execute(
                    f"SELECT documents_fts.rowid FROM {source} WHERE documents_fts MATCH ? {where} "
                    "ORDER BY documents_fts.rowid DESC LIMIT 1 OFFSET ?",
                    (match, *params, self.ranked_max - 1)).fetchone()
                if cut is not None:
                    where += " AND documents_fts.rowid >= ?"
                    params.append(cut[0])
            ranked = db.execute(
                f"SELECT documents_fts.rowid, {_BM25} AS score FROM {source} "
                f"WHERE documents_fts MATCH ? {where} ORDER BY score, documents_fts.rowid DESC LIMIT ? OFFSET ?",
                (match, *params, int(limit), max(0, int(offset)))).fetchall()
            if not ranked:
                return []
            ids = [rowid for rowid, _ in ranked]
            marks = ", ".join("?" * len(ids))
            shown = {row[0]: row[1:] for row in db.execute(
                f"SELECT d.id, {_HIT}, d.summary FROM documents AS d WHERE d.id IN ({marks})", ids)}
            # Snippets for the hits shown only (in the ranking query they would be made for every
            # match), in one query: FTS5 evaluates the query once for a range of rowids, where an
            # IN list would evaluate it once per hit (a prefix query, elect*, costs milliseconds
            # each time). "+rowid" keeps the list from FTS5, which only sees the range.
            snippets = {row[0]: row[1:] for row in db.execute(
                f"SELECT rowid, {_SNIPPETS} FROM documents_fts WHERE documents_fts MATCH ? "
                f"AND rowid BETWEEN ? AND ? AND +rowid IN ({marks})", (match, min(ids), max(ids), *ids))}
        return [_hit(shown[rowid][:6], _snippet(snippets.get(rowid, ()), shown[rowid][6]), score)
                for rowid, score in ranked]

    @staticmethod
    def _candidates(db: sqlite3.Connection, where: str, params: list) -> int:
        """How many documents pass the filters: when no more than ``ranked_max``, the matches
        need no cut, and looking for it would cost a pass over them."""
        if not where:
            return DocumentIndex._last_id(db)
        return db.execute(f"SELECT count(*) FROM facts AS f WHERE 1 {where}", params).fetchone()[0]

    def facets(self, query: str | None = None, since: datetime | None = None,
               lang: str | None = None) -> dict:
        """Counts of the documents that match (all of them without ``query``; ``since`` and
        ``lang`` as in :meth:`search`): ``{"language": [(code, count), ...]}`` most frequent
        first (``""``: language unknown), and ``{"day": [("YYYY-MM-DD", count), ...]}`` by day
        of publication as the page dates itself, oldest first (undated documents left out)."""
        where, params = _filters(since, lang)
        source, condition = "facts AS f", "1"
        if query is not None:
            match = fts_query(query)
            if match is None:
                return {"language": [], "day": []}
            source = "documents_fts CROSS JOIN facts AS f ON f.id = documents_fts.rowid"
            condition, params = "documents_fts MATCH ?", [match, *params]
        # one pass over the matches for both counts; the few (language, day) pairs are added
        # up here
        with self._lock:
            pairs = self._connection().execute(
                f"SELECT f.language, f.published_day, count(*) FROM {source} WHERE {condition} {where} "
                "GROUP BY f.language, f.published_day", params).fetchall()
        languages: Counter[str] = Counter()
        days: Counter[str] = Counter()
        for language, day, n in pairs:
            languages[language] += n
            if day:
                days[day] += n
        return {"language": sorted(languages.items(), key=lambda item: (-item[1], item[0])),
                "day": sorted(days.items())}

    def latest(self, limit: int = 20) -> list[Hit]:
        """The ``limit`` documents found last, newest first; their snippet is the description or
        the text's beginning, and their score 0.0."""
        with self._lock:
            rows = self._connection().execute(
                f"SELECT {_HIT}, d.summary FROM facts AS f CROSS JOIN documents AS d ON d.id = f.id "
                "ORDER BY f.found_ts DESC, f.id DESC LIMIT ?", (max(0, int(limit)),)).fetchall()
        return [_hit(row[:6], row[6], 0.0) for row in rows]


def _hit(row: tuple, snippet: str, score: float) -> Hit:
    """A hit of a row of ``_HIT``'s columns."""
    url, title, published, found_at, forager, language = row
    return Hit(url=url, title=title, snippet=snippet, published=published, found_at=found_at,
               forager=forager, language=language, score=float(score))


def _snippet(candidates: tuple, summary: str) -> str:
    """The first of a hit's snippets that marks a match, else its summary."""
    for snippet in candidates:
        if snippet and MARK_START in snippet:
            return " ".join(snippet.split())
    return summary


def _filters(since: datetime | None, lang: str | None) -> tuple[str, list]:
    where, params = "", []
    if since is not None:
        moment = since if since.tzinfo is not None else since.replace(tzinfo=timezone.utc)
        where += " AND f.found_ts >= ?"
        params.append(moment.timestamp())
    if lang:
        where += " AND f.language = ?"
        params.append(lang.strip().lower())
    return where, params


def _records(outputs: list[Output]) -> tuple[list[DocumentRecord], int]:
    """The documents of ``outputs`` as the index reads them, and how many were skipped: an
    output without a ``url`` (a user's pipeline removed the field the index keys on)."""
    records = []
    for output in outputs:
        try:
            records.append(DocumentRecord.from_item(output.item))
        except ValueError:
            continue
    return records, len(outputs) - len(records)


def _rows(record: DocumentRecord) -> tuple[tuple, tuple, tuple]:
    """A record as its rows of ``documents``, ``facts`` (both without the id) and ``documents_fts``."""
    found = _moment(record.found_at)
    published = _moment(record.published)
    language = (record.language or "").lower()
    document = (record.url, record.title or "", record.published or "", record.found_at or "",
                record.forager or "", language, _summary(record))
    facts = (found.timestamp() if found else None, language,
             published.date().isoformat() if published else "")
    text = (_plain(record.title), _plain(record.description), _plain(", ".join(record.keywords)),
            _plain(record.text))
    return document, facts, text


def _moment(iso: str) -> datetime | None:
    """An ISO 8601 time as a datetime (UTC when it has no offset), None when unreadable."""
    try:
        moment = datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _plain(text: str) -> str:
    # (str.replace: several times faster than str.translate on long texts)
    return unicodedata.normalize("NFC", text or "").replace("[", "(").replace("]", ")")


def _summary(record: DocumentRecord) -> str:
    """The description, or the text's first :data:`SUMMARY_CHARS` characters, cut at a word
    (brackets turned into parentheses, as in snippets)."""
    summary = " ".join(_plain(record.description).split())
    if summary:
        return summary
    text = " ".join(_plain((record.text or "")[:SUMMARY_CHARS * 2]).split())
    if len(text) <= SUMMARY_CHARS:
        return text
    cut = text[:SUMMARY_CHARS]
    return (cut[:cut.rfind(" ")] if " " in cut else cut) + ELLIPSIS


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _statements(script: str) -> list[str]:
    """The statements of ``script`` (executescript would commit the open transaction)."""
    return [statement.strip() for statement in script.split(";\n") if statement.strip()]
