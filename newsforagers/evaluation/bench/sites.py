"""A many-site benchmark's runs judged (``newsforagers bench --sites N``): one replay serves the
corpus as N sites of disjoint stories, each on its own loopback address and port, one request
log and one truth for all of them (docs/replay.md, "Many sites").

The measures of :func:`~newsforagers.evaluation.metrics.run_metrics` match a story by its path;
over many sites a path alone names no story (every site has a ``/``, and a crawler's item on
one host must not count for another's story), so every path is given its host first
(:func:`site_path`: ``/127.1.0.2:40123/2024/01/story/``) in the truth, the log and the items
(:func:`qualify`): then every measure matches stories by their full URL, host included, and
counts distinct pages per host. :class:`SitePages` shows the replay's pages of every site under
those paths, for the lag split.

Per site (:func:`site_measures`), over the run's window: recall, median and p90 lag, the
requests the replay served, and whether the site was down in the window (its profile's
``down`` windows: it refused connections, yet its stories still count). :func:`site_spread`
sums a run's sites up: min, median and max over the sites of their recall, median lag and
requests, and the recall over all sites and over the sites never down. Pure functions of
the records: the same files give the same numbers.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

from newsforagers.evaluation.lagsplit import page_links
from newsforagers.evaluation.metrics import (
    classify_items,
    percentile,
    run_requests,
    truth_times,
)

#: The keys of a run's ``site_spread`` (each crawler's ``sites`` in ``results.json`` maps them
#: to their mean ± std over its runs), in order.
SPREAD_KEYS = ("recall_all", "recall_live", "recall_min", "recall_median", "recall_max",
               "lag_median_min", "lag_median_median", "lag_median_max",
               "requests_min", "requests_median", "requests_max",
               "foragers_min", "foragers_median", "foragers_max", "main_share_median", "sites", "down_sites")


def site_path(host: str, path: str) -> str:
    """A path with its host first (``/HOST:PORT/PATH``): how a many-site benchmark names a page."""
    return f"/{host}{path}"


def split_site_path(qualified: str) -> tuple[str, str]:
    """``(host, path)`` of a :func:`site_path`."""
    host, slash, rest = qualified[1:].partition("/")
    return host, slash + rest


def qualify(truth: Iterable[Mapping], log: Iterable[Mapping], items: Iterable[Any]
            ) -> tuple[list[dict], list[dict], list[Any]]:
    """The truth, log and items with every path given its host (:func:`site_path`): a truth
    record's and a log record's by their ``host``, an item's URL by its own host and port. A
    record without a host (a replay of one site) and an item without a URL are left as they
    are (the measures then count them as they always do)."""
    def record(entry: Any) -> Any:
        if not isinstance(entry, Mapping):
            return entry
        host, path = entry.get("host"), entry.get("path")
        if not isinstance(host, str) or not isinstance(path, str):
            return dict(entry)
        return {**entry, "path": site_path(host, path)}

    def item(entry: Any) -> Any:
        url = entry.get("url") if isinstance(entry, Mapping) else None
        if not isinstance(url, str):
            return entry
        try:
            parts = urlsplit(url.strip())
        except ValueError:
            return entry
        if not parts.netloc:
            return entry
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return {**entry, "url": site_path(parts.netloc.lower(), path)}

    return [record(r) for r in truth], [record(r) for r in log], [item(i) for i in items]


def site_hosts(truth: Iterable[Mapping]) -> dict[int, str]:
    """Site number → its ``host`` (address:port) in this run, from the truth's records."""
    hosts: dict[int, str] = {}
    for record in truth:
        if not isinstance(record, Mapping):
            continue
        number, host = record.get("site"), record.get("host")
        if isinstance(number, int) and not isinstance(number, bool) and isinstance(host, str):
            hosts.setdefault(number, host)
    return dict(sorted(hosts.items()))


@dataclass(frozen=True)
class _Listing:
    """What a page of one site links to, as a list of qualified paths (the lag split reads a
    feed's ``<link>`` elements; the paths are quoted and the split unquotes them)."""

    status: int
    body: bytes
    content_type: str = "application/xml"


class SitePages:
    """The replay's pages of every site under qualified paths (:func:`site_path`), for
    :func:`~newsforagers.evaluation.lagsplit.lag_split`: ``get("/HOST/PATH", now)`` renders the
    page of that host's site and gives its links back with their host first."""

    def __init__(self, pages: Mapping[str, Any]):
        self.pages = dict(pages)  # host -> that site's PageBuilder

    def get(self, uri: str, now: float, host: str = "") -> Any:
        host, path = split_site_path(uri)
        pages = self.pages.get(host)
        if pages is None or not path:
            return _Listing(404, b"")
        page = pages.get(path, now, host)
        if getattr(page, "status", 200) != 200:
            return _Listing(page.status, b"")
        links = sorted(page_links(page.body, getattr(page, "content_type", None)))
        body = b"".join(b"<link>" + quote(site_path(host, link), safe="/:?=&").encode("ascii")
                        + b"</link>\n" for link in links)
        return _Listing(200, body)


def _overlaps(windows: Iterable[tuple[float, float]], start: float, end: float) -> bool:
    return any(a < end and start < b for a, b in windows)


