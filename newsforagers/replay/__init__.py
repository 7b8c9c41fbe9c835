"""The replay site: a news corpus served on 127.0.0.1 as a live site with an accelerated clock.

See ``docs/replay.md``. The public API::

    from newsforagers.replay import ReplaySite, SimClock, ManualWall, ReplayProcess
"""

from .clock import ManualWall, SimClock
from .process import ReplayProcess, parse_serving_line
from .server import ReplaySite

__all__ = ["ManualWall", "ReplayProcess", "ReplaySite", "SimClock", "parse_serving_line"]
