"""The scheduled strategy (the default) against the hostile site of ``test_hostile.py``.

The scheduled forager reads the home page as a listing and harvests every link on it at once,
so each hostile case is met on its first harvest; its seeds (the home page and the traps'
entrances) are listings it revisits when due. It is a monitor: it idles between visits and
never ends by itself while a listing is left, so the crawl ends by its CLOSESPIDER_TIMEOUT.
Each test checks one case and that the crawl went on: exit 0, no traceback, no error logged
by newsforagers, every ordinary article found once.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from newsforagers.strategies.scheduled.mind import LATER_TRIES
from tests.integration.hostile_site import CASES, READABLE_ARTICLES, RETRY_AFTER, hostile_crawl
from tests.integration.test_forager_bad_input import log_records
from tests.integration.test_hostile import trap_seed, warned_once

pytestmark = pytest.mark.timeout(120)

SETTINGS = {
    "FORAGERS_STRATEGY": "scheduled",
    "DOWNLOAD_MAXSIZE": 100_000,  # the huge page is 300 kB
    "DOWNLOAD_TIMEOUT": 1,  # the slow page answers after 6 s
    "RETRY_TIMES": 2,
    "CLOSESPIDER_PAGECOUNT": 0,
    "CLOSESPIDER_TIMEOUT": 20,
    # every listing due again after 5 s (of a live site's clock): the seeds are seen a few times
    "FORAGERS_SCHEDULE_MIN_INTERVAL": 5,
    "FORAGERS_SCHEDULE_MAX_INTERVAL": 5,
}
#: The kinds of a scheduled forager's requests (stats: newsforagers/failed/<kind>/<error>).
KINDS = ("listing", "harvest", "candidate", "explore")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    with hostile_crawl(tmp_path_factory.mktemp("hostile-scheduled"), SETTINGS) as crawl:
        yield crawl


def found(crawl) -> list[str]:
    return [urlsplit(item["url"]).path for item in crawl.items]


def failed(crawl, error: str) -> int:
    """Requests of any kind given up with ``error``."""
    return sum(crawl.stats.get(f"newsforagers/failed/{kind}/{error}", 0) for kind in KINDS)


@pytest.fixture()
def went_on(run):
    """The crawl went on past every case: it ran until its timeout, logged no error of ours,
    raised nothing, and found the ordinary articles, each once."""
    site, crawl, expected = run
    assert crawl.returncode == 0, crawl.describe()
    assert crawl.finish_reason == "closespider_timeout", crawl.describe()
    assert "Traceback" not in crawl.log, crawl.describe()
    ours = [(logger, text) for logger, level, text in log_records(crawl.log)
            if level in ("ERROR", "CRITICAL") and logger.startswith("newsforagers")]
    assert not ours, ours
    ordinary = {path for path in expected if path.startswith("/news/story-")}
    paths = found(crawl)
    assert len(ordinary) == 6 and all(paths.count(path) == 1 for path in ordinary), paths
    return site, crawl


def test_the_readable_hostile_articles_are_found_once_and_nothing_twice(went_on):
    site, crawl = went_on
    paths = found(crawl)
    for name in READABLE_ARTICLES:
        assert paths.count(CASES[name]) == 1, (name, paths)
    assert len(paths) == len(set(paths))
    assert crawl.stats["newsforagers/agent/rewarded"] == len(crawl.items)
    # an article, once read, is never requested again (harvest reads it once; the seeds and
    # the home page are the listings polled)
    for name in ("malformed", "charset_unknown", "charset_undeclared"):
        assert site.count(CASES[name]) == 1, name


def test_pages_that_cannot_be_read_are_counted_and_not_sent(went_on):
    site, crawl = went_on
    assert crawl.stats["newsforagers/skipped/not_html"] == site.count(CASES["binary"]) >= 1
    warned_once(crawl, "skipped/not_html")
    assert crawl.stats["newsforagers/pages/empty"] >= site.count(CASES["empty"]) >= 1
    assert failed(crawl, "DownloadCancelledError") == site.count(CASES["huge"]) >= 1
    assert "retry/reason_count/scrapy.exceptions.DownloadCancelledError" not in crawl.stats
    assert failed(crawl, "ResponseDataLossError") >= 1
    assert crawl.stats["newsforagers/pages/future_dated"] >= site.count(CASES["future"]) >= 1
    for name in ("future", "undated", "footer_date", "binary", "empty", "huge"):
        assert CASES[name] not in found(crawl), name


@pytest.mark.parametrize("kind", ["replaced", "unknown", "undeclared"])
def test_bad_charsets_are_counted(went_on, kind):
    site, crawl = went_on
    assert crawl.stats[f"newsforagers/pages/charset/{kind}"] >= 1
    warned_once(crawl, f"pages/charset/{kind}")


def test_redirects_errors_and_slow_pages_are_given_up_not_retried_for_ever(went_on):
    site, crawl = went_on
    loops = crawl.stats["newsforagers/redirect/max_reached"]
    assert loops >= 1
    assert site.count(CASES["redirect_loop"]) + site.count("/hostile/loop-b") >= 21 * loops
    assert crawl.stats["offsite/filtered"] >= 1 and site.count("/elsewhere.html") == 0
    assert site.statuses(CASES["burst"])[:3] == [502, 500, 200]
    # a page that stays down (500) is asked for with its RETRY_TIMES retries, then again a few
    # times later (a 5xx may be a bad moment), never more than LATER_TRIES times: each round is
    # the request and its 2 retries
    rounds = failed(crawl, "HttpError")
    assert 1 <= rounds <= 1 + LATER_TRIES and site.count(CASES["down"]) == 3 * rounds
    assert 1 <= failed(crawl, "DownloadTimeoutError") <= 1 + LATER_TRIES and site.count(CASES["slow"]) >= 3


def test_a_429_pauses_the_host_and_its_page_is_read_after_the_pause(went_on):
    site, crawl = went_on
    assert crawl.stats["newsforagers/host/paused"] == 1
    assert crawl.stats["newsforagers/host/paused_seconds"] == RETRY_AFTER
    busy = site.hits_of(CASES["busy"])
    assert [hit.status for hit in busy[:2]] == [429, 200] and busy[1].at >= busy[0].at + RETRY_AFTER
    assert re.search(r"host 127\.0\.0\.1 answered 429 with Retry-After", crawl.log)


def test_traps_stay_a_small_share_of_the_requests(went_on):
    site, crawl = went_on
    hits = site.hits_of()
    # the session-id trap: no request after the seed carries a session id (they collapse to
    # the trap's two pages)
    seed = urlsplit(trap_seed(crawl)).path  # a seed, polled as a listing with its session id
    later = [hit for hit in hits if hit.path.startswith("/trap/") and hit.uri != seed]
    assert all("jsessionid" not in hit.uri and "sid=" not in hit.uri for hit in later), [h.uri for h in later]
    assert crawl.stats["newsforagers/links/session_ids"] >= 4
    # the calendar: its days are listings that never pay; exploration tries a few of them,
    # and the family is then left alone
    days = {hit.path for hit in hits if hit.path.startswith("/calendar/") and hit.path != "/calendar/today"}
    calendar = [hit for hit in hits if hit.path.startswith("/calendar/")]
    assert len(calendar) <= len(hits) / 4, (len(calendar), len(hits))
    assert len(days) <= 12, sorted(days)
    # the home page, a seed, was polled again and again
    assert site.count("/") >= 3


def test_the_same_story_under_many_urls_is_output_once(went_on):
    site, crawl = went_on
    outputs = [item for item in crawl.items
               if urlsplit(item["url"]).path in ("/news/same-story.html", "/print/same-story.html")]
    assert len(outputs) == 1, outputs
