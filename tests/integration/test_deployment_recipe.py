"""docs/deployment.md, "Recipe: Redis and two scrapyd nodes", run as it is written.

The test reads the recipe's shell blocks from the document (each follows an HTML comment
``<!-- recipe: NAME -->``) and runs them with ``bash``, in their order, on this machine: Redis,
two scrapyd nodes, the deployed egg, the colony's root, a look at it, the export, the stop.
It substitutes nothing in them: it sets the variables that step 1 of the recipe sets (and only
those) to 127.0.0.1, free ports, a temporary directory, this test run's Python and the replayed
synthetic site, with a short ``CRAWL_SECONDS``. The crawl stops by itself at that limit. Of the
rest of the environment, only ``HOME`` and ``TMPDIR`` point into the test's directory: no
``~/.scrapyd.conf`` of the user's reaches the nodes, and nothing is left in ``/tmp``.

Then: both nodes ran forager jobs, the export and the root's feed hold each document once (the
same ones), and no process the recipe started is left.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import REPO
from tests.needs import free_port, skip_or_fail
from tests.redis_server import REQUIRE_ENV as REQUIRE_REDIS
from tests.redis_server import require_redis
from tests.scrapyd_nodes import REQUIRE_ENV as REQUIRE_SCRAPYD
from tests.scrapyd_nodes import clean_env, copy_project, require_scrapyd

pytestmark = pytest.mark.timeout(300)

DOC = REPO / "docs" / "deployment.md"
SECTION = "## Recipe: Redis and two scrapyd nodes"
#: the blocks the recipe marks, in its order; a block added, removed or renamed fails the test
BLOCKS = ("redis", "node1", "node2", "deploy", "crawl", "watch", "export", "stop")
#: the crawl's limit (``CLOSESPIDER_TIMEOUT``). Measured on this 2-core machine, idle: the jobs
#: joined the colony 3 s after the root started, and the colony was paid for 45 documents
CRAWL_SECONDS = 35
#: seconds one block other than the crawl may take
STEP_TIMEOUT = 120.0
#: seconds the root may take to end after its limit: it cancels its jobs and waits for them
STOP_TIMEOUT = 90.0
#: seconds the processes may take to exit after the recipe's stop
GONE_TIMEOUT = 20.0
# The recipe's crawl has no -a speed (a live site's clock): the replay runs at speed 1, from a
# Tuesday morning, with a day of news on the site already (the novelty window is 24 hours)
START = "2024-01-02T09:00:00+00:00"


def recipe() -> tuple[str, list[tuple[str, str]]]:
    """The recipe's step 1 (the variables) and its marked blocks, (name, text) in order."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end if end >= 0 else len(text)]
    variables = re.search(r"### 1\. .*?\n```sh\n(.*?)\n```", section, re.S)
    assert variables, "the recipe's step 1 has no shell block"
    marked = re.findall(r"<!-- recipe: ([\w-]+) -->\n```sh\n(.*?)\n```", section, re.S)
    return variables.group(1), marked


def assigned(block: str) -> set[str]:
    """The variables a block of ``export NAME=value ...`` lines sets (comments left out)."""
    names = set()
    for line in block.splitlines():
        names.update(re.findall(r"\b([A-Z][A-Z0-9_]*)=", line.split("#", 1)[0]))
    return names


def run_block(name: str, block: str, env: dict, logs: Path) -> str:
    """Run one block with ``bash -euo pipefail`` (a failing command fails the step); its output."""
    log = logs / f"{name}.log"
    with open(log, "wb") as output:
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", block], env=env, cwd=env["HOME"],
                             stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                             timeout=STEP_TIMEOUT)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert run.returncode == 0, f"step {name!r} exited {run.returncode}:\n{block}\n-- output --\n{text[-3000:]}"
    return text


