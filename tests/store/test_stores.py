import multiprocessing
import random
import sqlite3
import time

import fakeredis
import pytest

from newsforagers.store import DocumentRecord, MemoryStore, SQLiteStore, open_store
from newsforagers.store.redis import RedisStore

KINDS = ["memory", "sqlite", "redis"]


def record(url, forager="f1"):
    return DocumentRecord(url, "title", "2020-01-01T00:00:00+00:00", "2020-01-01T01:00:00+00:00",
                          forager, 100.0)


@pytest.fixture
def make_store(tmp_path):
    """``make_store(kind, name="colony", url_records_max=0, clock=None)``: a store of ``kind``,
    closed after the test; stores of one test with different names share nothing. Redis is
    fakeredis (one server per test, a prefix per name): these are unit tests, the real
    server's are in test_redis.py."""
    server = fakeredis.FakeServer()
    made = []

    def make(kind, name="colony", url_records_max=0, clock=None):
        timed = {"clock": clock} if clock is not None else {}
        if kind == "memory":
            store = MemoryStore(url_records_max=url_records_max, **timed)
        elif kind == "sqlite":
            store = SQLiteStore(tmp_path / f"{name}.db", url_records_max=url_records_max, **timed)
        else:
            client = fakeredis.FakeRedis(server=server, decode_responses=True)
            store = RedisStore("redis://127.0.0.1:6379/0", url_records_max, prefix=f"test:{name}:",
                               client=client, clock=clock)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


@pytest.fixture(params=KINDS)
def store(request, make_store):
    return make_store(request.param)


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


def _race(path, worker, processes: int = 3) -> list[int]:
    """What ``processes`` processes sharing the SQLite file at ``path`` each won with ``worker``."""
    SQLiteStore(path).close()
    spawn = multiprocessing.get_context("spawn")
    queue = spawn.Queue()
    processes = [spawn.Process(target=worker, args=(path, f"f{n}", queue)) for n in range(processes)]
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


@pytest.fixture(params=KINDS)
def capped(request, make_store):
    return make_store(request.param, url_records_max=300)


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


# -- a page's links claimed in one batch (issue 15) -------------------------------------------


@pytest.fixture(params=KINDS)
def store_kind(request):
    return request.param


def _batches():
    """Batches of URL claims that overlap each other, repeat URLs and pass the cap of 300."""
    rng = random.Random(15)
    batches = [[f"u{i}" for i in range(start, start + size)] for start, size in
               ((0, 40), (20, 40), (0, 1), (100, 257), (300, 0), (350, 400))]
    batches.append(["u5", "u900", "u5", "u901"])  # a URL twice in one batch: claimed once
    batches.append([f"u{rng.randrange(1200)}" for _ in range(300)])
    return batches


@pytest.mark.parametrize("cap", [0, 300])
def test_a_batch_claims_what_one_by_one_claims_do(store_kind, make_store, cap):
    batched = make_store(store_kind, "batched", url_records_max=cap)
    single = make_store(store_kind, "single", url_records_max=cap)
    for n, batch in enumerate(_batches()):
        record = {"queued_by": f"f{n}"}
        one_by_one = [url for url in dict.fromkeys(batch) if single.claim_url(url, record)]
        assert batched.claim_urls(batch, record) == one_by_one
    assert batched.url_count() == single.url_count() and batched.evicted_urls == single.evicted_urls
    if cap:
        assert batched.evicted_urls > 0  # the cap was passed, and evicted the same records
    urls = {url for batch in _batches() for url in batch}
    assert {u: batched.get_url(u) for u in urls} == {u: single.get_url(u) for u in urls}


def test_a_failed_batch_leaves_nothing_behind(tmp_path, monkeypatch):
    store = SQLiteStore(tmp_path / "colony.db", url_records_max=10)
    assert store.claim_urls(["a", "b"], {"queued_by": "f1"}) == ["a", "b"]

    def broken(*args):  # eviction runs inside the batch's transaction, after its first inserts
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "_evict_oldest", broken)
    with pytest.raises(sqlite3.OperationalError):
        store.claim_urls([f"u{i}" for i in range(20)] + ["a"], {"queued_by": "f2"})
    assert store.url_count() == 2 and store.get_url("u0") is None and store.evicted_urls == 0
    monkeypatch.undo()
    assert store.claim_urls(["u0", "a"], {"queued_by": "f2"}) == ["u0"]  # the store still works
    store.close()


