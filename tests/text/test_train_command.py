"""``newsforagers train`` through the command line entry point."""

import json

import numpy as np
import pytest

from newsforagers import cli
from newsforagers.text import StateEncoder

TOPICS = [
    "rocket orbit satellite launch astronaut planet telescope",
    "recipe flour oven butter garlic pastry saucepan",
    "goal striker referee penalty stadium keeper league",
]


@pytest.fixture(autouse=True)
def only_train(monkeypatch):
    # The other sub-commands belong to other modules and may be mid-construction; this test
    # is about train, so the parser is built with it alone.
    monkeypatch.setattr(cli, "COMMANDS", {"train": cli.COMMANDS["train"]})


def _write_corpus(path, n_per_topic=4, bad_line=True):
    lines = []
    for t, words in enumerate(TOPICS):
        for i in range(n_per_topic):
            lines.append(json.dumps({
                "url": f"https://example.org/{t}/{i}",
                "published": f"2024-01-0{i + 1}T10:00:00+00:00",
                "title": f"{words.split()[i]} story {i}",
                "body": f"{words} {words.split()[i]}",
            }))
    if bad_line:
        lines.insert(3, "{not json")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_train_writes_a_loadable_model(tmp_path, capsys):
    corpus = _write_corpus(tmp_path / "corpus.jsonl")
    model = tmp_path / "model.joblib"
    code = cli.main(["train", str(corpus), "-o", str(model), "--clusters", "3", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "12 documents clustered" in out and "1 corpus line(s) skipped" in out
    assert "clusters: 3, sizes min/median/max 4/4/4" in out
    encoder = StateEncoder.load(model)
    states = encoder.transform(["rocket launch", "garlic butter", ""])
    assert states.shape == (3, 3) and states.dtype == np.float32
    assert encoder.random_state == 1


def test_corpus_error_is_one_line_and_exit_code_2(tmp_path, capsys):
    code = cli.main(["train", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "m.joblib")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().count("\n") == 0
    assert err.startswith("newsforagers train: error: corpus file") and "does not exist" in err
    assert not (tmp_path / "m.joblib").exists()


def test_too_many_clusters_is_a_clear_error(tmp_path, capsys):
    corpus = _write_corpus(tmp_path / "corpus.jsonl", bad_line=False)
    code = cli.main(["train", str(corpus), "-o", str(tmp_path / "m.joblib"), "--clusters", "50"])
    assert code == 2
    assert "12 texts for n_clusters=50" in capsys.readouterr().err


def test_missing_output_directory(tmp_path, capsys):
    corpus = _write_corpus(tmp_path / "corpus.jsonl")
    code = cli.main(["train", str(corpus), "-o", str(tmp_path / "no" / "m.joblib")])
    assert code == 2
    assert "output directory" in capsys.readouterr().err


def test_clusters_must_be_positive(tmp_path):
    with pytest.raises(SystemExit):
        cli.main(["train", "c.jsonl", "-o", str(tmp_path / "m.joblib"), "--clusters", "0"])
