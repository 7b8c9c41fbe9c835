"""Scrapy project settings for running from the repository root (``scrapy crawl ...``).

Users who add newsforagers to their own project do not need this module: the ``FORAGERS_*``
defaults live in :mod:`newsforagers.defaults`.
"""

BOT_NAME = "newsforagers"
# The benchmark's baseline crawlers live apart from ``newsforagers.spiders`` (the module a user's
# project adds), so a user's ``scrapy list`` shows the forager alone; this repository's own
# project (and ``newsforagers bench``, which runs crawls with these settings) loads both.
SPIDER_MODULES = ["newsforagers.spiders", "newsforagers.evaluation.baselines"]
NEWSPIDER_MODULE = "newsforagers.spiders"
ROBOTSTXT_OBEY = True
