import numpy as np
import pytest

from newsforagers.cli import main
from newsforagers.learning import ScorePolicy
from newsforagers.sim.colony import run_colony
from newsforagers.sim.world import NewsWorld

HOURS = 3600.0


def test_world_shows_only_published_articles():
    world = NewsWorld(6 * HOURS, n_sections=4, rate_per_hour=20, rng=np.random.default_rng(0))
    first = world.articles[0]
    front = world.front_url(first.section)
    assert first.url not in world.links(front, first.published - 1)
    assert first.url in world.links(front, first.published)
    assert not world.exists(first.url, first.published - 1)
    states = np.stack([world.state(a.url) for a in world.articles])
    assert np.all(np.abs(states) <= 1)


def test_colony_finds_news_learns_and_splits():
    world = NewsWorld(8 * HOURS, n_sections=8, rate_per_hour=30, rng=np.random.default_rng(3))
    result = run_colony(world, 8 * HOURS, np.random.default_rng(3), budget=5.0,
                        policy=ScorePolicy(max_foragers=6))
    published = {a.url: a.published for a in world.articles}
    assert len(result.found) > 0.5 * len(published)
    # each document is rewarded once, to its first sender, within 24 h of publication
    assert len({f.url for f in result.found}) == len(result.found)
    for item in result.found:
        assert item.published == published[item.url]
        assert 0 <= item.found_at - item.published <= 24 * HOURS
    assert any(kind == "split" for _, kind, _, _ in result.events)
    assert all(2 <= n <= 6 for _, n in result.population)


def test_colony_is_deterministic_for_a_seed():
    def run(seed):
        world = NewsWorld(2 * HOURS, n_sections=4, rng=np.random.default_rng(seed))
        result = run_colony(world, 2 * HOURS, np.random.default_rng(seed), mode="wl")
        return [(f.url, f.forager, f.found_at) for f in result.found]

    assert run(5) == run(5)


def test_sim_command_prints_found_documents_and_a_summary(capsys):
    assert main(["sim", "--hours", "2", "--sections", "4", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert " found http://news.sim/section/" in out
    assert "novel documents found" in out and "sent efficiency" in out


def test_bad_arguments_are_clear_errors(capsys):
    world = NewsWorld(HOURS, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="mode"):
        run_colony(world, HOURS, np.random.default_rng(0), mode="xx")
    assert main(["sim", "--hours", "0"]) == 2
