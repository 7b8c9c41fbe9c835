"""The colony's hosts: every ``scrapy crawl forager`` process on one store takes a numbered place.

Several processes started on one store (``scrapy crawl forager`` twice on one Redis, the way
scrapy-redis users scale a spider; or twice on the default SQLite file) make one colony: one
population within its bounds, one budget per site, one record of paid documents. Each such
process *hosts* the foragers it starts (in its own process, or as processes and scrapyd jobs of
its own) and its feed holds what they output, so the feeds of N processes are disjoint and
their union holds each document once (:mod:`newsforagers.colony.feed`).

The hosts live in one shared value of the store, ``colony/hosts``: ``{number: {token, process,
lease}}``, changed only by a compare-and-set (:meth:`~newsforagers.store.ColonyStore.swap_value`),
so two processes starting at once never take the same number. Host 1 names its foragers f1,
f2, ...; host n > 1 prefixes its names with ``hn.`` (``h2.f1``, ``h2.f2``), so that no two
foragers of the colony share a name. A host renews its lease with its foragers' leases
(``FORAGERS_LEASE``) and gives its place back when it closes; a place whose lease ran out, or
whose process is known dead (on this machine: no such pid), is free again, so a colony killed
with ``kill -9`` and started again takes its old number (and its old names) back at once.
"""

from __future__ import annotations

import os
import socket
from typing import Callable

from newsforagers.store import ColonyStore

#: The store's value holding every host of the colony.
HOSTS = "colony/hosts"
#: Compare-and-set rounds before giving up (each lost round means another host changed the
#: value just then: a handful of processes starting together settle in as many rounds).
_ROUNDS = 100


def process_alive(process: str) -> bool:
    """Whether the process ``host:pid`` may be alive: False only when it names this machine
    and no process has that pid (another machine's processes cannot be looked at)."""
    name, _, pid = str(process).rpartition(":")
    if name != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, and belongs to someone else
        return True
    return True


def live_hosts(hosts: dict | None, now: float, alive: Callable[[str], bool] = process_alive) -> dict[str, dict]:
    """The places of ``hosts`` (the store's value) still held at ``now``: lease not run out,
    process not known dead."""
    live = {}
    for number, host in (hosts or {}).items():
        try:
            lease = float(host["lease"])
        except (KeyError, TypeError, ValueError):
            continue
        if lease > now and alive(str(host.get("process", ""))):
            live[str(number)] = host
    return live


def take_place(store: ColonyStore, token: str, process: str, lease: float, now: float,
               alive: Callable[[str], bool] = process_alive) -> int:
    """Take the smallest free number for the host ``token`` (kept if it holds one already);
    returns it. Places whose holders are gone are forgotten in the same step."""
    for _ in range(_ROUNDS):
        current = store.get_value(HOSTS)
        hosts = live_hosts(current, now, alive)
        mine = [int(n) for n, host in hosts.items() if host.get("token") == token]
        number = mine[0] if mine else next(n for n in range(1, len(hosts) + 2) if str(n) not in hosts)
        hosts[str(number)] = {"token": token, "process": process, "lease": float(lease)}
        if store.swap_value(HOSTS, current, hosts):
            return number
    raise RuntimeError(f"the colony's hosts in {store.safe_url} kept changing: no place taken "
                       f"after {_ROUNDS} tries")


def renew_place(store: ColonyStore, token: str, number: int, process: str, lease: float, now: float,
                alive: Callable[[str], bool] = process_alive) -> bool:
    """Extend the host's lease; False when its number was taken by another host meanwhile
    (its lease ran out: the reactor or the store stalled), and the host keeps it no more."""
    for _ in range(_ROUNDS):
        current = store.get_value(HOSTS)
        hosts = live_hosts(current, now, alive)
        held = hosts.get(str(number))
        if held is not None and held.get("token") != token:
            return False
        hosts[str(number)] = {"token": token, "process": process, "lease": float(lease)}
        if store.swap_value(HOSTS, current, hosts):
            return True
    return False


def leave_place(store: ColonyStore, token: str) -> None:
    """Give the host's place back (nothing when it holds none)."""
    for _ in range(_ROUNDS):
        current = store.get_value(HOSTS)
        if not current:
            return
        hosts = {n: host for n, host in current.items() if host.get("token") != token}
        if len(hosts) == len(current) or store.swap_value(HOSTS, current, hosts or None):
            return


def other_hosts(store: ColonyStore, token: str, now: float,
                alive: Callable[[str], bool] = process_alive) -> dict[str, dict]:
    """The live hosts of the colony other than ``token``, by number."""
    return {n: host for n, host in live_hosts(store.get_value(HOSTS), now, alive).items()
            if host.get("token") != token}


def name_prefix(number: int) -> str:
    """What host ``number`` puts before its foragers' names: nothing for the first."""
    return "" if number <= 1 else f"h{number}."
