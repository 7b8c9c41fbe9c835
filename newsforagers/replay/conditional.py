"""Conditional requests as HTTP says (RFC 9110, Sect. 13): what the replay answers a GET or HEAD
that carries ``If-None-Match`` or ``If-Modified-Since``.

- ``If-None-Match`` is evaluated first; when a request carries it, ``If-Modified-Since`` is
  ignored (13.2.2). Its value is ``*`` (any current representation) or a list of entity-tags,
  compared weakly (13.1.2, 8.8.3.2: ``W/"x"`` matches ``"x"``). A value that is no such list
  matches nothing.
- ``If-Modified-Since`` is a single HTTP-date (5.6.7: IMF-fixdate, or the obsolete RFC 850 and
  asctime forms); a value that is not one, or more than one, is ignored (13.1.3). A two-digit
  year more than 50 years ahead of the site's clock is the last such year in the past.
- The condition is false — ``304 Not Modified`` — when a tag matches, or when the
  representation was not modified after the date.

HTTP dates have one-second resolution. The site declares ``Last-Modified`` as the second after
a change made within one (:func:`last_modified_value`: never after its ``Date``), and compares
a date with the change's exact time: a copy fetched in the second of a change is never called
current after it.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

_TAG = re.compile(rb'[ \t]*(?:W/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*')
_MONTHS = {m: i for i, m in enumerate(
    (b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec"), 1)}
_MONTH = rb"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_TIME = rb"(\d{2}):(\d{2}):(\d{2})"
_IMF_FIXDATE = re.compile(rb"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) " + _MONTH + rb" (\d{4}) " + _TIME
                          + rb" GMT")
_RFC850 = re.compile(rb"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-" + _MONTH
                     + rb"-(\d{2}) " + _TIME + rb" GMT")
_ASCTIME = re.compile(rb"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) " + _MONTH + rb" ([ \d]\d) " + _TIME + rb" (\d{4})")


def entity_tags(value: bytes) -> list[bytes] | None:
    """The opaque tags of an ``If-None-Match`` list (``W/`` dropped: the comparison is weak),
    ``[b"*"]`` for ``*``, or None when ``value`` is not such a list."""
    if value.strip(b" \t") == b"*":
        return [b"*"]
    tags, position = [], 0
    while position < len(value):
        if value[position:position + 1] in (b",", b" ", b"\t"):  # empty list elements and OWS
            position += 1
            continue
        match = _TAG.match(value, position)
        if match is None:
            return None
        tags.append(match.group(1))
        position = match.end()
        if position < len(value) and value[position:position + 1] != b",":
            return None
    return tags


def http_date(value: bytes, now: float) -> float | None:
    """POSIX seconds of an HTTP-date, or None for anything else (a list of dates included).
    ``now`` (the site's clock) resolves an RFC 850 two-digit year."""
    value = value.strip(b" \t")
    if match := _IMF_FIXDATE.fullmatch(value):
        day, month, year, hour, minute, second = match.groups()
    elif match := _ASCTIME.fullmatch(value):
        month, day, hour, minute, second, year = match.groups()
    elif match := _RFC850.fullmatch(value):
        day, month, year, hour, minute, second = match.groups()
        this_year = datetime.fromtimestamp(now, UTC).year
        full = this_year - this_year % 100 + int(year)
        year = str(full - 100 if full > this_year + 50 else full).encode()
    else:
        return None
    leap = int(second) == 60  # a leap second, which an HTTP-date may carry
    try:
        moment = datetime(int(year), _MONTHS[month], int(day), int(hour), int(minute),
                          int(second) - leap, tzinfo=UTC)
    except ValueError:  # 30 February, 25:00...
        return None
    return moment.timestamp() + leap


def not_modified(if_none_match: list[bytes], if_modified_since: list[bytes], etag: bytes,
                 modified: float | None, now: float) -> bool:
    """Whether a GET or HEAD of a current representation (tagged ``etag``, last modified at
    ``modified``, simulated POSIX seconds, None: unknown) is answered 304, given the request's
    ``If-None-Match`` and ``If-Modified-Since`` header lines (each a list: a field sent on
    several lines is one list)."""
    if if_none_match:
        tags = entity_tags(b",".join(if_none_match))
        if tags is None:
            return False
        opaque = etag[2:] if etag.startswith(b"W/") else etag
        return tags == [b"*"] or opaque in tags
    if len(if_modified_since) != 1 or modified is None:
        return False
    since = http_date(if_modified_since[0], now)
    return since is not None and modified <= since


def last_modified_value(modified: float, now: float) -> int:
    """The ``Last-Modified`` to declare (POSIX seconds) for a change at ``modified``: its second
    rounded up, so that no change is hidden in the second a date names — but never later than
    the response's ``Date`` (RFC 9110 8.8.2.1), the second of ``now``."""
    return min(math.ceil(modified), math.floor(now))
