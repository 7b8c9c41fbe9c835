import numpy as np
import pytest

from newsforagers.learning import Weblog


def test_seeding_puts_urls_at_value_zero_in_order():
    weblog = Weblog.from_seeds(["http://a/", "http://b/", "http://a/"])
    assert weblog.entries() == [("http://a/", 0.0), ("http://b/", 0.0)]
    assert weblog.starting_urls() == ["http://a/", "http://b/"]


def test_update_by_hand_new_and_revisited_urls():
    # Alg. 1 with beta = 0.3, computed by hand.
    weblog = Weblog.from_seeds(["A", "B"])
    # Path A, C, D with profits 0, 98, -1: targets (sums to the end) A 97, C 97, D -1.
    weblog.update(["A", "C", "D"], [0, 98, -1])
    # A revisited: 0.7*0 + 0.3*97 = 29.1; C and D new take their target; B untouched.
    assert [u for u, _ in weblog.entries()] == ["C", "A", "B", "D"]
    assert [v for _, v in weblog.entries()] == pytest.approx([97.0, 29.1, 0.0, -1.0])
    # Path C, B, E with profits -2, 99, 1: targets C 98, B 100, E 1.
    weblog.update(["C", "B", "E"], [-2, 99, 1])
    # C: 0.7*97 + 0.3*98 = 97.3; B: 0.7*0 + 0.3*100 = 30; E new: 1.
    assert [u for u, _ in weblog.entries()] == ["C", "B", "A", "E", "D"]
    assert [v for _, v in weblog.entries()] == pytest.approx([97.3, 30.0, 29.1, 1.0, -1.0])


def test_update_clips_at_size_100():
    weblog = Weblog()
    weblog.update([f"u{i}" for i in range(100)], [1.0] + [0.0] * 99)  # every target is 1
    assert len(weblog) == 100
    new = [f"new{i}" for i in range(5)]
    weblog.update(new, [0, 0, 0, 0, 50])  # every new URL gets 50
    assert len(weblog) == 100
    urls = [u for u, _ in weblog.entries()]
    assert urls[:5] == new
    # the last five of the old ones fall off the end
    assert urls[5:] == [f"u{i}" for i in range(95)]


def test_starting_urls_are_the_top_ten_and_choice_is_among_them():
    weblog = Weblog()
    weblog.update([f"u{i:02d}" for i in range(30)], [1.0] * 30)  # targets 30, 29, ..., 1
    assert weblog.starting_urls() == [f"u{i:02d}" for i in range(10)]
    rng = np.random.default_rng(0)
    picks = {weblog.choose_start(rng) for _ in range(500)}
    assert picks == set(weblog.starting_urls())


def test_split_partitions_a_full_weblog_into_two_halves_of_50():
    weblog = Weblog()
    weblog.update([f"u{i}" for i in range(100)], list(np.linspace(-5, 5, 100)))
    before = dict(weblog.entries())
    child = weblog.split(np.random.default_rng(42))
    assert len(child) == 50 and len(weblog) == 50
    parent_urls = {u for u, _ in weblog.entries()}
    child_urls = {u for u, _ in child.entries()}
    assert parent_urls.isdisjoint(child_urls)
    assert parent_urls | child_urls == set(before)
    for half in (weblog, child):
        values = [v for _, v in half.entries()]
        assert values == sorted(values, reverse=True)
        assert all(before[u] == v for u, v in half.entries())


def test_split_is_random_and_reproducible():
    def halves(seed):
        weblog = Weblog()
        weblog.update([f"u{i}" for i in range(100)], [1.0] * 100)
        return {u for u, _ in weblog.split(np.random.default_rng(seed)).entries()}

    assert halves(1) == halves(1)
    assert halves(1) != halves(2)


def test_round_trip_through_dict():
    weblog = Weblog(size=20, start_size=5, beta=0.5)
    weblog.update(["a", "b", "c"], [3, 2, 1])
    copy = Weblog.from_dict(weblog.to_dict())
    assert copy.entries() == weblog.entries()
    assert (copy.size, copy.start_size, copy.beta) == (20, 5, 0.5)


@pytest.mark.parametrize(
    "bad",
    [{}, {"size": 10, "start_size": 2, "beta": 0.3, "entries": [["a", float("nan")]]},
     {"size": 10, "start_size": 2, "beta": 0.3, "entries": [["a", 1], ["a", 2]]},
     {"size": 10, "start_size": 20, "beta": 0.3, "entries": []}],
)
def test_from_dict_rejects_bad_data(bad):
    with pytest.raises(ValueError):
        Weblog.from_dict(bad)


def test_bad_input_is_a_clear_error():
    weblog = Weblog()
    with pytest.raises(ValueError, match="one profit per step"):
        weblog.update(["a", "b"], [1.0])
    with pytest.raises(ValueError, match="NaN or infinite"):
        weblog.update(["a"], [float("inf")])
    with pytest.raises(ValueError, match="empty"):
        weblog.choose_start(np.random.default_rng(0))
    with pytest.raises(ValueError, match="empty list"):
        Weblog.from_seeds([])
    with pytest.raises(ValueError, match="beta"):
        Weblog(beta=0)
    assert len(weblog) == 0  # the failed updates changed nothing
