"""``oracle``: the truth file's documents, each downloaded when it is published."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import scrapy

from newsforagers.evaluation.baselines.common import BaselineSpider, load_truth, path_and_query, positive

logger = logging.getLogger(__name__)

# -- oracle ----------------------------------------------------------------------------------


class OracleSpider(BaselineSpider):
    """The limit: each article requested the moment it is published on the site's clock.

    It reads the replay's truth (``truth``, JSON lines with ``path`` and ``published``, and
    the story's full ``url``, which a many-site replay's truth gives and the oracle then
    requests when it is on one of the start pages' sites: all of them share one clock),
    fetches the (first) home page once to read the site's clock (``Date``) and maps wall time to the
    site's time with ``speed``. Then each article published since the crawl started (and,
    with ``backlog`` hours, those published that long before) is requested when the site's
    clock reaches its publication time plus ``margin`` simulated seconds (at once for those
    published while robots.txt and the home page were fetched). An article that is not
    there yet (404: the clock estimate ran ahead) is asked again ``retry_delay`` wall seconds
    later, up to ``retries`` times. The crawl ends when every article is done.
    """

    name = "oracle"

    def __init__(self, start: str | None = None, truth: str | None = None,
                 margin: str | float = 0.0, backlog: str | float = 0.0,
                 retries: str | int = 20, retry_delay: str | float = 0.05, *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        if not truth:
            raise ValueError("oracle needs the replay's truth: -a truth=FILE")
        if not Path(truth).is_file():
            raise ValueError(f"truth file {truth!r} does not exist")
        # a record's full URL when it has one: a many-site replay's truth names each story's site
        self.truth, self.bad_truth = load_truth(truth, full=True)
        if not self.truth:
            raise ValueError(f"truth file {truth!r} has no usable record")
        self.margin = positive(margin, "margin", allow_zero=True)
        self.backlog = timedelta(hours=positive(backlog, "backlog", allow_zero=True))
        self.retries = positive(retries, "retries", integer=True, allow_zero=True)
        self.retry_delay = positive(retry_delay, "retry_delay", allow_zero=True)
        self.next_index: int | None = None  # into self.truth: the next article to request
        self.started_wall = time.time()
        self.outstanding = 0  # article requests scheduled and not yet answered
        self._timer = None
        self._retry_timers: set = set()

    async def start(self):
        self.started_wall = time.time()
        yield self.request(self.home, self.parse_home, errback=self.home_failed, dont_filter=True)

    def parse_home(self, response):
        now = self.site_now(response)
        if self.bad_truth:
            self.crawler.stats.set_value("baselines/oracle/bad_truth_lines", self.bad_truth)
        # from the moment the crawl started (robots.txt and the home page took a little of the
        # site's time already), on the clock just learnt
        started = datetime.fromtimestamp(self.clock.now() - self.clock.speed
                                         * (time.time() - self.started_wall), UTC)
        begin = min(now, started) - self.backlog
        self.next_index = next((i for i, (_, published) in enumerate(self.truth)
                                if published >= begin), len(self.truth))
        logger.info("oracle: %d articles to fetch from %s", len(self.truth) - self.next_index,
                    begin.isoformat())
        self._release()

    def home_failed(self, failure):
        self.count_failure(failure)
        raise scrapy.exceptions.CloseSpider("oracle_no_clock")

    def _release(self) -> None:
        """Request every article whose time has come; set a timer for the next one."""
        self._timer = None
        if self.next_index is None:
            return
        now = self.clock.now()
        while self.next_index < len(self.truth):
            path, published = self.truth[self.next_index]
            if published.timestamp() + self.margin > now:
                break
            self.next_index += 1
            self.outstanding += 1
            self.schedule(self.article_request(path, published, 0))
        if self.next_index < len(self.truth):
            published = self.truth[self.next_index][1]
            self._timer = self.call_later(self.clock.wall_delay(published.timestamp() + self.margin),
                                          self._release)

    def article_request(self, path: str, published: datetime, attempt: int) -> scrapy.Request:
        url = self.article_url(path)
        return self.request(url, self.parse_article, errback=self.article_failed, dont_filter=True,
                            meta={"path": path, "published": published, "attempt": attempt,
                                  "handle_httpstatus_list": [404]})

    def article_url(self, target: str) -> str:
        """An article's URL: the truth's own when it is on one of the start pages' sites, else
        its path on the first start page's site."""
        if "://" in target:
            if self.on_site(target):
                return target
            target = path_and_query(target)
        return f"{self.origin[0]}://{self.origin[1]}{target}"

    def parse_article(self, response):
        now = self.site_now(response)
        meta = response.meta
        if response.status == 404:
            self.crawler.stats.inc_value("baselines/oracle/early")
            self._retry(meta)
            return
        self.outstanding -= 1
        item = self.output(response, self.read(response, now), now)
        if item is not None:
            yield item

    def _retry(self, meta: dict) -> None:
        if meta["attempt"] >= self.retries:
            self.outstanding -= 1
            self.crawler.stats.inc_value("baselines/oracle/gave_up")
            return
        request = self.article_request(meta["path"], meta["published"], meta["attempt"] + 1)

        def fire():
            self._retry_timers.discard(timer)
            self.schedule(request)

        timer = self.call_later(self.retry_delay, fire)
        self._retry_timers.add(timer)

    def article_failed(self, failure):
        self.count_failure(failure)
        self.outstanding -= 1

    def on_idle(self) -> bool:
        # open while articles remain to be published, requested or retried
        if self.next_index is None:
            return False  # the clock request failed: nothing to schedule against
        return self.next_index < len(self.truth) or self.outstanding > 0 or bool(self._retry_timers)

    def on_close(self) -> None:
        for timer in [self._timer, *self._retry_timers]:
            if timer is not None and timer.active():
                timer.cancel()
        self._timer = None
        self._retry_timers.clear()
