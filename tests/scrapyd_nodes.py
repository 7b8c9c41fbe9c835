"""Real scrapyd nodes for tests, on loopback, and ``scrapyd-deploy`` to them.

:func:`start_node` runs ``python -m scrapyd`` with this test run's Python (``sys.executable``:
scrapyd starts its jobs with its own interpreter, so they import newsforagers and its
dependencies from this virtualenv) in a directory of its own, with its own ``scrapyd.conf``:
127.0.0.1 and a free port, its eggs, logs and databases in that directory, a small
``max_proc``, a short poll interval, optionally basic auth. It returns once
``daemonstatus.json`` answers. :meth:`ScrapydNode.stop` ends the node and every job it
started (they are in its process group): SIGTERM, then SIGKILL.

:func:`deploy` deploys a Scrapy project directory to a node with ``scrapyd-deploy``, through a
deploy target in a temporary ``scrapy.cfg`` (``$XDG_CONFIG_HOME/scrapy.cfg``, one of the files
scrapyd-deploy reads besides the project's own), so that the project's ``scrapy.cfg`` is left
as it is.

When scrapyd is not installed the tests that need it skip, saying so, unless
``NEWSFORAGERS_REQUIRE_SCRAPYD=1`` (then they fail).
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.needs import free_port, skip_or_fail

REQUIRE_ENV = "NEWSFORAGERS_REQUIRE_SCRAPYD"
#: seconds a node may take to answer ``daemonstatus.json`` after it was started
START_TIMEOUT = 30.0
#: seconds a node (and its jobs) may take to end after SIGTERM before SIGKILL
STOP_GRACE = 10.0
# environment a node must not inherit: scrapyd's own overrides of its configuration, a Scrapy
# project of the caller's, proxies (everything here is on loopback)
_SCRUBBED = ("SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT", "SCRAPYD_EGG_VERSION")
_PROXIES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")


def scrapyd_missing() -> str | None:
    """Why scrapyd cannot run here (None: it can)."""
    for module in ("scrapyd", "scrapyd_client"):
        if importlib.util.find_spec(module) is None:
            return (f"{module} is not installed in this Python: pip install -e '.[scrapyd]' "
                    f"(set {REQUIRE_ENV}=1 to make this a failure)")
    return None


def require_scrapyd() -> None:
    """Skip the calling test when scrapyd is missing, or fail with ``NEWSFORAGERS_REQUIRE_SCRAPYD=1``."""
    skip_or_fail(scrapyd_missing(), REQUIRE_ENV)


def clean_env(**extra: str) -> dict:
    env = {key: value for key, value in os.environ.items()
           if key.lower() not in _PROXIES and key not in _SCRUBBED and not key.startswith("SCRAPYD_")}
    env.update(extra)
    return env


@dataclass
class ScrapydNode:
    """One running scrapyd, at ``url`` (no credentials in it; ``auth_url`` has them)."""

    url: str
    directory: Path
    process: subprocess.Popen
    username: str = ""
    password: str = ""

    @property
    def auth_url(self) -> str:
        """The URL with its credentials as userinfo (what ``FORAGERS_SCRAPYD_URLS`` takes)."""
        if not self.username:
            return self.url
        parts = urllib.parse.urlsplit(self.url)
        quote = urllib.parse.quote
        userinfo = f"{quote(self.username, safe='')}:{quote(self.password, safe='')}"
        return parts._replace(netloc=f"{userinfo}@{parts.netloc}").geturl()

    def request(self, endpoint: str, fields: dict | list | None = None, *, post: bool = False,
                auth: bool = True, timeout: float = 10.0) -> dict:
        """The JSON answer of ``endpoint`` (GET with ``fields`` as its query, or POST them)."""
        url = urllib.parse.urljoin(self.url, endpoint)
        data = None
        if fields and not post:
            url += "?" + urllib.parse.urlencode(fields, doseq=True)
        elif post:
            data = urllib.parse.urlencode(fields or {}, doseq=True).encode()
        request = urllib.request.Request(url, data=data, method="POST" if post else "GET")
        if auth and self.username:
            token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
            request.add_header("Authorization", f"Basic {token}")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=timeout) as response:
            return json.loads(response.read())

    def job_log(self, project: str, spider: str, job: str) -> str:
        """The log scrapyd gave job ``job`` ("" while there is none)."""
        path = self.directory / "logs" / project / spider / f"{job}.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def log(self) -> str:
        """scrapyd's own output."""
        path = self.directory / "scrapyd.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def wait_finished(self, project: str, job: str, timeout: float, poll: float = 0.5) -> bool:
        """Whether job ``job`` is among the node's finished jobs within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            listing = self.request("listjobs.json", {"project": project})
            if any(job == entry["id"] for entry in listing["finished"]):
                return True
            time.sleep(poll)
        return False

    def stop(self, grace: float = STOP_GRACE) -> None:
        """End the node and the jobs it started (its process group): SIGTERM, then SIGKILL."""
        group = self.process.pid  # started in a session of its own: its jobs are in its group
        if _signal_group(group, signal.SIGTERM):
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline:
                self.process.poll()  # reap scrapyd: a zombie would keep the group alive
                if not _signal_group(group, 0):
                    break
                time.sleep(0.1)
            _signal_group(group, signal.SIGKILL)
        self.process.wait(grace)


def _signal_group(group: int, sig: int) -> bool:
    """Send ``sig`` to process group ``group``; False when no process is left in it."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    return True


