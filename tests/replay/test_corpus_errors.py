"""Bad corpus lines are reported with their line number and skipped; no article is an error."""

import argparse
import json

import pytest

from newsforagers.commands import replay as replay_command
from newsforagers.corpus import CorpusError, load_corpus
from newsforagers.replay.server import ReplaySite


def good(n, **override):
    record = {"url": f"https://news.example.com/2024/01/0{n}/story-{n}/",
              "published": f"2024-01-0{n}T10:00:00+00:00", "title": f"Story {n}",
              "sections": ["world"], "authors": ["ana-berg"]}
    record.update(override)
    return json.dumps(record)


def test_bad_lines_are_reported_and_skipped(tmp_path, caplog):
    lines = [
        good(1),
        "{not json",
        good(2, url=None),
        json.dumps({"published": "2024-01-03T10:00:00+00:00", "title": "no url"}),
        good(4, published=None),
        good(5, title=""),
        good(6, published="yesterday at noon"),
        good(7, published="2024-01-07T10:00:00"),  # no offset
        good(1, title="Same URL again"),
        good(8),
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    site = ReplaySite(path)
    skipped = {s.lineno: s.reason for s in site.corpus.skipped}
    assert sorted(skipped) == [2, 3, 4, 5, 6, 7, 8, 9]
    assert "invalid JSON" in skipped[2]
    assert "'url'" in skipped[3] and "'url'" in skipped[4]
    assert "'published'" in skipped[5] and "'title'" in skipped[6]
    assert "ISO 8601" in skipped[7] and "offset" in skipped[8]
    assert "duplicate url" in skipped[9]
    assert [a.title for a in site.articles] == ["Story 1", "Story 8"]
    assert "corpus line 9 skipped: duplicate url" in caplog.text


def test_empty_corpus_is_a_clear_error(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n{broken\n")
    with pytest.raises(CorpusError, match="no valid article"):
        load_corpus(empty)
    parser = argparse.ArgumentParser()
    replay_command.add_arguments(parser)
    assert replay_command.run(parser.parse_args([str(empty), "--port", "0"])) == 2
    assert "no valid article" in capsys.readouterr().err
    assert replay_command.run(parser.parse_args([str(tmp_path / "missing.jsonl")])) == 2
    assert "does not exist" in capsys.readouterr().err


def test_replay_refuses_non_loopback_hosts(tmp_path):
    path = tmp_path / "ok.jsonl"
    path.write_text(good(1) + "\n")
    site = ReplaySite(path)
    with pytest.raises(ValueError, match="loopback"):
        site.listen(object(), host="0.0.0.0")
