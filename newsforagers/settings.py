"""Scrapy project settings for running from the repository root (``scrapy crawl ...``).

Users who add newsforagers to their own project do not need this module: the ``FORAGERS_*``
defaults live in :mod:`newsforagers.defaults`.
"""

BOT_NAME = "newsforagers"
SPIDER_MODULES = ["newsforagers.spiders"]
NEWSPIDER_MODULE = "newsforagers.spiders"
ROBOTSTXT_OBEY = True
