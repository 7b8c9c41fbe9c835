"""``memory://``: the colony store in this process's memory (tests, throw-away runs)."""

from __future__ import annotations

from typing import Iterator, Sequence

from newsforagers.store.base import ColonyStore, DocumentRecord


class MemoryStore(ColonyStore):
    def __init__(self, url: str = "memory://"):
        self.url = url
        self._claims: set[str] = set()
        self._documents: list[DocumentRecord] = []
        self._scores: dict[str, float] = {}
        self._urls: dict[str, dict] = {}

    def claim(self, keys: Sequence[str], record: DocumentRecord) -> bool:
        if not keys:
            raise ValueError("a claim needs at least one key.")
        if any(key in self._claims for key in keys):
            return False
        self._claims.update(keys)
        self._documents.append(record)
        return True

    def is_claimed(self, key: str) -> bool:
        return key in self._claims

    def documents(self) -> Iterator[DocumentRecord]:
        return iter(list(self._documents))

    def document_count(self) -> int:
        return len(self._documents)

    def get_score(self, forager: str) -> float | None:
        return self._scores.get(forager)

    def set_score(self, forager: str, score: float) -> None:
        self._scores[forager] = float(score)

    def add_score(self, forager: str, delta: float) -> float:
        if forager not in self._scores:
            raise KeyError(f"forager {forager!r} has no score in the store.")
        self._scores[forager] += float(delta)
        return self._scores[forager]

    def scores(self) -> dict[str, float]:
        return dict(self._scores)

    def get_url(self, url: str) -> dict | None:
        record = self._urls.get(url)
        return None if record is None else dict(record)

    def put_url(self, url: str, record: dict) -> None:
        self._urls.setdefault(url, {}).update(record)
