"""Fixtures of the page-reading tests: no test may reach the network."""

from __future__ import annotations

import htmldate.utils
import pytest


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """htmldate downloads a string argument that looks like a URL; nothing here may."""

    def refuse(url):
        raise AssertionError(f"network access attempted: {url}")

    monkeypatch.setattr(htmldate.utils, "fetch_url", refuse)
