"""``ForagerSpider`` (``scrapy crawl forager -a seeds=...``): one news forager.

Arguments (``-a``):

- ``seeds``: URLs separated by commas, or ``@FILE`` with one URL per line; they fill the
  weblog at value 0 (Alg. 10). ``allowed_domains`` defaults to their hosts.
- ``mode``: ``wlrl`` (weblog update and TD, default), ``wl`` (weblog update, fixed random
  weights), ``rl`` (TD, fixed weblog).
- ``model``: a state encoder saved by ``newsforagers train``; without one the forager fits
  its own on its first ``FORAGERS_BOOTSTRAP_PAGES`` probed pages.
- ``forager``: the forager's id (default ``f1``), sent as the ``X-Forager`` request header.
- ``role``: ``root`` (default: start a colony) or ``member`` (set by the colony's process
  spawner: join a running colony through the store).
- ``speed``: simulated seconds per wall second of the site's clock (default 1, a live site;
  the replay's ``--speed`` against a replay). Only the ``scheduled`` strategy
  (``FORAGERS_STRATEGY``) needs it: it idles until a listing is due on the site's clock.
- ``topic``: the topical mode (docs/topics.md): words, or ``@FILE`` holding a longer text
  (``FORAGERS_TOPIC``). The reinforcing agent then pays the relevance of a novel document
  to it, and only documents at least ``FORAGERS_TOPIC_MIN_RELEVANCE`` relevant are output,
  each with its ``relevance``.

The spider reads pages, hands them to its driver (the only door to the forager's mind,
:mod:`newsforagers.driver`) and sends candidates; the walk is the mind's, asked for by the
scheduler (:mod:`newsforagers.scheduler`), the rewards the pipeline's (:mod:`newsforagers.pipelines`).
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import IgnoreRequest
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import load_object
from w3lib.url import canonicalize_url

from newsforagers.addon import ForagersAddon
from newsforagers.checks import check_components
from newsforagers.clock import site_time
from newsforagers.colony.local import SITE_CLOCK, site_reading
from newsforagers.colony.throttle import BUDGET_PRIORITY
from newsforagers.config import ForagersConfig
from newsforagers.downloadhandlers import ClosingIgnoreRequest
from newsforagers.driver import MODES, Driver
from newsforagers.driver.scheduled import size_downloader
from newsforagers.errors import ForagersUsageError, mask_password, report_usage_errors_in_one_line, url_secrets
from newsforagers.logs import one_startup_banner, set_library_log_level
from newsforagers.pages import NotAFeed, NotHTML, charset_trouble, read_response
from newsforagers.pages.document import detect_language
from newsforagers.pages.feeds import is_feed, read_feed, robots_sitemaps
from newsforagers.pages.links import DeferredContexts, base_url
from newsforagers.scrapy_access import ANSWERED_META, FORAGER_META
from newsforagers.spiders.arguments import ROLES, fingerprint, parse_seeds
from newsforagers.spiders.broker import NOT_MODIFIED, UrlBroker
from newsforagers.stopping import interrupt_stores_on_stop
from newsforagers.store import open_store
from newsforagers.terminal import printable
from newsforagers.topics import build_topic, topic_text

logger = logging.getLogger(__name__)

# wall seconds between two readings of the site's clock shared with the colony
_SHARE_CLOCK_EVERY = 0.5

#: Response flags of a response that was not downloaded just now: Scrapy's HTTP cache
#: (``cached``) and the colony's shared downloads (``shared``).
STALE_FLAGS = frozenset({"cached", "shared"})

#: Requests of the scheduled strategy that read a page's links as they are now (listing
#: visits, exploration steps): never answered from Scrapy's HTTP cache.
FRESH_KINDS = frozenset({"listing", "explore"})

#: ``Page.date_source`` of a feed and of a sitemap (:func:`~newsforagers.pages.feeds.read_feed`).
FEED_SOURCES = frozenset({"feed", "sitemap"})


class ForagerSpider(scrapy.Spider):
    """A news forager: reads pages and sends candidates. Its scheduler assembles its mind and
    driver from these arguments when it opens (:mod:`newsforagers.assembly`)."""

    name = "forager"
    #: the colony's components serve spiders that say so (a project may enable the add-on for all)
    is_forager = True
    custom_settings = {"ADDONS": {"newsforagers.addon.ForagersAddon": 0}}

    def __init__(self, seeds: str | None = None, mode: str = "wlrl", model: str | None = None,
                 forager: str = "f1", colony=None, speed: str | float | None = None,
                 role: str = "root", topic: str | None = None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if role not in ROLES:
            raise ForagersUsageError(f"role ({role!r}) must be one of {', '.join(ROLES)}: leave it "
                                     "out to start a colony (its spawner starts the members)")
        # "member": a forager the colony's process spawner started; it joins the colony through
        # the store instead of starting one
        self.role = role
        # a forager started by the colony's in-process spawner (another forager's split, or
        # Alg. 9's first foragers): this process's colony; what it is born with is in the store
        self.colony = colony
        self.config: ForagersConfig | None = None  # the crawler's, once assembled
        self.model_path = model
        self.last_site_time: datetime | None = None
        self.seeds = parse_seeds(seeds)
        if mode not in MODES:
            raise ForagersUsageError(f"mode ({mode!r}) must be one of {', '.join(MODES)}, "
                                     "e.g. -a mode=wl (leave it out for wlrl)")
        self.mode = mode
        if not isinstance(forager, str) or not forager or any(c.isspace() for c in forager):
            # the id goes into the X-Forager header and the colony's records
            raise ForagersUsageError(f"forager ({forager!r}) must be a name without spaces, "
                                     "e.g. -a forager=f1 (the default)")
        self.forager_id = forager
        # -a speed= (empty) is a mistake, not the default: the default is leaving speed out
        speed_usage = ("must be a number higher than 0: the simulated seconds per wall second of "
                       "the site's clock (-a speed=600 against `newsforagers replay --speed 600`; "
                       "leave it out for a live site)")
        try:
            self.speed = 1.0 if speed is None else float(speed)
        except (TypeError, ValueError):
            raise ForagersUsageError(f"speed ({speed!r}) {speed_usage}") from None
        if not self.speed > 0 or self.speed == float("inf"):
            raise ForagersUsageError(f"speed ({speed!r}) {speed_usage}")
        self.encoder = None  # loaded from ``model`` by from_crawler (no I/O in a constructor)
        # what Scrapy's RetryMiddleware retries (read from the settings at the first failure)
        self._transient_types: tuple | None = None
        self._transient_codes: frozenset = frozenset()
        # the topical mode's relevance model (-a topic, FORAGERS_TOPIC), built by from_crawler
        self.topic = None
        if not getattr(self, "allowed_domains", None):
            self.allowed_domains = sorted({urlsplit(u).hostname for u in self.seeds})
        self._domains = frozenset(d.lower().lstrip(".") for d in self.allowed_domains)
        # the door to the forager's mind (the assembly's): the spider hands it what pages say
        self.forager_driver: Driver | None = None
        self.site_clock = None  # the scheduled strategy's estimate of the site's clock
        self._warned: set[str] = set()  # outside a colony
        self._told_language: tuple[Any, str] | None = None  # (page, language): _language
        self._robots_read: set[str] = set()  # hosts whose robots.txt was read for its sitemaps
        self._clock_shared = float("-inf")  # wall time the site's clock was last shared
        self._broker: UrlBroker | None = None

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        # a bad argument or setting is one ERROR line saying how to fix it, not a traceback
        report_usage_errors_in_one_line()
        topic = kwargs.get("topic")
        if topic is not None:
            # -a topic="words" (or @PATH, read here once: the colony's members inherit the
            # text with the root's settings, wherever they run)
            text = topic_text(str(topic))
            if not text.strip():
                raise ForagersUsageError(f"topic ({topic!r}) must be words, e.g. -a topic=\"solar "
                                         "energy\", or @PATH of a file holding them")
            crawler.settings.set("FORAGERS_TOPIC", text, priority="spider")
        # settings under which a forager cannot work, or a colony cannot be polite, are refused
        # before anything starts: the settings as they will be once the add-on has run
        final = crawler.settings.copy()
        ForagersAddon().update_settings(final)
        check_components(final)
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.model_path is not None:
            # (imported when first needed: scikit-learn takes a second to import)
            from newsforagers.text import StateEncoder

            try:
                spider.encoder = StateEncoder.load(spider.model_path)
            except (OSError, ValueError) as exc:
                raise ForagersUsageError(f"model: {exc}; give -a model=PATH of a state encoder "
                                         "saved by `newsforagers train`, or leave it out") from None
        # (validation before the crawl starts, on the settings as they will be; the crawler's
        # components share the one parse of its forager context afterwards)
        config = ForagersConfig.from_settings(final)
        # the colony's log (newsforagers.logs): Scrapy's start-up lines once, the first
        # forager's (a child of this process's colony is handed it as `colony`), and the
        # page-reading libraries at FORAGERS_LIBRARY_LOG_LEVEL; Scrapy logs its start-up after
        # this, as it builds the crawler's components
        one_startup_banner(child=spider.colony is not None)
        set_library_log_level(config.library_log_level)
        k = config.n_clusters
        if spider.encoder is not None and spider.encoder.n_clusters_ != k:
            raise ForagersUsageError(f"model {kwargs.get('model')!r} has {spider.encoder.n_clusters_} "
                                     f"clusters but FORAGERS_N_CLUSTERS is {k}")
        if config.topic.strip():
            spider.topic = build_topic(config, spider.encoder)
        if config.strategy == "scheduled":
            room = size_downloader(crawler.settings, config.host_rate, config.host_concurrency,
                                   config.schedule_in_flight, spider.seeds)
            if room is not None:
                logger.info("CONCURRENT_REQUESTS not set: %d, room for the seeds' hosts' requests in flight "
                            "and their robots.txt (set it to bound the colony's requests in flight)", room)
        if url_secrets(config.store) and spider.role == "root" and spider.colony is None \
                and (crawler.settings.getpriority("FORAGERS_STORE") or 0) >= SETTINGS_PRIORITIES["cmdline"]:
            logger.warning("FORAGERS_STORE (%s) holds its password on the command line, where every "
                           "user of this machine sees it (ps): keep it in FORAGERS_STORE_PASSWORD_FILE, "
                           "$NEWSFORAGERS_STORE_PASSWORD or ~/.netrc (docs/deployment.md, Secrets)",
                           mask_password(config.store))
        if config.store.startswith(("redis://", "rediss://")):
            # a store on a server: one line naming it (StoreUnavailable) before anything starts,
            # rather than a crawl that fails while its engine opens
            store = open_store(config.store, prefix=config.redis_prefix, retry=config.store_retry,
                               password_file=config.store_password_file)
            # a stop asked meanwhile ends the retries of a server that does not answer
            interrupt_stores_on_stop(store)
            try:
                store.ping()
            finally:
                store.close()
        crawler.signals.connect(spider._closed, signal=scrapy.signals.spider_closed)
        crawler.signals.connect(spider._robots_answered, signal=scrapy.signals.response_received)
        return spider

    async def start(self):
        # The first step comes from the weblog, through the scheduler. The scheduled strategy's
        # root forager also asks the seeds' hosts for their sitemaps (robots.txt), once per colony.
        for request in self._robots_requests():
            yield request

    def _robots_requests(self) -> list[scrapy.Request]:
        """The robots.txt of each seed's host, read for its ``Sitemap:`` lines (docs/pages.md,
        *Feeds and sitemaps*): by the root forager of a scheduled colony with ``FORAGERS_FEEDS``
        (the colony's other foragers get its sitemaps in their share of its weblog). Requests of
        the spider's own, through Scrapy's queue and the colony's budget like any other — only
        when the robots.txt middleware is off (``ROBOTSTXT_OBEY`` false): with it on, the copy
        it downloads before a host's first request is read instead (:meth:`_robots_answered`),
        and a host's robots.txt costs one request, as in any Scrapy crawl."""
        config, colony = self.config, self.colony
        if config is None or config.strategy != "scheduled" or not config.feeds or \
                not getattr(colony, "hosting", False) or getattr(colony, "root", None) is not self.crawler:
            return []
        if self.crawler.settings.getbool("ROBOTSTXT_OBEY"):
            return []
        hosts = dict.fromkeys(f"{parts.scheme}://{parts.netloc}" for parts in map(urlsplit, self.seeds))
        # not held by the robots.txt middleware until it has read the very same file
        return [scrapy.Request(f"{host}/robots.txt", callback=self.parse_robots, errback=self.robots_failed,
                               headers={"X-Forager": self.forager_id}, meta={"dont_obey_robotstxt": True})
                for host in hosts]

    # -- lifecycle ---------------------------------------------------------------------------

    def _closed(self, spider, reason) -> None:
        # after the scheduler's close: keep the forager's memory in spider.state for SpiderState
        if self.forager_driver is not None:
            self.forager_driver.spider_closed()

    # -- requests ----------------------------------------------------------------------------

    def make_request(self, url: str, kind: str, path_id: int, step: int, fresh: bool = False) -> scrapy.Request:
        """A request of the papers' strategy (``kind``: step or probe). ``fresh`` (the driver
        says): the page's links are read as they are now, never from Scrapy's HTTP cache (a
        step to a page not known to be an article)."""
        callback, errback = ((self.parse_step, self.step_failed) if kind == "step"
                             else (self.parse_probe, self.probe_failed))
        # Not dont_filter: ForagerScheduler never sends forager requests through the
        # dupefilter anyway, and dont_filter would make OffsiteMiddleware let a redirect to
        # another host through.
        meta = {FORAGER_META: kind, "forager_url": url, "forager_path": path_id, "forager_step": step}
        if fresh:
            meta["dont_cache"] = True
        return scrapy.Request(url, callback=callback, errback=errback,
                              headers={"X-Forager": self.forager_id}, meta=meta)

    def _on_site(self, url: str) -> bool:
        # the host test of Scrapy's OffsiteMiddleware (ports do not matter), applied before a
        # probe is requested so the step barrier never waits for a request it would drop
        if not self.allowed_domains:
            return True
        # the host or a domain it is under, looked up label by label: one allowed domain a
        # seed's host, and a colony over 1,000 sites read each link against all of them
        host = (urlsplit(url).hostname or "").lower()
        while host not in self._domains:
            dot = host.find(".")
            if dot < 0:
                return False
            host = host[dot + 1:]
        return True

    def _robots_allow(self, url: str) -> bool:
        """False for a link the colony's robots.txt of its host (when already read) forbids:
        it is never probed, so it neither costs a request slot nor counts as a failed probe."""
        settings = self.crawler.settings
        if self.colony is None or not settings.getbool("ROBOTSTXT_OBEY"):
            return True
        parser = self.colony.robots.get(urlsplit(url).netloc)
        if parser is None or not hasattr(parser, "allowed"):
            return True  # not read yet (or unreadable): the middleware decides
        agent = settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT")
        if parser.allowed(url, agent):
            return True
        self.crawler.stats.inc_value("newsforagers/skipped/robots_link")
        return False

    # -- callbacks ---------------------------------------------------------------------------

    def _read(self, response, on_failure, now: datetime | None = None, kind: str | None = None,
              feeds: bool = False):
        """The page of a response, or None (counted, and reported to the forager) if not HTML.
        With ``feeds``, a feed or sitemap (:func:`~newsforagers.pages.feeds.is_feed`) is read as a
        listing of its entries; one that cannot be read is a skip counted apart (``bad_feed``).

        ``now`` is the site's clock (``site_now``): a publication date is plausible around it,
        not around the system's (a replay of 1987 is dated 1987). None: the system clock.

        What a hostile or careless site does to a page that is still read is counted too:
        a wrong, unknown or missing charset, a page that gave nothing at all (no title, no
        text, no link), session ids in its links.

        The colony's URL records hear of it (:meth:`_report`): a page of ``kind`` (None: an
        article when dated, else a listing) and its links, or a fetch with no page."""
        url = response.meta["forager_url"]
        try:
            if feeds and is_feed(response.body, response.headers):
                page = read_feed(url, response.body, headers=response.headers, now=now,
                                 max_items=self.config.max_links, max_text=self.config.max_text)
            else:
                page = read_response(response, now, max_links=self.config.max_links,
                                     max_text=self.config.max_text)
        except NotAFeed as exc:
            self._trouble("skipped/bad_feed", "%s: skipped", exc)
            self._report(response, url, now)
            on_failure(url)
            return None
        except NotHTML as exc:
            self._trouble("skipped/not_html", "%s: skipped", exc)
            self._report(response, url, now)
            on_failure(url)
            return None
        if page.date_source in FEED_SOURCES:
            # XML declares its own encoding (a gzip sitemap has no text at all)
            self.crawler.stats.inc_value(f"newsforagers/feeds/read/{page.date_source}")
        else:
            charset = charset_trouble(response.headers.get(b"Content-Type"), response.body, response.text)
            if charset is not None:
                self._trouble(f"pages/charset/{charset}", "page %s: charset %s (read with %s)",
                              url, charset, getattr(response, "encoding", "?"))
        if not (page.title or page.text or page.links or page.feeds):
            self._trouble("pages/empty", "page %s gave no title, no text and no link (%d bytes)",
                          url, len(response.body))
        if page.session_ids:
            self._trouble("links/session_ids", "page %s: session ids removed from %d link(s)",
                          url, page.session_ids, count=page.session_ids)
        if page.links_capped:
            self._trouble("pages/links_capped", "page %s: %d href(s) past FORAGERS_MAX_LINKS (%d) not read",
                          url, page.links_capped, self.config.max_links)
        if page.text_capped:
            self._trouble("pages/text_capped", "page %s: text cut at FORAGERS_MAX_TEXT (%d characters)",
                          url, self.config.max_text)
        self._report(response, url, now, page, kind)
        return page

    @property
    def broker(self) -> UrlBroker | None:
        """This forager's reports to the colony's URL records (None before it is assembled, or
        with ``FORAGERS_URL_RECORDS`` off: then no conditional revisit either)."""
        store = getattr(self.forager_driver, "store", None)
        if self._broker is None and store is not None and self.config.url_records:
            self._broker = UrlBroker(store, self.crawler.stats, self.forager_id)
        return self._broker

    def _report(self, response, url: str, now: datetime | None, page=None, kind: str | None = None) -> None:
        """Tell the colony's URL records what the site answered for ``url`` (docs/pages.md, *URL
        records*): a page read, with its links on the colony's sites and the language of a
        document, or a fetch with no page. A copy that was not downloaded just now (Scrapy's HTTP
        cache, another forager's download) was reported when it was."""
        broker = self.broker
        if broker is None or STALE_FLAGS.intersection(getattr(response, "flags", ())):
            return
        when = now or self._clock_estimate() or datetime.now(UTC)
        if page is None:
            broker.fetch(url, response.status, when, response)
            return
        # a page dated by a guess with no text of its own (an empty day archive) is a listing
        kind = kind or ("article" if page.document else "listing")
        broker.page(response, url, when, [link for link in page.links if self._on_site(link)], kind,
                    self._language(page) if page.document else "")

    def _language(self, page) -> str:
        """The language of the document ``page``, told once from its visible text
        (:func:`~newsforagers.pages.document.detect_language`): its URL record and its send
        (``forager_language``, which the reinforcing agent's structured document takes) ask it
        in the same callback, one after the other (the page read, not its URL: a page read
        again later is told again)."""
        told = self._told_language
        if told is None or told[0] is not page:
            told = self._told_language = (page, detect_language(page.text))
        return told[1]

    def _check_future(self, url: str, published: datetime | None, now: datetime) -> None:
        if published is not None and published > now + timedelta(seconds=self.config.future_skew):
            self._trouble("pages/future_dated", "page %s is dated %s, ahead of the site's clock (%s): "
                          "neither sent nor rewarded", url, published.isoformat(), now.isoformat())

    def _trouble(self, kind: str, message: str, *args, count: int = 1) -> None:
        """Count ``newsforagers/KIND``; log a warning the first time the colony meets this
        kind of trouble, debug afterwards (Scrapy's "warn once, then count")."""
        self.crawler.stats.inc_value(f"newsforagers/{kind}", count)
        warned = getattr(self.colony, "warned", self._warned)
        if kind in warned:
            logger.debug(message, *args)
            return
        warned.add(kind)
        logger.warning(message + " (logged once; counted in newsforagers/%s)", *args, kind)

    def parse_step(self, response):
        response.meta[ANSWERED_META] = True
        driver = self.forager_driver
        url = response.meta["forager_url"]
        # a step page's date is not used (only its text and links): no site clock needed
        page = self._read(response, driver.step_failed, kind="step")
        if page is None:
            return
        links = [link for link in page.links if self._on_site(link) and self._robots_allow(link)]
        text = f"{page.title}\n{page.text}"
        relevance = None
        if self.topic is not None:
            # the step page's relevance to the topic: the energy policy's r (Mouton & Marteau)
            self.topic.observe(text)
            relevance = self.topic.relevance(text)
        probes = driver.step_page(url, text, links, relevance)
        meta = response.meta
        for probe in probes:
            yield self.make_request(probe, "probe", meta["forager_path"], meta["forager_step"])

    def make_fetch_request(self, fetch, revisit: bool = False) -> scrapy.Request:
        """A request of the scheduled strategy (``forager_kind``: listing, harvest, explore).
        ``revisit`` (the driver says): a listing visited before, asked whether it changed."""
        meta = {FORAGER_META: fetch.kind, "forager_url": fetch.url, "forager_fetch": fetch,
                "forager_origin": fetch.visit}
        if fetch.priority:
            meta[BUDGET_PRIORITY] = fetch.priority  # news goes first in the colony's host budget
        if fetch.kind in FRESH_KINDS:
            # a listing is visited for what it shows now: Scrapy's HTTP cache (when a project
            # enables it) must neither answer nor keep it; an article may come from it
            meta["dont_cache"] = True
        headers = {"X-Forager": self.forager_id}
        if self.config.conditional and revisit and self.broker is not None:
            # a revisit asks whether the listing changed since the colony's last copy (docs/pages.md,
            # *Conditional requests*); its 304 is an answer for parse_fetch, not an HTTP error,
            # and never a copy for Scrapy's HTTP cache
            conditional = self.broker.conditional(fetch.url)
            if conditional:
                headers.update(conditional)
                meta.update(dont_cache=True, handle_httpstatus_list=[NOT_MODIFIED])
                self.crawler.stats.inc_value("newsforagers/conditional/sent")
        return scrapy.Request(fetch.url, callback=self.parse_fetch, errback=self.fetch_failed,
                              headers=headers, meta=meta)

    def parse_fetch(self, response):
        response.meta[ANSWERED_META] = True
        driver = self.forager_driver
        fetch = response.meta["forager_fetch"]
        if not driver.first_answer(fetch, response):
            return  # its twin's answer came first (a hedged request: driver/hedge.py)
        driver.answered(fetch, response.meta.get("download_latency"))
        now = self.site_now(response)  # also sets the scheduled forager's site clock
        if response.status == NOT_MODIFIED:
            self._not_modified(response, fetch, now)
            return
        page = self._read(response, lambda _url: driver.fetch_failed(fetch), now, feeds=self.config.feeds)
        if page is None:
            return
        if self.config.feeds and page.feeds:
            # first: a feed the page also links to is then a listing, not a story to harvest
            self._add_feeds(page.feeds, dict(page.feeds_listed))
        links = [link for link in page.links if self._on_site(link) and self._robots_allow(link)]
        # A page dated by a guess with no text of its own (an empty day archive, dated by its
        # URL, early in the day or on a quiet site) is a listing to the mind, not an article: a
        # date would take it out of the weblog for good, and its stories with it.
        driver.page(fetch, self.site_clock.now(), text=f"{page.title}\n{page.text}",
                    links=links, published=page.published if page.document else None,
                    listed=dict(page.listed), contexts=self._listed_contexts(response, page))
        self._check_future(fetch.url, page.published, now)
        # a page visited as a listing is read for its links, never paid as a document
        if fetch.kind != "listing" and self._sendable(fetch.url, page) \
                and driver.should_send(fetch.url, page.published, now):
            yield self._send_item(fetch.url, page, now, fetch.visit, response.text)

    def _listed_contexts(self, response, page) -> DeferredContexts | None:
        """In the topical mode, the context of each story an HTML page lists (its anchor text
        and the words around it, :func:`~newsforagers.pages.links.link_contexts`): the forager
        fetches the news most likely on the topic first (``ScheduledDriver.link_scores``).
        Read from the page only when the forager asks the first of them (a story it has not
        queued before), not on every visit of the listing. None otherwise: without a topic,
        for an article, for a feed (no tree to read)."""
        if self.topic is None or not page.listed or page.date_source in FEED_SOURCES:
            return None
        root = getattr(getattr(response, "selector", None), "root", None)  # (parsed once: read_response's)
        if root is None:
            return None
        return DeferredContexts(base_url(response.url, root), root, [url for url, _ in page.listed],
                                self.config.max_links)

    def _add_feeds(self, feeds, updated=None) -> None:
        """Hand the feeds and sitemaps a page or robots.txt announces to the scheduled forager,
        which adds those it lacks to its weblog as listings (``ScheduledMind.add_feeds``)."""
        feeds = [url for url in feeds if self._on_site(url) and self._robots_allow(url)]
        if feeds:
            self.forager_driver.add_feeds(feeds, self.site_clock.now(), updated)

    def parse_robots(self, response) -> None:
        """A seed host's robots.txt (:meth:`_robots_requests`): its ``Sitemap:`` lines become
        listings of the forager's weblog."""
        self.site_now(response)  # a first answer tells the site's clock, as any other
        sitemaps = robots_sitemaps(response.url, response.body, max_items=self.config.max_links)
        self.crawler.stats.inc_value("newsforagers/feeds/robots_sitemaps", len(sitemaps))
        logger.info("forager %s: %s lists %d sitemap(s)", self.forager_id, response.url, len(sitemaps))
        self._add_feeds(sitemaps)

    def _robots_answered(self, response, request, spider) -> None:
        """``response_received``: a robots.txt this forager's robots.txt middleware downloaded
        (Scrapy's own request, before the host's first request of this forager) is read for its
        ``Sitemap:`` lines as :meth:`parse_robots` reads the root's own, once a host: the
        sitemaps join the weblog of the forager that crawls the host."""
        config = self.config
        if spider is not self or config is None or config.strategy != "scheduled" or not config.feeds \
                or self.forager_driver is None or response.status != 200 \
                or not self.crawler.settings.getbool("ROBOTSTXT_OBEY") \
                or getattr(request, "callback", None) == self.parse_robots:
            return
        parts = urlsplit(response.url)
        if parts.path != "/robots.txt" or parts.query:
            return
        host = f"{parts.scheme}://{parts.netloc}"
        if host in self._robots_read:
            return
        self._robots_read.add(host)
        try:
            self.parse_robots(response)
        except Exception:  # a signal handler's error would be logged by Scrapy and lost: count it
            self.crawler.stats.inc_value("newsforagers/feeds/robots_unreadable")
            logger.warning("forager %s: robots.txt %s could not be read for sitemaps", self.forager_id,
                           printable(response.url), exc_info=True)

    def robots_failed(self, failure) -> None:
        # no robots.txt (404) is routine: no sitemap to add, and the robots middleware decides
        # alone what may be fetched
        self.crawler.stats.inc_value("newsforagers/feeds/robots_failed")
        logger.debug("forager %s: robots.txt %s not read for sitemaps: %s", self.forager_id,
                     failure.request.url, failure.getErrorMessage())

    def _not_modified(self, response, fetch, now: datetime) -> None:
        """A conditional revisit answered 304: the colony's copy stands. Nothing is read; the
        mind hears of a visit that showed no new link (not of a failure), and the listing's
        entry is shared as after any visit."""
        self.crawler.stats.inc_value("newsforagers/conditional/not_modified")
        self._report(response, fetch.url, now)
        self.forager_driver.not_modified(fetch, self.site_clock.now())

    def fetch_failed(self, failure):
        failure.request.meta[ANSWERED_META] = True
        fetch = failure.request.meta.get("forager_fetch")
        if fetch is not None and not self.forager_driver.failure_counts(fetch):
            logger.debug("forager %s: %s failed, its twin answers for it: %s", self.forager_id,
                         failure.request.url, failure.getErrorMessage())
            return
        if not self._count_failure(failure.request.meta.get(FORAGER_META, "fetch"), failure):
            return
        if fetch is not None:
            self.forager_driver.answered(fetch, None)
            self.forager_driver.fetch_failed(fetch, transient=self._transient(failure))

    def _transient(self, failure) -> bool:
        """Whether a request failed for a while rather than for good, as Scrapy's own
        RetryMiddleware judges it: one of ``RETRY_EXCEPTIONS``, or an answer of one of
        ``RETRY_HTTP_CODES`` (429, 503, ...), after Scrapy's retries. Such a story is worth
        asking for again later (``ScheduledMind.on_failed``)."""
        if self._transient_types is None:
            settings = self.crawler.settings
            self._transient_types = tuple(load_object(name) if isinstance(name, str) else name
                                          for name in settings.getlist("RETRY_EXCEPTIONS"))
            self._transient_codes = frozenset(int(code) for code in settings.getlist("RETRY_HTTP_CODES"))
        response = getattr(failure.value, "response", None)
        if response is not None:
            return int(response.status) in self._transient_codes
        return bool(self._transient_types) and failure.check(*self._transient_types) is not None

    def step_failed(self, failure):
        request = failure.request
        request.meta[ANSWERED_META] = True
        if self._count_failure("step", failure):
            self.forager_driver.step_failed(request.meta["forager_url"])

    def parse_probe(self, response):
        response.meta[ANSWERED_META] = True  # (scrapy_access.requests_in_flight)
        driver = self.forager_driver
        url = response.meta["forager_url"]
        now = self.site_now(response)  # first: the page's date is judged on the site's clock
        page = self._read(response, driver.probe_failed, now, kind="probe")
        if page is None:
            return
        driver.probe_page(url, f"{page.title}\n{page.text}", page.published)
        if page.published is None:
            self.crawler.stats.inc_value("newsforagers/pages/undated")
        self._check_future(url, page.published, now)
        if self._sendable(url, page) and driver.should_send(url, page.published, now):
            origin = (response.meta["forager_path"], response.meta["forager_step"])
            yield self._send_item(url, page, now, origin, response.text)

    def _sendable(self, url: str, page) -> bool:
        """Only a document of its own may be sent (``Page.document``): a page dated by a guess
        with no text of its own (an empty day archive, a tag page) is counted, never sent."""
        if page.published is not None and not page.document:
            self.crawler.stats.inc_value("newsforagers/pages/not_a_document")
            logger.debug("forager %s: %s is dated (%s) but not a document of its own; not sent",
                         self.forager_id, url, page.date_source)
        return page.document

    def _send_item(self, url: str, page, now: datetime, origin: Any, html: str) -> dict:
        """A send to the reinforcing agent; ``origin`` (where the mind made it: the papers'
        forager's path and step, the scheduled forager's listing visit) comes back with its
        reward. ``html``, the page, goes with it:
        the agent reads a document it pays for as a structured one (never output as such)."""
        item = {
            "url": url,
            "canonical_url": canonicalize_url(url),
            "title": page.title,
            "published": page.published.isoformat(),
            "found_at": now.isoformat(),
            "forager": self.forager_id,
            "fingerprint": fingerprint(page.title, page.text),
            "forager_origin": origin,
            "forager_send": True,
            "forager_html": html,
            "forager_language": self._language(page),
        }
        if self.config.item_text:
            item["text"] = page.text
        return item

    def probe_failed(self, failure):
        failure.request.meta[ANSWERED_META] = True
        if self._count_failure("probe", failure):
            self.forager_driver.probe_failed(failure.request.meta["forager_url"])

    def _count_failure(self, kind: str, failure) -> bool:
        """Count a failed request; False when it is no failure of the site's (dropped because
        the crawl is ending): the forager then learns nothing from it (a start URL dropped at a
        close is not a start URL that failed)."""
        request = failure.request
        if failure.check(ClosingIgnoreRequest):
            # dropped while waiting for the colony's budget, because the crawl is ending: not
            # a failure of the site (the handler counted it)
            logger.debug("forager %s: %s %s dropped at close", self.forager_id, kind, request.url)
            return False
        if failure.check(IgnoreRequest) and request.meta.get("redirect_times", 0) >= \
                self.crawler.settings.getint("REDIRECT_MAX_TIMES"):
            # Scrapy's RedirectMiddleware gave up (a loop, or a chain too long) and counts nothing
            self._trouble("redirect/max_reached", "%s: gave up after %d redirects (%s)",
                          request.meta.get("redirect_urls", [request.url])[0],
                          request.meta["redirect_times"], failure.getErrorMessage())
        if getattr(failure.value, "response", None) is not None:  # an HTTP error: the site's answer
            self._report(failure.value.response, request.meta.get("forager_url", request.url), None)
        name = failure.type.__name__
        self._trouble(f"failed/{kind}/{name}", "forager %s: %s %s failed: %s", self.forager_id, kind,
                      request.url, failure.getErrorMessage())
        return True

    def site_now(self, response) -> datetime:
        """The site's clock (the ``Date`` header) or the system clock (``FORAGERS_CLOCK``).

        Only a fresh, plausible ``Date`` tells the time. A response served from a cache
        (Scrapy's HTTP cache, flag ``cached``; the colony's shared downloads, flag ``shared``)
        carries the ``Date`` of its first download, a lower bound of the site's clock (counted
        ``clock/stale_date``). A ``Date`` that cannot be the site's time — garbage, year 9999, a
        time a zone pushes out of range, or (the scheduled strategy's clock) one far from what
        the site's other answers say — is counted ``clock/implausible_date`` and never moves the
        clock. In both cases the clock's estimate (or the last good reading) stands in."""
        if self.config.clock == "site":
            parsed = site_time(response)
            fresh = not STALE_FLAGS.intersection(getattr(response, "flags", ()))
            if parsed is not None and fresh:
                if self.site_clock is None or self.site_clock.observe(parsed):
                    self.last_site_time = parsed
                    self._share_clock(parsed)
                    return parsed
                parsed = None  # refused by the clock: implausible beside the site's other answers
            elif parsed is not None:
                self.crawler.stats.inc_value("newsforagers/clock/stale_date")
                return max(parsed, self._clock_estimate() or parsed)
            headers = getattr(response, "headers", None)
            if headers is not None and headers.get(b"Date"):
                self._trouble("clock/implausible_date", "%s: Date %r is not the site's time; the "
                              "clock's estimate is used", response.url,
                              headers.get(b"Date").decode("latin-1", "replace")[:60])
                estimate = self._clock_estimate()
                if estimate is not None:
                    return estimate
            else:
                self.crawler.stats.inc_value("newsforagers/clock/no_date_header")
        self.last_site_time = datetime.now(UTC)
        return self.last_site_time

    def _share_clock(self, site: datetime) -> None:
        """Tell the colony the site's time (through the store): a forager born in a split
        starts its clock from it, and the colony's record dates its events by it. At most once
        per _SHARE_CLOCK_EVERY wall seconds: a store write per page would cost more than it
        tells."""
        wall = time.time()
        if self.colony is None or wall - self._clock_shared < _SHARE_CLOCK_EVERY:
            return
        self._clock_shared = wall
        self.colony.store.put_value(SITE_CLOCK, site_reading(site, self.speed, wall))

    def _clock_estimate(self) -> datetime | None:
        """The site's time now as the clock estimates it (the scheduled strategy), else the last
        good reading; None before any."""
        if self.site_clock is not None and self.site_clock.ready:
            return datetime.fromtimestamp(self.site_clock.now(), UTC)
        return self.last_site_time

__all__ = ["ForagerSpider"]
