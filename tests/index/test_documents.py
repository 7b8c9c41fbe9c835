"""The search index: BM25 ranking with the title first, filters and facets, an incremental and
idempotent follow of a colony store, hostile queries, snippets."""

from __future__ import annotations

import random
import re
import sqlite3
import threading
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest

from newsforagers.index import DocumentIndex, Hit, IndexBroken
from newsforagers.replay.synth import synth_records
from newsforagers.store import DocumentRecord, MemoryStore, SQLiteStore
from tests.outputs import output

T0 = datetime(2024, 3, 4, 8, 0, tzinfo=timezone.utc)


def record(url, title, text="", *, description="", keywords=(), language="en", found=0, published=None):
    """A paid document found ``found`` hours after T0 (published an hour before, unless said)."""
    found_at = T0 + timedelta(hours=found)
    return DocumentRecord(url, title, published or (found_at - timedelta(hours=1)).isoformat(),
                          found_at.isoformat(), "f1", 100.0, text=text, description=description,
                          keywords=tuple(keywords), language=language)


def synthetic(n_days=1.0, seed=3) -> list[DocumentRecord]:
    """The synthetic corpus's articles as the documents a colony paid for, found 5 minutes after
    their publication."""
    records = []
    for article in synth_records(days=n_days, rate=200, sections=12, seed=seed):
        published = datetime.fromisoformat(article["published"])
        records.append(DocumentRecord(
            article["url"], article["title"], article["published"],
            (published + timedelta(minutes=5)).isoformat(), "f1", 100.0, text=article["body"],
            description=article["summary"], keywords=tuple(article["sections"]), language="en"))
    return records


@pytest.fixture
def index(tmp_path):
    with DocumentIndex(tmp_path / "colony.index.sqlite") as made:
        yield made


def test_a_word_only_one_title_holds_finds_that_document_first(index):
    records = synthetic()
    assert index.add(records) == len(records) == index.count()
    # words are stemmed (regulators finds regulator): a word counts as one title's own when no
    # other title has a word that begins with the same five letters
    titles = [set(re.findall(r"[a-z]{6,}", r.title.lower())) for r in records]
    counts = Counter(stem for words in titles for stem in {word[:5] for word in words})
    checked = 0
    for i, words in enumerate(titles):
        for word in sorted(w for w in words if counts[w[:5]] == 1):
            hits = index.search(word)
            assert hits[0].url == records[i].url, (word, hits[0].title, records[i].title)
            checked += 1
    assert checked >= 3  # the synthetic titles draw on few words: places and actors are unique


def test_a_title_outranks_the_description_which_outranks_the_text(index):
    # (a word of the title weighs as much as ten of the text, one of the description four)
    body = "The airship flew over the harbour. " + "Boats and cranes and gulls. " * 20
    index.add([
        record("http://s/text", "Harbour news", "A zeppelin, the zeppelin, zeppelin. " + body),
        record("http://s/description", "Harbour news", body, description="A zeppelin over the port"),
        record("http://s/title", "A zeppelin over the port", body),
        record("http://s/other", "Harbour news", body),
    ])
    hits = index.search("zeppelin")
    assert [hit.url for hit in hits] == ["http://s/title", "http://s/description", "http://s/text"]
    assert all(hit.score < 0 and hit.relevance == -hit.score for hit in hits)
    assert hits[0].relevance > hits[1].relevance > hits[2].relevance


def test_every_word_must_appear_phrases_as_phrases_and_prefixes_match(index):
    index.add([record("http://s/1", "City budget vote", "The mayor spoke."),
               record("http://s/2", "Budget of the city", "A vote is due."),
               record("http://s/3", "Elections in Riverton", "Voters went to the polls.")])
    assert {h.url for h in index.search("budget vote")} == {"http://s/1", "http://s/2"}
    assert [h.url for h in index.search('"city budget"')] == ["http://s/1"]
    assert [h.url for h in index.search("elect*")] == ["http://s/3"]
    # stemmed, without case or diacritics
    assert [h.url for h in index.search("ELECTION voter")] == ["http://s/3"]
    assert [h.url for h in index.search("Rivertón")] == ["http://s/3"]
    assert index.search("budget mayor riverton") == []


