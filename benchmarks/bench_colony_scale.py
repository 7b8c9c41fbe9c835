"""One colony over 10 to 1,000 sites in one crawl process: memory, CPU per request, start-up.

    .venv/bin/python benchmarks/bench_colony_scale.py                     # 10, 100, 1,000 sites
    .venv/bin/python benchmarks/bench_colony_scale.py --sites 10,1000 --seconds 60 --seeds-per-site 10

A synthetic corpus (``--per-day`` stories a day in ``--sections`` sections) is dealt by hash
into N sites (``newsforagers replay --sites N --split hash``, each on its own loopback address,
answering at once). The colony (``scrapy crawl forager -a seeds=@FILE``: the default strategy and
population, ``FORAGERS_HOST_RATE`` = ``--host-rate`` on every host) gets ``--seeds-per-site``
seeds a site (the home page and that many − 1 sections) for ``--seconds``. The crawl runs in a
child Python that reports its own resource usage when Scrapy exits:

- **peak RSS** of the crawl process (``ru_maxrss``; target: < 1 GiB at 1,000 sites);
- **CPU per request**: the crawl process's user + system CPU seconds over the requests the
  replay received, and of it the *scheduling* CPU (``newsforagers/scheduled/decide_cpu``, summed
  over the foragers: the CPU seconds spent deciding the next request) per request (target:
  within ±20 % from 10 to 1,000 sites: the scheduling does not grow with the number of hosts);
- **start-up**: wall seconds from the crawl's launch to the first request at the replay (target:
  < 30 s with 10,000 seeds);
- **busiest host-second**: the most requests one host received in any one-second window, against
  its politeness ⌊``--host-rate``⌋.

``--redis N``: the colony's store is a real ``redis-server`` on a free loopback port and its
population N foragers, each a process of its own (``FORAGERS_SPAWNER=process``): the hosts'
budgets are kept in Redis for all of them (peak RSS and CPU are then the root process's and
the children it waited for).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from crawl_usage import forager_argv, read_usage  # noqa: E402  (benchmarks/crawl_usage.py)

from newsforagers.replay.log import busiest_second, read_log  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402
from newsforagers.replay.synth import synth_corpus  # noqa: E402

DECIDE_CPU = re.compile(r"'newsforagers/scheduled/decide_cpu': ([0-9.e-]+)")


def seeds_of(home_pages: list[str], sections: list[str], per_site: int) -> list[str]:
    """Each site's home page and its first ``per_site − 1`` sections."""
    seeds = []
    for home in home_pages:
        seeds.append(home)
        seeds += [home.rstrip("/") + f"/section/{name}/" for name in sections[: per_site - 1]]
    return seeds


