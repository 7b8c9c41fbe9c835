import gzip
import json
import logging

import pytest

from newsforagers.corpus import CorpusError, default_corpus_path, load_corpus

GOOD = {"url": "https://example.org/2020/01/02/a/", "published": "2020-01-02T10:00:00+00:00",
        "title": "A"}


def write(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_bad_lines_are_reported_with_their_line_number_and_skipped(tmp_path, caplog):
    lines = [
        json.dumps(GOOD),
        "{not json",
        json.dumps({"url": "https://example.org/b/", "title": "B"}),
        json.dumps({**GOOD, "url": "https://example.org/c/", "published": "yesterday"}),
        json.dumps({**GOOD, "url": "https://example.org/d/", "published": "2020-01-02T10:00:00"}),
        json.dumps(GOOD),
        json.dumps({**GOOD, "url": "https://example.org/e/", "title": ""}),
        json.dumps(["a list"]),
        json.dumps({**GOOD, "url": "https://example.org/f/", "sections": "news"}),
        json.dumps({**GOOD, "url": "ftp://example.org/g/"}),
        json.dumps({**GOOD, "url": "https://example.org/h/", "published": "2020-01-01T09:00:00-05:00",
                    "sections": ["x"], "links": [GOOD["url"]]}),
    ]
    with caplog.at_level(logging.WARNING):
        corpus = load_corpus(write(tmp_path / "c.jsonl", lines))
    # h (2020-01-01 14:00 UTC) sorts before a (2020-01-02 10:00 UTC)
    assert [a.url for a in corpus] == ["https://example.org/h/", "https://example.org/2020/01/02/a/"]
    reasons = {s.lineno: s.reason for s in corpus.skipped}
    assert sorted(reasons) == [2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert "invalid JSON" in reasons[2]
    assert "'published'" in reasons[3]
    assert "not an ISO 8601 date" in reasons[4]
    assert "no UTC offset" in reasons[5]
    assert "duplicate url" in reasons[6]
    assert "'title'" in reasons[7]
    assert "not a JSON object" in reasons[8]
    assert "sections" in reasons[9]
    assert "http(s)" in reasons[10]
    assert "corpus line 4 skipped" in caplog.text


def test_empty_corpus_and_missing_file_are_clear_errors(tmp_path):
    with pytest.raises(CorpusError, match="no valid article"):
        load_corpus(write(tmp_path / "empty.jsonl", [""]))
    with pytest.raises(CorpusError, match="no valid article .2 line"):
        load_corpus(write(tmp_path / "bad.jsonl", ["{", "[]"]))
    with pytest.raises(CorpusError, match="does not exist"):
        load_corpus(tmp_path / "missing.jsonl")


def test_truncated_gzip_is_a_clear_error(tmp_path):
    path = tmp_path / "c.jsonl.gz"
    data = gzip.compress((json.dumps(GOOD) + "\n").encode() * 200)
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorpusError, match="cannot read corpus"):
        load_corpus(path)


def test_articles_are_sorted_by_publication_time(tmp_path):
    later = {**GOOD, "url": "https://example.org/later/", "published": "2020-01-02T12:00:00+02:00"}
    earlier = {**GOOD, "url": "https://example.org/earlier/", "published": "2020-01-02T05:00:00-02:00"}
    corpus = load_corpus(write(tmp_path / "c.jsonl", [json.dumps(earlier), json.dumps(later)]))
    # 05:00-02:00 is 07:00 UTC, before 12:00+02:00 = 10:00 UTC
    assert [a.url for a in corpus] == ["https://example.org/earlier/", "https://example.org/later/"]


def test_real_digitalgov_corpus_reports_its_defects():
    path = default_corpus_path()
    if path is None:
        pytest.skip("../shared/data is not available")
    corpus = load_corpus(path)
    # 2,414 lines: the documented empty title (/2018/09/24/example/) and one repeated URL
    assert len(corpus) == 2412
    assert [(s.lineno, s.reason.split(" ")[0]) for s in corpus.skipped] == [
        (1663, "missing"), (2264, "duplicate")]
