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



#: Test modules whose crawls run against the wall clock and judge what they found (recall,
#: lag, pages per second): under ``pytest -n 2`` (pytest.ini) they run one after the other in
#: one worker, never beside each other, so a crawl never shares the two cores with another
#: such crawl (the eras' recall once followed the machine's load). Every other module runs
#: whole in one worker (its module fixtures once), beside them.
SERIAL_CRAWLS = frozenset({
    "tests/integration/test_colony.py", "tests/integration/test_eras.py",
    "tests/integration/test_resume.py", "tests/integration/test_scheduled.py",
    "tests/integration/test_hostile.py", "tests/integration/test_hostile_scheduled.py",
    "tests/integration/test_forager_e2e.py", "tests/integration/test_memory.py",
    "tests/integration/test_processes.py", "tests/integration/test_baselines.py",
    "tests/integration/test_feeds.py", "tests/integration/test_feeds_baseline.py",
    "tests/integration/test_topic.py", "tests/integration/test_best_first.py",
    "tests/commands/test_demo.py", "tests/commands/bench/test_command.py",
    # not judged on their pace, but five bench runs' processes beside the two-node colony of
    # test_distributed put its replay's stamps 0.22-0.35 s late (two clean-clone runs of 22ed7de)
    "tests/commands/bench/test_command_runs.py",
    # not judged on its pace, but two scrapyd nodes, Redis and their jobs' processes beside
    # another crawl missed a phase's 60 s once
    "tests/integration/test_distributed.py",
    # processes stamping their starts on the wall clock: a loaded machine delays a stamp
    "tests/store/test_redis.py",
})


#: Serial crawls that run last of their unit (the suite's last minutes, when the other worker
#: runs the short in-process modules): test_distributed's two scrapyd nodes, Redis and their
#: jobs, run beside test_install, test_deployment_recipe and test_secrets (the other worker's
#: long modules, each with processes of its own), failed in 2 of 2 clean-clone runs and in 3 of
#: 6 runs of those four modules side by side: a job that started after its lease ran out, a
#: document paid and not output, the replay's stamps 0.37 s late (2026-12-06, second session);
#: and, found since, a job's log that scrapyd had deleted (its jobs_to_keep: tests/scrapyd_nodes.py).
LAST_CRAWLS = frozenset({"tests/integration/test_distributed.py"})


def pytest_collection_modifyitems(config, items) -> None:
    """The tests of :data:`LAST_CRAWLS` after every other (their order among themselves, and
    the others', kept): within the serial crawls' unit they run last."""
    items.sort(key=lambda item: item.nodeid.split("::", 1)[0] in LAST_CRAWLS)


def scope_of(nodeid: str) -> str:
    """The unit of work a test belongs to under ``pytest -n``: the serial crawls together,
    every other test with its module."""
    module = nodeid.split("::", 1)[0]
    return "serial-crawls" if module in SERIAL_CRAWLS else module


#: The modules outside the serial crawls that took 30 s or more, longest first (``pytest
#: --durations=0`` on a clean clone, 2026-12-02, summed per module): they are handed out first,
#: so that the last units of the run are short ones. Handed out by their number of tests (as
#: xdist does), a one-test module of 55 s could start last, when the other worker had nothing
#: left to do.
LONG_MODULES = (
    "tests/integration/test_forager_bad_input.py", "tests/integration/test_many_sites.py",
    "tests/integration/test_install.py", "tests/integration/test_deployment_recipe.py",
    "tests/integration/test_user_project.py", "tests/integration/test_hostile_limits.py",
    "tests/integration/test_secrets.py", "tests/integration/test_scrapyd_deploy.py",
    "tests/integration/test_usage_errors.py",
)


def hand_out_order(scope: str, tests: int) -> tuple:
    """Sort key of a unit of work: the serial crawls, then :data:`LONG_MODULES` in their order,
    then the other modules that start processes (integration, commands), then the rest, each
    group by its number of tests, the most first."""
    if scope == "serial-crawls":
        return (0, 0, -tests)
    if scope in LONG_MODULES:
        return (1, LONG_MODULES.index(scope), -tests)
    return (2 if scope.startswith(("tests/integration/", "tests/commands/")) else 3, 0, -tests)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's scope scheduling over :func:`scope_of` (its ``loadgroup`` marks no
    longer group anything under pytest 9, whose node ids xdist 3.8 cannot suffix), the units
    handed out in :func:`hand_out_order`: the serial crawls first."""
    from collections import OrderedDict

    from xdist.scheduler import LoadScopeScheduling

    class SerialCrawls(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            ordered = sorted(self.workqueue.items(), key=lambda unit: hand_out_order(unit[0], len(unit[1])))
            self.workqueue = OrderedDict(ordered)
            super()._assign_work_unit(node)

    return SerialCrawls(config, log)
