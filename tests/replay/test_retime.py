from datetime import date, datetime, timedelta, timezone

import numpy as np
import pytest

from newsforagers.corpus import load_corpus
from newsforagers.replay.index import SiteIndex
from newsforagers.replay.retime import retime, rewrite_path_date, week_histogram

EST = timezone(timedelta(hours=-5))


def sparse_times(n=600, seed=1):
    """Two posts a week, on weekdays at 9-11 or 14-15 o'clock, like a small agency blog."""
    rng = np.random.default_rng(seed)
    times, day = [], datetime(2015, 1, 5, tzinfo=EST)  # a Monday
    while len(times) < n:
        day += timedelta(days=int(rng.integers(2, 5)))
        if day.weekday() >= 5:
            continue
        hour = int(rng.choice([9, 10, 11, 14, 15]))
        times.append(day + timedelta(hours=hour, minutes=int(rng.integers(60))))
    return times


def test_retime_keeps_order_count_and_rate():
    times = sparse_times()
    new = retime(times, rate=50, seed=0)
    assert len(new) == len(times)
    assert all(b >= a for a, b in zip(new, new[1:]))
    span_days = (new[-1] - new[0]).total_seconds() / 86400
    assert 0.85 * len(times) / 50 < span_days <= len(times) / 50
    assert new[0].date() == times[0].date()


def test_retime_keeps_weekday_and_hour_pattern():
    times = sparse_times()
    new = retime(times, rate=50, seed=0)
    old_hist, new_hist = week_histogram(times), week_histogram(new)
    assert np.corrcoef(old_hist, new_hist)[0, 1] > 0.9
    assert sum(1 for t in new if t.weekday() >= 5) < 0.05 * len(new)


def test_retime_is_deterministic_for_a_seed():
    times = sparse_times()
    assert retime(times, 50, seed=4) == retime(times, 50, seed=4)
    assert retime(times, 50, seed=4) != retime(times, 50, seed=5)
    with pytest.raises(ValueError, match="rate"):
        retime(times, 0)


def test_rewrite_path_date():
    assert rewrite_path_date("/2014/05/12/slug/", date(2010, 10, 2)) == "/2010/10/02/slug/"
    assert rewrite_path_date("/event/2025/01/16/call/", date(2011, 1, 3)) == "/event/2011/01/03/call/"
    assert rewrite_path_date("/about/team/", date(2011, 1, 3)) == "/about/team/"
    assert rewrite_path_date("/2014/13/40/x/", date(2011, 1, 3)) == "/2014/13/40/x/"


def test_rewrite_path_date_of_any_era():
    # a corpus may come from any year, not only 19xx or 20xx
    assert rewrite_path_date("/1887/03/05/slug/", date(1887, 3, 9)) == "/1887/03/09/slug/"
    assert rewrite_path_date("/news/2190/7/4", date(2190, 7, 11)) == "/news/2190/7/11"
    assert rewrite_path_date("/0000/01/01/x/", date(2011, 1, 3)) == "/0000/01/01/x/"  # no such day


def test_retimed_site_rewrites_paths_and_links(synth_path):
    corpus = load_corpus(synth_path)
    index = SiteIndex(corpus, retime=40, seed=0)
    moved = 0
    for a in index.articles:
        y, m, d = a.path.split("/")[1:4]
        assert date(int(y), int(m), int(d)) == a.published.astimezone(index.tz).date()
        moved += a.path != a.url.split("example.com", 1)[1]
    assert moved > len(index.articles) / 2
    original = {a.url: a for a in corpus.articles}
    for a in index.articles:
        expected = {index.by_path[index.articles[j].path] for j in a.links}
        assert {index.articles[j].url for j in a.links} == set(original[a.url].links)
        assert expected == set(a.links)
