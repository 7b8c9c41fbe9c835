"""Scrapy's own scheduler tests, from the sdist of the installed Scrapy, run against ForagerScheduler.

How: ``scrapy_source`` fetches (once, with pip, into a cache) the sdist of ``scrapy.__version__``
and extracts its ``tests/`` package with the root ``conftest.py`` and ``pyproject.toml``. One
pytest subprocess then runs the modules of :data:`UPSTREAM_MODULES` there, with Scrapy's own
pytest configuration and conftest and with pytest-twisted (their CI's default harness), plus our
plugin ``scrapy_contract_plugin``, which makes ``ForagerScheduler`` the scheduler those tests
build and get, starts their mock servers on 127.0.0.1 only (see its docstring for how), and
writes a JSON report. The tests
below read that report: every upstream test that ran passed, every scheduler built was a
ForagerScheduler, and the three areas that our issue names (interface, minimal crawl, on-disk
reopen) were covered.

Why a subprocess: Scrapy's tests import their helpers as the top-level package ``tests``, the
name of our own test package; they need pytest-twisted, which installs and runs the global reactor
(our suite keeps crawls that need one in subprocesses); and their conftest, fixtures and
warnings-as-errors configuration must not leak into our session. Nothing of Scrapy's code is
copied here: only the names of their tests, to exclude some with a reason.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scrapy import scrapy_source

pytestmark = pytest.mark.timeout(900)  # the first run on a machine also downloads the sdist

HERE = Path(__file__).resolve().parent
FORAGER = "newsforagers.scheduler.ForagerScheduler"
RUN_TIMEOUT = 600

#: Scrapy's test modules that are run, and what of the scheduler each one exercises
UPSTREAM_MODULES = {
    "tests/test_scheduler.py": "the scheduler on memory and disk queues: len, "
    "has_pending_requests, priority order, enqueue/close/reopen with JOBDIR, the "
    "downloader-aware queue, crawls",
    "tests/test_scheduler_base.py": "the scheduler interface check and the minimal crawl with a "
    "custom SCHEDULER (run with ForagerScheduler by the classes the plugin adds)",
    "tests/test_dupefilters.py": "the dupefilter the scheduler builds from DUPEFILTER_CLASS, "
    "with JOBDIR persistence and logging",
    "tests/test_engine.py": "the engine's crawls through the default scheduler",
    "tests/test_engine_close_spider.py": "the engine opening and closing the scheduler",
    "tests/test_crawl.py": "full crawls (retries, redirects, duplicates, start requests, "
    "priorities) through the default scheduler",
}

#: upstream tests not run (``--deselect`` node id prefixes), each with the reason
EXCLUDED = {
    "tests/test_scheduler_base.py::TestBaseScheduler::":
        "checks Scrapy's abstract BaseScheduler itself (its methods raise NotImplementedError)",
    "tests/test_scheduler_base.py::TestMinimalScheduler::":
        "checks MinimalScheduler, a toy scheduler defined in that test module",
    "tests/test_scheduler_base.py::TestSimpleScheduler::":
        "checks SimpleScheduler, a toy scheduler defined in that test module",
    "tests/test_scheduler_base.py::TestMinimalSchedulerCrawl::":
        "crawls with the toy MinimalScheduler; the same test runs with ForagerScheduler as "
        "TestForagerSchedulerCrawl::test_crawl",
    "tests/test_scheduler_base.py::TestSimpleSchedulerCrawl::":
        "crawls with the toy SimpleScheduler (same test as above)",
    "tests/test_engine.py::TestEngine::test_short_timeout":
        "runs `scrapy fetch http://toscrape.com` in a subprocess: a real outside host (no "
        "network but the package registry here), and that subprocess's scheduler is not ours",
    "tests/test_engine.py::test_request_scheduled_signal":
        "plugs in a toy BaseScheduler subclass of its own",
    "tests/test_engine.py::TestMisuse::test_invalid_scheduler_class":
        "checks the error for a SCHEDULER that is not a scheduler",
    "tests/test_crawl.py::TestCrawl::test_retry_dns_error":
        "looks a non-existent domain up with the machine's DNS resolver (outside network)",
}

#: upstream modules in which every test that runs must build a ForagerScheduler
SCHEDULER_MODULES = ("tests/test_scheduler.py", "tests/test_scheduler_base.py")

#: the issue's three areas, each with upstream tests that must have run, passed and built a
#: ForagerScheduler
REQUIRED = {
    "interface": [
        "tests/test_scheduler_base.py::TestForagerSchedulerInterface::test_scheduler_class",
        "tests/test_scheduler.py::TestSchedulerInMemory::test_length",
        "tests/test_scheduler.py::TestSchedulerInMemory::test_dequeue",
        "tests/test_scheduler.py::TestSchedulerInMemory::test_dequeue_priorities",
        "tests/test_scheduler.py::test_scheduler_without_crawler",
    ],
    "minimal crawl": [
        "tests/test_scheduler_base.py::TestForagerSchedulerCrawl::test_crawl",
        "tests/test_scheduler.py::TestIntegrationWithDownloaderAwareInMemory::"
        "test_integration_downloader_aware_priority_queue",
        "tests/test_scheduler.py::test_unserializable_requests",
    ],
    "on-disk reopen": [
        "tests/test_scheduler.py::TestSchedulerOnDisk::test_length",
        "tests/test_scheduler.py::TestSchedulerOnDisk::test_dequeue",
        "tests/test_scheduler.py::TestSchedulerOnDisk::test_dequeue_priorities",
        "tests/test_scheduler.py::TestSchedulerWithDownloaderAwareOnDisk::test_logic",
        "tests/test_scheduler.py::TestMigration::test_migration",
        "tests/test_dupefilters.py::TestRFPDupeFilter::test_dupefilter_path",
    ],
}


def subprocess_environment(environ, harness: Path | None, report_path: Path) -> dict[str, str]:
    """The environment of the pytest subprocess that runs Scrapy's tests: ours without any
    ``PYTEST_*`` variable (and without our ``PYTHONPATH``), so that it is a session of its own.

    Why all of them: under ``pytest -n 2`` (``make test``) this module runs in an xdist
    worker. Scrapy's root conftest generates the TLS keys of its mock server
    (``tests/keys/localhost.crt``, which the sdist does not ship) only when
    ``PYTEST_XDIST_WORKER`` is unset (in one of its own xdist workers, the controller has made
    them): inherited from ours, it made the subprocess fail wherever the cache did not hold keys
    from an earlier run outside xdist. ``PYTEST_ADDOPTS`` and ``PYTEST_PLUGINS`` would bring our
    options and plugins in the same way."""
    env = {key: value for key, value in environ.items()
           if not key.startswith("PYTEST_") and key != "PYTHONPATH"}
    env.update(
        PYTHONPATH=os.pathsep.join(str(p) for p in (harness, HERE) if p is not None),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",  # only the plugins the command names
        NEWSFORAGERS_SCRAPY_CONTRACT_REPORT=str(report_path),
    )
    return env


def _unavailable(reason: str):
    message = f"Scrapy's own tests cannot be run here: {reason}"
    if scrapy_source.require_scrapy_tests():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory) -> dict:
    """Run the upstream modules once against ForagerScheduler; the plugin's JSON report."""
    try:
        root = scrapy_source.scrapy_tests_root()
        harness = scrapy_source.harness_path()
    except scrapy_source.Unavailable as error:
        _unavailable(str(error))
    work = tmp_path_factory.mktemp("scrapy-contract")
    report_path = work / "report.json"
    env = subprocess_environment(os.environ, harness, report_path)
    command = [
        sys.executable, "-m", "pytest",
        "-c", str(root / "pyproject.toml"), "--rootdir", str(root),
        "--basetemp", str(work / "basetemp"),
        "-p", "no:cacheprovider", "-p", "twisted", "-p", "timeout",
        "-p", "scrapy_contract_plugin",
        # a scheduler that loses requests hangs a crawl: cut each test short, and stop early
        "--timeout", "60", "--maxfail", "10", "-q", "-rfE", "--no-header",
        *UPSTREAM_MODULES,
        *(arg for prefix in EXCLUDED for arg in ("--deselect", prefix)),
    ]
    # a session of its own, so that on a time-out its mock servers go down with it
    with subprocess.Popen(command, cwd=root, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          start_new_session=True) as process:
        try:
            output, _ = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            pytest.fail(f"Scrapy's tests did not finish in {RUN_TIMEOUT} s:\n"
                        f"{output[-20000:]}")
    output = output[-20000:]
    if not report_path.is_file():
        pytest.fail(f"Scrapy's tests left no report (exit {process.returncode}):\n{output}")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    report["output"] = output
    report["returncode"] = process.returncode
    return report


