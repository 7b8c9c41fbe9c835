"""The record extension: the root's crawler writes the colony's snapshots and population
checkpoints while the colony runs, and every forager's crawler counts the judged sends."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from scrapy import Spider, signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from newsforagers import signals as forager_signals
from newsforagers.colony import checkpoint as checkpoints
from newsforagers.colony.keys import snapshot_key
from newsforagers.colony.local import Colony
from newsforagers.extensions.record import ColonyRecordExtension
from newsforagers.spiders.forager import ForagerSpider
from newsforagers.store import MemoryStore


def extension(tmp_path, colony_of=None, **settings):
    """The extension the add-on enabled on a forager's crawler; its context is given the colony
    the scheduler would assemble (``colony_of``'s, else a new one this crawler hosts)."""
    crawler = get_crawler(ForagerSpider, {"FORAGERS_RUN_DIR": str(tmp_path / "run"), **settings})
    made = next(e for e in crawler.extensions.middlewares if isinstance(e, ColonyRecordExtension))
    colony = colony_of if colony_of is not None else Colony(crawler, made.context.config, store=MemoryStore())
    colony.open()
    made.context.colony = colony
    crawler.stats.open_spider()
    return made


class Ticks:
    """A clock for the periodic record: each wait returns at once; after ``n`` of them the
    colony closes."""

    def __init__(self, colony, n: int):
        self.colony, self.n, self.waits = colony, n, []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if len(self.waits) > self.n:
            self.colony.close()
        await asyncio.sleep(0)


def run(made, ticks) -> None:
    made._sleep = ticks

    async def life():
        made.crawler.signals.send_catch_log(signals.spider_opened, spider=None)
        await asyncio.gather(*made._tasks)

    asyncio.run(life())


def test_the_root_writes_a_snapshot_of_each_live_member_at_each_interval(tmp_path):
    made = extension(tmp_path, FORAGERS_SNAPSHOT_INTERVAL=5.0)
    colony = made.context.colony
    colony.register("f1", colony.root)
    colony.store.put_value(snapshot_key("f1"), {"pages": 7})
    ticks = Ticks(colony, 2)
    run(made, ticks)
    assert ticks.waits == [5.0, 5.0, 5.0]
    lines = [json.loads(line) for line in (tmp_path / "run" / "snapshots.jsonl").read_text().splitlines()]
    # two at the intervals; as the colony closes, one more and the stopped forager's last
    assert [(line["forager"], line["pages"], line["score"]) for line in lines] == [("f1", 7, 100.0)] * 4
    assert made.crawler.stats.get_value("newsforagers/memory/foragers_alive") == 1


def test_with_jobdir_the_root_checkpoints_the_population_at_each_interval_but_not_while_stopping(tmp_path):
    made = extension(tmp_path, JOBDIR=str(tmp_path / "job"), FORAGERS_SNAPSHOT_INTERVAL=0,
                     FORAGERS_CHECKPOINT_INTERVAL=2.0)
    colony = made.context.colony
    colony.register("f1", colony.root)  # a checkpoint of its own: seq 1
    ticks = Ticks(colony, 2)
    run(made, ticks)
    assert ticks.waits == [2.0, 2.0, 2.0]  # the snapshots are off: only the checkpoints wait
    saved = checkpoints.read_checkpoint(tmp_path / "job" / checkpoints.POPULATION_FILE)
    assert saved["seq"] == 4 and saved["members"] == {"f1": {"root": True}}  # 1, two ticks, the close
    stopping = extension(tmp_path / "stopping", JOBDIR=str(tmp_path / "stopping" / "job"),
                         FORAGERS_SNAPSHOT_INTERVAL=0, FORAGERS_CHECKPOINT_INTERVAL=2.0)
    colony = stopping.context.colony
    colony._stopping = True  # the colony's stop began: its close writes the last checkpoint
    run(stopping, Ticks(colony, 2))
    saved = checkpoints.read_checkpoint(tmp_path / "stopping" / "job" / checkpoints.POPULATION_FILE)
    assert saved["seq"] == 1  # the close's, none at the two ticks before it


def test_without_jobdir_or_with_intervals_off_nothing_runs(tmp_path):
    made = extension(tmp_path, FORAGERS_SNAPSHOT_INTERVAL=0, FORAGERS_CHECKPOINT_INTERVAL=5.0)
    asyncio.run(_open(made))
    assert made._tasks == []


async def _open(made) -> None:
    made.spider_opened(None)


def test_a_forager_that_hosts_no_colony_starts_no_record_and_closing_cancels_the_loops(tmp_path):
    root = extension(tmp_path, FORAGERS_SNAPSHOT_INTERVAL=5.0)
    child = extension(tmp_path, colony_of=root.context.colony)  # a crawler of the root's colony
    asyncio.run(_open(child))
    assert child._tasks == []

    async def life():
        root.spider_opened(None)
        tasks = list(root._tasks)
        root.crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")
        await asyncio.sleep(0)
        return tasks

    tasks = asyncio.run(life())
    assert len(tasks) == 1 and tasks[0].cancelled() and root._tasks == []


def test_every_forager_counts_the_sends_the_agent_judged_for_the_colony_s_summary(tmp_path):
    root = extension(tmp_path)
    child = extension(tmp_path, colony_of=root.context.colony)
    for made, rewarded in ((root, True), (child, False), (child, True)):
        made.crawler.signals.send_catch_log(forager_signals.reward_received, forager="f", score=1.0,
                                            rewarded=rewarded)
    record = root.context.colony.record
    assert (record.judged, record.paid) == (3, 2)
    summary = root.context.colony.summary()
    assert (summary["sends_judged"], summary["documents_paid"]) == (3, 2)


def test_a_spider_that_is_no_forager_has_no_record_extension(caplog):
    with caplog.at_level(logging.DEBUG), pytest.raises(NotConfigured, match="only serves forager spiders"):
        ColonyRecordExtension.from_crawler(get_crawler(Spider))
    assert "Disabled ColonyRecordExtension: spider Spider is no forager" in caplog.text
