"""Tests for newsforagers.pages.charset: what is wrong with how a page declares its character
set."""

from __future__ import annotations

import pytest

from newsforagers.pages.charset import charset_trouble


@pytest.mark.parametrize("content_type, body, text, trouble", [
    ("text/html; charset=utf-8", "caf\xe9".encode("latin-1"), "caf\ufffd", "replaced"),
    ("text/html; charset=x-klingon", b"cafe", "cafe", "unknown"),
    ("text/html", b"<p>caf\xe9", "caf\xe9", "undeclared"),
    (b"text/html", b"<meta charset='utf-8'><p>cafe", "cafe", None),
    ("text/html; charset=utf-8", b"<p>cafe", "cafe", None),
])
def test_charset_trouble(content_type, body, text, trouble):
    assert charset_trouble(content_type, body, text) == trouble
