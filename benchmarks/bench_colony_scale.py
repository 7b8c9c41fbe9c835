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
  replay received (target: within ±20 % from 10 to 1,000 sites: the scheduling does not grow
  with the number of hosts);
- **start-up**: wall seconds from the crawl's launch to the first request at the replay (target:
  < 30 s with 10,000 seeds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from crawl_usage import read_usage, scrapy_argv  # noqa: E402  (benchmarks/crawl_usage.py)

from newsforagers.replay.log import read_log  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402
from newsforagers.replay.synth import synth_corpus  # noqa: E402


def seeds_of(home_pages: list[str], sections: list[str], per_site: int) -> list[str]:
    """Each site's home page and its first ``per_site − 1`` sections."""
    seeds = []
    for home in home_pages:
        seeds.append(home)
        seeds += [home.rstrip("/") + f"/section/{name}/" for name in sections[: per_site - 1]]
    return seeds


def run_once(corpus: Path, sites: int, sections: list[str], args: argparse.Namespace, work: Path) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    log, homes, seeds = work / "requests.jsonl", work / "homes.txt", work / "seeds.txt"
    usage = work / "usage.json"
    with ReplayProcess(corpus, speed=args.speed, start=args.start, log_path=log,
                       extra_args=["--sites", str(sites), "--split", "hash", "--seeds", str(homes)]):
        home_pages = [line.strip() for line in homes.read_text().splitlines() if line.strip()]
        seeds.write_text("\n".join(seeds_of(home_pages, sections, args.seeds_per_site)) + "\n")
        argv = scrapy_argv(usage, "crawl", "forager", "-a", f"seeds=@{seeds}",
                           "-a", f"speed={args.speed}", "-s", f"CLOSESPIDER_TIMEOUT={args.seconds}",
                           "-s", f"LOG_FILE={work / 'crawl.log'}", "-s", "LOG_LEVEL=INFO",
                           "-s", "TELNETCONSOLE_ENABLED=False", "-s", f"FORAGERS_STORE=sqlite:///{work}/colony.db",
                           "-s", f"FORAGERS_RUN_DIR={work}/run", "-s", f"FORAGERS_HOST_RATE={args.host_rate}",
                           "-s", f"CONCURRENT_REQUESTS={args.concurrency}", "-O", str(work / "items.jsonl"))
        for setting in args.set:
            argv += ["-s", setting]
        launched = time.time()
        subprocess.run(argv, cwd=REPO, check=False, timeout=args.seconds + 300,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.time() - launched
    records = list(read_log(log))
    times = sorted(r["wall_time"] for r in records)
    used = read_usage(usage)
    cpu = used.get("cpu_s")
    return {
        "sites": sites, "seeds": len(seeds.read_text().split()), "seconds": args.seconds,
        "requests": len(records), "hosts_read": len({r["host"] for r in records}), "wall": round(wall, 1),
        "startup_s": round(times[0] - launched, 2) if times else None,
        "peak_rss_mib": used.get("peak_rss_mib"), "cpu_s": cpu,
        "cpu_ms_per_request": round(1000 * cpu / len(records), 2) if cpu and records else None,
    }


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
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        corpus = synth_corpus(Path(tmp) / "synth.jsonl.gz", days=args.days, rate=args.per_day,
                              sections=args.sections, seed=12)
        sections = _section_names(corpus)
        results = []
        for sites in [int(n) for n in args.sites.split(",")]:
            result = run_once(corpus, sites, sections, args, Path(tmp) / f"n{sites}")
            results.append(result)
            print(json.dumps(result), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


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
