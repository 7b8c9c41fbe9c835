"""Secrets stay secret (issue 29): a colony over two real scrapyd nodes — one with basic auth —
and a real ``redis-server`` with a password, each secret kept where docs/deployment.md
(*Secrets*) says: the Redis password in a file readable by its owner only
(``FORAGERS_STORE_PASSWORD_FILE``: the jobs are given its path, never the password), the node's
credentials in ``~/.netrc`` (the root's, and each node's for the jobs that split). While it
runs, no process of the machine shows either password on its command line (``ps``); after it,
neither is in any log, the run directory, the feed, the dashboard's pages or any error printed.

The passwords hold ``/``, ``#``, ``@`` and ``:``, which a masking that scans a URL for the end of
its authority lets out."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from newsforagers.store import open_store
from tests.integration.forager_run import REPO
from tests.redis_server import start_server
from tests.scrapyd_nodes import clean_env, copy_project, deploy

pytestmark = pytest.mark.timeout(400)

REDIS_PASSWORD = "r3d1s/Pa#ss@word:x"
NODE_PASSWORD = "n0de:S3c#ret/pw@y"
START = "2024-01-01T07:00:00+00:00"
#: Wall seconds the test waits for the colony to run jobs on both nodes and be paid.
WAIT = 120.0


def spellings(secret: str) -> set[str]:
    """What a leak of ``secret`` could look like: as it is, URL-quoted, and long pieces of it."""
    return {secret, quote(secret, safe=""), quote(secret), *(part for part in secret.split("/") if len(part) > 4)}


SECRETS = spellings(REDIS_PASSWORD) | spellings(NODE_PASSWORD)


def leaks(text: str) -> set[str]:
    return {secret for secret in SECRETS if secret in text}


def private_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_text(text, encoding="utf-8")
    return path


def command_lines() -> list[str]:
    """Every process's command line, as ``ps`` shows them to any user of the machine."""
    lines = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                lines.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace"))
            except OSError:
                continue
    return lines


def jobs(node, state: str) -> list[dict]:
    try:
        return node.request("listjobs.json", {"project": "newsforagers"}, timeout=3)[state]
    except OSError:
        return []


def test_no_password_in_ps_logs_run_directory_pages_or_errors(scrapyd_nodes, tmp_path):
    redis = start_server(tmp_path / "redis", password=REDIS_PASSWORD)
    try:
        nodes = run_colony(redis, scrapyd_nodes, tmp_path)
    finally:
        redis.stop()
    # nothing written during the run holds a secret (the test's own files, the nodes' with their
    # logs and their jobs' logs, Redis's), but the files that keep them on purpose
    kept = {tmp_path / "secrets" / "redis.pass", tmp_path / "home" / ".netrc", tmp_path / "redis" / "redis.conf"}
    checked = 0
    logs = 0
    for path in [p for directory in (tmp_path, *nodes) for p in directory.rglob("*")]:
        # (the copy of this repository the eggs were built from holds this test's own source)
        if not path.is_file() or path in kept or path.name in (".netrc", "scrapyd.conf") \
                or (tmp_path / "repository") in path.parents:
            continue
        found = leaks(path.read_bytes().decode("utf-8", "replace"))
        assert not found, f"{path} holds {found}"
        checked += 1
        logs += path.suffix == ".log"
    # the root's log, both nodes' scrapyd logs ("Process started: ... args=[...]"), the jobs' logs
    assert logs >= 5 and checked > 20, (logs, checked)


