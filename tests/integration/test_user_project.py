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
         "-s", "HTTPPROXY_ENABLED=False", "-s", "FORAGERS_FETCH_TTL=0",
         # (the project's DOWNLOAD_DELAY = 1 made the 12 pages last 15 s: see FASTER)
         "-s", "DOWNLOAD_DELAY=0.2"]


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


# -- the user's item pipelines (issue 28) ----------------------------------------------------------

# Two pipelines as a user writes them in a startproject project: one adds a field, one keeps a
# counter of what it saw (a line per item in $NEWSDESK_SEEN, from whichever process runs it) and
# drops half the documents by a rule (noting them in $NEWSDESK_DROPPED).
USER_PIPELINES_PY = """
import hashlib
import os

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem


def dropped(url):
    return int(hashlib.sha1(url.encode()).hexdigest(), 16) % 2 == 1


class SourcePipeline:
    def process_item(self, item):
        ItemAdapter(item)["source_project"] = "newsdesk"
        return item


class HalfPipeline:
    def process_item(self, item):
        url = ItemAdapter(item)["url"]
        with open(os.environ["NEWSDESK_SEEN"], "a", encoding="utf-8") as seen:
            seen.write(url + "\\n")
        if dropped(url):
            with open(os.environ["NEWSDESK_DROPPED"], "a", encoding="utf-8") as out:
                out.write(url + "\\n")
            raise DropItem(f"odd: {url}")
        return item
"""

PIPELINES = ('ITEM_PIPELINES = {"newsdesk.pipelines.SourcePipeline": 300, '
             '"newsdesk.pipelines.HalfPipeline": 400}\n')
START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from newsforagers.replay.synth import synth_corpus

    return synth_corpus(tmp_path_factory.mktemp("corpus") / "synth.jsonl.gz", days=3, rate=300,
                        sections=12, seed=11)


def pipeline_project(tmp_path) -> tuple[Path, dict]:
    project = user_project(tmp_path, PIPELINES)
    (project / "newsdesk" / "pipelines.py").write_text(USER_PIPELINES_PY, encoding="utf-8")
    env = {"NEWSDESK_SEEN": str(tmp_path / "seen.txt"), "NEWSDESK_DROPPED": str(tmp_path / "dropped.txt")}
    return project, env


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def items_of(path: Path) -> list[dict]:
    import json

    return [json.loads(line) for line in lines_of(path)]


