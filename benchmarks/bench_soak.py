"""Soak: a colony for 6 simulated days on an accelerated replay, memory and CPU per page after warm-up.

    .venv/bin/python benchmarks/bench_soak.py                      # both strategies, 6 days at speed 1440: ~13 min
    .venv/bin/python benchmarks/bench_soak.py --strategy scheduled --days 1 --speed 2880     # a 30 s check
    .venv/bin/python benchmarks/bench_soak.py --set FORAGERS_MAX=4 --json soak.json [--plot docs/img/soak.png]
    .venv/bin/python benchmarks/bench_soak.py --replot soak.json [--warmup-days 2]      # report and redraw a --json run

Issue 8: a colony left running must not grow. Each strategy of ``--strategy`` (``paper``,
``scheduled``, or ``both``, one after the other) runs as users run it, ``scrapy crawl forager -a
seeds=$REPLAY -a speed=S`` in its own process from the repository root, for ``--days`` simulated
days (``CLOSESPIDER_TIMEOUT`` = days × 86,400 / speed wall seconds, plus ``--tail``), against a
fresh replay of a synthetic corpus of days + 1 days (``newsforagers synth``: 200 articles a
day, 20 sections, written to a temporary directory) whose clock runs ``--speed`` times faster
than the wall clock (1,440: a simulated day per wall minute). Settings: a fresh SQLite store,
the default population (``FORAGERS_MIN`` 2 to ``FORAGERS_MAX`` 16, by score), the host budget
``FORAGERS_HOST_RATE`` = ``--budget`` requests per wall second, ``FORAGERS_FETCH_TTL`` = one
simulated minute (it is wall seconds), ``FORAGERS_SEED`` = ``--seed``; ``--jobdir`` adds a
``JOBDIR`` (checkpoints), ``--set KEY=VALUE`` any setting.

The parent samples the crawl process every second: ``VmRSS`` of ``/proc/PID/status`` and
utime + stime of ``/proc/PID/stat``. Day 0 starts at the replay's first request. For every
window of ``--window-hours`` simulated hours (and for every simulated day, the table): RSS at
the window's end, crawl-process CPU milliseconds per page the replay served in the window (its
request log; wall time per page is the budget's, so CPU is the cost that could creep), pages,
novel documents (the feed, by their ``found_at`` on the site's clock), foragers alive (the
colony's events). *Flat after warm-up*: the windows after the first ``--warmup-days``, a
least-squares line of RSS and of CPU per page against the simulated day, its slope as a
percentage of the mean per day; PASS when RSS grows less than ``--rss-limit`` %/day and CPU per
page less than ``--cpu-limit`` %/day. Also printed: the stats the foragers dumped at their end
whose names hold ``memory/`` or ``evicted`` (caches that cap themselves), and ``memusage/max``.
At the default budget the first encoder fit (``FORAGERS_BOOTSTRAP_PAGES``), which also imports
scikit-learn and scipy once (about 80 MiB), comes at day 1.1–1.9: the default warm-up of 2 days
leaves that step out of the fit (docs/benchmarks.md, *Soak*).

A crawl that outlives its time by ``--margin`` seconds, or a replay that dies, is stopped
(SIGTERM, then SIGKILL, to its whole process group); the replay is always stopped.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_colony import proc_cpu_seconds, proc_status_kb  # noqa: E402
from newsforagers.evaluation.bench.plan import colony_settings  # noqa: E402
from newsforagers.replay.log import read_log  # noqa: E402
from newsforagers.replay.process import ReplayProcess  # noqa: E402
from newsforagers.replay.synth import synth_corpus  # noqa: E402

DAY = 86_400.0
SAMPLE_EVERY = 1.0  # wall seconds between two /proc samples
STRATEGIES = ("paper", "scheduled")
WATCHED_STATS = re.compile(r"memory/|evicted")


# -- the crawl, watched --------------------------------------------------------------------------

def crawl_argv(url: str, tmp: Path, name: str, args, strategy: str) -> list[str]:
    seconds = args.days * DAY / args.speed + args.tail
    argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", f"seeds={url}",
            "-a", f"speed={args.speed:g}", "-O", str(tmp / f"{name}.jsonl"),
            "-s", f"CLOSESPIDER_TIMEOUT={seconds:g}", "-s", f"LOG_FILE={tmp / f'{name}.log'}",
            "-s", "LOG_LEVEL=INFO", "-s", "TELNETCONSOLE_ENABLED=False",
            *colony_settings(strategy, tmp / f"{name}.db", tmp / f"{name}-run", args.seed, args.budget,
                             args.speed)]
    if args.jobdir:
        argv += ["-s", f"JOBDIR={tmp / f'{name}-job'}"]
    for item in args.set:
        argv += ["-s", item]
    return argv


def stop_group(process: subprocess.Popen, grace: float = 20.0) -> None:
    """SIGTERM to the crawl's process group, SIGKILL after ``grace`` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        if process.poll() is not None:
            return
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
        except subprocess.TimeoutExpired:
            pass


