"""Today's archive after the site's midnight, end to end: a forager whose seed is yesterday's
day archive meets today's at its first visit past midnight of that archive (its "next day"
link, ``ScheduledMind._next_day``) or of the home page (today's link in yesterday's place),
and reads it minutes later as yesterday's successor."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from newsforagers.replay.log import read_log
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import crawl_forager

pytestmark = pytest.mark.timeout(180)
SPEED = 600
MIDNIGHT = datetime(2024, 1, 3, tzinfo=UTC)
YESTERDAY, TODAY = "/archive/2024/01/02/", "/archive/2024/01/03/"


def test_the_forager_polling_yesterday_s_archive_reads_today_s_minutes_after_midnight(tmp_path):
    corpus = synth_corpus(tmp_path / "days.jsonl.gz", days=3, rate=60, sections=3, seed=5,
                          start=datetime(2024, 1, 1, tzinfo=UTC))
    log = tmp_path / "requests.jsonl"
    # 23:20 where the site is (UTC): the forager's seed is the day's archive, its only listing
    # that names a day; midnight comes some four wall seconds into the crawl
    with ReplayProcess(corpus, speed=SPEED, start="2024-01-02T23:20:00+00:00", log_path=log) as replay:
        result = crawl_forager(replay.url.rstrip("/") + YESTERDAY, tmp_path, seconds=12, args={"speed": SPEED},
                               settings={"FORAGERS_STRATEGY": "scheduled", "FORAGERS_MIN": 1, "FORAGERS_MAX": 1,
                                         "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db",
                                         "FORAGERS_HOST_RATE": 20, "FORAGERS_SEED": 1})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and " ERROR: " not in result.log
    requests = list(read_log(log))
    today = [datetime.fromisoformat(r["sim_time"]) for r in requests if r["path"] == TODAY]
    listings = [(r["sim_time"][11:19], r["path"]) for r in requests if not r["path"].startswith("/2024/")]
    assert today, listings
    # The first page past midnight that links today's archive where yesterday's was: yesterday's
    # archive itself (its "next day" link) or the home page (today's link in yesterday's place),
    # whichever of the two the forager's schedule visited first.
    first = next(r for r in requests if r["path"] in (YESTERDAY, "/")
                 and datetime.fromisoformat(r["sim_time"]) >= MIDNIGHT)
    assert timedelta(0) < today[0] - datetime.fromisoformat(first["sim_time"]) < timedelta(minutes=10), listings
    state = result.spider_state()["forager"]
    counters = state["counters"]
    assert counters["successors"] == 1, counters
    if first["path"] == YESTERDAY:
        assert counters["next_days"] == 1, (counters, listings)
        # ... as yesterday's successor: today's entry carries on yesterday's visits, and
        # yesterday's keeps its floor with a rate of 0
        entries = {entry["url"].split("/", 3)[3]: entry for entry in state["weblog"]["entries"]}
        assert entries[TODAY[1:]]["visits"] > len(today), entries[TODAY[1:]]
        assert entries[YESTERDAY[1:]]["rate"] == 0.0, entries[YESTERDAY[1:]]
    else:
        assert counters["next_days"] == 0, (counters, listings)