def start_crawl(project: Path, url: str, out: Path, log: Path, settings: dict, env: dict) -> subprocess.Popen:
    argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={url}", "-a", "speed=600",
            "-O", str(out), "-s", f"LOG_FILE={log}", "-s", "LOG_LEVEL=INFO", "-s", "CLOSESPIDER_TIMEOUT=90",
            "-s", "TELNETCONSOLE_ENABLED=False", "-s", "HTTPPROXY_ENABLED=False"]
    for key, value in settings.items():
        argv += ["-s", f"{key}={value}"]
    full = {k: v for k, v in {**os.environ, **env}.items() if k.lower() not in _PROXY_VARIABLES}
    full.pop("SCRAPY_SETTINGS_MODULE", None)
    return subprocess.Popen(argv, cwd=project, env=full, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_when(processes: list[subprocess.Popen], until, timeout: float = 100.0) -> None:
    """SIGINT to every process (a user's Ctrl-C) once ``until()`` holds; wait for their ends."""
    import signal
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(p.poll() is None for p in processes):
        if until():
            break
        time.sleep(0.25)
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    for process in processes:
        try:
            process.wait(max(1.0, deadline + 30 - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError("a crawl did not end after SIGINT") from None


#: A user's project from ``scrapy startproject`` sets DOWNLOAD_DELAY = 1, which the colony folds
#: into one request a second for all its foragers (tests/integration/test_colony.py): these
#: crawls override it on the command line, as a user crawling their own replay would, so that
#: a second forager finds something within seconds, not a minute (19-40 s a crawl at 1).
FASTER = {"DOWNLOAD_DELAY": 0.2}


def finders(log: Path) -> set[str]:
    """The foragers whose finds the user's pipelines let through so far, read off the crawl's log
    (the reinforcing agent's ``novel: URL (title) found by NAME`` lines, each judged by the
    pipeline's own rule): the ``-O`` feed is written through a buffer, so it shows them late."""
    import hashlib
    import re

    found = re.findall(r"novel: (\S+) \(.*\) found by (\S+)$", log.read_text(encoding="utf-8") if log.exists() else "",
                       re.MULTILINE)
    return {name for url, name in found if int(hashlib.sha1(url.encode()).hexdigest(), 16) % 2 == 0}


def several_foragers_found(log: Path, dropped: Path, foragers: int = 2) -> bool:
    # two finders, as check_output asks
    return len(finders(log)) >= foragers and len(lines_of(dropped)) >= 3


def check_output(tmp_path: Path, feeds: list[Path], store_url: str, index: Path, logs: list[Path]) -> None:
    """What the user's pipelines let through is the output, once, wherever it is read."""
    from collections import Counter

    from newsforagers.index import DocumentIndex
    from newsforagers.store import open_store
    from newsforagers.web import create_app

    for log in logs:
        text = log.read_text(encoding="utf-8")
        assert "Traceback" not in text and " ERROR: " not in text, text[-3000:]
    seen = Counter(lines_of(tmp_path / "seen.txt"))
    dropped = set(lines_of(tmp_path / "dropped.txt"))
    # the user's pipeline ran once per document, whichever forager or process found it
    assert seen and max(seen.values()) == 1, [url for url, n in seen.items() if n > 1]
    items = [item for feed in feeds for item in items_of(feed)]
    urls = [item["url"] for item in items]
    assert len(urls) == len(set(urls)), "a document in the feeds twice"
    assert all(item.get("source_project") == "newsdesk" for item in items)
    assert dropped and not dropped & set(urls)
    assert set(urls) | dropped == set(seen)  # every document the pipeline saw: output or dropped
    # items of foragers other than the root's first forager went through the pipelines too (the
    # crawl waits for two finders)
    assert len({item["forager"] for item in items}) >= 2
    store = open_store(store_url)
    try:
        # each document the agent paid for went through the user's pipeline once
        assert store.document_count() == len(seen)
    finally:
        store.close()
    exported = subprocess.run([sys.executable, "-m", "newsforagers.cli", "export", "--store", store_url],
                              capture_output=True, text=True, timeout=60, check=True).stdout
    export = [__import__("json").loads(line) for line in exported.splitlines()]
    assert sorted(item["url"] for item in export) == sorted(urls)
    assert all(item.get("source_project") == "newsdesk" for item in export)
    with DocumentIndex(index) as documents:
        indexed = {hit.url for hit in documents.latest(limit=10_000)}
    assert indexed == set(urls)
    client = create_app(store_url, index=index, runs_base=tmp_path / "no-runs").test_client()
    latest = client.get("/api/latest?limit=500").get_json()
    assert {row["url"] for row in latest["documents"]} == set(urls) and latest["total"] == len(urls)


@pytest.mark.parametrize("spawner", ["inprocess", "process"])
def test_every_output_goes_through_the_projects_pipelines_once(corpus, tmp_path, spawner):
    from newsforagers.replay.process import ReplayProcess

    project, env = pipeline_project(tmp_path)
    out, log = tmp_path / "found.jsonl", tmp_path / "crawl.log"
    store_url = f"sqlite:///{tmp_path}/colony.db"
    settings = {**FASTER, "FORAGERS_STORE": store_url, "FORAGERS_INDEX": tmp_path / "colony.index.sqlite",
                "FORAGERS_MIN": 4, "FORAGERS_MAX": 6, "FORAGERS_SPAWNER": spawner,
                "FORAGERS_RUN_DIR": tmp_path / "run"}
    with ReplayProcess(corpus, speed=600, start=START) as replay:
        crawl = start_crawl(project, replay.url, out, log, settings, env)
        stop_when([crawl], lambda: several_foragers_found(log, tmp_path / "dropped.txt"))
    assert crawl.returncode == 0, log.read_text()[-3000:]
    check_output(tmp_path, [out], store_url, tmp_path / "colony.index.sqlite", [log])


def test_two_crawl_processes_on_one_redis_output_each_document_once(corpus, tmp_path, redis_server):
    import time

    from newsforagers.replay.process import ReplayProcess

    project, env = pipeline_project(tmp_path)
    store_url = f"redis://127.0.0.1:{redis_server.port}/0"
    index = tmp_path / "colony.index.sqlite"
    # (the project's own DOWNLOAD_DELAY: a second process that joins a colony whose foragers
    # already read the site's listings finds what they leave, sooner the fewer they read)
    settings = {"FORAGERS_STORE": store_url, "FORAGERS_INDEX": index, "FORAGERS_MIN": 2,
                "FORAGERS_MAX": 8}
    feeds = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    with ReplayProcess(corpus, speed=600, start=START) as replay:
        first = start_crawl(project, replay.url, feeds[0], logs[0],
                            {**settings, "FORAGERS_RUN_DIR": tmp_path / "run-a"}, env)
        deadline = time.monotonic() + 60
        while "colony: store" not in (logs[0].read_text() if logs[0].exists() else ""):
            assert time.monotonic() < deadline and first.poll() is None, "the first crawl never opened its colony"
            time.sleep(0.1)
        second = start_crawl(project, replay.url, feeds[1], logs[1],
                             {**settings, "FORAGERS_RUN_DIR": tmp_path / "run-b"}, env)

        def both_found() -> bool:
            # (a finder in each process: two foragers at least, as check_output asks)
            return all(finders(log) for log in logs) and len(lines_of(tmp_path / "dropped.txt")) >= 3

        stop_when([first, second], both_found)
    assert first.returncode == 0 and second.returncode == 0, logs[1].read_text()[-3000:]
    # the second process said in one line what it is and where its output goes
    said = [line for line in logs[1].read_text().splitlines() if "other process(es) host foragers" in line]
    assert len(said) == 1 and "this one is host 2" in said[0], said
    # each process's feed holds what its own foragers found: the second's are named apart
    assert items_of(feeds[0]) and items_of(feeds[1])
    assert all(not item["forager"].startswith("h2.") for item in items_of(feeds[0]))
    assert all(item["forager"].startswith("h2.") for item in items_of(feeds[1]))
    check_output(tmp_path, feeds, store_url, index, logs)
