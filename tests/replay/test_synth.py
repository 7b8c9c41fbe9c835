import argparse
import collections
import re
from datetime import datetime

from newsforagers.commands import synth as synth_command
from newsforagers.corpus import load_corpus
from newsforagers.replay.synth import synth_records


def test_synth_loads_and_is_deterministic(tmp_path):
    parser = argparse.ArgumentParser()
    synth_command.add_arguments(parser)
    paths = [tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz", tmp_path / "c.jsonl"]
    for path, seed in zip(paths, (1, 1, 2)):
        args = parser.parse_args(["-o", str(path), "--days", "1", "--rate", "80", "--seed", str(seed)])
        assert synth_command.run(args) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    corpus = load_corpus(paths[0])
    assert len(corpus.articles) == 80 and not corpus.skipped
    assert load_corpus(paths[2]).articles[0].title != corpus.articles[0].title


def test_synth_shape():
    records = synth_records(days=14, rate=300, sections=30, seed=0)
    sections = collections.Counter(r["sections"][0] for r in records)
    ranked = [count for _, count in sections.most_common()]
    assert len(sections) == 30
    assert ranked[0] > 4 * ranked[9] > 0  # Zipf: a few busy sections, a long tail
    hours = collections.Counter(datetime.fromisoformat(r["published"]).hour for r in records)
    assert sum(hours[h] for h in range(9, 17)) > 5 * sum(hours[h] for h in range(0, 6))
    days = collections.Counter(datetime.fromisoformat(r["published"]).weekday() for r in records)
    assert days[2] > 1.3 * days[6]
    by_url = {r["url"]: i for i, r in enumerate(records)}
    in_links = collections.Counter(link for r in records for link in r["links"])
    for i, r in enumerate(records):
        assert all(by_url[link] < i for link in r["links"])  # links go to older stories
        assert r["authors"] and r["title"] and r["body"]
    degrees = sorted(in_links.values(), reverse=True)
    assert degrees[0] >= 8 * (sum(degrees) / len(records))  # heavy-tailed in-links
    sentence = re.compile(r"^[A-Z\"].*[.\"]$")
    assert all(sentence.match(s) for s in records[0]["body"].split("\n\n")[0].split(". ")[-1:])


def test_ensure_synth_corpus_generates_once(tmp_path):
    from newsforagers.replay.synth import ensure_synth_corpus

    path = ensure_synth_corpus(tmp_path / "deep" / "default.jsonl.gz", days=0.5, rate=40)
    first = path.stat().st_mtime_ns
    assert ensure_synth_corpus(path, days=0.5, rate=40).stat().st_mtime_ns == first
    assert len(load_corpus(path).articles) == 20
    assert [p.name for p in path.parent.iterdir()] == ["default.jsonl.gz"]
