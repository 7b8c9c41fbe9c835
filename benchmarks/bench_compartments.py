"""Compartmentalisation of a colony on the digital.gov replay (the papers' Fig. 3).

    .venv/bin/python benchmarks/bench_compartments.py [--seconds 300] [--window 75] [--fixed 4]
        [--settle 10] [--start ISO] [--set KEY=VALUE] [--plot docs/img/compartments.png]
        [--keep DIR] [--json FILE] [--from-json FILE]

Two colonies, each ``scrapy crawl forager`` for ``--seconds`` of wall time against a fresh replay
of digital.gov (``--retime 200 --speed 600``, ``hard``), with ``FORAGERS_FETCH_TTL=0`` so that
every visit of every forager reaches the replay's request log, no host budget, fresh store:

- ``colony``: the default population (``FORAGERS_MIN`` 2, ``FORAGERS_MAX`` 16, the papers'
  split and retire scores), which may or may not split within the run;
- ``fixed``: ``FORAGERS_MIN = FORAGERS_MAX = --fixed`` (4), so that there are always several
  foragers to compare.

Who visited what comes from two records:

- the replay's request log (``X-Forager`` header): every download, step pages and probes alike;
- a step record written by :class:`StepRecorder`, an extension this script adds with
  ``-s EXTENSIONS=...``: one line per step page received (forager, path number, step number, the
  site's ``Date``), so trajectories can follow the walk itself, within one path.

Over consecutive windows of ``--window`` simulated minutes (75, the papers' choice; 7.5 wall
seconds at speed 600; a last partial window is dropped) and over the whole run, it computes
(definitions in :mod:`newsforagers.evaluation.compartments`): the share of distinct pages visited
by exactly one forager (with a reference: the same visits with the forager labels shuffled),
and the share of distinct two-step trajectories among those several foragers started from the
same page. Windows with fewer than two active foragers are left out of the averages, which are
given over all windows and over those after the first ``--settle`` simulated hours (10: the
replay starts just before the first article, so the site is nearly empty at first, and every
forager walks in random order until it has bootstrapped its encoder).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from newsforagers.evaluation.compartments import (  # noqa: E402
    Visit,
    log_visits,
    one_forager_share,
    pages_by_forager_count,
    pooled,
    trajectory_share,
    two_step_trajectories,
    window_table,
)

STEP_LOG_SETTING = "BENCH_STEP_LOG"
PAPERS_ONE_FORAGER = 0.6


class StepRecorder:
    """Scrapy extension: one JSON line per step page a forager received (``BENCH_STEP_LOG``).

    Every forager of the colony gets it (children copy the root's settings) and appends to the
    same file; the colony runs in one thread, so lines never interleave.
    """

    def __init__(self, crawler, path: str):
        from scrapy import signals

        self.crawler = crawler
        self.file = open(path, "a", encoding="utf-8")
        crawler.signals.connect(self.response_received, signal=signals.response_received)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler):
        from scrapy.exceptions import NotConfigured

        path = crawler.settings.get(STEP_LOG_SETTING)
        if not path:
            raise NotConfigured(f"{STEP_LOG_SETTING} is not set")
        return cls(crawler, path)

    def response_received(self, response, request, spider=None):
        meta = request.meta
        if meta.get("forager_kind") != "step" or self.file.closed:
            return
        date = response.headers.get(b"Date")
        sim = parsedate_to_datetime(date.decode("latin-1")).timestamp() if date else None
        parts = urlsplit(meta.get("forager_url", request.url))
        self.file.write(json.dumps({
            "forager": getattr(self.crawler.spider, "forager_id", None),
            "path": parts.path + (f"?{parts.query}" if parts.query else ""),
            "path_id": meta.get("forager_path"), "step": meta.get("forager_step"),
            "status": response.status, "sim_time": sim, "wall_time": time.time(),
        }) + "\n")
        self.file.flush()

    def spider_closed(self, spider, reason):
        self.file.close()


def step_visits(path: Path) -> list[Visit]:
    """Visits of the step record; a path of a forager is one segment."""
    visits = []
    if not path.exists():
        return visits
    for line in path.read_text().splitlines():
        if not line.endswith("}"):
            continue
        record = json.loads(line)
        if record["forager"] and record["sim_time"] is not None:
            visits.append(Visit(float(record["sim_time"]), record["forager"], record["path"],
                                (record["forager"], record["path_id"])))
    return visits


def full_windows(rows: list[dict], last_time: float) -> list[dict]:
    return [r for r in rows if r["end"] <= last_time + 1e-9]


def settled(rows: list[dict], hours: float) -> list[dict]:
    """The windows that begin ``hours`` simulated hours or more after the first one."""
    if not rows:
        return []
    origin = rows[0]["begin"]
    return [r for r in rows if r["begin"] - origin >= hours * 3600 - 1e-6]


def analyse(visits: list[Visit], width: float, seed: int, settle_hours: float = 0.0) -> dict:
    import numpy as np

    if not visits:
        return {"visits": 0}
    start = min(v.time for v in visits)
    last = max(v.time for v in visits)
    rows = full_windows(window_table(visits, width, rng=np.random.default_rng(seed), start=start, end=last),
                        last)
    whole_traj = trajectory_share(two_step_trajectories(visits))
    histogram = pages_by_forager_count(visits)
    return {
        "visits": len(visits), "pages": sum(histogram.values()),
        "foragers": len({v.forager for v in visits}),
        "sim_hours": (last - start) / 3600,
        "rows": rows, "pooled": pooled(rows), "pooled_settled": pooled(settled(rows, settle_hours)),
        "settle_hours": settle_hours,
        "overall_one_forager_share": one_forager_share(visits),
        "overall_pages_by_foragers": dict(sorted(histogram.items())),
        "overall_trajectory": {"starts": whole_traj.starts, "distinct": whole_traj.distinct,
                               "total": whole_traj.total, "ratio": whole_traj.ratio},
    }


def fmt(value, spec=".3f") -> str:
    return "—" if value is None else format(value, spec)


def report(name: str, run, log_result: dict, step_result: dict) -> None:
    events = Counter(e["event"] for e in run.events())
    print(f"\n-- {name}: exit {run.returncode}, {run.elapsed:.0f} s wall, {len(run.requests)} requests, "
          f"{run.items} novel documents; events {dict(events)}; tracebacks {run.tracebacks}")
    for label, result in (("requests (log)", log_result), ("step pages", step_result)):
        if not result.get("visits"):
            print(f"   {label}: no visits")
            continue
        p = result["pooled"]
        print(f"   {label}: {result['visits']} visits of {result['pages']} pages by {result['foragers']} "
              f"foragers over {result['sim_hours']:.1f} simulated hours")
        print(f"     one-forager share per window: mean {fmt(p['one_forager_share_mean'])} "
              f"(min {fmt(p['one_forager_share_min'])}, max {fmt(p['one_forager_share_max'])}, "
              f"{p['windows']} windows); shuffled labels {fmt(p['shuffled_one_forager_share_mean'])}; "
              f"whole run {fmt(result['overall_one_forager_share'])}")
        s = result["pooled_settled"]
        print(f"     after the first {result['settle_hours']:g} simulated hours: one-forager share per window mean "
              f"{fmt(s['one_forager_share_mean'])} (min {fmt(s['one_forager_share_min'])}, max "
              f"{fmt(s['one_forager_share_max'])}, {s['windows']} windows), shuffled labels "
              f"{fmt(s['shuffled_one_forager_share_mean'])}; distinct 2-step {s['trajectory_distinct']}/"
              f"{s['trajectory_total']} = {fmt(s['trajectory_ratio'])}")
        print(f"     pages by number of foragers (whole run): {result['overall_pages_by_foragers']}")
        t = result["overall_trajectory"]
        print(f"     distinct 2-step trajectories: per window {p['trajectory_distinct']}/{p['trajectory_total']} "
              f"= {fmt(p['trajectory_ratio'])} ({p['trajectory_starts']} shared start pages); whole run "
              f"{t['distinct']}/{t['total']} = {fmt(t['ratio'])} ({t['starts']} shared start pages)")


def print_table(results: dict) -> None:
    settle = next((r[s]["settle_hours"] for r in results.values() for s in ("log", "steps")
                   if r[s].get("visits")), 0)
    print(f"\n| run | source | visits | pages | foragers | one-forager share: mean per window (min–max), "
          f"all windows | after {settle:g} sim h | same, labels shuffled | whole run | distinct 2-step: "
          f"all windows | after {settle:g} sim h | whole run |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, result in results.items():
        for source, label in (("log", "all requests"), ("steps", "step pages")):
            r = result[source]
            if not r.get("visits"):
                continue
            p, s, t = r["pooled"], r["pooled_settled"], r["overall_trajectory"]
            print(f"| {name} | {label} | {r['visits']} | {r['pages']} | {r['foragers']} | "
                  f"{fmt(p['one_forager_share_mean'], '.2f')} ({fmt(p['one_forager_share_min'], '.2f')}–"
                  f"{fmt(p['one_forager_share_max'], '.2f')}, {p['windows']} w) | "
                  f"{fmt(s['one_forager_share_mean'], '.2f')} ({fmt(s['one_forager_share_min'], '.2f')}–"
                  f"{fmt(s['one_forager_share_max'], '.2f')}, {s['windows']} w) | "
                  f"{fmt(s['shuffled_one_forager_share_mean'], '.2f')} | "
                  f"{fmt(r['overall_one_forager_share'], '.2f')} | "
                  f"{fmt(p['trajectory_ratio'], '.2f')} | "
                  f"{fmt(s['trajectory_ratio'], '.2f')} ({s['trajectory_distinct']}/{s['trajectory_total']}) | "
                  f"{fmt(t['ratio'], '.2f')} ({t['distinct']}/{t['total']}) |")


def plot(results: dict, window_minutes: float, path: Path, title: str) -> None:
    """Three panels: the one-forager share per window from all requests and from step pages
    (each with its shuffled-labels reference), and the distinct two-step trajectory share."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, axes = plt.subplots(3, 1, figsize=(7.4, 9.6), dpi=110, sharex=True)
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    panels = ((axes[0], "log", "one-forager share\n(all requests, replay log)"),
              (axes[1], "steps", "one-forager share\n(step pages)"))
    handles = []
    for colour, (name, result) in zip(palette, results.items()):
        handles.append(Line2D([], [], color=colour, lw=4, label=name))
        for axis, source, _ in panels:
            rows = [r for r in result[source].get("rows", []) if r["foragers"] >= 2]
            if not rows:
                continue
            origin = result[source]["rows"][0]["begin"]
            hours = [(r["begin"] - origin) / 3600 for r in rows]
            axis.plot(hours, [r["one_forager_share"] for r in rows], "-", marker="o", ms=2.5, color=colour)
            axis.plot(hours, [r["shuffled_one_forager_share"] for r in rows], ":", color=colour, alpha=0.8)
        for source, style in (("steps", "-"), ("log", "--")):
            rows = [r for r in result[source].get("rows", []) if r["foragers"] >= 2]
            if not rows:
                continue
            origin = result[source]["rows"][0]["begin"]
            points = [((r["begin"] - origin) / 3600, r["trajectory_ratio"]) for r in rows
                      if r["trajectory_ratio"] is not None]
            axes[2].plot([h for h, _ in points], [x for _, x in points], style, marker="o", ms=2.5,
                         color=colour, alpha=1.0 if style == "-" else 0.7)
    for axis, _, label in panels:
        axis.axhline(PAPERS_ONE_FORAGER, color="grey", linestyle="-.")
        axis.set_ylabel(label, fontsize=8)
        axis.set_ylim(0, 1.0)
        axis.grid(alpha=0.3)
    axes[2].axhline(1.0, color="grey", linestyle="-.")
    axes[2].set_ylabel("distinct 2-step trajectories\nfrom shared start pages", fontsize=8)
    axes[2].set_ylim(0, 1.05)
    axes[2].grid(alpha=0.3)
    axes[2].set_xlabel(f"simulated hours (windows of {window_minutes:g} simulated minutes)")
    axes[0].set_title(title, fontsize=9)
    handles += [
        Line2D([], [], color="black", ls="-", marker="o", ms=2.5,
               label="observed (bottom: consecutive steps of a path)"),
        Line2D([], [], color="black", ls=":", label="same visits, forager labels shuffled"),
        Line2D([], [], color="black", ls="--", marker="o", ms=2.5, alpha=0.7,
               label="bottom: consecutive requests (replay log)"),
        Line2D([], [], color="grey", ls="-.", label="the papers: about 0.6 (top), near 1 (bottom)"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def plot_title(args) -> str:
    start = f", start {args.start}" if getattr(args, "start", None) else ""
    extra = f", {' '.join(args.set)}" if getattr(args, "set", None) else ""
    return (f"digital.gov replay (retime 200, speed 600{start}), FORAGERS_FETCH_TTL=0{extra},\n"
            f"{args.seconds:g} s wall per run")


def main(argv=None) -> int:
    from benchmarks.bench_colony import EXTRA_SETTINGS, run_colony
    from newsforagers.corpus import default_corpus_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="default: the digital.gov corpus of ../shared/data")
    parser.add_argument("--seconds", type=float, default=300.0, help="wall seconds of each run")
    parser.add_argument("--window", type=float, default=75.0, help="window, simulated minutes")
    parser.add_argument("--fixed", type=int, default=4, help="population of the fixed run (0: skip it)")
    parser.add_argument("--skip-colony", action="store_true", help="run only the fixed population")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", help="the replay's simulated start, ISO 8601 (default: just before the "
                                        "first article, the site then grows from empty)")
    parser.add_argument("--plot", default=str(REPO / "docs" / "img" / "compartments.png"), help="'' for none")
    parser.add_argument("--keep", help="keep every log and record in this directory")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an extra Scrapy setting for every crawl (repeatable)")
    parser.add_argument("--settle", type=float, default=10.0,
                        help="simulated hours left out of the 'after' averages (the site starts nearly "
                             "empty and the foragers bootstrap)")
    parser.add_argument("--from-json", metavar="JSON", action="append",
                        help="no crawl: print the table (with --settle) and redraw the plot of --json files "
                             "(repeatable: their runs are merged, named after their --set and --start)")
    args = parser.parse_args(argv)
    if args.from_json:
        merged, first_args = {}, None
        for path in args.from_json:
            saved = json.loads(Path(path).read_text())
            saved_args = argparse.Namespace(**saved["args"])
            first_args = first_args or saved_args
            suffix = "".join(f", {item}" for item in getattr(saved_args, "set", None) or [])
            if getattr(saved_args, "start", None):
                suffix += f", start {saved_args.start}"
            for name, result in saved["results"].items():
                for source in ("log", "steps"):
                    if result[source].get("visits"):
                        result[source]["pooled_settled"] = pooled(settled(result[source]["rows"], args.settle))
                        result[source]["settle_hours"] = args.settle
                merged[name + suffix] = result
        print_table(merged)
        if args.plot:
            title_args = argparse.Namespace(**{**vars(first_args), "set": None, "start": None})
            plot(merged, first_args.window, Path(args.plot), plot_title(title_args))
            print(f"plot: {args.plot}")
        return 0
    for item in args.set:
        key, _, value = item.partition("=")
        EXTRA_SETTINGS[key] = value
    corpus = Path(args.corpus) if args.corpus else default_corpus_path()
    if corpus is None:
        print("the digital.gov corpus (../shared/data) is not available")
        return 2
    print("command:", " ".join(["python", *sys.argv]))
    print(f"corpus: {corpus} (--retime 200 --speed 600, start {args.start or 'default'}); "
          f"windows of {args.window:g} simulated minutes "
          f"= {args.window * 60 / 600:g} wall seconds")
    width = args.window * 60.0
    plan = []
    if not args.skip_colony:
        plan.append(("colony", 2, 16))  # FORAGERS_MIN/MAX defaults, given explicitly
    if args.fixed:
        plan.append((f"fixed {args.fixed}", args.fixed, args.fixed))
    began = time.monotonic()
    results, codes = {}, []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(args.keep) if args.keep else Path(tmpdir)
        tmp.mkdir(parents=True, exist_ok=True)
        for name, n_min, n_max in plan:
            key = name.replace(" ", "")
            steps_path = tmp / f"{key}-steps.jsonl"
            print(f"\n== {name}: FORAGERS_MIN={n_min} FORAGERS_MAX={n_max}, {args.seconds:g} s", flush=True)
            run = run_colony(corpus, tmp, key, n_min=n_min, n_max=n_max, seconds=args.seconds, seed=args.seed,
                             start=args.start,
                             settings={"FORAGERS_FETCH_TTL": 0, STEP_LOG_SETTING: steps_path,
                                       "EXTENSIONS": json.dumps({"benchmarks.bench_compartments.StepRecorder": 900})})
            codes.append(run.returncode)
            log_result = analyse(log_visits(run.requests), width, args.seed, args.settle)
            step_result = analyse(step_visits(steps_path), width, args.seed, args.settle)
            report(name, run, log_result, step_result)
            results[name] = {"log": log_result, "steps": step_result, "returncode": run.returncode,
                             "requests": len(run.requests), "novel_documents": run.items,
                             "events": dict(Counter(e["event"] for e in run.events())),
                             "elapsed_s": round(run.elapsed, 1), "tracebacks": run.tracebacks}
    print_table(results)
    if args.plot and results:
        plot(results, args.window, Path(args.plot), plot_title(args))
        print(f"plot: {args.plot}")
    runtime = time.monotonic() - began
    print(f"benchmark runtime: {runtime:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results,
                                               "runtime_s": round(runtime, 1)}, indent=1) + "\n")
    return 0 if all(code == 0 for code in codes) else 1


if __name__ == "__main__":
    sys.exit(main())
