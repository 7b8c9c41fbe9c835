"""``ScrapydSpawner`` (``FORAGERS_SPAWNER=scrapyd``): the colony's foragers as scrapyd jobs.

Each forager the colony starts is a scrapyd job of the project the colony was deployed as
(``scrapyd-deploy``; docs/deployment.md, "scrapyd"): ``scrapy crawl forager -a role=member
-a forager=NAME ...`` on whichever node of ``FORAGERS_SCRAPYD_URLS`` is the least loaded. Like a
forager in a process of its own (:class:`~newsforagers.colony.spawner.ProcessSpawner`), a job
shares nothing with the others but the store: it joins the population there, reads what it is
born with there (its hand-over) and renews its own lease, so a store every node reaches is
needed (Redis).

A job is scheduled with ``schedule.json``: the project, the spider (the root's), a job id
naming the forager, the ``FORAGERS_*`` settings the root's project, spider or command line set
as ``setting=KEY=VALUE`` fields, and the spider arguments as fields. The spawner watches its jobs
with ``listjobs.json``: one that
finished, or that its node has not shown for longer than a lease (vanished, or its node
unreachable), has ended. A job cancelled or killed from outside simply finishes; one that
cannot be watched any more is counted out of the population by its lease, as any forager that
dies. ``stop`` cancels every job (SIGINT: Scrapy closes cleanly) and waits up to its grace;
a job still running then is cancelled again with SIGKILL.

HTTP goes through ``urllib`` on a thread (``asyncio.to_thread``) with short timeouts, never on
the reactor's thread; basic auth comes from a URL's userinfo (else ``~/.netrc``, as
scrapyd-deploy does), and a password is never logged.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import logging
import netrc
import re
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Callable

from scrapy.settings import SETTINGS_PRIORITIES

from newsforagers.colony.spawner import NO_CONSOLES, Spawner, portable
from newsforagers.config import PREFIX, ForagersConfig
from newsforagers.errors import ForagersUsageError, mask_password
from newsforagers.store.secrets import split_password, without_password

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

#: Seconds one HTTP request to a node may take (to connect, and to answer).
TIMEOUT = 5.0
#: Wall seconds between two looks at the jobs (``listjobs.json`` on each of their nodes).
POLL = 1.5
#: Wall seconds ``stop`` waits for jobs cancelled with SIGKILL before it gives up on them.
KILL_WAIT = 10.0
#: The largest answer read from a node (a node keeps its last finished jobs in its listing).
MAX_ANSWER = 16 * 1024 * 1024
# scrapyd's own fields of schedule.json: a spider argument of one of these names would be taken
# for them
_RESERVED = frozenset({"project", "spider", "jobid", "priority", "setting", "_version"})
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class NodeError(Exception):
    """A scrapyd node did not answer, or answered with an error (its message says which)."""


@dataclass(frozen=True)
class ScrapydNode:
    """One scrapyd node: its URL without credentials, and the basic auth from its userinfo."""

    url: str  # scheme://host:port/path/, ending in "/"
    username: str = field(default="", repr=False)
    password: str = field(default="", repr=False)

    @classmethod
    def parse(cls, text: str) -> ScrapydNode:
        """``http://[user:password@]host:port[/path]``; a bad one raises
        :class:`~newsforagers.errors.ForagersUsageError` naming the setting (password masked)."""
        # the credentials first, up to the last "@" (a password may hold "/", "#", "?" or "@")
        bare, username, password = split_password(text.strip())
        try:
            parts = urllib.parse.urlsplit(bare)
            port_ok = parts.port is None or parts.port > 0
        except ValueError:  # a bad port, a bad IPv6 address
            parts, port_ok = None, False
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname \
                or not port_ok or parts.query or parts.fragment:
            raise ForagersUsageError(
                f"FORAGERS_SCRAPYD_URLS ({mask_password(text.strip())!r}) must be scrapyd nodes' URLs, comma "
                "separated: http://[user:password@]host:port (e.g. http://127.0.0.1:6800)")
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        netloc = host if parts.port is None else f"{host}:{parts.port}"
        path = parts.path if parts.path.endswith("/") else parts.path + "/"
        return cls(urllib.parse.urlunsplit((parts.scheme, netloc, path, "", "")), username or "", password or "")

    @property
    def masked(self) -> str:
        """The URL as it may be logged: the user, never the password."""
        if not self.username:
            return self.url
        parts = urllib.parse.urlsplit(self.url)
        user = urllib.parse.quote(self.username, safe="")
        return parts._replace(netloc=f"{user}:***@{parts.netloc}").geturl()

    def authorization(self) -> str | None:
        """The ``Authorization`` header: the URL's credentials, else ``~/.netrc``'s for the host."""
        username, password = self.username, self.password
        if not username:
            try:
                found = netrc.netrc().authenticators(urllib.parse.urlsplit(self.url).hostname or "")
            except (OSError, netrc.NetrcParseError):
                found = None
            if not found:
                return None
            username, _, password = found
        token = base64.b64encode(f"{username}:{password or ''}".encode()).decode("ascii")
        return f"Basic {token}"

    def __str__(self) -> str:
        return self.masked


def parse_nodes(urls: str) -> list[ScrapydNode]:
    """The nodes of ``FORAGERS_SCRAPYD_URLS`` (comma separated), in their order, each once."""
    nodes = [ScrapydNode.parse(part) for part in urls.split(",") if part.strip()]
    if not nodes:
        raise ForagersUsageError("FORAGERS_SCRAPYD_URLS ('') must name one or more scrapyd nodes "
                                 "with FORAGERS_SPAWNER=scrapyd: http://host:6800[,http://...]")
    return list(dict.fromkeys(nodes))


@dataclass
class ScrapydJob:
    """A forager's job: the handle ``on_started`` receives."""

    name: str
    node: ScrapydNode
    jobid: str
    seen: float = field(default=0.0, repr=False)  # monotonic time the node last showed it


