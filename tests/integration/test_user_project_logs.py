"""The log of a user's own spider in a project that enables the add-on for all its spiders
(``ADDONS = {"newsforagers.addon.ForagersAddon": 0}`` in its settings.py, docs/quickstart.md):
the colony's components stand aside for a spider that is no forager without a WARNING — Scrapy
logs one for every ``NotConfigured`` that carries a message, and they once did, four a crawl.
A real ``scrapy crawl`` of a plain spider, at Scrapy's default log level (DEBUG)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.integration.testsite import TestSite, news_site

pytestmark = pytest.mark.timeout(120)

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")

PLAIN_SPIDER = '''
import scrapy


class HeadlinesSpider(scrapy.Spider):
    """A user's spider that has nothing to do with the foragers."""

    name = "headlines"

    def __init__(self, url=None, **kwargs):
        super().__init__(**kwargs)
        self.url = url

    async def start(self):
        yield scrapy.Request(self.url)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield {"link": response.urljoin(href)}
'''


def scrapy(*argv: str, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k.lower() not in _PROXY_VARIABLES}
    env.pop("SCRAPY_SETTINGS_MODULE", None)  # the project of ``cwd``, not an inherited one
    return subprocess.run([sys.executable, "-m", "scrapy", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=90)


def test_a_plain_spider_of_a_project_with_the_add_on_logs_no_warning(tmp_path):
    made = scrapy("startproject", "newsdesk", cwd=tmp_path)
    assert made.returncode == 0, made.stderr[-3000:]
    project = tmp_path / "newsdesk"
    settings = project / "newsdesk" / "settings.py"
    settings.write_text(settings.read_text(encoding="utf-8")
                        + '\nADDONS = {"newsforagers.addon.ForagersAddon": 0}\n', encoding="utf-8")
    (project / "newsdesk" / "spiders" / "headlines.py").write_text(PLAIN_SPIDER, encoding="utf-8")
    out = tmp_path / "links.jsonl"
    with TestSite() as site:
        news_site(site)
        run = scrapy("crawl", "headlines", "-a", f"url={site.url}", "-O", str(out),
                     "-s", "TELNETCONSOLE_ENABLED=False", "-s", "HTTPPROXY_ENABLED=False",
                     "-s", f"FORAGERS_STORE=sqlite:///{tmp_path}/colony.db", cwd=project)
    log = run.stderr
    assert run.returncode == 0, log[-3000:]
    # it crawled, with the add-on's components, at Scrapy's default level
    assert len([json.loads(line) for line in out.read_text().splitlines()]) == 6, log[-3000:]
    assert "'SCHEDULER': 'newsforagers.scheduler.ForagerScheduler'" in log  # Overridden settings
    assert " DEBUG: Crawled (200)" in log
    warnings = [line for line in log.splitlines() if " WARNING: " in line or " ERROR: " in line]
    assert warnings == [], "\n".join(warnings)
    # each of the colony's extensions said, at DEBUG, that it stands aside
    for extension in ("PopulationExtension", "ColonyHostExtension", "ColonyRecordExtension",
                      "IndexExtension"):
        assert f"DEBUG: Disabled {extension}: spider HeadlinesSpider is no forager" in log, \
            log[-3000:]
