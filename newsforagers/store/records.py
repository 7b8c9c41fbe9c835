"""The colony's URL records: the i-Bot paper's URL broker, one record for every URL the colony sees.

López-Sánchez et al.'s broker (Sect. 3.1.1) keeps, for each URL its bots report: *Host*,
*Port*, *Resource*, *URL_id* (the MD5 of the URL), *Tsstate* (the last insert or update),
*State* (the HTTP status of its last download or, for a URL never downloaded, the kind of
page it came from), *Bot2_id* (the bot that found it), *Inlinks*, *Outlinks*, *Dinit* (when it
was first seen), *Dlast* (its last successful download), *Language* and *Bot1_id* (the bot it
was given to). A bot reports each downloaded page as one tuple ``(bot_ID, url_ID, http_resp,
lang, (URL1..URLm))`` (Sect. 2.1); the broker creates the links it does not know and adds an
in-link to the others. Here a record holds (:data:`FIELDS`):

``url_id`` (MD5 hex of the canonical URL, ``w3lib.url.canonicalize_url``), ``url`` (canonical),
``host``, ``port``, ``resource`` (path and query), ``state`` (the last fetch's HTTP status, an
int; never fetched: the kind of page that first showed it, a str such as ``"listing"``,
``"article"``, ``"step"``), ``in_links``, ``out_links`` (the distinct links of its last page
read), ``first_seen``, ``last_fetched`` (its last fetch answered 2xx or 304, Dlast; "" never),
``updated`` (Tsstate), ``etag`` and ``last_modified`` (its last response's validators, sent
back in conditional requests), ``language`` (ISO 639-1 of a document, "" otherwise),
``found_by`` (the forager that first saw it) and ``fetched_by`` (the one that fetched it last).
Times are the site's clock as ISO 8601 text.

A record lives among the store's per-URL records under ``broker:URL_ID`` (:func:`record_key`),
beside a URL's own record (which forager queued it) and a listing's weblog entry
(``listing:URL``), all under the one cap ``FORAGERS_URL_RECORDS_MAX``. Every change is a
:class:`Write`: the record to create when the URL has none, else the fields to overwrite and
the in-links to add — never a function of the record it finds, so that the Redis store applies
it in Lua, where cjson keeps 14 digits of a number: a record holds only strings and small
integers. Pure: the stores (and their Lua) apply writes with :func:`apply`.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Iterable, NamedTuple
from urllib.parse import urlsplit

from w3lib.url import canonicalize_url

#: Prefix of a URL record among the store's per-URL records.
URL_RECORD_KEY = "broker:"

FIELDS = ("url_id", "url", "host", "port", "resource", "state", "in_links", "out_links",
          "first_seen", "last_fetched", "updated", "etag", "last_modified", "language",
          "found_by", "fetched_by")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_INTEGERS = ("port", "in_links", "out_links")
# A validator longer than this is not kept: a hostile site's 100 kB ETag would be stored in
# its record and sent back in every revisit.
VALIDATOR_MAX = 512
# URLs whose parts are remembered (a pure function's memo, about 3 MB): a page's links are
# mostly those of its last visit and of the site's navigation, and canonicalize_url costs
# 10 µs a URL, 4 ms for a front of 400 links.
_PARTS_CACHE = 8192


class Write(NamedTuple):
    """One change of a URL record: ``new`` when the URL has no record, else ``changes``
    overwritten and ``in_links`` added."""

    key: str
    new: dict
    changes: dict
    in_links: int


def canonical(url: str) -> str:
    """The URL as the colony's records know it (``canonicalize_url``; a URL it cannot read,
    as given)."""
    try:
        return canonicalize_url(url)
    except (TypeError, ValueError, UnicodeError):
        return url


def url_id(url: str) -> str:
    """The i-Bot broker's URL_id: the MD5 hex of the canonical URL."""
    return _parts(url)[1]


@functools.lru_cache(maxsize=_PARTS_CACHE)
def _parts(url: str) -> tuple[str, str, str, int, str]:
    """The canonical URL, its URL_id, host, port (0 when out of range) and resource."""
    known = canonical(url)
    parts = urlsplit(known)
    try:
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme, 0)
    except ValueError:  # a port out of range: the URL is recorded, its port is not
        port = 0
    resource = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return (known, hashlib.md5(known.encode("utf-8", "surrogatepass")).hexdigest(),
            (parts.hostname or "").lower(), port, resource)


def record_key(url: str) -> str:
    """The store key of ``url``'s record (any spelling of the URL gives the same)."""
    return URL_RECORD_KEY + url_id(url)


def new_record(url: str, now: str, forager: str) -> dict:
    """The record of a URL first seen at ``now`` by ``forager``: no state, no link, no fetch."""
    known, identity, host, port, resource = _parts(url)
    return {"url_id": identity, "url": known, "host": host, "port": port, "resource": resource,
            "state": "", "in_links": 0, "out_links": 0, "first_seen": now, "last_fetched": "",
            "updated": now, "etag": "", "last_modified": "", "language": "", "found_by": forager,
            "fetched_by": ""}


def link_writes(links: Iterable[str], forager: str, kind: str, now: str) -> list[Write]:
    """A page's links, each once (by URL_id), as ``kind``'s page showed them to ``forager``:
    a URL not known yet is created with one in-link and ``kind`` as its state; a known one gets
    one more in-link."""
    writes: dict[str, Write] = {}
    for link in links:
        new = new_record(link, now, forager)
        key = URL_RECORD_KEY + new["url_id"]
        if key not in writes:
            writes[key] = Write(key, {**new, "state": kind, "in_links": 1}, {"updated": now}, 1)
    return list(writes.values())


def fetch_write(url: str, status: int, forager: str, now: str, etag: str = "", last_modified: str = "",
                out_links: int | None = None, language: str = "") -> Write:
    """``forager`` fetched ``url`` at ``now`` and got ``status``. A 2xx replaces the validators
    and the language (a response without an ``ETag`` has none); a 304 keeps the copy the colony
    has, updating a validator it repeats; both are successful downloads (``last_fetched``). Any
    other status changes only the state. ``out_links`` (None: unchanged) is set by a page read."""
    status = int(status)
    etag = etag if len(etag) <= VALIDATOR_MAX else ""
    last_modified = last_modified if len(last_modified) <= VALIDATOR_MAX else ""
    changes: dict = {"state": status, "fetched_by": forager, "updated": now}
    if 200 <= status < 300:
        changes.update(last_fetched=now, etag=etag, last_modified=last_modified, language=language)
    elif status == 304:
        changes["last_fetched"] = now
        changes.update({name: value for name, value in (("etag", etag), ("last_modified", last_modified))
                        if value})
    if out_links is not None:
        changes["out_links"] = int(out_links)
    new = new_record(url, now, forager)
    return Write(URL_RECORD_KEY + new["url_id"], {**new, **changes}, changes, 0)


def apply(record: dict | None, write: Write) -> dict:
    """The record after ``write`` (``record``: the one the store holds, or None)."""
    if record is None:
        return dict(write.new)
    return {**record, **write.changes, "in_links": int(record.get("in_links") or 0) + write.in_links}


def read_record(record: dict | None) -> dict | None:
    """A stored record with every field of :data:`FIELDS` (integers as int: a Lua script may
    hand back a float), or None."""
    if record is None:
        return None
    out = {name: record.get(name, 0 if name in _INTEGERS else "") for name in FIELDS}
    for name in _INTEGERS:
        out[name] = int(out[name] or 0)
    if isinstance(out["state"], float) and out["state"].is_integer():
        out["state"] = int(out["state"])
    return out
