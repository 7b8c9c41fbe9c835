"""A page's publication date: explicit publication markup first (``meta``, JSON-LD,
``<time>``), then htmldate's heuristics, then a date in the page's URL, each counted only inside
the dates plausible at the site's clock (:func:`date_window`). A page with several dated items
and no date of its own is a listing, and undated."""

from __future__ import annotations

import json
import logging
from collections import deque
from copy import deepcopy
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from htmldate import find_date
from parsel import Selector

from newsforagers.learning.urldays import url_day

logger = logging.getLogger(__name__)

#: How far before the site's clock a publication date is still plausible: 30 years (of 365.25
#: days). A date is only ever compared with a 24-hour window, so an old true date and no date
#: lead to the same decision (not sent); what the floor has to catch is junk, and junk dates
#: are template zeros (0001-01-01, 1753-01-01, 1900-01-01, the Unix epoch 1970-01-01) that lie
#: further back than that from any site's clock worth crawling. Seen from today, 30 years is
#: htmldate's own fixed floor (1995-01-01), so a live site reads as it did with htmldate's
#: defaults, while a replay of a 1987 newswire, read on its own clock, is dated.
DATE_PAST_REACH = timedelta(days=10_958)

#: How far ahead of the site's clock a publication date is still read. A page dated a little
#: ahead is not junk: clocks drift, a local time labelled UTC is up to 14 hours ahead, stories
#: are scheduled, "announced for next week". Such pages are returned with their date so that
#: :func:`~newsforagers.pages.policy.is_candidate` refuses them and the spider counts them as
#: future-dated (beyond ``FORAGERS_FUTURE_SKEW``). Further ahead than a month, a date is a
#: placeholder ("2099", "9999-12-31") or the date of an event the page announces; htmldate,
#: which finds dates in bylines and text, would also start taking event dates for publication
#: dates if it were allowed much further (its default ceiling is the end of today).
DATE_FUTURE_REACH = timedelta(days=30)


_HTMLDATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"

# Only publication markers: modified dates ("article:modified_time", "dateModified") would
# make an old story look new after a typo fix.
_META_PUBLISHED_XPATH = (
    "//meta[@property='article:published_time' or @name='article:published_time']/@content"
    " | //*[@itemprop='datePublished']/@content"
    " | //*[@itemprop='datePublished']/@datetime"
)
_TIME_MARKED_XPATH = (
    "//time[@datetime][@pubdate or starts-with(@class, 'entry-date')"
    " or contains(@class, 'published')]/@datetime"
)
_TIME_CONTENT_XPATH = "//article//time/@datetime | //main//time/@datetime"
_TIME_ANY_XPATH = (
    "//body//time[not(ancestor::nav or ancestor::aside or ancestor::footer)]/@datetime"
)
# A page's footer (not an article's own: that may carry its byline and date).
_PAGE_FOOTER_XPATH = (
    "//footer[not(ancestor::article or ancestor::main)]"
    " | //*[@role='contentinfo' or @id='footer'][not(ancestor::article or ancestor::main)]"
)
_JSON_LD_XPATH = "//script[@type='application/ld+json']/text()"
# A JSON-LD block is walked breadth-first up to this many nodes: enough for any real
# article's metadata, and a bound on hostile or huge blocks.
_JSON_LD_MAX_NODES = 2_000


def date_window(now: datetime | None = None) -> tuple[datetime, datetime]:
    """``(earliest, latest)``: the publication dates plausible at the site's time ``now``.

    From the start of the UTC day :data:`DATE_PAST_REACH` before ``now`` to the end of the
    UTC day :data:`DATE_FUTURE_REACH` after it, both aware UTC and inclusive; clamped to
    what ``datetime`` can hold. Whole days, so that htmldate's validation caches (keyed on
    its bounds) serve a whole simulated day. ``now=None`` is the system clock. Raises
    TypeError for a ``now`` that is not a datetime, ValueError for a naive one.
    """
    if now is None:
        now = datetime.now(UTC)
    elif not isinstance(now, datetime):
        raise TypeError(f"now ({now!r}) must be a datetime or None.")
    elif now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now ({now!r}) must be timezone-aware: it is the site's clock.")
    try:
        now = now.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"now ({now!r}) has no UTC equivalent (past the year 1 or 9999).") from None
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    try:
        earliest = day - DATE_PAST_REACH
    except OverflowError:
        earliest = datetime.min.replace(tzinfo=UTC)
    try:
        latest = day + DATE_FUTURE_REACH + timedelta(days=1, microseconds=-1)
    except OverflowError:
        latest = datetime.max.replace(tzinfo=UTC)
    return earliest, latest


# The plausible publication dates of a page being read: date_window's (earliest, latest).
Window = tuple[datetime, datetime]


def publication_date(url: str, selector: Selector,
                     window: Window) -> tuple[datetime | None, str | None]:
    """The publication time and where it was found, inside ``window``.

    htmldate 1.11 keeps the time of day and the offset when its source has them, but it
    answers from a date in the page's canonical URL before it looks at the page's metadata,
    which turns "14:30+02:00" into midnight. So explicit full timestamps from publication
    markers come first, then htmldate's answer, then a date in the page's own URL.
    """
    for source, candidates in (
        ("meta", _meta_values),
        ("json-ld", _json_ld_published),
        ("time", _time_values),
    ):
        values = candidates(selector)
        if source == "time" and _is_listing(selector, values):
            # Several dated items and no page-level date: a front, a tag page or an
            # archive. Its newest item's date is not its publication date, and neither is
            # a date in its URL (/archive/2024/01/02/), so htmldate is not asked either.
            return None, "listing"
        for value in values:
            published = parse_timestamp(value, window)
            if published is not None:
                return published, source
    root = selector.root
    if root is not None:
        published = _htmldate(root, window)
        if published is not None:
            return published, "htmldate"
    published = _url_date(url, window)
    if published is not None:
        return published, "url"
    return None, None