def _batch_with_a_pause(path, inside, resume, queue):
    """Claim 300 URLs in one batch, pausing at its first eviction (after 288 writes: the cap
    of 256 is counted every 32) until the test has looked at the file from another process."""
    store = SQLiteStore(path, url_records_max=256)
    evict = store._evict_oldest

    def paused(excess):
        inside.set()
        resume.wait(timeout=60)
        return evict(excess)

    store._evict_oldest = paused
    queue.put(store.claim_urls([f"u{i}" for i in range(300)], {"queued_by": "f1"}))
    store.close()


def test_another_process_sees_none_of_a_batch_and_cannot_write_until_it_is_whole(tmp_path):
    # claimed one by one, the claims made before the pause would be in the file already
    path = tmp_path / "colony.db"
    other = SQLiteStore(path)
    other._db.execute("PRAGMA busy_timeout = 0")  # a write the batch holds back fails at once
    spawn = multiprocessing.get_context("spawn")
    inside, resume, queue = spawn.Event(), spawn.Event(), spawn.Queue()
    process = spawn.Process(target=_batch_with_a_pause, args=(path, inside, resume, queue))
    process.start()
    try:
        assert inside.wait(timeout=60), "the batch never paused"
        assert other.url_count() == 0 and other.get_url("u0") is None
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.claim_url("u299", {"queued_by": "f2"})
    finally:
        resume.set()
    assert queue.get(timeout=60) == [f"u{i}" for i in range(300)]
    process.join(timeout=60)
    # all claimed, then down to the cap as one by one: 256 + the 12 written since the count
    assert other.url_count() == 268 and other.get_url("u299") == {"queued_by": "f1"}
    assert other.get_url("u0") is None
    other.close()


def _claim_overlapping(path, name, queue):
    store = SQLiteStore(path)
    first = int(name[1:]) * 50
    won = []
    for start in range(first, first + 200, 20):  # batches of 20 overlapping the others'
        won += [(int(url[1:]), name) for url in store.claim_urls([f"u{i}" for i in range(start, start + 20)],
                                                                {"queued_by": name})]
    queue.put(won)
    store.close()


def test_sqlite_batches_that_overlap_across_processes_claim_each_url_once(tmp_path):
    won = _race(tmp_path / "colony.db", _claim_overlapping)  # (url index, process name) pairs
    assert sorted(i for i, _ in won) == list(range(300))
    # what each process was told it claimed is what the file says it claimed
    store = SQLiteStore(tmp_path / "colony.db")
    assert {i: store.get_url(f"u{i}")["queued_by"] for i in range(300)} == dict(won)
    store.close()


# -- the population: members under leases, its bounds, and what foragers share --------------------

def test_members_join_within_the_bound_and_leases_count_the_dead_out(store):
    assert store.join("f1", lease=100.0, now=0.0, max_members=2, fields={"demand": 1.0})
    assert store.join("f2", lease=50.0, now=0.0, max_members=2)
    assert not store.join("f3", lease=100.0, now=0.0, max_members=2)  # no place left
    assert store.join("f1", lease=120.0, now=10.0, max_members=2)  # a member renews by joining
    assert store.members(10.0)["f1"].fields == {"demand": 1.0}  # and keeps what it shared
    assert store.join("f3", lease=100.0, now=10.0)  # no bound (Alg. 9's first foragers)
    assert sorted(store.members(10.0)) == ["f1", "f2", "f3"]
    # f2's process died: once its lease ran out it is counted out, and its place can be taken
    assert sorted(store.members(60.0)) == ["f1", "f3"]
    assert not store.join("f4", lease=200.0, now=60.0, max_members=2)
    assert store.join("f4", lease=200.0, now=60.0, max_members=3)
    assert not store.renew("f2", 500.0)  # forgotten when f4 joined: it must join again


def test_a_member_leaves_unless_the_population_is_at_its_minimum(store):
    for name in ("f1", "f2", "f3"):
        store.join(name, lease=100.0, now=0.0)
    assert store.leave("f1", now=0.0, min_members=2)
    assert not store.leave("f2", now=0.0, min_members=2)  # two left: the minimum
    assert sorted(store.members(0.0)) == ["f2", "f3"]
    assert store.leave("ghost", now=0.0, min_members=2)  # no member: nothing to refuse
    assert store.leave("f2", now=0.0)  # no bound: the colony's end
    assert store.renew("f3", 300.0) and store.members(200.0)["f3"].lease == 300.0


