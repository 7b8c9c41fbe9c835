"""The ``newsforagers replay`` command itself, as a subprocess on port 0."""

import importlib
import json
import signal
import urllib.error
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


def test_replay_command_serves_many_sites_with_their_profiles(synth_path, tmp_path):
    log, truth, seeds = tmp_path / "requests.jsonl", tmp_path / "truth.jsonl", tmp_path / "seeds.txt"
    profiles = tmp_path / "profiles.json"
    profiles.write_text(json.dumps({"sites": {"2": {"errors": [{"from": 0, "to": 0.5, "status": 503,
                                                                "retry_after": 120}]}}}))
    replay = ReplayProcess(synth_path, speed=600, log_path=log, truth_path=truth,
                           extra_args=["--sites", "4", "--site-profiles", str(profiles), "--run-seconds", "36000",
                                       "--seeds", str(seeds)])
    with replay:
        assert "sites=4" in replay.first_line
        homes = seeds.read_text().splitlines()
        assert len(homes) == 4 and homes[0] == replay.url and len({h.split(":")[1] for h in homes}) == 4
        for number, home in enumerate(homes):
            try:
                with urllib.request.urlopen(home, timeout=10) as reply:
                    status = reply.status
            except urllib.error.HTTPError as error:
                status, retry = error.code, error.headers["Retry-After"]
            assert status == (503 if number == 2 else 200)
        assert retry == "120"
        records = [json.loads(line) for line in truth.read_text().splitlines()]
        assert {r["site"] for r in records} == {0, 1, 2, 3}
    assert {json.loads(line)["host"] for line in log.read_text().splitlines()} == {h[7:-1] for h in homes}


@pytest.mark.parametrize("args, message", [
    (["--sites", "0"], "between 1 and"),
    (["--sites", "3", "--site-profiles", "/nonexistent/p.json"], "cannot read the profile file"),
    (["--seeds", "seeds.txt"], "--seeds only with --sites N"),  # one site: the flag would do nothing
])
def test_replay_command_refuses_bad_many_site_arguments(synth_path, args, message):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import sys; from newsforagers.cli import main; sys.exit(main())",
                           "replay", str(synth_path), "--port", "0", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_the_replay_serves_with_what_it_loaded_out_of_the_collectors_passes():
    """A full collection over the loaded corpus held the replay's loop ~0.1 s and stamped the
    requests sent meanwhile as one burst: what is loaded before serving is frozen first."""
    import gc

    from newsforagers.commands import replay as replay_command

    class Reactor:
        def __init__(self):
            self.triggers, self.frozen_at_run = [], None

        def addSystemEventTrigger(self, phase, event, call):
            self.triggers.append(call)

        def run(self):
            self.frozen_at_run = gc.get_freeze_count()
            for call in self.triggers:
                call()

    loaded = [{"article": n} for n in range(1000)]  # long-lived containers, as a corpus is
    reactor, stopped = Reactor(), []
    handler = signal.getsignal(signal.SIGINT)
    gc.unfreeze()
    try:
        assert replay_command._serve(reactor, None, lambda: 0, 0, lambda: 0,
                                     lambda: stopped.append(True), every=3600) == 0
    finally:
        gc.unfreeze()
        signal.signal(signal.SIGINT, handler)
    assert reactor.frozen_at_run >= len(loaded) and stopped == [True]
