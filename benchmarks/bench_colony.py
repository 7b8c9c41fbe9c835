"""The colony in one process: peak memory of 16 foragers, and pages/s against the number of foragers.

    .venv/bin/python benchmarks/bench_colony.py                  # both: about 10 minutes
    .venv/bin/python benchmarks/bench_colony.py --only memory --memory-seconds 300
    .venv/bin/python benchmarks/bench_colony.py --only scaling --seconds 30 --counts 1,2,4,8,16 \\
        --series 60,0,60@200 --host-concurrency 16 [--plot docs/img/colony_scaling.png]
    .venv/bin/python benchmarks/bench_colony.py --replot results.json     # redraw a --json run

Every run is ``scrapy crawl forager`` in its own process, from the repository root, against a
fresh replay of the digital.gov corpus (``--retime 200 --speed 600``, ``hard`` profile), with a
fresh SQLite store, a fixed population (``FORAGERS_MIN = FORAGERS_MAX = n``), each forager
bootstrapping its own encoder, Scrapy's default per-crawler limits (16 requests, 8 per domain,
no delay) and ``FORAGERS_FETCH_TTL`` = ``--fetch-ttl`` (0.1 s: one simulated minute, the
default 10 s being wall time meant for a real site). ``--set KEY=VALUE`` adds a setting to
every crawl.

1. **Memory**: 16 foragers for ``--memory-seconds`` (no host rate limit by default, as in
   ``FORAGERS_HOST_RATE``'s default). The parent samples ``/proc/PID/status`` of the crawl
   process every 0.5 s: ``VmRSS`` (its maximum over the samples) and ``VmHWM`` (the kernel's
   own peak resident set, so nothing between two samples is missed). Scrapy's ``memusage/max``
   (``ru_maxrss`` of the whole process, read by the MemoryUsage extension every 60 s and at
   the start) is printed beside them. Target: < 1 GiB.
2. **Scaling**: for each series of ``--series`` (``RATE[@LATENCY_MS]``: ``FORAGERS_HOST_RATE``,
   0 for no limit, and an optional latency added to every download by
   :class:`LatencyMiddleware`, as a distant site would have) and each n of ``--counts``,
   ``--seconds`` of crawling. Pages/s = requests the replay served (its request log) per wall
   second, from ``--warmup`` seconds after the first request to ``--seconds`` after it. Also:
   the busiest second, novel documents (the colony's one feed), encoders fitted, and the CPU
   the crawl process and the replay used (cores, from ``/proc/PID/stat``, startup included).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from newsforagers.corpus import default_corpus_path  # noqa: E402
from newsforagers.replay.log import busiest_second, read_log  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402

GIB = 1024 ** 3
SAMPLE_EVERY = 0.5  # seconds between two /proc samples
EXTRA_SETTINGS: dict[str, str] = {}  # --set KEY=VALUE, for every crawl of this run
CLK_TCK = os.sysconf("SC_CLK_TCK")


# -- /proc -------------------------------------------------------------------------------------

def proc_status_kb(pid: int) -> dict[str, int]:
    """``VmRSS``, ``VmHWM``... of ``/proc/PID/status``, in kB ({} once the process is gone)."""
    values = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Vm"):
                    key, rest = line.split(":", 1)
                    values[key] = int(rest.split()[0])
    except (FileNotFoundError, ProcessLookupError):
        return {}
    return values


def proc_cpu_seconds(pid: int) -> float | None:
    """utime + stime of ``/proc/PID/stat`` in seconds (None once the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14 and 15 of proc(5)


# -- Scrapy's log --------------------------------------------------------------------------------

def last_stats(log: str) -> dict:
    """The numbers of the last "Dumping Scrapy stats" block of a log: in a colony every forager
    dumps its stats when it closes, and the root, which hosts the colony, closes last."""
    if "Dumping Scrapy stats:" not in log:
        return {}
    block = log.rsplit("Dumping Scrapy stats:", 1)[1]
    block = block.split("\n20", 1)[0]  # up to the next log line
    return {key: ast.literal_eval(value)
            for key, value in re.findall(r"'([^']+)': ([0-9.e+-]+)[,}]", block)}


# -- one colony run ------------------------------------------------------------------------------

@dataclass
class ColonyRun:
    name: str
    foragers: tuple[int, int]
    seconds: float  # asked (CLOSESPIDER_TIMEOUT)
    returncode: int
    elapsed: float  # wall seconds of the crawl process
    tmp: Path
    requests: list[dict]
    items: int
    summary: dict
    stats: dict
    tracebacks: int
    errors: int
    max_rss_kb: int = 0
    hwm_kb: int = 0
    crawl_cpu: float = 0.0  # CPU seconds of the crawl process
    replay_cpu: float = 0.0
    rss_samples: list[tuple[float, int]] = field(default_factory=list)

    @property
    def log_path(self) -> Path:
        return self.tmp / f"{self.name}.log"

    @property
    def run_dir(self) -> Path:
        return self.tmp / f"{self.name}-run"

    def events(self) -> list[dict]:
        path = self.run_dir / "events.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def crawl_argv(url: str, tmp: Path, name: str, seconds: float, settings: dict) -> list[str]:
    argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={url}",
            "-O", str(tmp / f"{name}.jsonl"),
            "-s", f"CLOSESPIDER_TIMEOUT={seconds}", "-s", f"LOG_FILE={tmp / f'{name}.log'}",
            "-s", "LOG_LEVEL=INFO", "-s", "TELNETCONSOLE_ENABLED=False",
            "-s", f"FORAGERS_STORE=sqlite:///{tmp / f'{name}.db'}",
            "-s", f"FORAGERS_RUN_DIR={tmp / f'{name}-run'}"]
    for key, value in settings.items():
        argv += ["-s", f"{key}={value}"]
    return argv


