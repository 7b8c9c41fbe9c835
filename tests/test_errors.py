"""``newsforagers.errors``: a usage error left unretrieved in an asyncio task is logged as one
line; every other exception still reaches the loop's previous handler, traceback and all."""

from __future__ import annotations

import asyncio
import logging

from newsforagers.errors import ForagersUsageError, report_usage_errors_in_one_line


def _report(loop: asyncio.AbstractEventLoop, error: BaseException) -> None:
    # what asyncio does when a task whose exception nobody retrieved is collected
    loop.call_exception_handler({"message": "Task exception was never retrieved", "exception": error})


def test_a_usage_error_is_one_line_and_others_reach_the_previous_handler(caplog):
    loop = asyncio.new_event_loop()
    passed_on = []
    loop.set_exception_handler(lambda loop, context: passed_on.append(context["exception"]))

    async def install_twice():
        report_usage_errors_in_one_line()
        first = loop.get_exception_handler()
        report_usage_errors_in_one_line()  # a second forager in the same loop: no second layer
        assert loop.get_exception_handler() is first

    try:
        loop.run_until_complete(install_twice())
        other = RuntimeError("a bug")
        with caplog.at_level(logging.ERROR, logger="newsforagers.errors"):
            _report(loop, ForagersUsageError("a forager needs seeds: give -a seeds=URL"))
            _report(loop, other)
    finally:
        loop.close()
    records = [r for r in caplog.records if r.name == "newsforagers.errors"]
    assert [(r.levelname, r.getMessage(), r.exc_info) for r in records] == [
        ("ERROR", "a forager needs seeds: give -a seeds=URL", None)]
    assert passed_on == [other]


def test_without_a_previous_handler_others_get_asyncio_s_default_report(caplog):
    loop = asyncio.new_event_loop()

    async def install():
        report_usage_errors_in_one_line()

    try:
        loop.run_until_complete(install())
        with caplog.at_level(logging.ERROR):
            _report(loop, RuntimeError("a bug"))
    finally:
        loop.close()
    [record] = [r for r in caplog.records if r.name == "asyncio"]
    assert record.getMessage() == "Task exception was never retrieved"
    assert record.exc_info[1].args == ("a bug",)  # the traceback is still there


def test_outside_a_running_loop_nothing_is_installed():
    loop = asyncio.new_event_loop()
    try:
        asyncio.set_event_loop(loop)
        report_usage_errors_in_one_line()  # not running: the caller gets the exception anyway
        assert loop.get_exception_handler() is None
    finally:
        asyncio.set_event_loop(None)
        loop.close()
