"""The command line as a whole: ``--version`` from the package's metadata, and help on every
option of every sub-command."""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib.metadata import version

import pytest

from newsforagers import cli
from tests.integration.forager_run import REPO


def test_version_is_the_installed_package_s():
    done = subprocess.run([sys.executable, "-m", "newsforagers.cli", "--version"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"newsforagers {version('newsforagers')}\n"
    assert version("newsforagers")[0].isdigit()


def test_version_without_metadata_says_unknown(monkeypatch):
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert cli.package_version() == "unknown"


def undocumented(parser: argparse.ArgumentParser, path: str = "newsforagers") -> list[str]:
    """Every argument of ``parser`` and of its sub-commands (at any depth) without help text."""
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                missing += undocumented(command, f"{path} {name}")
            continue
        if isinstance(action, argparse._HelpAction):
            continue
        if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
            missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    return missing


def test_every_option_of_every_command_has_help():
    parser = cli.build_parser()
    assert undocumented(parser) == []
    # the walk reaches every sub-command (bench is a package) and sees an option without help
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(commands.choices) == set(cli.COMMANDS)
    commands.choices["bench"].add_argument("--undocumented")
    assert undocumented(parser) == ["newsforagers bench --undocumented"]


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_every_command_s_help_prints(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: newsforagers {command} ")