def run_colony(corpus: Path, tmp: Path, name: str, *, n_min: int, n_max: int, seconds: float,
               settings: dict | None = None, retime: float = 200.0, speed: float = 600.0,
               seed: int = 1, timeout: float | None = None, echo: bool = True,
               start: str | None = None) -> ColonyRun:
    """One ``scrapy crawl forager`` colony against a fresh replay, watched from here."""
    # the papers' colony (the numbers in docs/benchmarks.md); --set FORAGERS_STRATEGY=scheduled
    settings = {"FORAGERS_STRATEGY": "paper", "FORAGERS_MIN": n_min, "FORAGERS_MAX": n_max,
                "FORAGERS_SEED": seed, **(settings or {}), **EXTRA_SETTINGS}
    requests_path = tmp / f"{name}-requests.jsonl"
    timeout = timeout if timeout is not None else seconds + 300
    with ReplayProcess(corpus, speed=speed, retime=retime, start=start, log_path=requests_path) as replay:
        argv = crawl_argv(replay.url, tmp, name, seconds, settings)
        if echo:
            shown = ["python" if a == sys.executable else a.replace(replay.url, "$REPLAY").replace(str(tmp), "$TMP")
                     for a in argv]
            print("  $", shlex.join(shown), flush=True)
        replay_pid = replay.process.pid
        replay_cpu0 = proc_cpu_seconds(replay_pid) or 0.0
        began = time.monotonic()
        process = subprocess.Popen(argv, cwd=REPO, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        samples, hwm, cpu = [], 0, 0.0
        stderr_chunks: list[str] = []
        drain = threading.Thread(target=lambda: stderr_chunks.append(process.stderr.read()), daemon=True)
        drain.start()
        while process.poll() is None:
            status = proc_status_kb(process.pid)
            if status:
                samples.append((time.monotonic() - began, status.get("VmRSS", 0)))
                hwm = max(hwm, status.get("VmHWM", 0))
            used = proc_cpu_seconds(process.pid)
            if used is not None:
                cpu = used
            if time.monotonic() - began > timeout:
                process.kill()
                break
            time.sleep(SAMPLE_EVERY)
        process.wait()
        elapsed = time.monotonic() - began
        drain.join(10)
        replay_cpu = (proc_cpu_seconds(replay_pid) or replay_cpu0) - replay_cpu0
    log = (tmp / f"{name}.log").read_text() if (tmp / f"{name}.log").exists() else ""
    log += "".join(stderr_chunks)
    items_path = tmp / f"{name}.jsonl"
    items = sum(1 for _ in items_path.open()) if items_path.exists() else 0
    summary_path = tmp / f"{name}-run" / "colony.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    return ColonyRun(
        name=name, foragers=(n_min, n_max), seconds=seconds, returncode=process.returncode,
        elapsed=elapsed, tmp=tmp, requests=list(read_log(requests_path)), items=items,
        summary=summary, stats=last_stats(log), tracebacks=log.count("Traceback"),
        errors=len(re.findall(r"\] ERROR: ", log)),
        max_rss_kb=max((kb for _, kb in samples), default=0), hwm_kb=hwm, crawl_cpu=cpu,
        replay_cpu=replay_cpu, rss_samples=samples)


