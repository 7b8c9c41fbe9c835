"""The schedule's decisions over a random trace: a fingerprint of every answer, and their CPU.

    .venv/bin/python benchmarks/schedule_trace.py                       # 10, 100, 400 hosts
    .venv/bin/python benchmarks/schedule_trace.py --hosts 100 --rhythm --one-budget
    PYTHONPATH=/tmp/other-tree .venv/bin/python benchmarks/schedule_trace.py   # another tree's code

``HubSchedule`` alone (no crawl): ``--hosts`` hosts of ``--listings`` listings each, and
``--decisions`` calls of ``next_due`` a few simulated seconds apart, as a forager makes them —
the budgets reckoned anew every ``--reckon-every`` decisions (per host, or ``--one-budget``
for all the listings; ``--steady F``: a share F of the hosts keeps its budgets' values, as most
hosts do between two reckonings of a crawl), a fifth of the hosts busy at each call (drawn anew every
``--busy-for`` calls: in a crawl a host waits for its budget over several), the listing chosen begun, visits
arriving with new links and listed rates, novel documents credited (``--rhythm``: the
publishing rhythm on, fed the credited stories' dates). Everything random comes from ``--seed``.

It prints, per number of hosts, a hash of every answer (the listing chosen, the wait, whether
the spare budget chose it) and the CPU a decision took. Two trees that decide alike print the
same hash: a change meant to make ``next_due`` cheaper, not different, is checked by running
this from both (``PYTHONPATH``) in each mode. docs/benchmarks.md, *Budgets reckoned with the
rates*, reports the numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

# (after PYTHONPATH and the installed package: the tree to trace can be another one)
sys.path.append(str(Path(__file__).resolve().parents[1]))

from newsforagers.learning.schedule import HubSchedule  # noqa: E402

START = 1_700_000_000.0


def trace(hosts: int, listings: int, decisions: int, reckon_every: int, rhythm: bool,
          one_budget: bool, seed: int, steady: float = 0.0, busy_for: int = 1) -> tuple[str, float]:
    """``(hash of the answers, CPU seconds of next_due a decision)``."""
    rng = random.Random(seed)
    schedule = HubSchedule(capacity=max(1_000, 2 * hosts * listings), rhythm=rhythm)
    for h in range(hosts):
        home = f"http://127.0.{h // 250}.{h % 250 + 1}/"
        schedule.add(home)
        for k in range(1, listings):
            schedule.add(f"{home}section/s{k}/")
    names = sorted(schedule.hosts())
    now, spent, digest = START, 0.0, hashlib.sha256()
    budgets: dict[str, tuple[float, float]] = {}
    spare: dict[str, float] = {}
    in_flight: list[str] = []
    busy: set[str] = set()
    for step in range(decisions):
        now += rng.uniform(0.5, 3.0)
        if step % reckon_every == 0:  # new objects, as a driver's reckoning gives
            if steady and budgets:  # a share of the hosts keeps its budgets' values
                kept = {h for h in names if rng.random() < steady}
                budgets = {h: budgets[h] if h in kept and h in budgets else (rng.uniform(5, 40), rng.uniform(20, 80))
                           for h in names if (h in kept and h in budgets) or (h not in kept and rng.random() < 0.9)}
                spare = {h: spare[h] if h in kept and h in spare else rng.uniform(1, 20)
                         for h in names if (h in kept and h in spare) or (h not in kept and rng.random() < 0.5)}
            else:
                budgets = {h: (rng.uniform(5, 40), rng.uniform(20, 80)) for h in names if rng.random() < 0.9}
                spare = {h: rng.uniform(1, 20) for h in names if rng.random() < 0.5}
        if step % busy_for == 0:
            busy = {h for h in names if rng.random() < 0.2}
        began = time.thread_time()
        if one_budget:
            url, wait = schedule.next_due(now, poll_rate=200.0, scarce_rate=400.0, min_yield=0.5,
                                          skip=busy.__contains__, spare=30.0)
        else:
            url, wait = schedule.next_due(now, min_yield=0.5, budgets=budgets, skip=busy.__contains__, spare=spare)
        spent += time.thread_time() - began
        digest.update(f"{url}|{wait:.6f}|{schedule.spare_due}\n".encode())
        if url is not None:
            schedule.begin(url, now)
            in_flight.append(url)
        while in_flight and (len(in_flight) > 20 or rng.random() < 0.5):
            arrived = in_flight.pop(0)
            new = rng.choice([0, 0, 1, 3])
            schedule.visited(arrived, new, listed_rate=rng.choice([None, 0.5, 2.0]), now=now)
            if new and rng.random() < 0.7:
                schedule.credit(arrived, rng.randint(1, new))
                if schedule.profile is not None:
                    schedule.profile.observe(now - rng.uniform(0, 3 * 3600), now)
    return digest.hexdigest()[:16], spent / decisions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", default="10,100,400", help="numbers of hosts, comma-separated")
    parser.add_argument("--listings", type=int, default=8, help="listings a host (its home page and sections)")
    parser.add_argument("--decisions", type=int, default=6_000)
    parser.add_argument("--reckon-every", type=int, default=30, help="decisions between two reckonings of the budgets")
    parser.add_argument("--rhythm", action="store_true", help="the publishing rhythm on")
    parser.add_argument("--one-budget", action="store_true", help="one budget for all the listings, not one a host")
    parser.add_argument("--steady", type=float, default=0.0,
                        help="the share of the hosts whose budgets keep their values at a reckoning (new objects)")
    parser.add_argument("--busy-for", type=int, default=1,
                        help="decisions a draw of the busy hosts holds (a host waiting for its budget stays busy)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for hosts in (int(n) for n in args.hosts.split(",")):
        fingerprint, cpu = trace(hosts, args.listings, args.decisions, args.reckon_every, args.rhythm,
                                 args.one_budget, args.seed, args.steady, args.busy_for)
        print(f"{hosts} hosts: {fingerprint}  {cpu * 1e3:.3f} ms a decision")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
