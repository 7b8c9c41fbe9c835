"""Mistakes on the ``scrapy crawl`` command line, the way a user makes them: each is one ERROR
line that says what is wrong and how to do it right, no traceback, and a failed exit status.

Every case runs ``scrapy crawl`` in a subprocess from the repository root, as a user does. None
reaches the network: each stops before the spider exists (an argument) or before the engine
opens (a setting).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from newsforagers.spiders.arguments import SEEDS_USAGE
from tests.integration.forager_run import REPO

pytestmark = pytest.mark.timeout(120)

_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy", "no_proxy")
# a record of Scrapy's log: "2026-01-01 10:00:00 [logger] LEVEL: message"
_RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[([^\]]+)\] (\w+): (.*)$")
SEED = "http://127.0.0.1:9/"  # never fetched: every case stops before the crawl starts


def scrapy(*argv: str, cwd=REPO) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k.lower() not in _PROXY_VARIABLES}
    return subprocess.run([sys.executable, "-m", "scrapy", *argv, "-s", "TELNETCONSOLE_ENABLED=False"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=90)


def errors(stderr: str) -> list[tuple[str, str]]:
    """``(logger, message)`` of every ERROR (or worse) record Scrapy logged."""
    found = []
    for line in stderr.splitlines():
        match = _RECORD.match(line)
        if match and match.group(2) in ("ERROR", "CRITICAL"):
            found.append((match.group(1), match.group(3)))
    return found


def assert_one_line(run: subprocess.CompletedProcess, message: str) -> None:
    shown = f"exit {run.returncode}\n-- stderr --\n{run.stderr[-4000:]}"
    assert run.returncode != 0, shown
    assert "Traceback" not in run.stderr, shown
    assert "Task exception was never retrieved" not in run.stderr, shown
    assert errors(run.stderr) == [("newsforagers.errors", message)], shown


@pytest.fixture(scope="module")
def seed_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("seeds")
    (folder / "empty.txt").write_text("# only a comment\n\n", encoding="utf-8")
    (folder / "bad.txt").write_text(f"{SEED}\nnews.example.org/\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("arguments, message", [
    ([], f"a forager needs seeds: {SEEDS_USAGE}"),
    (["-a", "seeds="], f"a forager needs seeds: {SEEDS_USAGE}"),
    (["-a", "seeds=notaurl"], f"seed 'notaurl' is not an absolute http(s) URL; {SEEDS_USAGE}"),
    (["-a", "seeds=,"], f"the seed list has no URL; {SEEDS_USAGE}"),
    (["-a", "seeds=@{folder}/missing.txt"], f"seed file '{{folder}}/missing.txt' does not exist; {SEEDS_USAGE}"),
    (["-a", "seeds=@{folder}/empty.txt"], f"seed file '{{folder}}/empty.txt' has no URL; {SEEDS_USAGE}"),
    (["-a", "seeds=@{folder}/bad.txt"],
     f"seed 'news.example.org/' in seed file '{{folder}}/bad.txt' is not an absolute http(s) URL; {SEEDS_USAGE}"),
    (["-a", f"seeds={SEED}", "-a", "mode="], "mode ('') must be one of wlrl, wl, rl, e.g. -a mode=wl "
                                             "(leave it out for wlrl)"),
    (["-a", f"seeds={SEED}", "-a", "speed="],
     "speed ('') must be a number higher than 0: the simulated seconds per wall second of the site's clock "
     "(-a speed=600 against `newsforagers replay --speed 600`; leave it out for a live site)"),
    (["-a", f"seeds={SEED}", "-a", "speed=-3"],
     "speed ('-3') must be a number higher than 0: the simulated seconds per wall second of the site's clock "
     "(-a speed=600 against `newsforagers replay --speed 600`; leave it out for a live site)"),
    (["-a", f"seeds={SEED}", "-a", "forager="], "forager ('') must be a name without spaces, e.g. -a forager=f1 "
                                                "(the default)"),
    (["-a", f"seeds={SEED}", "-a", "model={folder}/missing.joblib"],
     "model: no state encoder model at '{folder}/missing.joblib'; give -a model=PATH of a state encoder saved "
     "by `newsforagers train`, or leave it out"),
    (["-a", f"seeds={SEED}", "-a", "topic="],
     "topic ('') must be words, e.g. -a topic=\"solar energy\", or @PATH of a file holding them"),
    (["-a", f"seeds={SEED}", "-a", "topic=@{folder}/missing-topic.txt"],
     "topic: cannot read '{folder}/missing-topic.txt' ([Errno 2] No such file or directory: "
     "'{folder}/missing-topic.txt'); give -a topic=\"words\" or -a topic=@PATH of a UTF-8 text file"),
])
def test_a_bad_spider_argument_is_one_error_line(arguments, message, seed_files):
    arguments = [a.replace("{folder}", str(seed_files)) for a in arguments]
    run = scrapy("crawl", "forager", *arguments)
    assert_one_line(run, message.replace("{folder}", str(seed_files)))


@pytest.mark.parametrize("setting, message", [
    ("FORAGERS_WEBLOG_SIZ=5", "FORAGERS_WEBLOG_SIZ is not a newsforagers setting; did you mean FORAGERS_WEBLOG_SIZE?"),
    ("FORAGERS_REWARD=-5", "FORAGERS_REWARD (-5.0) must be > 0."),
    ("FORAGERS_TD_GAMMA=1", "FORAGERS_TD_GAMMA (1.0) must be in [0, 1)."),
    ("FORAGERS_REWARD_MODE=topic", "FORAGERS_REWARD_MODE ('topic') must be 'novelty' without a topic: give "
                                   "one with -a topic=\"words\" (or FORAGERS_TOPIC)."),
])
def test_a_bad_setting_is_one_error_line(setting, message):
    run = scrapy("crawl", "forager", "-a", f"seeds={SEED}", "-s", setting)
    assert_one_line(run, message)


def test_a_baseline_reads_the_same_settings_and_reports_a_typo_in_one_line():
    run = scrapy("crawl", "bfs", "-a", f"start={SEED}", "-s", "FORAGERS_HOST_RAT=5")
    assert_one_line(run, "FORAGERS_HOST_RAT is not a newsforagers setting; did you mean FORAGERS_HOST_RATE?")
