"""Colony stores: ``memory://``, ``sqlite:///path`` (the embedded default) and
``redis://[:password@]host:port/db`` (``rediss://`` for TLS), shared across machines.

``open_store(url)`` builds one from its URL; building a store never touches the network. The
Redis store needs redis-py (the ``[redis]`` extra), imported only when a Redis URL is opened.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from newsforagers import defaults
from newsforagers.errors import ForagersUsageError, install_hint
from newsforagers.store.base import ColonyStore, DocumentRecord, StoreUnavailable, mask_password
from newsforagers.store.memory import MemoryStore
from newsforagers.store.sqlite import NotAStore, SQLiteStore

__all__ = ["ColonyStore", "DocumentRecord", "MemoryStore", "NotAStore", "SQLiteStore", "StoreUnavailable",
           "open_existing_store", "open_store"]

_SCHEMES = "memory://, sqlite:///PATH, redis://[:password@]host:port/db or rediss://... (TLS)"
# Seconds ``open_existing_store`` waits for a Redis server: a person is waiting at a terminal.
_EXISTING_RETRY = 5.0


def _redis_store_class():
    try:
        from newsforagers.store.redis import RedisStore
    except ImportError as exc:
        if exc.name is None or exc.name.split(".")[0] != "redis":
            raise
        raise ImportError(f"FORAGERS_STORE=redis://... needs redis-py: {install_hint('redis')}") from None
    return RedisStore


def open_store(url: str, url_records_max: int = 0, *, prefix: str = defaults.FORAGERS_REDIS_PREFIX,
               retry: float = defaults.FORAGERS_STORE_RETRY, password_file: str = "") -> ColonyStore:
    """The store at ``url``: ``memory://``, ``sqlite:///relative/or//absolute/path.db``, or
    ``redis://[:password@]host:port/db`` / ``rediss://...`` (TLS). ``url_records_max`` caps the
    per-URL records (0: no cap); ``prefix`` starts every key of a Redis store, and ``retry``
    is how many seconds a Redis store retries a server that does not answer; ``password_file``
    holds a Redis store's password (``FORAGERS_STORE_PASSWORD_FILE``; the password may also come
    from the URL, ``$NEWSFORAGERS_STORE_PASSWORD`` or ``~/.netrc``: :mod:`newsforagers.store.secrets`)."""
    if not isinstance(url, str) or "://" not in url:
        raise ValueError(f"FORAGERS_STORE ({url!r}) must be a store URL: {_SCHEMES}.")
    scheme = urlsplit(url).scheme
    if scheme == "memory":
        return MemoryStore(url, url_records_max)
    if scheme == "sqlite":
        path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else ""
        if not path:
            raise ValueError(f"FORAGERS_STORE ({url!r}) must name a file: sqlite:///PATH.")
        return SQLiteStore(path, url, url_records_max)
    if scheme in ("redis", "rediss"):
        return _redis_store_class()(url, url_records_max, prefix=prefix, retry=retry,
                                    password_file=password_file)
    raise ValueError(f"FORAGERS_STORE ({mask_password(url)!r}) has an unknown scheme {scheme!r}: "
                     f"use {_SCHEMES}.")


def open_existing_store(url: str, prefix: str = defaults.FORAGERS_REDIS_PREFIX,
                        password_file: str = "") -> ColonyStore:
    """A store another process wrote, to read it (``newsforagers status``, ``export``,
    ``index``, the dashboard): ``memory://`` lives only inside its colony's process, a missing
    SQLite file is an error, not a new empty store, and so are a Redis server that does not
    answer (within a few seconds) and a prefix under which no colony wrote. An SQLite store is
    opened read-only (``SQLiteStore(read_only=True)``: never created, upgraded or switched to
    WAL; every write refused), and a file that is no colony store is :class:`NotAStore`. Raises
    ValueError with a message a person can act on (a Redis password hidden)."""
    import sqlite3
    from pathlib import Path

    if not isinstance(url, str) or "://" not in url:
        raise ValueError(f"{mask_password(url)!r} is not a store URL: give sqlite:///PATH or redis://host:port/db.")
    if url.startswith("memory:"):
        raise ValueError(f"{url} lives only inside the colony's process; give a sqlite:///PATH "
                         "or redis://host:port/db store")
    if url.startswith(("redis:", "rediss:")):
        return _existing_redis_store(url, prefix, password_file)
    if url.startswith("sqlite:"):
        path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else ""
        if not path:
            raise ValueError(f"store {url!r} must name a file: sqlite:///PATH")
        if not Path(path).is_file():
            raise ValueError(f"no store at {path} ({url})")
        try:
            store = SQLiteStore(path, url, read_only=True)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot read store {url}: {exc}") from None
        try:
            store.document_count()
        except sqlite3.Error as exc:
            store.close()
            raise ValueError(f"cannot read store {url}: {exc}") from None
        return store
    raise ValueError(f"{mask_password(url)!r} has an unknown scheme: give sqlite:///PATH or "
                     "redis://host:port/db.")


def _existing_redis_store(url: str, prefix: str, password_file: str = "") -> ColonyStore:
    try:
        store = open_store(url, prefix=prefix, retry=_EXISTING_RETRY, password_file=password_file)
    except (ImportError, ForagersUsageError) as exc:
        raise ValueError(str(exc)) from None
    import redis

    try:
        store.ping()
        if not store.has_colony():
            raise ValueError(f"no colony under the prefix {prefix!r} at {store.safe_url} "
                             "(give the colony's FORAGERS_REDIS_PREFIX with --prefix)")
    except StoreUnavailable as exc:
        store.close()
        raise ValueError(str(exc)) from None
    except redis.RedisError as exc:
        store.close()
        raise ValueError(f"cannot read store {store.safe_url}: {store.hide_password(str(exc))}") from None
    except ValueError:
        store.close()
        raise
    return store