def run_once(corpus: Path, sites: int, sections: list[str], args: argparse.Namespace, work: Path,
             store: str) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    log, homes, seeds = work / "requests.jsonl", work / "homes.txt", work / "seeds.txt"
    usage = work / "usage.json"
    log.unlink(missing_ok=True)  # (a kept work directory used again: the replay appends to its log)
    with ReplayProcess(corpus, speed=args.speed, start=args.start, log_path=log,
                       extra_args=["--sites", str(sites), "--split", "hash", "--seeds", str(homes)]):
        home_pages = [line.strip() for line in homes.read_text().splitlines() if line.strip()]
        seeds.write_text("\n".join(seeds_of(home_pages, sections, args.seeds_per_site)) + "\n")
        settings = {"FORAGERS_STORE": store, "FORAGERS_HOST_RATE": args.host_rate,
                    "CONCURRENT_REQUESTS": args.concurrency}
        if args.redis:
            settings.update(FORAGERS_SPAWNER="process", FORAGERS_MIN=args.redis, FORAGERS_MAX=args.redis,
                            FORAGERS_REDIS_PREFIX=f"scale{sites}:")
        argv = forager_argv(work, seeds, args.speed, args.seconds, settings, args.set)
        launched = time.time()
        subprocess.run(argv, cwd=REPO, check=False, timeout=args.seconds + 300,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.time() - launched
    records = list(read_log(log))
    times = sorted(r["wall_time"] for r in records)
    by_host = _by_host(records)
    # the two requests one host received closest together (what a busiest second of 2 is made of)
    closest = None
    for host_records in by_host.values():
        for a, b in zip(host_records, host_records[1:]):
            if closest is None or b["wall_time"] - a["wall_time"] < closest[0]:
                closest = (b["wall_time"] - a["wall_time"], a, b)
    used = read_usage(usage)
    cpu = used.get("cpu_s")
    logs = [work / "crawl.log", *(work / "run").rglob("*.log")]
    texts = [path.read_text(errors="replace") for path in logs if path.exists()]
    decide = sum(float(m) for text in texts for m in DECIDE_CPU.findall(text))
    return {
        "sites": sites, "seeds": len(seeds.read_text().split()), "seconds": args.seconds,
        "requests": len(records), "hosts_read": len({r["host"] for r in records}), "wall": round(wall, 1),
        "startup_s": round(times[0] - launched, 2) if times else None,
        "peak_rss_mib": used.get("peak_rss_mib"), "cpu_s": cpu,
        "cpu_ms_per_request": round(1000 * cpu / len(records), 2) if cpu and records else None,
        "decide_ms_per_request": round(1000 * decide / len(records), 3) if records else None,
        "busiest_host_second": max((busiest_second(r["wall_time"] for r in rs) for rs in by_host.values()),
                                   default=0),
        "processes": len({r["forager"] for r in records if r.get("forager")}) if args.redis else 1,
        "closest": None if closest is None else {
            "seconds": round(closest[0], 3),
            "requests": [[r["path"], r.get("forager"), r["status"]] for r in closest[1:]]},
    }


def _by_host(records: list[dict]) -> dict[str, list[dict]]:
    hosts: dict[str, list[dict]] = {}
    for record in sorted(records, key=lambda r: r["wall_time"]):
        hosts.setdefault(record["host"], []).append(record)
    return hosts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", default="10,100,1000", help="numbers of sites (comma-separated)")
    parser.add_argument("--seeds-per-site", type=int, default=1, help="the home page and sections, per site")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--host-rate", type=float, default=1.0, help="FORAGERS_HOST_RATE, requests/s per host")
    parser.add_argument("--concurrency", type=int, default=64, help="CONCURRENT_REQUESTS of the crawl")
    parser.add_argument("--speed", type=float, default=300.0)
    parser.add_argument("--days", type=int, default=2)
    parser.add_argument("--per-day", type=int, default=4000)
    parser.add_argument("--sections", type=int, default=20)
    parser.add_argument("--start", default="2024-01-01T12:00:00+00:00")
    parser.add_argument("--redis", type=int, default=0, metavar="N",
                        help="a Redis store and N foragers, each a process (0: SQLite, one process)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", default=None, help="write the results here")
    parser.add_argument("--keep", default=None, metavar="DIR",
                        help="work in DIR and keep it (the replay's request log, the crawl's logs)")
    args = parser.parse_args()
    with _work_dir(args.keep) as tmp:
        corpus = synth_corpus(Path(tmp) / "synth.jsonl.gz", days=args.days, rate=args.per_day,
                              sections=args.sections, seed=12)
        sections = _section_names(corpus)
        results = []
        redis = None
        if args.redis:
            from tests.redis_server import RedisServer

            redis = RedisServer(Path(tmp) / "redis").start()
        try:
            for sites in [int(n) for n in args.sites.split(",")]:
                work = Path(tmp) / f"n{sites}"
                store = redis.url if redis else f"sqlite:///{work}/colony.db"
                result = run_once(corpus, sites, sections, args, work, store)
                results.append(result)
                print(json.dumps(result), flush=True)
        finally:
            if redis is not None:
                redis.stop()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


@contextlib.contextmanager
def _work_dir(keep: str | None):
    if keep is None:
        with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
            yield tmp
        return
    Path(keep).mkdir(parents=True, exist_ok=True)
    yield keep


def _section_names(corpus: Path) -> list[str]:
    """The sections' slugs, as the replay's fronts name them (``/section/<slug>/``)."""
    from newsforagers.corpus import load_corpus
    from newsforagers.replay.index import slugify

    names: dict[str, None] = {}
    for article in load_corpus(corpus):
        for section in article.sections:
            names.setdefault(slugify(section), None)
    return list(names)


if __name__ == "__main__":
    raise SystemExit(main())
