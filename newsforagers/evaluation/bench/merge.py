"""Several benchmarks of one site as one (``newsforagers bench --merge DIR... --out DIR``): the
runs of benchmarks made one after the other — the baselines' curves one day, the colony's after
a change — judged again from their files, with today's measures (the lag split among them),
and summarised, tabled and plotted together. The benchmarks must share the site and the
clock (corpus, profile, retime, speed, start, duration, budget, seed, feeds, extra settings),
the topic, and their colonies the same state encoder (``--model``; a benchmark of baselines
alone has none); their crawlers, knob values and budgets are pooled (with budgets among them, a knob
sweep gives only each crawler's defaults: the budget curve), and runs of one variant in several
of them count as more repeats. Nothing is run; each run's files stay where they are."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from newsforagers.evaluation.bench.config import COLONIES, BenchConfig, BenchError
from newsforagers.evaluation.bench.evaluate import evaluate_files
from newsforagers.evaluation.bench.plan import PlannedRun
from newsforagers.evaluation.bench.site import Site, prepare_site
from newsforagers.evaluation.bench.summary import summarise

#: Settings the merged benchmarks must share: the same site, window, clock and budget, and the
#: same topic (a topical benchmark's runs are judged again against it).
SHARED = ("corpus", "profile", "retime", "speed", "start", "duration", "budget", "seed", "feeds",
          "settings", "topic", "sites", "split", "site_profiles")


def _load(source: Path) -> dict[str, Any]:
    path = source / "results.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BenchError(f"--merge: {path} cannot be read: {exc}") from None


def merged_config(sources: Sequence[Path | str], out: Path | str) -> tuple[BenchConfig, list[tuple[Path, dict]]]:
    """The config of the merged benchmark and each source's results. Raises
    :class:`BenchError` for a source without results or one of another site or clock."""
    if not sources:
        raise BenchError("--merge needs at least one benchmark directory.")
    loaded = [(Path(source).resolve(), _load(Path(source))) for source in sources]
    base = loaded[0][1]["settings"]
    crawlers: list[str] = []
    model = None
    values: dict[str, list[float]] = {}
    budgets: list[float] = []
    for source, results in loaded:
        settings = results["settings"]
        for key in SHARED:
            if settings.get(key) != base.get(key):
                raise BenchError(f"--merge: {source} has another {key} ({settings.get(key)!r}, "
                                 f"not {base.get(key)!r}): only benchmarks of one site and clock merge.")
        # the colonies' state encoder: one for all (a benchmark of baselines alone has none)
        if settings.get("model") and model and settings["model"] != model and \
                any(c in COLONIES for c in settings["crawlers"]):
            raise BenchError(f"--merge: {source} gave its colonies another model "
                             f"({settings['model']!r}, not {model!r}).")
        model = model or settings.get("model")
        crawlers += [c for c in settings["crawlers"] if c not in crawlers]
        for crawler, chosen in (settings.get("sweep_values") or {}).items():
            values.setdefault(crawler, [])
            values[crawler] += [v for v in chosen if v not in values[crawler]]
        budgets += [b for b in settings.get("budgets") or () if b not in budgets]
    sweep = any(r["settings"].get("sweep") for _, r in loaded)
    if budgets:  # a budget sweep keeps each crawler's defaults of a knob sweep, not its curve
        values, sweep = {}, False
    data = dict(base, out=str(Path(out).resolve()), model=model, crawlers=crawlers, sweep_values=values,
                budgets=budgets, repeats=max(r["settings"]["repeats"] for _, r in loaded), sweep=sweep)
    return BenchConfig.from_dict(data).validate(), loaded


def merge_benchmarks(sources: Sequence[Path | str], out: Path | str,
                     command: Sequence[str] = ()) -> tuple[dict[str, Any], Site]:
    """Judge every run of ``sources`` again from its files and summarise them as one
    benchmark (``results.json``'s structure; each record's ``run_dir`` its absolute path)."""
    config, loaded = merged_config(sources, out)
    site = prepare_site(config)
    records = []
    for source, results in loaded:
        for record in results.get("runs", []):
            record = dict(record)
            run_dir = Path(record.get("run_dir") or "")
            run_dir = run_dir if run_dir.is_absolute() else source / run_dir
            record["run_dir"] = str(run_dir)
            if record.get("status") == "ok":
                run = PlannedRun(0, record["crawler"], int(record.get("repeat", 0)), int(record.get("seed", 0)))
                evaluated = evaluate_files(config, run, run_dir, site.changes, site.pages, site.many)
                problems = evaluated.pop("problems")
                record.update(evaluated)
                if problems:
                    record["status"] = "failed"
                    record["problems"] = list(record.get("problems") or []) + problems
            records.append(record)
    return summarise(config, site.describe(), records, command), site


__all__ = ["SHARED", "merge_benchmarks", "merged_config"]