def count_lines(handle, counted: int) -> int:
    """``counted`` plus the complete lines appended to ``handle`` since the last call."""
    chunk = handle.read()
    return counted + chunk.count("\n")


def json_lines(path: Path) -> list[dict]:
    """The records of a JSON-lines file; a line cut short by a killed writer is skipped."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def soak(corpus: Path, tmp: Path, strategy: str, args) -> dict:
    """One colony of ``strategy`` for ``args.days`` simulated days; the raw record of the run."""
    name = f"soak-{strategy}"
    requests_path = tmp / f"{name}-requests.jsonl"
    crawl_seconds = args.days * DAY / args.speed
    timeout = crawl_seconds + args.tail + args.margin
    print(f"\n== {strategy}: {args.days:g} simulated days at speed {args.speed:g} "
          f"({crawl_seconds:.0f} s of crawling, stopped after {timeout:.0f} s)", flush=True)
    samples: list[tuple[float, int, float]] = []  # (wall time, VmRSS kB, CPU seconds)
    problem = None
    with ReplayProcess(corpus, speed=args.speed, profile=args.profile, seed=args.site_seed,
                       log_path=requests_path) as replay:
        argv = crawl_argv(replay.url, tmp, name, args, strategy)
        shown = ["python" if a == sys.executable else a.replace(replay.url, "$REPLAY").replace(str(tmp), "$TMP")
                 for a in argv]
        print("  $", shlex.join(shown), flush=True)
        stderr_path = tmp / f"{name}.stderr"
        began = time.time()
        with open(stderr_path, "w") as stderr:
            process = subprocess.Popen(argv, cwd=REPO, env=dict(os.environ, PYTHONUNBUFFERED="1"),
                                       stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
        try:
            requests_seen, next_report = 0, 1.0
            log_handle = None
            while process.poll() is None:
                now = time.time()
                status, cpu = proc_status_kb(process.pid), proc_cpu_seconds(process.pid)
                if status and cpu is not None:
                    samples.append((now, status.get("VmRSS", 0), cpu))
                if replay.process.poll() is not None:
                    problem = f"the replay exited (status {replay.process.returncode}) during the crawl"
                    break
                if now - began > timeout:
                    problem = f"the crawl was still running after {timeout:.0f} s"
                    break
                if log_handle is None and requests_path.exists():
                    log_handle = open(requests_path, encoding="utf-8")
                if log_handle is not None:
                    requests_seen = count_lines(log_handle, requests_seen)
                day = (now - began) * args.speed / DAY
                if day >= next_report and samples:
                    print(f"  ~day {day:4.1f}: RSS {samples[-1][1] / 1024:6.1f} MiB, CPU {samples[-1][2]:6.1f} s, "
                          f"{requests_seen} requests", flush=True)
                    next_report += 1.0
                time.sleep(SAMPLE_EVERY)
        except KeyboardInterrupt:
            problem = "interrupted"
            raise
        finally:
            if process.poll() is None:
                stop_group(process)
            if log_handle is not None:
                log_handle.close()
        elapsed = time.time() - began
        replay_alive = replay.process.poll() is None
    if problem:
        print(f"  ERROR: {problem}; the crawl was stopped (exit {process.returncode})", flush=True)
    elif not replay_alive:
        problem = f"the replay exited (status {replay.process.returncode}) during the crawl"
        print(f"  ERROR: {problem}", flush=True)
    log = (tmp / f"{name}.log").read_text(errors="replace") if (tmp / f"{name}.log").exists() else ""
    log += stderr_path.read_text(errors="replace")
    items = json_lines(tmp / f"{name}.jsonl")
    events = json_lines(tmp / f"{name}-run" / "events.jsonl")
    summary_path = tmp / f"{name}-run" / "colony.json"
    fits = [time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S"))  # Scrapy logs local time, to the second
            for stamp in re.findall(r"^(\S+ \S+) \S+ INFO: forager \S+: state encoder fitted", log, re.M)]
    return {"strategy": strategy, "returncode": process.returncode, "problem": problem, "encoder_fits": fits,
            "elapsed_s": round(elapsed, 1), "argv": shlex.join(shown), "samples": samples,
            "requests": list(read_log(requests_path)) if requests_path.exists() else [],
            "items": items, "events": events,
            "summary": json.loads(summary_path.read_text()) if summary_path.exists() else {},
            "dumps": stats_dumps(log), "tracebacks": log.count("Traceback"),
            "errors": len(re.findall(r"\] ERROR: ", log)),
            "stderr_tail": stderr_path.read_text(errors="replace")[-2000:] if process.returncode else ""}


# -- Scrapy's log --------------------------------------------------------------------------------

def stats_dumps(log: str) -> list[dict]:
    """The numbers of every "Dumping Scrapy stats" block: in a colony each forager dumps its own
    when it closes (a retired one early), the root, which hosts the colony, last."""
    dumps = []
    for block in log.split("Dumping Scrapy stats:")[1:]:
        block = block.split("\n20", 1)[0]  # up to the next log line
        dumps.append({key: ast.literal_eval(value)
                      for key, value in re.findall(r"'([^']+)': ([0-9.e+-]+)[,}]", block)})
    return dumps


def watched_stats(dumps: list[dict]) -> dict:
    """``memory/`` and ``evicted`` stats: the root's (last dump), and summed over every forager."""
    root = {k: v for k, v in (dumps[-1] if dumps else {}).items() if WATCHED_STATS.search(k)}
    total: dict[str, float] = {}
    for dump in dumps:
        for key, value in dump.items():
            if WATCHED_STATS.search(key):
                total[key] = total.get(key, 0) + value
    return {"root": root, "all_foragers": total if len(dumps) > 1 else {},
            "memusage_max_mib": round(dumps[-1].get("memusage/max", 0) / 2 ** 20, 1) if dumps else None}


