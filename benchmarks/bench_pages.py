"""Pages per second of ``newsforagers.pages.read_page`` on generated ~10 KB article pages.

Run from the project root::

    .venv/bin/python benchmarks/bench_pages.py [--pages 400] [--seed 1]

Three kinds of page, because they take different routes to the publication date: ``meta``
(a replay-site article: article:published_time, JSON-LD and <time>; answered without
htmldate), ``text`` (the date only in the visible byline: htmldate's fast search), and
``undated`` (nothing anywhere: htmldate runs to the end, then the URL fallback).

Bounded work per page (issue 15)::

    git show 0a3f752:newsforagers/pages.py > /tmp/pages_head.py   # pages.py before issue 15
    .venv/bin/python benchmarks/bench_pages.py --hostile --before /tmp/pages_head.py --claims 200000
    .venv/bin/python benchmarks/bench_pages.py --replay ../shared/data/digitalgov.jsonl.gz

``--hostile`` times ``read_page`` (parse included: a spider's ``response.selector`` is parsed
on the same thread) on pages of up to 10 MiB, the add-on's ``DOWNLOAD_MAXSIZE``: a 10 MB
article, 200,000 links, a listing of 100,000 dated items, 2,000-deep nesting repeated (with
one dated item at the bottom, or one at every level), and 2.6 million empty elements; best of
``--repeat`` runs, each page in a process of its own stopped after ``--limit`` seconds, with
the ``pages.py`` given by ``--before`` too. ``--claims N`` times the scheduled forager's ``on_page`` for a listing of N
new links on an SQLite colony store already at its cap (``FORAGERS_URL_RECORDS_MAX`` records),
its links claimed one by one (one transaction each, as before issue 15) and in one batch.
``--replay`` renders a corpus with the replay site and
reports the links, elements and text of its pages: what the caps' defaults rest on.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import random
import shlex
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Callable

from newsforagers.pages import read_page

MIB = 1024 * 1024

_WORDS = (
    "council budget river election storm market school minister health court police"
    " weather harbour festival transport energy housing museum report research vote"
    " league hospital bridge airport survey agency treaty climate farmers workers"
).split()
_SECTIONS = ("world", "politics", "business", "science", "sport", "culture", "local")


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 18))]
    return " ".join(words).capitalize() + "."


def make_article(
    rng: random.Random, index: int, kind: str, target_bytes: int = 10_000
) -> tuple[str, str]:
    """One article page of about ``target_bytes``; returns (url, html)."""
    section = rng.choice(_SECTIONS)
    published = datetime(2024, 3, 5, tzinfo=UTC) + timedelta(minutes=rng.randint(0, 60 * 24 * 30))
    url = f"https://news.example.org/{section}/story-{index}"
    title = " ".join(rng.choice(_WORDS) for _ in range(7)).title()
    head = [f"<title>{title} | Example News</title>", '<meta charset="utf-8">']
    byline = "<p class=byline>By Staff Writer</p>"
    if kind == "meta":
        stamp = published.isoformat()
        head.append(f'<meta property="article:published_time" content="{stamp}">')
        head.append(
            '<script type="application/ld+json">'
            f'{{"@type": "NewsArticle", "headline": "{title}", "datePublished": "{stamp}"}}'
            "</script>"
        )
        byline = (
            f'<p class=byline>By Staff Writer, <time datetime="{stamp}">'
            f"{published:%d %B %Y}</time></p>"
        )
    elif kind == "text":
        byline = f"<p class=byline>By Staff Writer. Published {published:%B %d, %Y}.</p>"
    nav = "".join(f'<li><a href="/{s}/">{s.title()}</a></li>' for s in _SECTIONS)
    related = "".join(
        f'<li><a href="/{rng.choice(_SECTIONS)}/story-{rng.randint(0, 10_000)}">'
        f"{_sentence(rng)}</a></li>"
        for _ in range(12)
    )
    body_parts = []
    size = 0
    while size < target_bytes - 2_500:
        paragraph = " ".join(_sentence(rng) for _ in range(rng.randint(2, 5)))
        if rng.random() < 0.3:
            paragraph += f' See <a href="/{section}/story-{rng.randint(0, 10_000)}#top">more</a>.'
        body_parts.append(f"<p>{paragraph}</p>")
        size += len(body_parts[-1])
    html = (
        f"<!DOCTYPE html><html><head>{''.join(head)}</head><body>"
        f"<header><nav><ul>{nav}</ul></nav></header>"
        f"<main><article><h1>{title}</h1>{byline}{''.join(body_parts)}</article>"
        f"<aside><h2>Most read</h2><ul>{related}</ul></aside></main>"
        "<footer><p>© 2025 Example News. "
        "<a href='mailto:desk@example.org'>Contact</a></p></footer>"
        "<script>window.analytics = {page: 1};</script></body></html>"
    )
    return url, html


def bench(kind: str, n_pages: int, seed: int, read: Callable = read_page) -> tuple[float, float]:
    rng = random.Random(seed)
    pages = [make_article(rng, i, kind) for i in range(n_pages)]
    mean_kb = sum(len(html.encode()) for _, html in pages) / len(pages) / 1024
    read(*pages[0])  # warm imports and htmldate's caches outside the timing
    start = time.perf_counter()
    for url, html in pages:
        read(url, html)
    elapsed = time.perf_counter() - start
    return n_pages / elapsed, mean_kb


# -- bounded work per page (issue 15) -------------------------------------------------------


def article_page(size: int = 10 * MIB) -> tuple[str, str]:
    """A generated article of ``size`` characters, dated nowhere (htmldate searches it all)."""
    return make_article(random.Random(1), 0, "undated", target_bytes=size - 20_000)


def links_page(n: int = 200_000) -> tuple[str, str]:
    """One list of ``n`` distinct links (8.8 MB for 200,000), undated."""
    rows = "".join(f'<li><a href="/s/{i}">Story {i}</a></li>' for i in range(n))
    return "https://news.example.org/all", f"<html><head><title>All</title></head><body><ul>{rows}</ul></body></html>"


def listing_page(size: int = 10 * MIB) -> tuple[str, str]:
    """A listing of as many dated items (a link and a ``<time>`` each) as ``size`` holds."""
    rows, total, i = [], 0, 0
    while total < size - 1_000:
        row = (f'<li><a href="/s/{i}">Story {i}</a><time datetime="2024-03-05T{i % 24:02d}:'
               f'{i % 60:02d}:00Z">5 March</time></li>')
        rows.append(row)
        total += len(row)
        i += 1
    return ("https://news.example.org/list",
            f"<html><head><title>List</title></head><body><ul>{''.join(rows)}</ul></body></html>")


def nested_page(size: int = 10 * MIB, depth: int = 2_000) -> tuple[str, str]:
    """Chains of ``depth`` nested ``<div>`` (about as deep as lxml builds a tree), each ending
    in a dated item, repeated to ``size``: the most nesting a page of that size can carry."""
    parts, total, k = [], 0, 0
    while total < size - 50_000:
        part = ("<div>" * depth + f'<p>word{k} text <a href="/n/{k}">n{k}</a> <time datetime='
                f'"2024-03-05T10:{k % 60:02d}:00Z">t</time></p>' + "</div>" * depth)
        parts.append(part)
        total += len(part)
        k += 1
    return ("https://news.example.org/nested",
            f"<html><head><title>Nested</title></head><body>{''.join(parts)}</body></html>")


def nested_items_page(size: int = 10 * MIB, depth: int = 2_000) -> tuple[str, str]:
    """Chains ``depth`` deep with a dated item (a link and a ``<time>``) at every level,
    repeated to ``size``: a listing's items inside one another."""
    chain = "".join(f"<div><a href='/s{i}'>s</a><time datetime='2024-03-05T{i % 24:02d}:00:00Z'></time>"
                    for i in range(depth)) + "</div>" * depth
    body = chain * max(1, (size - 1_000) // len(chain))
    return "https://news.example.org/items", f"<html><head><title>Items</title></head><body>{body}</body></html>"


def elements_page(size: int = 10 * MIB) -> tuple[str, str]:
    """As many elements as ``size`` holds: ``<br>`` (4 bytes each), a word every 100."""
    body = ("<br>" * 100 + "word ") * (size // 405)
    return "https://news.example.org/elements", f"<html><head><title>Elements</title></head><body>{body}</body></html>"


HOSTILE: dict[str, Callable[[], tuple[str, str]]] = {
    "article 10 MB": article_page,
    "200,000 links": links_page,
    "listing, 10 MB": listing_page,
    "nested 2,000 deep": nested_page,
    "items nested 2,000 deep": nested_items_page,
    "2.6 M elements": elements_page,
}


def load_pages_module(path: str):
    """A one-file ``pages.py`` from ``path`` (e.g. the one before issue 15, written out by
    ``git show``) as a module."""
    spec = importlib.util.spec_from_file_location("pages_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["pages_before"] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def best_of(repeat: int, call: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_hostile(repeat: int, before: str | None, limit: float) -> None:
    """Each page read in a process of its own (``--time-one``), killed after ``limit``
    seconds: the code before issue 15 takes minutes on some of them."""
    import subprocess

    from parsel import Selector

    modules = {"after": None}
    if before:
        modules = {"before": before, **modules}
    print(f"read_page on hostile pages, best of {repeat} (seconds; parse included; "
          f"a process of its own each, stopped after {limit:.0f} s)")
    print(f"{'page':22s} {'MB':>5s} {'parse':>6s} " + " ".join(f"{k:>7s}" for k in modules)
          + "   links   text listed (after)")
    for name, make in HOSTILE.items():
        url, html = make()
        parse = best_of(repeat, lambda: Selector(text=html, type="html"))
        cells = []
        for module in modules.values():
            command = [sys.executable, __file__, "--time-one", name, "--repeat", str(repeat)]
            if module:
                command += ["--before", module]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=limit, check=True)
                cells.append(f"{float(done.stdout.split()[-1]):7.2f}")
            except subprocess.TimeoutExpired:
                cells.append(f"{'>' + format(limit, '.0f'):>7s}")
        page = read_page(url, html)
        print(f"{name:22s} {len(html.encode()) / 1e6:5.1f} {parse:6.2f} " + " ".join(cells)
              + f"   {len(page.links):5d} {len(page.text):6d} {len(page.listed):5d}"
              + f"  capped: links {page.links_capped:,}, text {page.text_capped}")


def time_one(name: str, repeat: int, module: str | None) -> float:
    read = load_pages_module(module).read_page if module else read_page
    url, html = HOSTILE[name]()
    return best_of(repeat, lambda: read(url, html))


def bench_claims(n: int) -> None:
    """The scheduled forager reads a listing of ``n`` new links on an SQLite store."""
    import numpy as np

    from newsforagers.config import ForagersConfig
    from newsforagers.store import SQLiteStore
    from newsforagers.strategies.scheduled import ScheduledMind, schedule_from_config

    config = ForagersConfig.from_settings({})
    home = "https://news.example.org/"
    links = [f"{home}s/{i}" for i in range(n)]
    record = {"queued_by": "f1"}
    print(f"_read_listing of {n:,} new links, SQLite store (FORAGERS_URL_RECORDS_MAX={config.url_records_max:,})")
    with tempfile.TemporaryDirectory() as folder:
        for label, batched in (("one by one", False), ("one batch", True)):
            store = SQLiteStore(Path(folder) / f"{batched}.db", url_records_max=config.url_records_max)
            # a colony that has run for a while: the store at its cap, so claims evict too
            store.claim_urls((f"{home}old/{i}" for i in range(config.url_records_max)), record)
            forager = ScheduledMind(
                "f1", config, schedule_from_config(config, [home]), np.zeros(config.n_clusters),
                np.random.default_rng(0), seeds=[home], claim=lambda url: store.claim_url(url, record),
                claim_many=(lambda urls: store.claim_urls(urls, record)) if batched else None)
            now = datetime(2024, 3, 5, tzinfo=UTC).timestamp()
            fetch = forager.next_fetch(now)
            start = time.perf_counter()
            forager.on_page(fetch, now, text="home", links=links, published=None)
            elapsed = time.perf_counter() - start
            print(f"  {label:10s} {elapsed:7.2f} s  ({store.url_count():,} records, "
                  f"{store.evicted_urls:,} evicted, {len(forager._harvest):,} queued)")
            store.close()


def replay_sizes(corpus: str, limit: int) -> None:
    """Render the replay of ``corpus`` at its last article (retimed to 200 a day, as the
    README's replay) breadth-first from the home page, up to ``limit`` pages (day archives
    before the corpus's first day and /search left out: traps), and report their sizes."""
    from urllib.parse import urlsplit

    from parsel import Selector

    from newsforagers.corpus import load_corpus
    from newsforagers.replay.index import SiteIndex
    from newsforagers.replay.site import PageBuilder

    index = SiteIndex(load_corpus(corpus), retime=200)
    builder = PageBuilder(index, "hard")
    now = index.ts[-1] + 60
    first_day = builder.local_day(index.ts[0]).isoformat().replace("-", "/")
    base = "http://127.0.0.1:8080"
    queue, seen, rows = ["/"], {"/"}, []
    while queue and len(rows) < limit:
        uri = queue.pop(0)
        page = builder.get(uri, now)
        if page.status != 200 or not page.content_type.startswith(b"text/html"):
            continue
        html = page.body.decode()
        read = read_page(base + uri, html, max_links=0, max_text=0)
        elements = int(Selector(text=html, type="html").root.xpath("count(//*)"))
        rows.append((uri, len(page.body), elements, len(read.links), len(read.text)))
        for link in read.links:
            parts = urlsplit(link)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            if parts.netloc != "127.0.0.1:8080" or path in seen or path.startswith("/search"):
                continue
            if path.startswith("/archive/") and path[len("/archive/"):len("/archive/") + 10] < first_day:
                continue
            seen.add(path)
            queue.append(path)
    print(f"replay of {corpus}: {len(rows):,} pages")
    for column, name in ((1, "bytes"), (2, "elements"), (3, "links"), (4, "text characters")):
        values = sorted(row[column] for row in rows)
        top = max(rows, key=lambda row: row[column])
        print(f"  {name:16s} median {values[len(values) // 2]:>7,}  p99 {values[int(len(values) * 0.99)]:>7,}"
              f"  max {values[-1]:>7,}  ({top[0]})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400, help="pages per kind (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hostile", action="store_true", help="time pages of up to 10 MiB instead")
    parser.add_argument("--before", help="a pages.py to time beside the current one")
    parser.add_argument("--repeat", type=int, default=3, help="runs per hostile page, the best kept")
    parser.add_argument("--claims", type=int, default=0, help="time a listing of N links claimed on SQLite")
    parser.add_argument("--replay", help="a corpus: report the sizes of its replay's pages")
    parser.add_argument("--replay-pages", type=int, default=8_000)
    parser.add_argument("--limit", type=float, default=300.0, help="seconds a hostile page may take")
    parser.add_argument("--time-one", help=argparse.SUPPRESS)  # one hostile page, in a process of its own
    args = parser.parse_args(argv)
    if args.time_one:
        print(time_one(args.time_one, args.repeat, args.before))
        return 0
    print("command:", shlex.join([sys.executable, *sys.argv]))
    if args.replay:
        replay_sizes(args.replay, args.replay_pages)
    if args.hostile:
        bench_hostile(args.repeat, args.before, args.limit)
    if args.claims:
        bench_claims(args.claims)
    if args.replay or args.hostile or args.claims:
        return 0
    readers = {"": read_page}
    if args.before:
        readers = {"before": load_pages_module(args.before).read_page, "after": read_page}
    for kind in ("meta", "text", "undated"):
        for label, read in readers.items():
            rate, mean_kb = bench(kind, args.pages, args.seed, read)
            print(f"{kind:8s} {label:6s} {rate:8.0f} pages/s  ({args.pages} pages, mean {mean_kb:.1f} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
