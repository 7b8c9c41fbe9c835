"""Values a crawled page gave us, made ready to show: never trusted, never turned into markup.

Everything here returns plain data (strings, numbers, lists of ``(text, marked)`` pairs);
the templates escape it (Jinja's autoescape) and the page's script puts it in text nodes.
"""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit

from newsforagers.colony.status import NONE, format_age, format_time, parse_time

# a match in an index snippet: "[" words "]" (the index's markers)
_MARK = re.compile(r"\[([^\[\]]*)\]")


def snippet_parts(snippet: str) -> list[tuple[str, bool]]:
    """Split an index snippet into ``(text, marked)`` parts: ``marked`` for the words the
    index put between ``[`` and ``]``; a bracket without its pair stays text. The parts are
    plain text, to be shown as text (a ``<mark>`` element around the marked ones)."""
    parts: list[tuple[str, bool]] = []
    start = 0
    for match in _MARK.finditer(snippet or ""):
        if match.start() > start:
            parts.append((snippet[start:match.start()], False))
        if match.group(1):
            parts.append((match.group(1), True))
        start = match.end()
    if start < len(snippet or ""):
        parts.append((snippet[start:], False))
    return parts


def http_url(url: object) -> str | None:
    """``url`` when it is an absolute http(s) URL (worth a link), else None: a crawled page
    may carry ``javascript:``, ``data:`` or stranger URLs, which are shown but never linked."""
    if not isinstance(url, str):
        return None
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    if any(ord(c) < 0x20 or c.isspace() for c in url):
        return None
    return url


def lag_seconds(published: object, found_at: object) -> float | None:
    """``found_at − published`` in seconds (how long the news waited to be found), or None
    when either time is missing or unreadable."""
    start, end = _time(published), _time(found_at)
    if start is None or end is None:
        return None
    return (end - start).total_seconds()


def format_lag(seconds: float | None) -> str:
    """A lag as ``3m12s`` (the status table's ages); a negative lag (a page dated after it
    was found: a clock or a date that lies) keeps its sign."""
    if seconds is None:
        return NONE
    if seconds < 0:
        return "-" + format_age(-seconds)
    return format_age(seconds)


def iso_time(value: object) -> str:
    """A time as the JSON shows it: ISO 8601 text (a datetime is written out; None is "")."""
    if isinstance(value, datetime):
        return value.isoformat()
    return "" if value is None else str(value)


def _time(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value
    return parse_time(value)


def day_of(value: object) -> str:
    """``YYYY-MM-DD`` of an ISO 8601 time as written (its own offset's day), or ""."""
    moment = _time(value)
    return moment.date().isoformat() if moment is not None else ""


def time_text(value: object) -> str:
    """An ISO 8601 time as ``YYYY-MM-DD HH:MM:SS UTC`` (``—`` when missing or unreadable)."""
    return format_time(_time(value))