def job_id(name: str) -> str:
    """A readable, unique scrapyd job id for forager ``name``: ``NAME-UTCSTAMP-RANDOM`` (scrapyd
    names the job's log file after it: only letters, digits, ``._-``)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{_UNSAFE.sub('_', name)}-{stamp}-{uuid.uuid4().hex[:8]}"


def setting_value(key: str, value: Any) -> str:
    """A setting as scrapyd hands it to ``scrapy crawl -s KEY=VALUE``: a string as it is, anything
    else as JSON (Scrapy reads numbers, booleans, lists and dicts back from JSON)."""
    value = portable({key: value})[key]
    return value if isinstance(value, str) else json.dumps(value)


#: Settings a job never takes from the root: its log, feed and job directory are scrapyd's (the
#: root's feed receives the whole colony's documents from the store).
_NOT_FOR_JOBS = frozenset({"FEEDS", "FEED_URI", "FEED_FORMAT", "JOBDIR", "LOG_FILE"})


def job_settings(root: Crawler) -> dict[str, str]:
    """The settings a forager's job is given: the root's ``FORAGERS_*`` settings that a project,
    a spider or the command line set (above the defaults the add-on gives them, which the job's
    own add-on gives it too), and every other setting given on the root's command line
    (``-s``: e.g. ``DOWNLOAD_DELAY``, which every process must fold into the colony's one
    budget alike). The rest is the deployed project's."""
    settings = root.settings
    chosen = {}
    for key, value in sorted(settings.copy_to_dict().items()):
        if value is None or key in _NOT_FOR_JOBS:
            continue
        priority = settings.getpriority(key) or 0
        if key.startswith(PREFIX) and priority > SETTINGS_PRIORITIES["addon"] \
                or priority >= SETTINGS_PRIORITIES["cmdline"]:
            chosen[key] = setting_value(key, _no_secrets(key, value))
    chosen.update((key, str(value)) for key, value in NO_CONSOLES)  # ("False", as on a command line)
    return chosen


def _no_secrets(key: str, value: Any) -> Any:
    """A setting as a job may be given it: scrapyd puts a job's settings on its command line
    (``ps`` on the node shows them) and in its log, so the store's URL and the nodes' URLs go
    without their passwords; a job finds them on its node (``FORAGERS_STORE_PASSWORD_FILE``,
    ``$NEWSFORAGERS_STORE_PASSWORD``, ``~/.netrc``: docs/deployment.md, *Secrets*)."""
    if key == f"{PREFIX}STORE" and isinstance(value, str):
        return without_password(value)
    if key == f"{PREFIX}SCRAPYD_URLS" and isinstance(value, str):
        return ",".join(ScrapydNode.parse(part).url for part in value.split(",") if part.strip())
    return value


