"""The search index through the user's path: ``scrapy crawl forager`` against the replay with an
SQLite store (the root keeps the index beside it), then ``newsforagers search --store``."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections import Counter

import pytest

from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_corpus
from tests.integration.forager_run import REPO, crawl_forager, read_jsonl

pytestmark = pytest.mark.timeout(120)
START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy
PAID = 8  # documents in the feed when the crawl is stopped


def test_a_paid_document_is_found_first_by_a_word_of_its_title(tmp_path):
    corpus = synth_corpus(tmp_path / "synth.jsonl.gz", days=2, rate=300, sections=12, seed=13)
    store = tmp_path / "colony.db"
    settings = {"FORAGERS_STORE": f"sqlite:///{store}", "FORAGERS_SEED": 4, "FORAGERS_FETCH_TTL": 0,
                "FORAGERS_INDEX_INTERVAL": 0.2, "FORAGERS_RUN_DIR": tmp_path / "run"}
    with ReplayProcess(corpus, speed=600, start=START) as replay:
        result = crawl_forager(replay.url, tmp_path, seconds=20, settings=settings,
                               until=lambda: len(read_jsonl(tmp_path / "run.jsonl")) >= PAID)
    assert result.returncode == 0, result.log[-3000:]
    assert "Traceback" not in result.log and "ERROR" not in result.log, result.log[-3000:]
    documents = sqlite3.connect(store).execute("SELECT url, title, text FROM documents").fetchall()
    assert len(documents) >= PAID
    # the root's last look indexed everything the colony paid for, the other foragers' too
    indexed = re.search(r"index: (\d+) document\(s\) indexed this run into (\S+) \((\d+) in the index\)", result.log)
    assert indexed and int(indexed[1]) == int(indexed[3]) == len(documents), result.log[-3000:]
    assert indexed[2] == str(tmp_path / "colony.index.sqlite")

    # A word of one title: no other paid title holds a word that begins with the same five
    # letters (the index stems); of those, the word fewest documents hold anywhere (other
    # documents' texts may mention it: the title outranks them).
    def stems(text):
        return {word[:5] for word in re.findall(r"[a-z]{6,}", text.lower())}

    in_titles = Counter(stem for _, title, _ in documents for stem in stems(title))
    everywhere = Counter(stem for _, title, text in documents for stem in stems(f"{title} {text}"))
    candidates = [(everywhere[word[:5]], word, url) for url, title, _ in documents
                  for word in re.findall(r"[a-z]{6,}", title.lower()) if in_titles[word[:5]] == 1]
    assert candidates, [title for _, title, _ in documents]
    _, word, url = min(candidates)

    done = subprocess.run([sys.executable, "-m", "newsforagers.cli", "search", word, "--store",
                           f"sqlite:///{store}", "--json"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    hits = [json.loads(line) for line in done.stdout.splitlines()]
    assert hits and hits[0]["url"] == url, (word, url, hits)
    assert "[" in hits[0]["snippet"]
