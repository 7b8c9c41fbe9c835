"""``best_first``: a bounded frontier ordered by the topic's relevance of a link's context."""

from __future__ import annotations

import heapq
from pathlib import Path

from newsforagers import defaults
from newsforagers.corpus import load_corpus
from newsforagers.errors import ForagersUsageError
from newsforagers.evaluation.baselines.common import BaselineSpider, positive
from newsforagers.pages import Page
from newsforagers.pages.links import base_url, link_contexts
from newsforagers.topics import topic_spec

# -- best_first ------------------------------------------------------------------------------

#: URLs the best-first frontier holds at most (``-a frontier=N``).
DEFAULT_FRONTIER = 10_000
TOPIC_USAGE = '-a topic="some words" or -a topic=@FILE (a text file)'


class Frontier:
    """A best-first crawler's frontier: unvisited URLs by score, at most ``size`` of them.

    :meth:`pop` gives the URL of highest score (ties: the one pushed first) and marks it
    visited; a visited URL is never pushed again. A URL pushed again keeps its best score
    (and its place among ties). When more than ``size`` URLs wait, the lowest (ties: the one
    pushed last) is dropped and counted in ``dropped``; a dropped URL, never visited, may be
    pushed again by a later link to it.

    Two heaps with lazy deletion: an entry is live while ``_entries`` maps its URL to the same
    ``(score, order)``; stale entries are swept out when they outnumber the live ones.
    """

    def __init__(self, size: int = DEFAULT_FRONTIER):
        self.size = size
        self.visited: set[str] = set()
        self.dropped = 0
        self._entries: dict[str, tuple[float, int]] = {}
        self._best: list[tuple[float, int, str]] = []  # (-score, order, url)
        self._worst: list[tuple[float, int, str]] = []  # (score, -order, url)
        self._pushed = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, url: str) -> bool:
        return url in self._entries

    def score(self, url: str) -> float | None:
        entry = self._entries.get(url)
        return None if entry is None else entry[0]

    def push(self, url: str, score: float) -> bool:
        """Offer ``url`` at ``score``; whether it is waiting in the frontier afterwards."""
        if url in self.visited:
            return False
        entry = self._entries.get(url)
        if entry is not None and score <= entry[0]:
            return True
        order = self._pushed if entry is None else entry[1]
        self._pushed += entry is None
        self._entries[url] = (score, order)
        heapq.heappush(self._best, (-score, order, url))
        heapq.heappush(self._worst, (score, -order, url))
        if len(self._entries) > self.size:
            self._drop()
        self._sweep()
        return url in self._entries

    def pop(self) -> tuple[str, float]:
        """The waiting URL of highest score and its score, marked visited; IndexError when
        none waits."""
        while self._best:
            negative, order, url = heapq.heappop(self._best)
            if self._entries.get(url) == (-negative, order):
                del self._entries[url]
                self.visited.add(url)
                return url, -negative
        raise IndexError("pop from an empty frontier")

    def visit(self, url: str) -> None:
        """Mark ``url`` visited (requested by other means): it leaves the frontier for good."""
        self._entries.pop(url, None)
        self.visited.add(url)

    def _drop(self) -> None:
        while self._worst:
            score, negative_order, url = heapq.heappop(self._worst)
            if self._entries.get(url) == (score, -negative_order):
                del self._entries[url]
                self.dropped += 1
                return

    def _sweep(self) -> None:
        if len(self._best) + len(self._worst) <= 4 * len(self._entries) + 64:
            return
        self._best = [(-score, order, url) for url, (score, order) in self._entries.items()]
        self._worst = [(score, -order, url) for url, (score, order) in self._entries.items()]
        heapq.heapify(self._best)
        heapq.heapify(self._worst)


def read_topic(topic: str | None) -> str:
    """The topic text of ``-a topic``: the words given, or a file's text for ``@PATH`` (of a
    file with examples, ``+ `` and ``- `` lines, its words: best_first learns nothing from
    examples, and a negative example's words are not the topic's; docs/topics.md);
    :class:`ForagersUsageError` when there is none."""
    if topic is None or not topic.strip():
        raise ForagersUsageError(f"best_first needs a topic: {TOPIC_USAGE}")
    if not topic.startswith("@"):
        return topic
    path = Path(topic[1:])
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ForagersUsageError(f"topic file {str(path)!r} cannot be read ({exc}); "
                                 f"{TOPIC_USAGE}") from None
    if not text.strip():
        raise ForagersUsageError(f"topic file {str(path)!r} is empty; {TOPIC_USAGE}")
    return topic_spec(text).words