def test_member_fields_and_shared_values(store):
    store.update_member("ghost", {"demand": 1.0})  # no member: nothing happens
    assert store.members(0.0) == {}
    store.join("f1", lease=100.0, now=0.0)
    store.update_member("f1", {"demand": 2.5})
    store.update_member("f1", {"other": "x"})
    assert store.members(0.0)["f1"].fields == {"demand": 2.5, "other": "x"}
    assert store.get_value("handover/f2") is None
    store.put_value("handover/f2", {"weblog": {"entries": [["http://s/", 1.0]]}, "weights": [0.5]})
    value = store.get_value("handover/f2")
    value["weights"].append(9)  # a copy: the store keeps what was written
    assert store.get_value("handover/f2")["weights"] == [0.5]
    store.put_value("handover/f2", {"weights": None})  # the last write wins
    assert store.get_value("handover/f2") == {"weights": None}
    store.delete_value("handover/f2")
    assert store.get_value("handover/f2") is None


def test_documents_after_a_position_follow_the_store_in_order(store):
    assert store.documents_after(0) == []
    for i in range(5):
        store.claim([f"url:{i}"], DocumentRecord(f"u{i}", "t", "p", "f", "f1", 100.0, text=f"body {i}"))
    assert store.claim(["url:1"], record("u1")) is False  # a refused claim leaves no gap
    store.claim(["url:5"], record("u5"))
    assert [d.url for d in store.documents_after(0)] == [f"u{i}" for i in range(6)]
    assert [d.url for d in store.documents_after(3)] == ["u3", "u4", "u5"]
    assert [d.url for d in store.documents_after(1, limit=2)] == ["u1", "u2"]
    assert store.documents_after(6) == [] and store.documents_after(99) == []
    assert store.documents_after(2)[0].text == "body 2"


