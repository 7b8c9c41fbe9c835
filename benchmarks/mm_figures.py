"""Mouton & Marteau (2008), Figures 2–6, "in shape", on the replay site's pages.

    .venv/bin/python benchmarks/mm_figures.py --corpus /tmp/i19/synth.jsonl.gz --topic sports \\
        --out /tmp/mm                                                   # about a minute
    .venv/bin/python benchmarks/mm_figures.py --corpus ../shared/data/digitalgov.jsonl.gz \\
        --topic <tag> --out /tmp/mm-dg

The site is the replay of ``--corpus`` rendered at the end of the corpus (static), walked once
breadth-first from "/" into a graph (:func:`newsforagers.sim.energywalk.build_site_graph`,
at most ``--max-pages`` pages); the topic is the section ``--topic``, its words those the topical
benchmark gives it (:func:`~newsforagers.evaluation.bench.topic.section_words`), idf from the
corpus's texts, its documents the ground truth; the agents start on the section's front.
Every setting runs ``--runs`` walks (seeds ``--seed`` .. ``--seed + runs − 1``) of
``--agents`` agents:

- fig2: the original model ``Δe = ρ·r − C`` (Alg. 1: no buffer) at three gain rates ρ;
- fig3: the sigmoid model at three (C, G) settings (Alg. 1: no buffer);
- fig4: precision of the original model at the middle ρ vs the sigmoid at the same C, G = 8;
- fig5: population of the sigmoid at G = 30 over ``--long-pages`` fetches, with the energy
  buffer as Alg. 2 has it (``EnergyPolicy(bounds="paper")``: no clone cap, above UB a visit
  pays |C| and leaves the page's energy as a remnant, teleports below LB, and walks toward
  remnants), with the product's strict bounds (clones capped at UB − population), and without
  a buffer (UB = 10⁹, LB = 1);
- fig6: precision of those three.

Precision in figs. 4 and 6 is counted as [MM]'s crawler collects: over the distinct pages
fetched (Alg. 2 reads a page seen before from its document base DB, stores it once, and reads
R from "the n collected pages"), against the pages collected. Two panels: the topic documents
among them (ground truth) and their mean r (the crawler's own tf·idf; the paper names no
other judge). ``figN-fetches.png`` keeps the per-fetch precision, a page counted at every
revisit, against pages fetched. results.md compares the settings at equal pages collected.

``--split`` chooses how a split shares energy (``EnergyPolicy(split=...)``): ``shared`` is
Alg. 1's "share E between clones" (E conserved), ``printed`` is Alg. 2 as printed (every part
E ÷ ⌊E⌋, more than E in all); ``both`` (the default) draws every figure for each, the
printed set named ``figN-printed.png``. For figs. 5–6 the runs record what the buffer did:
visits charged above UB, remnants left (``deferred``) and taken, teleports, walks toward
remnants, and the share of fetches with the population above UB.

Why these ρ: "the range of ρ depends on the order of the similarity metric": a page pays when
r > C/ρ, so ρ is set in units of ``C / r̄``, r̄ the mean relevance of the graph's pages; with
ρ = m·C/r̄ a page of average relevance breaks even at m = 1. ``--rho-multiples`` (default 0.01,
0.1, 1): at 0.01 only pages 100× the average pay (on a site where the topic's documents are
a few percent of the pages, almost none: the population dies out), at 1 every page above the
average pays (the population explodes), 0.1 in between. Why these (C, G): G = 8 with the C of
fig. 2 (the pair fig. 4 compares), the paper's own example C = 0.5, G = 10, and a tolerant,
less reactive C = 0.1, G = 3.

Writes fig2.png … fig6.png, fig4-fetches.png and fig6-fetches.png (and the ``-printed`` set),
results.json (settings, the graph, every run's summary, its precision at equal pages collected
and its series every ``pages / 200`` fetches and every ``graph pages / 200`` pages collected)
and results.md into ``--out``. Single process.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from newsforagers.corpus import load_corpus
from newsforagers.evaluation.bench.topic import is_synthetic, section_words, topic_documents
from newsforagers.evaluation.plots import _plot_mean, _pyplot, _save
from newsforagers.learning.population import EnergyPolicy
from newsforagers.replay.index import SiteIndex
from newsforagers.replay.site import PageBuilder
from newsforagers.sim.energywalk import build_site_graph, page_quantiles, walk
from newsforagers.text.topic import Topic

HUGE_UB = 10**9  # Alg. 1: no upper bound
POINTS = 200  # points per series in results.json and the plots
#: Pages collected at which figs. 4 and 6 are compared in results.md (those every run reached).
MARKS = (50, 100, 250, 500, 1000, 1500, 2000, 2500, 3000)


def parse_floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def parse_pairs(text: str) -> list[tuple[float, float]]:
    pairs = []
    for item in text.split(","):
        c, _, g = item.partition(":")
        pairs.append((float(c), float(g)))
    return pairs


def build(args) -> tuple[Any, list[int], dict]:
    corpus = load_corpus(args.corpus)
    index = SiteIndex(corpus)
    names = [front.name for front in index.sections]
    if args.topic not in names:
        raise SystemExit(f"--topic ({args.topic!r}) is not a section of the corpus; its largest "
                         f"sections: {', '.join(names[:8])}.")
    words = section_words(args.topic, is_synthetic(names))
    topic = Topic(words, corpus=[article.text for article in corpus.articles])
    documents = topic_documents([a.truth() for a in index.articles], args.topic)
    started = time.process_time()
    graph = build_site_graph(PageBuilder(index), topic, now=index.ts[-1], documents=documents,
                             max_pages=args.max_pages)
    seeds = [graph.index[f.path] for f in index.sections if f.name == args.topic
             and f.path in graph.index]
    if not seeds:
        raise SystemExit(f"the front of {args.topic!r} is not among the graph's {graph.n} pages: "
                         "raise --max-pages.")
    r = graph.relevance
    described = {
        "pages": graph.n, "links": graph.m, "topic_documents": int(graph.topical.sum()),
        "topic_documents_in_corpus": len(documents), "skipped": graph.skipped,
        "topic_words": words, "seeds": [graph.paths[s] for s in seeds],
        "relevance": page_quantiles(graph),
        "relevance_topic_documents": float(r[graph.topical].mean()) if graph.topical.any() else None,
        "relevance_others": float(r[~graph.topical].mean()) if (~graph.topical).any() else None,
        "build_cpu_seconds": round(time.process_time() - started, 1),
    }
    return graph, seeds, described


def series(result, pages: int, window: int, site_pages: int) -> dict[str, list]:
    """Every ``pages / POINTS`` fetches: population (0 after extinction, None after the cap or
    the end), cumulative and windowed precision per fetch (None after the end). And every
    ``site_pages / POINTS`` distinct pages (``collected``, the x-axis of figs. 4 and 6): the
    topic documents among the pages collected and their mean r, read at the fetch that
    collected that many (None for a count the run never reached)."""
    step = max(1, pages // POINTS)
    xs = list(range(step, pages + 1, step))
    precision, windowed = result.precision(), result.window_precision(window)
    out: dict[str, list] = {"fetched": xs, "population": [], "precision": [], "window_precision": []}
    pstep = max(1, site_pages // POINTS)
    out["collected"] = list(range(pstep, site_pages + 1, pstep))
    for key, values in (("collected_precision", result.distinct_precision()),
                        ("collected_relevance", result.collected_relevance())):
        out[key] = [None if v is None else round(v, 5)
                    for v in result.at_collected(values, out["collected"])]
    for x in xs:
        if x <= result.fetched:
            out["population"].append(int(result.population[x - 1]))
            out["precision"].append(round(float(precision[x - 1]), 5))
            out["window_precision"].append(round(float(windowed[x - 1]), 5))
        else:
            out["population"].append(0 if result.died_at is not None else None)
            out["precision"].append(None)
            out["window_precision"].append(None)
    return out


def run_setting(graph, seeds, args, *, label: str, pages: int, split: str, model: str, C: float,
                G: float = 10.0, rho: float = 1.0, buffer: bool = False, lb: int = 1,
                ub: int = HUGE_UB, bounds: str = "paper", line: int | None = None) -> dict:
    """``--runs`` walks of one setting. Without the buffer the policy has UB = 10⁹ and LB = 1
    (Alg. 1). ``line``: the population whose passing is timed (``time_above``), UB for fig. 5."""
    runs = []
    window = max(1, pages // 20)
    for k in range(args.runs):
        policy = EnergyPolicy(C=C, G=G, rho=rho, model=model, lower_bound=lb, upper_bound=ub,
                              split=split, bounds=bounds)
        result = walk(graph, policy, seeds, pages=pages, agents=args.agents, beta=args.beta,
                      buffer=buffer, remnant_walk=args.remnant_walk if buffer else 0.0,
                      max_agents=args.max_agents, seed=args.seed + k)
        timed = ({"time_above": round(float((result.population > line).mean()), 4)}
                 if line is not None else {})
        marks = zip(MARKS, result.at_collected(result.distinct_precision(), MARKS),
                    result.at_collected(result.collected_relevance(), MARKS))
        runs.append({"seed": args.seed + k, **result.summary(), **timed,
                     "at_collected": {str(m): None if p is None else [p, r]
                                      for m, p, r in marks},
                     "series": series(result, pages, window, graph.n)})
    return {"label": label, "model": model, "C": C, "G": G if model == "sigmoid" else None,
            "rho": rho if model == "original" else None, "buffer": buffer, "bounds": bounds,
            "lower_bound": lb, "upper_bound": ub if ub < HUGE_UB else None, "split": split,
            "pages": pages, "precision_window": window, "runs": runs}


def _draw(ax, settings: list[dict], key: str, x: str = "fetched") -> None:
    """The mean over a setting's runs (points) and each run (thin lines) of ``key`` against
    ``x`` ("fetched" or "collected")."""
    for setting in settings:
        runs = [run["series"] for run in setting["runs"]]
        points = [list(zip(s[x], s[key])) for s in runs]
        _plot_mean(ax, setting["label"], points)
        colour = ax.lines[-1].get_color() if ax.lines else None
        for s in runs:
            xs = [v for v, y in zip(s[x], s[key]) if y is not None]
            ys = [y for y in s[key] if y is not None]
            ax.plot(xs, ys, "-", lw=0.6, alpha=0.45, color=colour)


def plot(settings: list[dict], key: str, path: Path, title: str, ylabel: str,
         lines: tuple[float, ...] = (), cap: int | None = None) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    _draw(ax, settings, key)
    for y in lines:
        ax.axhline(y, ls=":", lw=0.8, color="k")
    if cap is not None and any(run["capped_at"] for s in settings for run in s["runs"]):
        ax.axhline(cap, ls="--", lw=0.8, color="tab:red", label=f"agent cap ({cap}): run stopped")
    ax.set_xlabel("pages fetched (revisits included)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    return _save(fig, path)


def plot_collected(settings: list[dict], path: Path, title: str) -> Path:
    """Precision as [MM] count it: over the pages collected (each page once, Alg. 2's DB),
    against the pages collected; left by the ground truth, right by the crawler's own r."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), dpi=110)
    _draw(left, settings, "collected_precision", "collected")
    _draw(right, settings, "collected_relevance", "collected")
    left.set_ylabel("topic documents / pages collected")
    right.set_ylabel("mean r of pages collected")
    for ax in (left, right):
        ax.set_xlabel("pages collected (distinct pages fetched)")
        ax.set_xscale("log")
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    return _save(fig, path)


def figures(graph, seeds, args, split: str, suffix: str, out: Path, rhos: list[float]) -> dict:
    C = args.C
    fig2 = [run_setting(graph, seeds, args, label=f"original ρ={rho:.3g}", pages=args.pages,
                        split=split, model="original", C=C, rho=rho) for rho in rhos]
    fig3 = [run_setting(graph, seeds, args, label=f"sigmoid C={c:g} G={g:g}", pages=args.pages,
                        split=split, model="sigmoid", C=c, G=g) for c, g in args.cg]
    middle = fig2[len(fig2) // 2]
    g8 = next((s for s in fig3 if s["C"] == C and s["G"] == 8.0), None)
    if g8 is None:
        g8 = run_setting(graph, seeds, args, label=f"sigmoid C={C:g} G=8", pages=args.pages,
                         split=split, model="sigmoid", C=C, G=8.0)
    long = dict(pages=args.long_pages, split=split, model="sigmoid", C=C, G=args.long_G,
                line=args.ub)
    fig5 = [run_setting(graph, seeds, args, label=f"buffer, Alg. 2 (UB={args.ub}, LB={args.lb})",
                        buffer=True, lb=args.lb, ub=args.ub, bounds="paper", **long),
            run_setting(graph, seeds, args, label="strict bounds (clone cap)", buffer=True,
                        lb=args.lb, ub=args.ub, bounds="strict", **long),
            run_setting(graph, seeds, args, label="without buffer", **long)]
    cap = args.max_agents
    note = f" [split: {split}]"
    paths = [
        plot(fig2, "population", out / f"fig2{suffix}.png",
             f"Fig. 2: original model Δe = ρ·r − C (C={C:g}), {args.runs} runs each" + note,
             "agents", cap=cap),
        plot(fig3, "population", out / f"fig3{suffix}.png",
             f"Fig. 3: sigmoid model, {args.runs} runs each" + note, "agents", cap=cap),
        plot_collected([middle, g8], out / f"fig4{suffix}.png",
                       "Fig. 4: precision of the pages collected, original vs sigmoid" + note),
        plot([middle, g8], "precision", out / f"fig4-fetches{suffix}.png",
             "Fig. 4, per fetch (revisits counted): topic documents / pages fetched" + note,
             "precision per fetch (cumulative)"),
        plot(fig5, "population", out / f"fig5{suffix}.png",
             f"Fig. 5: sigmoid G={args.long_G:g}, with and without the energy buffer" + note,
             "agents", lines=(args.ub, args.lb), cap=cap),
        plot_collected(fig5, out / f"fig6{suffix}.png",
                       "Fig. 6: precision of the pages collected, with and without the energy "
                       "buffer" + note),
        plot(fig5, "precision", out / f"fig6-fetches{suffix}.png",
             "Fig. 6, per fetch (revisits counted): topic documents / pages fetched" + note,
             "precision per fetch (cumulative)"),
    ]
    return {"fig2": fig2, "fig3": fig3, "fig4": [middle, g8], "fig5": fig5,
            "png": [str(p) for p in paths]}


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _fmt(value, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}" if not value.is_integer() or digits else f"{value:.0f}"
    return str(value)


def table(settings: list[dict]) -> list[str]:
    rows = ["| setting | runs died (mean fetch) | runs capped (mean fetch) | final pop. | max pop. "
            "| min pop. | precision per fetch | collected precision | collected mean r "
            "| pages collected |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in settings:
        runs = s["runs"]
        died = [r["died_at"] for r in runs if r["died_at"] is not None]
        capped = [r["capped_at"] for r in runs if r["capped_at"] is not None]
        rows.append(
            f"| {s['label']} | {len(died)}/{len(runs)} ({_fmt(_mean(died), 0)}) "
            f"| {len(capped)}/{len(runs)} ({_fmt(_mean(capped), 0)}) "
            f"| {_fmt(_mean(r['final_population'] for r in runs), 0)} "
            f"| {_fmt(_mean(r['max_population'] for r in runs), 0)} "
            f"| {_fmt(_mean(r['min_population'] for r in runs), 0)} "
            f"| {_fmt(_mean(r['precision'] for r in runs))} "
            f"| {_fmt(_mean(r['distinct_precision'] for r in runs))} "
            f"| {_fmt(_mean(r['collected_relevance'] for r in runs), 4)} "
            f"| {_fmt(_mean(r['distinct_pages'] for r in runs), 0)} |")
    return rows


def collected_table(settings: list[dict]) -> list[str]:
    """Figs. 4 and 6 at equal pages collected: collected precision (and mean r) of each
    setting, means over the runs, at the ``MARKS`` every run of every setting reached."""
    marks = [m for m in MARKS
             if all(r["at_collected"][str(m)] is not None for s in settings for r in s["runs"])]
    rows = ["| setting | " + " | ".join(f"{m} pages" for m in marks) + " |",
            "|---|" + "---:|" * len(marks)]
    for s in settings:
        cells = [f"{_fmt(_mean(r['at_collected'][str(m)][0] for r in s['runs']))} "
                 f"({_fmt(_mean(r['at_collected'][str(m)][1] for r in s['runs']), 4)})"
                 for m in marks]
        rows.append(f"| {s['label']} | " + " | ".join(cells) + " |")
    return rows


def buffer_table(settings: list[dict]) -> list[str]:
    """What the buffer did in figs. 5–6 (means over the runs)."""
    rows = ["| setting | fetches above UB | charged visits | remnants left | remnants taken "
            "| teleports (none left) | remnant walks | remnant pages at end |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in settings:
        runs = s["runs"]

        def mean(key, digits=0):
            return _fmt(_mean(r.get(key) for r in runs), digits)
        rows.append(f"| {s['label']} | {mean('time_above', 3)} | {mean('charged')} "
                    f"| {mean('deferred')} | {mean('remnants_taken')} | {mean('teleports')} "
                    f"({mean('teleports_nowhere')}) | {mean('remnant_walks')} "
                    f"| {mean('remnant_pages')} |")
    return rows


def markdown(results: dict) -> str:
    s, g = results["settings"], results["graph"]
    lines = [f"# Mouton & Marteau figures 2–6 on {Path(s['corpus']).name}, topic {s['topic']!r}",
             "",
             f"Graph: {g['pages']} pages, {g['links']} links, {g['topic_documents']} topic "
             f"documents; mean r {g['relevance']['mean']:.4f} (topic documents "
             f"{_fmt(g['relevance_topic_documents'], 4)}, others {_fmt(g['relevance_others'], 4)}); "
             f"seeds {', '.join(g['seeds'])}. {s['runs']} runs of {s['agents']} agents per "
             f"setting, β = {s['beta']:g}, agent cap {s['max_agents']}. ρ = m·C/r̄ with m in "
             f"{s['rho_multiples']}: ρ = {', '.join(f'{r:.3g}' for r in results['rhos'])}.", ""]
    for split, figs in results["figures"].items():
        lines += [f"## split: {split}", ""]
        for name in ("fig2", "fig3", "fig4", "fig5"):
            caption = {"fig2": "Fig. 2 (original model)", "fig3": "Fig. 3 (sigmoid model)",
                       "fig4": "Fig. 4 (original vs sigmoid G = 8)",
                       "fig5": "Figs. 5 and 6 (energy buffer)"}[name]
            lines += [f"### {caption}", "", *table(figs[name]), ""]
        lines += ["### Figs. 4 and 6 at equal pages collected: collected precision (mean r)",
                  "", "Fig. 4:", "", *collected_table(figs["fig4"]), "", "Fig. 6:", "",
                  *collected_table(figs["fig5"]), ""]
        lines += ["### Figs. 5 and 6: what the buffer did", "", *buffer_table(figs["fig5"]), ""]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--topic", required=True, help="a section of the corpus")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pages", type=int, default=10_000, help="fetches per run, figs. 2–4")
    parser.add_argument("--long-pages", type=int, default=25_000, help="fetches per run, figs. 5–6")
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--max-pages", type=int, default=5000, help="pages of the site graph")
    parser.add_argument("--max-agents", type=int, default=5000,
                        help="a run whose population passes it stops (a runaway population)")
    parser.add_argument("--beta", type=float, default=5.0, help="link choice ∝ exp(β·context r)")
    parser.add_argument("--C", type=float, default=0.2, help="the cost of figs. 2, 4, 5")
    parser.add_argument("--rho-multiples", default="0.01,0.1,1",
                        help="fig. 2's ρ, in units of C / mean page relevance")
    parser.add_argument("--cg", default="0.2:8,0.5:10,0.1:3", help="fig. 3's C:G pairs")
    parser.add_argument("--long-G", type=float, default=30.0)
    parser.add_argument("--ub", type=int, default=250)
    parser.add_argument("--lb", type=int, default=50)
    parser.add_argument("--remnant-walk", type=float, default=0.05,
                        help="with the buffer: chance an agent walks to the best remnant page")
    parser.add_argument("--split", choices=("shared", "printed", "both"), default="both")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="mm-figures")
    args = parser.parse_args(argv)
    args.cg = parse_pairs(args.cg)
    multiples = parse_floats(args.rho_multiples)
    if args.runs < 1 or args.pages < 1 or args.long_pages < 1 or len(multiples) != 3:
        parser.error("--runs, --pages and --long-pages must be > 0; --rho-multiples three values")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.process_time()
    graph, seeds, described = build(args)
    mean_r = described["relevance"]["mean"]
    if not mean_r > 0:
        raise SystemExit(f"no page of the graph is relevant to {args.topic!r}: nothing to measure.")
    rhos = [m * args.C / mean_r for m in multiples]
    splits = ("shared", "printed") if args.split == "both" else (args.split,)
    results: dict[str, Any] = {
        "settings": {k: v for k, v in vars(args).items()} | {"rho_multiples": multiples},
        "graph": described, "rhos": rhos, "figures": {}}
    for split in splits:
        suffix = "" if split == "shared" else f"-{split}"
        results["figures"][split] = figures(graph, seeds, args, split, suffix, out, rhos)
    results["cpu_seconds"] = round(time.process_time() - started, 1)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=float))
    (out / "results.md").write_text(markdown(results))
    print(markdown(results))
    print(f"cpu {results['cpu_seconds']} s; wrote {out}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
