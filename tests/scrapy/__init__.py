"""Tests of the Scrapy integration: ForagerScheduler against Scrapy's own scheduler tests."""
