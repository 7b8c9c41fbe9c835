"""A colony's log as ``scrapy crawl forager`` writes it, at Scrapy's default level (DEBUG):
Scrapy's start-up lines once for the colony, not once per forager (each forager is a crawler
of its own in the process), and no DEBUG line of the libraries that read the pages
(FORAGERS_LIBRARY_LOG_LEVEL; newsforagers.logs). Fails loudly when a Scrapy upgrade changes
the start-up lines that newsforagers.logs.STARTUP_LINES names."""

from __future__ import annotations

import re

import pytest

from newsforagers.logs import LIBRARY_LOGGERS
from tests.integration.testsite import TestSite, crawl_forager, news_site

pytestmark = pytest.mark.timeout(120)

#: Scrapy's start-up lines of a crawler, as they begin in the log
STARTUP = ("Enabled addons:", "Enabled extensions:", "Overridden settings:",
           "Enabled downloader middlewares:", "Enabled spider middlewares:",
           "Enabled item pipelines:", "Using reactor:", "Using asyncio event loop:")


def test_a_colony_logs_scrapy_s_start_up_once_and_no_library_debug_line(tmp_path):
    with TestSite() as site:
        news_site(site)
        run = crawl_forager(site.url, tmp_path, settings={"FORAGERS_MIN": 3,
                                                          "FORAGERS_RUN_DIR": tmp_path / "run"})
    assert run.returncode == 0, run.describe()
    assert " DEBUG: " in run.log
    opened = re.findall(r"\] INFO: \[(f\d+)\] Spider opened", run.log)
    assert len(opened) == 3, run.describe()  # three crawlers started
    counts = {line: len(re.findall(rf"\] (?:INFO|DEBUG): {line}", run.log)) for line in STARTUP}
    assert counts == dict.fromkeys(STARTUP, 1), counts
    # the articles were read (trafilatura), and said nothing at DEBUG
    assert run.items, run.describe()
    chatter = re.findall(rf"\[(?:{'|'.join(LIBRARY_LOGGERS)})[.\]].*", run.log)
    assert chatter == [], chatter[:5]