# -- an emulated network -------------------------------------------------------------------------

LATENCY_SETTING = "BENCH_LATENCY"


class LatencyMiddleware:
    """Downloader middleware (after the colony's shared fetches, before the download handler):
    every download waits ``BENCH_LATENCY`` seconds first, like a round trip to a distant site.
    The replay answers on the loopback in about a millisecond, so without it one forager's step
    barrier clears at once and the crawl process's CPU is the only limit."""

    def __init__(self, latency: float):
        self.latency = latency

    @classmethod
    def from_crawler(cls, crawler):
        from scrapy.exceptions import NotConfigured

        latency = crawler.settings.getfloat(LATENCY_SETTING, 0.0)
        if latency <= 0:
            raise NotConfigured
        return cls(latency)

    async def process_request(self, request, spider=None):
        import asyncio

        await asyncio.sleep(self.latency)
        return None


def parse_series(text: str) -> list[tuple[float, float]]:
    """``"60,0,60@200"`` -> [(60.0, 0.0), (0.0, 0.0), (60.0, 200.0)] (rate, latency ms)."""
    series = []
    for part in text.split(","):
        part = part.strip()
        if part:
            rate, _, latency = part.partition("@")
            series.append((float(rate), float(latency or 0)))
    return series


# -- the measurements ----------------------------------------------------------------------------

def wall_of(record: dict) -> float:
    return float(record["wall_time"])


def pages_per_second(requests: list[dict], warmup: float, seconds: float) -> tuple[float, int, float]:
    """(requests/s, requests counted, window length) from ``warmup`` seconds after the first
    request to ``seconds`` after it (the crawl's own timeout; later requests are its shutdown)."""
    if not requests:
        return 0.0, 0, 0.0
    first = min(wall_of(r) for r in requests)
    begin, end = first + warmup, first + seconds
    counted = sum(begin <= wall_of(r) < end for r in requests)
    span = end - begin
    return (counted / span if span > 0 else 0.0), counted, span