# -- the measurements ----------------------------------------------------------------------------

def sim_to_wall(requests: list[dict], speed: float):
    """The replay's clock backwards, from a request that has both times: sim ts -> wall ts."""
    first = requests[0]
    sim0 = datetime.fromisoformat(first["sim_time"]).timestamp()
    wall0 = float(first["wall_time"])
    return lambda sim: wall0 + (sim - sim0) / speed


def value_at(samples: list[tuple[float, int, float]], index: int, when: float) -> float:
    """Sample column ``index`` at wall time ``when``, linear between the two samples around it."""
    before = [s for s in samples if s[0] <= when]
    after = [s for s in samples if s[0] >= when]
    if not before:
        return float(after[0][index])
    if not after:
        return float(before[-1][index])
    a, b = before[-1], after[0]
    if b[0] == a[0]:
        return float(a[index])
    return a[index] + (b[index] - a[index]) * (when - a[0]) / (b[0] - a[0])


def population_changes(events: list[dict]) -> list[tuple[float, int]]:
    """(wall time, +1 or -1) of every forager that started (first foragers and splits) or
    ended (retired, or stopped with the colony)."""
    changes = []
    for event in events:
        delta = {"start": 1, "split": 1, "retire": -1, "stop": -1}.get(event.get("event"), 0)
        if delta and event.get("time"):
            changes.append((datetime.fromisoformat(event["time"]).timestamp(), delta))
    return changes


