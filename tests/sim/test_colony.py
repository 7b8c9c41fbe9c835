import numpy as np
import pytest

from newsforagers.cli import main
from newsforagers.learning import ReinforcingAgent, ScorePolicy
from newsforagers.pages import SentMemory
from newsforagers.sim import colony as colony_module
from newsforagers.sim.colony import colony_config, run_colony
from newsforagers.sim.world import NewsWorld
from newsforagers.strategies import paper as forager_module

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
    world = NewsWorld(8 * HOURS, n_sections=8, rate_per_hour=60, rng=np.random.default_rng(3))
    result = run_colony(world, 8 * HOURS, np.random.default_rng(3), budget=1.0,
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


class _SpyForager(forager_module.PaperMind):
    """The papers' forager, recording the calls a crawl makes to it."""

    calls: list = []

    def next_step(self):
        url = super().next_step()
        self.calls.append(("next_step", self.name, url))
        return url

    def on_step_page(self, url, text, links):
        self.calls.append(("on_step_page", self.name, url))
        return super().on_step_page(url, text, links)

    def on_probe_page(self, url, text, published):
        self.calls.append(("on_probe_page", self.name, url))
        return super().on_probe_page(url, text, published)

    def should_send(self, url, published, now):
        sent = super().should_send(url, published, now)
        self.calls.append(("should_send", self.name, url, sent))
        return sent

    def on_reward(self, path_id, step_index, profit, rewarded):
        self.calls.append(("on_reward", self.name, path_id, step_index))
        return super().on_reward(path_id, step_index, profit, rewarded)


def test_the_simulator_drives_the_papers_forager_as_a_crawl_does(monkeypatch):
    monkeypatch.setattr(colony_module, "PaperMind", _SpyForager)
    monkeypatch.setattr(_SpyForager, "calls", [])
    world = NewsWorld(2 * HOURS, n_sections=4, rate_per_hour=30, rng=np.random.default_rng(1))
    result = run_colony(world, 2 * HOURS, np.random.default_rng(1), budget=1.0)
    calls = _SpyForager.calls
    assert result.foragers and all(isinstance(f, _SpyForager) for f in result.foragers)
    # the counts are the PaperMind's own counters (the Scrapy stats' newsforagers/...)
    assert result.downloads == sum(f.counters.downloaded for f in result.foragers)
    assert result.sends == sum(f.counters.sent for f in result.foragers) > 0
    assert len(result.found) == sum(f.counters.rewarded for f in result.foragers)
    # step request → step page → each probe page (→ send → reward), in a crawl's order
    expected = {"next_step": {"on_step_page"},
                "on_step_page": {"next_step", "on_probe_page"},
                "on_probe_page": {"next_step", "on_probe_page", "should_send"},
                "should_send": {"next_step", "on_probe_page", "on_reward"},
                "on_reward": {"next_step", "on_probe_page"}}
    for before, after in zip(calls, calls[1:]):
        if before[0] == "should_send" and after[0] == "on_reward":
            assert before[3]  # only a send is judged
        if before[0] == "should_send" and before[3]:
            assert after[0] == "on_reward" and after[1] == before[1]
        if before[1] == after[1]:
            assert after[0] in expected[before[0]], (before, after)
    steps = [c for c in calls if c[0] == "on_step_page"]
    assert len(steps) == sum(f.counters.steps for f in result.foragers)


class _DatedAheadWorld:
    """A home page linking to two pages: ``ahead`` shows a document dated an hour ahead of the
    clock (a wrong date), ``fresh`` a new document every minute."""

    k = 3
    dated_pages_change = True
    home = "http://tiny.sim/"
    links_of = {home: [f"{home}ahead", f"{home}fresh"]}

    def seed_urls(self):
        return [self.home]

    def links(self, url, t):
        return self.links_of.get(url, [self.home])

    def states(self, urls):
        return np.array([[1.0, -1.0, 0.5] if u == self.home else [0.2, 0.1, -0.3] for u in urls])

    def __init__(self):
        self.probed = []

    def documents(self, urls, t):
        times = np.broadcast_to(np.asarray(t, dtype=float), (len(urls),))
        self.probed += urls
        for url, when in zip(urls, times):
            if url.endswith("ahead"):
                yield url, "ahead", when + 3600.0
            elif url.endswith("fresh"):
                minute = int(when // 60)
                yield url, f"fresh-{minute}", minute * 60.0


class _RecordingAgent(ReinforcingAgent):
    def receive(self, forager, document, age_seconds):
        self.received = getattr(self, "received", []) + [document]
        return super().receive(forager, document, age_seconds)


def test_a_document_dated_ahead_is_never_sent_and_the_sent_memory_is_the_foragers():
    world = _DatedAheadWorld()
    config = colony_config(world, FORAGERS_SENT_MEMORY_SIZE=3)
    agent = _RecordingAgent(config.reward_rules())
    result = run_colony(world, HOURS, np.random.default_rng(0), budget=1.0, agent=agent,
                        config=config)
    assert world.probed.count(f"{world.home}ahead") > 3
    assert "ahead" not in agent.received  # Alg. 5's future-skew check (the old simulator sent it)
    assert len(agent.received) == result.sends > 3
    for forager in result.foragers:
        assert isinstance(forager, forager_module.PaperMind)
        assert isinstance(forager.sent, SentMemory) and len(forager.sent) <= 3
    # the world's document key names what is sent: a page's new document is a new send
    assert len({f.document for f in result.found}) == len(result.found) > 3


def test_a_config_that_does_not_fit_the_world_is_refused():
    world = NewsWorld(HOURS, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="FORAGERS_N_CLUSTERS"):
        run_colony(world, HOURS, np.random.default_rng(0),
                   config=colony_config(world, FORAGERS_N_CLUSTERS=world.k + 1))
