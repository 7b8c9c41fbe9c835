"""Alg. 5 of the selection paper ("Document Relevancy at a forager"), the forager's send policy:
a page is a candidate when it is not older than 24 hours (:func:`is_candidate`), and is sent
when it is not among the forager's "previously selected relevant pages" (:class:`SentMemory`).
Pure policy of the forager's mind (both minds use it, and the baselines' candidate test), over
the :class:`~newsforagers.pages.page.Page` that reading gives; it reads no HTML."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TypeVar
from urllib.parse import urldefrag

from newsforagers import defaults
from newsforagers.learning.bounded import Bounded
from newsforagers.pages.page import Page

#: A page dated up to this far in the future still counts as published: server and page
#: clocks drift, and sites stamp a story a few minutes ahead when it is scheduled.
DEFAULT_FUTURE_SKEW = timedelta(seconds=defaults.FORAGERS_FUTURE_SKEW)

#: How many sent URLs a :class:`SentMemory` keeps by default. A page older than the novelty
#: window can never be a candidate again, so the memory only has to cover one window's worth
#: of sends; this is far more than a forager sends in 24 hours on any site we measured.
DEFAULT_SENT_MEMORY_SIZE = defaults.FORAGERS_SENT_MEMORY_SIZE

_NOVELTY_WINDOW = timedelta(seconds=defaults.FORAGERS_NOVELTY_WINDOW)

_ItemT = TypeVar("_ItemT")


def is_candidate(
    published: datetime | None,
    now: datetime,
    window: timedelta = _NOVELTY_WINDOW,
    *,
    skew: timedelta = DEFAULT_FUTURE_SKEW,
) -> bool:
    """Whether a page published at ``published`` may be sent at time ``now`` (Alg. 5).

    True when ``now - window <= published <= now + skew``: "not older than 24 hours", both
    ends inclusive. A page dated more than ``skew`` in the future is not a candidate: its
    date is wrong, or it announces an event rather than reporting news; sending it would
    spend a send on a date nobody can check yet. An undated page (None) is never one.

    Raises ValueError for naive datetimes (a naive clock is a bug, not a time zone choice)
    and for a negative window or skew.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now ({now!r}) must be timezone-aware.")
    if window < timedelta(0):
        raise ValueError(f"window ({window!r}) must not be negative.")
    if skew < timedelta(0):
        raise ValueError(f"skew ({skew!r}) must not be negative.")
    if published is None:
        return False
    if published.tzinfo is None or published.utcoffset() is None:
        raise ValueError(f"published ({published!r}) must be timezone-aware.")
    return now - window <= published <= now + skew


class SentMemory:
    """The forager's memory of the pages it has sent: ``previousPages`` of Alg. 5.

    Alg. 5 (selection paper, "Document Relevancy at a forager") sends the pages that are not
    older than 24 hours and not in ``previousPages``, then adds them to it. The paper's set
    grows forever; this one keeps at most ``max_entries`` URLs and forgets the oldest sends
    first. Forgetting is safe once a URL's page has left the novelty window, because it can
    no longer be a candidate; an entry forgotten sooner can at worst be sent once more (one
    send cost, no reward).

    Pages are keyed by URL without fragment. Items may be :class:`Page` objects or URLs.
    """

    def __init__(self, max_entries: int = DEFAULT_SENT_MEMORY_SIZE) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"max_entries ({max_entries!r}) must be an integer of at least 1.")
        self._max_entries = max_entries
        self._sent: Bounded[str, None] = Bounded(max_entries)

    @property
    def max_entries(self) -> int:
        return self._max_entries

    def select(
        self,
        items: Iterable[_ItemT],
        *,
        now: datetime | None = None,
        window: timedelta = _NOVELTY_WINDOW,
        skew: timedelta = DEFAULT_FUTURE_SKEW,
    ) -> list[_ItemT]:
        """Return the items not sent before, in input order, and remember them as sent.

        Duplicates within ``items`` are returned once. Without ``now`` every item is taken
        as a candidate (the caller has filtered dates). With ``now``, this is the whole of
        Alg. 5: :class:`Page` items that fail :func:`is_candidate` are dropped (and not
        remembered); a bare URL then raises ValueError, since it has no date to check.
        """
        if now is not None:
            # Checked before anything is remembered, so a bad batch leaves the memory as it was.
            items = list(items)
            for item in items:
                if not isinstance(item, Page):
                    raise ValueError(
                        f"select(now=...) needs Page items to check dates, got {item!r}."
                    )
        selected: list[_ItemT] = []
        for item in items:
            if now is not None and not is_candidate(item.published, now, window, skew=skew):
                continue
            key = _memory_key(item)
            if key in self._sent:
                continue
            self._remember(key)
            selected.append(item)
        return selected

    def to_list(self) -> list[str]:
        """The remembered URLs, oldest send first (JSON-friendly, for persistence)."""
        return list(self._sent)

    @classmethod
    def from_list(
        cls, urls: Iterable[str], max_entries: int = DEFAULT_SENT_MEMORY_SIZE
    ) -> SentMemory:
        """Rebuild a memory from :meth:`to_list`; beyond ``max_entries``, the newest are kept."""
        memory = cls(max_entries)
        for url in urls:
            memory._remember(_memory_key(url))
        return memory

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, (Page, str)):
            return False
        return _memory_key(item) in self._sent

    def __len__(self) -> int:
        return len(self._sent)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)}/{self._max_entries} sent)"

    def _remember(self, key: str) -> None:
        if key not in self._sent:
            self._sent[key] = None  # a key sent again keeps its age


def _memory_key(item: object) -> str:
    url = item.url if isinstance(item, Page) else item
    if not isinstance(url, str):
        raise TypeError(f"expected a Page or a URL string, got {item!r}")
    return urldefrag(url).url


__all__ = ["DEFAULT_FUTURE_SKEW", "DEFAULT_SENT_MEMORY_SIZE", "SentMemory", "is_candidate"]