def start_node(directory: Path, *, username: str = "", password: str = "", max_proc: int = 2,
               poll_interval: float = 0.2, timeout: float = START_TIMEOUT) -> ScrapydNode:
    """Start a scrapyd node in ``directory`` (created) and wait until it answers."""
    directory.mkdir(parents=True, exist_ok=True)
    for attempt in range(3):  # a free port may be taken between its choice and scrapyd's bind
        port = free_port()
        conf = "\n".join([
            "[scrapyd]",
            "bind_address = 127.0.0.1",
            f"http_port = {port}",
            f"eggs_dir = {directory / 'eggs'}",
            f"logs_dir = {directory / 'logs'}",
            "items_dir =",
            f"dbs_dir = {directory / 'dbs'}",
            f"max_proc = {max_proc}",
            # scrapyd deletes a spider's logs but its last 5 jobs' (``jobs_to_keep``): a colony
            # runs a job per forager, and a test reads every job's log after the colony stopped
            "jobs_to_keep = 1000",
            f"poll_interval = {poll_interval}",
            f"username = {username}",
            f"password = {password}",
            "",
        ])
        (directory / "scrapyd.conf").write_text(conf, encoding="utf-8")
        output = open(directory / "scrapyd.log", "ab")
        # HOME is the node's directory: no ~/.scrapyd.conf (read after ./scrapyd.conf) or
        # ~/.scrapy.cfg of the user's overrides this node's configuration
        process = subprocess.Popen([sys.executable, "-m", "scrapyd", "--pidfile="], cwd=directory,
                                   stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                                   env=clean_env(HOME=str(directory), PYTHONUNBUFFERED="1"),
                                   start_new_session=True)
        output.close()
        node = ScrapydNode(f"http://127.0.0.1:{port}/", directory, process, username, password)
        deadline = time.monotonic() + timeout
        while process.poll() is None and time.monotonic() < deadline:
            try:
                node.request("daemonstatus.json", timeout=2.0)
                return node
            except (OSError, ValueError):
                time.sleep(0.1)
        node.stop()
        if "Address already in use" not in node.log() or attempt == 2:
            raise RuntimeError(f"scrapyd did not answer on {node.url} within {timeout:g} s:\n"
                               f"{node.log()[-3000:]}")
    raise AssertionError("unreachable")


def deploy(project_dir: Path, node: ScrapydNode, project: str, version: str | None = None,
           timeout: float = 120.0) -> str:
    """``scrapyd-deploy`` the Scrapy project in ``project_dir`` to ``node`` as ``project``;
    the version deployed (default: a timestamp, as scrapyd-deploy makes one)."""
    version = version or str(int(time.time() * 1000))
    with tempfile.TemporaryDirectory(prefix="scrapyd-deploy-cfg-") as config_home:
        target = ["[deploy:scrapyd-nodes]", f"url = {node.url}", f"project = {project}"]
        if node.username:
            target += [f"username = {node.username}", f"password = {node.password}"]
        (Path(config_home) / "scrapy.cfg").write_text("\n".join(target) + "\n", encoding="utf-8")
        script = Path(sys.executable).with_name("scrapyd-deploy")
        command = [str(script)] if script.exists() else [sys.executable, "-m", "scrapyd_client.deploy"]
        run = subprocess.run([*command, "scrapyd-nodes", "-p", project, "-v", version], cwd=project_dir,
                             env=clean_env(XDG_CONFIG_HOME=config_home), capture_output=True, text=True,
                             timeout=timeout, stdin=subprocess.DEVNULL)
    # scrapyd answers a refused egg with HTTP 200 and {"status": "error"}: scrapyd-deploy exits 0
    answer = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    try:
        status = json.loads(answer).get("status")
    except ValueError:
        status = None
    if run.returncode != 0 or status != "ok":
        raise AssertionError(f"scrapyd-deploy of {project_dir} to {node.url} failed (exit "
                             f"{run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    return version


def copy_project(source: Path, destination: Path) -> Path:
    """A copy of a project's source (no VCS, virtualenv or build output), to build an egg in
    without touching the original's working tree."""
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
        ".newsforagers", ".scrapy", "runs", "*.joblib"))
    return destination