def down_hosts(hosts: Mapping[int, str], down: Sequence[Sequence[tuple[float, float]]],
               replay_start: datetime, window: tuple[datetime, datetime] | None) -> set[str]:
    """The hosts whose site was down at some moment of ``window``: ``down[n]`` are site
    ``n``'s down windows, simulated seconds from the replay's start (its profile's, resolved)."""
    if window is None:
        return set()
    start = window[0].timestamp() - replay_start.timestamp()
    end = window[1].timestamp() - replay_start.timestamp()
    return {host for number, host in hosts.items()
            if number < len(down) and _overlaps(down[number], start, end)}


def site_measures(truth: Sequence[Mapping], log: Sequence[Mapping], items: Sequence[Any],
                  window: tuple[datetime, datetime] | None, *, down: Collection[str] = ()
                  ) -> dict[str, dict[str, Any]]:
    """Each site's measures over the run's ``window`` (host → ``site``, ``recall``,
    ``lag_median``, ``lag_p90``, ``requests``, ``window_articles``, ``found``, ``down``, and how
    a colony divided it: ``foragers``, the foragers that requested its pages, and
    ``main_share``, the share of their requests the busiest of them made; None without one;
    requests of no forager, Scrapy's robots.txt fetches, left out), from
    the run's raw files (its truth records carry ``host`` and ``site``): the definitions of
    :func:`~newsforagers.evaluation.metrics.run_metrics` (an item is matched to a story by its
    full URL; recall is the share of the site's stories published in the window output as
    truly novel; lags in simulated minutes) restricted to one site. ``down``: the hosts that
    were down in the window."""
    hosts = site_hosts(truth)
    truth_q, log_q, items_q = qualify(truth, log, items)
    times, _ = truth_times(truth_q)
    novel, _ = classify_items(items_q, times)
    found = {path: (published, found_at) for path, published, found_at in novel}
    requests, _ = run_requests(log_q)
    sites: dict[str, dict[str, Any]] = {}
    for number, host in hosts.items():
        sites[host] = {"site": number, "recall": None, "lag_median": None, "lag_p90": None,
                       "requests": 0, "window_articles": 0, "found": 0, "down": host in down,
                       "foragers": None, "main_share": None}
    if window is None:
        return sites
    start, end = window
    lags: dict[str, list[float]] = {host: [] for host in sites}
    for path, published in sorted(times.items()):
        host, _ = split_site_path(path)
        if host not in sites or not start <= published <= end:
            continue
        sites[host]["window_articles"] += 1
        if path in found:
            sites[host]["found"] += 1
            lags[host].append(max(0.0, (found[path][1] - found[path][0]).total_seconds() / 60.0))
    by_forager: dict[str, dict[Any, int]] = {host: {} for host in sites}
    for when, path, _, forager in requests:
        host, _ = split_site_path(path)
        if host in sites and start <= when <= end:
            sites[host]["requests"] += 1
            if forager is not None:  # (None: Scrapy's robots.txt middleware, no forager's)
                by_forager[host][forager] = by_forager[host].get(forager, 0) + 1
    for host, entry in sites.items():
        if entry["window_articles"]:
            entry["recall"] = entry["found"] / entry["window_articles"]
        entry["lag_median"] = percentile(lags[host], 50)
        entry["lag_p90"] = percentile(lags[host], 90)
        if by_forager[host]:
            entry["foragers"] = len(by_forager[host])
            entry["main_share"] = max(by_forager[host].values()) / sum(by_forager[host].values())
    return sites


def _spread(values: Iterable[Any]) -> tuple[float | None, float | None, float | None]:
    present = sorted(float(v) for v in values if v is not None)
    if not present:
        return None, None, None
    return present[0], percentile(present, 50), present[-1]


def site_spread(sites: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A run's sites summed up (``SPREAD_KEYS``): the recall over all sites' stories
    (``recall_all``) and over the stories of the sites never down in the window
    (``recall_live``; None when every site was down), and the min, median and max over the
    sites of their recall, median lag and requests (a site with no story in the window has no
    recall, one with no story found no lag: they are left out of those), of the foragers that
    read each site, the median of the busiest one's share of a site's requests (sites never
    read left out), and the numbers of sites and of sites down."""
    entries = list(sites.values())
    live = [e for e in entries if not e.get("down")]

    def recall(group: list[Mapping[str, Any]]) -> float | None:
        total = sum(e.get("window_articles") or 0 for e in group)
        return sum(e.get("found") or 0 for e in group) / total if total else None

    spread: dict[str, Any] = {"recall_all": recall(entries), "recall_live": recall(live)}
    for key in ("recall", "lag_median", "requests", "foragers"):
        low, middle, high = _spread(e.get(key) for e in entries)
        spread.update({f"{key}_min": low, f"{key}_median": middle, f"{key}_max": high})
    spread["main_share_median"] = _spread(e.get("main_share") for e in entries)[1]
    spread["sites"] = len(entries)
    spread["down_sites"] = len(entries) - len(live)
    return {key: spread[key] for key in SPREAD_KEYS}


__all__ = [
    "SPREAD_KEYS", "SitePages", "down_hosts", "qualify", "site_hosts", "site_measures",
    "site_path", "site_spread", "split_site_path",
]
