"""A listing's items: ``(link, time)`` of each item of a front, tag page or archive that shows
one link and one ``<time>``, so that a crawler can tell old items from new ones without
downloading them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from parsel import Selector

from newsforagers.pages.dates import Window, parse_timestamp
from newsforagers.pages.links import resolve_link


def listed_items(base: str, selector: Selector, window: Window, max_items: int = 0,
                 resolved: Mapping[str, str | None] | None = None
                 ) -> tuple[tuple[str, datetime], ...]:
    """``(link, time)`` of a listing's items: the smallest element around a ``<time
    datetime>`` that holds a link, when it holds exactly one distinct link (resolved against
    ``base``, as the page's links are; ``resolved`` has the hrefs :func:`read_links` resolved).

    Items dated ahead of ``window`` are kept (an events calendar lists days months ahead):
    they are the listing's items all the same, which a crawler tells from its navigation, and
    a date ahead is never novel anyway; only dates before the window's floor are junk.

    At most ``max_items`` ``<time>`` elements are read (0: all), the first ones. Whatever the
    page's shape (items nested in items, thousands of links in one, 2,000 levels deep), it
    costs one pass over the anchors and one over the elements above the ``<time>`` elements.
    """
    listed: dict[str, datetime] = {}
    root = selector.root
    if root is None:
        return ()
    resolved = resolved or {}
    items_window = (window[0], datetime.max.replace(tzinfo=UTC))
    # Element proxies as keys: the dictionaries keep them alive, so lxml hands back the same
    # proxy for the same element (identity is equality).
    # Every element that holds a link: the distinct hrefs below it, two at most (an item with
    # two is no item). Built up from the anchors: an anchor's walk up stops at the first
    # ancestor that has its href already, or two, so no element changes more than twice.
    below: dict[Any, set[str]] = {}
    for anchor in root.iter("a"):
        href = anchor.get("href")
        if href is None:
            continue
        for ancestor in anchor.iterancestors():
            hrefs = below.get(ancestor)
            if hrefs is None:
                hrefs = below[ancestor] = set()
            elif href in hrefs or len(hrefs) > 1:
                break
            hrefs.add(href)
    # the smallest element holding a link around each element visited (None: none does);
    # every element is walked over once
    item_of: dict[Any, Any] = {}
    for n, time_element in enumerate(root.xpath("//body//time[@datetime]")):
        if max_items and n >= max_items:
            break
        when = parse_timestamp(time_element.get("datetime", ""), items_window)
        if when is None:
            continue
        path, node, item = [], time_element.getparent(), None
        while node is not None:
            if node in below:
                item = node
                break
            if node in item_of:
                item = item_of[node]
                break
            path.append(node)
            node = node.getparent()
        for node in path:
            item_of[node] = item
        if item is None or len(below[item]) != 1:
            continue
        href = next(iter(below[item]))
        link = resolved[href] if href in resolved else resolve_link(base, href)[0]
        if link is not None and link not in listed:
            listed[link] = when
    return tuple(listed.items())


__all__ = ["listed_items"]
