"""A corpus of any era is served whole: 1987 and 2090 as well as today (issue 14).

The replay once refused day archives before 1990 (its "Today's archive" of a 1987 newswire
was a 404) and let its calendar trap run back to 1990 whatever the corpus's era. These tests
serve the synthetic corpus generated in 1987 and in 2090, retimed (which rewrites the dates
in its paths), and check every page a crawler needs, dated by the site's own clock.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import pytest

from newsforagers.corpus import load_corpus
from newsforagers.pages import read_page
from newsforagers.replay.synth import synth_corpus

HREF = re.compile(r'href="([^"]+)"')

# A Monday of March in each era, so the synthetic week starts as the default one does.
ERAS = {1987: datetime(1987, 3, 2, tzinfo=UTC), 2090: datetime(2090, 3, 6, tzinfo=UTC)}


def links(html: str) -> list[str]:
    return [h.replace("&amp;", "&") for h in HREF.findall(html)]


@pytest.fixture(scope="module", params=sorted(ERAS), ids=str)
def era_corpus(request, tmp_path_factory):
    year = request.param
    path = synth_corpus(tmp_path_factory.mktemp(f"era{year}") / "synth.jsonl.gz", days=2, rate=100,
                        sections=6, seed=11, start=ERAS[year])
    return year, load_corpus(path)


@pytest.fixture
def era_site(serve, era_corpus):
    year, corpus = era_corpus
    # retimed: 120 a day, so the schedule and the dates in the paths are rewritten in that era
    served = serve(corpus, retime=120)
    assert {a.published.year for a in served.site.articles} == {year}
    return year, served


def test_every_article_is_served_and_dated_once_published(era_site):
    year, site = era_site
    articles = site.site.articles
    middle = articles[len(articles) // 2]
    site.at(middle.ts)
    reply = site.get("/")
    clock = parsedate_to_datetime(reply.headers["date"])
    assert clock.year == year and abs(clock.timestamp() - middle.ts) < 1.5
    for a in articles:
        reply = site.get(a.path)
        if a.ts > middle.ts:
            assert reply.status == 404, a.path
            continue
        assert reply.status == 200, a.path
        assert a.path.startswith(f"/{year}/")  # the retimed path carries the retimed date
        # read on the site's clock, as the forager reads it: dated, to the second
        page = read_page(site.url.rstrip("/") + a.path, reply.text,
                         now=parsedate_to_datetime(reply.headers["date"]))
        assert (page.published, page.date_source) == (a.published.astimezone(UTC), "meta")
        assert page.title == a.title


def test_day_archives_and_today_s_archive_list_their_stories(era_site):
    year, site = era_site
    index = site.site.index
    last = site.site.articles[-1]
    site.at(last.ts + 60)
    days: dict[str, set[str]] = {}
    for a in site.site.articles:
        days.setdefault(site.site.pages.archive_path(site.site.pages.local_day(a.ts)), set()).add(a.path)
    assert len(days) >= 2
    for path, stories in days.items():
        reply = site.get(path)
        assert reply.status == 200, path
        assert {h for h in links(reply.text) if h in index.by_path} == stories
    home = site.get("/")
    today = next(h for h in links(home.text) if h.startswith("/archive/"))
    assert today == site.site.pages.archive_path(site.site.pages.local_day(last.ts))
    assert today.startswith(f"/archive/{year}/")
    reply = site.get(today)
    assert reply.status == 200 and last.path in links(reply.text)
    # the day after today is not there yet
    tomorrow = site.site.pages.local_day(last.ts) + timedelta(days=1)
    assert site.get(site.site.pages.archive_path(tomorrow)).status == 404


def test_the_calendar_trap_reaches_back_from_the_corpus(era_site):
    year, site = era_site
    pages = site.site.pages
    first = site.site.articles[0]
    site.at(first.ts + 3600)
    path = pages.archive_path(pages.local_day(first.ts))
    for _ in range(5):  # previous-day links lead before the corpus, to empty days
        reply = site.get(path)
        assert reply.status == 200, path
        path = next(h for h in links(reply.text) if f'rel="prev" href="{h}"' in reply.text)
    assert path < pages.archive_path(pages.local_day(first.ts))
    assert not [h for h in links(site.get(path).text) if h in site.site.index.by_path]
    # ... for decades, down to a floor that follows the corpus, not a fixed year
    floor = pages.archive_floor
    assert floor.year == year - 30
    bottom = site.get(pages.archive_path(floor))
    assert bottom.status == 200 and "Previous day" not in bottom.text
    assert site.get(pages.archive_path(floor - timedelta(days=1))).status == 404


def test_today_s_archive_exists_when_the_clock_starts_before_the_floor(serve, era_corpus):
    year, corpus = era_corpus
    # a --start decades before the corpus: the home page still links a working archive
    early = datetime(year - 40, 6, 1, 12, tzinfo=UTC)
    site = serve(corpus, start=early)
    home = site.get("/")
    today = next(h for h in links(home.text) if h.startswith("/archive/"))
    assert today == f"/archive/{year - 40}/06/01/"
    reply = site.get(today)
    assert reply.status == 200 and "Previous day" not in reply.text
    assert site.get(f"/archive/{year - 40}/05/31/").status == 404
