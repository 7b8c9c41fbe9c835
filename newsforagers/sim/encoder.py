"""The world's page states as a state encoder, so the simulator drives the crawler's own minds.

A mind (:class:`~newsforagers.strategies.paper.PaperMind`, :class:`~newsforagers.strategies.scheduled.ScheduledMind`)
featurises page texts with an encoder's ``transform`` (the PrTFIDF stand-in of
:mod:`newsforagers.text` in a crawl). The simulator hands the mind a page's URL as its text,
and this encoder answers with the world's state of that page.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


class WorldStates:
    """An :class:`~newsforagers.strategies.common.Encoder` whose texts are URLs of ``world``'s pages."""

    def __init__(self, world):
        self.world = world

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        return self.world.states(list(texts))
