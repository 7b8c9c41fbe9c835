"""The start extension: the population starts when the root's engine has started (not when its
scheduler opens), once; a child's or a member's crawler starts none."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from scrapy import Spider, signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from newsforagers.colony.local import Colony
from newsforagers.extensions.start import ColonyStartExtension
from newsforagers.spiders.forager import ForagerSpider
from newsforagers.store import MemoryStore


def extension(tmp_path, colony_of=None, hosting=True, **settings):
    """The extension the add-on enabled on a forager's crawler, with the context its scheduler
    would assemble: the forager's driver, seeds and model, and the colony (``colony_of``'s, else
    one this crawler made); the spawner only notes whom it starts."""
    crawler = get_crawler(ForagerSpider, {"FORAGERS_RUN_DIR": str(tmp_path / "run"), **settings})
    made = next(e for e in crawler.extensions.middlewares if isinstance(e, ColonyStartExtension))
    context = made.context
    if colony_of is None:
        colony = Colony(crawler, context.config, store=MemoryStore(), hosting=hosting)
        colony.open()
        colony.started = []
        colony.spawning.spawner.start = lambda name, arguments: colony.started.append((name, arguments))
        colony.claim_id("f1")
        colony.register("f1", crawler)
    else:
        colony = colony_of
    context.colony, context.name = colony, "f1"
    context.driver = SimpleNamespace(mode="wl")
    context.seeds, context.model_path = ["http://s/"], "model.joblib"
    return made


def test_the_root_s_engine_start_starts_alg_9_s_first_foragers_once(tmp_path):
    made = extension(tmp_path, FORAGERS_MIN=3)
    colony = made.context.colony
    assert colony.started == []  # the colony is assembled: no forager started yet
    made.crawler.signals.send_catch_log(signals.engine_started)
    assert [name for name, _ in colony.started] == ["f2", "f3"]
    arguments = colony.started[0][1]
    assert (arguments["seeds"], arguments["mode"], arguments["model"], arguments["colony"]) == \
        ("http://s/", "wl", "model.joblib", colony)
    made.crawler.signals.send_catch_log(signals.engine_started)
    assert len(colony.started) == 2  # once
    assert colony.population == 3


def test_from_the_root_s_engine_start_on_its_engine_stopping_means_the_colony_ends(tmp_path):
    made = extension(tmp_path)
    colony = made.context.colony
    assert not colony.ending()  # its engine has not started: not running means nothing yet
    made.engine_started()
    assert colony.ending()  # (get_crawler's engine never runs)


def test_a_child_s_crawler_and_a_member_s_start_no_population(tmp_path):
    root = extension(tmp_path, FORAGERS_MIN=3)
    colony = root.context.colony
    child = extension(tmp_path, colony_of=colony)  # a crawler of the root's colony
    child.engine_started()
    assert colony.started == [] and not colony.ending()
    member = extension(tmp_path / "member", hosting=False, FORAGERS_MIN=3)
    member.engine_started()
    assert member.context.colony.started == [] and member.context.colony.ending()


def test_a_crawler_whose_scheduler_assembled_no_forager_is_left_alone(tmp_path):
    made = extension(tmp_path, FORAGERS_MIN=3)
    made.context.driver = None
    made.engine_started()
    assert made.context.colony.started == []


def test_a_spider_that_is_no_forager_has_no_start_extension(caplog):
    with caplog.at_level(logging.DEBUG), pytest.raises(NotConfigured, match="only serves forager spiders"):
        ColonyStartExtension.from_crawler(get_crawler(Spider))
    assert "Disabled ColonyStartExtension: spider Spider is no forager" in caplog.text
