"""Issue 7 in the fast simulator: the papers' forager is behind adaptive hub polling on a large
news site without a "latest" list, and the scheduled forager is ahead of it (the direction of
the issue's table; the numbers are in docs/benchmarks.md)."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from newsforagers.config import ForagersConfig
from newsforagers.learning import ScorePolicy
from newsforagers.learning.revisit import AdaptiveInterval
from newsforagers.sim.colony import run_colony
from newsforagers.sim.strategies import run_adaptive, run_scheduled
from newsforagers.sim.world import NewsWorld

DAYS = 3 * 86400.0
BUDGET = 2 / 60.0  # two requests a simulated minute


@pytest.fixture(scope="module")
def world():
    return NewsWorld(DAYS, n_sections=90, rate_per_hour=21, rng=np.random.default_rng(1))


def summary(result, world):
    lags = sorted((f.found_at - f.published) / 60.0 for f in result.found)
    return {"recall": result_recall(result, world), "median": statistics.median(lags),
            "p90": lags[int(0.9 * (len(lags) - 1))],
            "efficiency": len(result.found) / result.downloads}


def result_recall(result, world):
    return len({f.url for f in result.found}) / len(world.published_between(0.0, DAYS))


def test_paper_forager_behind_adaptive_and_scheduled_ahead(world):
    # adaptive starting at 1 min with its intervals capped at 6 h, as `scrapy crawl adaptive -a
    # initial_interval=60 -a max_interval=21600` runs it: it polls as rarely as scheduled does
    slow = AdaptiveInterval(initial=60.0, minimum=60.0, maximum=6 * 3600.0)
    adaptive = summary(run_adaptive(world, DAYS, BUDGET, slow), world)
    paper = summary(run_colony(world, DAYS, np.random.default_rng(2), budget=BUDGET,
                               policy=ScorePolicy(min_foragers=1, max_foragers=1)), world)
    scheduled = summary(run_scheduled(world, DAYS, BUDGET, np.random.default_rng(2)), world)
    assert adaptive["recall"] > 0.95
    assert paper["recall"] < adaptive["recall"] - 0.3 and paper["median"] > 3 * adaptive["median"]
    assert scheduled["recall"] >= adaptive["recall"]
    assert scheduled["median"] <= adaptive["median"] and scheduled["p90"] <= adaptive["p90"]
    # idling when nothing is due and skipping listed stories too old to be news
    assert scheduled["efficiency"] >= adaptive["efficiency"]


def test_adaptive_at_its_defaults_buys_its_lag_with_requests(world):
    """The crawler's defaults (intervals of 1 min to 1 h) poll every front at least hourly: a
    lag near the scheduled forager's (p90 far below) for two thirds of its download efficiency
    (docs/benchmarks.md, *The simulator's strategies*)."""
    adaptive = summary(run_adaptive(world, DAYS, BUDGET), world)
    scheduled = summary(run_scheduled(world, DAYS, BUDGET, np.random.default_rng(2)), world)
    assert adaptive["recall"] > 0.98 and scheduled["recall"] > 0.98
    assert adaptive["p90"] < scheduled["p90"]
    assert scheduled["median"] <= 1.25 * adaptive["median"]
    assert scheduled["efficiency"] >= 1.3 * adaptive["efficiency"]


def test_scheduled_simulation_is_deterministic_for_a_seed(world):
    first = run_scheduled(world, DAYS / 3, BUDGET, np.random.default_rng(5))
    again = run_scheduled(world, DAYS / 3, BUDGET, np.random.default_rng(5))
    assert first.found == again.found and first.downloads == again.downloads and first.idle == again.idle
    assert first.idle > 0  # it idled
    other = run_scheduled(world, DAYS / 3, BUDGET, np.random.default_rng(6))
    assert (other.downloads, other.extra) != (first.downloads, first.extra) or other.found != first.found


def test_a_bad_budget_or_share_is_refused(world):
    with pytest.raises(ValueError, match="budget"):
        run_adaptive(world, DAYS, 0.0)
    with pytest.raises(ValueError, match="FORAGERS_EXPLORE_SHARE"):
        run_scheduled(world, DAYS, BUDGET, np.random.default_rng(0),
                      config=ForagersConfig.from_settings({"FORAGERS_EXPLORE_SHARE": 1.0}))


def test_a_site_with_a_rhythm_and_the_scheduled_forager_that_learns_it():
    """Issue 19: the world publishes in a daily and weekly rhythm; the scheduled forager with
    FORAGERS_SCHEDULE_RHYTHM runs on it, learns quiet nights and a busy morning, and is
    deterministic for a seed (the comparison itself: benchmarks/bench_sim_rhythm.py)."""
    from newsforagers.learning.rhythm import hour_of_week
    from newsforagers.sim.world import news_rhythm

    days = 2 * 86400.0
    flat = NewsWorld(days, n_sections=12, rate_per_hour=21, rng=np.random.default_rng(3))
    assert flat.rhythm is None and flat.articles == NewsWorld(
        days, n_sections=12, rate_per_hour=21, rng=np.random.default_rng(3)).articles
    world = NewsWorld(days, n_sections=12, rate_per_hour=21, rng=np.random.default_rng(3), rhythm=news_rhythm())
    hours = np.array([int(a.published // 3600) % 24 for a in world.articles])
    assert np.sum((hours >= 7) & (hours < 10)) > 5 * np.sum(hours < 3)  # a morning peak, a quiet night
    assert news_rhythm().mean() == pytest.approx(1.0) and news_rhythm()[5 * 24 + 9] == pytest.approx(
        news_rhythm()[9] / 2)  # Saturday at half a weekday
    config = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": world.k, "FORAGERS_SCHEDULE_RHYTHM": True})
    first = run_scheduled(world, days, BUDGET, np.random.default_rng(5), config=config)
    again = run_scheduled(world, days, BUDGET, np.random.default_rng(5), config=config)
    assert first.found == again.found and first.downloads == again.downloads and first.extra == again.extra
    assert len(first.found) > 0.9 * len(world.published_between(0.0, days))
    learned = np.array(first.extra["rhythm"])  # Thursday and Friday seen
    friday = int(hour_of_week(86400.0))
    assert learned[friday + 8] > 3 * learned[friday + 2]
