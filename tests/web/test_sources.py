"""The dashboard's sources: a busy store or index is read again before a page says it is
unavailable."""

from __future__ import annotations

import sqlite3

import pytest

from newsforagers.web.sources import SourceBusy, Sources, SourceUnavailable, read_again


def test_a_busy_source_is_read_again_before_the_page_says_it_is_unavailable():
    answers = [SourceBusy("locked"), SourceBusy("locked"), "read"]

    def read():
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert read_again(read, tries=3, pause=0.0) == "read" and not answers
    answers[:] = [SourceBusy("still locked")] * 3
    with pytest.raises(SourceBusy, match="still locked"):
        read_again(read, tries=3, pause=0.0)
    assert not answers
    answers[:] = [SourceUnavailable("no store at x"), "read"]  # not busy: said at once
    with pytest.raises(SourceUnavailable, match="no store"):
        read_again(read, tries=3, pause=0.0)
    assert answers == ["read"]


def test_a_store_that_fails_while_read_is_busy_not_gone(tmp_path):
    from newsforagers.store import open_store

    path = tmp_path / "colony.db"
    open_store(f"sqlite:///{path}").close()
    sources = Sources(store_url=f"sqlite:///{path}")
    with pytest.raises(SourceBusy, match="cannot read store"):
        with sources.store():
            raise sqlite3.OperationalError("database is locked")
