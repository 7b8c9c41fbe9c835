"""``redis://[:password@]host:port/db`` (``rediss://`` for TLS): the colony store on a Redis
server, shared by foragers in any number of processes on any number of machines.

Every key of a colony starts with its prefix ``p`` (``FORAGERS_REDIS_PREFIX``), so that two
colonies can share one server:

- ``{p}claims`` (hash): claimed key -> the claim's token, JSON ``[url, forager, found_at,
  call]``; ``{p}claim_times`` (sorted set): claimed key -> its document's publication time,
  for ``expire_claims`` (a claim without one is kept for ever);
- ``{p}documents`` (list): the documents paid for, JSON, in claim order; never trimmed, so a
  position is a cursor (``documents_after`` is one LRANGE);
- ``{p}outputs`` (list): the colony's output, what the foragers' item pipelines let through,
  JSON ``{host, forager, item}`` in the order written; never trimmed either;
- ``{p}scores`` (hash): forager -> score;
- ``{p}urls`` (hash): URL -> its record, JSON (a URL record of the i-Bot broker under
  ``broker:URL_ID``, store/records.py); ``{p}url_order`` (sorted set): URL -> the value of the
  counter ``{p}url_clock`` when it was last written, for the cap;
- ``{p}members`` (sorted set): member -> its lease; ``{p}member:NAME`` (hash): its shared
  fields, each a JSON value (a lease is a score, a double: exact, and the fields merge by
  HSET, with no JSON re-encoded in Lua, whose cjson keeps 14 digits of a number);
- ``{p}values`` (hash): a shared reading's key -> JSON;
- ``{p}starts:HOST`` (list) and ``{p}pause:HOST``: a host's recent request starts and the end
  of its pause, both with a TTL, so that idle hosts vanish;
- ``{p}reply:CLIENT``: the last reply of one client's thread, with a TTL (see below).

What must be atomic is one Lua script, which Redis runs alone: any number of clients agree
on who claimed a document, queued a URL or took the population's last place. The budget
script reads the server's clock (``TIME``), so machines whose clocks differ agree too.

A call whose connection drops after Redis ran it, before its reply arrived, is sent again.
The scripts whose second run would answer differently (``claim``, ``claim_urls``, ``put_url``,
``write_url_records``, ``add_score``, ``expire_claims``, ``reserve_start``, ``add_output``,
``swap_value``) carry a call id and keep their reply under
``{p}reply:CLIENT`` (one key per client thread, overwritten by its next call): the resent
call gets the first run's reply, so no send is lost and none is paid twice. A claim's token
carries the call id as well: keys all held by the same call are that call's, answered True.
The others (``join``, ``leave``, ``renew``, plain writes) give the same answer when run twice.

Transient failures (no connection, a timeout, Redis loading its data after a restart) are
retried with exponential backoff, 0.05 s doubling up to 2 s, for ``retry`` seconds
(``FORAGERS_STORE_RETRY``); then :class:`StoreUnavailable` names the store, its password
hidden (:attr:`~ColonyStore.safe_url`, the only form of the URL this module ever writes).
Building a store opens no connection: redis-py connects at the first call.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from typing import Callable, Iterable, Iterator, Sequence

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from newsforagers import defaults
from newsforagers.errors import url_secrets
from newsforagers.store import records
from newsforagers.store.base import ColonyStore, DocumentRecord, Member, Output, StoreUnavailable
from newsforagers.store.secrets import store_credentials

logger = logging.getLogger(__name__)

# Failures that a wait may cure (BusyLoadingError, Redis loading its data after a restart, is a
# ConnectionError); AuthenticationError is one too in redis-py, but a wrong password stays wrong.
_TRANSIENT = (redis.ConnectionError, redis.TimeoutError)
# Seconds to connect and to wait for a reply: a dead server fails a try instead of hanging it.
_SOCKET_TIMEOUT = 5.0
_FIRST_BACKOFF = 0.05
_MAX_BACKOFF = 2.0
# Seconds of a wait between two tries after which a stop is looked for.
_SLICE = 0.05
# URLs claimed per script: a page's 200,000 links would hold Redis for a second in one script,
# and every other client with it. Batches in a row are the same as claims one by one.
_URL_BATCH = 1000
# Claims expired per script, and documents read per LRANGE, for the same reason.
_EXPIRE_BATCH = 10_000
_READ_BATCH = 1000

# The reply memo: KEYS[#KEYS] is the calling thread's memo key, ARGV[1] the call's id, ARGV[2]
# the memo's TTL in seconds. A call sent again after a lost reply gets the reply of its first run.
_MEMO = """
local function remember(reply)
  redis.call('SET', KEYS[#KEYS], ARGV[1] .. '\\n' .. cjson.encode({reply}), 'EX', ARGV[2])
  return reply
end
local memo = redis.call('GET', KEYS[#KEYS])
if memo then
  local cut = string.find(memo, '\\n', 1, true)
  if cut and string.sub(memo, 1, cut - 1) == ARGV[1] then
    return cjson.decode(string.sub(memo, cut + 1))[1]
  end
end
"""

# KEYS: urls, url_order (the first two of every per-URL script). Down to the cap, least
# recently written first; returns how many records went.
_EVICT = """
local function evict(cap)
  if cap <= 0 then return 0 end
  local excess = redis.call('ZCARD', KEYS[2]) - cap
  if excess <= 0 then return 0 end
  local oldest = redis.call('ZPOPMIN', KEYS[2], excess)
  for i = 1, #oldest, 2 do redis.call('HDEL', KEYS[1], oldest[i]) end
  return excess
end
"""

# KEYS: claims, claim_times, documents, memo. ARGV: id, ttl, token, document, published ('':
# none), key... Returns 1 when this call holds every key, 0 when another holds one of them.
_CLAIM = _MEMO + """
local ours = 0
for i = 6, #ARGV do
  local holder = redis.call('HGET', KEYS[1], ARGV[i])
  if holder then
    if holder ~= ARGV[3] then return remember(0) end
    ours = ours + 1
  end
end
if ours > 0 then
  -- this call's first run claimed them
  if ours == #ARGV - 5 then return remember(1) end
  return remember(0)
end
for i = 6, #ARGV do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[3])
  if ARGV[5] ~= '' then redis.call('ZADD', KEYS[2], ARGV[5], ARGV[i]) end
end
redis.call('RPUSH', KEYS[3], ARGV[4])
return remember(1)
"""

# KEYS: claims, claim_times, memo. ARGV: id, ttl, before, batch. Returns how many went.
_EXPIRE = _MEMO + """
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
for _, key in ipairs(old) do
  redis.call('HDEL', KEYS[1], key)
  redis.call('ZREM', KEYS[2], key)
end
return remember(#old)
"""

# KEYS: urls, url_order, url_clock, memo. ARGV: id, ttl, cap, record, url... Returns {the URLs
# claimed, in order, how many records were evicted}.
_CLAIM_URLS = _MEMO + _EVICT + """
local cap = tonumber(ARGV[3])
local claimed, evicted = {}, 0
for i = 5, #ARGV do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[4]) == 1 then
    redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[i])
    claimed[#claimed + 1] = ARGV[i]
    evicted = evicted + evict(cap)
  end
end
return remember({claimed, evicted})
"""

# KEYS: urls, url_order, url_clock, memo. ARGV: id, ttl, cap, url, the record read ('': none),
# the merged record. Writes only if the record is still the one read (the merge is Python's:
# JSON numbers survive it whole); returns {1, evicted} or {0, the record now}.
_PUT_URL = _MEMO + _EVICT + """
local now = redis.call('HGET', KEYS[1], ARGV[4]) or ''
if now ~= ARGV[5] then return {0, now} end
redis.call('HSET', KEYS[1], ARGV[4], ARGV[6])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[4])
return remember({1, evict(tonumber(ARGV[3]))})
"""

# KEYS: urls, url_order, url_clock, memo. ARGV: id, ttl, cap, then per write: key, the record to
# create (JSON), the fields to overwrite (JSON), in-links to add (store/records.py). A record holds
# strings and integers below 10^14 only: cjson's 14 digits re-encode them exactly. Returns
# {records created, records evicted}.
_WRITE_URL_RECORDS = _MEMO + _EVICT + """
local cap = tonumber(ARGV[3])
local created, evicted = 0, 0
for i = 4, #ARGV, 4 do
  local record = redis.call('HGET', KEYS[1], ARGV[i])
  if record then
    local fields = cjson.decode(record)
    for name, value in pairs(cjson.decode(ARGV[i + 2])) do fields[name] = value end
    fields['in_links'] = (tonumber(fields['in_links']) or 0) + tonumber(ARGV[i + 3])
    record = cjson.encode(fields)
  else
    record = ARGV[i + 1]
    created = created + 1
  end
  redis.call('HSET', KEYS[1], ARGV[i], record)
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[i])
  evicted = evicted + evict(cap)
end
return remember({created, evicted})
"""

# KEYS: scores, memo. ARGV: id, ttl, forager, delta. Returns the new score, '' for no forager.
_ADD_SCORE = _MEMO + """
if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 0 then return remember('') end
return remember(redis.call('HINCRBYFLOAT', KEYS[1], ARGV[3], ARGV[4]))
"""

# KEYS: members. ARGV: the fields keys' prefix, name, lease, now, max, field, value, ...
# Twice is once: a member that joined is a member the second time, whatever the bound.
_JOIN = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
for _, name in ipairs(gone) do redis.call('DEL', ARGV[1] .. name) end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4]) end
local max = tonumber(ARGV[5])
if max > 0 and not redis.call('ZSCORE', KEYS[1], ARGV[2]) and redis.call('ZCARD', KEYS[1]) >= max then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
for i = 6, #ARGV, 2 do redis.call('HSET', ARGV[1] .. ARGV[2], ARGV[i], ARGV[i + 1]) end
return 1
"""

# KEYS: members. ARGV: the fields keys' prefix, name, now, min.
_LEAVE = """
local min = tonumber(ARGV[4])
local lease = redis.call('ZSCORE', KEYS[1], ARGV[2])
if min > 0 and lease and tonumber(lease) > tonumber(ARGV[3])
    and redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[3], '+inf') <= min then
  return 0
end
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('DEL', ARGV[1] .. ARGV[2])
return 1
"""

# KEYS: members. ARGV: name, lease.
_RENEW = """
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""

# KEYS: members. ARGV: the member's fields key, name, field, value, ...
_UPDATE_MEMBER = """
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', ARGV[1], ARGV[i], ARGV[i + 1]) end
return 1
"""

# KEYS: members. ARGV: the fields keys' prefix, now. Returns {{name, lease, {field, value,
# ...}}, ...}: the members and their fields read at one moment.
_MEMBERS = """
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[2], '+inf', 'WITHSCORES')
local out = {}
for i = 1, #live, 2 do
  out[#out + 1] = {live[i], live[i + 1], redis.call('HGETALL', ARGV[1] .. live[i])}
end
return out
"""

# The store's clock: the server's, unless a test gives one (ARGV[i] ~= '').
_NOW = """
local function clock(given)
  if given ~= '' then return tonumber(given) end
  local t = redis.call('TIME')
  return tonumber(t[1]) + tonumber(t[2]) / 1000000
end
"""

# KEYS: starts, pause, memo. ARGV: id, ttl, capacity, window, spacing, now ('': the server's).
# The same computation as base.start_wait and base.with_start; returns the wait, a string.
_RESERVE_START = _MEMO + _NOW + """
local now = clock(ARGV[6])
local capacity, window, spacing = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local wait = -1
local pause = redis.call('GET', KEYS[2])
if pause then wait = tonumber(pause) - now end
local starts = redis.call('LRANGE', KEYS[1], 0, -1)
if capacity > 0 then
  local recent = {}
  for _, start in ipairs(starts) do
    if tonumber(start) > now - window then recent[#recent + 1] = tonumber(start) end
  end
  if #recent >= capacity then
    wait = math.max(wait, recent[#recent - capacity + 1] + window - now)
  end
end
if spacing > 0 and #starts > 0 then
  wait = math.max(wait, tonumber(starts[#starts]) + spacing - now)
end
if wait > 0 then return remember(string.format('%.17g', wait)) end
redis.call('RPUSH', KEYS[1], string.format('%.17g', now))
redis.call('LTRIM', KEYS[1], -math.max(capacity, 1), -1)
while redis.call('LLEN', KEYS[1]) > 1 and tonumber(redis.call('LINDEX', KEYS[1], 0)) <= now - window do
  redis.call('LPOP', KEYS[1])
end
-- idle hosts vanish: a start older than the window and the spacing decides nothing
redis.call('PEXPIRE', KEYS[1], math.ceil(3000 * math.max(window, spacing, 1)))
return remember('0')
"""

# KEYS: starts. ARGV: the clock (tests). The newest start moved to now if that is later (none:
# nothing); run twice, the same.
_SETTLE_START = _NOW + """
local now = clock(ARGV[1])
local newest = redis.call('LINDEX', KEYS[1], -1)
if newest and tonumber(newest) < now then
  redis.call('LSET', KEYS[1], -1, string.format('%.17g', now))
end
return 1
"""

# KEYS: outputs, memo. ARGV: id, ttl, the output (JSON). Returns the output's position.
_ADD_OUTPUT = _MEMO + """
return remember(redis.call('RPUSH', KEYS[1], ARGV[3]))
"""

# KEYS: values, memo. ARGV: id, ttl, key, expected ('': none), value ('': delete). Returns 1
# when the value was ``expected`` and is now ``value``, else 0. Values are compared as this
# module writes them (json.dumps of the same dict gives the same text).
_SWAP_VALUE = _MEMO + """
local now = redis.call('HGET', KEYS[1], ARGV[3])
if (now or '') ~= ARGV[4] then return remember(0) end
if ARGV[5] == '' then redis.call('HDEL', KEYS[1], ARGV[3]) else redis.call('HSET', KEYS[1], ARGV[3], ARGV[5]) end
return remember(1)
"""

# KEYS: pause. ARGV: seconds, now ('': the server's). The key lives until the pause ends.
_PAUSE_HOST = _NOW + """
local now = clock(ARGV[2])
local finish = now + tonumber(ARGV[1])
if finish > now and finish > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], string.format('%.17g', finish), 'PX', math.ceil((finish - now) * 1000) + 1000)
end
return 1
"""


class RedisStore(ColonyStore):
    """The colony store on a Redis server (see the module's docstring for its keys).

    ``client`` (tests only) is a redis-py client to use instead of one built from ``url``; it
    must decode responses (``decode_responses=True``). ``clock`` (tests only) replaces the
    server's clock in the host budgets. ``password_file``: ``FORAGERS_STORE_PASSWORD_FILE``
    (:mod:`newsforagers.store.secrets`)."""

    password_source = ""  # where the password came from, for messages (never the password)

    def __init__(self, url: str, url_records_max: int = 0, *, prefix: str = defaults.FORAGERS_REDIS_PREFIX,
                 retry: float = defaults.FORAGERS_STORE_RETRY, client: redis.Redis | None = None,
                 clock: Callable[[], float] | None = None, password_file: str = ""):
        self.url = url
        self.url_records_max = url_records_max
        self.prefix = prefix
        self.retry = float(retry)
        self.clock = clock
        self._interrupted = False
        # every spelling of the password the URL holds, for hide_password (the URL is split at
        # its last "@": a password may hold any character)
        self._secrets = url_secrets(url)
        if client is None:
            # the password: the URL's, else a file's, the environment's or ~/.netrc's
            # (store/secrets.py), handed to the client apart from the URL
            credentials = store_credentials(url, password_file)
            self._secrets |= credentials.secrets
            self.password_source = credentials.source
            login = {}
            if credentials.password is not None:
                login["password"] = credentials.password
            if credentials.username is not None:
                login["username"] = credentials.username
            try:
                # from_url parses the URL and builds a pool: no connection yet
                client = redis.Redis.from_url(
                    credentials.url, decode_responses=True, socket_timeout=_SOCKET_TIMEOUT,
                    socket_connect_timeout=_SOCKET_TIMEOUT, socket_keepalive=True,
                    health_check_interval=30, retry=Retry(NoBackoff(), 0), **login)  # the retries are ours
            except ValueError as exc:
                problem = self.hide_password(str(exc))
                raise ValueError(f"FORAGERS_STORE ({self.safe_url}) is not a Redis URL "
                                 f"(redis://[:password@]host:port/db): {problem}") from None
        self._client = client
        self._id = uuid.uuid4().hex
        # a resent call finds its first run's reply for as long as it may be resent
        self._memo_ttl = int(self.retry) + 60
        self._down_since: float | None = None
        keys = ("claims", "claim_times", "documents", "outputs", "scores", "urls", "url_order",
                "url_clock", "members", "values")
        self._keys = {name: f"{prefix}{name}" for name in keys}
        self._scripts = {name: client.register_script(source) for name, source in (
            ("claim", _CLAIM), ("expire", _EXPIRE), ("claim_urls", _CLAIM_URLS), ("put_url", _PUT_URL),
            ("write_url_records", _WRITE_URL_RECORDS),
            ("add_score", _ADD_SCORE), ("join", _JOIN), ("leave", _LEAVE), ("renew", _RENEW),
            ("update_member", _UPDATE_MEMBER), ("members", _MEMBERS),
            ("reserve_start", _RESERVE_START), ("settle_start", _SETTLE_START), ("pause_host", _PAUSE_HOST),
            ("add_output", _ADD_OUTPUT), ("swap_value", _SWAP_VALUE))}

    # -- calls, retried --------------------------------------------------------------------------

    def hide_password(self, text: str) -> str:
        """``text`` (an error's message) with the store's password, should it be there, as ***."""
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, "***")
        return text

    def _do(self, operation: Callable, *args):
        """``operation(*args)``, tried again after transient failures for ``retry`` seconds."""
        started = time.monotonic()
        delay = _FIRST_BACKOFF
        while True:
            self.calls += 1  # one request to the server (a pipeline's included)
            try:
                result = operation(*args)
            except redis.AuthenticationError as exc:
                source = f" (from {self.password_source})" if self.password_source else " (none was given)"
                raise StoreUnavailable(
                    f"colony store {self.safe_url} refused to let this client in "
                    f"({self.hide_password(str(exc))}): check the password{source} and the user; "
                    "a password is looked for in FORAGERS_STORE_PASSWORD_FILE, $NEWSFORAGERS_STORE_PASSWORD "
                    "and ~/.netrc (docs/deployment.md, *Secrets*)") from None
            except _TRANSIENT as exc:
                problem = self.hide_password(str(exc))
                if self._down_since is None:
                    self._down_since = time.monotonic()
                    logger.warning("colony store %s does not answer (%s): retrying for up to %.0f s",
                                   self.safe_url, problem, self.retry)
                left = 0.0 if self._interrupted else self.retry - (time.monotonic() - started)
                if left <= 0:
                    if self._interrupted:
                        raise StoreUnavailable(f"colony store {self.safe_url} does not answer ({problem}); "
                                               "stopped retrying: the process is stopping") from None
                    raise StoreUnavailable(
                        f"colony store {self.safe_url} did not answer for {self.retry:g} s "
                        f"({problem}): check that redis-server runs there and listens on "
                        "that address, that this machine reaches it (firewall, bind, TLS with "
                        "rediss://) and the password; FORAGERS_STORE_RETRY sets how long to retry"
                    ) from None
                self._sleep(min(delay, left))
                delay = min(2 * delay, _MAX_BACKOFF)
                continue
            if self._down_since is not None:
                logger.info("colony store %s answers again, after %.1f s", self.safe_url,
                            time.monotonic() - self._down_since)
                self._down_since = None
            return result

    def _sleep(self, seconds: float) -> None:
        """Wait between two tries, in short slices: a stop (:meth:`interrupt`) ends the wait."""
        end = time.monotonic() + seconds
        while not self._interrupted:
            left = end - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(left, _SLICE))

    def interrupt(self) -> None:
        """Stop retrying: the process is asked to stop (SIGINT, SIGTERM, a scrapyd cancel), and
        a server that does not answer must not hold it for the rest of ``retry``. A call that
        fails from now on fails at once (:class:`StoreUnavailable`)."""
        self._interrupted = True

    def _run(self, name: str, keys: Sequence[str], args: Sequence, memo: bool = False):
        """Run a script; with ``memo``, under a call id and this thread's reply memo, so that
        a run resent after a lost reply answers as the first did."""
        if memo:
            memo_key = f"{self.prefix}reply:{self._id}:{os.getpid()}:{threading.get_ident()}"
            keys = [*keys, memo_key]
            args = [uuid.uuid4().hex, self._memo_ttl, *args]
        return self._do(self._scripts[name], list(keys), list(args))

    def ping(self) -> None:
        """One PING, retried: raises :class:`StoreUnavailable` when the server does not answer."""
        self._do(self._client.ping)

    def has_colony(self) -> bool:
        """Whether any of the colony's main keys exists under the prefix."""
        k = self._keys
        return self._do(self._client.exists, k["documents"], k["outputs"], k["scores"], k["members"],
                        k["claims"], k["urls"], k["values"]) > 0

    # -- claims and documents --------------------------------------------------------------------

    def claim(self, keys: Sequence[str], record: DocumentRecord, published: float | None = None) -> bool:
        if not keys:
            raise ValueError("a claim needs at least one key.")
        k = self._keys
        call = uuid.uuid4().hex
        token = json.dumps([record.url, record.forager, record.found_at, call])
        document = json.dumps(record.to_dict())
        won = self._run("claim", [k["claims"], k["claim_times"], k["documents"]],
                        [token, document, "" if published is None else repr(float(published)), *keys],
                        memo=True)
        return bool(int(won))

    def is_claimed(self, key: str) -> bool:
        return bool(self._do(self._client.hexists, self._keys["claims"], key))

    def expire_claims(self, before: float) -> int:
        k = self._keys
        gone = 0
        while True:
            batch = int(self._run("expire", [k["claims"], k["claim_times"]],
                                  [repr(float(before)), _EXPIRE_BATCH], memo=True))
            gone += batch
            self.expired_claims += batch
            if batch < _EXPIRE_BATCH:
                return gone

    def claim_count(self) -> int:
        return self._do(self._client.hlen, self._keys["claims"])

    def documents(self) -> Iterator[DocumentRecord]:
        count = self.document_count()

        def read() -> Iterator[DocumentRecord]:
            for start in range(0, count, _READ_BATCH):
                yield from self.documents_after(start, min(_READ_BATCH, count - start))

        return read()

    def documents_after(self, position: int, limit: int = 0) -> list[DocumentRecord]:
        position = max(0, int(position))
        end = position + int(limit) - 1 if limit else -1
        rows = self._do(self._client.lrange, self._keys["documents"], position, end)
        return [DocumentRecord.from_dict(json.loads(row)) for row in rows]

    def document_count(self) -> int:
        return self._do(self._client.llen, self._keys["documents"])

    # -- the output ------------------------------------------------------------------------------

    def add_output(self, item: dict, host: str, forager: str) -> None:
        text = json.dumps({"host": host, "forager": forager, "item": item}, ensure_ascii=False)
        self._run("add_output", [self._keys["outputs"]], [text], memo=True)

    def outputs_after(self, position: int, limit: int = 0) -> list[Output]:
        position = max(0, int(position))
        end = position + int(limit) - 1 if limit else -1
        rows = self._do(self._client.lrange, self._keys["outputs"], position, end)
        return [Output.from_json(position + n, row) for n, row in enumerate(rows, 1)]

    def output_count(self) -> int:
        return self._do(self._client.llen, self._keys["outputs"])

    # -- scores ----------------------------------------------------------------------------------

    def get_score(self, forager: str) -> float | None:
        score = self._do(self._client.hget, self._keys["scores"], forager)
        return None if score is None else float(score)

    def set_score(self, forager: str, score: float) -> None:
        self._do(self._client.hset, self._keys["scores"], forager, repr(float(score)))

    def add_score(self, forager: str, delta: float) -> float:
        score = self._run("add_score", [self._keys["scores"]], [forager, repr(float(delta))], memo=True)
        if score == "":
            raise KeyError(f"forager {forager!r} has no score in the store.")
        return float(score)

    def scores(self) -> dict[str, float]:
        return {forager: float(score)
                for forager, score in self._do(self._client.hgetall, self._keys["scores"]).items()}

    # -- per-URL records -------------------------------------------------------------------------

    def _url_keys(self) -> list[str]:
        k = self._keys
        return [k["urls"], k["url_order"], k["url_clock"]]

    def url_count(self) -> int:
        return self._do(self._client.hlen, self._keys["urls"])

    def get_url(self, url: str) -> dict | None:
        record = self._do(self._client.hget, self._keys["urls"], url)
        return None if record is None else json.loads(record)

    def claim_url(self, url: str, record: dict) -> bool:
        return bool(self.claim_urls([url], record))

    def claim_urls(self, urls: Iterable[str], record: dict) -> list[str]:
        """One script per batch of 1,000 URLs: each batch atomic, batches in a row the same
        as claims one by one, and Redis never held for long."""
        urls = list(dict.fromkeys(urls))
        text = json.dumps(record)
        claimed: list[str] = []
        for start in range(0, len(urls), _URL_BATCH):
            won, evicted = self._run("claim_urls", self._url_keys(),
                                     [self.url_records_max, text, *urls[start:start + _URL_BATCH]], memo=True)
            claimed += won
            self.evicted_urls += int(evicted)
        return claimed

    def put_url(self, url: str, record: dict) -> None:
        read = self._do(self._client.hget, self._keys["urls"], url) or ""
        while True:
            merged = json.dumps({**(json.loads(read) if read else {}), **record})
            written, detail = self._run("put_url", self._url_keys(),
                                        [self.url_records_max, url, read, merged], memo=True)
            if int(written):
                self.evicted_urls += int(detail)
                return
            read = detail  # another client wrote the record in between: merge into theirs

    def write_url_records(self, writes: Sequence[records.Write]) -> int:
        """One script per call (a page's links are at most ``FORAGERS_MAX_LINKS``), under the
        reply memo: in-links are added once, even when the reply was lost and the call sent
        again."""
        if not writes:
            return 0
        args = [part for write in writes
                for part in (write.key, json.dumps(write.new), json.dumps(write.changes), int(write.in_links))]
        created, evicted = self._run("write_url_records", self._url_keys(), [self.url_records_max, *args],
                                     memo=True)
        self.evicted_urls += int(evicted)
        return int(created)

    # -- the population --------------------------------------------------------------------------

    def _fields_prefix(self) -> str:
        return f"{self.prefix}member:"

    @staticmethod
    def _pairs(fields: dict) -> list[str]:
        return [part for name, value in fields.items() for part in (name, json.dumps(value))]

    def join(self, name: str, lease: float, now: float, max_members: int = 0,
             fields: dict | None = None) -> bool:
        joined = self._run("join", [self._keys["members"]],
                           [self._fields_prefix(), name, repr(float(lease)), repr(float(now)),
                            int(max_members), *self._pairs(fields or {})])
        return bool(int(joined))

    def renew(self, name: str, lease: float) -> bool:
        return bool(int(self._run("renew", [self._keys["members"]], [name, repr(float(lease))])))

    def leave(self, name: str, now: float, min_members: int = 0) -> bool:
        left = self._run("leave", [self._keys["members"]],
                         [self._fields_prefix(), name, repr(float(now)), int(min_members)])
        return bool(int(left))

    def members(self, now: float) -> dict[str, Member]:
        rows = self._run("members", [self._keys["members"]], [self._fields_prefix(), repr(float(now))])
        members = {}
        for name, lease, flat in sorted(rows):
            fields = {flat[i]: json.loads(flat[i + 1]) for i in range(0, len(flat), 2)}
            members[name] = Member(name, float(lease), fields)
        return members

    def is_member(self, name: str, now: float) -> bool:
        lease = self._do(self._client.zscore, self._keys["members"], name)
        return lease is not None and float(lease) > now

    def update_member(self, name: str, fields: dict) -> None:
        self._run("update_member", [self._keys["members"]],
                  [self._fields_prefix() + name, name, *self._pairs(fields)])

    # -- shared readings -------------------------------------------------------------------------

    def put_value(self, key: str, value: dict) -> None:
        self._do(self._client.hset, self._keys["values"], key, json.dumps(value))

    def get_value(self, key: str) -> dict | None:
        value = self._do(self._client.hget, self._keys["values"], key)
        return None if value is None else json.loads(value)

    def delete_value(self, key: str) -> None:
        self._do(self._client.hdel, self._keys["values"], key)

    def swap_value(self, key: str, expected: dict | None, value: dict | None) -> bool:
        swapped = self._run("swap_value", [self._keys["values"]],
                            [key, "" if expected is None else json.dumps(expected),
                             "" if value is None else json.dumps(value)], memo=True)
        return bool(int(swapped))

    # -- host budgets ----------------------------------------------------------------------------

    def _now_arg(self) -> str:
        return "" if self.clock is None else repr(float(self.clock()))

    def reserve_start(self, host: str, capacity: int, window: float, spacing: float) -> float:
        wait = self._run("reserve_start", [f"{self.prefix}starts:{host}", f"{self.prefix}pause:{host}"],
                         [int(capacity), repr(float(window)), repr(float(spacing)), self._now_arg()],
                         memo=True)
        return max(0.0, float(wait))

    def settle_start(self, host: str) -> None:
        self._run("settle_start", [f"{self.prefix}starts:{host}"], [self._now_arg()])

    def pause_host(self, host: str, seconds: float) -> None:
        self._run("pause_host", [f"{self.prefix}pause:{host}"], [repr(float(seconds)), self._now_arg()])

    def close(self) -> None:
        self._client.close()
