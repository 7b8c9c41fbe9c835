"""The driver: the only door between Scrapy and a forager's mind (:mod:`newsforagers.strategies`).

The scheduler asks it for the next request (and, for the papers' forager, whether the step
barrier holds); the spider's callbacks hand it what pages say (:meth:`Driver.step_page`,
:meth:`Driver.page`, ...); the reinforcing agent's ``reward_received`` signal comes back
through it; the extensions, the pipeline and the download handler ask it (:attr:`Driver.retired`,
:meth:`Driver.split_child`, :meth:`Driver.teleport`, ...). Nobody reaches through it to the mind.
It turns the mind's URLs into Scrapy requests (built by the spider, which knows the callbacks),
its counters into stats, and keeps its long-term memory in ``spider.state`` (persisted by
Scrapy's SpiderState extension under JOBDIR when the spider closes).

A crash never closes the spider, so with JOBDIR the driver also writes checkpoints
(``JOBDIR/forager.json``, atomically, see :mod:`newsforagers.colony.checkpoint`): when a path
ends, every ``FORAGERS_CHECKPOINT_INTERVAL`` seconds (the colony asks) and on close. A bootstrapped
state encoder is saved once beside it (``encoder.joblib``): the weights and the path's state
rows mean something only with the encoder that made them. On start the newest valid checkpoint
is restored — weblog, weights, sent memory, counters, the path and its frontier, the step in
progress (walked again) — else the spider state of a clean stop.

The package: :mod:`.base` (the door's shared half, state and stats, the root's closing of
the colony), :mod:`.checkpoints` (threaded checkpoints, the encoder's saving, resuming),
:mod:`.paper` and :mod:`.scheduled` (each strategy's requests and pages), :mod:`.build`
(a mind and its driver from the spider's arguments: the only place outside the strategies
that names them).
"""

from newsforagers.driver.base import Driver
from newsforagers.driver.build import build_driver
from newsforagers.driver.checkpoints import STATE_KEY
from newsforagers.driver.paper import PaperDriver
from newsforagers.driver.scheduled import LISTING_FIELD, LISTING_KEY, ScheduledDriver
from newsforagers.strategies.common import MODES  # the forager modes, for the spider's check of -a mode

__all__ = ["LISTING_FIELD", "LISTING_KEY", "MODES", "STATE_KEY", "Driver", "PaperDriver", "ScheduledDriver",
           "build_driver"]
