"""The scrapyd spawner against stand-ins for scrapyd nodes (a small ``http.server`` each, on a
free loopback port, answering scrapyd's JSON API from a table of jobs): the node it chooses,
what it sends, basic auth, failover, the jobs it watches and stops. Real scrapyd nodes:
tests/integration/test_scrapyd_deploy.py."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.settings import Settings
from scrapy.utils.test import get_reactor_settings

from newsforagers.colony.scrapyd import ScrapydSpawner, job_settings, parse_nodes
from newsforagers.colony.spawning import spawner_for
from newsforagers.config import ForagersConfig
from newsforagers.errors import ForagersUsageError, mask_password
from newsforagers.spiders.forager import ForagerSpider
from tests.needs import free_port

pytestmark = pytest.mark.timeout(60)

PASSWORD = "s3cr:et@!"


class FakeNode:
    """A stand-in for a scrapyd node. ``running``: its load besides the jobs scheduled on it;
    ``refuse``: schedule.json answers scrapyd's error; ``auth``: (user, password) it wants.
    Every request is kept in ``requests`` as (endpoint, fields, Authorization header)."""

    def __init__(self, running: int = 0, refuse: bool = False, auth: tuple[str, str] | None = None,
                 stubborn: bool = False):
        self.running = running
        self.refuse = refuse
        self.auth = auth
        self.stubborn = stubborn  # a running job ends on SIGKILL only
        self.jobs: dict[str, str] = {}  # job id -> pending, running or finished
        self.requests: list[tuple[str, list[tuple[str, str]], str | None]] = []
        node = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                parts = urllib.parse.urlsplit(self.path)
                self._answer(parts.path, urllib.parse.parse_qsl(parts.query))

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                self._answer(self.path, urllib.parse.parse_qsl(body, keep_blank_values=True))

            def _answer(self, path, fields):
                header = self.headers.get("Authorization")
                node.requests.append((path.lstrip("/"), fields, header))
                status, answer = node.answer(path.lstrip("/"), dict(fields), header)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def plain_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        if self.auth:
            user, password = (urllib.parse.quote(part, safe="") for part in self.auth)
            return f"http://{user}:{password}@{host}:{port}"
        return f"http://{host}:{port}"

    def answer(self, endpoint: str, fields: dict, header: str | None) -> tuple[int, dict]:
        if self.auth:
            expected = "Basic " + base64.b64encode(":".join(self.auth).encode()).decode()
            if header != expected:
                return 401, {"status": "error", "message": "Unauthorized"}
        states = list(self.jobs.values())
        if endpoint == "daemonstatus.json":
            return 200, {"status": "ok", "running": self.running + states.count("running"),
                         "pending": states.count("pending"), "finished": states.count("finished")}
        if endpoint == "schedule.json":
            if self.refuse:
                return 200, {"status": "error", "message": "spider 'forager' not found"}
            self.jobs[fields["jobid"]] = "pending"
            return 200, {"status": "ok", "jobid": fields["jobid"]}
        if endpoint == "listjobs.json":
            listing = {"status": "ok", "pending": [], "running": [], "finished": []}
            for job, state in self.jobs.items():
                listing[state].append({"id": job, "project": fields.get("project")})
            return 200, listing
        if endpoint == "cancel.json":
            previous = self.jobs.get(fields["job"])
            if previous == "pending":
                del self.jobs[fields["job"]]
            elif previous == "running" and (fields.get("signal") == "KILL" or not self.stubborn):
                self.jobs[fields["job"]] = "finished"  # the crawl closed on the signal
            return 200, {"status": "ok", "prevstate": previous}
        return 404, {"status": "error", "message": "no such resource"}

    def scheduled(self) -> list[dict]:
        """The fields of every schedule.json this node took, as lists per field name."""
        taken = []
        for endpoint, fields, _ in self.requests:
            if endpoint == "schedule.json" and not self.refuse:
                grouped: dict[str, list[str]] = {}
                for key, value in fields:
                    grouped.setdefault(key, []).append(value)
                taken.append(grouped)
        return taken

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def root():
    settings = Settings({"REMOTE_CONTROL_ENABLED": False, "TELNETCONSOLE_ENABLED": False,
                         **get_reactor_settings()})
    settings.setdict({
        "BOT_NAME": "newsdesk", "FORAGERS_MIN": 3, "FORAGERS_ITEM_TEXT": False,
        "FORAGERS_STORE": "redis://127.0.0.1:6379/0", "FORAGERS_HOST_RATE": 2.5,
        "FEEDS": {"found.jsonl": {"format": "jsonlines"}}, "JOBDIR": "/var/lib/job",
        "DOWNLOAD_DELAY": 1}, priority="project")
    # what the user gave on the command line (-s) reaches every job, but the root's log file
    settings.setdict({"CONCURRENT_REQUESTS": 4, "LOG_FILE": "/var/log/colony.log"}, priority="cmdline")
    crawler = AsyncCrawlerRunner(settings).create_crawler(ForagerSpider)
    crawler._apply_settings()
    return crawler


class Colony:
    """What the colony sees of its spawner: on_started and on_ended."""

    def __init__(self):
        self.started: dict[str, object] = {}
        self.ended: dict[str, BaseException | None] = {}

    def spawner(self, root, nodes: list[FakeNode | str], lease: float = 30.0,
                grace: float = 5.0) -> ScrapydSpawner:
        urls = ",".join(node if isinstance(node, str) else node.url for node in nodes)
        return ScrapydSpawner(root, self.started.__setitem__, self.ended.__setitem__,
                              parse_nodes(urls), "newsdesk", lease, grace, poll=0.05, timeout=2.0)


async def until(condition, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("not reached in time")


ARGUMENTS = {"seeds": "http://news.example.org/", "mode": "wlrl", "forager": "f2", "speed": 600.0,
             "colony": object()}


def test_each_job_goes_to_the_least_loaded_node_and_ties_to_the_first(root):
    colony = Colony()
    with FakeNode(running=2) as busy, FakeNode(running=1) as middle, FakeNode(running=1) as last:
        spawner = colony.spawner(root, [busy, middle, last])

        async def main():
            for name in ("f2", "f3", "f4"):
                spawner.start(name, dict(ARGUMENTS, forager=name))
            await until(lambda: len(colony.started) == 3)

        asyncio.run(main())
    # loads 2,1,1: the first of the two equal ones; then 2,2,1; then 2,2,2: the first
    assert [job["jobid"][0].split("-")[0] for job in middle.scheduled()] == ["f2"]
    assert [job["jobid"][0].split("-")[0] for job in last.scheduled()] == ["f3"]
    assert [job["jobid"][0].split("-")[0] for job in busy.scheduled()] == ["f4"]
    assert colony.started["f2"].node.url == parse_nodes(middle.url)[0].url
    assert spawner.running == 3 and root.stats.get_value("newsforagers/scrapyd/scheduled") == 3


def test_a_job_carries_the_roots_foragers_settings_and_the_member_arguments(root):
    colony = Colony()
    with FakeNode() as node:
        spawner = colony.spawner(root, [node])

        async def main():
            spawner.start("f2", dict(ARGUMENTS))
            spawner.start("f3", dict(ARGUMENTS, forager="f3"))
            await until(lambda: len(colony.started) == 2)

        asyncio.run(main())
    first, second = node.scheduled()
    assert first["project"] == ["newsdesk"] and first["spider"] == ["forager"]
    # the FORAGERS_* settings the project or command line set, JSON for what is not a string,
    # and the rest of the command line's; not the add-on's defaults (the job's own add-on gives
    # them) nor the project's (the job has the project), no feed, job dir or log file; and no
    # console of its own (as the other spawners' foragers)
    assert first["setting"] == ["CONCURRENT_REQUESTS=4", "FORAGERS_HOST_RATE=2.5",
                                "FORAGERS_ITEM_TEXT=false", "FORAGERS_MIN=3",
                                "FORAGERS_STORE=redis://127.0.0.1:6379/0",
                                "TELNETCONSOLE_ENABLED=False", "REMOTE_CONTROL_ENABLED=False"]
    assert job_settings(root) == {"CONCURRENT_REQUESTS": "4", "FORAGERS_HOST_RATE": "2.5",
                                  "FORAGERS_ITEM_TEXT": "false", "FORAGERS_MIN": "3",
                                  "FORAGERS_STORE": "redis://127.0.0.1:6379/0",
                                  "TELNETCONSOLE_ENABLED": "False", "REMOTE_CONTROL_ENABLED": "False"}
    # the spider arguments, without the in-process colony, as a member
    assert {key: first[key] for key in ("seeds", "mode", "forager", "speed", "role")} == {
        "seeds": ["http://news.example.org/"], "mode": ["wlrl"], "forager": ["f2"], "speed": ["600.0"],
        "role": ["member"]}
    assert "colony" not in first
    # a readable job id naming the forager, unique
    assert first["jobid"][0].startswith("f2-") and second["jobid"][0].startswith("f3-")
    again = spawner.job_fields("f2", dict(ARGUMENTS), "x")
    assert ("jobid", "x") in again
    assert colony.started["f2"].jobid == first["jobid"][0] != second["jobid"][0]


def test_basic_auth_from_the_url_and_the_password_never_logged(root, caplog):
    colony = Colony()
    caplog.set_level(logging.DEBUG, logger="newsforagers.colony.scrapyd")
    with FakeNode(auth=("forager", PASSWORD), refuse=True) as refusing, \
            FakeNode(auth=("forager", PASSWORD)) as node:
        spawner = colony.spawner(root, [refusing, node])

        async def main():
            spawner.start("f2", dict(ARGUMENTS))
            await until(lambda: "f2" in colony.started)

        asyncio.run(main())
    expected = "Basic " + base64.b64encode(f"forager:{PASSWORD}".encode()).decode()
    assert node.requests and all(header == expected for _, _, header in node.requests)
    assert node.scheduled()  # the credentials worked
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "forager:***@127.0.0.1" in warnings[0], warnings
    quoted = urllib.parse.quote(PASSWORD, safe="")
    for text in [r.getMessage() for r in caplog.records] + [repr(colony.started["f2"]), str(spawner.nodes)]:
        assert PASSWORD not in text and quoted not in text and "s3cr" not in text, text
    assert mask_password(f"http://forager:{quoted}@node:6800/x") == "http://forager:***@node:6800/x"
    assert mask_password("http://node:6800/") == "http://node:6800/"
    with pytest.raises(ForagersUsageError) as bad:
        parse_nodes(f"ftp://forager:{quoted}@node:6800")
    assert "FORAGERS_SCRAPYD_URLS ('ftp://forager:***@node:6800')" in str(bad.value)
    assert "s3cr" not in str(bad.value)


def test_without_userinfo_the_credentials_come_from_netrc(root, tmp_path, monkeypatch):
    netrc = tmp_path / ".netrc"
    netrc.write_text(f"machine 127.0.0.1 login forager password {PASSWORD}\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("HOME", str(tmp_path))
    colony = Colony()
    with FakeNode(auth=("forager", PASSWORD)) as node:
        spawner = colony.spawner(root, [node.plain_url])

        async def main():
            spawner.start("f2", dict(ARGUMENTS))
            await until(lambda: "f2" in colony.started)

        asyncio.run(main())
    assert node.scheduled() and not colony.ended


def test_a_node_that_refuses_or_does_not_answer_is_skipped_and_warned_about_once(root, caplog):
    colony = Colony()
    caplog.set_level(logging.INFO, logger="newsforagers.colony.scrapyd")
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with FakeNode(refuse=True) as refusing, FakeNode(running=5) as node:
        spawner = colony.spawner(root, [down, refusing, node])

        async def main():
            for name in ("f2", "f3"):
                spawner.start(name, dict(ARGUMENTS, forager=name))
            await until(lambda: len(colony.started) == 2)

        asyncio.run(main())
    assert len(node.scheduled()) == 2 and not colony.ended
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2, warnings  # once per node, each failed twice
    assert any(down in w and "daemonstatus.json" in w for w in warnings)
    assert any(refusing.url in w and "spider 'forager' not found" in w for w in warnings)
    assert root.stats.get_value("newsforagers/scrapyd/node_errors") == 4


def test_a_forager_no_node_takes_is_counted_out(root, caplog):
    colony = Colony()
    with FakeNode(refuse=True) as refusing:
        spawner = colony.spawner(root, [refusing])

        async def main():
            spawner.start("f2", dict(ARGUMENTS))
            assert spawner.running == 1  # while it is being scheduled
            await until(lambda: "f2" in colony.ended)

        asyncio.run(main())
    assert isinstance(colony.ended["f2"], RuntimeError) and not colony.started
    assert spawner.running == 0
    assert any(r.levelno == logging.ERROR and "f2 could not be started" in r.getMessage()
               for r in caplog.records)


def test_finished_jobs_end_and_stop_cancels_the_others_with_sigint(root):
    colony = Colony()
    with FakeNode() as node:
        spawner = colony.spawner(root, [node])

        async def main():
            for name in ("f2", "f3", "f4"):
                spawner.start(name, dict(ARGUMENTS, forager=name))
            await until(lambda: len(colony.started) == 3)
            jobs = {name: job.jobid for name, job in colony.started.items()}
            node.jobs[jobs["f2"]] = "finished"  # retired: its spider closed, its job ended
            node.jobs[jobs["f3"]] = "running"
            await until(lambda: "f2" in colony.ended)
            assert colony.ended == {"f2": None} and spawner.running == 2
            await asyncio.wait_for(spawner.stop(), 5)
            return jobs

        jobs = asyncio.run(main())
    assert colony.ended == {"f2": None, "f3": None, "f4": None} and spawner.running == 0
    cancels = [dict(fields) for endpoint, fields, _ in node.requests if endpoint == "cancel.json"]
    assert sorted(c["job"] for c in cancels) == sorted([jobs["f3"], jobs["f4"]])
    assert all(c["signal"] == "INT" and c["project"] == "newsdesk" for c in cancels)


def test_a_job_its_node_stops_showing_ends_with_an_error_after_a_lease(root):
    colony = Colony()
    with FakeNode() as node:
        spawner = colony.spawner(root, [node], lease=0.3)

        async def main():
            spawner.start("f2", dict(ARGUMENTS))
            await until(lambda: "f2" in colony.started)
            node.jobs.clear()  # the node restarted, and forgot it
            await asyncio.sleep(0.15)
            assert not colony.ended  # not before a lease
            await until(lambda: "f2" in colony.ended)

        asyncio.run(main())
    assert "no longer lists it" in str(colony.ended["f2"])


def test_spawner_for_builds_it_from_the_settings_without_a_request(root):
    settings = {"FORAGERS_SPAWNER": "scrapyd", "FORAGERS_STORE": "redis://127.0.0.1:6379/0",
                "FORAGERS_SCRAPYD_URLS": "http://127.0.0.1:1, http://forager:"
                f"{urllib.parse.quote(PASSWORD, safe='')}@127.0.0.1:2/"}
    spawner = spawner_for(ForagersConfig.from_settings(settings), root, None, None, 12.0)
    assert isinstance(spawner, ScrapydSpawner) and not spawner.in_process
    assert [node.masked for node in spawner.nodes] == ["http://127.0.0.1:1/", "http://forager:***@127.0.0.1:2/"]
    assert spawner.project == "newsdesk" and spawner.grace == 12.0 and spawner.lease == 30.0
    config = ForagersConfig.from_settings({**settings, "FORAGERS_SCRAPYD_PROJECT": "colony"})
    assert spawner_for(config, root, None, None, 12.0).project == "colony"


def test_a_job_still_running_after_the_grace_is_killed(root, caplog):
    colony = Colony()
    with FakeNode(stubborn=True) as node:
        spawner = colony.spawner(root, [node], grace=0.3)

        async def main():
            spawner.start("f2", dict(ARGUMENTS))
            await until(lambda: "f2" in colony.started)
            node.jobs[colony.started["f2"].jobid] = "running"
            await asyncio.wait_for(spawner.stop(), 5)

        asyncio.run(main())
    signals = [dict(fields)["signal"] for endpoint, fields, _ in node.requests if endpoint == "cancel.json"]
    assert signals == ["INT", "KILL"] and colony.ended == {"f2": None}
    assert any("still running 0.3 s after its stop; killed" in r.getMessage() for r in caplog.records)


def test_a_job_is_given_no_password_only_where_its_node_keeps_it():
    """scrapyd puts a job's settings on its command line (ps on the node) and in its log: the
    store's and the nodes' URLs go without their passwords, the password file as its path."""
    settings = Settings({"REMOTE_CONTROL_ENABLED": False, "TELNETCONSOLE_ENABLED": False,
                         **get_reactor_settings()})
    settings.setdict({"BOT_NAME": "newsdesk"}, priority="project")
    settings.setdict({
        "FORAGERS_STORE": "redis://:s3c#ret/PW@redis.internal:6379/0",
        "FORAGERS_STORE_PASSWORD_FILE": "/etc/newsforagers/redis.pass",
        "FORAGERS_SCRAPYD_URLS": "http://forager:n0de/pw@node1:6800,http://node2:6800"}, priority="cmdline")
    crawler = AsyncCrawlerRunner(settings).create_crawler(ForagerSpider)
    crawler._apply_settings()
    given = job_settings(crawler)
    assert given["FORAGERS_STORE"] == "redis://redis.internal:6379/0"
    assert given["FORAGERS_STORE_PASSWORD_FILE"] == "/etc/newsforagers/redis.pass"
    assert given["FORAGERS_SCRAPYD_URLS"] == "http://node1:6800/,http://node2:6800/"
    assert not [value for value in given.values() if "s3c" in value or "n0de" in value or "PW" in value]


def test_a_store_password_in_the_url_is_refused_with_the_scrapyd_spawner():
    from newsforagers.config import ForagersConfig

    with pytest.raises(ForagersUsageError) as error:
        ForagersConfig.from_settings({"FORAGERS_SPAWNER": "scrapyd", "FORAGERS_SCRAPYD_URLS": "http://n:6800",
                                      "FORAGERS_STORE": "redis://:s3cret/PW@redis.internal:6379/0"})
    message = str(error.value)
    assert "s3cret" not in message and "redis://:***@redis.internal:6379/0" in message
    assert "FORAGERS_STORE_PASSWORD_FILE" in message and "~/.netrc" in message
    # kept where the nodes hold it: accepted
    ForagersConfig.from_settings({"FORAGERS_SPAWNER": "scrapyd", "FORAGERS_SCRAPYD_URLS": "http://n:6800",
                                  "FORAGERS_STORE": "redis://redis.internal:6379/0",
                                  "FORAGERS_STORE_PASSWORD_FILE": "/etc/newsforagers/redis.pass"})