def memory(corpus: Path, tmp: Path, args) -> dict:
    print(f"\n== memory: 16 foragers, {args.memory_seconds:g} s, FORAGERS_HOST_RATE={args.memory_host_rate:g}",
          flush=True)
    run = run_colony(corpus, tmp, "memory", n_min=16, n_max=16, seconds=args.memory_seconds,
                     settings={"FORAGERS_HOST_RATE": args.memory_host_rate,
                               "FORAGERS_FETCH_TTL": args.fetch_ttl},
                     seed=args.seed)
    foragers = {r["forager"] for r in run.requests if r["forager"]}
    log = run.log_path.read_text() if run.log_path.exists() else ""
    fitted = len(re.findall(r"forager f\d+: state encoder fitted", log))
    memusage = run.stats.get("memusage/max", 0)
    result = {
        "returncode": run.returncode, "elapsed_s": round(run.elapsed, 1),
        "foragers_seen_by_replay": len(foragers), "requests": len(run.requests),
        "novel_documents": run.items, "encoders_fitted": fitted,
        "max_vmrss_mib": round(run.max_rss_kb / 1024, 1), "vmhwm_mib": round(run.hwm_kb / 1024, 1),
        "memusage_max_mib": round(memusage / 2 ** 20, 1) if memusage else None,
        "target_met": run.hwm_kb * 1024 < GIB and run.returncode == 0,
        "crawl_cpu_cores": round(run.crawl_cpu / run.elapsed, 2) if run.elapsed else None,
        "tracebacks": run.tracebacks, "errors": run.errors,
    }
    # VmRSS at regular points of the run (the last sample before each)
    step = max(5.0, round(args.memory_seconds / 10))
    timeline = []
    for mark in [step * i for i in range(1, int(run.elapsed // step) + 1)]:
        before = [kb for t, kb in run.rss_samples if t <= mark]
        if before:
            timeline.append((mark, round(before[-1] / 1024, 1)))
    result["vmrss_mib_over_time"] = timeline
    print(f"  foragers seen by the replay : {len(foragers)} (requests {len(run.requests)}, "
          f"novel documents {run.items}, exit {run.returncode}, {run.elapsed:.1f} s wall)")
    print(f"  foragers that fitted their encoder (FORAGERS_BOOTSTRAP_PAGES): {fitted} of 16")
    print(f"  peak RSS (VmHWM)            : {run.hwm_kb / 1024:8.1f} MiB")
    print(f"  max sampled VmRSS (0.5 s)   : {run.max_rss_kb / 1024:8.1f} MiB")
    print("  Scrapy memusage/max         : " + (f"{memusage / 2 ** 20:8.1f} MiB" if memusage else "—"))
    print("  VmRSS over the run (s: MiB)  : " + ", ".join(f"{t:g}: {mib}" for t, mib in timeline))
    print(f"  crawl process CPU           : {result['crawl_cpu_cores']} cores on average")
    print(f"  target < 1 GiB              : {'met' if result['target_met'] else 'NOT met'}")
    if run.tracebacks or run.errors:
        print(f"  log: {run.tracebacks} tracebacks, {run.errors} ERROR lines")
    return result


def fitted_encoders(run: ColonyRun) -> int:
    log = run.log_path.read_text() if run.log_path.exists() else ""
    return len(re.findall(r"forager f\d+: state encoder fitted", log))


def scaling(corpus: Path, tmp: Path, args) -> list[dict]:
    counts = [int(c) for c in args.counts.split(",") if c.strip()]
    rows = []
    for rate_limit, latency_ms in parse_series(args.series):
        print(f"\n== scaling: {counts} foragers, {args.seconds:g} s each, FORAGERS_HOST_RATE={rate_limit:g}, "
              f"FORAGERS_HOST_CONCURRENCY={args.host_concurrency}, FORAGERS_FETCH_TTL={args.fetch_ttl:g}, "
              f"added latency {latency_ms:g} ms", flush=True)
        for n in counts:
            settings = {"FORAGERS_HOST_RATE": rate_limit, "FORAGERS_HOST_CONCURRENCY": args.host_concurrency,
                        "FORAGERS_FETCH_TTL": args.fetch_ttl}
            if latency_ms > 0:
                settings[LATENCY_SETTING] = latency_ms / 1000
                settings["DOWNLOADER_MIDDLEWARES"] = json.dumps({"benchmarks.bench_colony.LatencyMiddleware": 960})
            run = run_colony(corpus, tmp, f"scale{n}-rate{rate_limit:g}-lat{latency_ms:g}", n_min=n, n_max=n,
                             seconds=args.seconds, settings=settings, seed=args.seed)
            rate, counted, span = pages_per_second(run.requests, args.warmup, args.seconds)
            row = {"host_rate": rate_limit, "latency_ms": latency_ms, "foragers": n, "pages_per_s": round(rate, 1),
                   "requests": len(run.requests), "counted": counted, "window_s": round(span, 1),
                   "busiest_second": busiest_second(wall_of(r) for r in run.requests),
                   "foragers_seen": len({r["forager"] for r in run.requests if r["forager"]}),
                   "encoders_fitted": fitted_encoders(run),
                   "shared_fetches": run.stats.get("newsforagers/fetch/shared", 0),
                   "novel_documents": run.items, "store_documents": run.summary.get("documents"),
                   "crawl_cpu_cores": round(run.crawl_cpu / run.elapsed, 2) if run.elapsed else None,
                   "replay_cpu_cores": round(run.replay_cpu / run.elapsed, 2) if run.elapsed else None,
                   "vmhwm_mib": round(run.hwm_kb / 1024, 1), "returncode": run.returncode,
                   "elapsed_s": round(run.elapsed, 1), "tracebacks": run.tracebacks}
            rows.append(row)
            print(f"  n={n:2d}: {rate:6.1f} pages/s ({counted} requests in {span:.1f} s), "
                  f"{run.items} novel documents, {row['encoders_fitted']} encoders fitted, crawl CPU "
                  f"{row['crawl_cpu_cores']} cores, replay CPU {row['replay_cpu_cores']}, exit {run.returncode}",
                  flush=True)
    print(f"\n  pages/s: requests the replay served from {args.warmup:g} s after the first request to "
          f"{args.seconds:g} s; concurrency {args.host_concurrency}")
    header = ("host rate", "latency ms", "foragers", "pages/s", "busiest 1 s", "requests", "novel docs",
              "encoders fitted", "crawl CPU", "replay CPU", "peak RSS MiB")
    print("  | " + " | ".join(header) + " |")
    print("  |" + "---|" * len(header))
    for row in rows:
        print(f"  | {row['host_rate']:g} | {row['latency_ms']:g} | {row['foragers']} | {row['pages_per_s']} | "
              f"{row['busiest_second']} | {row['requests']} | {row['novel_documents']} | "
              f"{row['encoders_fitted']}/{row['foragers']} | "
              f"{row['crawl_cpu_cores']} | {row['replay_cpu_cores']} | {row['vmhwm_mib']} |")
    return rows


def scaling_title(args) -> str:
    return (f"colony on the digital.gov replay (retime 200, speed 600), {args.seconds:g} s per run,\n"
            f"FORAGERS_HOST_CONCURRENCY={args.host_concurrency}, FORAGERS_FETCH_TTL={args.fetch_ttl:g}")


def plot(rows: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, left = plt.subplots(figsize=(6.6, 5.2), dpi=110)
    right = left.twinx()
    colours = ["tab:blue", "tab:purple", "tab:brown", "tab:olive"]
    keys = list(dict.fromkeys((r["host_rate"], r["latency_ms"]) for r in rows))
    top = 1.0
    drawn_budgets = set()
    for colour, (rate_limit, latency_ms) in zip(colours, keys):
        series = [r for r in rows if (r["host_rate"], r["latency_ms"]) == (rate_limit, latency_ms)]
        counts = [r["foragers"] for r in series]
        name = f"budget {rate_limit:g} req/s" if rate_limit > 0 else "no rate limit"
        if latency_ms:
            name += f", +{latency_ms:g} ms latency"
        left.plot(counts, [r["pages_per_s"] for r in series], "o-", color=colour, label=f"pages/s, {name}")
        right.plot(counts, [r["novel_documents"] for r in series], "s:", color=colour, alpha=0.6,
                   label=f"novel documents, {name}")
        if rate_limit > 0 and rate_limit not in drawn_budgets:
            drawn_budgets.add(rate_limit)
            left.axhline(rate_limit, color="tab:red", linestyle="--", alpha=0.8,
                         label=f"FORAGERS_HOST_RATE = {rate_limit:g} req/s")
        top = max([top, rate_limit] + [r["pages_per_s"] for r in series])
    counts = sorted({r["foragers"] for r in rows})
    left.set_xscale("log", base=2)
    left.set_xticks(counts, [str(c) for c in counts])
    left.set_xlabel("foragers (FORAGERS_MIN = FORAGERS_MAX)")
    left.set_ylabel("requests served per wall second")
    left.set_ylim(0, top * 1.2)
    right.set_ylabel("novel documents per run")
    right.set_ylim(0, max([1] + [r["novel_documents"] * 1.6 for r in rows]))
    lines = left.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    fig.legend(lines[0] + more[0], lines[1] + more[1], loc="lower center", fontsize=7, ncol=2, frameon=False)
    left.set_title(title, fontsize=9)
    left.grid(alpha=0.3)
    fig.tight_layout(rect=(0, 0.2, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="default: the digital.gov corpus of ../shared/data")
    parser.add_argument("--only", choices=("memory", "scaling"))
    parser.add_argument("--memory-seconds", type=float, default=60.0)
    parser.add_argument("--memory-host-rate", type=float, default=0.0,
                        help="FORAGERS_HOST_RATE of the memory run (default 0: no limit, the default)")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds of each scaling run")
    parser.add_argument("--counts", default="1,2,4,8,16")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--series", default="60,0,60@200",
                        help="scaling series, RATE[@LATENCY_MS] each: FORAGERS_HOST_RATE (0: no limit) and an "
                             "optional latency added to every download (LatencyMiddleware)")
    parser.add_argument("--host-concurrency", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fetch-ttl", type=float, default=60.0 / 600,
                        help="FORAGERS_FETCH_TTL, wall seconds (default: one simulated minute at speed 600)")
    parser.add_argument("--plot", default=str(REPO / "docs" / "img" / "colony_scaling.png"),
                        help="'' for no plot")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--keep", help="keep every log, feed and request log in this directory")
    parser.add_argument("--replot", metavar="JSON", help="only redraw the plot from a --json file of a run")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an extra Scrapy setting for every crawl (repeatable)")
    args = parser.parse_args(argv)
    if args.replot:
        saved = json.loads(Path(args.replot).read_text())
        plot(saved["scaling"], Path(args.plot), scaling_title(argparse.Namespace(**saved["args"])))
        print(f"plot: {args.plot}")
        return 0
    corpus = Path(args.corpus) if args.corpus else default_corpus_path()
    if corpus is None:
        print("the digital.gov corpus (../shared/data) is not available")
        return 2
    for item in args.set:
        key, _, value = item.partition("=")
        EXTRA_SETTINGS[key] = value
    print("command:", " ".join(["python", *sys.argv]))
    print(f"corpus: {corpus} (--retime 200 --speed 600)")
    results: dict = {"args": vars(args)}
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(args.keep) if args.keep else Path(tmpdir)
        tmp.mkdir(parents=True, exist_ok=True)
        if args.only in (None, "memory"):
            results["memory"] = memory(corpus, tmp, args)
        if args.only in (None, "scaling"):
            rows = scaling(corpus, tmp, args)
            results["scaling"] = rows
            if args.plot:
                plot(rows, Path(args.plot), scaling_title(args))
                print(f"  plot: {args.plot}")
    results["runtime_s"] = round(time.monotonic() - began, 1)
    print(f"\nbenchmark runtime: {results['runtime_s']} s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0 if all(r.get("returncode", 0) == 0
                    for r in [results.get("memory", {})] + results.get("scaling", [])) else 1


if __name__ == "__main__":
    sys.exit(main())