def _is_listing(selector: Selector, time_values: list[str]) -> bool:
    if not time_values or selector.xpath(_TIME_MARKED_XPATH):
        return False
    if len(set(time_values)) >= 2:
        return True
    # a single dated item of a list (a front with one story so far) dates the item, not the page
    return not selector.xpath("//body//time[@datetime][not(ancestor::li)]")


def _meta_values(selector: Selector) -> list[str]:
    return selector.xpath(_META_PUBLISHED_XPATH).getall()


def _time_values(selector: Selector) -> list[str]:
    # <time> elements in boxes of other stories ("most read", "related") carry those
    # stories' dates; marked publication times and times inside the article come first.
    for xpath in (_TIME_MARKED_XPATH, _TIME_CONTENT_XPATH, _TIME_ANY_XPATH):
        values = selector.xpath(xpath).getall()
        if values:
            return values
    return []


def _json_ld_published(selector: Selector) -> list[str]:
    values: list[str] = []
    for block in selector.xpath(_JSON_LD_XPATH).getall():
        try:
            data = json.loads(block)
        except (ValueError, RecursionError):
            continue
        queue: deque[Any] = deque([data])
        visited = 0
        while queue and visited < _JSON_LD_MAX_NODES:
            node = queue.popleft()
            visited += 1
            if isinstance(node, dict):
                value = node.get("datePublished")
                if isinstance(value, str):
                    values.append(value)
                elif isinstance(value, list):
                    values.extend(v for v in value if isinstance(v, str))
                queue.extend(v for v in node.values() if isinstance(v, (dict, list)))
            elif isinstance(node, list):
                queue.extend(v for v in node if isinstance(v, (dict, list)))
    return values


def parse_timestamp(value: str, window: Window) -> datetime | None:
    """An ISO 8601 or RFC 2822 timestamp with a time of day, as aware UTC inside ``window``;
    else None.

    A bare date is not a full timestamp: it is left to htmldate, which weighs it against
    the page's other date cues.
    """
    value = value.strip()
    if not value:
        return None
    try:
        date.fromisoformat(value)
        return None
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        # Some sites write HTTP-style dates ("Tue, 05 Mar 2024 14:30:00 GMT"), of which
        # htmldate keeps only the day. Without a colon there is no time of day to gain.
        if ":" not in value:
            return None
        try:
            parsed = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
    return _as_utc(parsed, window)


def _as_utc(parsed: datetime, window: Window) -> datetime | None:
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        parsed = parsed.astimezone(UTC)
    except OverflowError:
        return None
    earliest, latest = window
    if not earliest <= parsed <= latest:
        return None
    return parsed


def _htmldate(root: Any, window: Window) -> datetime | None:
    # A parsed tree, never a string: htmldate downloads a str argument that looks like a URL.
    # Given a tree it prunes a deep copy, so the caller's (e.g. response.selector) is intact.
    # The page's footer is not asked: a date there is the site's ("updated 10:32", "© 2026",
    # a render time), on every page, old or new, and would make every page look fresh.
    footers = root.xpath(_PAGE_FOOTER_XPATH)
    if footers:
        root = deepcopy(root)
        for footer in root.xpath(_PAGE_FOOTER_XPATH):
            parent = footer.getparent()
            if parent is not None:
                parent.remove(footer)
    earliest, latest = window
    try:
        found = find_date(
            root,
            original_date=True,
            extensive_search=False,
            outputformat=_HTMLDATE_FORMAT,
            # Its defaults are 1995-01-01 and the end of the system's today: a 1987 replay
            # or a clock ahead of the system's would read as undated. Naive, as the dates
            # htmldate parses mostly are (its range check compares POSIX timestamps).
            min_date=earliest.replace(tzinfo=None),
            max_date=latest.replace(tzinfo=None),
        )
    except Exception:  # noqa: BLE001 - heuristics over arbitrary web pages: no date, no crash
        logger.debug("htmldate failed on a page", exc_info=True)
        return None
    return _parse_htmldate(found, window)


def _url_date(url: str, window: Window) -> datetime | None:
    """00:00 UTC of a year-month-day date in the URL's path or query, inside ``window``.

    Not htmldate's URL reader: its patterns only know the years 1990-2039.
    """
    found = url_day(url)
    return None if found is None else _as_utc(found, window)


def _parse_htmldate(found: str | None, window: Window) -> datetime | None:
    if not found:
        return None
    try:
        # With our output format htmldate writes "+0200" when its source had an offset and
        # nothing when it did not (a bare date comes back as "T00:00:00").
        parsed = datetime.fromisoformat(found)
    except ValueError:
        return None
    return _as_utc(parsed, window)


__all__ = [
    "DATE_FUTURE_REACH", "DATE_PAST_REACH", "Window", "date_window", "parse_timestamp",
    "publication_date",
]
