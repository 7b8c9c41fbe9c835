"""``Bounded``: a mapping that keeps at most ``size`` keys, forgetting the oldest first.

A forager's memories (page states, articles fetched, a listing's last links, ...) must not
grow with the crawl; each is a bounded mapping rather than an ``OrderedDict`` trimmed by hand.
Two ways to write: :meth:`put` makes the key the newest (recently used), ``m[key] = value``
keeps an existing key's age (insertion order) and makes a new key the newest; either then
forgets the oldest keys beyond ``size``. ``size`` 0 keeps nothing; ``size`` None keeps every
key (a cap a setting may switch off). ``forgotten`` counts the keys forgotten for the bound.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, Hashable, Iterable, Iterator, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_MISSING = object()


class Bounded(Generic[K, V]):
    """At most ``size`` keys (``size`` ≥ 0, or None: no bound); the oldest are forgotten first."""

    def __init__(self, size: int | None, items: Iterable[tuple[K, V]] = ()):
        if size is not None and size < 0:
            raise ValueError(f"size ({size!r}) must be 0 or more, or None.")
        self.size = None if size is None else int(size)
        self.forgotten = 0  # keys forgotten for the bound
        self._items: OrderedDict[K, V] = OrderedDict()
        for key, value in items:
            self.put(key, value)

    def put(self, key: K, value: V = None) -> None:
        """``key`` becomes the newest, with ``value``."""
        self._items[key] = value
        self._items.move_to_end(key)
        self._trim()

    def add(self, key: K) -> None:
        """As a bounded set: ``key`` becomes the newest member."""
        self.put(key, None)

    def __setitem__(self, key: K, value: V) -> None:
        self._items[key] = value  # an existing key keeps its place
        self._trim()

    def __delitem__(self, key: K) -> None:
        del self._items[key]

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def get(self, key: K, default=None):
        return self._items.get(key, default)

    def pop(self, key: K, default=_MISSING):
        if default is _MISSING:
            return self._items.pop(key)
        return self._items.pop(key, default)

    def pop_newest(self) -> tuple[K, V]:
        """Remove and return the newest key and its value (KeyError when empty)."""
        return self._items.popitem(last=True)

    def __eq__(self, other: object) -> bool:
        """The same keys and values in the same order (as two ``OrderedDict``)."""
        if not isinstance(other, Bounded):
            return NotImplemented
        return list(self._items.items()) == list(other._items.items())

    __hash__ = None  # mutable

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __iter__(self) -> Iterator[K]:
        """The keys, the oldest first."""
        return iter(self._items)

    def newest(self) -> Iterator[K]:
        """The keys, the newest first (do not change the mapping while iterating)."""
        return reversed(self._items)

    def items(self):
        return self._items.items()

    def oldest(self) -> K:
        """The oldest key (KeyError when empty)."""
        for key in self._items:
            return key
        raise KeyError("oldest of an empty Bounded")

    def _trim(self) -> None:
        while self.size is not None and len(self._items) > self.size:
            self._items.popitem(last=False)
            self.forgotten += 1
