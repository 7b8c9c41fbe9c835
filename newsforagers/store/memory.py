"""``memory://``: the colony store in this process's memory (tests, throw-away runs).

Claims expire and per-URL records are capped as in every store; the documents list is the
colony's output and grows with it (use ``sqlite:///`` for long runs: it keeps them on disk).
``claim_urls`` is the base class's, one claim after the other: nothing else runs in between
(the store lives in one process, on one thread). Host budgets read ``clock`` (``time.time``;
tests give their own).
"""

from __future__ import annotations

import copy
import time
from typing import Callable, Iterator, Sequence

from newsforagers.learning.bounded import Bounded
from newsforagers.store import records
from newsforagers.store.base import (
    ColonyStore,
    DocumentRecord,
    Member,
    Output,
    start_wait,
    with_settled_start,
    with_start,
)


class MemoryStore(ColonyStore):
    def __init__(self, url: str = "memory://", url_records_max: int = 0,
                 clock: Callable[[], float] = time.time):
        self.url = url
        self.url_records_max = url_records_max
        self.clock = clock
        self._claims: dict[str, float | None] = {}  # key -> publication time (None: for ever)
        self._documents: list[DocumentRecord] = []
        self._outputs: list[Output] = []
        self._scores: dict[str, float] = {}
        # least recently written first, at most url_records_max (0: no cap)
        self._urls: Bounded[str, dict] = Bounded(url_records_max or None)
        self._members: dict[str, Member] = {}
        self._values: dict[str, dict] = {}
        self._starts: dict[str, list[float]] = {}  # host -> recent request starts, oldest first
        self._pauses: dict[str, float] = {}  # host -> end of its pause

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

    def documents_after(self, position: int, limit: int = 0) -> list[DocumentRecord]:
        position = max(0, int(position))
        return self._documents[position:position + limit] if limit else self._documents[position:]

    def add_output(self, item: dict, host: str, forager: str) -> None:
        self._outputs.append(Output(len(self._outputs) + 1, host, forager, copy.deepcopy(item)))

    def outputs_after(self, position: int, limit: int = 0) -> list[Output]:
        position = max(0, int(position))
        chosen = self._outputs[position:position + limit] if limit else self._outputs[position:]
        return [Output(o.position, o.host, o.forager, copy.deepcopy(o.item)) for o in chosen]

    def output_count(self) -> int:
        return len(self._outputs)

    def join(self, name: str, lease: float, now: float, max_members: int = 0,
             fields: dict | None = None) -> bool:
        live = self.members(now)
        for gone in set(self._members) - set(live):
            del self._members[gone]
        others = len(live) - (name in live)
        if name not in live and max_members and others >= max_members:
            return False
        old = live.get(name)
        merged = {**(old.fields if old is not None else {}), **(fields or {})}
        self._members[name] = Member(name, float(lease), copy.deepcopy(merged))
        return True

    def renew(self, name: str, lease: float) -> bool:
        member = self._members.get(name)
        if member is None:
            return False
        self._members[name] = Member(name, float(lease), member.fields)
        return True

    def leave(self, name: str, now: float, min_members: int = 0) -> bool:
        live = self.members(now)
        if name in live and min_members and len(live) <= min_members:
            return False
        self._members.pop(name, None)
        return True

    def members(self, now: float) -> dict[str, Member]:
        return {name: Member(name, m.lease, copy.deepcopy(m.fields))
                for name, m in self._members.items() if m.lease > now}

    def update_member(self, name: str, fields: dict) -> None:
        member = self._members.get(name)
        if member is not None:
            member.fields.update(copy.deepcopy(fields))

    def is_member(self, name: str, now: float) -> bool:
        member = self._members.get(name)
        return member is not None and member.lease > now

    def reserve_start(self, host: str, capacity: int, window: float, spacing: float) -> float:
        now = self.clock()
        starts = self._starts.get(host, [])
        wait = start_wait(starts, self._pauses.get(host, 0.0), now, capacity, window, spacing)
        if wait > 0:
            return wait
        self._pauses.pop(host, None)  # over, if there was one
        self._starts[host] = with_start(starts, now, capacity, window)
        return 0.0

    def settle_start(self, host: str) -> None:
        if host in self._starts:
            self._starts[host] = with_settled_start(self._starts[host], self.clock())

    def pause_host(self, host: str, seconds: float) -> None:
        self._pauses[host] = max(self._pauses.get(host, 0.0), self.clock() + float(seconds))

    def put_value(self, key: str, value: dict) -> None:
        self._values[key] = copy.deepcopy(value)

    def get_value(self, key: str) -> dict | None:
        value = self._values.get(key)
        return None if value is None else copy.deepcopy(value)

    def delete_value(self, key: str) -> None:
        self._values.pop(key, None)

    def swap_value(self, key: str, expected: dict | None, value: dict | None) -> bool:
        if self._values.get(key) != expected:
            return False
        if value is None:
            self._values.pop(key, None)
        else:
            self._values[key] = copy.deepcopy(value)
        return True

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
        merged = {**self._urls.get(url, {}), **record}
        forgotten = self._urls.forgotten
        self._urls.put(url, merged)  # the newest written
        self.evicted_urls += self._urls.forgotten - forgotten

    def write_url_records(self, writes: Sequence[records.Write]) -> int:
        created = 0
        for write in writes:
            old = self._urls.get(write.key)
            created += old is None
            self.put_url(write.key, records.apply(old, write))
        return created

    def url_count(self) -> int:
        return len(self._urls)
