"""What the colony's parts keep in the store, under which key, and the site's clock as read.

Every key a forager writes for another part of the colony to read (a split's hand-over, its
counters for the record, its host's stop mark, the site's clock) is named here, below the parts
that use them, so that none of them imports another for a key. No Scrapy, no I/O.
"""

from __future__ import annotations

from datetime import UTC, datetime

#: Store key of a forager's hand-over (what it is born with: half a weblog, weights).
HANDOVER = "handover/{name}"
#: Store key of a forager's last snapshot (its counters, for the colony's record).
SNAPSHOT = "snapshot/{name}"
#: Store key of the site's clock as the last forager to read it saw it.
SITE_CLOCK = "site_clock"
#: Store key set when a host ends its share of the colony: its foragers in other processes stop.
STOP = "colony/stop/{host}"


def handover_key(name: str) -> str:
    return HANDOVER.format(name=name)


def stop_key(host: str) -> str:
    return STOP.format(host=host)


def snapshot_key(name: str) -> str:
    return SNAPSHOT.format(name=name)


def site_reading(site: datetime, speed: float, wall: float) -> dict:
    """What the store keeps of a forager's reading of the site's clock: the site's time, the
    wall time (POSIX seconds) of the reading, and how fast the site's clock runs."""
    return {"site": site.timestamp(), "wall": wall, "speed": speed}


def site_time_now(reading: dict | None, wall: float) -> str | None:
    """The site's time at ``wall`` from a :func:`site_reading` (ISO 8601), or None."""
    if not reading:
        return None
    try:
        seconds = float(reading["site"]) + float(reading["speed"]) * max(0.0, wall - float(reading["wall"]))
        return datetime.fromtimestamp(seconds, UTC).isoformat()
    except (KeyError, TypeError, ValueError, OverflowError, OSError):
        return None
