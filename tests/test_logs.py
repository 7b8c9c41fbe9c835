"""A colony's log (newsforagers.logs): one start-up banner, whichever task a forager starts in,
and the page-reading libraries' DEBUG lines only when FORAGERS_LIBRARY_LOG_LEVEL asks for them.
The banner of a real colony is checked by tests/integration/test_logs.py."""

from __future__ import annotations

import asyncio
import logging

import pytest
from scrapy.crawler import Crawler

from newsforagers.logs import LIBRARY_LOGGERS, STARTUP_LINES, OneStartupBanner, one_startup_banner
from newsforagers.pages.document import structured_document
from newsforagers.spiders.forager import ForagerSpider

STORY = " ".join(f"Residents of the harbour town number {i} said the water rose quickly and the "
                 "roads were closed." for i in range(12))
ARTICLE = (f"<html><head><title>Storm hits</title></head><body><nav><a href='/'>Home</a></nav>"
           f"<article><h1>Storm hits</h1><p>{STORY}</p><p>{STORY}</p></article>"
           "<footer>Contact us</footer></body></html>")


@pytest.fixture
def library_levels():
    """The libraries' logger levels are the process's: put them back after the test."""
    before = {name: logging.getLogger(name).level for name in LIBRARY_LOGGERS}
    yield
    for name, level in before.items():
        logging.getLogger(name).setLevel(level)


def startup(name: str, child: bool) -> None:
    """What a forager's crawl task does as it starts: its spider says what it is, then Scrapy
    logs the crawler's start-up lines, and lines of its own."""
    one_startup_banner(child)
    logging.getLogger("scrapy.crawler").info("Overridden settings:\n%(settings)s",
                                             {"settings": {"JOBDIR": name}})
    logging.getLogger("scrapy.middleware").info("Enabled %(componentname)ss:\n%(enabledlist)s",
                                                {"componentname": "extension", "enabledlist": name})
    logging.getLogger("scrapy.crawler").info("%s is running", name)


def test_a_child_forager_s_start_up_lines_are_dropped_in_its_own_task_only(caplog):
    async def colonies():
        # every crawl of Scrapy's AsyncCrawlerRunner is a task of its own
        await asyncio.create_task(_start("root", child=False))
        await asyncio.create_task(_start("f2", child=True))
        await asyncio.create_task(_start("f3", child=True, spawns=("f4", True)))
        # a second colony in the same process, after (or beside) the first: its own banner
        await asyncio.create_task(_start("second root", child=False))
        logging.getLogger("scrapy.crawler").info("Overridden settings:\n%(settings)s",
                                                 {"settings": {"JOBDIR": "outside"}})

    async def _start(name, child, spawns=None):
        startup(name, child)
        if spawns:  # a split: the child's crawl is a task made from this one's
            await asyncio.create_task(_start(spawns[0], child=spawns[1]))

    with caplog.at_level(logging.DEBUG):
        asyncio.run(colonies())
    banners = [r.getMessage() for r in caplog.records if (r.name, r.msg) in STARTUP_LINES]
    assert banners == [
        "Overridden settings:\n{'JOBDIR': 'root'}", "Enabled extensions:\nroot",
        "Overridden settings:\n{'JOBDIR': 'second root'}", "Enabled extensions:\nsecond root",
        "Overridden settings:\n{'JOBDIR': 'outside'}",
    ]
    # the children's other lines stay
    running = [r.getMessage() for r in caplog.records if r.getMessage().endswith(" is running")]
    assert running == [f"{n} is running" for n in ("root", "f2", "f3", "f4", "second root")]


def test_the_filter_is_put_on_each_logger_once():
    one_startup_banner(False)
    one_startup_banner(False)
    for name in {name for name, _ in STARTUP_LINES}:
        filters = [f for f in logging.getLogger(name).filters if isinstance(f, OneStartupBanner)]
        assert len(filters) == 1, name


@pytest.mark.parametrize("setting, shown", [(None, False), ("INFO", False), ("DEBUG", True),
                                            ("debug", True)])
def test_the_forager_spider_sets_the_page_reading_libraries_log_level(setting, shown, caplog,
                                                                      library_levels):
    settings = {} if setting is None else {"FORAGERS_LIBRARY_LOG_LEVEL": setting}
    # the spider is made as a crawl starts, before the crawler's settings are complete
    ForagerSpider.from_crawler(Crawler(ForagerSpider, settings), seeds="http://site.example/")
    with caplog.at_level(logging.DEBUG):  # Scrapy's default LOG_LEVEL
        document = structured_document(ARTICLE, "http://site.example/storm.html")
    assert "harbour town number 11" in document.text  # trafilatura read it
    lines = [r for r in caplog.records if r.name.split(".")[0] in LIBRARY_LOGGERS]
    assert bool(lines) is shown, [(r.name, r.getMessage()) for r in lines]
    if shown:
        # an undated page: trafilatura asks htmldate to search for its date
        assert {r.name.split(".")[0] for r in lines} == {"trafilatura", "htmldate"}
        assert all(r.levelno == logging.DEBUG for r in lines)