def test_an_old_sqlite_file_gains_the_text_population_and_host_budget_tables(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript("""CREATE TABLE documents (id INTEGER PRIMARY KEY AUTOINCREMENT,
        url TEXT NOT NULL, title TEXT NOT NULL, published TEXT NOT NULL,
        found_at TEXT NOT NULL, forager TEXT NOT NULL, reward REAL NOT NULL);""")
    db.execute("INSERT INTO documents (url, title, published, found_at, forager, reward) "
               "VALUES ('u', 't', 'p', 'f', 'f1', 100)")
    db.commit()
    db.close()
    store = SQLiteStore(path)
    assert [d.text for d in store.documents()] == [""]
    assert store.join("f1", 10.0, 0.0) and list(store.members(0.0)) == ["f1"]
    assert store.reserve_start("host", 1, 1.0, 0.0) == 0.0 and store.reserve_start("host", 1, 1.0, 0.0) > 0
    store.close()


def _take_the_last_place(path, name, queue):
    store = SQLiteStore(path)
    now = time.time()
    queue.put([1] if store.join(name, now + 600, now, max_members=8) else [])
    store.close()


def test_eight_processes_competing_for_the_last_place_one_wins(tmp_path):
    path = tmp_path / "colony.db"
    store = SQLiteStore(path)
    now = time.time()
    for i in range(7):
        assert store.join(f"m{i}", now + 600, now)
    store.close()
    assert _race(path, _take_the_last_place, processes=8) == [1]
    assert len(SQLiteStore(path).members(time.time())) == 8


def test_is_member_while_the_lease_runs(store):
    assert not store.is_member("f1", 0.0)
    store.join("f1", lease=100.0, now=0.0)
    assert store.is_member("f1", 50.0)
    assert not store.is_member("f1", 100.0)  # the lease ran out at 100
    store.renew("f1", 200.0)
    assert store.is_member("f1", 150.0)
    store.leave("f1", now=150.0)
    assert not store.is_member("f1", 150.0)


# -- each host's budget of request starts ---------------------------------------------------------


class Clock:
    """A store clock the test moves by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now

    def at(self, seconds):
        self.now = 1000.0 + seconds
        return self


@pytest.fixture(params=KINDS)
def timed(request, make_store):
    """A store whose budgets read the clock ``timed.clock``, which starts at 0 (1000.0 s)."""
    return make_store(request.param, clock=Clock())


def test_at_most_capacity_starts_within_the_window(timed):
    clock, reserve = timed.clock, lambda: timed.reserve_start("h", 2, 1.0, 0.0)
    assert reserve() == 0.0  # a start at 0
    clock.at(0.1)
    assert reserve() == 0.0  # a start at 0.1: two within the window
    clock.at(0.2)
    assert reserve() == pytest.approx(0.8)  # until the start at 0 leaves the window
    clock.at(0.5)
    assert reserve() == pytest.approx(0.5)  # and a refusal records nothing: still 0.5 to go
    clock.at(1.0)
    assert reserve() == 0.0  # 0 left (only starts after now - 1.0 count): 0.1 and 1.0
    clock.at(1.05)
    assert reserve() == pytest.approx(0.05)  # until 0.1 leaves
    assert timed.reserve_start("other", 2, 1.0, 0.0) == 0.0  # hosts have budgets of their own


def test_starts_are_spaced(timed):
    clock, reserve = timed.clock, lambda: timed.reserve_start("h", 0, 1.0, 0.25)
    assert reserve() == 0.0
    clock.at(0.1)
    assert reserve() == pytest.approx(0.15)
    clock.at(0.25)
    assert reserve() == 0.0  # exactly the spacing after the last start
    clock.at(0.3)
    assert reserve() == pytest.approx(0.2)
    # the cap and the spacing together: the longer wait wins
    assert timed.reserve_start("both", 2, 1.0, 0.3) == 0.0
    clock.at(0.6)
    assert timed.reserve_start("both", 2, 1.0, 0.3) == 0.0
    clock.at(0.8)
    assert timed.reserve_start("both", 2, 1.0, 0.3) == pytest.approx(0.5)  # cap 0.5, spacing 0.1


def test_a_pause_holds_every_start_and_a_shorter_one_never_cuts_it_short(timed):
    clock, reserve = timed.clock, lambda: timed.reserve_start("h", 10, 1.0, 0.0)
    timed.pause_host("h", 5.0)  # until 5
    clock.at(1.0)
    assert reserve() == pytest.approx(4.0)
    timed.pause_host("h", 1.0)  # until 2: the pause until 5 stays
    clock.at(2.0)
    assert reserve() == pytest.approx(3.0)
    timed.pause_host("h", 10.0)  # until 12: a longer one extends it
    assert reserve() == pytest.approx(10.0)
    assert timed.reserve_start("other", 10, 1.0, 0.0) == 0.0  # other hosts go on
    clock.at(12.0)
    assert reserve() == 0.0


def test_a_start_that_left_late_is_moved_and_the_spacing_counts_from_it(timed):
    clock, reserve = timed.clock, lambda: timed.reserve_start("h", 2, 1.0, 0.25)
    assert reserve() == 0.0  # a start at 0 ...
    clock.at(0.2)
    timed.settle_start("h")  # ... whose request left at 0.2
    clock.at(0.3)
    assert reserve() == pytest.approx(0.15)  # 0.2 + 0.25 - 0.3, not 0
    clock.at(0.45)
    assert reserve() == 0.0  # a start at 0.45
    clock.at(0.5)
    timed.settle_start("h")  # the newest moves (0.5); the one before stays at 0.2
    timed.settle_start("h")  # twice: the same
    clock.at(1.1)
    assert reserve() == pytest.approx(0.1)  # the window: 0.2 + 1.0 - 1.1
    timed.settle_start("nowhere")  # a host without a start: nothing to move
    assert timed.reserve_start("nowhere", 2, 1.0, 0.25) == 0.0


def test_a_long_run_of_starts_keeps_to_the_window(timed):
    clock = timed.clock
    for i in range(50):
        clock.at(i * 0.5)
        assert timed.reserve_start("h", 3, 1.0, 0.0) == 0.0  # two starts a second: within 3
    clock.at(24.6)  # 24.0 and 24.5 are within the window, 23.5 left it
    assert timed.reserve_start("h", 3, 1.0, 0.0) == 0.0
    clock.at(24.7)
    assert timed.reserve_start("h", 3, 1.0, 0.0) == pytest.approx(0.3)  # until 24.0 leaves


def test_a_structured_document_comes_back_whole(store):
    """The record of a paid document (issue 18): every structured field, lists as tuples, in
    every store."""
    rich = DocumentRecord("https://s/a", "Budget talks stall", "2024-01-05T10:00:00+00:00",
                          "2024-01-05T10:02:00+00:00", "f2", 100.0, text="Senators left.",
                          description="No deal.", keywords=("budget", "Senate"),
                          authors=("Lois Lane",), site_name="Daily Planet",
                          html="<p>Senators left.</p>", language="en")
    assert store.claim(["url:https://s/a"], rich)
    assert list(store.documents()) == [rich] and store.documents_after(0) == [rich]
    assert DocumentRecord.from_dict(rich.to_dict()) == rich
    assert rich.item(True)["keywords"] == ["budget", "Senate"] and "html" not in rich.item(False)
    assert "relevance" not in rich.item(False)  # no topic: no relevance field


def test_a_document_s_relevance_to_the_topic_comes_back_in_every_store(store):
    """The topical mode (issue 20) keeps each paid document's relevance with it: the colony's
    feed and the exports read it there."""
    topical = DocumentRecord("https://s/b", "Solar farm opens", "2024-01-05T10:00:00+00:00",
                             "2024-01-05T10:02:00+00:00", "f3", 41.5, relevance=0.415)
    assert store.claim(["url:https://s/b"], topical)
    assert store.documents_after(0) == [topical]
    assert store.documents_after(0)[0].item(False)["relevance"] == 0.415


def test_an_old_sqlite_file_gains_the_structured_document_columns(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript("""CREATE TABLE documents (id INTEGER PRIMARY KEY AUTOINCREMENT,
        url TEXT NOT NULL, title TEXT NOT NULL, published TEXT NOT NULL,
        found_at TEXT NOT NULL, forager TEXT NOT NULL, reward REAL NOT NULL,
        text TEXT NOT NULL DEFAULT '');""")
    db.execute("INSERT INTO documents (url, title, published, found_at, forager, reward, text) "
               "VALUES ('u', 't', 'p', 'f', 'f1', 100, 'body')")
    db.commit()
    db.close()
    store = SQLiteStore(path)
    (old,) = store.documents()
    assert (old.text, old.keywords, old.language, old.html) == ("body", (), "", "")
    assert old.relevance is None
    store.close()


# -- the output: what the item pipelines let through ---------------------------------------------


def test_outputs_are_a_cursor_in_the_order_written(store):
    assert store.output_count() == 0 and store.outputs_after(0) == []
    items = [{"url": f"http://s/{n}", "title": f"t{n}", "extra": {"n": n, "tags": ["a", "é"]}}
             for n in range(5)]
    for n, item in enumerate(items):
        store.add_output(item, host="h1" if n % 2 else "h2", forager=f"f{n}")
    assert store.output_count() == 5
    after = store.outputs_after(2, 2)
    assert [(o.position, o.host, o.forager, o.item) for o in after] == \
        [(3, "h2", "f2", items[2]), (4, "h1", "f3", items[3])]
    assert [o.item for o in store.outputs_after(3)] == items[3:]
    assert [o.position for o in store.outputs(batch=2)] == [1, 2, 3, 4, 5]
    assert store.outputs_after(5) == [] and store.outputs_after(9, 3) == []
    # what a reader gets is its own copy
    after[0].item["title"] = "changed"
    assert store.outputs_after(2, 1)[0].item["title"] == "t2"


def test_outputs_outlive_the_connection(make_store, tmp_path):
    sqlite = make_store("sqlite", "kept")
    sqlite.add_output({"url": "http://s/1"}, host="h", forager="f1")
    sqlite.close()
    again = SQLiteStore(tmp_path / "kept.db")
    try:
        assert [o.url for o in again.outputs()] == ["http://s/1"]
    finally:
        again.close()


def test_swap_value_sets_only_what_was_expected(store):
    assert store.swap_value("slot", None, {"token": "a", "lease": 1.5})
    assert not store.swap_value("slot", None, {"token": "b"})  # taken
    assert not store.swap_value("slot", {"token": "b"}, {"token": "c"})
    held = store.get_value("slot")
    assert held == {"token": "a", "lease": 1.5}
    assert store.swap_value("slot", held, {"token": "a", "lease": 2.5})  # renewed
    assert not store.swap_value("slot", held, None)  # no longer what it was
    assert store.swap_value("slot", {"token": "a", "lease": 2.5}, None)  # released
    assert store.get_value("slot") is None
    assert store.swap_value("slot", None, {"token": "d"})


def test_a_document_record_from_an_item_a_pipeline_changed():
    item = {"url": "http://s/1", "title": 7, "keywords": "one", "authors": ["a", 2], "reward": "x",
            "relevance": "0.5", "source_project": "newsdesk"}
    record = DocumentRecord.from_item(item)
    assert (record.url, record.title, record.keywords, record.authors) == ("http://s/1", "7", ("one",), ("a", "2"))
    assert record.reward == 0.0 and record.relevance == 0.5 and record.published == ""
    with pytest.raises(ValueError, match="without a url"):
        DocumentRecord.from_item({"title": "no url"})


# -- read-only: the store as status, export, index and the dashboard read it (issue 29) ------------


def _old_store(path):
    """A store as the first release wrote it: four tables, the documents' first columns."""
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE documents (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT NOT NULL,
            title TEXT NOT NULL, published TEXT NOT NULL, found_at TEXT NOT NULL,
            forager TEXT NOT NULL, reward REAL NOT NULL);
        CREATE TABLE claims (key TEXT PRIMARY KEY, document INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE scores (forager TEXT PRIMARY KEY, score REAL NOT NULL) WITHOUT ROWID;
        CREATE TABLE urls (url TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID;
        INSERT INTO documents VALUES (1, 'a', 't', '2020-01-01T00:00:00+00:00',
            '2020-01-01T01:00:00+00:00', 'f1', 100.0);
        INSERT INTO claims VALUES ('url:a', 1);
        INSERT INTO scores VALUES ('f1', 120.0);
    """)
    db.commit()
    db.close()
    return path


def test_a_file_that_is_no_store_is_refused_in_one_line_and_left_as_it_was(tmp_path):
    """Row 4 of issue 29: another program's database, an empty file, a text file."""
    from newsforagers import store as stores
    from tests.foreign import files_that_are_no_store, on_disk

    text = tmp_path / "notes.db"
    text.write_text("not a database\n" * 50)
    refused = files_that_are_no_store(tmp_path)
    (other, _), (empty, _) = refused
    for path, words in [*refused, (text, "is no colony store: it is not an SQLite file")]:
        before = on_disk(path)
        with pytest.raises(ValueError) as refused:
            stores.open_existing_store(f"sqlite:///{path}")
        assert isinstance(refused.value, stores.NotAStore) and str(refused.value) == f"{path} {words}"
        assert on_disk(path) == before  # byte for byte, its journal mode, nothing made beside it
    assert on_disk(other)["journal"] == "rollback" and on_disk(empty)["size"] == 0


def test_an_old_store_is_read_as_it_is_and_left_unchanged(tmp_path):
    """What was added since the first release (the output, members, the structured columns)
    reads as empty; nothing is upgraded."""
    from newsforagers.store import open_existing_store
    from tests.foreign import on_disk

    path = _old_store(tmp_path / "old.db")
    before = on_disk(path)
    store = open_existing_store(f"sqlite:///{path}")
    assert store.read_only
    (old,) = store.documents()
    assert (old.url, old.text, old.keywords, old.language, old.relevance) == ("a", "", (), "", None)
    assert store.documents_after(0) == [old] and store.document_count() == 1
    assert store.outputs_after(0) == [] and store.output_count() == 0 and list(store.outputs()) == []
    assert store.scores() == {"f1": 120.0} and store.members(0.0) == {} and store.get_value("k") is None
    assert store.is_claimed("url:a") and store.claim_count() == 1 and store.url_count() == 0
    store.close()
    assert on_disk(path) == before and before["journal"] == "rollback"


@pytest.mark.parametrize("old", [False, True], ids=["today", "old"])
def test_every_write_of_a_read_only_store_is_refused(tmp_path, old):
    path = tmp_path / "colony.db"
    if old:
        _old_store(path)
    else:
        writer = SQLiteStore(path)
        assert writer.claim(["url:a"], record("a"))
        writer.close()
    before = path.read_bytes()
    store = SQLiteStore(path, read_only=True)
    writes = [lambda: store.claim(["url:b"], record("b")), lambda: store.expire_claims(1e12),
              lambda: store.add_output({"url": "b"}, "h", "f1"), lambda: store.join("f1", 1e12, 0.0),
              lambda: store.renew("f1", 1e12), lambda: store.leave("f1", 0.0),
              lambda: store.update_member("f1", {"x": 1}), lambda: store.reserve_start("h", 1, 1.0, 0.0),
              lambda: store.pause_host("h", 1.0), lambda: store.put_value("k", {}),
              lambda: store.delete_value("k"), lambda: store.swap_value("k", None, {}),
              lambda: store.set_score("f1", 1.0), lambda: store.add_score("f1", 1.0),
              lambda: store.claim_url("u", {}), lambda: store.claim_urls(["u", "v"], {}),
              lambda: store.put_url("u", {})]
    for write in writes:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            write()
    # and below the methods, SQLite itself: the file (mode=ro), and what an old store lacks
    # (temporary tables, query_only)
    for statement in ("INSERT INTO scores VALUES ('f9', 1.0)", "INSERT INTO outputs (host, forager, item) "
                      "VALUES ('h', 'f1', '{}')", "CREATE TABLE t (x)",
                      f"PRAGMA journal_mode={'WAL' if old else 'DELETE'}"):
        with pytest.raises(sqlite3.OperationalError):  # "readonly" ("disk I/O error" for the mode)
            store._db.execute(statement).fetchall()
    assert store.document_count() == 1 and store.output_count() == 0
    store.close()
    assert path.read_bytes() == before


def _crawl_beside_a_reader(path, written, read):
    """A crawl's store, open all along: a document paid for, then a wait until the reader has
    seen it, five times."""
    store = SQLiteStore(path)
    for n in range(1, 6):
        assert store.claim([f"url:{n}"], record(str(n)))
        store.add_output({"url": str(n)}, "h", "f1")
        written.put(n)
        read.get(timeout=60)
    store.close()


def test_a_read_only_store_reads_beside_a_crawl_writing_it(tmp_path):
    """The common case of status --live and the dashboard: the crawl keeps the file open in WAL
    mode, the reader sees each of its commits, and the file stays the crawl's (WAL)."""
    from tests.foreign import on_disk

    path = tmp_path / "colony.db"
    SQLiteStore(path).close()
    spawn = multiprocessing.get_context("spawn")
    written, read = spawn.Queue(), spawn.Queue()
    crawl = spawn.Process(target=_crawl_beside_a_reader, args=(path, written, read))
    crawl.start()
    try:
        n = written.get(timeout=60)
        reader = SQLiteStore(path, read_only=True)  # opened while the crawl has the file open
        seen = []
        while True:
            seen.append((reader.document_count(), reader.output_count(), [o.url for o in reader.outputs()][-1]))
            read.put(n)
            if n == 5:
                break
            n = written.get(timeout=60)
        crawl.join(timeout=60)
        assert crawl.exitcode == 0
        assert seen == [(n, n, str(n)) for n in range(1, 6)]
        assert reader.document_count() == 5  # and after the crawl closed
        reader.close()
    finally:
        crawl.join(timeout=5)
    assert on_disk(path)["journal"] == "wal"
    assert SQLiteStore(path, read_only=True).document_count() == 5


def test_sqlite_members_fields_are_decoded_once_a_text_and_follow_every_change(tmp_path, monkeypatch):
    import newsforagers.store.sqlite as sqlite_module

    path = tmp_path / "colony.db"
    writer, reader = SQLiteStore(path), SQLiteStore(path)  # (two foragers' processes)
    writer.join("f1", lease=100.0, now=0.0)
    writer.update_member("f1", {"demands": {"a": 1.0}})
    decoded = []
    loads = sqlite_module.json.loads
    monkeypatch.setattr(sqlite_module.json, "loads", lambda text: decoded.append(text) or loads(text))
    first = reader.members(0.0)["f1"].fields
    assert reader.members(0.0)["f1"].fields == first == {"demands": {"a": 1.0}}
    assert len(decoded) == 1  # the same text: read once
    writer.update_member("f1", {"demands": {"a": 2.0, "b": 0.5}})
    decoded.clear()
    assert reader.members(0.0)["f1"].fields == {"demands": {"a": 2.0, "b": 0.5}}  # changed: read again
    assert len(decoded) == 1
    writer.close()
    reader.close()
