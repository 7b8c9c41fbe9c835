"""The colony's shared state behind one interface.

What the reinforcing agent and the population need to agree on across foragers (and, with a
shared backend, across processes): which documents have been paid for (by canonical URL and
by content fingerprint), every forager's score, and per-URL records. ``claim`` is the one
operation that must be atomic: exactly one sender wins a document.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
from typing import Iterator, Sequence


@dataclass(frozen=True)
class DocumentRecord:
    """A novel document as the colony paid for it (times are ISO 8601 with offset)."""

    url: str
    title: str
    published: str
    found_at: str
    forager: str
    reward: float

    def to_dict(self) -> dict:
        return asdict(self)


class ColonyStore(ABC):
    """Seen documents, scores and per-URL records of one colony."""

    url: str = ""

    @abstractmethod
    def claim(self, keys: Sequence[str], record: DocumentRecord) -> bool:
        """Atomically: if none of ``keys`` was claimed before, claim them all for ``record``
        and return True; otherwise change nothing and return False."""

    @abstractmethod
    def is_claimed(self, key: str) -> bool: ...

    @abstractmethod
    def documents(self) -> Iterator[DocumentRecord]:
        """Every claimed document, in the order they were claimed."""

    @abstractmethod
    def document_count(self) -> int: ...

    @abstractmethod
    def get_score(self, forager: str) -> float | None: ...

    @abstractmethod
    def set_score(self, forager: str, score: float) -> None: ...

    @abstractmethod
    def add_score(self, forager: str, delta: float) -> float:
        """Add ``delta`` to a forager's score (which must exist); return the new score."""

    @abstractmethod
    def scores(self) -> dict[str, float]: ...

    @abstractmethod
    def get_url(self, url: str) -> dict | None:
        """The per-URL record (a JSON-able dict), or None."""

    @abstractmethod
    def put_url(self, url: str, record: dict) -> None:
        """Merge ``record``'s fields into the URL's record."""

    def close(self) -> None:  # noqa: B027 - optional for backends without resources
        """Release the backend's resources; the store is unusable afterwards."""