def windows(run: dict, speed: float, hours: float, days: float) -> list[dict]:
    """One row per ``hours`` simulated hours from the first request, complete windows only."""
    requests, samples = run["requests"], run["samples"]
    if not requests or len(samples) < 2:
        return []
    t0 = min(float(r["wall_time"]) for r in requests)
    width = hours * 3600.0 / speed
    walls = sorted(float(r["wall_time"]) for r in requests)
    to_wall = sim_to_wall(requests, speed)
    found = sorted(to_wall(datetime.fromisoformat(i["found_at"]).timestamp())
                   for i in run["items"] if i.get("found_at"))
    alive_changes = population_changes(run["events"])
    rows = []
    n = int(math.floor(days * 24 / hours + 1e-9))
    for k in range(n):
        begin, end = t0 + k * width, t0 + (k + 1) * width
        if end > samples[-1][0] + SAMPLE_EVERY:
            break  # the crawl stopped before the window ended
        pages = sum(begin <= w < end for w in walls)
        cpu = value_at(samples, 2, end) - value_at(samples, 2, begin)
        rows.append({"day_begin": round(k * hours / 24, 4), "day_end": round((k + 1) * hours / 24, 4),
                     "rss_mib": round(value_at(samples, 1, end) / 1024, 1),
                     "cpu_s": round(cpu, 2), "pages": pages,
                     "cpu_ms_per_page": round(1000 * cpu / pages, 2) if pages else None,
                     "novel": sum(begin <= f < end for f in found),
                     "foragers": sum(d for t, d in alive_changes if t < end)})
    return rows


def fit(rows: list[dict], warmup_days: float) -> dict:
    """Least-squares slopes of RSS (at window end) and CPU ms/page (at window middle) against the
    simulated day, over the windows after the warm-up, as % of their mean per day."""
    import numpy as np

    kept = [r for r in rows if r["day_begin"] >= warmup_days - 1e-9]
    result: dict = {"windows": len(kept)}
    for key, x_of in (("rss_mib", lambda r: r["day_end"]),
                      ("cpu_ms_per_page", lambda r: (r["day_begin"] + r["day_end"]) / 2)):
        points = [(x_of(r), r[key]) for r in kept if r[key] is not None]
        if len(points) < 3:
            result[key] = None
            continue
        x, y = np.array(points, dtype=float).T
        slope, intercept = np.polyfit(x, y, 1)
        mean = float(y.mean())
        result[key] = {"mean": round(mean, 2), "slope_per_day": round(float(slope), 3),
                       "slope_pct_per_day": round(100 * float(slope) / mean, 2) if mean else None,
                       "first": round(float(y[0]), 2), "last": round(float(y[-1]), 2)}
    return result


def verdict(fitted: dict, args) -> str:
    rss, cpu = fitted.get("rss_mib"), fitted.get("cpu_ms_per_page")
    if not rss or not cpu or rss["slope_pct_per_day"] is None or cpu["slope_pct_per_day"] is None:
        return "NO DATA"
    ok = rss["slope_pct_per_day"] < args.rss_limit and cpu["slope_pct_per_day"] < args.cpu_limit
    return "PASS" if ok else "FAIL"


def analyse(run: dict, args) -> dict:
    fine = windows(run, args.speed, args.window_hours, args.days)
    daily = windows(run, args.speed, 24.0, args.days)
    fitted = fit(fine, args.warmup_days)
    result = {key: run[key] for key in ("strategy", "returncode", "problem", "elapsed_s", "argv",
                                        "tracebacks", "errors")}
    result.update({
        "requests": len(run["requests"]), "novel_documents": len(run["items"]),
        "store_documents": run["summary"].get("documents"),
        "foragers_started": sum(e.get("event") in ("start", "split") for e in run["events"]),
        "foragers_retired": sum(e.get("event") == "retire" for e in run["events"]),
        "peak_rss_mib": round(max((s[1] for s in run["samples"]), default=0) / 1024, 1),
        "crawl_cpu_s": round(run["samples"][-1][2], 1) if run["samples"] else None,
        "stats": watched_stats(run["dumps"]),
        "days": daily, "windows": fine, "fit": fitted,
    })
    result["verdict"] = verdict(fitted, args) if not run["problem"] and run["returncode"] == 0 else "ERROR"
    t0 = min((float(r["wall_time"]) for r in run["requests"]), default=0.0)
    result["encoder_fits_day"] = [round((t - t0) * args.speed / DAY, 3) for t in run["encoder_fits"]]
    result["samples"] = [[round(t, 2), kb, round(cpu, 2)] for t, kb, cpu in run["samples"]]  # to analyse again
    if run["stderr_tail"]:
        result["stderr_tail"] = run["stderr_tail"]
    return result


