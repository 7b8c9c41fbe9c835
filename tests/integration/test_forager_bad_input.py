"""Bad input to ``scrapy crawl forager``: a seed that is not a URL, an unreachable seed, a site
with no dates, pages that are not HTML. Each gives a clear message or a counted skip, and the
crawl never hangs (every test has a timeout, every crawl a backstop it must not reach)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from newsforagers.spiders.arguments import SEEDS_USAGE
from tests.integration.testsite import (
    TestSite,
    assert_ended_cleanly,
    crawl_forager,
    free_loopback_port,
    news_site,
)

# a log record starts with its timestamp and logger: "2026-01-01 10:00:00 [name] LEVEL: ..."
_RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[([^\]]+)\] (\w+): ", re.M)


def log_records(log: str) -> list[tuple[str, str, str]]:
    """``(logger, level, text)`` of each record of a Scrapy log, tracebacks included in text."""
    starts = list(_RECORD.finditer(log))
    ends = [m.start() for m in starts[1:]] + [len(log)]
    return [(m.group(1), m.group(2), log[m.end():end]) for m, end in zip(starts, ends)]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("seeds, named", [
    ("not-a-url", "not-a-url"),
    ("ftp://127.0.0.1/feed", "ftp://127.0.0.1/feed"),
    ("http://127.0.0.1:9/,www.example.org/news", "www.example.org/news"),  # the bad one of two
])
def test_seed_that_is_not_a_url_stops_the_crawl_with_a_clear_message(seeds, named, tmp_path):
    run = crawl_forager(seeds, tmp_path, timeout=20)

    assert run.returncode != 0
    # one ERROR line naming the seed and saying how to give seeds, no traceback (newsforagers.errors)
    errors = [(logger, text.strip()) for logger, level, text in log_records(run.log) if level == "ERROR"]
    assert errors == [("newsforagers.errors",
                       f"seed {named!r} is not an absolute http(s) URL; {SEEDS_USAGE}")], run.describe()
    assert "Traceback" not in run.log, run.describe()
    assert "Spider opened" not in run.log and not run.stats and not run.items


#: What a seed is fetched as: the first step of a path (the papers' forager) or a visit of a
#: listing never read yet (the scheduled strategy); both give it up after
#: FORAGERS_START_FAILURES failures in a row
SEED_KIND = {"paper": "step", "scheduled": "listing"}


@pytest.fixture(scope="module", params=sorted(SEED_KIND))
def unreachable_run(request, tmp_path_factory):
    """A crawl whose only seed is a loopback port with nothing listening."""
    port = free_loopback_port()
    run = crawl_forager(f"http://127.0.0.1:{port}/", tmp_path_factory.mktemp("unreachable"),
                        settings={"FORAGERS_STRATEGY": request.param, "FORAGERS_START_FAILURES": 3,
                                  "RETRY_TIMES": 2, "CLOSESPIDER_TIMEOUT": 20,
                                  # the host's backoff between tries capped at 1 s (1, 2, 4 s by default)
                                  "FORAGERS_HOST_BACKOFF_MAX": 1})
    run.extra["url"] = f"http://127.0.0.1:{port}/"
    run.extra["strategy"] = request.param
    return run


@pytest.mark.timeout(60)
def test_unreachable_seed_is_given_up_and_the_spider_closes_by_itself(unreachable_run):
    run, url = unreachable_run, unreachable_run.extra["url"]
    kind = SEED_KIND[run.extra["strategy"]]

    assert run.returncode == 0, run.describe()
    assert run.finish_reason == "finished", run.describe()
    # ... well before the CLOSESPIDER_TIMEOUT backstop (20 s): the host's backoff between the
    # three tries (1 + 1 + 1 s, capped here) and Scrapy's retries take ~7 s from the spider's
    # open; the whole process, its start included, ~10 s (with the default backoff, 1 + 2 + 4 s,
    # ~13.5 s and 15.2 s once on a loaded machine)
    assert run.stats["elapsed_time_seconds"] < 14, run.describe()
    # each request is retried by Scrapy first (RETRY_TIMES=2), then counts as one start failure
    assert run.stats[f"newsforagers/failed/{kind}/DownloadConnectionRefusedError"] == 3
    # ... and robots.txt, by the robots middleware only (a scheduled forager reads the
    # middleware's copy for its sitemaps: it asks for none of its own)
    assert run.stats["retry/reason_count/scrapy.exceptions.DownloadConnectionRefusedError"] == 2 * 3 + 2
    assert run.stats.get("newsforagers/feeds/robots_failed", 0) == 0
    assert f"forager f1: start URL {url} failed 3 times, removed from the weblog" in run.log
    assert not run.items
    # the only traceback is Scrapy's robots.txt middleware reporting that it could not get
    # robots.txt (logged with exc_info); nothing of the forager's
    for logger, level, text in log_records(run.log):
        if "Traceback" in text:
            assert (logger, level) == ("scrapy.downloadermiddlewares.robotstxt", "ERROR"), text
        if logger.startswith("newsforagers"):
            assert level in ("DEBUG", "INFO", "WARNING") or "no starting URL" in text, text


@pytest.mark.timeout(60)
def test_unreachable_seed_logs_that_no_starting_url_is_left(unreachable_run):
    errors = [text for logger, level, text in log_records(unreachable_run.log)
              if logger.startswith("newsforagers.driver") and level == "ERROR"]
    assert any("no starting URL left in the weblog; stopped" in text for text in errors), errors


@pytest.mark.timeout(60)
def test_final_stats_count_every_start_failure(unreachable_run):
    assert unreachable_run.stats["newsforagers/start_failures"] == 3
    assert unreachable_run.stats["newsforagers/weblog_size"] == 0


def undated_site(site: TestSite) -> list[str]:
    """A front page and five pages without any date (no metadata, no <time>, no digits)."""
    names = ["alpha", "bravo", "charlie", "delta", "echo"]
    paths = [f"/pages/{name}.html" for name in names]
    for i, path in enumerate(paths):
        site.undated(path, f"Page {names[i]}", topic=i % 3, n=i, links=["/", paths[(i + 1) % len(paths)]])
    site.html("/", b"<html><head><title>Front</title></head><body><h1>Front</h1><p>Welcome to our pages.</p>"
              + b"".join(f'<a href="{p}">{p}</a>'.encode() for p in paths) + b"</body></html>")
    return paths


@pytest.mark.timeout(60)
def test_site_without_dates_runs_sends_nothing_and_ends(tmp_path):
    with TestSite() as site:
        paths = undated_site(site)
        run = crawl_forager(site.url, tmp_path, settings={"CLOSESPIDER_PAGECOUNT": 20})

        assert_ended_cleanly(run)
        assert run.items == []
        assert all(site.count(path) >= 1 for path in paths)  # it did walk the site
        # every probed page was read and found undated; nothing was sent to the agent
        assert run.stats["newsforagers/pages/undated"] >= len(paths)
        assert "newsforagers/agent/sent" not in run.stats and "item_scraped_count" not in run.stats
        assert run.stats["newsforagers/steps"] >= 2


@pytest.mark.timeout(60)
def test_max_paths_ends_the_crawl_by_itself(tmp_path):
    with TestSite() as site:
        undated_site(site)
        run = crawl_forager(site.url, tmp_path, settings={
            "FORAGERS_MAX_PATHS": 2, "FORAGERS_BOOTSTRAP_PAGES": 1000, "CLOSESPIDER_PAGECOUNT": 0,
            "CLOSESPIDER_TIMEOUT": 6})

    assert run.returncode == 0, run.describe()
    assert run.finish_reason == "finished", run.describe()
    assert run.stats["newsforagers/paths"] == 2
    assert "newsforagers/step/abandoned/dropped" not in run.stats


@pytest.mark.timeout(60)
def test_pages_that_are_not_html_are_counted_skips_and_the_crawl_goes_on(tmp_path):
    with TestSite() as site:
        site.binary("/media/logo.png")  # image/png, a binary body
        site.binary("/media/notes.txt", b"plain text notes, not a page\n", "text/plain; charset=utf-8")
        published = news_site(site, 5, extra_home_links=["/media/logo.png", "/media/notes.txt"])
        run = crawl_forager(site.url, tmp_path, settings={"CLOSESPIDER_PAGECOUNT": 20})

        assert_ended_cleanly(run)
        assert site.count("/media/logo.png") >= 1 and site.count("/media/notes.txt") >= 1
        # one skip per download of either; a probe that is not HTML never becomes a step
        skipped = site.count("/media/logo.png") + site.count("/media/notes.txt")
        assert run.stats["newsforagers/skipped/not_html"] == skipped
        assert run.stats["newsforagers/probe_failures"] >= 2
        found = {urlsplit(item["url"]).path for item in run.items}
        assert found and found <= set(published)  # the articles around them are still found
        assert run.stats["newsforagers/steps"] > 2


@pytest.mark.timeout(60)
@pytest.mark.parametrize("strategy", sorted(SEED_KIND))
def test_seed_that_is_not_html_is_given_up_like_an_unreachable_one(strategy, tmp_path):
    with TestSite() as site:
        site.binary("/logo.png")
        run = crawl_forager(site.url_of("/logo.png"), tmp_path,
                            settings={"FORAGERS_STRATEGY": strategy, "FORAGERS_START_FAILURES": 2})

        assert run.returncode == 0 and run.finish_reason == "finished", run.describe()
        assert "Traceback" not in run.log and "newsforagers/step/abandoned/timeout" not in run.stats
        # the one error a forager may log: it has no starting URL left (the spider stops)
        assert all("no starting URL left" in text for _, level, text in log_records(run.log)
                   if level == "ERROR"), run.describe()
        assert site.count("/logo.png") == 2
        assert run.stats["newsforagers/skipped/not_html"] == 2
        assert f"start URL {site.url_of('/logo.png')} failed 2 times, removed from the weblog" in run.log


def empty_day_archive(day) -> bytes:
    """A day archive before its first story, as the replay renders one: dated only by its
    heading and its URL, with nothing of its own."""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Archive {day.isoformat()}"
            f" | news</title></head><body><header><a href='/'>news</a></header><main><h1>Archive: "
            f"{day:%A %B} {day.day}, {day:%Y}</h1><p>No stories yet.</p><nav class='pager'>"
            f"<a rel='prev' href='/'>Previous day</a></nav></main></body></html>").encode()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("strategy", ["paper", "scheduled"])
def test_an_empty_day_archive_is_never_paid_as_a_document(strategy, tmp_path):
    from datetime import UTC, datetime

    day = datetime.now(UTC).date()
    archive = f"/archive/{day:%Y/%m/%d}/"
    with TestSite() as site:
        published = news_site(site, 5, extra_home_links=[archive])
        site.html(archive, empty_day_archive(day))
        # a scheduled forager at speed 1 reads its seed's map, then idles for a simulated (and
        # wall) minute before its next poll: its first visits are all this needs
        settings = {"FORAGERS_STRATEGY": strategy, "CLOSESPIDER_PAGECOUNT": 14,
                    "CLOSESPIDER_TIMEOUT": 25 if strategy == "paper" else 8}
        run = crawl_forager(site.url, tmp_path, settings=settings,
                            args={"speed": 1} if strategy == "scheduled" else None)
        assert site.count(archive) >= 1  # it was read...
    assert run.returncode == 0, run.describe()
    paths = {urlsplit(item["url"]).path for item in run.items}
    assert archive not in paths  # ... and never sent: no reward for a listing
    assert paths and paths <= set(published)
    assert run.stats.get("newsforagers/pages/not_a_document", 0) >= (1 if strategy == "paper" else 0)


@pytest.mark.timeout(60)
def test_a_scheduled_forager_keeps_polling_an_empty_day_archive(tmp_path):
    # dated by its URL and heading alone, the archive is no document: to the scheduled forager
    # it is a listing (its first stories will appear there), not an article read once for good
    from datetime import UTC, datetime

    day = datetime.now(UTC).date()
    archive = f"/archive/{day:%Y/%m/%d}/"
    with TestSite() as site:
        news_site(site, 3, extra_home_links=[archive])
        site.html(archive, empty_day_archive(day))
        # a simulated minute a wall second; a listing that never paid is due again after
        # FORAGERS_SCHEDULE_MAX_INTERVAL (2 minutes), then 4
        settings = {"FORAGERS_STRATEGY": "scheduled", "FORAGERS_SCHEDULE_MAX_INTERVAL": 120.0,
                    "CLOSESPIDER_TIMEOUT": 10}
        run = crawl_forager(site.url, tmp_path, settings=settings, args={"speed": 60})
        reads = site.count(archive)
    assert run.returncode == 0, run.describe()
    assert reads >= 2, run.describe()
    assert archive not in {urlsplit(item["url"]).path for item in run.items}
