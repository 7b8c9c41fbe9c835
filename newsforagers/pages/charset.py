"""How a page declares its character set, and what is wrong with it (:func:`charset_trouble`:
an unknown charset, bytes the declared one cannot decode, no declaration at all), for the
spider to count; such pages are still read."""

from __future__ import annotations

import re

from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding, read_bom

_CHARSET_PARAM = re.compile(r"charset\s*=\s*[\"']?([^\s;\"']+)", re.I)


def charset_trouble(content_type: str | bytes | None, body: bytes, text: str) -> str | None:
    """What is wrong with how a page declares its character set, or None.

    ``content_type`` is the ``Content-Type`` header, ``body`` the raw bytes and ``text`` the
    decoded text (Scrapy decodes with the header's charset, a BOM, the page's own
    ``<meta charset>``, else a guess; bytes the chosen charset cannot decode become U+FFFD).
    ``"unknown"``: the header names a charset nobody knows; ``"replaced"``: the text has
    replacement characters, so the declared charset is wrong for the bytes; ``"undeclared"``:
    no charset anywhere, the decoder guessed. Such pages are still read.
    """
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    named = _CHARSET_PARAM.search(content_type or "")
    if named is not None and http_content_type_encoding(content_type) is None:
        return "unknown"
    if "\ufffd" in text:
        return "replaced"
    if named is None and read_bom(body) == (None, None) and html_body_declared_encoding(body) is None:
        return "undeclared"
    return None


__all__ = ["charset_trouble"]
