"""``ForagersAddon``: enables newsforagers with one line.

``ADDONS = {"newsforagers.addon.ForagersAddon": 0}`` (the ``forager`` spider sets it itself)
installs the forager scheduler, the reinforcing-agent pipeline, the colony's extensions
(population decisions, the root's hosting of the colony's feed, the colony's record) and
the colony's downloader middlewares (shared robots.txt, shared downloads) and its HTTP
download handler (one per-host budget), and gives every ``FORAGERS_*`` setting its default.

Everything goes in at add-on priority, key by key inside the component dictionaries, so a
project's, spider's or command line's own value always wins — a project's
``DOWNLOAD_HANDLERS = {"https": ...}`` stays what the project said. Where a colony cannot keep
its promises without its component, the forager refuses to start with an error that says why
and what to do (``ForagerSpider`` checks, :func:`newsforagers.checks.check_components`, so that
other spiders of a project that enables the add-on for all are not concerned): an
``http``/``https`` download handler without the colony's budget, a scheduler or a reinforcing
agent replaced or disabled.
"""

from __future__ import annotations

from newsforagers import defaults

ADDON = "addon"
#: The schemes whose requests the colony's budget must see (its download handler's).
BUDGET_SCHEMES = ("http", "https")

#: Components the add-on enables, per component setting (key: order; None disables).
COMPONENTS = {
    "ITEM_PIPELINES": {"newsforagers.pipelines.ReinforcingAgentPipeline": 100},
    "EXTENSIONS": {"newsforagers.extensions.population.PopulationExtension": 500,
                   "newsforagers.extensions.start.ColonyStartExtension": 505,
                   "newsforagers.extensions.host.ColonyHostExtension": 510,
                   "newsforagers.extensions.record.ColonyRecordExtension": 520,
                   "newsforagers.extensions.index.IndexExtension": 530,
                   "newsforagers.extensions.output.OutputExtension": 540},
    "DOWNLOADER_MIDDLEWARES": {
        # one robots.txt per colony and host instead of one per forager
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "newsforagers.downloadermiddlewares.ColonyRobotsTxtMiddleware": 100,
        "newsforagers.downloadermiddlewares.SharedFetchMiddleware": 950,
    },
    "DOWNLOAD_HANDLERS": {scheme: "newsforagers.downloadhandlers.ColonyHTTPDownloadHandler"
                          for scheme in BUDGET_SCHEMES},
}


class ForagersAddon:
    """The add-on; one instance per crawler, which also keeps the crawler's forager context
    (:func:`newsforagers.context.context_of`)."""

    def __init__(self):
        self.context = None

    def update_settings(self, settings) -> None:
        settings.set("SCHEDULER", "newsforagers.scheduler.ForagerScheduler", ADDON)
        for name, components in COMPONENTS.items():
            current = settings[name]  # a BaseSettings: each key has its own priority
            for key, value in components.items():
                current.set(key, value, ADDON)
        # Scrapy's default of 100 items processed in parallel per response costs more than it
        # gains on a forager's few items per page (docs/benchmarks.md has the numbers), and the
        # check of every callback's source for a generator's return value is repeated work on
        # the reactor's thread.
        settings.set("CONCURRENT_ITEMS", defaults.CONCURRENT_ITEMS, ADDON)
        settings.set("WARN_ON_GENERATOR_RETURN_VALUE", False, ADDON)
        # bounded work per page and a prompt stop on hostile sites (defaults.py says why)
        for name in ("DOWNLOAD_MAXSIZE", "DOWNLOAD_WARNSIZE", "DOWNLOAD_TIMEOUT",
                     "RETRY_GIVE_UP_LOG_LEVEL"):
            settings.set(name, getattr(defaults, name), ADDON)
        for name in dir(defaults):
            if name.startswith("FORAGERS_"):
                settings.set(name, getattr(defaults, name), ADDON)