class BestFirstSpider(BaselineSpider):
    """Best-first topical crawl: the frontier's best link next (Menczer, Pant & Srinivasan).

    F. Menczer, G. Pant and P. Srinivasan, "Topical web crawlers: evaluating adaptive
    algorithms", *ACM TOIT* 4(4), 2004: the Best-First crawler keeps one frontier of unvisited
    URLs, ordered by an estimate of their relevance to the topic, and fetches the best next.
    The estimate here is the tf·idf cosine (:class:`~newsforagers.text.topic.Topic`) of the
    link's context — its anchor text and ten words on each side, Pant & Srinivasan's
    (:func:`~newsforagers.pages.links.link_contexts`) — on the page that linked it; a URL
    linked from several pages keeps its best score. The home page (every start page, on
    several sites) is fetched first.

    The frontier lives in the spider (:class:`Frontier`, ``frontier`` URLs at most, the lowest
    dropped and counted), which hands Scrapy a request only when one of its
    ``CONCURRENT_REQUESTS`` slots is free (set from ``rate`` as for every baseline): the
    choice of the next URL is made as late as possible, over every link found so far, and
    Scrapy's scheduler never holds a queue whose order could go stale.

    Each page read is observed for online idf before it is scored, unless ``corpus`` (a
    newsforagers corpus file) gives idf from its articles' texts. Items carry ``relevance``:
    the page's own (title and text) relevance to the topic.
    """

    name = "best_first"

    def __init__(self, start: str | None = None, topic: str | None = None,
                 frontier: str | int = DEFAULT_FRONTIER, corpus: str | None = None,
                 *args, **kwargs):
        super().__init__(start, *args, **kwargs)
        text = read_topic(topic)
        # Imported here: Topic brings scikit-learn, and Scrapy imports this module for every
        # crawl of this project (SPIDER_MODULES), the forager's and the other baselines' too.
        from newsforagers.text.topic import Topic

        try:
            size = positive(frontier, "frontier", integer=True)
            texts = None
            if corpus:
                texts = [article.text for article in load_corpus(corpus)]
            self.topic = Topic(text, corpus=texts)
        except ValueError as exc:
            raise ForagersUsageError(str(exc)) from None
        self.frontier = Frontier(size)
        self.in_flight = 0  # requests handed to Scrapy and not yet answered
        self.slots = 2  # CONCURRENT_REQUESTS, read by from_crawler

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        # set by BaselineSpider.from_crawler from the rate: so many requests in flight at most
        spider.slots = max(1, crawler.settings.getint("CONCURRENT_REQUESTS"))
        return spider

    async def start(self):
        self.crawler.stats.set_value("baselines/best_first/idf", self.topic.idf_source)
        for home in self.homes:
            self.frontier.visit(home)
            self.in_flight += 1
            yield self.request(home, self.parse_page, errback=self.failed, dont_filter=True)

    def next_requests(self):
        """Requests for the frontier's best URLs, as many as there are free slots."""
        while self.in_flight < self.slots and len(self.frontier):
            url, _ = self.frontier.pop()
            self.in_flight += 1
            # dont_filter: the frontier requests each URL once; Scrapy's duplicate filter
            # would drop a request without a callback, and its slot with it.
            yield self.request(url, self.parse_page, errback=self.failed, dont_filter=True)
        self.crawler.stats.set_value("baselines/best_first/frontier", len(self.frontier))
        self.crawler.stats.set_value("baselines/best_first/dropped", self.frontier.dropped)

    def parse_page(self, response):
        self.in_flight = max(0, self.in_flight - 1)
        self.frontier.visit(response.url)  # a redirect's target, too
        now = self.site_now(response)
        page = self.read(response, now)
        if page is not None:
            own = f"{page.title}\n{page.text}"
            self.topic.observe(own)
            item = self.output(response, page, now)
            if item is not None:
                item["relevance"] = self.topic.relevance(own)
                yield item
            self.add_links(response, page)
        yield from self.next_requests()

    def add_links(self, response, page: Page) -> None:
        """Push the page's unvisited links on the site, scored by their contexts."""
        root = response.selector.root  # the tree read_response read the page from
        contexts = link_contexts(base_url(response.url, root), root,
                                 max_links=defaults.FORAGERS_MAX_LINKS)
        for link in self.links(page):
            if link not in self.frontier.visited:
                self.frontier.push(link, self.topic.relevance(contexts.get(link, "")))

    def failed(self, failure):
        self.in_flight = max(0, self.in_flight - 1)
        self.count_failure(failure)
        yield from self.next_requests()

    def on_idle(self) -> bool:
        # Idle: nothing in flight (a request dropped on the way, without an errback, freed
        # its slot here); the frontier feeds the free slots.
        self.in_flight = 0
        for request in self.next_requests():
            self.schedule(request)
        return True
