"""``ForagersAddon``: enables newsforagers with one line.

``ADDONS = {"newsforagers.addon.ForagersAddon": 0}`` (the ``forager`` spider sets it itself)
installs the forager scheduler, the reinforcing-agent pipeline, the population extension and
the colony's downloader middlewares (shared robots.txt, shared downloads) and its HTTP
download handler (one per-host budget),
and gives every
``FORAGERS_*`` setting its default at add-on priority, so project, spider and command-line
settings still win.
"""

from __future__ import annotations

from newsforagers import defaults


class ForagersAddon:
    def update_settings(self, settings) -> None:
        settings.set("SCHEDULER", "newsforagers.scheduler.ForagerScheduler", "addon")
        settings["ITEM_PIPELINES"]["newsforagers.pipelines.ReinforcingAgentPipeline"] = 100
        settings["EXTENSIONS"]["newsforagers.extensions.population.PopulationExtension"] = 500
        middlewares = settings["DOWNLOADER_MIDDLEWARES"]
        middlewares["scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"] = None
        middlewares["newsforagers.downloadermiddlewares.ColonyRobotsTxtMiddleware"] = 100
        middlewares["newsforagers.downloadermiddlewares.SharedFetchMiddleware"] = 950
        handlers = settings["DOWNLOAD_HANDLERS"]
        for scheme in ("http", "https"):
            handlers[scheme] = "newsforagers.downloadhandlers.ColonyHTTPDownloadHandler"
        # Measured with 16 foragers in one process (docs/benchmarks.md): Scrapy's default of 100
        # items processed in parallel per response costs more than it gains on a forager's
        # few items per page (74 -> 141-152 pages/s), and the check of every callback's source
        # for a generator's return value is repeated work on the reactor's thread.
        settings.set("CONCURRENT_ITEMS", defaults.CONCURRENT_ITEMS, "addon")
        settings.set("WARN_ON_GENERATOR_RETURN_VALUE", False, "addon")
        for name in dir(defaults):
            if name.startswith("FORAGERS_"):
                settings.set(name, getattr(defaults, name), "addon")