def json_lines(text: str) -> list[dict]:
    """The JSON objects of a block's output, one a line (what curl printed)."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def get_json(url: str) -> dict:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=5) as response:
        return json.loads(response.read())


def running_jobs(node: str) -> list[dict]:
    """The jobs running on the scrapyd at ``host:port`` ([] while it does not answer)."""
    try:
        return get_json(f"http://{node}/listjobs.json?project=newsforagers")["running"]
    except OSError:
        return []


def joined_jobs(workdir: Path, name: str, node: str) -> list[dict]:
    """The jobs running on ``node`` (``host:port``, the recipe's ``name``) whose forager has
    joined the colony (its log says so)."""
    logs = workdir / name / "logs" / "newsforagers" / "forager"
    joined = []
    for job in running_jobs(node):
        path = logs / f"{job['id']}.log"
        if path.exists() and "joined as a process of its own" in path.read_text(errors="replace"):
            joined.append(job)
    return joined


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def live_processes() -> dict[int, tuple[int, str]]:
    """pid -> (process group, command line) of every process that is not a zombie (a process
    whose parent has gone may stay a zombie here: nobody reaps it, and it holds nothing)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        state, _, group = stat.rsplit(")", 1)[1].split()[:3]
        if state != "Z":
            found[int(entry.name)] = (int(group), cmdline)
    return found


def survivors(groups: set[int], marks: tuple[str, ...]) -> list[str]:
    """The live processes of ``groups``, or whose command line holds one of ``marks``."""
    me = os.getpid()
    return [f"{pid}: {cmdline}" for pid, (group, cmdline) in live_processes().items()
            if pid != me and (group in groups or any(mark in cmdline for mark in marks))]


def kill_groups(groups: set[int]) -> None:
    """SIGKILL the live processes left in ``groups`` (the process groups the recipe started)."""
    alive = {group for group, _ in live_processes().values()}
    for group in groups & alive:
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def test_the_deployment_recipe_runs_a_colony_on_two_scrapyd_nodes_and_redis(tmp_path):
    require_redis()
    require_scrapyd()
    for tool in ("redis-cli", "curl", "setsid"):
        skip_or_fail(None if shutil.which(tool) else f"the recipe needs {tool} on PATH",
                     REQUIRE_REDIS if tool == "redis-cli" else REQUIRE_SCRAPYD)
    variables, marked = recipe()
    assert tuple(name for name, _ in marked) == BLOCKS, [name for name, _ in marked]
    blocks = dict(marked)

    home = tmp_path / "home"  # no ~/.scrapyd.conf or ~/.netrc of the user's reaches the nodes
    home.mkdir()
    workdir = tmp_path / "colony"
    logs = tmp_path / "steps"
    logs.mkdir()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    ports = set()
    while len(ports) < 3:
        ports.add(free_port())
    redis_port, node1_port, node2_port = sorted(ports)
    node1, node2 = f"127.0.0.1:{node1_port}", f"127.0.0.1:{node2_port}"
    nodes = (("node1", node1), ("node2", node2))
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=3, rate=300, sections=12, seed=7)
    checkout = copy_project(REPO, tmp_path / "checkout")  # the egg is built in a copy

    groups: set[int] = set()
    crawl = None
    with ReplayProcess(corpus, speed=1, start=START) as replay:
        values = {"CHECKOUT": str(checkout), "VENV": sys.prefix, "WORKDIR": str(workdir),
                  "REDIS_HOST": "127.0.0.1", "REDIS_PORT": str(redis_port),
                  "NODE1_HOST": "127.0.0.1", "NODE1_PORT": str(node1_port),
                  "NODE2_HOST": "127.0.0.1", "NODE2_PORT": str(node2_port),
                  "SITE": replay.url, "CRAWL_SECONDS": str(CRAWL_SECONDS),
                  "REDIS_PASSWORD_FILE": str(home / ".config" / "newsforagers" / "redis.pass")}
        assert assigned(variables) == set(values), variables
        # scrapyd-deploy --build-egg leaves its build directory in TMPDIR (scrapyd-client 2.0.3)
        env = clean_env(HOME=str(home), TMPDIR=str(scratch), **values)
        try:
            run_block("redis", blocks["redis"], env, logs)
            groups.add(read_pid(workdir / "redis" / "redis.pid"))  # it made a session of its own
            for name in ("node1", "node2"):
                status = json_lines(run_block(name, blocks[name], env, logs))
                assert status and status[-1]["status"] == "ok", status
                groups.add(read_pid(workdir / name / "scrapyd.pid"))  # setsid: its jobs' group
            assert None not in groups, groups
            deployed = json_lines(run_block("deploy", blocks["deploy"], env, logs))
            assert [answer["status"] for answer in deployed] == ["ok", "ok"], deployed

            root_log = logs / "crawl.log"
            with open(root_log, "wb") as output:
                crawl = subprocess.Popen(["bash", "-euo", "pipefail", "-c", blocks["crawl"]], env=env,
                                         cwd=home, stdin=subprocess.DEVNULL, stdout=output,
                                         stderr=subprocess.STDOUT, start_new_session=True)
            groups.add(crawl.pid)
            # what a user watches for: on each node, a forager's job that joined the colony
            deadline = time.monotonic() + CRAWL_SECONDS
            while not all(joined := [joined_jobs(workdir, name, node) for name, node in nodes]):
                assert crawl.poll() is None and time.monotonic() < deadline, \
                    f"no forager joined from both nodes:\n{root_log.read_text()[-3000:]}"
                time.sleep(0.5)
            watched = run_block("watch", blocks["watch"], env, logs)
            listings = json_lines(watched)
            assert len(listings) == 2, watched
            for listing, jobs in zip(listings, joined):
                assert {job["id"] for job in jobs} <= {job["id"] for state in ("running", "finished")
                                                       for job in listing[state]}, watched
                # the status table shows the member in its job's process
                assert any(f"{socket.gethostname()}:{job['pid']}" in watched for job in jobs), watched

            # the crawl stops by itself, at its limit
            try:
                returncode = crawl.wait(CRAWL_SECONDS + STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"the colony outlived its limit:\n{root_log.read_text()[-3000:]}") from None
            root = root_log.read_text(encoding="utf-8", errors="replace")
            assert returncode == 0, root[-3000:]
            assert "Traceback" not in root and " ERROR: " not in root, root[-3000:]
            assert "'finish_reason': 'closespider_timeout'" in root, root[-3000:]

            # the password the recipe made stays in its file (mode 600) and Redis's redis.conf:
            # in no log of a step, of the root, of a node or of a job
            secret = Path(values["REDIS_PASSWORD_FILE"])
            assert oct(secret.stat().st_mode & 0o777) == "0o600"
            password = secret.read_text().strip()
            assert len(password) >= 16
            for path in [*logs.rglob("*"), *workdir.rglob("*")]:
                if path.is_file() and path.name != "redis.conf" and path.suffix != ".egg":
                    assert password not in path.read_text(errors="replace"), path

            exported = run_block("export", blocks["export"], env, logs)
            statuses = json_lines(exported)
            assert [(s["running"], s["pending"]) for s in statuses] == [(0, 0), (0, 0)], exported

            run_block("stop", blocks["stop"], env, logs)
            marks = (str(workdir), f"127.0.0.1:{redis_port}", node1, node2)
            deadline = time.monotonic() + GONE_TIMEOUT
            while (left := survivors(groups, marks)) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert not left, f"processes left after the recipe's stop: {left}"
        finally:
            # after a failure, what the recipe's own stop did not end
            kill_groups(groups - {None})
            if crawl is not None:
                crawl.wait()

    # both nodes ran foragers, each in a job of its own that joined the colony
    for name in ("node1", "node2"):
        job_logs = list((workdir / name / "logs" / "newsforagers" / "forager").glob("*.log"))
        assert job_logs, f"{name} ran no forager"
        for path in job_logs:
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "joined as a process of its own" in text, text[-3000:]
            assert "Traceback" not in text, text[-3000:]

    # each document once, in the export and in the root's feed: the same ones
    documents = [json.loads(line)["url"] for line in (workdir / "documents.jsonl").read_text().splitlines()]
    fed = [json.loads(line)["url"] for line in (workdir / "found.jsonl").read_text().splitlines()]
    assert len(documents) == len(set(documents)) >= 5, len(documents)
    assert len(fed) == len(set(fed)) and set(fed) == set(documents)
