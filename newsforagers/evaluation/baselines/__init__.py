"""The benchmark's baseline crawlers: plain Scrapy spiders, honestly tuned (issue #6).

::

    scrapy crawl bfs      -a start=URL -O out.jsonl -s CLOSESPIDER_TIMEOUT=600
    scrapy crawl hubs     -a start=URL ...
    scrapy crawl adaptive -a start=URL -a speed=600 ...
    scrapy crawl feeds    -a start=URL -a speed=600 ...   (a site with feeds: replay --feeds)
    scrapy crawl random   -a start=URL -a seed=1 ...
    scrapy crawl oracle   -a start=URL -a truth=truth.jsonl -a speed=600 ...
    scrapy crawl best_first -a start=URL -a topic="words" ...   (or -a topic=@FILE)

- ``bfs``: breadth-first re-crawl from the home page (``start``), in rounds; each round re-fetches every
  page within ``depth`` links of the home page (default 2: home, fronts, what the fronts list),
  and the next round starts when the previous one has ended.
- ``hubs``: round-robin polling of the home page and the section fronts it links
  (``hub_pattern``), downloading the links of a hub not seen before (other listings, matched
  by ``skip_pattern``, excepted: stories are read off the hubs as items off a feed).
- ``adaptive``: the same hubs, each with its own revisit interval, halved when a poll showed
  something new and grown ×1.5 when it did not (within ``min_interval``..``max_interval``
  simulated seconds); the most overdue hub is polled next, nothing is polled before it is due.
- ``feeds``: the news-crawl way: ``adaptive``'s polling of the site's RSS/Atom feeds and
  sitemaps only (found through robots.txt's ``Sitemap:`` lines, sitemap indexes, and the
  ``<link rel="alternate">`` feeds of the home page and of the section fronts it links, each
  read once at the start), downloading each entry once.
- ``random``: random walks from the home page, restarting there after ``steps`` steps or at a
  dead end.
- ``oracle``: reads the replay's truth (``-a truth=FILE``, ``newsforagers replay --truth``)
  and requests each article the moment it is published on the site's clock: the limit.
- ``best_first``: the topical baseline (Menczer, Pant & Srinivasan's Best-First): one
  bounded frontier of unvisited URLs ordered by the topic relevance of their link contexts,
  the best taken next, each URL once; its items also carry their own ``relevance``.

All of them use Scrapy's default scheduler (``bfs`` with FIFO queues and ``DEPTH_PRIORITY =
1``, Scrapy's breadth-first recipe), obey robots.txt, request only the start URLs' sites
(scheme, host and port), send ``X-Forager: <name>`` with every request (robots.txt
included) so that the replay's log attributes their requests, and run until stopped
(``CLOSESPIDER_TIMEOUT``; the oracle also stops when the truth has nothing left to fetch).

They output the forager's item format (``url, title, published, found_at, forager, reward``,
``reward`` null: a baseline has no reinforcing agent) for every article page they download —
a document of its own (``Page.document``: dated, not a listing) — whose date is within ``FORAGERS_NOVELTY_WINDOW``
(24 hours) of the site's clock (the ``Date`` header), each URL once.

Common arguments: ``start`` (the home page, required; several sites' home pages as
``URL,URL...`` or ``@FILE``, one URL a line, as a forager's ``-a seeds``: a many-site
replay's ``--seeds`` file), ``rate`` (requests per second to each host; default
``FORAGERS_HOST_RATE``, 0: no limit; Scrapy's download delay, which holds per download slot,
one slot a host name) and ``speed`` (simulated seconds per wall second of the site's clock, the
replay's ``--speed``; default 1, a live site). With several start pages ``bfs`` starts each
round at all of them, ``hubs``, ``adaptive`` and ``feeds`` poll each site on its own (one poll
in flight a site), ``random`` runs one walker a start page, ``best_first`` fetches them all
first and the oracle requests each story at its site (the truth's ``url``). See
docs/baselines.md and docs/bench.md ("Many sites").
"""

from newsforagers.clock import SiteClock, site_time
from newsforagers.evaluation.baselines.best_first import BestFirstSpider, Frontier, read_topic
from newsforagers.evaluation.baselines.bfs import BfsSpider
from newsforagers.evaluation.baselines.common import BaselineSpider, load_truth
from newsforagers.evaluation.baselines.feeds import FeedsSpider
from newsforagers.evaluation.baselines.hubs import AdaptiveSpider, Hub, HubsSpider
from newsforagers.evaluation.baselines.oracle import OracleSpider
from newsforagers.evaluation.baselines.random_walk import RandomSpider

BASELINES = ("bfs", "hubs", "adaptive", "feeds", "random", "oracle", "best_first")

__all__ = [
    "BASELINES", "AdaptiveSpider", "BaselineSpider", "BestFirstSpider", "BfsSpider", "FeedsSpider",
    "Frontier", "Hub", "HubsSpider", "OracleSpider", "RandomSpider", "SiteClock", "load_truth",
    "read_topic", "site_time",
]
