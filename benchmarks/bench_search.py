"""The colony's search index (``newsforagers.index``) at 100,000 documents: indexing speed and
query latency. Not a test: run it by hand and copy its lines into docs/benchmarks.md::

    .venv/bin/python benchmarks/bench_search.py [--documents 100000] [--queries 200] [--seed 1]

The documents are the digital.gov corpus (``../shared/data/digitalgov.jsonl.gz``, 2,414 real
posts, markdown turned into plain text) repeated with variations until ``--documents``: each copy
of a post has its paragraphs shuffled, a sentence of the synthetic corpus generator's vocabulary
added to its text and a place name to its title, its own URL, a found time spread over 30 days
and a language (90% ``en``, 5% ``es``, 5% ``fr``: the corpus is English, the labels exercise
the language filter). Without the corpus, the synthetic generator's articles serve (a smaller
vocabulary: each word matches more documents, the slower case).

Indexing is timed two ways: ``add`` in batches of the colony extension's size
(:data:`newsforagers.extensions.index.INDEX_BATCH`, each batch a transaction), and ``follow``
from an SQLite colony store holding the same documents (the store's reads included). Queries
(``--queries`` of them, at least 100) are words and pairs of words drawn from the documents'
titles and texts (rare and common ones alike), quoted phrases of two title words and prefixes
(``elect*``), each run without a filter, with ``since`` (found in the last 3 days), with
``lang=es`` and with both, then without the ranking's cap (``ranked_max=0``: every match
ranked, where the default ranks a query of more than 20,000 matches among those indexed last);
``facets`` and ``latest`` are timed too. Latencies are wall times of
one call (the first page of 10 hits with their snippets), p50 / p95 / max.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import re
import shlex
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from newsforagers.corpus import default_corpus_path
from newsforagers.extensions.index import INDEX_BATCH
from newsforagers.index import DocumentIndex
from newsforagers.replay import synth
from newsforagers.store import DocumentRecord, SQLiteStore

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
DAYS = 30


def _plain_markdown(text: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their words
    return re.sub(r"[#*_`>|]+", " ", text)


def base_posts(corpus: Path | None, seed: int) -> list[dict]:
    if corpus is not None:
        with gzip.open(corpus, "rt", encoding="utf-8") as lines:
            posts = [json.loads(line) for line in lines]
        return [{"url": p["url"], "title": p["title"], "description": p.get("summary") or "",
                 "text": _plain_markdown(p.get("body") or ""), "keywords": p.get("sections") or []}
                for p in posts if p.get("title")]
    return [{"url": r["url"], "title": r["title"], "description": r["summary"], "text": r["body"],
             "keywords": r["sections"]} for r in synth.synth_records(days=10, rate=300, seed=seed)]


def documents(posts: list[dict], n: int, seed: int) -> list[DocumentRecord]:
    """``n`` documents: the posts repeated, each copy varied (the module's docstring says how)."""
    rng = random.Random(seed)
    writers = [synth._Writer(rng, topic) for topic in synth.TOPICS]
    records = []
    for i in range(n):
        post = posts[i % len(posts)]
        copy = i // len(posts)
        paragraphs = [p for p in post["text"].split("\n\n") if p.strip()]
        rng.shuffle(paragraphs)
        paragraphs.insert(rng.randrange(len(paragraphs) + 1), rng.choice(writers).sentence())
        found = START + timedelta(seconds=rng.uniform(0, DAYS * 86400))
        published = found - timedelta(minutes=rng.uniform(1, 600))
        url = re.sub(r"^https?://[^/]+", f"https://copy{copy}.example.org", post["url"]) + f"?n={i}"
        records.append(DocumentRecord(
            url=url, title=f"{post['title']} ({rng.choice(synth.PLACES)})",
            published=published.isoformat(), found_at=found.isoformat(), forager=f"f{rng.randint(1, 16)}",
            reward=100.0, text="\n\n".join(paragraphs), description=post["description"],
            keywords=tuple(post["keywords"]),
            language=rng.choices(("en", "es", "fr"), weights=(90, 5, 5))[0]))
    return records


def queries(records: list[DocumentRecord], n: int, seed: int) -> list[str]:
    """``n`` free-text queries drawn from the documents (the module's docstring says which)."""
    rng = random.Random(seed)
    word = re.compile(r"[A-Za-z]{4,}")
    made: list[str] = []
    while len(made) < n:
        record = rng.choice(records)
        title = word.findall(record.title)
        text = word.findall(record.text[:2000]) or title
        kind = len(made) % 5
        if kind == 0 and title:
            made.append(rng.choice(title))
        elif kind == 1 and text:
            made.append(rng.choice(text))
        elif kind == 2 and title and text:
            made.append(f"{rng.choice(title)} {rng.choice(text)}")
        elif kind == 3 and len(title) >= 2:
            k = rng.randrange(len(title) - 1)
            made.append(f'"{title[k]} {title[k + 1]}"')
        elif kind == 4 and text:
            made.append(rng.choice(text)[:4] + "*")
    return made


def percentiles(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):6.1f} ms  p95 {p95:6.1f} ms  max {ms[-1]:6.1f} ms  (n={len(ms)})"


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus_path(),
                        help="corpus (default ../shared/data/digitalgov.jsonl.gz; the synthetic one without it)")
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None, help="where the files go (default: a temporary folder)")
    args = parser.parse_args(argv)
    if args.queries < 100:
        parser.error("--queries must be at least 100")

    print(f"$ {shlex.join([sys.executable.split('/')[-1], *sys.argv])}")
    print(f"# {platform.python_implementation()} {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
          f"{os.cpu_count()} cores; corpus {args.corpus or 'synthetic'}")
    records = documents(base_posts(args.corpus, args.seed), args.documents, args.seed)
    megabytes = sum(len(r.text.encode()) + len(r.title.encode()) + len(r.description.encode())
                    for r in records) / 1e6
    print(f"{len(records):,} documents, {megabytes:,.0f} MB of text")

    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        folder = Path(folder)
        # add, in the extension's batches
        index = DocumentIndex(folder / "added.index.sqlite")
        seconds, _ = timed(lambda: [index.add(records[i:i + INDEX_BATCH])
                                    for i in range(0, len(records), INDEX_BATCH)])
        batches = []
        extra = documents(base_posts(args.corpus, args.seed + 1), 20 * INDEX_BATCH, args.seed + 1)
        for i in range(0, len(extra), INDEX_BATCH):
            batches.append(timed(lambda: index.add(
                [DocumentRecord(**{**r.to_dict(), "url": r.url + "&more", "keywords": r.keywords,
                                   "authors": r.authors}) for r in extra[i:i + INDEX_BATCH]]))[0])
        size = (folder / "added.index.sqlite").stat().st_size / 1e6
        print(f"add, batches of {INDEX_BATCH}: {len(records) / seconds:,.0f} documents/s "
              f"({seconds:.1f} s; index file {size:,.0f} MB); one batch of {INDEX_BATCH} into the full "
              f"index: {percentiles(batches)}")

        # follow, from an SQLite colony store
        store = SQLiteStore(folder / "colony.db")
        fill, _ = timed(lambda: [store.claim([f"url:{r.url}"], r) for r in records])
        followed = DocumentIndex(folder / "colony.index.sqlite")
        seconds, added = timed(lambda: followed.follow(store, batch=1000))
        assert added == len(records), added
        again, none = timed(lambda: followed.follow(store))
        print(f"follow from an SQLite store (filled in {fill:.0f} s), batches of 1000: "
              f"{len(records) / seconds:,.0f} documents/s ({seconds:.1f} s); following again with "
              f"nothing new: {again * 1000:.1f} ms")
        followed.close()
        store.close()

        # queries
        asked = queries(records, args.queries, args.seed)
        since = START + timedelta(days=DAYS - 3)
        variants = {"no filter": {}, "since (3 days)": {"since": since}, "lang=es": {"lang": "es"},
                    "since + lang": {"since": since, "lang": "es"}}
        everything = []
        empty = 0
        for name, filters in variants.items():
            latencies = []
            for query in asked:
                seconds, hits = timed(lambda: index.search(query, **filters))
                latencies.append(seconds)
                empty += not hits
            everything += latencies
            print(f"search, {name:15}: {percentiles(latencies)}")
        print(f"search, all {len(everything)} calls: {percentiles(everything)}; "
              f"{empty} found nothing")
        matches = [sum(n for _, n in index.facets(query)["language"]) for query in asked]
        broad = sum(n > index.ranked_max for n in matches)
        print(f"matches per query: median {statistics.median(matches):,.0f}, max {max(matches):,}; "
              f"{broad} of {len(asked)} queries match more than {index.ranked_max:,} (ranked among "
              "the matches indexed last)")
        uncapped = DocumentIndex(index.path, ranked_max=0)
        for name in ("no filter", "lang=es"):
            latencies = [timed(lambda: uncapped.search(query, **variants[name]))[0] for query in asked]
            print(f"search, {name}, every match ranked (ranked_max=0): {percentiles(latencies)}")
        uncapped.close()
        facet = [timed(lambda: index.facets(query))[0] for query in asked[:100]]
        print(f"facets(query): {percentiles(facet)}")
        print(f"facets(): {percentiles([timed(index.facets)[0] for _ in range(20)])}")
        print(f"latest(20): {percentiles([timed(index.latest)[0] for _ in range(100)])}")
        worst = sorted(((timed(lambda: index.search(q))[0], q) for q in asked), reverse=True)[:5]
        print("slowest queries (no filter): " + ", ".join(f"{q} {s * 1000:.0f} ms" for s, q in worst))
        index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
