"""A colony's log: lines that say which forager they belong to, one start-up banner, and
the page-reading libraries kept quiet.

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
extensions", "Overridden settings"), which carry no spider. Those are the first forager's only:
:class:`OneStartupBanner` drops a child forager's (:func:`one_startup_banner`, called as its
spider is made), which would repeat the root's for every split.

:func:`set_library_log_level` keeps the DEBUG lines of the libraries a forager reads pages with
(trafilatura, htmldate ...) out of the log unless ``FORAGERS_LIBRARY_LOG_LEVEL`` asks for them.
"""

from __future__ import annotations

import contextvars
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


# -- one start-up banner per colony -----------------------------------------------------------

#: What Scrapy logs while it builds a crawler (``scrapy/addons.py``, ``scrapy/middleware.py``,
#: ``scrapy/crawler.py``, ``scrapy/utils/log.py``): the logger and the message, before its
#: arguments. The process's own banner ("Scrapy 2.x started", "Versions") is logged once by
#: ``CrawlerProcess`` already, never by the ``AsyncCrawlerRunner`` that starts a forager; the
#: telnet console's line is not here since a child forager has none (its spawner's settings).
STARTUP_LINES = frozenset({
    ("scrapy.addons", "Enabled addons:\n%(addons)s"),
    ("scrapy.middleware", "Enabled %(componentname)ss:\n%(enabledlist)s"),
    ("scrapy.crawler", "Overridden settings:\n%(settings)s"),
    ("scrapy.utils.log", "Using reactor: %s.%s"),
    ("scrapy.utils.log", "Using asyncio event loop: %s.%s"),
})

# Whether the crawler being started in this context is a child forager of a colony of this
# process. A context variable, not a flag: each crawl of Scrapy's AsyncCrawlerRunner runs in an
# asyncio task of its own, whose context is a copy, so what a forager's crawl sets here is seen by
# its own start-up and nowhere else — not by its parent, nor by another colony's root started
# later in the same process, which sets its own.
_CHILD_FORAGER = contextvars.ContextVar("newsforagers_child_forager", default=False)


class OneStartupBanner(logging.Filter):
    """Drops Scrapy's start-up lines (:data:`STARTUP_LINES`) of a child forager's crawler.

    A colony runs one crawler per forager in one process, built from the root's settings, so
    each child's "Enabled extensions", "Overridden settings" ... would repeat the root's (with a
    JOBDIR of its own and no feed). A filter on the loggers that log them, not on a handler:
    Scrapy replaces its root handler whenever a crawler is made. It holds no state: whose
    start-up a record belongs to is in the context it is logged from."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_CHILD_FORAGER.get() and (record.name, record.msg) in STARTUP_LINES)


def one_startup_banner(child: bool) -> None:
    """Say whether the forager whose crawler is starting in the current context (its crawl's
    task: its spider is made first, before Scrapy logs its start-up) is a child of a colony of
    this process (``True``: its start-up lines are dropped) or the first forager of one, whose
    lines are the colony's banner; and put :class:`OneStartupBanner` on the loggers, once.

    A forager in a process of its own (``FORAGERS_SPAWNER=process`` or ``scrapyd``) is no child
    here: it is a Scrapy process of its own and logs its start-up as any does (where the root's
    settings say with ``process``, in its job's log with scrapyd)."""
    _CHILD_FORAGER.set(child)
    for name in sorted({name for name, _ in STARTUP_LINES}):
        startup_logger = logging.getLogger(name)
        if not any(isinstance(f, OneStartupBanner) for f in startup_logger.filters):
            startup_logger.addFilter(OneStartupBanner())


# -- the libraries a forager reads pages with -----------------------------------------------------

#: The loggers of the libraries a forager reads pages with that log at DEBUG while it reads them:
#: trafilatura and htmldate in every crawl of the replays (several lines an article; htmldate
#: where a page's date must be searched for), and charset_normalizer, courlan and py3langid in
#: calls they or the forager make (an encoding to detect, a URL to check, the language model
#: loaded). Each name covers its library's modules (``trafilatura.main_extractor`` ...).
LIBRARY_LOGGERS = ("trafilatura", "htmldate", "courlan", "charset_normalizer", "py3langid")


def set_library_log_level(level: str) -> None:
    """Log the page-reading libraries (:data:`LIBRARY_LOGGERS`) at ``level`` and above
    (``FORAGERS_LIBRARY_LOG_LEVEL``: their DEBUG lines, several per article, drown a crawl's own
    at Scrapy's default DEBUG level).

    A logger's level belongs to the process, not to a crawler: the last forager to start in a
    process sets it, for every crawler of the process. The foragers of one colony share the
    root's settings and so agree; a process of its own (``FORAGERS_SPAWNER=process``, scrapyd)
    sets its own."""
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(level.upper())
