"""Memory of one forager with every bounded memory full: the ceiling a colony that runs for weeks reaches.

    .venv/bin/python benchmarks/bench_memory_caps.py
    .venv/bin/python benchmarks/bench_memory_caps.py --set FORAGERS_STATE_CACHE_SIZE=20000 --json caps.json

The soak benchmark (bench_soak.py) runs six simulated days, far from the caps at its budget. This
fills each memory to its cap through the forager's own code (page states as the forager stores
them, sends through its sent memory, URLs through the scheduled forager's recent sets, pages
through the energy policy) with URLs of a realistic length (``--url-length``), and measures what
Python allocated for it with ``tracemalloc`` (exact for Python objects and numpy arrays). The
settings are the defaults unless ``--set`` says otherwise; the table gives MiB per memory, per
forager and for a colony of ``FORAGERS_MAX`` foragers.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Callable

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from newsforagers.config import ForagersConfig  # noqa: E402
from newsforagers.learning import EnergyPolicy, Weblog  # noqa: E402
from newsforagers.strategies.common import initial_weights  # noqa: E402
from newsforagers.strategies.paper import PaperMind  # noqa: E402
from newsforagers.strategies.scheduled import ScheduledMind, schedule_from_config  # noqa: E402
from newsforagers.strategies.scheduled.explore import PAGE_LINKS as _PAGE_LINKS  # noqa: E402

MIB = 1024 ** 2
LINKS_PER_PAGE = 60


def urls(n: int, length: int, prefix: str) -> list[str]:
    base = f"https://news.example.org/{prefix}/"
    return [(base + f"{i:08d}-" + "x" * length)[:max(length, len(base) + 9)] for i in range(n)]


def measured(build: Callable[[], object]) -> tuple[float, object]:
    """MiB allocated by ``build`` and still held when it returns (its result is kept alive)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = build()
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / MIB, kept


def paper_memories(config: ForagersConfig, length: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    forager = PaperMind("f1", config, Weblog.from_seeds(["https://news.example.org/"]),
                      initial_weights(config, rng), rng, bootstrap=lambda texts: None,
                      state_cache_size=config.state_cache_size)
    now = datetime.now(UTC)
    states = rng.random((1000, config.n_clusters))

    def fill_states():
        for i, url in enumerate(urls(config.state_cache_size, length, "state")):
            forager._remember(url, states[i % 1000], now)
        return forager

    def fill_sent():
        forager.sent.select(urls(config.sent_memory_size, length, "sent"))
        return forager

    return {"page states (FORAGERS_STATE_CACHE_SIZE)": measured(fill_states)[0],
            "sent memory (FORAGERS_SENT_MEMORY_SIZE)": measured(fill_sent)[0]}


def scheduled_memories(config: ForagersConfig, length: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    forager = ScheduledMind("f1", config, schedule_from_config(config, ["https://news.example.org/"]),
                               initial_weights(config, rng), rng, memory_size=config.url_memory_size)
    states = rng.random((1000, config.n_clusters)).astype(np.float32)
    memory = forager._articles.size

    def fill_states():
        for i, url in enumerate(urls(config.state_cache_size, length, "state")):
            forager._states[url] = states[i % 1000].copy()
        return forager

    def fill_recent():
        for name in ("_articles", "_seen", "_fetched"):
            recent = getattr(forager, name)
            for url in urls(memory, length, name):
                recent.add(url)
        return forager

    def fill_sent():
        forager.sent.select(urls(config.sent_memory_size, length, "sent"))
        return forager

    def fill_links():
        # every page's links as separate strings, as each parse makes them (the worst case)
        for page in range(_PAGE_LINKS):
            forager._page_links[f"page{page}"] = tuple(urls(LINKS_PER_PAGE, length, f"p{page}"))
        return forager

    def fill_navigation():
        # the navigation links each listing of the weblog showed at its last visit
        for listing in range(config.schedule_size):
            forager._navigation[f"listing{listing}"] = frozenset(urls(LINKS_PER_PAGE, length, f"n{listing}"))
        return forager

    return {"page states (FORAGERS_STATE_CACHE_SIZE)": measured(fill_states)[0],
            f"navigation of the weblog's listings (FORAGERS_SCHEDULE_SIZE × {LINKS_PER_PAGE})":
                measured(fill_navigation)[0],
            f"links of recent pages ({_PAGE_LINKS:,} × {LINKS_PER_PAGE})": measured(fill_links)[0],
            f"fetched, seen and queued URLs (FORAGERS_URL_MEMORY_SIZE, 3 × {memory:,})": measured(fill_recent)[0],
            "sent memory (FORAGERS_SENT_MEMORY_SIZE)": measured(fill_sent)[0]}


def energy_memory(config: ForagersConfig, length: int) -> float:
    policy = EnergyPolicy(config.energy_c, config.energy_g, 1, 10 ** 6, config.energy_init,
                          config.energy_history, config.energy_pages_max)
    policy.register("f1")
    relevances = np.random.default_rng(0).exponential(size=1000)

    def fill():
        pages = config.energy_pages_max or 100_000
        for i, url in enumerate(urls(pages, length, "energy")):
            policy.visit("f1", url, float(relevances[i % 1000]))
        return policy

    return measured(fill)[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url-length", type=int, default=80, help="characters per URL (default 80)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a FORAGERS_* setting")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    settings = dict(item.split("=", 1) for item in args.set)
    config = ForagersConfig.from_settings(settings)
    paper = paper_memories(config, args.url_length)
    scheduled = scheduled_memories(config, args.url_length)
    energy = energy_memory(config, args.url_length)
    results = {"settings": settings, "url_length": args.url_length, "foragers": config.max,
               "paper": paper, "scheduled": scheduled, "energy_policy": energy}
    print(f"every memory at its cap, {args.url_length}-character URLs, settings {settings or 'default'}")
    print("| strategy | memory | MiB |\n|---|---|---:|")
    for strategy in ("paper", "scheduled"):
        for name, mib in results[strategy].items():
            print(f"| {strategy} | {name} | {mib:.1f} |")
        total = sum(results[strategy].values())
        results[f"{strategy}_per_forager"] = total
        print(f"| {strategy} | **one forager** | **{total:.1f}** |")
        print(f"| {strategy} | **{config.max} foragers (FORAGERS_MAX)** | **{total * config.max:.0f}** |")
    print(f"| colony | energy policy (FORAGERS_ENERGY_PAGES_MAX, once per colony) | {energy:.1f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