class ScrapydSpawner(Spawner):
    """Foragers as scrapyd jobs on ``nodes`` (each a split's child, or one of Alg. 9's, on the
    least loaded node: running + pending jobs, the first of equal ones), of the scrapyd
    ``project``.

    ``on_started(name, job)`` is called when a job was scheduled (``job``: a
    :class:`ScrapydJob`, its node and job id), ``on_ended(name, error)`` when it has finished,
    or could not be scheduled, or has not been seen on its node for ``lease`` seconds."""

    in_process = False

    def __init__(self, root: Crawler, on_started: Callable[[str, Any], None],
                 on_ended: Callable[[str, BaseException | None], None], nodes: list[ScrapydNode],
                 project: str, lease: float, grace: float = 30.0, poll: float = POLL,
                 timeout: float = TIMEOUT):
        self.root = root
        self.on_started = on_started
        self.on_ended = on_ended
        self.nodes = nodes
        self.project = project
        self.lease = lease
        self.grace = grace
        self.poll = poll
        self.timeout = timeout
        # name -> its job; None while it is being scheduled
        self._jobs: dict[str, ScrapydJob | None] = {}
        self._scheduling: set[asyncio.Future] = set()
        # one choice of a node at a time: the next one sees the job just scheduled in the load
        self._choosing: asyncio.Lock | None = None
        self._watch: asyncio.Future | None = None
        self._warned: set[ScrapydNode] = set()
        # nodes are on the colony's own network: the environment's HTTP proxy is not for them
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    @classmethod
    def from_config(cls, config: ForagersConfig, root: Crawler, on_started, on_ended,
                    grace: float) -> ScrapydSpawner:
        project = config.scrapyd_project or root.settings.get("BOT_NAME")
        return cls(root, on_started, on_ended, parse_nodes(config.scrapyd_urls), project,
                   config.lease, grace)

    @property
    def running(self) -> int:
        return len(self._jobs)

    # -- starting ---------------------------------------------------------------------------

    def job_fields(self, name: str, arguments: dict[str, Any], jobid: str) -> list[tuple[str, str]]:
        """The form fields of forager ``name``'s ``schedule.json``."""
        arguments = {key: value for key, value in arguments.items() if key != "colony"}
        arguments["role"] = "member"
        clash = sorted(_RESERVED.intersection(arguments))
        if clash:
            raise ValueError(f"spider argument {clash[0]!r} of forager {name} cannot be given to "
                             "scrapyd: it is one of schedule.json's own fields")
        fields = [("project", self.project), ("spider", self.root.spidercls.name), ("jobid", jobid)]
        fields += [("setting", f"{key}={value}") for key, value in job_settings(self.root).items()]
        fields += [(key, str(value)) for key, value in arguments.items()]
        return fields

    def start(self, name: str, arguments: dict[str, Any]) -> None:
        jobid = job_id(name)
        fields = self.job_fields(name, arguments, jobid)
        self._jobs[name] = None
        task = asyncio.ensure_future(self._schedule(name, jobid, fields))
        self._scheduling.add(task)
        task.add_done_callback(self._scheduling.discard)

    async def _schedule(self, name: str, jobid: str, fields: list[tuple[str, str]]) -> None:
        if self._choosing is None:
            self._choosing = asyncio.Lock()
        try:
            async with self._choosing:
                job = await self._schedule_on_a_node(name, jobid, fields)
        except Exception as exc:  # noqa: BLE001 - whatever it was, the colony must count it out
            job, error = None, exc
        else:
            error = None if job is not None else RuntimeError(
                f"no scrapyd node of {', '.join(n.masked for n in self.nodes)} took forager {name}")
        if job is None:
            logger.error("colony: forager %s could not be started on scrapyd: %s", name, error)
            self.root.stats.inc_value("newsforagers/scrapyd/not_scheduled")
            del self._jobs[name]
            self.on_ended(name, error)
            return
        self._jobs[name] = job
        self.root.stats.inc_value("newsforagers/scrapyd/scheduled")
        logger.info("colony: forager %s scheduled on scrapyd node %s as job %s (project %s)",
                    name, job.node.masked, job.jobid, self.project)
        self.on_started(name, job)
        if self._watch is None:
            self._watch = asyncio.ensure_future(self._watch_jobs())

    async def _schedule_on_a_node(self, name: str, jobid: str,
                                  fields: list[tuple[str, str]]) -> ScrapydJob | None:
        """Schedule the job on the least loaded node that takes it (None: none did)."""
        for node in await self.by_load():
            try:
                await self._call(node, "schedule.json", fields, post=True)
            except NodeError as exc:
                self._node_failed(node, f"schedule.json for forager {name}", exc)
                continue
            return ScrapydJob(name, node, jobid, seen=time.monotonic())
        return None

    async def by_load(self) -> list[ScrapydNode]:
        """The nodes that answer ``daemonstatus.json``, least loaded (running + pending jobs)
        first; of equally loaded ones, the first in ``FORAGERS_SCRAPYD_URLS``."""
        answers = await asyncio.gather(*(self._try(node, "daemonstatus.json", "daemonstatus.json")
                                         for node in self.nodes))
        loads = []
        for index, (node, answer) in enumerate(zip(self.nodes, answers)):
            if answer is None:
                continue
            try:
                load = int(answer.get("running", 0)) + int(answer.get("pending", 0))
            except (TypeError, ValueError):
                self._node_failed(node, "daemonstatus.json", NodeError(f"unexpected answer {answer!r}"))
                continue
            loads.append((load, index, node))
        return [node for _, _, node in sorted(loads, key=lambda entry: entry[:2])]

    # -- HTTP ----------------------------------------------------------------------------------

    def request(self, node: ScrapydNode, endpoint: str, fields: list[tuple[str, str]] | None = None,
                post: bool = False) -> dict:
        """(On a thread.) The JSON answer of ``endpoint`` on ``node``, whose ``status`` is ``ok``;
        :class:`NodeError` otherwise (no answer within the timeout, an HTTP error, scrapyd's
        error)."""
        url = urllib.parse.urljoin(node.url, endpoint)
        data = None
        if post:
            data = urllib.parse.urlencode(fields or []).encode()
        elif fields:
            url += "?" + urllib.parse.urlencode(fields)
        request = urllib.request.Request(url, data=data, method="POST" if post else "GET")
        authorization = node.authorization()
        if authorization:
            request.add_header("Authorization", authorization)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                answer = json.loads(response.read(MAX_ANSWER))
        except (OSError, http.client.HTTPException, ValueError) as exc:
            # (urllib's errors name neither the URL's userinfo, which is not in the URL, nor
            # the header)
            raise NodeError(f"{type(exc).__name__}: {exc}") from None
        if not isinstance(answer, dict) or answer.get("status") != "ok":
            message = answer.get("message") if isinstance(answer, dict) else answer
            raise NodeError(f"scrapyd error: {message!r}")
        return answer

    async def _call(self, node: ScrapydNode, endpoint: str, fields: list[tuple[str, str]] | None = None,
                    post: bool = False) -> dict:
        return await asyncio.to_thread(self.request, node, endpoint, fields, post)

    async def _try(self, node: ScrapydNode, endpoint: str, what: str,
                   fields: list[tuple[str, str]] | None = None, post: bool = False) -> dict | None:
        """:meth:`_call`, or None when the node failed (counted, warned about once per node)."""
        try:
            return await self._call(node, endpoint, fields, post)
        except NodeError as exc:
            self._node_failed(node, what, exc)
            return None

    def _node_failed(self, node: ScrapydNode, what: str, error: Exception) -> None:
        self.root.stats.inc_value("newsforagers/scrapyd/node_errors")
        if node in self._warned:
            logger.debug("colony: scrapyd node %s: %s failed: %s", node.masked, what, error)
            return
        self._warned.add(node)
        logger.warning("colony: scrapyd node %s: %s failed: %s (logged once per node; counted in "
                       "newsforagers/scrapyd/node_errors)", node.masked, what, error)

    # -- watching ------------------------------------------------------------------------------

    async def _watch_jobs(self) -> None:
        try:
            while self._jobs:
                await asyncio.sleep(self.poll)
                await self.look()
        finally:
            self._watch = None

    async def look(self) -> None:
        """One look at every scheduled job on its node (``listjobs.json``): a finished one has
        ended; one its node has not shown (it vanished, or the node does not answer) for longer
        than a lease has ended with an error."""
        nodes = list({job.node: None for job in self._jobs.values() if job is not None})
        listings = await asyncio.gather(*(self._try(node, "listjobs.json", "listjobs.json",
                                                    [("project", self.project)]) for node in nodes))
        now = time.monotonic()
        for node, listing in zip(nodes, listings):
            states = {}
            if listing is not None:
                for state in ("pending", "running", "finished"):
                    for entry in listing.get(state) or ():
                        if isinstance(entry, dict):
                            states[entry.get("id")] = state
            for name, job in list(self._jobs.items()):
                if job is None or job.node != node:
                    continue
                state = states.get(job.jobid)
                if state == "finished":
                    self._end(name, job, None)
                elif state is not None:
                    job.seen = now
                elif now - job.seen > self.lease:
                    why = "its node has not answered" if listing is None else "its node no longer lists it"
                    self._end(name, job, RuntimeError(
                        f"scrapyd job {job.jobid} on {node.masked}: {why} for {now - job.seen:.0f} s"))

    def _end(self, name: str, job: ScrapydJob, error: BaseException | None) -> None:
        if self._jobs.get(name) is not job:
            return
        del self._jobs[name]
        logger.info("colony: forager %s's scrapyd job %s on %s ended", name, job.jobid, job.node.masked)
        self.on_ended(name, error)

    # -- stopping ------------------------------------------------------------------------------

    async def stop(self) -> None:
        # jobs being scheduled first (each within a few timeouts), then every job is cancelled
        if self._scheduling:
            await asyncio.gather(*list(self._scheduling), return_exceptions=True)
        await self._cancel("INT")
        waited = 0.0
        while self._jobs and waited < self.grace:
            await asyncio.sleep(min(self.poll, 0.5))
            waited += min(self.poll, 0.5)
            self._keep_watching()
        if self._jobs:
            for name, job in self._jobs.items():
                if job is not None:
                    logger.warning("colony: forager %s (scrapyd job %s on %s) still running %g s "
                                   "after its stop; killed", name, job.jobid, job.node.masked, self.grace)
            await self._cancel("KILL")
            waited = 0.0
            while self._jobs and waited < KILL_WAIT:
                await asyncio.sleep(min(self.poll, 0.5))
                waited += min(self.poll, 0.5)
                self._keep_watching()
            for name, job in list(self._jobs.items()):
                if job is None:
                    continue
                # its node does not say it ended: its lease in the store will
                self._end(name, job, RuntimeError(f"scrapyd job {job.jobid} on {job.node.masked} "
                                                  "did not end after SIGKILL"))
        await self.join()

    async def _cancel(self, signal: str) -> None:
        """``cancel.json`` for every scheduled job, with ``signal``. scrapyd's default is SIGINT
        on POSIX (SIGBREAK on Windows); given here so that a node of another version does the
        same: Scrapy's clean close, which one more signal would force."""
        jobs = [(name, job) for name, job in self._jobs.items() if job is not None]
        answers = await asyncio.gather(*(
            self._try(job.node, "cancel.json", f"cancel.json of job {job.jobid}",
                      [("project", self.project), ("job", job.jobid), ("signal", signal)], post=True)
            for _, job in jobs))
        for (name, job), answer in zip(jobs, answers):
            if answer is not None and answer.get("prevstate") == "pending":
                self._end(name, job, None)  # taken off the node's queue: it never ran

    def _keep_watching(self) -> None:
        if self._jobs and self._watch is None:
            self._watch = asyncio.ensure_future(self._watch_jobs())

    async def join(self) -> None:
        while self._jobs:
            await asyncio.sleep(min(self.poll, 0.5))
            self._keep_watching()