def test_filters_on_the_time_found_and_the_language(index):
    index.add([record("http://s/en-old", "Storm warning", found=0),
               record("http://s/en-new", "Storm warning", found=48),
               record("http://s/es-new", "Storm warning", language="es", found=50),
               record("http://s/fr-new", "Storm warning", language="fr", found=60,
                      published=(T0 - timedelta(days=30)).isoformat())])
    since = T0 + timedelta(days=1)
    assert {h.url for h in index.search("storm", since=since)} == {"http://s/en-new", "http://s/es-new",
                                                                  "http://s/fr-new"}
    assert [h.url for h in index.search("storm", lang="es")] == ["http://s/es-new"]
    assert [h.url for h in index.search("storm", since=since, lang="EN")] == ["http://s/en-new"]
    # a naive time is UTC
    assert len(index.search("storm", since=since.replace(tzinfo=None))) == 3
    # equal scores: the newest found first; limit and offset page through them
    assert [h.url for h in index.search("storm", limit=2)] == ["http://s/fr-new", "http://s/es-new"]
    assert [h.url for h in index.search("storm", limit=2, offset=2)] == ["http://s/en-new", "http://s/en-old"]
    assert index.search("storm", limit=0) == []


def test_facets_count_languages_and_days_of_publication(index):
    index.add([record("http://s/1", "Flood in the valley", published="2024-03-01T23:30:00-05:00", found=1),
               record("http://s/2", "Flood defence plan", published="2024-03-02T10:00:00+00:00", found=2),
               record("http://s/3", "Flood relief", language="es", published="2024-03-02T11:00:00+00:00", found=30),
               record("http://s/4", "Harvest festival", language="", published="not a date", found=40)])
    assert index.facets() == {"language": [("en", 2), ("", 1), ("es", 1)],
                              # the day as the page dates itself (23:30 at -05:00 is March 1st there)
                              "day": [("2024-03-01", 1), ("2024-03-02", 2)]}
    assert index.facets("flood") == {"language": [("en", 2), ("es", 1)],
                                     "day": [("2024-03-01", 1), ("2024-03-02", 2)]}
    assert index.facets("flood", since=T0 + timedelta(hours=2)) == {
        "language": [("en", 1), ("es", 1)], "day": [("2024-03-02", 2)]}
    assert index.facets(lang="es") == {"language": [("es", 1)], "day": [("2024-03-02", 1)]}
    assert index.facets("-") == {"language": [], "day": []}
    with pytest.raises(ValueError, match="empty"):
        index.facets("  ")


def test_latest_is_newest_found_first_with_the_description_or_the_text_s_beginning(index):
    long_text = "Word " * 200
    index.add([record("http://s/1", "One", "Text of one.", description="Said of one.", found=1),
               record("http://s/3", "Three", long_text, found=3),
               record("http://s/2", "Two", "Text [of] two.", found=2)])
    latest = index.latest(limit=3)
    assert [h.url for h in latest] == ["http://s/3", "http://s/2", "http://s/1"]
    assert latest[2].snippet == "Said of one." and latest[1].snippet == "Text (of) two."
    assert latest[0].snippet.endswith("…") and len(latest[0].snippet) <= 241
    assert all(h.score == 0.0 for h in latest)
    assert len(index.latest(limit=2)) == 2


def test_snippets_mark_the_matched_words_with_brackets_and_nothing_else(index):
    index.add([record("http://s/1", "Harbour [live] news",
                      "Ships waited. " * 30 + "The [lighthouse] keeper saw the storm coming. " + "Gulls. " * 30,
                      description="A keeper's night"),
               record("http://s/2", "Night at sea", "Nothing here.", description="The storm keeper's log"),
               record("http://s/3", "Storm keeper", "Nothing here.", description="No match [here]")])
    hits = {h.url: h for h in index.search("storm keeper")}
    # from the main text where it matches, around the match, cut with an ellipsis
    assert hits["http://s/1"].snippet.startswith("…") and hits["http://s/1"].snippet.endswith("…")
    assert "The (lighthouse) [keeper] saw the [storm] coming." in hits["http://s/1"].snippet
    # else from the description, else from the best column (here the title)
    assert hits["http://s/2"].snippet == "The [storm] [keeper]'s log"
    assert hits["http://s/3"].snippet == "[Storm] [keeper]"
    for hit in hits.values():  # every bracket is a marker: the documents' own became parentheses
        assert re.fullmatch(r"[^\[\]]*(\[[^\[\]]+\][^\[\]]*)+", hit.snippet), hit.snippet
    assert hits["http://s/1"].title == "Harbour [live] news"  # what is shown stays as it was


@pytest.mark.parametrize("query", ["AND(", '"', "*", ":", "-", "OR", "NOT storm", "storm AND", "storm OR",
                                   "NEAR(storm keeper, 2)", "title:storm", "{title text}: storm", "^storm",
                                   "storm*", "**storm", "st*rm", "'storm'", '"storm', 'storm"', '""storm""',
                                   "(storm", "storm)", "+storm", "storm -keeper", "\\", "'; DROP TABLE documents; --",
                                   "🌩 storm", "x" * 5000, "storm " * 1000])
