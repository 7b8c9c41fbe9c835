"""One colony over two real scrapyd nodes and a real Redis store (issue 17): the root runs
``scrapy crawl forager`` on this machine, every other forager is a scrapyd job on whichever node
is the least loaded, and they share nothing but the store.

While the colony crawls the replayed synthetic site, the test does to it what happens to a
colony in production, one thing after another:

1. a forager's job is killed (SIGKILL) on the node with the auth: its lease runs out and the
   population counts it out;
2. the other node goes down with every job on it (its process group killed): the foragers
   born after that run on the node that is left;
3. ``redis-server`` is restarted (its append-only file keeps every acknowledged write).

Then: each document the replay served was paid once across all processes (the store's
record, ``newsforagers export`` from Redis and the root's feed hold each once, the same ones),
the colony carried on after each fault, the population never left its bounds, and the site
never received more than the colony's per-host budget in any one second.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from newsforagers.replay.log import busiest_second, read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from newsforagers.store import open_store
from tests.integration.forager_run import REPO, crawl_forager
from tests.needs import free_port
from tests.scrapyd_nodes import copy_project, deploy

pytestmark = pytest.mark.timeout(400)

START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy
PREFIX = "colony17:"
ROOT = "f1"  # the root forager's name (the first host of the colony)
RATE = 3  # the colony's requests per second to the site, all processes together
LEASE = 4.0
MIN, MAX = 3, 4
#: what the test waits for at most in each phase (wall seconds; a passing phase takes 5-20 s,
#: more when a phase's new scrapyd jobs start on a machine busy with other tests). The phase
#: "killed" once never ended: a member had named its child after the forager just killed,
#: which then seemed alive (forager names are now unique across processes, docs/deployment.md)
PHASE = 120.0
#: documents the colony must be paid for in each phase: it carries on
NEW = 5


def jobs(node, state: str) -> list[dict]:
    """The forager jobs of ``node`` in ``state`` (pending, running, finished); [] when it is down."""
    try:
        return node.request("listjobs.json", {"project": "newsforagers"}, timeout=3)[state]
    except OSError:
        return []


class Colony:
    """What the test watches of the colony while it runs (from the store and the nodes), and
    the faults it injects, one phase after another (:meth:`step`, polled by the crawl)."""

    def __init__(self, redis, plain, guarded, requests):
        self.redis, self.plain, self.guarded, self.requests = redis, plain, guarded, requests
        self.store = open_store(redis.url, prefix=PREFIX, retry=30.0)
        self.phase = "crawling"
        self.since = time.monotonic()
        self.populations: list[int] = []
        self.paid_at: dict[str, int] = {}
        self.killed: str | None = None
        self.plain_jobs: set[str] = set()
        self.guarded_before: set[str] = set()
        self.born_after_node_down: set[str] = set()

    def paid(self) -> int:
        return self.store.document_count()

    def paid_foragers(self) -> int:
        """How many foragers the colony has paid (the store's records)."""
        return len({record.forager for record in self.store.documents()})

    def senders(self) -> set[str]:
        """The foragers the site has received requests from (the replay's request log)."""
        if not self.requests.exists():
            return set()
        return {record["forager"] for record in read_log(self.requests) if record["forager"]}

    def node_foragers(self, node) -> set[str]:
        """The foragers that ran as jobs of ``node`` (the plain one's as it went down)."""
        if node is self.plain:
            ids = self.plain_jobs
        else:
            ids = {job["id"] for state in ("pending", "running", "finished") for job in jobs(node, state)}
        return {job.split("-")[0] for job in ids}

    def heard_from_all(self, heard: set[str] | None = None) -> bool:
        """Whether the site has heard (``heard``: the foragers it heard, else read from its log)
        the root, a forager of the node left, and one of the node that went down or three
        foragers in all (that node's jobs may die before their first request: its first jobs
        start while the colony is young, and a loaded machine takes seconds to start one — in
        a clean-clone CI of c67ef40 the first four jobs of both nodes were 5–9 s old, none had
        sent a request, when the faults ended them; the site heard the root and two later jobs)."""
        heard = self.senders() if heard is None else heard
        return ROOT in heard and bool(heard & self.node_foragers(self.guarded)) \
            and (len(heard) >= 3 or bool(heard & self.node_foragers(self.plain)))

    def running(self, node) -> list[dict]:
        return jobs(node, "running")

    def next_phase(self, name: str) -> None:
        self.paid_at[name] = self.paid()
        self.phase, self.since = name, time.monotonic()

    def step(self) -> bool:
        """One look at the colony; True when the test has seen all it needs."""
        if time.monotonic() - self.since > PHASE:
            raise AssertionError(f"phase {self.phase!r} did not end within {PHASE:g} s: {self.paid()} documents "
                                 f"paid, {self.paid_foragers()} foragers paid, {sorted(self.senders())} heard by "
                                 f"the site")
        try:
            self.populations.append(len(self.store.members(time.time())))
        except Exception:  # noqa: BLE001 - the store may be restarting: look again later
            pass
        if self.phase == "crawling":
            # foragers run as jobs on both nodes, and the colony is paid for documents
            plain, guarded = self.running(self.plain), self.running(self.guarded)
            if plain and guarded and self.paid() >= 10 + NEW:
                victim = guarded[0]
                self.killed = victim["id"].split("-")[0]
                os.kill(int(victim["pid"]), signal.SIGKILL)
                self.next_phase("killed")
        elif self.phase == "killed":
            # its lease ran out: counted out of the population, and the colony goes on
            if self.killed not in self.store.members(time.time()) \
                    and self.paid() >= self.paid_at["killed"] + NEW:
                self.plain_jobs = {job["id"] for state in ("running", "finished") for job in jobs(self.plain, state)}
                self.guarded_before = {job["id"] for state in ("pending", "running", "finished")
                                       for job in jobs(self.guarded, state)}
                os.killpg(self.plain.process.pid, signal.SIGKILL)  # the node and its jobs die
                self.plain.process.wait()
                self.next_phase("node down")
        elif self.phase == "node down":
            # foragers born since run on the node that is left
            born = {job["id"] for job in self.running(self.guarded)} - self.guarded_before
            if born and self.paid() >= self.paid_at["node down"] + NEW:
                self.born_after_node_down = born
                self.redis.restart(down=1.0)
                self.next_phase("redis restarted")
        elif self.phase == "redis restarted":
            # ... and, before the colony is stopped, what the test asks of the whole run: the
            # root and the nodes' foragers heard by the site (heard_from_all), the root and a job
            # paid (jobs take seconds to start on a loaded machine: a run once ended with the jobs
            # born after the node went down not yet paid). Not every forager: a scheduled forager
            # whose listings another's complete listing shows (the home page beside the day
            # archive a split gave another forager) sends nothing while it does, by design — on
            # a machine slow enough for the faults to take twenty simulated hours, the root and
            # two children held only the home page and one job harvested the whole site
            if self.paid() >= self.paid_at["redis restarted"] + NEW:
                return self.paid_foragers() >= 2 and self.heard_from_all()
        return False


def test_a_colony_over_two_scrapyd_nodes_and_redis_pays_each_document_once(
        redis_server, scrapyd_nodes, tmp_path, monkeypatch):
    plain = scrapyd_nodes(max_proc=4)
    guarded = scrapyd_nodes(username="forager", password="s3cret:pass", max_proc=4)
    # the guarded node's credentials where docs/deployment.md keeps them: the ~/.netrc of the
    # root's user and of each node's (a job is never given them; a member that splits finds
    # them on its node)
    netrc = f"machine 127.0.0.1 login {guarded.username} password {guarded.password}\n"
    home = tmp_path / "home"
    for directory in (home, plain.directory, guarded.directory):
        directory.mkdir(parents=True, exist_ok=True)
        (directory / ".netrc").write_text(netrc)
        (directory / ".netrc").chmod(0o600)
    monkeypatch.setenv("HOME", str(home))
    repository = copy_project(REPO, tmp_path / "repository")
    for node in (plain, guarded):
        deploy(repository, node, "newsforagers")

    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=300, sections=12, seed=11)
    requests = tmp_path / "requests.jsonl"
    colony = Colony(redis_server, plain, guarded, requests)
    settings = {"FORAGERS_STORE": redis_server.url, "FORAGERS_REDIS_PREFIX": PREFIX,
                "FORAGERS_SPAWNER": "scrapyd",
                "FORAGERS_SCRAPYD_URLS": f"{plain.url},{guarded.url}",
                "FORAGERS_MIN": MIN, "FORAGERS_MAX": MAX, "FORAGERS_LEASE": LEASE,
                # a split after a few rewards: places freed by the faults are taken again
                "FORAGERS_SPLIT_SCORE": 104, "FORAGERS_HOST_RATE": RATE, "FORAGERS_SEED": 3,
                "FORAGERS_FETCH_TTL": 0, "FORAGERS_RUN_DIR": tmp_path / "run"}
    try:
        with ReplayProcess(corpus, speed=600, start=START, log_path=requests) as replay:
            result = crawl_forager(replay.url, tmp_path, seconds=300, settings=settings,
                                   args={"speed": 600}, timeout=360, until=colony.step)
            # the jobs end with the root (the store's stop mark; the spawner cancels them)
            deadline = time.monotonic() + 30
            while colony.running(guarded) and time.monotonic() < deadline:
                time.sleep(0.5)
    finally:
        colony.store.close()
    assert colony.phase == "redis restarted", (colony.phase, result.log[-3000:])
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log, result.log[-3000:]
    assert "s3cret" not in result.log  # a node's password is never logged
    assert not colony.running(guarded), "a forager's job outlived the colony"

    # every job of the colony ran from the deployed egg (a job still pending at the end was
    # cancelled before it ran: no log); none but the killed one failed
    guarded_jobs = jobs(guarded, "finished")
    assert len(guarded_jobs) >= 2 and colony.plain_jobs
    logs = {job["id"]: guarded.job_log("newsforagers", "forager", job["id"]) for job in guarded_jobs}
    for job, log in logs.items():
        if job.split("-")[0] != colony.killed and log:
            assert "Traceback" not in log and " ERROR: " not in log, log[-3000:]
            # or its job started after its lease ran out and another split had taken the place
            # meanwhile (a job's process, Python, Scrapy and the egg, took longer than the 4 s
            # lease to start on a loaded machine, seen once in a full suite): it ends at once, as
            # a member that lost its place does
            lost_place = "no place left in the population" in log and "(population_full)" in log
            assert "joined as a process of its own" in log or lost_place, log[-3000:]
    # the foragers born after the node went down ran on the node that is left: each joined, or
    # (started after its lease ran out, as above: seen once in a full suite, on a loaded machine)
    # lost its place; at least one joined
    joined = [job for job in colony.born_after_node_down if "joined as a process of its own" in logs[job]]
    for job in colony.born_after_node_down:
        lost_place = "no place left in the population" in logs[job] and "(population_full)" in logs[job]
        assert job in joined or lost_place, logs[job][-3000:]
    assert joined, {job: logs[job][-1500:] for job in colony.born_after_node_down}

    # each document paid once across every process: the store, its export, the root's feed
    store = open_store(redis_server.url, prefix=PREFIX)
    try:
        documents = list(store.documents())
        paid = [record.url for record in documents]
        members_left = store.members(time.time())
    finally:
        store.close()
    assert len(paid) == len(set(paid)) >= 25
    exported = tmp_path / "export.jsonl"
    run = subprocess.run([sys.executable, "-m", "newsforagers.cli", "export", "--store", redis_server.url,
                          "--prefix", PREFIX, "-o", str(exported)], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    exported_urls = [json.loads(line)["url"] for line in exported.read_text().splitlines()]
    # (when they differ: who paid what was not output, and whether its forager's process was
    # killed — the job killed, or a job of the node that went down — between the pay and the
    # output: a paid document without its output was seen once, in a full suite on a loaded
    # machine)
    killed_with_node = {job.split("-")[0] for job in colony.plain_jobs}
    assert sorted(exported_urls) == sorted(paid), (
        [(r.url, r.forager, r.found_at, "killed" if r.forager == colony.killed else
          "killed with its node" if r.forager in killed_with_node else "alive")
         for r in documents if r.url not in set(exported_urls)],
        sorted(set(exported_urls) - set(paid)))
    fed = [item["url"] for item in result.items]
    assert len(fed) == len(set(fed)), sorted(url for url in fed if fed.count(url) > 1)
    # (when they differ: who paid or output each URL one of them lacks, and when)
    assert set(fed) == set(paid), (
        [(item["url"], item["forager"], item["found_at"]) for item in result.items if item["url"] not in paid],
        [(r.url, r.forager, r.found_at) for r in documents if r.url not in set(fed)], result.log[-3000:])
    # by the root and a job
    finders = {item["forager"] for item in result.items}
    assert ROOT in finders and len(finders) >= 2, finders

    # the colony went on after each fault
    assert colony.paid_at["node down"] >= colony.paid_at["killed"] + NEW
    assert colony.paid_at["redis restarted"] >= colony.paid_at["node down"] + NEW
    assert len(paid) >= colony.paid_at["redis restarted"] + NEW

    # the population within its bounds all along, and nobody left at the end
    assert colony.populations and max(colony.populations) <= MAX
    assert not members_left

    # the per-host budget held across every process on both nodes
    log = list(read_log(requests))
    heard = {record["forager"] for record in log if record["forager"]}
    assert colony.heard_from_all(heard), (sorted(heard), colony.node_foragers(plain), colony.node_foragers(guarded))
    # The colony's one-second window keeps any RATE + 1 starts of a host 1.05 s apart
    # (colony/throttle.py), so any RATE + 1 arrivals span 1.05 s, less how much later than its
    # start the replay stamped the first of them: with two nodes' processes, Redis and the
    # suite's other worker on two cores that delay once went past the 50 ms margin (a busiest
    # second of 4 against 3, in one of four full-suite runs), and past 0.2 s once (0.217 s, a
    # clean clone's CI run, 22ed7de): the window is judged to within 0.3 s of stamping delay —
    # RATE + 1 arrivals within 0.75 s would be 1.4 times the rate; twice the rate spans 0.5 s.
    walls = sorted(r["wall_time"] for r in log)
    spans = [b - a for a, b in zip(walls, walls[RATE:])]
    assert min(spans) >= 1.05 - 0.3, min(spans)
    assert busiest_second(walls) <= RATE + 1


def test_the_store_url_names_the_server_when_redis_is_down(tmp_path):
    """A colony given a Redis store nobody answers ends at once with one clear line naming the
    server (its password hidden), instead of crawling without its store."""
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    result = crawl_forager("http://127.0.0.1:9/", tmp_path, seconds=30, timeout=90, settings={
        "FORAGERS_STORE": url, "FORAGERS_STORE_RETRY": 1, "FORAGERS_RUN_DIR": tmp_path / "run"})
    assert result.returncode != 0
    errors = [line for line in result.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1 and "did not answer" in errors[0] and "127.0.0.1" in errors[0], result.log[-3000:]
    assert "hunter2" not in result.log and "Traceback" not in result.log, result.log[-3000:]
