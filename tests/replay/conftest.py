"""Fixtures of the replay tests: a small synthetic corpus, and a replay served on loopback by a
private reactor in a thread (so these tests never install or run the global reactor that the
Scrapy tests of the same session use), driven by a manual wall clock instead of sleeps."""

from __future__ import annotations

import gzip
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass

import pytest
from twisted.internet import threads
from twisted.internet.selectreactor import SelectReactor

from newsforagers.replay.clock import ManualWall
from newsforagers.replay.server import ReplaySite
from newsforagers.replay.synth import synth_corpus

SPEED = 600.0


@pytest.fixture(scope="session")
def synth_path(tmp_path_factory):
    """Two simulated days, 150 articles a day, 8 sections."""
    return synth_corpus(tmp_path_factory.mktemp("corpus") / "synth.jsonl.gz", days=2, rate=150,
                        sections=8, seed=3)


@dataclass
class Response:
    status: int
    headers: dict
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


def fetch(url: str, headers: dict | None = None, method: str = "GET") -> Response:
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return Response(reply.status, {k.lower(): v for k, v in reply.headers.items()},
                            reply.read())
    except urllib.error.HTTPError as error:  # 304, 404, 405 arrive here
        with error:
            return Response(error.code, {k.lower(): v for k, v in error.headers.items()},
                            error.read())


class Served:
    """A :class:`ReplaySite` listening on 127.0.0.1:0 in a private reactor thread."""

    def __init__(self, site: ReplaySite, wall: ManualWall):
        self.site = site
        self.wall = wall
        self.reactor = SelectReactor()
        self.site.listen(self.reactor)
        self.thread = threading.Thread(target=self.reactor.run,
                                       kwargs={"installSignalHandlers": False}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return self.site.url

    def get(self, path: str, headers: dict | None = None, method: str = "GET") -> Response:
        return fetch(self.url.rstrip("/") + path, headers, method)

    def at(self, sim_ts: float) -> None:
        """Move the wall clock so that simulated now is ``sim_ts``."""
        self.wall.set(self.site.clock.wall_at(sim_ts))

    def close(self) -> None:
        threads.blockingCallFromThread(self.reactor, self.site.stop)
        self.reactor.callFromThread(self.reactor.stop)
        self.thread.join(10)
        assert not self.thread.is_alive()


@pytest.fixture
def serve(tmp_path):
    """``serve(corpus, **ReplaySite kwargs) -> Served``; every server is stopped afterwards."""
    started: list[Served] = []

    def start(corpus, **kwargs) -> Served:
        wall = kwargs.pop("wall", None) or ManualWall()
        kwargs.setdefault("speed", SPEED)
        kwargs.setdefault("log_path", tmp_path / f"requests-{len(started)}.jsonl")
        served = Served(ReplaySite(corpus, wall=wall, **kwargs), wall)
        started.append(served)
        return served

    yield start
    for served in started:
        served.close()


def gunzip(data: bytes) -> bytes:
    return gzip.decompress(data)
