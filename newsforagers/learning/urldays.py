"""The day a URL names (``/2024/03/05/slug``, ``/archive/2024-3-5``, ``?date=2024_03_05``): read by
the page reader (a page dated only by its URL, :mod:`newsforagers.pages.dates`) and by the
scheduled forager's weblog (a link to a day that has ended, today's day archive:
:mod:`newsforagers.learning.schedule`). Pure: a string in, a date out."""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit

# A 4-digit year, then month and day, separated by "/", "-" or "_".
_URL_DAY = re.compile(r"(?<![0-9])([0-9]{4})[/_-]([0-9]{1,2})[/_-]([0-9]{1,2})(?![0-9])")


def url_day(url: str) -> datetime | None:
    """00:00 (naive) of the first year-month-day date in ``url``'s path or query; None when it
    names none, names no valid day (``/2024/13/45/``, year 0000) or is no URL. The host is not
    asked: a digit run in a host name is not a date."""
    # A date needs digits: most URLs are done here.
    if not any(ch.isdigit() for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:  # "http://[::1" and other malformed URLs
        return None
    match = _URL_DAY.search(f"{parts.path}?{parts.query}")
    if match is None:
        return None
    try:
        return datetime(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None
