"""Fixtures shared by the test packages."""

from __future__ import annotations

import pytest

from tests.redis_server import start_server


@pytest.fixture
def redis_server(tmp_path_factory):
    """A real ``redis-server`` on a free 127.0.0.1 port, its files in a directory of its own
    (append-only, fsynced at every write: a restart keeps the data), stopped after the test.
    Skips without redis-server on PATH, unless ``NEWSFORAGERS_REQUIRE_REDIS=1`` (then fails)."""
    server = start_server(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def scrapyd_nodes(tmp_path_factory):
    """A factory of real scrapyd nodes (:mod:`tests.scrapyd_nodes`): ``scrapyd_nodes()``, or
    ``scrapyd_nodes(username=..., password=...)`` for one with basic auth, starts one on a free
    127.0.0.1 port, in a directory of its own, and returns it once it answers; every node (and
    its jobs) is stopped after the test. Skips without scrapyd, unless
    ``NEWSFORAGERS_REQUIRE_SCRAPYD=1`` (then fails)."""
    from tests.scrapyd_nodes import require_scrapyd, start_node

    require_scrapyd()
    nodes = []

    def start(**options):
        node = start_node(tmp_path_factory.mktemp("scrapyd"), **options)
        nodes.append(node)
        return node

    yield start
    for node in nodes:
        node.stop()
