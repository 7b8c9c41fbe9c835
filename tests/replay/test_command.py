"""The ``newsforagers replay`` command itself, as a subprocess on port 0."""

import importlib
import json
import signal
import urllib.request

import pytest

from newsforagers.replay.process import ReplayProcess, parse_serving_line


def _cli_ready():
    try:
        from newsforagers import cli

        for module in cli.COMMANDS.values():
            importlib.import_module(module)
    except ImportError as exc:
        return str(exc)
    return None


pytestmark = pytest.mark.skipif(_cli_ready() is not None,
                                reason=f"newsforagers.cli cannot load all its commands yet: {_cli_ready()}")


def test_replay_command_serves_logs_and_stops_on_sigterm(synth_path, tmp_path):
    log, truth = tmp_path / "requests.jsonl", tmp_path / "truth.jsonl"
    replay = ReplayProcess(synth_path, speed=3600 * 24, retime=300, log_path=log, truth_path=truth)
    with replay:
        assert replay.url.startswith("http://127.0.0.1:") and replay.url.endswith("/")
        assert "sim_now=" in replay.first_line and "profile=hard" in replay.first_line
        with urllib.request.urlopen(replay.url + "robots.txt", timeout=10) as reply:
            assert b"Disallow: /search" in reply.read()
        request = urllib.request.Request(replay.url, headers={"X-Forager": "cli-test"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            assert reply.status == 200 and b"Featured" in reply.read()
        records = [json.loads(line) for line in truth.read_text().splitlines()]
        assert len(records) == 300 and records[0]["url"].startswith(replay.url.rstrip("/"))
    assert replay.process.returncode == 0
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["path"], r["forager"]) for r in logged] == [("/robots.txt", None), ("/", "cli-test")]


def test_replay_command_stops_on_sigint(synth_path):
    replay = ReplayProcess(synth_path, profile="easy").start()
    with urllib.request.urlopen(replay.url, timeout=10) as reply:
        assert b'class="latest"' in reply.read()
    assert replay.stop(sig=signal.SIGINT) == 0


def test_parse_serving_line():
    line = "serving http://127.0.0.1:4321/ sim_now=2024-01-01T00:00:00+00:00 speed=600 profile=hard articles=3\n"
    assert parse_serving_line(line) == "http://127.0.0.1:4321/"
    with pytest.raises(ValueError):
        parse_serving_line("Traceback (most recent call last):")
