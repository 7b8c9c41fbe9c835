import pytest

from newsforagers.learning.bounded import Bounded


def test_the_oldest_keys_are_forgotten_first():
    memory = Bounded(2)
    for key in "abc":
        memory.put(key, key.upper())
    assert list(memory) == ["b", "c"] and memory["c"] == "C" and "a" not in memory


def test_put_makes_a_key_the_newest_but_assignment_keeps_its_age():
    memory = Bounded(2, [("a", 1), ("b", 2)])
    memory["a"] = 10  # keeps its place: still the oldest
    memory.put("c", 3)
    assert list(memory) == ["b", "c"]
    memory.put("b", 20)  # now the newest
    memory.put("d", 4)
    assert list(memory.items()) == [("b", 20), ("d", 4)]


def test_a_bounded_set_and_its_newest_member():
    seen = Bounded(3)
    for key in ("x", "y", "z", "x"):
        seen.add(key)
    assert list(seen) == ["y", "z", "x"] and len(seen) == 3 and seen
    assert seen.pop_newest() == ("x", None)
    assert seen.pop("y") is None and seen.pop("gone", 0) == 0 and seen.get("gone") is None
    with pytest.raises(KeyError):
        seen.pop("gone")


def test_size_zero_keeps_nothing_and_a_negative_size_is_refused():
    nothing = Bounded(0)
    nothing.put("a", 1)
    assert len(nothing) == 0 and not nothing
    with pytest.raises(ValueError, match="size"):
        Bounded(-1)


def test_no_bound_keeps_everything_and_the_forgotten_are_counted():
    everything = Bounded(None)
    for key in range(1000):
        everything.put(key, key)
    assert len(everything) == 1000 and everything.forgotten == 0 and everything.oldest() == 0
    two = Bounded(2)
    for key in "abcde":
        two.add(key)
    assert two.forgotten == 3 and two.oldest() == "d"
    with pytest.raises(KeyError):
        Bounded(1).oldest()
    del two["d"]
    assert list(two) == ["e"] and two == Bounded(5, [("e", None)]) and two != Bounded(5, [("x", None)])