def test_hostile_queries_give_results_or_none_never_an_error(index, query):
    index.add([record("http://s/1", "Storm keeper", "A storm and a keeper.")])
    hits = index.search(query)
    assert isinstance(hits, list) and all(isinstance(hit, Hit) for hit in hits)
    index.facets(query)
    assert index.count() == 1


def test_random_garbage_never_raises(index):
    index.add([record("http://s/1", "Storm keeper", "A storm and a keeper.")])
    rng = random.Random(5)
    alphabet = 'aAsS "*:-()^+{}[],.\'\\/NEAROTD\n\t0é'
    for _ in range(500):
        index.search("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 20))) + "x")


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_a_clear_error(index, query):
    with pytest.raises(ValueError, match="the query is empty"):
        index.search(query)


@pytest.mark.parametrize("make_store", [lambda tmp: MemoryStore(), lambda tmp: SQLiteStore(tmp / "colony.db")],
                         ids=["memory", "sqlite"])
def test_follow_indexes_what_the_store_output_since_the_last_look(tmp_path, make_store):
    store = make_store(tmp_path)
    records = synthetic()
    first, then = records[:150], records[150:]
    for r in first:
        assert output(store, [f"url:{r.url}"], r)
    index = DocumentIndex(tmp_path / "colony.index.sqlite")
    assert index.follow(store, batch=40) == 150 and index.position == 150
    assert index.follow(store) == 0  # nothing new: nothing indexed again
    for r in then:
        output(store, [f"url:{r.url}"], r)
    assert index.follow(store, batch=1000, limit=10) == 10 and index.position == 160  # at most `limit`
    assert index.follow(store, batch=7) == len(then) - 10
    assert index.count() == index.position == store.output_count() == len(records)
    index.close()
    # another process (a new object on the file) goes on from there
    with DocumentIndex(tmp_path / "colony.index.sqlite") as again:
        assert again.position == len(records) and again.follow(store) == 0
    store.close()


def test_a_document_is_indexed_once_however_often_it_comes(tmp_path):
    records = synthetic()[:50]
    store = MemoryStore()
    for r in records:
        output(store, [f"url:{r.url}"], r)
    index = DocumentIndex(tmp_path / "i.sqlite")
    assert index.add(records[:20]) == 20
    assert index.add(records[:20] + records[:5]) == 0  # the URL is the key
    assert index.follow(store) == 30  # the 20 added by hand are not new
    assert index.count() == 50 and index.position == 50


def test_two_followers_racing_on_one_file_index_each_document_once(tmp_path):
    store_path = tmp_path / "colony.db"
    writer = SQLiteStore(store_path)
    for r in synthetic(n_days=2):
        output(writer, [f"url:{r.url}"], r)
    added = []

    def follower():
        store = SQLiteStore(store_path)
        with DocumentIndex(tmp_path / "colony.index.sqlite") as index:
            added.append(sum(index.follow(store, batch=25) for _ in range(3)))
        store.close()

    threads = [threading.Thread(target=follower) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    with DocumentIndex(tmp_path / "colony.index.sqlite") as index:
        assert index.count() == 400 == sum(added) and index.position == 400
    writer.close()


def test_an_index_given_another_store_follows_it_from_its_start(tmp_path, caplog):
    index = DocumentIndex(tmp_path / "memory.index.sqlite")
    earlier = MemoryStore()  # one colony's memory:// store; the next colony's starts empty again
    for i in range(5):
        output(earlier, [f"u{i}"], record(f"http://s/old-{i}", f"Old story {i}"))
    assert index.follow(earlier) == 5
    later = MemoryStore()
    for i in range(8):
        output(later, [f"u{i}"], record(f"http://s/new-{i}", f"New story {i}"))
    with caplog.at_level("INFO", logger="newsforagers.index.documents"):
        assert index.follow(later) == 8
    assert "following it from its start" in caplog.text
    assert index.count() == 13 and index.position == 8
    assert index.follow(later) == 0


def test_the_file_is_made_on_first_use_and_a_foreign_file_is_refused(tmp_path):
    path = tmp_path / "sub" / "colony.index.sqlite"
    index = DocumentIndex(path)
    assert not path.parent.exists()  # building it does no I/O
    assert index.count() == 0 and path.exists()
    index.close()
    with pytest.raises(ValueError, match="closed"):
        index.count()
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(IndexBroken, match="no newsforagers index"):
        DocumentIndex(junk).count()
    # a colony store given for its index is refused, and left as it was
    store = SQLiteStore(tmp_path / "colony.db")
    store.close()
    tables = sqlite3.connect(tmp_path / "colony.db").execute("SELECT count(*) FROM sqlite_master").fetchone()
    with pytest.raises(IndexBroken, match="a colony store"):
        DocumentIndex(tmp_path / "colony.db").search("x")
    assert sqlite3.connect(tmp_path / "colony.db").execute("SELECT count(*) FROM sqlite_master").fetchone() == tables


def test_a_hit_as_a_dict_carries_its_relevance(index):
    index.add([record("http://s/1", "Storm keeper", "A storm.")])
    data = index.search("storm")[0].to_dict()
    assert set(data) == {"url", "title", "snippet", "published", "found_at", "forager", "language",
                         "score", "relevance"}
    assert data["relevance"] == -data["score"] > 0


def test_a_query_matching_more_than_ranked_max_is_ranked_among_the_matches_indexed_last(tmp_path):
    index = DocumentIndex(tmp_path / "i.sqlite", ranked_max=5)
    index.add([record("http://s/title-match", "Storm over the valley", "A storm.", found=0)])
    index.add([record(f"http://s/{i}", f"Story {i}", "A storm came.", language="es" if i % 2 else "en",
                      found=i) for i in range(1, 12)])
    urls = [h.url for h in index.search("storm", limit=20)]
    assert urls == ["http://s/11", "http://s/10", "http://s/9", "http://s/8", "http://s/7"]
    # the filters first, then the cap: the last five matches in Spanish
    assert [h.url for h in index.search("storm", lang="es", limit=20)] == [
        "http://s/11", "http://s/9", "http://s/7", "http://s/5", "http://s/3"]
    assert [h.url for h in index.search("valley")] == ["http://s/title-match"]  # a narrow query: all
    assert sum(n for _, n in index.facets("storm")["language"]) == 12  # counts are never capped
    uncapped = DocumentIndex(tmp_path / "i.sqlite", ranked_max=0)
    assert uncapped.search("storm")[0].url == "http://s/title-match"


# -- read-only: what search and the dashboard open (issue 29, row 8) --------------------------------


def test_a_read_only_index_is_never_made_nor_written(tmp_path):
    from tests.foreign import another_programs_database, on_disk

    missing = tmp_path / "sub" / "colony.index.sqlite"
    with pytest.raises(IndexBroken, match="it does not exist"):
        DocumentIndex(missing, read_only=True).count()
    assert not missing.parent.exists()
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    other = another_programs_database(tmp_path / "other.sqlite")
    SQLiteStore(tmp_path / "colony.db").close()
    for path, words in ((empty, "it is empty \\(0 bytes\\)"), (other, "no newsforagers index"),
                        (tmp_path / "colony.db", "a colony store")):
        before = on_disk(path)
        with pytest.raises(IndexBroken, match=words):
            DocumentIndex(path, read_only=True).search("x")
        assert on_disk(path) == before
    assert on_disk(empty)["size"] == 0 and on_disk(other)["journal"] == "rollback"
    # an index: read, never written (by the methods, or below them)
    with DocumentIndex(tmp_path / "index.sqlite") as writer:
        writer.add([record("http://s/1", "Storm keeper", "A storm.")])
    before = (tmp_path / "index.sqlite").read_bytes()
    with DocumentIndex(tmp_path / "index.sqlite", read_only=True) as index:
        assert [hit.url for hit in index.search("storm")] == ["http://s/1"] and index.count() == 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            index.add([record("http://s/2", "Storm again")])
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            index.follow(MemoryStore())
        with pytest.raises(sqlite3.OperationalError, match="readonly"):  # and SQLite below them
            index._connection().execute("UPDATE meta SET value = '9' WHERE key = 'position'")
        assert index.count() == 1
    assert (tmp_path / "index.sqlite").read_bytes() == before
    with pytest.raises(ValueError, match="in memory"):
        DocumentIndex(":memory:", read_only=True)


def test_a_read_only_index_sees_what_a_writer_adds_while_it_is_open(tmp_path):
    path = tmp_path / "colony.index.sqlite"
    with DocumentIndex(path) as writer, DocumentIndex(path, read_only=True) as reader:
        for n in range(3):
            writer.add([record(f"http://s/{n}", f"Storm {n}", "A storm.")])
            assert reader.count() == n + 1 and len(reader.search("storm")) == n + 1
