"""The benchmark's results as files: ``results.json`` and ``results.md``, the page a person
reads: the settings, a mean ± std table per crawler, the targets, the failed runs and the plots
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
            decimals = COLUMNS[row["metric"]][1] if row["metric"] != "download_efficiency" else 4
            result = {True: "met", False: "**not met**", None: "not measured"}[row["met"]]
            bound = _number(row["bound"], decimals)
            if row["reference"] not in {"0.95", "0.05", "0.6"}:
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


def write_results(out: Path | str, results: Mapping[str, Any], plots: Sequence[str] = ()
                  ) -> tuple[Path, Path]:
    """Write ``results.json`` and ``results.md`` into ``out``; return their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / RESULTS_JSON, out / RESULTS_MD
    json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md_path.write_text(results_markdown(results, plots), encoding="utf-8")
    return json_path, md_path


__all__ = ["COLUMNS", "RESULTS_JSON", "RESULTS_MD", "results_markdown", "write_results"]
