"""newsforagers.evaluation.bench.plan: the runs in order, each run's commands, the ``--dry-run``
text, all deterministic."""

from __future__ import annotations

import pytest

from newsforagers.evaluation.bench.config import BenchConfig
from newsforagers.evaluation.bench.plan import PlannedRun, crawl_argv, describe_plan, plan_runs
from newsforagers.evaluation.bench.site import prepare_site
from tests.evaluation.bench.samples import config_for

pytestmark = pytest.mark.timeout(180)


def test_plan_is_repeat_major_and_seeds_each_repeat():
    config = BenchConfig(corpus="c", out="o", repeats=3, crawlers=("wlrl", "bfs"), seed=7)
    plan = plan_runs(config)
    assert [(r.crawler, r.repeat, r.seed) for r in plan] == [
        ("wlrl", 0, 7), ("bfs", 0, 7), ("wlrl", 1, 8), ("bfs", 1, 8), ("wlrl", 2, 9), ("bfs", 2, 9)]
    assert [r.index for r in plan] == list(range(6))
    assert plan[2].name == "wlrl-r1"


def test_commands_give_every_crawler_the_same_budget_window_and_its_seed(tmp_path):
    config = BenchConfig(corpus="c", out=str(tmp_path), speed=300, duration=60, budget=15,
                         settings=(("FORAGERS_MIN", "4"),))
    url = "http://127.0.0.1:1234/"
    colony = crawl_argv(config, PlannedRun(0, "rl", 1, 9), url, tmp_path / "rl")
    assert colony[colony.index("crawl") + 1] == "forager"
    for arg in (f"seeds={url}", "mode=rl", "CLOSESPIDER_TIMEOUT=60", "FORAGERS_HOST_RATE=15",
                "FORAGERS_SEED=9", "FORAGERS_FETCH_TTL=0.2", "FORAGERS_MIN=4",
                f"FORAGERS_RUN_DIR={tmp_path / 'rl' / 'colony'}"):
        assert arg in colony
    oracle = crawl_argv(config, PlannedRun(1, "oracle", 0, 1), url, tmp_path / "o")
    for arg in (f"start={url}", "rate=15", "speed=300", "CLOSESPIDER_TIMEOUT=60",
                f"truth={tmp_path / 'o' / 'truth.jsonl'}", "FORAGERS_MIN=4"):
        assert arg in oracle
    walk = crawl_argv(config, PlannedRun(2, "random", 2, 3), url, tmp_path / "w")
    assert "seed=3" in walk and not any(a.startswith("truth=") for a in walk)


def test_plan_and_commands_are_deterministic(corpus, tmp_path):
    config = config_for(corpus, tmp_path, repeats=2, crawlers=("wlrl", "adaptive", "random"))
    first = describe_plan(config, prepare_site(config).start)
    second = describe_plan(config, prepare_site(config).start)
    assert first == second
    assert first.count("\nrun ") == 6 and "seed=2" in first and "$REPLAY" in first


def test_the_topical_crawlers_get_the_topics_words(tmp_path):
    from newsforagers.evaluation.bench.config import BenchError

    config = BenchConfig(corpus="c", out=str(tmp_path), topic="solar", topic_text="solar energy",
                         crawlers=("scheduled", "bfs", "best_first"))
    url = "http://127.0.0.1:1234/"
    argv = {run.key: crawl_argv(config, run, url, tmp_path / run.name) for run in plan_runs(config)}
    assert list(argv) == ["scheduled", "scheduled@no-topic", "scheduled@cosine", "bfs", "best_first"]
    assert "topic=solar energy" in argv["scheduled"] and "seeds=" + url in argv["scheduled"]
    # the reference: the same colony without the topic, judged on the same documents
    reference = argv["scheduled@no-topic"]
    assert not any(arg.startswith("topic=") for arg in reference) and "seeds=" + url in reference
    assert reference[reference.index("crawl") + 1] == "forager"
    # the papers' relevance: the same topic, its cosine and the fixed threshold, nothing learned
    cosine = argv["scheduled@cosine"]
    assert "topic=solar energy" in cosine
    for setting in ("FORAGERS_TOPIC_FEEDBACK=off", "FORAGERS_TOPIC_THRESHOLD=fixed"):
        assert setting in cosine and setting not in argv["scheduled"]
    best_first = argv["best_first"]
    assert best_first[best_first.index("crawl") + 1] == "best_first"
    for arg in ("topic=solar energy", f"start={url}", "rate=20", "speed=600"):
        assert arg in best_first
    assert not any(arg.startswith("topic=") for arg in argv["bfs"])
    unresolved = BenchConfig(corpus="c", out=str(tmp_path), topic="solar", crawlers=("scheduled",))
    with pytest.raises(BenchError, match="has no words yet"):
        crawl_argv(unresolved, plan_runs(unresolved)[0], url, tmp_path)
    text = describe_plan(config, "2024-01-01T07:00:00+00:00")
    assert "topic: section 'solar', words 'solar energy', given to scheduled, best_first" in text


def test_a_topic_described_by_examples_is_given_as_a_file(tmp_path):
    config = BenchConfig(corpus="c", out=str(tmp_path), topic="solar", topic_words="examples",
                         topic_text="Cheap panels\nRooftop solar\n", crawlers=("scheduled", "best_first"))
    url = "http://127.0.0.1:1234/"
    argv = {run.key: crawl_argv(config, run, url, tmp_path / run.name) for run in plan_runs(config)}
    given = f"topic=@{tmp_path / 'topic.txt'}"
    assert given in argv["scheduled"] and given in argv["best_first"]
    assert not any(arg.startswith("topic=") for arg in argv["scheduled@no-topic"])
    text = describe_plan(config, "2024-01-01T07:00:00+00:00")
    assert f"topic: section 'solar', 2 example titles in {tmp_path / 'topic.txt'}, given to " in text
