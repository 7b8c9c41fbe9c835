"""Issue 15's acceptance run: a colony at its defaults against every case of the hostile site at once.

    .venv/bin/python benchmarks/bench_hostile.py                       # both strategies, 90 s each
    .venv/bin/python benchmarks/bench_hostile.py --strategy scheduled --timeout 90 --json hostile.json

Run from the repository root. For each strategy, one ``scrapy crawl forager`` against the
hostile loopback site of the tests (``tests/integration/hostile_site.py`` with its limits'
cases: about forty hostile cases beside six fresh articles, two more fresh articles behind a
year-9999 ``Date``), at Scrapy's and the add-on's defaults except ``CLOSESPIDER_TIMEOUT``
(``--timeout``) and what a run on a shared machine needs (the store, log and record in a
temporary directory, no telnet console, no proxy). The site listens on 127.0.0.1 only.

The issue's run: the colony found the six articles and never left 127.0.0.1, but did not stop
by itself, peaked at 6.4-8.5 GB and logged spider errors. Each row says whether the process
exited 0 by itself within ``--timeout`` + ``--grace`` seconds (105 s at the defaults), its
wall time, its peak resident memory (the kernel's ``ru_maxrss``), the ERROR lines and
tracebacks of its log, the fresh articles it output, the pages without news it output, and the
hosts it asked; then each finding's stats. A process still running ``--kill-after`` seconds
after its start is aborted (reported as not stopped, with the end of its log).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.forager_run import CrawlHung  # noqa: E402
from tests.integration.hostile_site import (  # noqa: E402
    LIMIT_CASES,
    LIMIT_READABLE_ARTICLES,
    hostile_site,
    is_not_news,
    trap_entrances,
)
from tests.integration.test_eras import colony_stats  # noqa: E402
from tests.integration.testsite import TestSite, crawl_forager  # noqa: E402

MIB = 1024 ** 2
#: What a run on a shared machine needs beside the defaults (crawl_forager adds the store, the
#: log and the colony's record in the run's directory).
HARNESS = {"TELNETCONSOLE_ENABLED": False, "HTTPPROXY_ENABLED": False}
#: The six ordinary fresh articles of the site.
ORDINARY = tuple(f"/news/story-{letter}.html" for letter in "abcdef")
#: Stats of the findings, as (label, stat); summed over the colony's foragers.
FINDINGS = (
    ("bomb dropped (IgnoreRequest)", None),  # counted from Scrapy's log lines, see run_strategy
    ("links capped", "newsforagers/pages/links_capped"),
    ("text capped", "newsforagers/pages/text_capped"),
    ("implausible Date", "newsforagers/clock/implausible_date"),
    ("host paused", "newsforagers/host/paused"),
    ("paused seconds", "newsforagers/host/paused_seconds"),
    ("abandoned on close", "newsforagers/host/abandoned_on_close"),
    ("cancelled on close", "newsforagers/close/cancelled"),
    ("retries given up", "retry/max_reached"),
)
_ERROR_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[[^\]]+\] (?:ERROR|CRITICAL): .*$", re.MULTILINE)
_BOMB_DROPPED = re.compile(r"Ignored response <200 \S+/hostile/bomb\.html> because its body .* exceeded "
                           r"DOWNLOAD_MAXSIZE \((\d+) B\) during decompression")


def run_strategy(strategy: str, timeout: float, grace: float, kill_after: float, memory_cap: float,
                 workdir: Path, seed: int | None) -> dict:
    """One crawl of a fresh hostile site; what the table shows."""
    tmp = workdir / strategy
    settings = {**HARNESS, "FORAGERS_STRATEGY": strategy, "CLOSESPIDER_TIMEOUT": timeout}
    if seed is not None:
        settings["FORAGERS_SEED"] = seed
    args = {"speed": 1} if strategy == "scheduled" else None  # a live site's clock (the default)
    with TestSite() as site:
        expected = hostile_site(site, limits=True)
        seeds = ",".join([site.url, *(site.url_of(path) for path in trap_entrances())])
        started = time.monotonic()
        try:
            crawl = crawl_forager(seeds, tmp, settings=settings, args=args, timeout=kill_after, base={},
                                  peak_memory=True, memory_cap=int(memory_cap * 1024 * MIB))
            returncode, log, items, seconds, hung = (crawl.returncode, crawl.log, crawl.items,
                                                     crawl.seconds, None)
        except CrawlHung as exc:
            returncode, seconds, hung = None, time.monotonic() - started, str(exc)
            log = (tmp / "run.log").read_text(encoding="utf-8", errors="replace") if (tmp / "run.log").exists() else ""
            items = [json.loads(line) for line in (tmp / "run.jsonl").read_text().splitlines()
                     if line.endswith("}")] if (tmp / "run.jsonl").exists() else []
        hits = site.hits_of()
        hosts = sorted({hit.host for hit in hits})
        local = f"127.0.0.1:{site.port_number}"
    peak_file = tmp / "run.peak_rss"
    peak = int(peak_file.read_text()) if peak_file.exists() else None
    stats = colony_stats(log)
    paths = [urlsplit(item["url"]).path for item in items]
    fresh = [*ORDINARY, *(LIMIT_CASES[name] for name in LIMIT_READABLE_ARTICLES)]
    assert all(path in expected for path in fresh)
    errors = _ERROR_LINE.findall(log)
    stopped = returncode == 0 and seconds <= timeout + grace
    result = {
        "strategy": strategy, "closespider_timeout": timeout, "bound_seconds": timeout + grace,
        "exit": returncode, "seconds": round(seconds, 1), "stopped_by_itself_in_time": stopped,
        "peak_rss_mib": round(peak / MIB) if peak is not None else None,
        "error_lines": errors, "tracebacks": log.count("Traceback"),
        "fresh_found": sorted(set(fresh) & set(paths)), "fresh_missing": sorted(set(fresh) - set(paths)),
        "output_twice": sorted({path for path in paths if paths.count(path) > 1}),
        "not_news_output": sorted({path for path in paths if is_not_news(path)}),
        "other_hosts": [host for host in hosts if host != local],
        "findings": {label: (len(_BOMB_DROPPED.findall(log)) if stat is None else stats.get(stat, 0))
                     for label, stat in FINDINGS},
        "hung": hung[-3000:] if hung else None, "log_dir": str(tmp),
    }
    result["accepted"] = (stopped and not errors and not result["tracebacks"] and not result["fresh_missing"]
                          and not result["not_news_output"] and not result["output_twice"]
                          and not result["other_hosts"] and peak is not None and peak < 1024 * MIB)
    return result


def table(results: list[dict]) -> str:
    columns = ("strategy", "exit", "stopped ≤ bound", "wall s", "peak RSS MiB", "ERROR lines", "tracebacks",
               "fresh found", "not-news output", "other hosts", "accepted")
    rows = [(r["strategy"], "killed" if r["exit"] is None else str(r["exit"]),
             f"{'yes' if r['stopped_by_itself_in_time'] else 'NO'} (≤ {r['bound_seconds']:g} s)", f"{r['seconds']:.1f}",
             "?" if r["peak_rss_mib"] is None else str(r["peak_rss_mib"]), str(len(r["error_lines"])),
             str(r["tracebacks"]), f"{len(r['fresh_found'])}/{len(r['fresh_found']) + len(r['fresh_missing'])}",
             str(len(r["not_news_output"])), str(len(r["other_hosts"])), "yes" if r["accepted"] else "NO")
            for r in results]
    lines = [columns, *rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(columns))]
    out = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)) for line in lines]
    out.insert(1, "  ".join("-" * width for width in widths))
    out.append("")
    labels = [label for label, _ in FINDINGS]
    width = max(map(len, labels))
    out.append(f"{'finding':<{width}}  " + "  ".join(f"{r['strategy']:>10}" for r in results))
    for label in labels:
        out.append(f"{label:<{width}}  " + "  ".join(f"{r['findings'][label]:>10g}" for r in results))
    for r in results:
        details = [("fresh articles missing", r["fresh_missing"]), ("pages without news output", r["not_news_output"]),
                   ("output twice", r["output_twice"]), ("other hosts asked", r["other_hosts"]),
                   ("ERROR lines", r["error_lines"][:10])]
        for what, values in details:
            if values:
                out.append(f"\n{r['strategy']}: {what}:")
                out.extend(f"  {value[:300]}" for value in values)
        if r["hung"]:
            out.append(f"\n{r['strategy']}: did not stop by itself; aborted:\n{r['hung']}")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", choices=("paper", "scheduled", "both"), default="both")
    parser.add_argument("--timeout", type=float, default=90.0, help="CLOSESPIDER_TIMEOUT, seconds (default 90)")
    parser.add_argument("--grace", type=float, default=15.0,
                        help="seconds the process may take past --timeout to stop (FORAGERS_CLOSE_GRACE; default 15)")
    parser.add_argument("--kill-after", type=float, default=None,
                        help="abort a crawl still running after this many seconds (default: timeout + grace + 120)")
    parser.add_argument("--memory-cap", type=float, default=0.0,
                        help="address-space limit of the crawl in GiB (default 0: none; a crawl that reads the "
                             "bomb into memory can take several GiB)")
    parser.add_argument("--seed", type=int, default=None, help="FORAGERS_SEED (default: the default, fresh entropy)")
    parser.add_argument("--json", type=Path, help="write the results here too")
    parser.add_argument("--keep", type=Path, help="keep each crawl's log, items and record in this directory")
    args = parser.parse_args(argv)
    strategies = ("paper", "scheduled") if args.strategy == "both" else (args.strategy,)
    kill_after = args.kill_after or args.timeout + args.grace + 120
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as scratch:
        workdir = args.keep or Path(scratch)
        results = []
        for strategy in strategies:
            print(f"{strategy}: crawling the hostile site for {args.timeout:g} s ...", flush=True)
            results.append(run_strategy(strategy, args.timeout, args.grace, kill_after, args.memory_cap,
                                        workdir, args.seed))
    print()
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if all(r["accepted"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
