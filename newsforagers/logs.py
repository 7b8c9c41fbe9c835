"""Log lines that say which forager they belong to.

A colony runs one Scrapy crawler per forager in one process, and every crawler logs the same
lines ("Crawled (200) ...", "Closing spider", the stats dump): without a tag, a person cannot
tell whose they are. Scrapy attaches the spider to most of its records (``extra={"spider":
spider}``); :class:`ForagerTag` prefixes those of a forager with ``[f3]``. It is a filter on the
root logger's handlers, where Scrapy installs its own handler (and installs it again when a
crawler starts): :func:`tag_forager_logs` puts it back, once per handler, whenever a forager's
engine is built (the reinforcing agent's ``from_crawler``: the add-on requires it in every
forager's crawler), after Scrapy's last reinstall for that crawler. The filter holds no state:
one per handler, whatever the colony.

Not tagged: the lines a crawler logs while it is built, before its spider exists ("Enabled
extensions", "Overridden settings"), which carry no spider; a child forager's follow at once
the colony's ``colony: split f3 (parent f1)`` line.
"""

from __future__ import annotations

import logging


class ForagerTag(logging.Filter):
    """Prefixes ``[<forager id>] `` to records whose ``spider`` is a forager."""

    def filter(self, record: logging.LogRecord) -> bool:
        spider = getattr(record, "spider", None)
        name = getattr(spider, "forager_id", None)
        if name and not getattr(record, "forager_tagged", False):
            # records are shared by every handler: tag once; a literal % would be read as a
            # format directive
            record.msg = f"[{str(name).replace('%', '%%')}] {record.msg}"
            record.forager_tagged = True
        return True


def tag_forager_logs() -> None:
    """Make sure every handler of the root logger tags forager records."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, ForagerTag) for f in handler.filters):
            handler.addFilter(ForagerTag())
