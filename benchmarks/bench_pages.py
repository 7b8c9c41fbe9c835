"""Pages per second of ``newsforagers.pages.read_page`` on generated ~10 KB article pages.

Run from the project root::

    .venv/bin/python benchmarks/bench_pages.py [--pages 400] [--seed 1]

Three kinds of page, because they take different routes to the publication date: ``meta``
(a replay-site article: article:published_time, JSON-LD and <time>; answered without
htmldate), ``text`` (the date only in the visible byline: htmldate's fast search), and
``undated`` (nothing anywhere: htmldate runs to the end, then the URL fallback).
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from datetime import UTC, datetime, timedelta

from newsforagers.pages import read_page

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


def bench(kind: str, n_pages: int, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    pages = [make_article(rng, i, kind) for i in range(n_pages)]
    mean_kb = sum(len(html.encode()) for _, html in pages) / len(pages) / 1024
    read_page(*pages[0])  # warm imports and htmldate's caches outside the timing
    start = time.perf_counter()
    for url, html in pages:
        read_page(url, html)
    elapsed = time.perf_counter() - start
    return n_pages / elapsed, mean_kb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400, help="pages per kind (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("command:", shlex.join([sys.executable, *sys.argv]))
    for kind in ("meta", "text", "undated"):
        rate, mean_kb = bench(kind, args.pages, args.seed)
        print(f"{kind:8s} {rate:8.0f} pages/s  ({args.pages} pages, mean {mean_kb:.1f} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
