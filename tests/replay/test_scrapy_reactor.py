"""A Scrapy crawl and the replay in the same (asyncio) reactor, as the forager tests will run.

It runs in a subprocess because a reactor can be installed and run only once per process.
"""

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import json, sys
    from datetime import timedelta
    from scrapy.utils.reactor import install_reactor
    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    import scrapy
    from scrapy.crawler import CrawlerRunner
    from twisted.internet import defer, reactor
    from newsforagers.replay import ReplaySite

    corpus, log_path = sys.argv[1], sys.argv[2]
    site = ReplaySite(corpus, speed=600, log_path=log_path)
    site.clock.reset(site.articles[0].published + timedelta(days=1))

    class Probe(scrapy.Spider):
        name = "probe"
        custom_settings = {
            "ROBOTSTXT_OBEY": True, "DEPTH_LIMIT": 3, "CLOSESPIDER_PAGECOUNT": 120,
            "LOG_LEVEL": "ERROR", "TELNETCONSOLE_ENABLED": False,
            "DEFAULT_REQUEST_HEADERS": {"X-Forager": "probe-1"},
        }

        async def start(self):
            yield scrapy.Request(site.url)

        def parse(self, response):
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href)

    @defer.inlineCallbacks
    def main():
        try:
            site.listen(reactor)
            runner = CrawlerRunner()
            crawler = runner.create_crawler(Probe)
            yield runner.crawl(crawler)
            yield site.stop()
            print(json.dumps({"responses": crawler.stats.get_value("response_received_count"),
                              "reactor": type(reactor).__name__}))
        finally:
            reactor.stop()

    reactor.callWhenRunning(main)
    reactor.run()
''')


def test_scrapy_crawls_the_replay_in_the_same_reactor(synth_path, tmp_path):
    log = tmp_path / "requests.jsonl"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(synth_path), str(log)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["reactor"] == "AsyncioSelectorReactor"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert result["responses"] >= 100 and len(records) >= 100
    assert {r["forager"] for r in records} == {"probe-1"}
    assert records[0]["path"] == "/robots.txt"
    assert not [r for r in records if r["path"].startswith("/search")]  # robots.txt obeyed
    assert sum(r["status"] == 200 for r in records) > 0.9 * len(records)
