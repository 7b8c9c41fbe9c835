"""Deploying to real scrapyd nodes with ``scrapyd-deploy`` (docs/deployment.md, "scrapyd"), and
foragers running as scrapyd jobs.

Two nodes on loopback, one behind basic auth. This repository is deployed to both, and a user's
own project (``scrapy startproject``, ``newsforagers.spiders`` in its ``SPIDER_MODULES``, the
add-on enabled, as docs/quickstart.md says) to the guarded one: each lists ``forager``. Then two
foragers run against a replayed synthetic site: one scheduled directly with ``schedule.json``
from this repository's egg, which crawls until ``CLOSESPIDER_TIMEOUT`` and pays for documents;
one scheduled by the colony's :class:`~newsforagers.colony.scrapyd.ScrapydSpawner` (as a
member, through basic auth) from the user's project's egg, which retires at its first judged
send and whose job then ends by itself.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
import urllib.error
import zipfile

import pytest
from scrapy.utils.test import get_crawler

from newsforagers.colony.scrapyd import ScrapydSpawner, parse_nodes
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from newsforagers.spiders.forager import ForagerSpider
from newsforagers.store import SQLiteStore
from tests.integration.forager_run import REPO
from tests.integration.test_user_project import user_project
from tests.scrapyd_nodes import copy_project, deploy

pytestmark = pytest.mark.timeout(180)

START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy
PAID = re.compile(r"colony summary: (\d+) document\(s\) paid")
#: seconds a job may take to finish (each crawls for a few seconds)
JOB_TIMEOUT = 60.0


def test_deployed_projects_list_the_forager_and_run_it_as_scrapyd_jobs(scrapyd_nodes, tmp_path):
    plain = scrapyd_nodes()
    guarded = scrapyd_nodes(username="forager", password="pa:ss@word")

    # this repository, built by scrapyd-deploy (`python setup.py bdist_egg`) from a copy of its
    # working tree, to both nodes
    repository = copy_project(REPO, tmp_path / "repository")
    for node in (plain, guarded):
        version = deploy(repository, node, "newsforagers")
        assert node.request("listprojects.json")["projects"] == ["newsforagers"]
        assert node.request("listversions.json", {"project": "newsforagers"})["versions"] == [version]
        assert "forager" in node.request("listspiders.json", {"project": "newsforagers"})["spiders"]
    with pytest.raises(urllib.error.HTTPError) as refused:
        guarded.request("listprojects.json", auth=False)
    assert refused.value.code == 401

    # a user's own project: its egg holds that project alone, newsforagers comes from the
    # node's Python
    project = user_project(tmp_path)
    version = deploy(project, guarded, "newsdesk")
    assert guarded.request("listspiders.json", {"project": "newsdesk"})["spiders"] == ["forager"]
    with zipfile.ZipFile(guarded.directory / "eggs" / "newsdesk" / f"{version}.egg") as egg:
        names = egg.namelist()
    assert "newsdesk/settings.py" in names and not any(n.startswith("newsforagers/") for n in names)

    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=1, rate=200, sections=6, seed=5)
    with ReplayProcess(corpus, speed=600, start=START) as replay:
        # a forager from this repository's egg, scheduled directly
        store = tmp_path / "direct.db"
        fields = [("project", "newsforagers"), ("spider", "forager"), ("jobid", "f1-direct"),
                  ("setting", f"FORAGERS_STORE=sqlite:///{store}"), ("setting", "FORAGERS_MIN=1"),
                  ("setting", "FORAGERS_FETCH_TTL=0"), ("setting", f"FORAGERS_RUN_DIR={tmp_path / 'run'}"),
                  ("setting", "CLOSESPIDER_TIMEOUT=6"), ("setting", "LOG_LEVEL=INFO"),
                  # (the suite's crawls start together and race for Scrapy's telnet ports: a
                  # port won at bind and lost at listen logs an error in Scrapy's own handler)
                  ("setting", "TELNETCONSOLE_ENABLED=False"),
                  ("seeds", replay.url), ("speed", "600")]
        assert plain.request("schedule.json", fields, post=True)["jobid"] == "f1-direct"

        # a member from the user's project's egg, scheduled by the colony's spawner: it retires
        # at its first judged send (its score is below FORAGERS_RETIRE_SCORE, and the store
        # holds another member, f1, so the population stays at its minimum of one)
        member_store = tmp_path / "member.db"
        shared = SQLiteStore(member_store)
        shared.join("f1", time.time() + 3600, time.time())
        shared.set_score("f2", -50.0)
        shared.close()
        root = get_crawler(ForagerSpider, {"FORAGERS_STORE": f"sqlite:///{member_store}",
                                           "FORAGERS_MIN": 1, "FORAGERS_FETCH_TTL": 0})
        ended: dict[str, BaseException | None] = {}
        started: dict[str, object] = {}
        spawner = ScrapydSpawner(root, started.__setitem__, ended.__setitem__,
                                 parse_nodes(f"{plain.url}x-no-scrapyd-here/,{guarded.auth_url}"),
                                 "newsdesk", lease=30.0, grace=10.0, poll=0.5)

        async def run_member():
            spawner.start("f2", {"seeds": replay.url, "mode": "wlrl", "forager": "f2", "speed": 600.0})
            deadline = time.monotonic() + JOB_TIMEOUT
            while "f2" not in ended and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            if "f2" not in ended:
                await spawner.stop()
                pytest.fail("the retiring member's job did not end by itself")

        asyncio.run(run_member())
        assert plain.wait_finished("newsforagers", "f1-direct", JOB_TIMEOUT), plain.log()[-3000:]

    # the direct job crawled and paid for documents, then ended at its CLOSESPIDER_TIMEOUT
    log = plain.job_log("newsforagers", "forager", "f1-direct")
    assert "Spider closed (closespider_timeout)" in log, log[-3000:]
    assert "Traceback" not in log and " ERROR: " not in log, log[-3000:]
    paid = PAID.search(log)
    assert paid and int(paid.group(1)) >= 3, log[-3000:]
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM documents").fetchone()[0] == int(paid.group(1))

    # the member was scheduled on the guarded node (the plain node's URL there has no scrapyd
    # behind it: refused, skipped), retired, and its job ended with its spider
    job = started["f2"]
    assert job.node.url == guarded.url and ended == {"f2": None}
    log = guarded.job_log("newsdesk", "forager", job.jobid)
    assert "colony: forager f2 joined as a process of its own" in log, log[-3000:]
    assert "colony: retire f2" in log and "Spider closed (forager_retired)" in log, log[-3000:]
    assert "Traceback" not in log and " ERROR: " not in log, log[-3000:]
    assert root.stats.get_value("newsforagers/scrapyd/node_errors") >= 1
