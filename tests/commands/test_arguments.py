"""The arguments every command shares: ``--store`` names a store one way everywhere (a URL or a
store file's path, the same default), ``--run`` a run directory; a value that names no store is
refused saying what is accepted."""

from __future__ import annotations

import argparse

import pytest

from newsforagers import defaults
from newsforagers.cli import build_parser
from newsforagers.commands.arguments import DEFAULT_STORE, about_default_store, store_file, store_of, store_url


@pytest.mark.parametrize("value", [
    "sqlite:///.newsforagers/colony.db", "sqlite:////srv/colony.db", "redis://cache:6379/0",
    "redis://:secret@cache:6379/1", "rediss://cache:6380/0",
])
def test_urls_are_kept_as_written(value):
    assert store_url(value) == value


def test_a_scheme_in_capitals_is_read_as_the_stores_read_it():
    assert store_url("SQLite:///Colony.db") == "sqlite:///Colony.db"
    assert store_url("REDIS://:Secret@Cache:6379/0") == "redis://:Secret@Cache:6379/0"


def test_a_plain_path_is_an_sqlite_store_when_it_exists_or_looks_like_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # a name ending in .db, .sqlite or .sqlite3: a store, there or not (a reader then says
    # "no store at")
    for name in ("colony.db", ".newsforagers/colony.db", "a/b.SQLITE", "c.sqlite3"):
        assert store_url(name) == f"sqlite:///{name}"
    assert store_url(str(tmp_path / "colony.db")) == f"sqlite:///{tmp_path}/colony.db"
    # any existing file, whatever its name (a reader says if it is no store)
    (tmp_path / "colony").write_bytes(b"")
    assert store_url("colony") == "sqlite:///colony"


@pytest.mark.parametrize("value, message", [
    ("colony", "'colony' is not a store: give sqlite:///PATH, redis://[:password@]host:port/db "
               "(rediss:// for TLS), or the path of a store file (one that exists, or a name "
               "ending in .db, .sqlite or .sqlite3)"),
    ("localhost:6379", "'localhost:6379' is not a store: give sqlite:///PATH"),
    ("", "no store named: give sqlite:///PATH"),
    ("memory://", "memory:// lives only inside the colony's process: give sqlite:///PATH"),
    ("sqlite://colony.db", "'sqlite://colony.db' names no file: give sqlite:///PATH"),
    ("sqlite:///", "'sqlite:///' names no file"),
    ("redis2://:secret@host:6379/0", "'redis2://:***@host:6379/0' has an unknown scheme 'redis2': "
                                     "give sqlite:///PATH"),
    ("http://user:secret@host/x", "'http://user:***@host/x' has an unknown scheme 'http'"),
    ("store.d", "'store.d' is a directory: give the store's file in it (e.g. store.d/colony.db), or "
                "sqlite:///PATH"),
])
def test_anything_else_is_refused_saying_what_is_accepted(tmp_path, monkeypatch, value, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "store.d").mkdir()
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        store_url(value)
    assert str(refused.value).startswith(message)
    assert "secret" not in str(refused.value)


def store_options(parser: argparse.ArgumentParser):
    """``(command, action)`` for every ``--store`` and ``--run`` option of every sub-command."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        for action in command._actions:
            if "--store" in action.option_strings or "--run" in action.option_strings:
                yield name, action


def test_every_command_that_reads_a_store_names_it_the_same_way():
    found = {}
    for command, action in store_options(build_parser()):
        found.setdefault(action.option_strings[0], []).append(command)
        # the one type, the one default (None, which store_of reads as DEFAULT_STORE) and the
        # help that says both
        assert action.default is None, (command, action)
        if action.dest == "store":
            assert action.type is store_url and action.metavar == "STORE", command
            assert f"default {DEFAULT_STORE}" in action.help and "sqlite:///PATH" in action.help
        else:
            assert action.metavar == "RUN_DIR" and action.type is None, command
            assert "default: the newest under .newsforagers/runs/" in action.help, command
    assert sorted(found["--store"]) == ["export", "index", "search", "status", "web"]
    assert sorted(found["--run"]) == ["status", "web"]
    assert DEFAULT_STORE == defaults.FORAGERS_STORE  # what a crawl uses without FORAGERS_STORE


def test_store_of_and_the_default_store_s_messages():
    assert store_of(argparse.Namespace(store=None)) == "sqlite:///.newsforagers/colony.db"
    assert store_of(argparse.Namespace(store="redis://h:1/0")) == "redis://h:1/0"
    assert about_default_store("no store at x", argparse.Namespace(store="sqlite:///x")) == "no store at x"
    assert about_default_store("no store at x", argparse.Namespace(store=None)) == \
        "no store at x; that is the default store, give --store STORE for another"
    assert str(store_file("sqlite:///a/colony.db")) == "a/colony.db"
    assert store_file("redis://h:1/0") is None
