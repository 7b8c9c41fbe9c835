import multiprocessing

import pytest

from newsforagers.store import DocumentRecord, MemoryStore, SQLiteStore, open_store


def record(url, forager="f1"):
    return DocumentRecord(url, "title", "2020-01-01T00:00:00+00:00", "2020-01-01T01:00:00+00:00",
                          forager, 100.0)


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    s = open_store("memory://" if request.param == "memory" else f"sqlite:///{tmp_path}/colony.db")
    yield s
    s.close()


def test_first_claim_wins_by_any_key(store):
    assert store.claim(["url:a", "fp:1"], record("a"))
    assert not store.claim(["url:a"], record("a", "f2"))
    # the same story under another URL: its fingerprint is already claimed
    assert not store.claim(["url:b", "fp:1"], record("b"))
    assert not store.is_claimed("url:b")  # a failed claim leaves nothing behind
    assert store.claim(["url:b", "fp:2"], record("b"))
    assert [d.url for d in store.documents()] == ["a", "b"]
    assert store.document_count() == 2


def test_scores(store):
    store.set_score("f1", 100)
    assert store.add_score("f1", -0.05) == pytest.approx(99.95)
    assert store.scores() == {"f1": pytest.approx(99.95)}
    with pytest.raises(KeyError):
        store.add_score("ghost", 1)


def test_url_records_merge(store):
    assert store.get_url("u") is None
    store.put_url("u", {"published": "x", "fetched": 1})
    store.put_url("u", {"fetched": 2})
    assert store.get_url("u") == {"published": "x", "fetched": 2}


def test_sqlite_survives_a_reopen(tmp_path):
    path = tmp_path / "colony.db"
    first = SQLiteStore(path)
    first.claim(["url:a"], record("a"))
    first.set_score("f1", 150)
    first.close()
    second = open_store(f"sqlite:///{path}")
    assert not second.claim(["url:a"], record("a"))
    assert second.get_score("f1") == 150
    second.close()


def _claim_many(path, name, queue):
    store = SQLiteStore(path)
    queue.put([i for i in range(200) if store.claim([f"url:{i}"], record(str(i), name))])
    store.close()


def _claim_urls(path, name, queue):
    store = SQLiteStore(path)
    queue.put([i for i in range(200) if store.claim_url(f"u{i}", {"queued_by": name})])
    store.close()


def _race(path, worker) -> list[int]:
    """What three processes sharing the SQLite file at ``path`` each won with ``worker``."""
    SQLiteStore(path).close()
    spawn = multiprocessing.get_context("spawn")
    queue = spawn.Queue()
    processes = [spawn.Process(target=worker, args=(path, f"f{n}", queue)) for n in range(3)]
    for process in processes:
        process.start()
    won = [i for _ in processes for i in queue.get(timeout=60)]
    for process in processes:
        process.join(timeout=60)
    return won


def test_sqlite_claims_are_atomic_across_processes(tmp_path):
    assert sorted(_race(tmp_path / "colony.db", _claim_many)) == list(range(200))  # each won once
    assert SQLiteStore(tmp_path / "colony.db").document_count() == 200


def test_sqlite_url_claims_are_atomic_across_processes(tmp_path):
    assert sorted(_race(tmp_path / "colony.db", _claim_urls)) == list(range(200))


@pytest.mark.parametrize("url", ["", "nothing", "redis2://x", "sqlite://", "sqlite:///"])
def test_bad_store_urls_are_clear_errors(url):
    with pytest.raises(ValueError, match="FORAGERS_STORE"):
        open_store(url)


def test_memory_store_needs_keys():
    with pytest.raises(ValueError, match="at least one key"):
        MemoryStore().claim([], record("a"))


@pytest.fixture(params=["memory", "sqlite"])
def capped(request, tmp_path):
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path}/colony.db"
    s = open_store(url, url_records_max=300)
    yield s
    s.close()


def test_claims_of_old_documents_expire_but_their_documents_stay(store):
    assert store.claim(["url:old", "fp:old"], record("old"), published=1000.0)
    assert store.claim(["url:new", "fp:new"], record("new"), published=5000.0)
    assert store.claim(["url:undated"], record("undated"))  # no publication time: kept for ever
    assert store.claim_count() == 5
    assert store.expire_claims(before=2000.0) == 2
    assert store.expired_claims == 2
    assert not store.is_claimed("url:old") and not store.is_claimed("fp:old")
    assert store.is_claimed("url:new") and store.is_claimed("url:undated")
    assert [d.url for d in store.documents()] == ["old", "new", "undated"]
    assert store.claim(["url:old"], record("old"), published=9000.0)  # republished: novel again
    assert store.expire_claims(before=1e12) == 3  # url:new, fp:new and url:old (undated stays)
    assert store.claim_count() == 1 and store.document_count() == 4


def test_per_url_records_are_capped_least_recently_written_first(capped):
    for i in range(700):
        capped.put_url(f"u{i}", {"queued_by": "f1"})
        if i % 10 == 0:
            capped.put_url("u0", {"seen": i})  # rewritten often: the most recent, never evicted
    # SQLite counts its table every min(256, cap / 8) writes: it may run that many over
    assert 300 <= capped.url_count() <= 300 + 300 // 8
    assert capped.evicted_urls == 700 - capped.url_count()
    assert capped.get_url("u0") == {"queued_by": "f1", "seen": 690}
    assert capped.get_url("u1") is None and capped.get_url("u699") == {"queued_by": "f1"}


def test_sqlite_upgrades_a_store_from_before_the_caps(tmp_path):
    import sqlite3

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE documents (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT NOT NULL,
            title TEXT NOT NULL, published TEXT NOT NULL, found_at TEXT NOT NULL,
            forager TEXT NOT NULL, reward REAL NOT NULL);
        CREATE TABLE claims (key TEXT PRIMARY KEY, document INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE urls (url TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID;
        INSERT INTO documents VALUES (1, 'a', 't', '2020-01-01T00:00:00+00:00',
            '2020-01-01T01:00:00+00:00', 'f1', 100.0);
        INSERT INTO claims VALUES ('url:a', 1);
        INSERT INTO urls VALUES ('a', '{"queued_by": "f1"}');
    """)
    db.commit()
    db.close()
    store = SQLiteStore(path, url_records_max=1)
    assert store.is_claimed("url:a") and store.get_url("a") == {"queued_by": "f1"}
    assert store.expire_claims(before=1e12) == 0  # its claims have no publication time: kept
    assert store.claim(["url:b"], record("b"), published=10.0)
    assert store.expire_claims(before=1e12) == 1
    assert [d.url for d in store.documents()] == ["a", "b"]
    store.close()


def test_a_url_is_claimed_once(store):
    assert store.claim_url("u", {"queued_by": "f1"})
    assert not store.claim_url("u", {"queued_by": "f2"})
    assert store.get_url("u") == {"queued_by": "f1"}
