"""A site's own midnight, end to end: a forager crawling a replay whose site keeps UTC+9's days
learns the offset from the stories it reads (their URLs' days against the times their pages and
listings give) and keeps it with its weblog."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from newsforagers.learning.siteday import OFFSETS, SiteDays
from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import crawl_forager

pytestmark = pytest.mark.timeout(180)
TOKYO = timezone(timedelta(hours=9))
SPEED = 600


def test_a_forager_learns_the_site_s_utc_offset_from_what_it_reads(tmp_path):
    corpus = synth_corpus(tmp_path / "tokyo.jsonl.gz", days=2, rate=200, sections=6, seed=3,
                          start=datetime(2024, 1, 1, tzinfo=TOKYO))
    # 08:00 where the site is: its listings show the night's stories, either side of midnight
    with ReplayProcess(corpus, speed=SPEED, start="2024-01-02T08:00:00+09:00") as replay:
        result = crawl_forager(replay.url, tmp_path, seconds=8, args={"speed": SPEED}, settings={
            "FORAGERS_STRATEGY": "scheduled", "FORAGERS_STORE": f"sqlite:///{tmp_path}/colony.db",
            "FORAGERS_MIN": 1, "FORAGERS_MAX": 1, "FORAGERS_HOST_RATE": 20, "FORAGERS_SEED": 1})
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and " ERROR: " not in result.log
    assert result.items
    saved = result.spider_state()["forager"]["weblog"]["site_days"]
    days = SiteDays.from_dict(saved)
    assert days.known("127.0.0.1"), saved
    # UTC+9 agrees with every story read (the most votes), and the stories read either side of
    # the site's midnight pin it: the offsets that agree as well span less than two hours, and
    # the one taken, their middle, is within the hour. (Which stories a crawl reads in its
    # seconds depends on the machine: on a loaded one UTC+9:00 and +9:15 agreed with every
    # story read, and their middle, +9:15, was taken.)
    votes = np.asarray(saved["127.0.0.1"]["votes"])
    agreeing = OFFSETS[votes == votes.max()]
    assert 9 * 3600.0 in agreeing, agreeing / 3600
    assert agreeing.max() - agreeing.min() < 2 * 3600.0, agreeing / 3600
    assert abs(days.offset("127.0.0.1") - 9 * 3600.0) < 3600.0
