"""Where the index of a colony store lives when nobody says: :func:`default_index_path`.

The colony (``FORAGERS_INDEX`` empty), ``newsforagers index`` and ``newsforagers search
--store`` all find it here, so a person who knows the store knows the index.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import urlsplit

from newsforagers.store.secrets import without_password

#: The folder of the indexes of stores that are no file (``memory://``, ``redis://``), relative
#: to the working directory as the default store is.
INDEX_DIR = Path(".newsforagers") / "index"
SUFFIX = ".index.sqlite"


def default_index_path(store_url: str, prefix: str) -> Path:
    """The index file of the colony store at ``store_url`` (``prefix``: its Redis key prefix).

    * ``sqlite:///PATH``: beside the store, ``colony.db`` → ``colony.index.sqlite`` in the same
      folder (a store and its index move together);
    * ``redis://[:password@]host:port/db`` (``rediss://`` too):
      ``.newsforagers/index/redis-HOST-PORT-DB-PREFIX.index.sqlite``, the prefix written with
      letters, digits, ``.``, ``_`` and ``-`` only and followed by a short hash of itself, so that
      two prefixes never share a file; no password, and a user name neither;
    * ``memory://[NAME]``: ``.newsforagers/index/memory[-NAME].index.sqlite`` (the store ends with
      its process; the index stays, and the next colony's documents join it).

    Raises ValueError for a URL that is no store URL."""
    if not isinstance(store_url, str) or "://" not in store_url:
        raise ValueError(f"{store_url!r} is not a store URL: give sqlite:///PATH, redis://host:port/db "
                         "or memory://")
    if store_url.startswith("sqlite:"):
        path = store_url[len("sqlite:///"):] if store_url.startswith("sqlite:///") else ""
        if not path:
            raise ValueError(f"store {store_url!r} must name a file: sqlite:///PATH")
        store = Path(path)
        return store.with_name(f"{store.stem if store.suffix else store.name}{SUFFIX}")
    # (credentials out first: a password may hold "/" or "#", which would end the host early
    # and put a piece of the password in the file's name)
    parts = urlsplit(without_password(store_url))
    if parts.scheme == "memory":
        name = _safe(parts.netloc + parts.path)
        return INDEX_DIR / f"memory{'-' + name if name else ''}{SUFFIX}"
    if parts.scheme in ("redis", "rediss"):
        try:
            port = parts.port or 6379
        except ValueError:
            raise ValueError(f"store {parts.scheme}://{parts.hostname}... has a bad port") from None
        db = parts.path.strip("/") or "0"
        digest = hashlib.blake2b(prefix.encode("utf-8"), digest_size=3).hexdigest()
        fields = [parts.scheme, parts.hostname or "localhost", str(port), db, _safe(prefix), digest]
        return INDEX_DIR / f"{'-'.join(_safe(f) for f in fields if f)}{SUFFIX}"
    raise ValueError(f"store URL with an unknown scheme {parts.scheme!r}: give sqlite:///PATH, "
                     "redis://host:port/db or memory://")


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._]+", "_", text).strip("._")
