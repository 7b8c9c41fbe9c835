"""The forager's mind without Scrapy: steps, the barrier, probes, rewards, learning."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from newsforagers.config import ForagersConfig
from newsforagers.learning import Weblog
from newsforagers.strategies.paper import PaperMind

NOW = datetime(2024, 1, 1, 12, tzinfo=UTC)
K = 4


class OneHotEncoder:
    """Page text "c2 ..." -> state +1 in component 2, -1 elsewhere."""

    def transform(self, texts):
        states = -np.ones((len(texts), K), dtype=np.float32)
        for row, text in enumerate(texts):
            if text.startswith("c"):
                states[row, int(text[1])] = 1.0
        return states


def make(**kwargs):
    config = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": K, "FORAGERS_PATH_STEPS": 3,
                                           "FORAGERS_BOOTSTRAP_PAGES": K, **kwargs.pop("settings", {})})
    weights = kwargs.pop("weights", np.array([0.0, 1.0, 0.0, 0.0]))
    return PaperMind("f1", config, Weblog.from_seeds(["http://s/"], size=10, start_size=2), weights,
                   np.random.default_rng(0), encoder=kwargs.pop("encoder", OneHotEncoder()), **kwargs)


def walk_step(forager, url, links, texts, published=None):
    probes = forager.on_step_page(url, "c0 hub", links)
    for probe in probes:
        forager.on_probe_page(probe, texts[probe], (published or {}).get(probe))
    return probes


def test_a_path_probes_waits_for_its_probes_and_follows_the_value():
    forager = make()
    assert forager.next_step() == "http://s/"
    assert forager.busy and forager.next_step() is None  # the step page is not in yet
    probes = forager.on_step_page("http://s/", "c0 home", ["http://a/", "http://b/", "http://s/"])
    assert probes == ["http://a/", "http://b/"]  # the step page itself is visited
    forager.on_probe_page("http://a/", "c3 sports", None)
    assert forager.busy  # b is missing: the barrier holds
    forager.on_probe_failed("http://b/")
    forager.on_probe_page("http://b/", "c1 politics", None)  # too late, ignored
    assert not forager.busy
    assert forager.next_step() == "http://a/"  # b failed; a is the only frontier URL
    assert forager.counters.probes == 1 and forager.counters.probe_failures == 1


def test_greedy_choice_and_td_step_use_the_step_profit():
    forager = make()
    forager.next_step()
    walk_step(forager, "http://s/", ["http://a/", "http://b/"], {"http://a/": "c3", "http://b/": "c1"})
    assert forager.next_step() == "http://b/"  # w = e1 prefers cluster 1
    forager.on_reward(forager.path_id, 1, 98.0, True)  # a send made at step 1 (b) paid
    walk_step(forager, "http://b/", ["http://c/"], {"http://c/": "c2"})
    before = forager.weights.copy()
    forager.next_step()
    # TD on the transition s -> b with r = 98: delta = 98 + 0.9*V(b) - V(s) = 98 + 0.9 - (-1)
    s_home = np.array([1, -1, -1, -1.0])  # "c0 hub" -> cluster 0
    delta = 98 + 0.9 * 1.0 - (-1.0)
    assert forager.weights == pytest.approx(before + 0.1 * delta * s_home)
    assert forager.counters.td_updates == 1


def test_weblog_is_updated_after_max_steps_and_saved_state_round_trips():
    forager = make()
    forager.next_step()
    walk_step(forager, "http://s/", ["http://a/", "http://b/"], {"http://a/": "c3", "http://b/": "c1"})
    forager.next_step()
    forager.on_reward(forager.path_id, 1, 99.0, True)
    walk_step(forager, "http://b/", ["http://c/"], {"http://c/": "c2"})
    third = forager.next_step()
    assert third == "http://a/"  # a and c tie at -1 under w = e1: the older frontier URL wins
    walk_step(forager, third, [], {})
    assert forager.next_step() == "http://s/"  # three steps: a new path starts from the weblog
    assert forager.counters.paths == 1
    values = dict(forager.weblog.entries())
    assert values["http://b/"] == pytest.approx(99.0)  # new URL takes its cumulated profit
    assert values["http://s/"] == pytest.approx(0.3 * 99.0)  # seed revisited: beta = 0.3
    copy = make()
    copy.restore(forager.to_state())
    assert copy.weblog.entries() == forager.weblog.entries()
    assert np.array_equal(copy.weights, forager.weights)


def test_mode_wl_keeps_weights_and_rl_keeps_the_weblog():
    for mode in ("wl", "rl"):
        forager = make(mode=mode)
        weights, weblog = forager.weights.copy(), forager.weblog.entries()
        forager.next_step()
        walk_step(forager, "http://s/", ["http://a/"], {"http://a/": "c1"})
        forager.next_step()
        forager.on_reward(forager.path_id, 1, 99.0, True)
        walk_step(forager, "http://a/", [], {})
        forager.next_step()
        if mode == "wl":
            assert np.array_equal(forager.weights, weights)
            assert forager.weblog.entries() != weblog
        else:
            assert not np.array_equal(forager.weights, weights)
            assert forager.weblog.entries() == weblog


def test_dated_pages_are_not_downloaded_again():
    forager = make()
    forager.next_step()
    dated = {"http://a/": NOW}
    walk_step(forager, "http://s/", ["http://a/", "http://hub/"], {"http://a/": "c1", "http://hub/": "c2"}, dated)
    second = forager.next_step()
    walk_step(forager, second, [], {})
    third = forager.next_step()
    walk_step(forager, third, [], {})
    # the next path meets a and the hub again: a is an article (dated), the hub is not
    forager.weblog = Weblog.from_seeds(["http://s/"], start_size=1)  # make the next start certain
    assert forager.next_step() == "http://s/"
    probes = forager.on_step_page("http://s/", "c0", ["http://a/", "http://hub/"])
    assert probes == ["http://hub/"] and forager.counters.reused_states == 1


def test_send_rules_alg5():
    forager = make()
    assert forager.should_send("http://a/", NOW - timedelta(hours=2), NOW)
    assert not forager.should_send("http://a/", NOW - timedelta(hours=2), NOW)  # sent before
    assert not forager.should_send("http://b/", NOW - timedelta(hours=25), NOW)
    assert not forager.should_send("http://c/", NOW + timedelta(hours=1), NOW)  # dated ahead
    assert not forager.should_send("http://d/", None, NOW)


def test_unreachable_start_url_leaves_the_weblog_and_the_forager_is_done():
    forager = make(max_start_failures=2)
    for _ in range(2):
        assert forager.next_step() == "http://s/"
        forager.on_step_failed("http://s/")
    assert forager.next_step() is None and forager.done


def test_bootstrap_walks_at_random_then_fits_the_encoder():
    fitted = []

    def bootstrap(texts):
        fitted.append(list(texts))
        return OneHotEncoder()

    forager = make(encoder=None, bootstrap=bootstrap, bootstrap_pages=4)
    forager.next_step()
    links = [f"http://p{i}/" for i in range(5)]
    walk_step(forager, "http://s/", links, {u: f"c{i % K}" for i, u in enumerate(links)})
    assert forager.encoder is None
    forager.next_step()  # the batch of 5 texts + the step page reaches 4: fit
    assert forager.encoder is not None and len(fitted[0]) == 6
    assert forager.counters.paths == 1  # the random-order path was closed


def test_background_fit_hands_texts_out_and_keeps_walking_until_fitted():
    calls = []

    def bootstrap(texts):
        calls.append(list(texts))
        return OneHotEncoder()

    forager = make(encoder=None, bootstrap=bootstrap, bootstrap_pages=4, background_fit=True)
    forager.next_step()
    links = [f"http://p{i}/" for i in range(5)]
    walk_step(forager, "http://s/", links, {u: f"c{i % K}" for i, u in enumerate(links)})
    url = forager.next_step()  # threshold reached: the texts wait for the driver, the walk goes on
    assert url is not None and calls == [] and forager.encoder is None
    texts, forager.fit_request = forager.fit_request, None
    assert len(texts) == 6
    encoder = forager.fit(texts)  # what the driver runs on a thread
    forager.encoder_fitted(encoder, len(texts))
    assert forager.encoder is None  # used from the next step on, not mid-step
    walk_step(forager, url, [], {})
    forager.next_step()
    assert forager.encoder is encoder and forager.counters.paths == 1


def test_background_fit_failure_collects_twice_as_many_texts():
    forager = make(encoder=None, bootstrap=lambda texts: OneHotEncoder(), bootstrap_pages=4,
                   background_fit=True)
    forager.next_step()
    links = [f"http://p{i}/" for i in range(5)]
    walk_step(forager, "http://s/", links, {u: f"c{i % K}" for i, u in enumerate(links)})
    forager.next_step()
    texts, forager.fit_request = forager.fit_request, None
    forager.encoder_failed(texts, ValueError("too few distinct texts"))
    assert forager.bootstrap_pages == 12 and forager.encoder is None and forager.fit_request is None


def test_abandoned_step_counts_missing_pages():
    forager = make()
    forager.next_step()
    forager.on_step_page("http://s/", "c0", ["http://a/", "http://b/"])
    forager.on_probe_page("http://a/", "c1", None)
    assert forager.abandon_step() == 1 and not forager.busy


def test_late_rewards_are_counted_not_misapplied():
    forager = make()
    forager.next_step()
    forager.on_reward(forager.path_id + 5, 0, 99.0, True)
    assert forager.counters.late_rewards == 1 and forager.path.profits == [0.0]


def test_bad_mode_and_missing_encoder_are_errors():
    with pytest.raises(ValueError, match="mode"):
        make(mode="xx")
    with pytest.raises(ValueError, match="encoder"):
        make(encoder=None)
