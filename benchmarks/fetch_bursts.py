"""Where a story's fetch waits: the requests between its forager's last listing visit and it.

For each run directory of a bench (its ``requests.jsonl``, the replay's log), each story
fetched (a path ``/YYYY/MM/DD/slug/``) is matched with the last other page its forager
fetched before it (the listing that led to it, for the scheduled strategy and ``adaptive``);
printed: the simulated minutes between the two, the requests of the whole crawl between them,
and how many stories that same visit had already sent first (median and p90)::

    python benchmarks/fetch_bursts.py /tmp/i20/dg-pre/runs/scheduled-r0 /tmp/i19/dg-base/runs/adaptive-r0

(docs/benchmarks.md, issue 19, "Round 2").
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from datetime import datetime
from pathlib import Path

STORY = re.compile(r"^/\d{4}/\d\d/\d\d/[^/]+/$")


def bursts(run_dir: Path) -> dict[str, list[float]]:
    records = []
    with open(run_dir / "requests.jsonl", encoding="utf-8") as log:
        for line in log:
            record = json.loads(line)
            if record.get("status") == 200 and record.get("forager"):
                records.append(record)
    records.sort(key=lambda r: r["wall_time"])
    last_visit: dict[str, list] = {}  # forager -> [index, simulated time, stories sent after it]
    found: dict[str, list[float]] = {"minutes": [], "between": [], "before": []}
    for index, record in enumerate(records):
        at = datetime.fromisoformat(record["sim_time"]).timestamp()
        forager = record["forager"]
        if STORY.match(record["path"]):
            visit = last_visit.get(forager)
            if visit is not None:
                found["minutes"].append((at - visit[1]) / 60.0)
                found["between"].append(index - visit[0] - 1)
                found["before"].append(visit[2])
                visit[2] += 1
        elif record["path"] != "/robots.txt":
            last_visit[forager] = [index, at, 0]
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories of a bench")
    args = parser.parse_args(argv)
    for run_dir in args.runs:
        found = bursts(run_dir)
        if not found["minutes"]:
            print(f"{run_dir}: no story fetched after a listing")
            continue
        parts = []
        for name, values in found.items():
            ordered = sorted(values)
            p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
            parts.append(f"{name} {statistics.median(values):.2f} (p90 {p90:.2f})")
        print(f"{run_dir}: {len(found['minutes'])} stories; " + "; ".join(parts))


if __name__ == "__main__":
    main()