def run_colony(redis, scrapyd_nodes, tmp_path: Path) -> list[Path]:
    """Run the colony and check it while it runs and after; the nodes' directories."""
    plain = scrapyd_nodes(max_proc=4)
    guarded = scrapyd_nodes(username="forager", password=NODE_PASSWORD, max_proc=4)
    repository = copy_project(REPO, tmp_path / "repository")
    for node in (plain, guarded):
        deploy(repository, node, "newsforagers")
    # where an operator keeps them: a password file, and ~/.netrc (the root's and each node's)
    password_file = private_file(tmp_path / "secrets" / "redis.pass", REDIS_PASSWORD + "\n")
    netrc = f"machine 127.0.0.1 login forager password {NODE_PASSWORD}\n"
    home = tmp_path / "home"
    private_file(home / ".netrc", netrc)
    for node in (plain, guarded):
        private_file(node.directory / ".netrc", netrc)
    store_url = f"redis://127.0.0.1:{redis.port}/0"
    run_dir, out, log = tmp_path / "run", tmp_path / "found.jsonl", tmp_path / "crawl.log"
    settings = {"FORAGERS_STORE": store_url, "FORAGERS_STORE_PASSWORD_FILE": password_file,
                "FORAGERS_SPAWNER": "scrapyd", "FORAGERS_SCRAPYD_URLS": f"{plain.url},{guarded.url}",
                "FORAGERS_MIN": 3, "FORAGERS_MAX": 4, "FORAGERS_LEASE": 4, "FORAGERS_SPLIT_SCORE": 104,
                "FORAGERS_HOST_RATE": 3, "FORAGERS_FETCH_TTL": 0, "FORAGERS_RUN_DIR": run_dir,
                "FORAGERS_INDEX": tmp_path / "colony.index.sqlite", "LOG_FILE": log, "LOG_LEVEL": "DEBUG",
                "CLOSESPIDER_TIMEOUT": 200, "TELNETCONSOLE_ENABLED": False}
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=300, sections=12, seed=11)
    reader = open_store(store_url, password_file=str(password_file), retry=10.0)
    errors = tmp_path / "crawl.stderr"
    try:
        with ReplayProcess(corpus, speed=600, start=START) as replay:
            argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={replay.url}",
                    "-a", "speed=600", "-O", str(out)]
            for key, value in settings.items():
                argv += ["-s", f"{key}={value}"]
            with open(errors, "w", encoding="utf-8") as stderr:
                root = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=stderr, env=clean_env(HOME=str(home), PYTHONUNBUFFERED="1"))
                try:
                    looked = 0
                    deadline = time.monotonic() + WAIT
                    while root.poll() is None and time.monotonic() < deadline:
                        # the command lines of every process: the root, scrapyd, its jobs, redis
                        for line in command_lines():
                            assert not leaks(line), f"a command line shows a password: {line}"
                        looked += 1
                        # (a job running may still be starting: stopped before it joined, it
                        # never logs in — the jobs' start raced the colony's finds once in CI)
                        if jobs(plain, "running") and jobs(guarded, "running") and reader.output_count() >= 10 \
                                and joined_jobs(plain, guarded) >= 2:
                            break
                        time.sleep(0.5)
                    assert jobs(plain, "running") and jobs(guarded, "running"), \
                        f"no forager job ran on both nodes in {WAIT:g} s: {log.read_text()[-3000:]}"
                    assert looked >= 3
                    root.send_signal(signal.SIGINT)
                    root.wait(120)
                finally:
                    if root.poll() is None:
                        root.kill()
                        root.wait()
            deadline = time.monotonic() + 30
            while (jobs(plain, "running") or jobs(guarded, "running")) and time.monotonic() < deadline:
                time.sleep(0.5)
    finally:
        reader.close()
    assert root.returncode == 0, errors.read_text()[-3000:] + log.read_text()[-3000:]
    text = log.read_text()
    assert "Traceback" not in text and "refused to let this client in" not in text, text[-3000:]
    assert [json.loads(line) for line in out.read_text().splitlines()], "the colony found nothing"
    # the jobs logged in to Redis (with the file on their node) and ran
    assert joined_jobs(plain, guarded) >= 2
    check_pages_and_errors(store_url, password_file, tmp_path, run_dir)
    return [plain.directory, guarded.directory]


def check_pages_and_errors(store_url: str, password_file: Path, tmp_path: Path, run_dir: Path) -> None:
    """The dashboard's pages and JSON, and the commands' errors, name the store without its
    password, however it was given."""
    from newsforagers.web import create_app

    with_password = f"redis://:{REDIS_PASSWORD}@{store_url.removeprefix('redis://')}"
    for store, options in ((store_url, {"password_file": str(password_file)}), (with_password, {})):
        client = create_app(store, index=tmp_path / "colony.index.sqlite", run_dir=run_dir,
                            **options).test_client()
        for page in ("/", "/latest", "/colony", "/search?q=harbour", "/api/latest", "/api/colony",
                     "/api/search?q=harbour"):
            response = client.get(page)
            assert response.status_code < 500, (page, response.status_code)
            assert not leaks(response.get_data(as_text=True)), (page, store)
    cli = [sys.executable, "-m", "newsforagers.cli"]
    dead = f"redis://:{REDIS_PASSWORD}@127.0.0.1:1/0"
    for argv in ([*cli, "search", "oil", "--store", dead],                   # row 1: no index yet
                 [*cli, "status", "--store", dead, "--run", str(run_dir)],
                 [*cli, "export", "--store", dead],
                 [*cli, "index", "--store", dead],
                 [*cli, "export", "--store", store_url, "--password-file", str(tmp_path / "nope")],
                 [*cli, "export", "--store", f"redis://:wrong{REDIS_PASSWORD}@{store_url.removeprefix('redis://')}"]):
        run = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60,
                             env=clean_env(HOME=str(tmp_path / "home")))
        assert run.returncode == 2, (argv[3:], run.returncode, run.stderr)
        assert not leaks(run.stdout + run.stderr), (argv[3:], run.stderr)
    # the store read with the password file: what the colony wrote
    run = subprocess.run([*cli, "export", "--store", store_url, "--password-file", str(password_file)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env=clean_env(HOME=str(tmp_path / "home")))
    assert run.returncode == 0 and run.stdout.strip(), run.stderr


def joined_jobs(*nodes) -> int:
    """How many forager jobs on ``nodes`` logged that they joined the colony."""
    return sum("joined as a process of its own" in path.read_text(errors="replace")
               for node in nodes for path in (node.directory / "logs").rglob("*.log"))
