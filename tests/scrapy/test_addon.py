"""The add-on sets everything at add-on priority (a project's own value wins), and the forager
refuses, with an error that says what to do, settings under which it cannot work or a colony
cannot be polite."""

from __future__ import annotations

import pytest
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.settings import Settings

from newsforagers.addon import ForagersAddon
from newsforagers.checks import check_components
from newsforagers.downloadhandlers import ColonyBudgetMixin, check_handlers

HANDLER = "newsforagers.downloadhandlers.ColonyHTTPDownloadHandler"


class ProjectHandler(HTTP11DownloadHandler):
    """A project's own handler (a browser, a proxy service...)."""


class PoliteProjectHandler(ColonyBudgetMixin, HTTP11DownloadHandler):
    """The same, under the colony's budget."""


def with_addon(project: dict, priority: str = "project") -> Settings:
    settings = Settings()
    settings.setdict(project, priority=priority)
    ForagersAddon().update_settings(settings)
    return settings


def test_the_addon_fills_in_what_the_project_left_unset():
    settings = with_addon({})
    assert settings["SCHEDULER"] == "newsforagers.scheduler.ForagerScheduler"
    assert settings.getwithbase("DOWNLOAD_HANDLERS")["https"] == HANDLER
    assert settings.getwithbase("ITEM_PIPELINES")["newsforagers.pipelines.ReinforcingAgentPipeline"] == 100
    assert settings.getint("CONCURRENT_ITEMS") == 8
    assert settings.getint("FORAGERS_WEBLOG_SIZE") == 100
    check_components(settings)


@pytest.mark.parametrize("priority", ["project", "spider", "cmdline"])
def test_a_projects_own_values_win_over_the_addons(priority):
    project = {
        "DOWNLOAD_HANDLERS": {"https": f"{__name__}.ProjectHandler"},
        "ITEM_PIPELINES": {"newsforagers.pipelines.ReinforcingAgentPipeline": 300},
        "DOWNLOADER_MIDDLEWARES": {"newsforagers.downloadermiddlewares.SharedFetchMiddleware": None},
        "CONCURRENT_ITEMS": 50,
        "FORAGERS_WEBLOG_SIZE": 20,
    }
    settings = with_addon(project, priority)
    handlers = settings.getwithbase("DOWNLOAD_HANDLERS")
    assert handlers["https"] == f"{__name__}.ProjectHandler"  # not replaced
    assert handlers["http"] == HANDLER  # the scheme the project left alone
    assert settings.getwithbase("ITEM_PIPELINES")["newsforagers.pipelines.ReinforcingAgentPipeline"] == 300
    middlewares = settings.getwithbase("DOWNLOADER_MIDDLEWARES")
    assert middlewares["newsforagers.downloadermiddlewares.SharedFetchMiddleware"] is None
    assert middlewares["newsforagers.downloadermiddlewares.ColonyRobotsTxtMiddleware"] == 100
    assert settings.getint("CONCURRENT_ITEMS") == 50
    assert settings.getint("FORAGERS_WEBLOG_SIZE") == 20


def test_a_handler_outside_the_colonys_budget_is_refused_with_the_way_out():
    settings = with_addon({"DOWNLOAD_HANDLERS": {"https": f"{__name__}.ProjectHandler"}})
    with pytest.raises(ValueError) as error:
        check_components(settings)
    message = str(error.value)
    assert f"DOWNLOAD_HANDLERS['https'] ('{__name__}.ProjectHandler')" in message
    assert "ColonyBudgetMixin" in message


def test_a_handler_with_the_budget_mixin_or_a_disabled_scheme_is_accepted():
    check_handlers(with_addon({"DOWNLOAD_HANDLERS": {"https": f"{__name__}.PoliteProjectHandler"}}))
    check_handlers(with_addon({"DOWNLOAD_HANDLERS": {"https": None}}))
    check_handlers(with_addon({"DOWNLOAD_HANDLERS": {"https": PoliteProjectHandler}}))


def test_a_replaced_scheduler_or_a_disabled_reinforcing_agent_is_refused():
    with pytest.raises(ValueError, match=r"SCHEDULER \('scrapy.core.scheduler.Scheduler'\) replaces"):
        check_components(with_addon({"SCHEDULER": "scrapy.core.scheduler.Scheduler"}))
    with pytest.raises(ValueError, match="ITEM_PIPELINES disables"):
        check_components(with_addon({"ITEM_PIPELINES": {
            "newsforagers.pipelines.ReinforcingAgentPipeline": None}}))
