"""The suite's own scheduling under ``pytest -n`` (tests/conftest.py): every module it names
exists, and the units are handed out serial crawls first, long modules next, short ones last."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import (
    LAST_CRAWLS,
    LONG_MODULES,
    SERIAL_CRAWLS,
    hand_out_order,
    pytest_collection_modifyitems,
    scope_of,
)

REPO = Path(__file__).resolve().parents[1]


def test_every_module_named_exists_once():
    assert all((REPO / module).is_file() for module in SERIAL_CRAWLS | set(LONG_MODULES))
    assert LAST_CRAWLS <= SERIAL_CRAWLS
    assert not SERIAL_CRAWLS & set(LONG_MODULES) and len(set(LONG_MODULES)) == len(LONG_MODULES)


def test_the_serial_crawls_go_first_then_the_long_modules_then_the_rest():
    units = {"tests/learning/test_td.py": 80, "tests/integration/test_logs.py": 5,
             LONG_MODULES[1]: 3, LONG_MODULES[0]: 12, "serial-crawls": 100}
    order = sorted(units, key=lambda scope: hand_out_order(scope, units[scope]))
    assert order == ["serial-crawls", LONG_MODULES[0], LONG_MODULES[1], "tests/integration/test_logs.py",
                     "tests/learning/test_td.py"]
    assert scope_of("tests/integration/test_eras.py::test_x[2024]") == "serial-crawls"
    assert scope_of("tests/integration/test_logs.py::test_y") == "tests/integration/test_logs.py"


def test_the_last_crawls_run_after_every_other_test_in_their_order():
    class Item:
        def __init__(self, nodeid: str):
            self.nodeid = nodeid

    last = sorted(LAST_CRAWLS)[0]
    names = ["tests/commands/test_demo.py::a", f"{last}::b", "tests/integration/test_eras.py::c",
             f"{last}::d", "tests/store/test_redis.py::e"]
    items = [Item(name) for name in names]
    pytest_collection_modifyitems(None, items)
    assert [item.nodeid for item in items] == [names[0], names[2], names[4], names[1], names[3]]
