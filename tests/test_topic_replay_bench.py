"""benchmarks/topic_replay.py (issue 32): a topical run's store judged again, in the order paid,
by the learned topic and by the papers' cosine."""

from __future__ import annotations

import json
import re

from newsforagers.store.base import DocumentRecord
from newsforagers.store.sqlite import SQLiteStore
from tests.benchmark_scripts import benchmark_script
from tests.text.test_feedback import newswire


def a_run(tmp_path):
    """A run directory as the bench leaves one: a store of the wire's 200 stories in the order
    paid, the replay's truth (the oil stories filed in ``oil``), and three documents of no story."""
    texts, oil = newswire(seed=1, oil_words=8)
    run = tmp_path / "scheduled-r0"
    run.mkdir()
    store = SQLiteStore(run / "colony.db")
    with open(run / "truth.jsonl", "w", encoding="utf-8") as truth:
        for i, (text, is_oil) in enumerate(zip(texts, oil)):
            url = f"http://127.0.0.1:1/story/{i}"
            title, _, body = text.partition(" ")
            store.claim([f"url:{url}"], DocumentRecord(url, title, "2024-01-01T00:00:00+00:00",
                                                       "2024-01-01T00:01:00+00:00", "f1", 100.0, text=body))
            truth.write(json.dumps({"url": url, "sections": ["oil"] if is_oil else ["other"]}) + "\n")
    for i in range(3):
        url = f"http://127.0.0.1:1/elsewhere/{i}"
        store.claim([f"url:{url}"], DocumentRecord(url, "output", "2024-01-01T00:00:00+00:00",
                                                   "2024-01-01T00:01:00+00:00", "f1", 100.0, text="crude output"))
    store.close()
    return run, int(oil.sum())


def rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| run")]


def test_the_learned_topic_and_the_papers_cosine_judge_the_same_documents(tmp_path, capsys):
    bench = benchmark_script("topic_replay")
    run, oil = a_run(tmp_path)
    bench.main([str(run), "--topic", "crude oil output", "--section", "oil", "--cosine"])
    [cosine] = rows(capsys.readouterr().out)
    bench.main([str(run), "--topic", "crude oil output", "--section", "oil", "--fits"])
    out = capsys.readouterr().out
    [learned] = rows(out)
    # every document paid is read (the three of no story too), the truth's by the section
    assert cosine[1:3] == learned[1:3] == ["203", str(oil)]
    # the papers' cosine outputs stories sharing one word ("output"); the learned topic, as
    # many oil stories and fewer others
    assert int(learned[3]) >= int(cosine[3]) and int(learned[4]) < int(cosine[4])
    assert float(learned[5]) > float(cosine[5])
    # each fit: at 20 documents, then at every growth by a quarter, with what its mode was
    fits = re.findall(r"^fit on (\d+): threshold 0\.\d{3} \((\w+)\); mode: (.*)$", out, re.M)
    assert [int(f[0]) for f in fits][:3] == [20, 25, 32]
    assert any(reason == "mixture" and mode.startswith("taken: ") for _, reason, mode in fits)
