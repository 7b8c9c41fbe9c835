"""``memory://``: the colony store in this process's memory (tests, throw-away runs).

Claims expire and per-URL records are capped as in every store; the documents list is the
colony's output and grows with it (use ``sqlite:///`` for long runs: it keeps them on disk).
``claim_urls`` is the base class's, one claim after the other: nothing else runs in between
(the store lives in one process, on one thread).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Iterator, Sequence

from newsforagers.store.base import ColonyStore, DocumentRecord


class MemoryStore(ColonyStore):
    def __init__(self, url: str = "memory://", url_records_max: int = 0):
        self.url = url
        self.url_records_max = url_records_max
        self._claims: dict[str, float | None] = {}  # key -> publication time (None: for ever)
        self._documents: list[DocumentRecord] = []
        self._scores: dict[str, float] = {}
        self._urls: OrderedDict[str, dict] = OrderedDict()  # least recently written first

    def claim(self, keys: Sequence[str], record: DocumentRecord, published: float | None = None) -> bool:
        if not keys:
            raise ValueError("a claim needs at least one key.")
        if any(key in self._claims for key in keys):
            return False
        for key in keys:
            self._claims[key] = published
        self._documents.append(record)
        return True

    def is_claimed(self, key: str) -> bool:
        return key in self._claims

    def expire_claims(self, before: float) -> int:
        old = [key for key, published in self._claims.items() if published is not None and published < before]
        for key in old:
            del self._claims[key]
        self.expired_claims += len(old)
        return len(old)

    def claim_count(self) -> int:
        return len(self._claims)

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

    def claim_url(self, url: str, record: dict) -> bool:
        if url in self._urls:
            return False
        self.put_url(url, record)
        return True

    def put_url(self, url: str, record: dict) -> None:
        self._urls.setdefault(url, {}).update(record)
        self._urls.move_to_end(url)
        while self.url_records_max and len(self._urls) > self.url_records_max:
            self._urls.popitem(last=False)
            self.evicted_urls += 1

    def url_count(self) -> int:
        return len(self._urls)
