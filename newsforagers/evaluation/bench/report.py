"""The benchmark's results as files: ``results.json`` and ``results.md``, the page a person
reads: the settings, a mean ± std table per crawler (over many sites, a compact table of the
per-site measures' spread), the targets, the failed runs and the plots
(:func:`results_markdown`, a pure function of the results; :func:`write_results` writes
both)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from newsforagers.evaluation.bench.summary import TARGET_CRAWLERS

RESULTS_JSON = "results.json"
RESULTS_MD = "results.md"


# metric -> (column header, decimals)
COLUMNS: dict[str, tuple[str, int]] = {
    "recall": ("recall", 3), "lag_median": ("lag median (min)", 1),
    "lag_p90": ("lag p90 (min)", 1), "download_efficiency": ("download eff.", 4),
    "sent_efficiency": ("sent eff.", 3), "found_urls": ("found URLs", 0),
    "relative_found_urls": ("rel. found URLs", 3), "freshness": ("freshness", 3),
    "age": ("age (min)", 1), "compartmentalisation": ("compart.", 3), "requests": ("requests", 0),
}

# a topical benchmark's measures (harvest.py) -> (column header, decimals)
TOPIC_COLUMNS: dict[str, tuple[str, int]] = {
    "harvest_rate": ("harvest rate", 3), "topic_recall": ("topic recall", 3),
    "recall_at_requests": ("recall at equal requests", 3), "topic_precision": ("precision", 3),
    "topic_lag_median": ("topic lag median (min)", 1),
    "topic_fetch_lag_median": ("fetch lag median (min)", 1), "topic_fetch_lag_p90": ("fetch lag p90 (min)", 1),
    "topic_window_articles": ("topic docs in window", 1), "topic_fetched": ("of them fetched", 1),
    "requests": ("requests", 0),
}


def _number(value: float | None, decimals: int) -> str:
    return "—" if value is None else f"{value:.{decimals}f}"


def _mean_std(entry: Mapping | None, decimals: int) -> str:
    if not entry or entry.get("mean") is None:
        return "—"
    return f"{entry['mean']:.{decimals}f} ± {entry['std']:.{decimals}f}"


def results_markdown(results: Mapping[str, Any], plots: Sequence[str] = ()) -> str:
    """``results.md``: the settings, a mean ± std table per crawler, the targets, the failed
    runs and the plots. A pure function of ``results`` (and the plot names)."""
    s = results["settings"]
    site = results.get("site") or {}
    lines = ["# Benchmark results", ""]
    retime = "off" if s["retime"] is None else f"{s['retime']:g} articles/day"
    lines.append(f"Corpus `{s['corpus']}` ({site.get('articles', '?')} articles), profile "
                 f"**{s['profile']}**, retime {retime}, speed {s['speed']:g}; each run "
                 f"{s['duration']:g} s ({s['duration'] * s['speed'] / 60:g} simulated minutes) "
                 f"from {site.get('start', s['start'])}, budget {s['budget']:g} requests/s, "
                 f"{s['repeats']} repeat(s), seed {s['seed']} (repeat r: seed + r).")
    if s.get("settings"):
        lines.append("Extra settings: " + ", ".join(f"`{k}={v}`" for k, v in s["settings"].items()) + ".")
    if results.get("command"):
        lines += ["", f"Command: `{results['command']}`"]
    lines += ["", "Mean ± standard deviation over the successful runs (docs/bench.md defines "
              "each measure; lags and age in simulated minutes).", ""]
    header = ["crawler", "runs"] + [COLUMNS[k][0] for k in COLUMNS]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * 2 + "---:|" * len(COLUMNS))
    for name, summary in results["crawlers"].items():
        runs = summary.get("runs", {})
        total = runs.get("ok", 0) + runs.get("failed", 0)
        cells = [f"`{name}`", f"{runs.get('ok', 0)}/{total}"]
        cells += [_mean_std(summary.get(key), decimals) for key, (_, decimals) in COLUMNS.items()]
        lines.append("| " + " | ".join(cells) + " |")
    lines += _sites_markdown(results)
    lines += _topic_markdown(results)
    lines += _split_markdown(results)
    lines += _curves_markdown(results)
    for crawler in TARGET_CRAWLERS:
        rows = [row for row in results["targets"] if row.get("crawler", "wlrl") == crawler]
        if not rows:
            continue
        lines += ["", f"## Targets (colony `{crawler}`, hard profile)", ""]
        if s["profile"] != "hard":
            lines += [f"The targets are set for the hard profile; this run used **{s['profile']}**, "
                      "so they are shown for information only.", ""]
        lines += ["From the means above.", "", "| target | value | bound | result |", "|---|---:|---:|---|"]
        for row in rows:
            decimals = {**TOPIC_COLUMNS, **COLUMNS}.get(row["metric"], ("", 3))[1]
            if row["metric"] == "download_efficiency":
                decimals = 4
            result = {True: "met", False: "**not met**", None: "not measured"}[row["met"]]
            bound = _number(row["bound"], decimals)
            if row["reference"] not in {"0.95", "0.97", "0.05", "0.6", "0.9"}:
                bound += f" ({row['reference']})"
            lines.append(f"| {row['target']} | {_number(row['value'], decimals)} | {bound} | {result} |")
    failures = results["failures"]
    lines += ["", "## Failed runs", ""]
    if not failures["count"]:
        lines.append("None.")
    for failure in failures["runs"]:
        lines.append(f"- `{failure['crawler']}` repeat {failure['repeat']}: "
                     + "; ".join(failure["problems"] or ["unknown"]))
    if plots:
        lines += ["", "## Plots", ""]
        lines += [f"![{Path(p).stem}]({p})" for p in plots]
    return "\n".join(lines) + "\n"


def _three(entry: Mapping[str, Any], key: str, decimals: int) -> str:
    """``min / median / max`` of a per-site measure (each the mean over the repeats)."""
    values = [(entry.get(f"{key}_{part}") or {}).get("mean") for part in ("min", "median", "max")]
    return " / ".join(_number(value, decimals) for value in values)


def _sites_markdown(results: Mapping[str, Any]) -> list[str]:
    """A many-site benchmark's section: each crawler's recall over all sites and over the
    sites never down, and the spread of the per-site measures (nothing with one site)."""
    s = results["settings"]
    if s.get("sites") is None:
        return []
    described = (results.get("site") or {}).get("sites") or {}
    down = described.get("down") or []
    lines = ["", "## Many sites", "",
             f"{s['sites']} sites of disjoint stories (split `{s['split']}`, profiles "
             + (f"`{s['site_profiles']}`" if s.get("site_profiles") else "none: fast and healthy")
             + f"), each on its own loopback address; every crawler started from every site's home "
             f"page, under {s['budget']:g} requests/s per host. "
             + (f"Sites with a down window: {', '.join(map(str, down))}. " if down else "")
             + "Recall over all sites' stories and over the stories of the sites never down in "
             "the run's window (mean ± std); per site, min / median / max over the sites of each "
             "run's recall, median lag (simulated minutes) and requests, and how a colony "
             "divided them: the foragers that read a site, and the busiest one's share of its "
             "requests (the mean over the repeats of each).", "",
             "| crawler | runs | recall, all sites | recall, sites never down | sites down | "
             "site recall min / median / max | site lag median min / median / max | "
             "site requests min / median / max | foragers a site min / median / max | "
             "busiest forager's share, median |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, summary in results["crawlers"].items():
        entry = summary.get("sites") or {}
        runs = summary.get("runs", {})
        cells = [f"`{name}`", f"{runs.get('ok', 0)}/{runs.get('ok', 0) + runs.get('failed', 0)}",
                 _mean_std(entry.get("recall_all"), 3), _mean_std(entry.get("recall_live"), 3),
                 _number((entry.get("down_sites") or {}).get("mean"), 1),
                 _three(entry, "recall", 3), _three(entry, "lag_median", 1),
                 _three(entry, "requests", 0), _three(entry, "foragers", 1),
                 _number((entry.get("main_share_median") or {}).get("mean"), 2)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _given(topic: Mapping[str, Any]) -> str:
    """What the topical crawlers were told of the topic, for the report."""
    text = topic.get("text") or ""
    if topic.get("words") == "examples":
        return (f"`-a topic=@topic.txt`, the titles of the section's {len(text.splitlines())} "
                "articles published before the window")
    return f"`-a topic=\"{text}\"`"


def _topic_markdown(results: Mapping[str, Any]) -> list[str]:
    """A topical benchmark's section: each crawler's topic measures (nothing without a
    topic)."""
    topic = results.get("topic")
    if not topic:
        return []
    at = topic.get("at_requests")
    lines = ["", f"## Topic `{topic['section']}`", "",
             f"The topic's documents: the articles filed in section `{topic['section']}` (on the "
             "synthetic site, in its regional editions too); the "
             f"colonies and `best_first` were given {_given(topic)}, the "
             "others crawled as always. Harvest rate: topic documents fetched / requests; topic "
             "recall: the window's topic documents output as novel / those published in it; "
             f"recall at equal requests: the same after the run's first {_number(at, 0)} requests "
             "(the fewest of any crawler, mean); precision: output items that are topic "
             "documents / output items; topic lag: of those output, found less published; fetch "
             "lag: of the window's topic documents fetched (output or not), first fetched less "
             "published, simulated minutes (docs/bench.md, *Topics*). Mean ± standard deviation "
             "over the successful runs.", "",
             "| crawler | runs | " + " | ".join(h for h, _ in TOPIC_COLUMNS.values()) + " |",
             "|---|---|" + "---:|" * len(TOPIC_COLUMNS)]
    for name, summary in results["crawlers"].items():
        measures = summary.get("topic") or {}
        runs = summary.get("runs", {})
        cells = [f"`{name}`", f"{runs.get('ok', 0)}/{runs.get('ok', 0) + runs.get('failed', 0)}"]
        cells += [_mean_std(measures.get(key), decimals) for key, (_, decimals) in TOPIC_COLUMNS.items()]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _split_markdown(results: Mapping[str, Any]) -> list[str]:
    """Where each crawler's lag comes from (nothing when no run has a split)."""
    rows = [(name, summary["lag_split"]) for name, summary in results["crawlers"].items()
            if summary.get("lag_split")]
    if not rows:
        return []
    lines = ["", "## Where the lag comes from", "",
             "Each story's lag split where the run first saw it: publication → the first page "
             "the run fetched that linked to it (discovery) → the story fetched (fetch); "
             "simulated minutes, mean ± std over the repeats of each run's median and p90. "
             "`unseen`: stories found with no fetched page showing them first.", "",
             "| crawler | discovery median | discovery p90 | fetch median | fetch p90 | unseen |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, split in rows:
        cells = [_mean_std(split.get(key), 1) for key in
                 ("discovery_median", "discovery_p90", "fetch_median", "fetch_p90", "unseen")]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return lines


def _curves_markdown(results: Mapping[str, Any]) -> list[str]:
    """The sweep's sections: each crawler's curve, and each crawler's lag at the others'
    efficiency (nothing without a sweep)."""
    curves = results.get("curves")
    if not curves:
        return []
    lines = ["", "## Curves", "",
             "Each crawler's points, sorted by download efficiency (means over the repeats; "
             "`default`: the crawler's defaults). Requests per story: requests over the "
             "articles published in the window.", "",
             "| crawler | point | recall | lag median | lag p90 | download eff. | requests | "
             "requests per story |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for crawler, points in curves.items():
        for point in points:
            label = "default" if point.get("default") else (point.get("label") or point["key"])
            lines.append(
                f"| `{crawler}` | {label} | {_number(point.get('recall'), 3)} | "
                f"{_number(point.get('lag_median'), 1)} | {_number(point.get('lag_p90'), 1)} | "
                f"{_number(point.get('download_efficiency'), 4)} | {_number(point.get('requests'), 0)} | "
                f"{_number(point.get('requests_per_story'), 2)} |")
    rows = results.get("at_efficiency") or []
    if rows:
        lines += ["", "## Lag at equal efficiency", "",
                  "A crawler's median and p90 lag read off its curve at another crawler's default "
                  "download efficiency (linear between the two points around it; — outside the "
                  "curve), beside that crawler's own.", "",
                  "| crawler | at the efficiency of | efficiency | its lag median | its lag p90 | "
                  "their lag median | their lag p90 |", "|---|---|---:|---:|---:|---:|---:|"]
        for row in rows:
            lines.append(
                f"| `{row['crawler']}` | `{row['at']}` | {_number(row['efficiency'], 4)} | "
                f"{_number(row['lag_median'], 1)} | {_number(row['lag_p90'], 1)} | "
                f"{_number(row['reference_lag_median'], 1)} | {_number(row['reference_lag_p90'], 1)} |")
        lines += ["", "## Recall and lag at equal requests", "",
                  "The same, read off at the other crawler's default number of requests.", "",
                  "| crawler | at the requests of | requests | its recall | its lag median | "
                  "their recall | their lag median |", "|---|---|---:|---:|---:|---:|---:|"]
        for row in rows:
            at = row.get("at_requests") or {}
            lines.append(
                f"| `{row['crawler']}` | `{row['at']}` | {_number(at.get('requests'), 0)} | "
                f"{_number(at.get('recall'), 3)} | {_number(at.get('lag_median'), 1)} | "
                f"{_number(at.get('reference_recall'), 3)} | {_number(at.get('reference_lag_median'), 1)} |")
    return lines


def write_results(out: Path | str, results: Mapping[str, Any], plots: Sequence[str] = ()
                  ) -> tuple[Path, Path]:
    """Write ``results.json`` and ``results.md`` into ``out``; return their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / RESULTS_JSON, out / RESULTS_MD
    json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md_path.write_text(results_markdown(results, plots), encoding="utf-8")
    return json_path, md_path


__all__ = ["COLUMNS", "RESULTS_JSON", "RESULTS_MD", "TOPIC_COLUMNS", "results_markdown", "write_results"]
