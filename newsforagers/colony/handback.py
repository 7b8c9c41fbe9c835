"""A retiring scheduled forager's listings, handed back to the colony through the store.

Compartments (issue 31): a scheduled forager polls the hosts it was dealt
(:func:`~newsforagers.learning.schedule.deal`) or inherited in a split. When it retires, its
listings — as learnt: rates, last visits, credits — go to one list in the store
(:data:`HANDBACK`), and the first live scheduled forager to look (its driver looks every
:data:`ADOPT_EVERY` seconds) takes the whole list over. Foragers share nothing but the store:
no forager is told; the list waits there until one takes it. Both steps are compare-and-swap
(:meth:`~newsforagers.store.ColonyStore.swap_value`), so two processes on Redis neither lose
nor duplicate a listing.
"""

from __future__ import annotations

import logging
from typing import Any

from newsforagers.store import ColonyStore

logger = logging.getLogger(__name__)

#: Store key of the listings retiring foragers handed back, waiting for a forager to adopt them.
HANDBACK = "colony/handback"
#: Wall seconds between two looks of a scheduled forager at the hand-back list.
ADOPT_EVERY = 1.0
#: Compare-and-swap attempts before giving up (other writers kept changing the list).
_TRIES = 50


def hand_back(store: ColonyStore, entries: list[dict], forager: str) -> bool:
    """Add ``entries`` (weblog entries as dictionaries) to the hand-back list. False (logged)
    when the list kept changing under this writer ``_TRIES`` times."""
    if not entries:
        return True
    for _ in range(_TRIES):
        current = store.get_value(HANDBACK)
        held = list((current or {}).get("entries") or [])
        handed = {"entries": held + list(entries), "from": list((current or {}).get("from") or []) + [forager]}
        if store.swap_value(HANDBACK, current, handed):
            return True
    logger.error("forager %s: could not hand back its %d listing(s): the store's list kept changing",
                 forager, len(entries))
    return False


def take_handed_back(store: ColonyStore) -> tuple[list[dict], list[Any]]:
    """Take every entry of the hand-back list (it is emptied): ``(entries, foragers that
    handed them)``; nothing when it is empty or another forager took it first."""
    current = store.get_value(HANDBACK)
    if not current or not current.get("entries"):
        return [], []
    if not store.swap_value(HANDBACK, current, None):
        return [], []
    entries = [e for e in current.get("entries") or [] if isinstance(e, dict)]
    return entries, list(current.get("from") or [])
