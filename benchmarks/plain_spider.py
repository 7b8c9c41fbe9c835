"""A plain Scrapy spider for the stack benchmark: breadth-first over every on-site link.

    scrapy runspider benchmarks/plain_spider.py -a start=URL
"""

from urllib.parse import urlsplit

import scrapy


class PlainSpider(scrapy.Spider):
    name = "plain"

    def __init__(self, start: str, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.start_url = start
        self.allowed_domains = [urlsplit(start).hostname]

    async def start(self):
        yield scrapy.Request(self.start_url)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)