# -- the report ----------------------------------------------------------------------------------

def report(results: list[dict], args) -> None:
    print("\nper simulated day (day 0 starts at the first request; RSS at the day's end; "
          "CPU ms per page the replay served)")
    header = ("strategy", "day", "RSS MiB", "CPU ms/page", "pages", "novel docs", "foragers")
    print("| " + " | ".join(header) + " |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for res in results:
        for row in res["days"]:
            cpu = "—" if row["cpu_ms_per_page"] is None else f"{row['cpu_ms_per_page']:.2f}"
            print(f"| {res['strategy']} | {row['day_begin']:g}–{row['day_end']:g} | {row['rss_mib']:.1f} | {cpu} | "
                  f"{row['pages']:,} | {row['novel']} | {row['foragers']} |")
    print(f"\nafter warm-up (windows of {args.window_hours:g} simulated hours from day {args.warmup_days:g}; "
          f"limits: RSS < {args.rss_limit:g} %/day, CPU per page < {args.cpu_limit:g} %/day)")
    header = ("strategy", "windows", "RSS mean MiB", "RSS slope", "CPU ms/page mean", "CPU/page slope",
              "peak RSS MiB", "requests", "novel docs", "verdict")
    print("| " + " | ".join(header) + " |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for res in results:
        fitted = res["fit"]
        rss, cpu = fitted.get("rss_mib"), fitted.get("cpu_ms_per_page")
        rss_text = (f"{rss['mean']:.1f} | {rss['slope_per_day']:+.2f} MiB/day ({rss['slope_pct_per_day']:+.2f} %)"
                    if rss else "— | —")
        cpu_text = (f"{cpu['mean']:.2f} | {cpu['slope_per_day']:+.3f} ms/day ({cpu['slope_pct_per_day']:+.2f} %)"
                    if cpu else "— | —")
        print(f"| {res['strategy']} | {fitted['windows']} | {rss_text} | {cpu_text} | {res['peak_rss_mib']:.1f} | "
              f"{res['requests']:,} | {res['novel_documents']} | **{res['verdict']}** |")
    for res in results:
        stats = res["stats"]
        print(f"\n{res['strategy']}: exit {res['returncode']}, {res['elapsed_s']} s wall, crawl CPU "
              f"{res['crawl_cpu_s']} s, foragers started {res['foragers_started']} (retired "
              f"{res['foragers_retired']}), store documents {res['store_documents']}, "
              f"{res['tracebacks']} tracebacks, {res['errors']} ERROR lines, "
              f"memusage/max {stats['memusage_max_mib']} MiB")
        if res["problem"]:
            print(f"  ERROR: {res['problem']}")
        if stats["root"] or stats["all_foragers"]:
            print("  memory/eviction stats, root: " + json.dumps(stats["root"], sort_keys=True))
            if stats["all_foragers"] and stats["all_foragers"] != stats["root"]:
                print("  summed over every forager's dump: " + json.dumps(stats["all_foragers"], sort_keys=True))
        else:
            print("  no newsforagers/memory/* or */evicted stats in the dumps")
        if res.get("stderr_tail"):
            print("  stderr (end):\n" + res["stderr_tail"])


def plot(results: list[dict], path: Path, title: str, warmup_days: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.0, 6.4), dpi=110, sharex=True)
    colours = {"paper": "tab:blue", "scheduled": "tab:orange"}
    last_day = 1.0
    for res in results:
        rows = res["windows"]
        if not rows:
            continue
        colour = colours.get(res["strategy"], "tab:gray")
        last_day = max(last_day, rows[-1]["day_end"])
        top.plot([r["day_end"] for r in rows], [r["rss_mib"] for r in rows], "o-", ms=3, color=colour,
                 label=f"{res['strategy']} ({res['verdict']})")
        cpu = [((r["day_begin"] + r["day_end"]) / 2, r["cpu_ms_per_page"]) for r in rows
               if r["cpu_ms_per_page"] is not None]
        bottom.plot([c[0] for c in cpu], [c[1] for c in cpu], "o-", ms=3, color=colour, label=res["strategy"])
        fits = res.get("encoder_fits_day", [])
        top.plot(fits, [8] * len(fits), "^", ms=6, color=colour, alpha=0.8,
                 label=f"{res['strategy']}: a forager fitted its encoder" if fits else None)
        for axis, key in ((top, "rss_mib"), (bottom, "cpu_ms_per_page")):
            fitted = res["fit"].get(key)
            if fitted:  # the fitted line over the windows after warm-up
                mid = [r for r in rows if r["day_begin"] >= warmup_days - 1e-9]
                xs = [r["day_end"] if key == "rss_mib" else (r["day_begin"] + r["day_end"]) / 2 for r in mid]
                mx = sum(xs) / len(xs)
                axis.plot([xs[0], xs[-1]],
                          [fitted["mean"] + fitted["slope_per_day"] * (x - mx) for x in (xs[0], xs[-1])],
                          "--", color=colour, alpha=0.7, lw=1)
    for axis in (top, bottom):
        axis.axvspan(0, warmup_days, color="0.9", zorder=0)
        axis.grid(alpha=0.3)
        axis.set_xlim(0, last_day)
    top.set_ylim(bottom=0)
    bottom.set_ylim(bottom=0)
    top.set_ylabel("crawl process RSS (MiB)")
    bottom.set_ylabel("crawl CPU ms per page served")
    bottom.set_xlabel("simulated day (grey: warm-up, dashed: fit after it)")
    top.legend(fontsize=8, loc="center right")
    top.set_title(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def plot_title(args) -> str:
    return (f"colony soak on a synthetic replay (200 articles/day), speed {args.speed:g}, "
            f"{args.days:g} simulated days,\nFORAGERS_HOST_RATE={args.budget:g}, windows of "
            f"{args.window_hours:g} simulated hours")


def source_state() -> dict:
    """The commit and the uncommitted files of the package the crawls ran (read-only git)."""
    def git(*words):
        done = subprocess.run(["git", *words], cwd=REPO, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    changed = git("status", "--porcelain", "--", "newsforagers")
    diff = git("diff", "--", "newsforagers") or ""
    return {"commit": git("rev-parse", "HEAD"), "uncommitted": changed.splitlines() if changed else [],
            "diff_sha1": hashlib.sha1(diff.encode()).hexdigest()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", choices=("paper", "scheduled", "both"), default="both")
    parser.add_argument("--days", type=float, default=6.0, help="simulated days of crawling (default 6)")
    parser.add_argument("--speed", type=float, default=1440.0,
                        help="simulated seconds per wall second (default 1440: a day per wall minute)")
    parser.add_argument("--budget", type=float, default=20.0, help="FORAGERS_HOST_RATE, requests per wall second")
    parser.add_argument("--profile", choices=("hard", "easy"), default="hard")
    parser.add_argument("--rate", type=float, default=200.0, help="articles per simulated day of the corpus")
    parser.add_argument("--sections", type=int, default=20)
    parser.add_argument("--corpus-seed", type=int, default=0)
    parser.add_argument("--site-seed", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1, help="FORAGERS_SEED")
    parser.add_argument("--jobdir", action="store_true", help="run with a JOBDIR (checkpoints on)")
    parser.add_argument("--window-hours", type=float, default=6.0,
                        help="simulated hours per window of the fit and the plot (default 6)")
    parser.add_argument("--warmup-days", type=float,
                        help="simulated days left out of the fit (default 2: past the first encoder fit)")
    parser.add_argument("--rss-limit", type=float, help="RSS growth limit, %% of the mean per day (default 5)")
    parser.add_argument("--cpu-limit", type=float,
                        help="CPU-per-page growth limit, %% of the mean per day (default 10)")
    parser.add_argument("--tail", type=float, default=5.0,
                        help="wall seconds the crawl runs past the last day (its start-up and bootstrap)")
    parser.add_argument("--margin", type=float, default=180.0,
                        help="wall seconds past its time after which a crawl is killed")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an extra Scrapy setting for every crawl (repeatable)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--plot", default=str(REPO / "docs" / "img" / "soak.png"), help="'' for no plot")
    parser.add_argument("--keep", help="keep the corpus, logs, feeds and request logs in this directory")
    parser.add_argument("--replot", metavar="JSON", help="only redraw the plot from a --json file of a run")
    args = parser.parse_args(argv)
    if args.replot:
        saved = json.loads(Path(args.replot).read_text())
        old = argparse.Namespace(**saved["args"])
        # a warm-up or limits given now re-fit the saved windows
        for key in ("warmup_days", "rss_limit", "cpu_limit"):
            if getattr(args, key) is not None:
                setattr(old, key, getattr(args, key))
        for res in saved["runs"]:
            res["fit"] = fit(res["windows"], old.warmup_days)
            if res["verdict"] != "ERROR":
                res["verdict"] = verdict(res["fit"], old)
        report(saved["runs"], old)
        plot(saved["runs"], Path(args.plot), plot_title(old), old.warmup_days)
        print(f"plot: {args.plot}")
        return 0
    for key, default in (("warmup_days", 2.0), ("rss_limit", 5.0), ("cpu_limit", 10.0)):
        if getattr(args, key) is None:
            setattr(args, key, default)
    if not args.days > 0 or not args.speed > 0 or not args.rate > 0:
        parser.error(f"--days ({args.days:g}), --speed ({args.speed:g}) and --rate ({args.rate:g}) "
                     "must be higher than 0")
    bad = [item for item in args.set if "=" not in item]
    if bad:
        parser.error(f"--set {bad[0]!r} is not KEY=VALUE")
    strategies = STRATEGIES if args.strategy == "both" else (args.strategy,)
    print("command:", shlex.join(["python", *sys.argv]), flush=True)
    began = time.monotonic()
    source = {"at_start": source_state()}
    results, failed = [], []
    with tempfile.TemporaryDirectory(prefix="soak-") as tmpdir:
        tmp = Path(args.keep) if args.keep else Path(tmpdir)
        tmp.mkdir(parents=True, exist_ok=True)
        corpus_days = max(7, math.ceil(args.days) + 1)
        corpus = synth_corpus(tmp / "corpus.jsonl.gz", days=corpus_days, rate=args.rate,
                              sections=args.sections, seed=args.corpus_seed)
        print(f"corpus: newsforagers synth --days {corpus_days} --rate {args.rate:g} --sections {args.sections} "
              f"--seed {args.corpus_seed} ({round(corpus_days * args.rate)} articles), replay profile {args.profile}",
              flush=True)
        for strategy in strategies:
            try:
                results.append(analyse(soak(corpus, tmp, strategy, args), args))
            except (TimeoutError, RuntimeError, ValueError) as error:  # the replay did not start
                print(f"  ERROR: {strategy}: {error}", flush=True)
                failed.append(strategy)
    runtime = round(time.monotonic() - began, 1)
    source["at_end"] = source_state()
    if source["at_end"] != source["at_start"]:
        print("\nnote: newsforagers/ changed in the checkout during the run (see the JSON's source)")
    report(results, args)
    print(f"\nbenchmark runtime: {runtime} s")
    if args.plot and any(r["windows"] for r in results):
        plot(results, Path(args.plot), plot_title(args), args.warmup_days)
        print(f"plot: {args.plot}")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "runtime_s": runtime, "source": source,
                                               "runs": results},
                                              indent=2) + "\n")
        print(f"json: {args.json}")
    return 0 if results and not failed and all(r["verdict"] == "PASS" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
