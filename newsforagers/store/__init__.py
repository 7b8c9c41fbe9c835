"""Colony stores: ``memory://`` and ``sqlite:///path`` (the embedded default).

``open_store(url)`` builds one from its URL; building a store never touches the network.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from newsforagers.store.base import ColonyStore, DocumentRecord
from newsforagers.store.memory import MemoryStore
from newsforagers.store.sqlite import SQLiteStore

__all__ = ["ColonyStore", "DocumentRecord", "MemoryStore", "SQLiteStore", "open_store"]


def open_store(url: str) -> ColonyStore:
    """``memory://`` or ``sqlite:///relative/or//absolute/path.db``."""
    if not isinstance(url, str) or "://" not in url:
        raise ValueError(f"FORAGERS_STORE ({url!r}) must be a store URL: memory:// or sqlite:///PATH.")
    scheme = urlsplit(url).scheme
    if scheme == "memory":
        return MemoryStore(url)
    if scheme == "sqlite":
        path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else ""
        if not path:
            raise ValueError(f"FORAGERS_STORE ({url!r}) must name a file: sqlite:///PATH.")
        return SQLiteStore(path, url)
    raise ValueError(f"FORAGERS_STORE ({url!r}) has an unknown scheme {scheme!r}: "
                     "use memory:// or sqlite:///PATH.")
