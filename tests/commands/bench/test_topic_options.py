"""``newsforagers bench --topic``: what it is refused with, one line and exit status 2 before any
crawl, and the plan it makes (no crawl: ``--dry-run``)."""

from __future__ import annotations

import pytest

from newsforagers import cli

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("extra,message", [
    (["--topic", "politcs"], "newsforagers bench: --topic ('politcs') is not a section of the corpus; "
                             "did you mean 'politics'? its largest sections: politics, business,"),
    (["--crawlers", "scheduled,best_first"],
     "newsforagers bench: the best_first crawler orders its frontier by relevance to a topic: give "
     "one with --topic SECTION."),
    (["--topic", "politics", "--budgets", "20,2"],
     "newsforagers bench: --topic and --sweep or --budgets are two benchmarks: choose one"),
    (["--topic", "politics", "--sweep"],
     "newsforagers bench: --topic and --sweep or --budgets are two benchmarks: choose one"),
    (["--topic", "politics", "--merge", "somewhere"],
     "newsforagers bench: --topic does not apply to --merge: the merged benchmarks keep the topic"),
])
def test_topic_refusals(corpus, tmp_path, capsys, extra, message):
    out = tmp_path / "out"
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(out), "--dry-run", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_a_topic_plan_gives_its_words_to_the_colony_and_best_first(corpus, tmp_path, capsys):
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path / "out"),
                     "--topic", "politics", "--repeats", "1", "--dry-run"]) == 0
    plan = capsys.readouterr().out
    # the topical benchmark's crawlers by default
    # (and the colony without the topic: the reference of the topic lag's target; and with the
    # papers' relevance: the reference of what the learned topic changes)
    assert plan.startswith("bench plan: 1 repeat(s) x 5 variant(s) of 3 crawler(s) = 5 runs")
    runs = [line for line in plan.splitlines() if line.startswith("run ")]
    assert [line.split()[2] for line in runs] == ["scheduled", "scheduled@no-topic", "scheduled@cosine",
                                                  "bfs", "best_first"]
    crawls = [line for line in plan.splitlines() if "scrapy crawl" in line]
    words = "'topic=the parliament the senate"  # the synthetic site's words for the section
    assert [words in line for line in crawls] == [True, False, True, False, True]
    assert "topic: section 'politics', words 'the parliament" in plan
    # --crawlers still chooses; --feeds composes (the site gains feeds, nothing else changes)
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--topic",
                     "politics", "--crawlers", "wlrl,oracle", "--feeds", "0.5", "--dry-run"]) == 0
    crawls = [line for line in capsys.readouterr().out.splitlines() if "scrapy crawl" in line]
    assert len(crawls) == 3 * 2 and all((words in line) == ("crawl forager" in line) for line in crawls)


def test_a_topic_named_and_labelled_by_example_is_planned_as_a_topic_file(corpus, tmp_path, capsys):
    from newsforagers.commands import bench as command
    from newsforagers.evaluation.bench import config

    # the command's choices are the benchmark's (kept apart so that parsing imports nothing heavy)
    assert command.TOPIC_WORDS == config.TOPIC_WORDS and command.SPLITS == config.SPLITS
    out = tmp_path / "out"
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(out), "--topic", "politics",
                     "--topic-words", "name+examples", "--start", "2024-01-02T07:00:00+00:00",
                     "--repeats", "1", "--dry-run"]) == 0
    plan = capsys.readouterr().out
    described = [line for line in plan.splitlines() if line.startswith("topic: section 'politics'")]
    assert len(described) == 1 and "words 'the parliament" in described[0], plan
    assert " titles of it and " in described[0] and f"as examples in {out / 'topic.txt'}" in described[0]
    positives = int(described[0].split(" with ")[1].split()[0])
    assert positives > 0 and f"and {positives} of other sections" in described[0]
    crawls = [line for line in plan.splitlines() if "scrapy crawl" in line]
    assert ["topic=@$OUT/topic.txt" in line for line in crawls] == [True, False, True, False, True]
