"""Scrapy extensions of newsforagers (one per module, as in Scrapy)."""
