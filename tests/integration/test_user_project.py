"""A user's own Scrapy project with newsforagers in it (docs/quickstart.md, "In your own Scrapy
project"): ``scrapy list`` shows the forager alone, not the benchmark's baseline crawlers, which
live apart in ``newsforagers.evaluation.baselines``; this repository's own project lists both."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from newsforagers.evaluation.baselines import BASELINES
from tests.integration.forager_run import REPO
from tests.integration.testsite import TestSite, news_site

pytestmark = pytest.mark.timeout(120)

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")


def scrapy(*argv: str, cwd, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in {**os.environ, **(env or {})}.items() if k.lower() not in _PROXY_VARIABLES}
    env.pop("SCRAPY_SETTINGS_MODULE", None)  # the project of ``cwd``, not an inherited one
    run = subprocess.run([sys.executable, "-m", "scrapy", *argv], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=90)
    if check:
        assert run.returncode == 0, f"scrapy {' '.join(argv)}: exit {run.returncode}\n{run.stderr[-3000:]}"
    return run


def user_project(tmp_path, extra: str = "") -> Path:
    """``scrapy startproject newsdesk`` with the two lines docs/quickstart.md tells a user to
    add, and ``extra`` appended to its settings."""
    scrapy("startproject", "newsdesk", cwd=tmp_path)
    project = tmp_path / "newsdesk"
    settings = project / "newsdesk" / "settings.py"
    text = settings.read_text(encoding="utf-8")
    assert 'SPIDER_MODULES = ["newsdesk.spiders"]' in text  # what startproject writes
    text = text.replace('SPIDER_MODULES = ["newsdesk.spiders"]',
                        'SPIDER_MODULES = ["newsdesk.spiders", "newsforagers.spiders"]')
    text += '\nADDONS = {"newsforagers.addon.ForagersAddon": 0}\n' + extra
    settings.write_text(text, encoding="utf-8")
    return project


def test_a_fresh_user_project_lists_only_the_forager(tmp_path):
    project = user_project(tmp_path)
    run = scrapy("list", cwd=project)
    assert run.stdout.split() == ["forager"], run.stdout


def test_this_repository_s_project_still_lists_the_baselines():
    run = scrapy("list", cwd=REPO)
    assert sorted(run.stdout.split()) == sorted(["forager", *BASELINES]), run.stdout


# A project's own download handler, as a user writes one (a browser, a proxy service...): it
# notes every URL it downloads in the file named by $NEWSDESK_HANDLER_LOG.
HANDLERS_PY = """
import os

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler

from newsforagers.downloadhandlers import ColonyBudgetMixin


class NotingHandler(HTTP11DownloadHandler):
    async def download_request(self, request):
        with open(os.environ["NEWSDESK_HANDLER_LOG"], "a", encoding="utf-8") as log:
            log.write(request.url + "\\n")
        return await super().download_request(request)


class PoliteNotingHandler(ColonyBudgetMixin, NotingHandler):
    pass
"""

CRAWL = ["-s", "FORAGERS_STRATEGY=paper", "-s", "FORAGERS_MIN=1", "-s", "FORAGERS_N_CLUSTERS=3",
         "-s", "FORAGERS_BOOTSTRAP_PAGES=8", "-s", "CLOSESPIDER_PAGECOUNT=12",
         "-s", "CLOSESPIDER_TIMEOUT=25", "-s", "TELNETCONSOLE_ENABLED=False",
         "-s", "HTTPPROXY_ENABLED=False", "-s", "FORAGERS_FETCH_TTL=0"]


@pytest.mark.parametrize("handler", ["NotingHandler", "PoliteNotingHandler"])
def test_a_projects_download_handler_is_kept_and_must_carry_the_colonys_budget(tmp_path, handler):
    project = user_project(tmp_path, f'DOWNLOAD_HANDLERS = {{"http": "newsdesk.handlers.{handler}"}}\n')
    (project / "newsdesk" / "handlers.py").write_text(HANDLERS_PY, encoding="utf-8")
    noted = tmp_path / "handler.log"
    with TestSite() as site:
        news_site(site)
        url = site.url
        run = scrapy("crawl", "forager", "-a", f"seeds={url}", "-O", str(tmp_path / "out.jsonl"),
                     "-s", f"FORAGERS_STORE=sqlite:///{tmp_path}/colony.db", *CRAWL, cwd=project,
                     check=False, env={"NEWSDESK_HANDLER_LOG": str(noted)})
    if handler == "NotingHandler":
        # the project's value stays, and the forager refuses it, in one line that says why
        assert run.returncode != 0
        assert "Traceback" not in run.stderr, run.stderr[-3000:]
        errors = [line for line in run.stderr.splitlines() if " ERROR: " in line]
        assert len(errors) == 1, errors
        assert "DOWNLOAD_HANDLERS['http'] ('newsdesk.handlers.NotingHandler')" in errors[0]
        assert "ColonyBudgetMixin" in errors[0]
    else:
        assert run.returncode == 0, run.stderr[-3000:]
        assert "Traceback" not in run.stderr, run.stderr[-3000:]
        # the project's handler downloaded the pages, under the colony's budget
        assert noted.read_text().count(url) >= 3
        assert "colony summary" in run.stderr
        assert (tmp_path / "out.jsonl").read_text().strip()