def _tests_of(report: dict, module: str) -> dict[str, dict]:
    return {nodeid: entry for nodeid, entry in report["tests"].items()
            if nodeid.startswith(module + "::")}


def test_the_subprocess_inherits_nothing_of_an_xdist_worker(tmp_path):
    """No ``PYTEST_*`` variable of this session reaches Scrapy's tests (see
    :func:`subprocess_environment`), whatever runs this one."""
    worker = {"PYTEST_XDIST_WORKER": "gw1", "PYTEST_XDIST_WORKER_COUNT": "2",
              "PYTEST_XDIST_TESTRUNUID": "abc", "PYTEST_ADDOPTS": "-n 2", "PYTEST_PLUGINS": "x",
              "PYTEST_CURRENT_TEST": "t.py::t (call)", "PYTHONPATH": "/ours", "HOME": "/home/u"}
    env = subprocess_environment(worker, tmp_path / "harness", tmp_path / "report.json")
    assert {key for key in env if key.startswith("PYTEST_")} == {"PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    assert env["HOME"] == "/home/u"
    assert env["PYTHONPATH"].split(os.pathsep) == [str(tmp_path / "harness"), str(HERE)]
    assert env["NEWSFORAGERS_SCRAPY_CONTRACT_REPORT"] == str(tmp_path / "report.json")


def test_it_ran_the_installed_scrapy_tests(upstream):
    import scrapy

    assert upstream["scrapy_version"] == scrapy.__version__
    assert upstream["scheduler"] == FORAGER
    # their CI's default harness: pytest-twisted running Scrapy's default (asyncio) reactor
    assert upstream["pytest_twisted"] and upstream["reactor"] == "AsyncioSelectorReactor"
    assert not upstream["collect_errors"], upstream["collect_errors"]
    # the plugin rebound `Scheduler` where their tests build it directly
    adapted = upstream["adapted_modules"]
    for module in ("tests.test_scheduler", "tests.test_dupefilters", "tests.test_scheduler_base"):
        assert module in adapted, (module, adapted)
    # their HTTP mock servers were started through the loopback launcher
    assert upstream["mock_servers"], "no mock server went through scrapy_loopback"
    assert all(args[0] == "scrapy_loopback" for args in upstream["mock_servers"])


@pytest.mark.parametrize("module", list(UPSTREAM_MODULES))
def test_upstream_module_passes_with_forager_scheduler(upstream, module):
    tests = _tests_of(upstream, module)
    assert tests, f"no test of {module} ran:\n{upstream['output']}"
    bad = {nodeid: entry for nodeid, entry in tests.items()
           if entry["outcome"] not in ("passed", "skipped", "xfailed")}
    assert not bad, "\n\n".join(f"{nodeid}: {entry['outcome']}\n{entry.get('details', '')}"
                                for nodeid, entry in bad.items())
    # whichever Scrapy-core scheduler a test built was ours
    foreign = {nodeid: entry["schedulers"] for nodeid, entry in tests.items()
               if set(entry["schedulers"]) - {FORAGER}}
    assert not foreign, foreign
    built = [nodeid for nodeid, entry in tests.items() if FORAGER in entry["schedulers"]]
    assert built, f"no test of {module} built a ForagerScheduler"
    if module in SCHEDULER_MODULES:
        missing = sorted(set(tests) - set(built))
        assert not missing, f"these tests built no ForagerScheduler: {missing}"
    # a skip is theirs (e.g. a reactor marker); say which, so that it is seen
    skipped = {n: e.get("details") for n, e in tests.items() if e["outcome"] == "skipped"}
    if skipped:
        print(f"skipped in {module}: {skipped}")


@pytest.mark.parametrize("area", list(REQUIRED))
def test_issue_area_is_covered(upstream, area):
    for nodeid in REQUIRED[area]:
        entry = upstream["tests"].get(nodeid)
        assert entry is not None, f"{nodeid} did not run"
        assert entry["outcome"] == "passed", (nodeid, entry)
        assert entry["schedulers"] == [FORAGER], (nodeid, entry)


def test_every_exclusion_matches_an_upstream_test(upstream):
    """An exclusion that no longer matches (a renamed upstream test) must be revisited."""
    stale = [prefix for prefix in EXCLUDED
             if not any(nodeid.startswith(prefix) for nodeid in upstream["deselected"])]
    assert not stale, stale
    ran_anyway = [nodeid for nodeid in upstream["tests"] if nodeid.startswith(tuple(EXCLUDED))]
    assert not ran_anyway, ran_anyway


def test_the_subprocess_run_succeeded(upstream):
    assert upstream["returncode"] == 0, upstream["output"]
