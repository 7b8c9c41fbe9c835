"""The colony's shared state behind one interface.

What the reinforcing agent and the population need to agree on across foragers (and, with a
shared backend, across processes): which documents have been paid for (by canonical URL and
by content fingerprint), every forager's score, per-URL records (a scheduled forager's listing
entries among them, so that a listing a split gave away is still known to the colony, and the
i-Bot broker's URL records: :mod:`newsforagers.store.records`, ``write_url_records``), the
population (its members, each under a lease, and its count within bounds), and small shared
readings (the site's clock, a split's hand-over). It is **the only channel between foragers**
(the papers' "no direct communication amongst foragers but the centralized rewarding
system"): a forager reads no other forager's objects, so foragers in one process and in many
behave alike. ``claim``, ``claim_url``, ``join`` and ``leave`` must be atomic: exactly one
sender wins a document, one forager queues a URL, and no two foragers take the last place of
the population (or leave its minimum) at once. ``reserve_start`` is atomic too, and reads the
store's own clock, so that foragers on machines whose clocks differ still space their requests.

Bounded for runs of weeks: a claim carries its document's publication time and
``expire_claims`` forgets the claims of documents published before a cutoff (the reinforcing
agent passes "older than the novelty window", when a send could not be paid anyway); the
documents themselves stay (they are the colony's output). Per-URL records are capped at
``url_records_max`` (0: no cap), the least recently written evicted first; ``evicted_urls``
and ``expired_claims`` count what was forgotten.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, fields
from typing import Iterable, Iterator, Sequence

from newsforagers.errors import StoreUnavailable as StoreUnavailable  # re-exported: the stores raise it
from newsforagers.errors import mask_password
from newsforagers.store import records


@dataclass(frozen=True)
class DocumentRecord:
    """A novel document as the colony paid for it (times are ISO 8601 with offset), with what
    its page says of itself (the i-Bot paper's structured document: docs/pages.md)."""

    url: str
    title: str
    published: str
    found_at: str
    forager: str
    reward: float
    text: str = ""  # the main text, when the colony outputs it (FORAGERS_ITEM_TEXT)
    description: str = ""
    keywords: tuple[str, ...] = ()  # keywords and tags
    authors: tuple[str, ...] = ()
    site_name: str = ""
    html: str = ""  # the main text as clean HTML (FORAGERS_ITEM_TEXT)
    language: str = ""  # ISO 639-1, "" when unknown
    relevance: float | None = None  # to the colony's topic (topical mode), else None

    def to_dict(self) -> dict:
        data = asdict(self)
        data["keywords"], data["authors"] = list(self.keywords), list(self.authors)
        if self.relevance is None:  # no topic: the record as it was before the topical mode
            del data["relevance"]
        return data

    def item(self, with_text: bool) -> dict:
        """The document as the colony outputs it (docs/pages.md, "Output items"): ``text`` and
        ``html`` only ``with_text`` (``FORAGERS_ITEM_TEXT``)."""
        item = {"url": self.url, "title": self.title, "published": self.published,
                "found_at": self.found_at, "forager": self.forager, "reward": self.reward,
                "description": self.description, "keywords": list(self.keywords),
                "authors": list(self.authors), "site_name": self.site_name,
                "language": self.language}
        if self.relevance is not None:
            item["relevance"] = self.relevance
        if with_text:
            item["text"], item["html"] = self.text, self.html
        return item

    @classmethod
    def from_dict(cls, data: dict) -> "DocumentRecord":
        """The record of :meth:`to_dict` (one written before a field existed lacks it: its
        default; a field it does not know is left out)."""
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        for key in ("keywords", "authors"):
            values[key] = tuple(str(v) for v in values.get(key) or ())
        return cls(**values)


    @classmethod
    def from_item(cls, item: dict) -> "DocumentRecord":
        """The record an output item stands for, as far as the item tells it: an item a user's
        pipeline changed may lack fields (then empty) or hold values of other types (then
        their text); ``url`` must be there (:class:`ValueError` otherwise)."""
        url = item.get("url")
        if not isinstance(url, str) or not url:
            raise ValueError(f"an output item without a url ({sorted(item)[:8]})")

        def text(key: str) -> str:
            value = item.get(key)
            return "" if value is None else value if isinstance(value, str) else str(value)

        def words(key: str) -> tuple[str, ...]:
            value = item.get(key)
            if value is None:
                return ()
            if isinstance(value, (list, tuple)):
                return tuple(str(v) for v in value)
            return (str(value),)

        def number(key: str) -> float | None:
            try:
                return float(item[key])
            except (KeyError, TypeError, ValueError):
                return None

        return cls(url, text("title"), text("published"), text("found_at"), text("forager"),
                   number("reward") or 0.0, text("text"), description=text("description"),
                   keywords=words("keywords"), authors=words("authors"), site_name=text("site_name"),
                   html=text("html"), language=text("language"), relevance=number("relevance"))


@dataclass(frozen=True)
class Output:
    """An item as the colony output it: what a forager's ``ITEM_PIPELINES`` let through (JSON
    values only), which forager's crawler output it, and the colony host whose feed it belongs
    to (``host``: the token of the ``scrapy crawl`` process that started that forager's line).
    ``position`` counts the store's outputs from 1, in the order they were written."""

    position: int
    host: str
    forager: str
    item: dict

    @property
    def url(self) -> str:
        url = self.item.get("url")
        return url if isinstance(url, str) else ""

    def to_json(self) -> str:
        return json.dumps({"host": self.host, "forager": self.forager, "item": self.item},
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, position: int, text: str) -> "Output":
        data = json.loads(text)
        return cls(position, str(data.get("host") or ""), str(data.get("forager") or ""),
                   data.get("item") if isinstance(data.get("item"), dict) else {})


@dataclass(frozen=True)
class Member:
    """A forager of the population: alive while its lease runs (``lease`` in POSIX seconds), so
    a forager whose process died is counted out once its lease expires. ``fields`` hold what it
    shares with the colony (its listing demand)."""

    name: str
    lease: float
    fields: dict


class ColonyStore(ABC):
    """Seen documents, scores and per-URL records of one colony."""

    url: str = ""
    url_records_max: int = 0
    evicted_urls: int = 0  # per-URL records evicted by this process
    calls: int = 0  # requests this process sent to the store's server (0: the store is local)
    expired_claims: int = 0  # claims this process expired

    @property
    def safe_url(self) -> str:
        """The store's URL with a password hidden (``redis://:***@host:6379/0``): the form every
        message and log line shows."""
        return mask_password(self.url)

    @abstractmethod
    def claim(self, keys: Sequence[str], record: DocumentRecord, published: float | None = None) -> bool:
        """Atomically: if none of ``keys`` was claimed before, claim them all for ``record``
        and return True; otherwise change nothing and return False. ``published`` (POSIX
        seconds) lets ``expire_claims`` forget the claim later; None keeps it for ever."""

    @abstractmethod
    def is_claimed(self, key: str) -> bool: ...

    @abstractmethod
    def expire_claims(self, before: float) -> int:
        """Forget the claims of documents published before ``before`` (POSIX seconds); their
        documents stay. Returns how many keys were forgotten."""

    @abstractmethod
    def claim_count(self) -> int: ...

    @abstractmethod
    def url_count(self) -> int: ...

    @abstractmethod
    def documents(self) -> Iterator[DocumentRecord]:
        """Every claimed document, in the order they were claimed."""

    @abstractmethod
    def documents_after(self, position: int, limit: int = 0) -> list[DocumentRecord]:
        """The documents paid for after the first ``position`` ones, in order (``limit`` of
        them at most; 0: all). Documents are never deleted, so a position is a cursor: the
        colony's feed follows the store with it."""

    @abstractmethod
    def document_count(self) -> int: ...

    # -- the output: what the foragers' item pipelines let through --------------------------------

    @abstractmethod
    def add_output(self, item: dict, host: str, forager: str) -> None:
        """Append ``item`` (JSON values only) to the colony's output, once: a call sent again
        after a lost reply does not append it twice."""

    @abstractmethod
    def outputs_after(self, position: int, limit: int = 0) -> list[Output]:
        """The outputs after the first ``position`` ones, in order (``limit`` at most; 0: all).
        Outputs are never deleted, so a position is a cursor (the feeds, the index and the
        dashboard follow the output with one)."""

    @abstractmethod
    def output_count(self) -> int: ...

    def outputs(self, batch: int = 1000) -> Iterator[Output]:
        """Every output, in order, read ``batch`` at a time."""
        position = 0
        while True:
            chunk = self.outputs_after(position, batch)
            yield from chunk
            if len(chunk) < batch:
                return
            position += len(chunk)

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
    def claim_url(self, url: str, record: dict) -> bool:
        """Atomically: if the URL has no record, give it ``record`` and return True; otherwise
        change nothing and return False (one forager of the colony queues a URL)."""

    def claim_urls(self, urls: Iterable[str], record: dict) -> list[str]:
        """:meth:`claim_url` for each of ``urls`` in one step: give ``record`` to those that
        have no record and return them, in the order given (a URL given twice, once). The
        same as claiming them one by one, in that order, cap and evictions included; a store
        that can makes it one atomic transaction (SQLite: one per page's links, not one per
        link). This default claims them one by one."""
        return [url for url in dict.fromkeys(urls) if self.claim_url(url, record)]

    @abstractmethod
    def put_url(self, url: str, record: dict) -> None:
        """Merge ``record``'s fields into the URL's record (which becomes the most recently
        written); past ``url_records_max`` records, the least recently written go."""

    # -- URL records: the i-Bot paper's URL broker (store/records.py) ---------------------------

    @abstractmethod
    def write_url_records(self, writes: Sequence[records.Write]) -> int:
        """Apply ``writes`` in order (:func:`records.apply`), atomically and in one request to
        the store's server; each record written becomes the most recently written of the
        per-URL records, under their cap. Returns how many records were created."""

    def record_links(self, page_url: str, links: Iterable[str], forager: str, kind: str, now: str) -> int:
        """The links of ``page_url`` (a page of ``kind``: "listing", "article", "step"...) as
        ``forager`` read them at ``now`` (ISO 8601): a URL the colony did not know is recorded
        with one in-link, ``kind`` as its state and ``forager`` as its finder; a known one gets
        one more in-link (a link given twice counts once). Returns how many were new."""
        return self.write_url_records(records.link_writes(links, forager, kind, now))

    def record_fetch(self, url: str, status: int, forager: str, now: str, etag: str = "",
                     last_modified: str = "", out_links: int | None = None, language: str = "") -> None:
        """``forager`` fetched ``url`` at ``now`` and got ``status`` (:func:`records.fetch_write`)."""
        self.write_url_records([records.fetch_write(url, status, forager, now, etag, last_modified,
                                                    out_links, language)])

    def record_page(self, url: str, status: int, forager: str, now: str, links: Iterable[str], kind: str,
                    etag: str = "", last_modified: str = "", language: str = "") -> int:
        """A page read: :meth:`record_fetch` (its out-links the distinct ``links``) and
        :meth:`record_links` in one atomic call, the i-Bot bot's tuple ``(bot_ID, url_ID,
        http_resp, lang, (URL1..URLm))``. Returns how many records were created (the page's
        own among them when the colony did not know it)."""
        links = records.link_writes(links, forager, kind, now)
        fetch = records.fetch_write(url, status, forager, now, etag, last_modified, len(links), language)
        return self.write_url_records([fetch, *links])

    def get_url_record(self, url: str) -> dict | None:
        """The URL record of ``url`` (any spelling: the canonical URL's), every field of
        :data:`records.FIELDS`, or None when the colony has not seen it (or forgot it)."""
        return records.read_record(self.get_url(records.record_key(url)))

    # -- the population: members under leases, its count within bounds --------------------------

    @abstractmethod
    def join(self, name: str, lease: float, now: float, max_members: int = 0,
             fields: dict | None = None) -> bool:
        """Atomically: make ``name`` a member until ``lease`` unless ``max_members`` (0: no
        bound) live members other than ``name`` are there already at ``now``; True if it is a
        member now. Members whose lease ran out at ``now`` are counted out (and forgotten):
        their places can be taken. A member that joins again keeps its fields, updated."""

    @abstractmethod
    def renew(self, name: str, lease: float) -> bool:
        """Extend a member's lease to ``lease``; False if it is no member (its lease ran out
        and another join forgot it, or it left)."""

    @abstractmethod
    def leave(self, name: str, now: float, min_members: int = 0) -> bool:
        """Atomically: ``name`` leaves unless only ``min_members`` live members (it among them)
        would be left at most; True if it is no member now."""

    @abstractmethod
    def members(self, now: float) -> dict[str, Member]:
        """The live members at ``now`` (lease not run out), by name."""

    @abstractmethod
    def update_member(self, name: str, fields: dict) -> None:
        """Merge ``fields`` into a member's shared fields (nothing if it is no member)."""

    def is_member(self, name: str, now: float) -> bool:
        """Whether ``name`` is a live member at ``now`` (its lease has not run out). This
        default reads every member; a store that can looks the one up."""
        return name in self.members(now)

    # -- each host's budget of request starts, shared by the whole colony -----------------------

    @abstractmethod
    def reserve_start(self, host: str, capacity: int, window: float, spacing: float) -> float:
        """Atomically, at the store's own clock ``now``: the seconds to wait before a request
        to ``host`` may start, the largest of

        - ``pause_until(host) - now`` (:meth:`pause_host`);
        - when ``capacity`` > 0 and ``capacity`` starts or more lie within the last ``window``
          seconds: the time until the oldest of the ``capacity`` most recent leaves the window;
        - when ``spacing`` > 0: ``last start + spacing - now``.

        If none is positive, record a start at ``now`` and return 0.0; otherwise record nothing
        and return the wait (> 0): the caller waits that long and asks again. Starts older
        than the window are forgotten (at most ``capacity`` are kept per host, one when
        ``capacity`` is 0: no window cap)."""

    @abstractmethod
    def settle_start(self, host: str) -> None:
        """A request of ``host`` may have left only now, later than :meth:`reserve_start`
        recorded its start (its process's event loop was busy): the newest start of ``host``
        moves to the store's ``now`` if that is later, so the next one keeps its spacing from
        when the request left (nothing if ``host`` has no start)."""

    @abstractmethod
    def pause_host(self, host: str, seconds: float) -> None:
        """No start for ``host`` during the next ``seconds`` (a 429's ``Retry-After``): the pause
        ends at ``max(its current end, now + seconds)``, so a shorter pause never cuts a longer
        one short."""

    # -- small shared readings (the site's clock, a split's hand-over) --------------------------

    @abstractmethod
    def put_value(self, key: str, value: dict) -> None:
        """Set the JSON-able ``value`` under ``key`` (the last write wins)."""

    @abstractmethod
    def get_value(self, key: str) -> dict | None: ...

    @abstractmethod
    def delete_value(self, key: str) -> None: ...

    @abstractmethod
    def swap_value(self, key: str, expected: dict | None, value: dict | None) -> bool:
        """Atomically: if the value under ``key`` is ``expected`` (None: there is none), set it
        to ``value`` (None: delete it) and return True; otherwise change nothing and return
        False (the colony's hosts take their places with it)."""

    def interrupt(self) -> None:  # noqa: B027 - only a store that waits for a server retries
        """The process is stopping: stop retrying a server that does not answer."""

    def close(self) -> None:  # noqa: B027 - optional for backends without resources
        """Release the backend's resources; the store is unusable afterwards."""


def start_wait(starts: Sequence[float], pause_until: float, now: float, capacity: int, window: float,
               spacing: float) -> float:
    """The wait :meth:`ColonyStore.reserve_start` returns, from a host's recorded ``starts``
    (oldest first) and the end of its pause (0: none); <= 0 when a request may start at
    ``now``. The stores that run in Python share it; the Redis store runs the same in Lua."""
    wait = pause_until - now
    if capacity > 0:
        recent = [start for start in starts if start > now - window]
        if len(recent) >= capacity:
            # the window holds one start fewer than the cap once this one has left it
            wait = max(wait, recent[len(recent) - capacity] + window - now)
    if spacing > 0 and starts:
        wait = max(wait, starts[-1] + spacing - now)
    return wait


def with_settled_start(starts: Sequence[float], now: float) -> list[float]:
    """``starts`` (oldest first) with the newest moved to ``now`` if that is later
    (:meth:`ColonyStore.settle_start`)."""
    moved = list(starts)
    if moved:
        moved[-1] = max(moved[-1], now)
    return moved


def with_start(starts: Sequence[float], now: float, capacity: int, window: float) -> list[float]:
    """``starts`` with one recorded at ``now``: those older than the window dropped, and at
    most ``capacity`` kept (the last one alone when there is no cap, for the spacing)."""
    return ([start for start in starts if start > now - window] + [now])[-max(capacity, 1):]


