"""``newsforagers bench --sites N``: its options, each run's replay and crawl commands and the
``--dry-run`` text (pure: nothing runs), and the many-site model a benchmark builds before any
run."""

from __future__ import annotations

import json

import pytest

from newsforagers import cli
from newsforagers.evaluation.bench.config import BenchConfig, BenchError
from newsforagers.evaluation.bench.plan import (
    SEEDS_FILE,
    PlannedRun,
    crawl_argv,
    describe_plan,
    plan_runs,
    replay_kwargs,
)
from newsforagers.evaluation.bench.site import prepare_site
from newsforagers.evaluation.bench.summary import summarise
from newsforagers.replay.process import ReplayProcess
from tests.evaluation.bench.samples import config_for

pytestmark = pytest.mark.timeout(60)

URL = "http://127.1.0.1:4000/"


def test_the_many_site_options_are_checked():
    with pytest.raises(BenchError, match=r"--sites \(0\) must be a whole number from 1 to 4096"):
        BenchConfig(corpus="c", out="o", sites=0).validate()
    with pytest.raises(BenchError, match=r"--sites \(5000\)"):
        BenchConfig(corpus="c", out="o", sites=5000).validate()
    with pytest.raises(BenchError, match=r"--split \('sections'\) must be one of auto, section, hash"):
        BenchConfig(corpus="c", out="o", sites=3, split="sections").validate()
    with pytest.raises(BenchError, match="--split and --site-profiles say how to serve several "
                                         "sites: give --sites N"):
        BenchConfig(corpus="c", out="o", split="hash").validate()
    with pytest.raises(BenchError, match=r"--site-profiles \('nope.json'\) is not a file"):
        BenchConfig(corpus="c", out="o", sites=3, site_profiles="nope.json").validate()


def test_one_site_writes_the_settings_it_always_wrote():
    one = BenchConfig(corpus="c", out="o")
    assert not {"sites", "split", "site_profiles"} & set(one.to_dict())
    assert BenchConfig.from_dict(one.to_dict()) == one
    many = BenchConfig(corpus="c", out="o", sites=20, split="hash")
    assert many.to_dict()["sites"] == 20 and many.to_dict()["split"] == "hash"
    assert BenchConfig.from_dict(many.to_dict()) == many


def test_each_runs_replay_serves_the_sites_and_writes_their_seeds(tmp_path):
    config = BenchConfig(corpus="c", out=str(tmp_path), speed=600, duration=15, sites=3,
                         split="section", site_profiles=str(tmp_path / "p.json"))
    run_dir = tmp_path / "runs" / "bfs-r0"
    kwargs = replay_kwargs(config, "2024-01-01T07:00:00+00:00", run_dir)
    assert kwargs["extra_args"] == ["--sites", "3", "--split", "section", "--run-seconds", "9000.0",
                                    "--site-profiles", str(tmp_path / "p.json"),
                                    "--seeds", str(run_dir / SEEDS_FILE)]
    argv = ReplayProcess(**kwargs).argv
    assert argv[argv.index("--run-seconds") + 1] == "9000.0"  # duration x speed: profile shares of the run
    assert "extra_args" not in replay_kwargs(BenchConfig(corpus="c", out="o"), "x", run_dir)


@pytest.mark.parametrize("crawler,argument", [
    ("scheduled", "seeds"), ("wlrl", "seeds"), ("bfs", "start"), ("hubs", "start"),
    ("adaptive", "start"), ("random", "start"), ("oracle", "start"),
])
def test_every_crawler_starts_from_every_sites_home_page_under_a_budget_per_host(
        tmp_path, crawler, argument):
    config = BenchConfig(corpus="c", out=str(tmp_path), budget=15, sites=4)
    run_dir = tmp_path / "runs" / f"{crawler}-r0"
    argv = crawl_argv(config, PlannedRun(0, crawler, 0, 1), URL, run_dir)
    assert f"{argument}=@{run_dir / SEEDS_FILE}" in argv
    assert not any(URL in arg for arg in argv)  # the first site's URL alone is not a seed
    budget = "FORAGERS_HOST_RATE=15" if argument == "seeds" else "rate=15"
    assert budget in argv  # the same number, per host for every crawler
    one = crawl_argv(BenchConfig(corpus="c", out=str(tmp_path), budget=15),
                     PlannedRun(0, crawler, 0, 1), URL, run_dir)
    assert f"{argument}={URL}" in one  # one site: its URL, as always


