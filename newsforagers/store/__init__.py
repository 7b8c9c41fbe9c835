"""Colony stores: ``memory://`` and ``sqlite:///path`` (the embedded default).

``open_store(url)`` builds one from its URL; building a store never touches the network.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from newsforagers.store.base import ColonyStore, DocumentRecord
from newsforagers.store.memory import MemoryStore
from newsforagers.store.sqlite import SQLiteStore

__all__ = ["ColonyStore", "DocumentRecord", "MemoryStore", "SQLiteStore", "open_existing_store", "open_store"]


def open_store(url: str, url_records_max: int = 0) -> ColonyStore:
    """``memory://`` or ``sqlite:///relative/or//absolute/path.db``; ``url_records_max`` caps
    the per-URL records (0: no cap)."""
    if not isinstance(url, str) or "://" not in url:
        raise ValueError(f"FORAGERS_STORE ({url!r}) must be a store URL: memory:// or sqlite:///PATH.")
    scheme = urlsplit(url).scheme
    if scheme == "memory":
        return MemoryStore(url, url_records_max)
    if scheme == "sqlite":
        path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else ""
        if not path:
            raise ValueError(f"FORAGERS_STORE ({url!r}) must name a file: sqlite:///PATH.")
        return SQLiteStore(path, url, url_records_max)
    raise ValueError(f"FORAGERS_STORE ({url!r}) has an unknown scheme {scheme!r}: "
                     "use memory:// or sqlite:///PATH.")


def open_existing_store(url: str) -> ColonyStore:
    """A store another process wrote, to read it (``newsforagers status``, ``export``):
    ``memory://`` lives only inside its colony's process, and a missing SQLite file is an
    error, not a new empty store. Raises ValueError with a message a person can act on."""
    import sqlite3
    from pathlib import Path

    if not isinstance(url, str) or "://" not in url:
        raise ValueError(f"{url!r} is not a store URL: give sqlite:///PATH.")
    if url.startswith("memory:"):
        raise ValueError(f"{url} lives only inside the colony's process; give a sqlite:///PATH store")
    if url.startswith("sqlite:"):
        path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else ""
        if not path:
            raise ValueError(f"store {url!r} must name a file: sqlite:///PATH")
        if not Path(path).is_file():
            raise ValueError(f"no store at {path} ({url})")
    try:
        store = open_store(url)
        store.document_count()
    except sqlite3.Error as exc:
        raise ValueError(f"cannot read store {url}: {exc}") from None
    return store
