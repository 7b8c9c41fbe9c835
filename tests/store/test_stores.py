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
    won = sum(store.claim([f"url:{i}"], record(str(i), name)) for i in range(200))
    store.close()
    queue.put(won)


def test_sqlite_claims_are_atomic_across_processes(tmp_path):
    path = tmp_path / "colony.db"
    SQLiteStore(path).close()
    queue = multiprocessing.get_context("spawn").Queue()
    procs = [multiprocessing.get_context("spawn").Process(target=_claim_many, args=(path, f"p{i}", queue))
             for i in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert sum(queue.get(timeout=5) for _ in procs) == 200
    assert SQLiteStore(path).document_count() == 200


@pytest.mark.parametrize("url", ["", "nothing", "redis2://x", "sqlite://", "sqlite:///"])
def test_bad_store_urls_are_clear_errors(url):
    with pytest.raises(ValueError, match="FORAGERS_STORE"):
        open_store(url)


def test_memory_store_needs_keys():
    with pytest.raises(ValueError, match="at least one key"):
        MemoryStore().claim([], record("a"))