def test_the_dry_run_shows_the_sites(corpus, tmp_path):
    config = config_for(corpus, tmp_path, crawlers=("scheduled", "bfs"), sites=3)
    site = prepare_site(config)
    text = describe_plan(config, site.start)
    assert "3 sites (split auto, profiles none: fast and healthy), every crawler seeded with " \
           "every site's home page; the budget is per host" in text
    assert "--sites 3 --split auto --run-seconds 4800.0 --seeds '$OUT/runs/scheduled-r0/seeds.txt'" in text
    assert "-a 'seeds=@$OUT/runs/scheduled-r0/seeds.txt'" in text
    assert "-a 'start=@$OUT/runs/bfs-r0/seeds.txt'" in text
    assert describe_plan(config, site.start) == text
    one = describe_plan(config_for(corpus, tmp_path, crawlers=("scheduled", "bfs")), site.start)
    assert "sites" not in one and "--seeds" not in one


def test_the_model_of_the_sites_is_the_replays(corpus, tmp_path):
    profiles = tmp_path / "profiles.json"
    profiles.write_text(json.dumps({"sites": {"1": {"down": [[0.25, 0.5]]}}}))
    config = config_for(corpus, tmp_path, duration=10.0, sites=3, site_profiles=str(profiles))
    site = prepare_site(config)
    many = site.many
    assert len(many.articles) == 3 and sum(many.articles) == site.articles == 400
    # a share of the run: 10 s x 600 = 6000 simulated seconds
    assert many.down == [(), ((1500.0, 3000.0),), ()]
    described = site.describe()
    assert described["sites"] == {"count": 3, "articles": many.articles, "down": [1]}
    assert site.start == prepare_site(config_for(corpus, tmp_path)).start  # the same window
    changes, pages = many.for_hosts({0: "127.1.0.1:5", 1: "127.1.0.2:6", 2: "127.1.0.3:7"})
    assert all(path.startswith("/127.1.0.") for path in changes)
    assert set(pages.pages) == {"127.1.0.1:5", "127.1.0.2:6", "127.1.0.3:7"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"sites": {"7": {}}}))
    with pytest.raises(BenchError, match="--site-profiles: .*site 7 does not exist"):
        prepare_site(config_for(corpus, tmp_path, sites=3, site_profiles=str(bad)))
    with pytest.raises(BenchError, match=r"--sites \(500\): 500 sites cannot share 400 articles"):
        prepare_site(config_for(corpus, tmp_path, sites=500))


def test_the_command_line_reaches_the_plan(corpus, tmp_path, capsys):
    profiles = tmp_path / "profiles.json"
    profiles.write_text("{}")
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path / "out"), "--sites", "3",
                     "--split", "hash", "--site-profiles", str(profiles), "--crawlers", "bfs",
                     "--repeats", "1", "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert f"--split hash --run-seconds 108000.0 --site-profiles {profiles.resolve()}" in text
    assert cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path), "--split", "hash",
                     "--dry-run"]) == 2
    assert "give --sites N" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["bench", "--corpus", str(corpus), "--out", str(tmp_path), "--sites", "0"])


def test_a_summary_of_one_site_has_no_sites():
    config = BenchConfig(corpus="c", out="o", repeats=1, crawlers=("bfs",))
    records = [{"crawler": "bfs", "repeat": 0, "status": "ok", "metrics": {"recall": 1.0}}]
    assert "sites" not in summarise(config, {}, records)["crawlers"]["bfs"]
    assert [r.name for r in plan_runs(config)] == ["bfs-r0"]
