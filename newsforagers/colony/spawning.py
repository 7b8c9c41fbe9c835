"""``Spawning``: starting the colony's foragers — Alg. 9's first ones, the children of splits,
and on a resume every forager alive at the population's checkpoint, under its own name.

What a forager is born with (half a weblog, weights) goes through the store, as it would to
another process (``handover/NAME``, with the host whose share of the colony it is); the spawner
``FORAGERS_SPAWNER`` names starts it: a crawler of this process
(:class:`~newsforagers.colony.spawner.InProcessSpawner`), a process of its own
(:class:`~newsforagers.colony.spawner.ProcessSpawner`) or a scrapyd job
(:class:`~newsforagers.colony.scrapyd.ScrapydSpawner`). A forager started in this process is
handed the colony (its ``colony`` argument); it reads no other forager's objects.

The root's crawler starts the population once its engine has started
(:class:`~newsforagers.extensions.start.ColonyStartExtension`). Scheduled foragers are dealt
the seeds by host there (compartments: :func:`~newsforagers.learning.schedule.deal`); the
papers' all start from every seed.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from newsforagers.colony.keys import handover_key
from newsforagers.colony.scrapyd import ScrapydSpawner
from newsforagers.colony.spawner import InProcessSpawner, ProcessSpawner, Spawner
from newsforagers.config import ForagersConfig
from newsforagers.learning.schedule import deal, host_of
from newsforagers.scrapy_access import wake_engine

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class Spawning:
    """Starts the foragers of ``colony`` (this process's :class:`~newsforagers.colony.local.Colony`,
    which it hands to the foragers it starts in this process) through its spawner."""

    def __init__(self, colony: Any, spawner: Spawner | None = None):
        self.colony = colony
        config = colony.config
        self.spawner = spawner if spawner is not None else spawner_for(
            config, colony.root, self._started, self._ended, config.close_grace + 15.0)
        self.speed: float | None = None  # the site clock's speed (the root's -a speed)
        self.population_started = False

    def spawn(self, name: str, *, seeds: list[str], mode: str, parent: str | None = None,
              weblog: dict | None = None, weights: list[float] | None = None,
              energy: float | None = None, model: str | None = None, speed: float | None = None,
              resumed: bool = False, **event_fields: Any) -> bool:
        """Start forager ``name`` (``resumed``: again, after a stop; its own checkpoint, if any,
        wins over what it is given here). A child of a split has its place in the population
        already (:meth:`~newsforagers.colony.local.Colony.reserve_place`); False when it was
        not started."""
        colony = self.colony
        if colony.ending():  # a forager born while the colony closes would only delay its end
            if parent is not None:
                colony.store.leave(name, time.time())
            return False
        # what the forager is born with goes through the store, as it would to another process,
        # with the host whose share of the colony it is (its outputs, its stop)
        colony.store.put_value(handover_key(name), {"weblog": weblog, "weights": weights,
                                                    "host": colony.host_token})
        member = {"seeds": list(seeds), "mode": mode, "model": model, "parent": parent,
                  "weblog": weblog, "weights": weights}
        arguments: dict[str, Any] = {"seeds": ",".join(seeds), "mode": mode, "forager": name,
                                     "colony": colony}
        if model:
            arguments["model"] = model
        # the site's clock runs as fast for every forager as for the root
        speed = speed if speed is not None else self.speed
        if speed is not None:
            arguments["speed"] = speed
        colony.register(name, None, parent, energy, member=member, resumed=resumed)
        if parent is not None:
            colony.event("split", name, parent, **event_fields)
        self.spawner.start(name, arguments)
        return True

    def start_population(self, seeds: list[str], mode: str, model: str | None) -> list[str] | None:
        """Alg. 9 — the first ``FORAGERS_MIN − 1`` foragers beside the root — or, on a resume,
        every forager alive at the checkpoint, under its own id. Once per colony.

        The papers' foragers all start from every seed (Alg. 9). Scheduled ones, in the
        colony's first process, are dealt the seeds by host (:func:`deal`; every seed to each
        when the seeds are on fewer hosts than ``FORAGERS_MIN``): one forager polls a host.
        Returns the root's share of the seeds when they were dealt (the caller keeps the
        root's weblog to it), else None."""
        if self.population_started:
            return None
        self.population_started = True
        colony = self.colony
        membership, checkpoint, minimum = colony.membership, colony.checkpoint, colony.config.min
        saved = (checkpoint.resumed or {}).get("members")
        if saved is None:
            joining = bool(membership.host_number and membership.host_number > 1)
            shares = [list(seeds)] * max(1, minimum)
            if colony.config.strategy == "scheduled" and not joining and minimum > 1:
                shares = deal(seeds, minimum)
            for index in range(1, minimum):
                name = membership.new_id()
                # beside another host's foragers the population may be full already: the first
                # foragers take places within its bound as a split's child does
                if joining and not colony.reserve_place(name, membership.root_name):
                    break
                if not self.spawn(name, seeds=shares[index], mode=mode, model=model):
                    return None  # the colony ends: no share to keep
            if shares[0] != list(seeds):
                hosts = len({host_of(url) for url in seeds})
                logger.info("colony: %d seed(s) on %d host(s) dealt to %d scheduled forager(s) by host",
                            len(seeds), hosts, minimum)
                return shares[0]
            return None
        # foragers of other processes are not in membership.foragers: counted as started
        elsewhere = 0
        for name, member in saved.items():
            if member.get("root") or name in membership.foragers:
                continue
            membership.claim_id(name)
            elsewhere += bool(self.spawn(name, seeds=member.get("seeds") or seeds,
                                         mode=member.get("mode") or mode, model=member.get("model", model),
                                         weblog=member.get("weblog"), weights=member.get("weights"),
                                         resumed=True)) and not self.spawner.in_process
            checkpoint.members[name] = member  # as it was born (its parent, its first weblog)
        # stopped while the first foragers were starting: the rest of Alg. 9's MIN
        while len(membership.foragers) + elsewhere < minimum and not colony.stopping:
            if not self.spawn(membership.new_id(), seeds=seeds, mode=mode, model=model):
                break
            elsewhere += not self.spawner.in_process
        logger.info("colony: resumed from checkpoint %d with %d forager(s)", checkpoint.seq,
                    len(membership.foragers))

    def _started(self, name: str, handle: Any) -> None:
        # a crawler of this process (its lease is renewed here; it is never read by another
        # forager), or another process, which renews its own lease
        if self.spawner.in_process:
            self.colony.membership.foragers[name] = handle

    def _ended(self, name: str, error: BaseException | None) -> None:
        colony = self.colony
        if name in colony.membership.foragers or name in colony.checkpoint.members:
            # ended without retiring: stopped (shutdown, limits, no start URL)
            colony.event("stop", name, None)
        colony.unregister(name)
        if error is not None:
            logger.error("forager %s ended with an error: %r", name, error)
        if not colony.children_alive:
            # the root may be idle, kept open only for its children: let the engine see it
            wake_engine(colony.root)


def spawner_for(config: ForagersConfig, root: Crawler, on_started, on_ended, grace: float) -> Spawner:
    """The spawner ``FORAGERS_SPAWNER`` names."""
    if config.spawner == "scrapyd":
        return ScrapydSpawner.from_config(config, root, on_started, on_ended, grace)
    if config.spawner == "process":
        return ProcessSpawner(root, on_started, on_ended, grace)
    return InProcessSpawner(root, on_started, on_ended)
