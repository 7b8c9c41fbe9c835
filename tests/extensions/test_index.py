"""The root keeps the colony's search index current: small batches on the reactor's thread, a
last look after the other foragers ended, one ERROR line and no indexing when the file is
broken, nothing at all in a forager that is not the root or with FORAGERS_INDEX=off."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from types import SimpleNamespace

import pytest
from scrapy import Spider
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from newsforagers.context import context_of
from newsforagers.extensions.index import INDEX_BATCH, IndexExtension
from newsforagers.index import DocumentIndex
from newsforagers.spiders.forager import ForagerSpider
from newsforagers.store import DocumentRecord, MemoryStore, SQLiteStore, open_store
from tests.outputs import output


def paid(store, n, start=0):
    """``n`` documents paid for and output (the index follows the output)."""
    for i in range(start, start + n):
        assert output(store, [f"url:http://s/{i}"], DocumentRecord(
            f"http://s/{i}", f"Story {i} about the harbour", "2024-01-01T10:00:00+00:00",
            "2024-01-01T10:05:00+00:00", "f2", 100.0, text=f"Text of story {i}.", language="en"))


def extension(tmp_path, store_url, store=None, root=True, **settings):
    """The extension as Scrapy builds it for a forager's crawler, its context given the colony
    the scheduler would assemble (the store's object; the root or not)."""
    crawler = get_crawler(ForagerSpider, {"FORAGERS_STORE": store_url, **settings})
    made = IndexExtension.from_crawler(crawler)
    made.context.colony = SimpleNamespace(hosting=True, root=crawler if root else object(),
                                          store=store if store is not None else open_store(store_url))
    crawler.stats.open_spider()
    return made


def run_colony(ext, between=lambda: None):
    """The root's life as the reactor runs it: opened, ``between()`` while it crawls, closed."""
    async def life():
        ext.spider_opened(None)
        between()
        ext.spider_closed(None)

    asyncio.run(life())


def test_the_index_is_beside_the_store_unless_said_and_off_means_none(tmp_path, caplog):
    made = extension(tmp_path, f"sqlite:///{tmp_path}/colony.db")
    assert made.path == tmp_path / "colony.index.sqlite" and made.interval == 1.0
    assert extension(tmp_path, "memory://", FORAGERS_INDEX=str(tmp_path / "mine.sqlite"),
                     FORAGERS_INDEX_INTERVAL="0.5").path == tmp_path / "mine.sqlite"
    with caplog.at_level(logging.DEBUG), pytest.raises(NotConfigured) as off:
        IndexExtension.from_crawler(get_crawler(ForagerSpider, {"FORAGERS_INDEX": "off"}))
    # the user's choice: said at INFO, never as Scrapy's WARNING for a NotConfigured with a message
    assert not off.value.args
    # (once as get_crawler builds the crawler's extensions, once here)
    assert {(r.levelname, r.getMessage()) for r in caplog.records if r.name == "newsforagers.extensions.index"} == \
        {("INFO", "index: FORAGERS_INDEX is off: no search index")}
    with pytest.raises(NotConfigured, match="only serves forager spiders"):
        IndexExtension.from_crawler(get_crawler(Spider, {"ADDONS": {"newsforagers.addon.ForagersAddon": 0}}))


def test_the_add_on_enables_it():
    crawler = get_crawler(ForagerSpider, {})
    assert "newsforagers.extensions.index.IndexExtension" in crawler.settings.getdict("EXTENSIONS")
    assert context_of(crawler).config.index == ""


def test_a_tick_indexes_a_small_batch_and_the_last_look_the_rest(tmp_path):
    store = MemoryStore()
    ext = extension(tmp_path, "memory://", store=store, FORAGERS_INDEX=str(tmp_path / "i.sqlite"))
    paid(store, INDEX_BATCH + 7)

    def crawling():
        assert ext.tick() is True  # a full batch: more may be waiting
        assert ext.index.count() == INDEX_BATCH
        assert ext.tick() is False and ext.index.count() == INDEX_BATCH + 7
        paid(store, 5, start=1000)  # paid by the others as the colony ends

    run_colony(ext, crawling)
    assert ext.index is None  # closed with the crawler
    with DocumentIndex(tmp_path / "i.sqlite") as index:
        assert index.count() == INDEX_BATCH + 12 and index.search("harbour", limit=1)
    assert ext.crawler.stats.get_value("newsforagers/index/documents") == INDEX_BATCH + 12


def test_the_last_look_reads_an_sqlite_store_the_colony_has_closed(tmp_path):
    url = f"sqlite:///{tmp_path}/colony.db"
    colony_store = SQLiteStore(tmp_path / "colony.db")
    ext = extension(tmp_path, url, store=colony_store)

    def crawling():
        paid(colony_store, 3)
        colony_store.close()  # the colony closes its store before the root's spider_closed

    run_colony(ext, crawling)
    with DocumentIndex(tmp_path / "colony.index.sqlite") as index:
        assert index.count() == 3


def test_a_forager_that_is_not_the_root_keeps_no_index(tmp_path):
    ext = extension(tmp_path, f"sqlite:///{tmp_path}/colony.db", root=False)
    run_colony(ext)
    assert not (tmp_path / "colony.index.sqlite").exists()


def test_a_broken_index_is_one_error_line_and_the_crawl_goes_on(tmp_path, caplog):
    (tmp_path / "colony.index.sqlite").write_bytes(b"this is no database" * 100)
    store = MemoryStore()
    paid(store, 3)
    ext = extension(tmp_path, "memory://", store=store, FORAGERS_INDEX=str(tmp_path / "colony.index.sqlite"))
    with caplog.at_level(logging.INFO):
        run_colony(ext, lambda: ext.tick())
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "the crawl goes on without indexing" in errors[0].getMessage()
    assert not errors[0].exc_info  # an expected failure: no traceback
    assert ext.crawler.stats.get_value("newsforagers/index/failed") == 1


def test_another_writer_holding_the_index_only_delays_a_tick(tmp_path):
    store = MemoryStore()
    ext = extension(tmp_path, "memory://", store=store, FORAGERS_INDEX=str(tmp_path / "i.sqlite"))
    paid(store, 3)

    def crawling():
        other = sqlite3.connect(tmp_path / "i.sqlite", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # e.g. `newsforagers index --follow` on the same file
        assert ext.tick() is False and ext.index is not None
        assert ext.crawler.stats.get_value("newsforagers/index/busy") == 1
        other.execute("ROLLBACK")
        other.close()
        ext.tick()
        assert ext.index.count() == 3

    run_colony(ext, crawling)
    assert ext.crawler.stats.get_value("newsforagers/index/failed") is None


@pytest.mark.parametrize("settings, message", [
    ({"FORAGERS_INDEX_INTERVAL": 0}, r"FORAGERS_INDEX_INTERVAL \(0.0\) must be > 0 seconds\."),
    ({"FORAGERS_STORE": "sqlite:///.newsforagers/colony.db", "FORAGERS_INDEX": "./.newsforagers/colony.db"},
     r"FORAGERS_INDEX \('./.newsforagers/colony.db'\) must be another file than the store's"),
])
def test_bad_settings_name_the_setting(settings, message):
    from newsforagers.config import ForagersConfig

    with pytest.raises(ValueError, match=message):
        ForagersConfig.from_settings(settings)
