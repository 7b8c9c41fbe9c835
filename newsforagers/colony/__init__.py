"""Running a colony: in one process (:mod:`newsforagers.colony.local`), with its shared
per-host budget (:mod:`~newsforagers.colony.throttle`) and shared downloads
(:mod:`~newsforagers.colony.fetches`)."""

from newsforagers.colony.local import Colony

__all__ = ["Colony"]
