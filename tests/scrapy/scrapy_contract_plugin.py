"""pytest plugin for the subprocess that runs Scrapy's own tests against ``ForagerScheduler``.

Loaded with ``-p scrapy_contract_plugin`` by ``test_scrapy_scheduler_contract.py``, in a pytest
session rooted in the extracted Scrapy test tree (see ``scrapy_source.py``), never in ours. It
changes which scheduler Scrapy's tests get, and nothing else of theirs:

* ``SCHEDULER``: Scrapy's default setting names ``ForagerScheduler``, so every crawler that
  Scrapy's tests build without choosing a scheduler (``get_crawler``, the engine's own crawls)
  schedules with ours.
* ``Scheduler``: in each of their test modules that imported Scrapy's ``Scheduler`` class to
  build it directly (``build_from_crawler(Scheduler, crawler)``, ``Scheduler(dupefilter)``),
  that module-level name is rebound to ``ForagerScheduler``.
* ``tests/test_scheduler_base.py`` checks the scheduler interface and a minimal crawl with toy
  schedulers of its own; two classes are added to that module that run those same checks with
  ``ForagerScheduler`` (``TestForagerSchedulerInterface``, ``TestForagerSchedulerCrawl``).
* The HTTP mock servers of their suite run in subprocesses of their own that listen on every
  interface; they are started through ``scrapy_loopback`` instead, which makes them listen on
  127.0.0.1 only.

It records, for each test, the classes of Scrapy-core schedulers built during it (so the outer
test can tell that ``ForagerScheduler``, and only it, was exercised) and the outcome, in a JSON
report at ``$NEWSFORAGERS_SCRAPY_CONTRACT_REPORT``.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
import scrapy
import scrapy.core.scheduler as core_scheduler
import scrapy.settings.default_settings as default_settings
from scrapy.spiders import Spider
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from newsforagers.scheduler import ForagerScheduler

REPORT_ENV = "NEWSFORAGERS_SCRAPY_CONTRACT_REPORT"
FORAGER_PATH = f"{ForagerScheduler.__module__}.{ForagerScheduler.__qualname__}"
SCRAPY_SCHEDULER = core_scheduler.Scheduler
LAUNCHER = "scrapy_loopback"

_results: dict[str, dict] = {}
_deselected: list[str] = []
_collect_errors: dict[str, str] = {}
_adapted: dict[str, list[str]] = {}
_built: list[str] | None = None
_mock_servers: list[list[str]] = []


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# -- which scheduler Scrapy's tests get ---------------------------------------------------

def _spy_on_scheduler_init() -> None:
    """Note the class of every Scrapy-core scheduler built (ForagerScheduler inherits __init__)."""
    original = SCRAPY_SCHEDULER.__init__

    def __init__(self, *args, **kwargs):
        if _built is not None:
            _built.append(_name(type(self)))
        original(self, *args, **kwargs)

    SCRAPY_SCHEDULER.__init__ = __init__


def _adapt_module(module) -> None:
    changes = []
    if module.__dict__.get("Scheduler") is SCRAPY_SCHEDULER:
        module.Scheduler = ForagerScheduler
        changes.append("Scheduler -> ForagerScheduler")
    if module.__name__ == "tests.test_scheduler_base":
        _add_scheduler_base_classes(module)
        changes.append("+TestForagerSchedulerInterface, +TestForagerSchedulerCrawl")
    if changes:
        _adapted[module.__name__] = changes


def _add_scheduler_base_classes(module) -> None:
    """Run test_scheduler_base's interface check and minimal crawl with ForagerScheduler."""

    class TestForagerSchedulerInterface(module.InterfaceCheckMixin):
        def setup_method(self):
            self.scheduler = build_from_crawler(ForagerScheduler, get_crawler(Spider))

    class TestForagerSchedulerCrawl(module.TestMinimalSchedulerCrawl):
        scheduler_cls = ForagerScheduler

    for cls in (TestForagerSchedulerInterface, TestForagerSchedulerCrawl):
        cls.__module__ = module.__name__
        cls.__qualname__ = cls.__name__
        setattr(module, cls.__name__, cls)


def _start_mock_servers_on_loopback() -> None:
    """Route ``python -u -m tests.mockserver.X ...`` through ``-m scrapy_loopback``."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("tests.mockserver.") or not hasattr(module, "Popen"):
            continue
        popen = module.Popen
        if getattr(popen, "_loopback", False):
            continue

        def loopback_popen(args, *rest, _popen=popen, **kwargs):
            args = list(args)
            if args[1:3] == ["-u", "-m"] and args[3].startswith("tests.mockserver."):
                args[3:3] = [LAUNCHER]
                _mock_servers.append(args[3:])
            return _popen(args, *rest, **kwargs)

        loopback_popen._loopback = True
        module.Popen = loopback_popen


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    assert SCRAPY_SCHEDULER is not ForagerScheduler
    assert issubclass(ForagerScheduler, SCRAPY_SCHEDULER)
    default_settings.SCHEDULER = FORAGER_PATH
    _spy_on_scheduler_init()
    _start_mock_servers_on_loopback()  # the root conftest imported tests.mockserver.http


def pytest_collectstart(collector):
    if isinstance(collector, pytest.Module):
        try:
            module = collector.obj
        except Exception:  # noqa: BLE001 - pytest reports the import error when it collects
            return
        _adapt_module(module)


def pytest_collection_finish(session):
    _start_mock_servers_on_loopback()  # any mock server module a test module imported


# -- the report -----------------------------------------------------------------------------

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _built
    _built = []
    _results[item.nodeid] = {"outcome": "passed", "schedulers": []}
    try:
        yield
    finally:
        _results[item.nodeid]["schedulers"] = sorted(set(_built))
        _built = None


def pytest_runtest_logreport(report):
    entry = _results.setdefault(report.nodeid, {"outcome": "passed", "schedulers": []})
    if report.failed:
        entry["outcome"] = "failed" if report.when == "call" else "error"
        entry.setdefault("details", "")
        entry["details"] += f"[{report.when}] {report.longreprtext[-4000:]}\n"
    elif report.skipped and entry["outcome"] == "passed":
        if hasattr(report, "wasxfail"):
            entry["outcome"] = "xfailed"
        else:
            entry["outcome"] = "skipped"
            longrepr = report.longrepr
            entry["details"] = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)


def pytest_collectreport(report):
    if report.failed:
        _collect_errors[report.nodeid] = report.longreprtext[-4000:]


def pytest_deselected(items):
    _deselected.extend(item.nodeid for item in items)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get(REPORT_ENV)
    if not path:
        return
    reactor = sys.modules.get("twisted.internet.reactor")
    report = {
        "scrapy_version": scrapy.__version__,
        "pytest_twisted": session.config.pluginmanager.hasplugin("twisted"),
        "reactor": type(reactor).__name__ if reactor is not None else None,
        "scheduler": FORAGER_PATH,
        "exitstatus": int(exitstatus),
        "adapted_modules": _adapted,
        "collect_errors": _collect_errors,
        "deselected": sorted(_deselected),
        "mock_servers": _mock_servers,
        "tests": _results,
    }
    with open(path, "w", encoding="utf-8") as out:
        json.dump(report, out, indent=1, sort_keys=True)
