"""The colony's URL records (the i-Bot paper's URL broker, store/records.py) in every store:
memory, SQLite and Redis (fakeredis here; a real server in test_redis.py)."""

from __future__ import annotations

import hashlib

import pytest

from newsforagers.store import records
from tests.store.test_stores import KINDS, make_store, store  # noqa: F401 (fixtures)

T1, T2, T3 = "2024-01-01T10:00:00+00:00", "2024-01-01T10:05:00+00:00", "2024-01-01T10:09:00+00:00"
HOME = "http://site.example:8080/"
STORY = "http://site.example:8080/news/a.html?b=2&a=1"


def test_a_page_read_records_its_fetch_and_creates_its_links_in_one_call(store):
    calls = store.calls
    created = store.record_page(HOME, 200, "f1", T1, [STORY, STORY.replace("?b=2&a=1", "?a=1&b=2"),
                                                      HOME + "section/world/"], "listing",
                                etag='"v1"', last_modified="Mon, 01 Jan 2024 09:58:00 GMT")
    assert created == 3  # the page and its two distinct links (two spellings of STORY are one)
    if store.calls:  # a store on a server: one request for the whole page
        assert store.calls == calls + 1
    home = store.get_url_record(HOME)
    canonical = "http://site.example:8080/"
    assert home == {
        "url_id": hashlib.md5(canonical.encode()).hexdigest(), "url": canonical,
        "host": "site.example", "port": 8080, "resource": "/", "state": 200, "in_links": 0,
        "out_links": 2, "first_seen": T1, "last_fetched": T1, "updated": T1, "etag": '"v1"',
        "last_modified": "Mon, 01 Jan 2024 09:58:00 GMT", "language": "", "found_by": "f1",
        "fetched_by": "f1"}
    story = store.get_url_record(STORY)
    assert story["url"] == "http://site.example:8080/news/a.html?a=1&b=2"
    assert story["resource"] == "/news/a.html?a=1&b=2" and story["port"] == 8080
    # never fetched: the kind of page it came from, who found it, one in-link
    assert (story["state"], story["in_links"], story["found_by"], story["fetched_by"]) == ("listing", 1, "f1", "")
    assert story["last_fetched"] == "" and story["first_seen"] == T1
    assert store.get_url_record("http://site.example:8080/never/") is None


def test_in_links_add_up_and_a_fetch_takes_the_state_the_forager_and_the_language(store):
    store.record_links(HOME, [STORY], "f1", "listing", T1)
    assert store.record_links(HOME + "section/world/", [STORY, HOME], "f2", "listing", T2) == 1
    story = store.get_url_record(STORY)
    assert story["in_links"] == 2 and story["found_by"] == "f1" and story["updated"] == T2
    store.record_page(STORY, 200, "f3", T3, [HOME], "article", etag='W/"a"', language="en")
    story = store.get_url_record(STORY)
    assert (story["state"], story["fetched_by"], story["language"], story["etag"]) == (200, "f3", "en", 'W/"a"')
    assert story["in_links"] == 2 and story["out_links"] == 1 and story["first_seen"] == T1
    assert store.get_url_record(HOME)["in_links"] == 2  # from the section front, and the story


def test_a_304_keeps_the_colony_s_copy_and_an_error_keeps_the_validators(store):
    store.record_page(HOME, 200, "f1", T1, [STORY], "listing", etag='"v1"',
                      last_modified="Mon, 01 Jan 2024 09:58:00 GMT", language="")
    store.record_fetch(HOME, 304, "f2", T2)  # a 304 that repeats no validator
    home = store.get_url_record(HOME)
    assert (home["state"], home["last_fetched"], home["fetched_by"]) == (304, T2, "f2")
    assert home["etag"] == '"v1"' and home["last_modified"] == "Mon, 01 Jan 2024 09:58:00 GMT"
    assert home["out_links"] == 1  # nothing re-read
    store.record_fetch(HOME, 304, "f2", T2, etag='"v2"')
    assert store.get_url_record(HOME)["etag"] == '"v2"'
    store.record_fetch(HOME, 503, "f1", T3)
    home = store.get_url_record(HOME)
    assert (home["state"], home["last_fetched"], home["updated"], home["etag"]) == (503, T2, T3, '"v2"')
    store.record_fetch(HOME, 200, "f1", T3)  # a new copy without validators: none kept
    home = store.get_url_record(HOME)
    assert home["etag"] == home["last_modified"] == "" and home["last_fetched"] == T3


