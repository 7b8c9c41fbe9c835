"""Mistakes of the person running a crawl, reported as one line instead of a traceback.

A bad ``FORAGERS_*`` setting or a bad spider argument (``-a seeds=notaurl``) raises
:class:`ForagersUsageError`, a ``ValueError`` whose message says what is wrong and how to give
it right. Raised while Scrapy creates the spider, it ends the crawl's asyncio task; Scrapy's
``AsyncCrawlerProcess`` (what ``scrapy crawl`` uses) does not retrieve that task's exception
(``scrapy/crawler.py``, ``_crawl_and_track``: "asyncio still logs it"), so asyncio reports it
through the event loop's exception handler — by default "Task exception was never retrieved"
and the whole traceback. :func:`report_usage_errors_in_one_line` sets an exception handler on
the running loop that logs a usage error as one ERROR line and passes every other exception on
to the handler that was there before; the crawl still fails (Scrapy's ``bootstrap_failed``, exit
status 1). A program that awaits the crawl itself still gets the exception.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

logger = logging.getLogger(__name__)


def install_hint(extra: str) -> str:
    """How to add an optional part: the package is installed from a checkout of its
    repository (it is not published on a package index), with the extra named."""
    return f"install newsforagers with its [{extra}] extra (in its checkout: pip install '.[{extra}]')"


class ForagersUsageError(ValueError):
    """A setting or argument the user got wrong; the message alone tells them how to fix it."""


class StoreUnavailable(RuntimeError):
    """A shared store did not answer for the whole retry window (its server down, the network
    cut, a wrong address): the message names the store, its password hidden, and what to check."""


#: What a crawl reports as one ERROR line: the message says all there is to do.
ONE_LINE_ERRORS = (ForagersUsageError, StoreUnavailable)


def _is_ours(handler: Any) -> bool:
    return getattr(handler, "_newsforagers_usage_errors", False)


def report_usage_errors_in_one_line() -> None:
    """On the running asyncio loop (none: nothing to do, the exception reaches the caller), log
    an unretrieved :class:`ForagersUsageError` (or :class:`StoreUnavailable`) as one ERROR line
    without its traceback.

    Idempotent: a second call on the same loop keeps the handler already there, so the
    handlers do not chain once per spider.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    previous = loop.get_exception_handler()
    if _is_ours(previous):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, ONE_LINE_ERRORS):
            logger.error("%s", error)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler._newsforagers_usage_errors = True  # type: ignore[attr-defined]
    loop.set_exception_handler(handler)


#: URL schemes whose "authority" is a path, never credentials (``sqlite:///a@b.db``).
_PATH_SCHEMES = frozenset({"sqlite", "file", "memory"})


def _split_credentials(url: str) -> tuple[str, str, str, str] | None:
    """``(scheme://, userinfo, "@", rest)`` of a URL whose scheme may carry credentials, the
    userinfo being everything up to the *last* ``@`` (a password may hold any character, ``/``,
    ``#``, ``?`` and ``@`` unencoded included: RFC 3986 would end the authority at the first of
    them, and a scan that does so leaves the rest of the password in the open); None when the
    URL has no userinfo."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() in _PATH_SCHEMES:
        return None
    userinfo, at, after = rest.rpartition("@")
    if not at:
        return None
    return f"{scheme}{sep}", userinfo, at, after


def url_secrets(url: str) -> set[str]:
    """Every spelling of the secrets a URL holds: the password of its userinfo (as written and
    decoded) and the value of each ``password=`` parameter. What a message must never show."""
    from urllib.parse import unquote

    if not isinstance(url, str):
        return set()
    secrets: set[str] = set()
    parts = _split_credentials(url)
    if parts is not None:
        _, userinfo, _, _ = parts
        user, colon, password = userinfo.partition(":")
        if colon and password:
            secrets.update({password, unquote(password)})
    _, question, query = url.partition("?")
    if question:
        for part in query.split("&"):
            name, equals, value = part.partition("=")
            if equals and name.lower() == "password" and value:
                value = value.partition("#")[0]
                secrets.update({value, unquote(value)})
    return {secret for secret in secrets if secret}


def mask_password(url: str) -> str:
    """``url`` with its password — in the user part, or a ``password=`` parameter — as ``***``,
    for messages, logs and pages; anything else as it was written, also in a URL too broken to
    parse. The URL is split, not scanned for a pattern: a password may hold any character
    (:func:`url_secrets`)."""
    if not isinstance(url, str):
        return url
    masked = url
    parts = _split_credentials(url)
    if parts is not None:
        scheme, userinfo, at, after = parts
        user, colon, _ = userinfo.partition(":")
        if colon:
            masked = f"{scheme}{user}:***{at}{after}"
    base, question, query = masked.partition("?")
    if question:
        query, hash_, fragment = query.partition("#")
        query = "&".join("password=***" if part.partition("=")[0].lower() == "password" else part
                         for part in query.split("&"))
        masked = f"{base}?{query}{hash_}{fragment}"
    return masked


def hide_secrets(text: str, *urls: str) -> str:
    """``text`` (an error's message, a log line) with every secret of ``urls`` as ``***``: a
    library's message may quote a URL, or a piece of one, its own way."""
    for secret in sorted({s for url in urls for s in url_secrets(url)}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


__all__ = ["ForagersUsageError", "StoreUnavailable", "hide_secrets", "mask_password",
           "report_usage_errors_in_one_line", "url_secrets"]