def test_url_records_sit_beside_the_url_s_own_record(store):
    """A URL the colony has seen is still free to be queued: its record is not the URL's own."""
    store.record_links(HOME, [STORY], "f1", "listing", T1)
    assert store.get_url(STORY) is None
    assert store.claim_urls([STORY], {"queued_by": "f1"}) == [STORY]
    assert store.get_url_record(STORY)["in_links"] == 1


@pytest.mark.parametrize("kind", KINDS)
def test_url_records_and_per_url_records_share_one_cap(kind, make_store):  # noqa: F811
    capped = make_store(kind, url_records_max=4)
    assert capped.claim_urls(["q1", "q2"], {"queued_by": "f1"}) == ["q1", "q2"]
    capped.record_links(HOME, [HOME + "1", HOME + "2", HOME + "3"], "f1", "listing", T1)
    assert capped.url_count() == 4 and capped.evicted_urls == 1
    assert capped.get_url("q1") is None and capped.get_url("q2") == {"queued_by": "f1"}
    capped.record_links(HOME, [HOME + "1"], "f1", "listing", T2)  # rewritten: the most recent
    capped.claim_url("q3", {"queued_by": "f1"})
    assert capped.get_url("q2") is None and capped.get_url_record(HOME + "1")["in_links"] == 2


def test_a_hostile_validator_is_not_kept(store):
    store.record_fetch(HOME, 200, "f1", T1, etag='"' + "x" * 10_000 + '"', last_modified="y" * 10_000)
    home = store.get_url_record(HOME)
    assert home["etag"] == home["last_modified"] == ""


def test_writes_do_not_depend_on_the_record_they_find():
    """What lets Redis apply a write in Lua: the changes come from the fetch alone."""
    write = records.fetch_write(HOME, 304, "f2", T2, etag='"v1"')
    assert write.changes == {"state": 304, "fetched_by": "f2", "updated": T2, "last_fetched": T2,
                             "etag": '"v1"'}
    old = {**write.new, "in_links": 5, "language": "en"}
    assert records.apply(old, write)["in_links"] == 5 and records.apply(old, write)["language"] == "en"
    assert records.new_record("http://h:99999/x", T1, "f1")["port"] == 0  # recorded, its port not
    assert records.new_record("https://H.example/a b", T1, "f1")["host"] == "h.example"


@pytest.mark.parametrize("cap", [0, 40])
def test_sqlite_applies_url_records_in_sql_as_python_does(tmp_path, cap):
    """The SQLite store updates URL records with SQLite's JSON functions (no record read into
    Python); a SQLite without them applies them in Python (records.apply): the same records,
    the same in-links, the same ones evicted at the cap, through random pages and fetches."""
    import random

    from newsforagers.store import SQLiteStore

    in_sql = SQLiteStore(tmp_path / "sql.db", url_records_max=cap)
    here = SQLiteStore(tmp_path / "here.db", url_records_max=cap)
    here._json_in_sql = False
    assert in_sql._json_in_sql  # (this machine's SQLite has them: the path under test)
    rng = random.Random(7)
    urls = [f"http://s{rng.randrange(3)}.example/p/{i}?q=ü{i}" for i in range(90)]
    for step in range(120):
        now = f"2024-01-01T10:{step // 60:02d}:{step % 60:02d}+00:00"
        page, links = rng.choice(urls), rng.sample(urls, rng.randrange(0, 25))
        links += links[:3]  # a link twice on one page
        kind = rng.choice(["listing", "article"])
        status = rng.choice([200, 200, 304, 404])
        args = (page, status, f"f{rng.randrange(4)}", now, links, kind)
        options = {"etag": rng.choice(["", f'"v{step}"']), "language": rng.choice(["", "en", "fr"])}
        assert in_sql.record_page(*args, **options) == here.record_page(*args, **options)
        if rng.random() < 0.3:
            fetched = (rng.choice(urls), rng.choice([200, 304, 500]), "f9", now)
            out_links = rng.choice([None, rng.randrange(9)])
            in_sql.record_fetch(*fetched, out_links=out_links)
            here.record_fetch(*fetched, out_links=out_links)
    assert in_sql.url_count() == here.url_count() and in_sql.evicted_urls == here.evicted_urls
    if cap:
        assert in_sql.evicted_urls > 0
    assert {u: in_sql.get_url_record(u) for u in urls} == {u: here.get_url_record(u) for u in urls}
    in_sql.close()
    here.close()
