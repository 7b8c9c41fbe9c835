"""Text from crawled pages made safe to print to a terminal or to write in a log.

A title, a snippet, a URL or a weblog head is written by whoever wrote the page. Printed as it
is, its control characters are commands to the terminal: ``ESC ] 0 ; ... BEL`` sets the
window's title, ``ESC [ 31m`` colours what follows, ``ESC ( 0`` switches to line drawing,
U+009B (CSI) begins such a sequence in one character, a carriage return writes over the line;
in a log, a line break starts a line the page wrote. Unicode's bidirectional embeddings,
overrides and isolates (U+202A–U+202E, U+2066–U+2069) reorder what is shown, so that a line
reads otherwise than it is.

:func:`printable` removes them all: every C0 and C1 control character and DEL, and those
bidirectional controls; a line break or a tab becomes a space (kept, with ``lines=True``,
where the caller prints several lines). The marks U+200E, U+200F and U+061C stay: they only
steer the text next to them, and right-to-left text needs them. :func:`escape_json` writes the
same characters as ``\\uXXXX`` escapes in JSON text instead, which keeps the value whole.

This module imports nothing of Scrapy or Flask: the commands, the dashboard, the index and the
crawl's pipelines share it.
"""

from __future__ import annotations

import re

#: The bidirectional embeddings, overrides (U+202A–U+202E) and isolates (U+2066–U+2069).
BIDI_CONTROLS = frozenset(map(chr, (*range(0x202A, 0x202F), *range(0x2066, 0x206A))))

# characters that end a line somewhere (a terminal, a log reader, str.splitlines)
_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_CONTROLS = frozenset(map(chr, (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0))))
_UNSAFE = _CONTROLS | BIDI_CONTROLS | _BREAKS

# one line: breaks and tabs become spaces, the rest goes
_ONE_LINE = {ord(c): None for c in _UNSAFE} | {ord(c): " " for c in _BREAKS | {"\t"}}
# several lines: a newline and a tab stay, another break is a newline (a lone CR would write
# over the line), the rest goes
_LINES = _ONE_LINE | {ord(c): "\n" for c in _BREAKS} | {ord("\t"): "\t"}

_JSON_UNSAFE = re.compile("[" + "".join(f"\\u{ord(c):04x}" for c in sorted(_UNSAFE)) + "]")


def printable(text: object, *, lines: bool = False) -> str:
    """``text`` (``str()`` of it) without the characters that a terminal or a log reader
    would obey: C0 and C1 control characters, DEL and the bidirectional controls. A line break
    or a tab becomes a space; with ``lines``, a newline and a tab stay (``CR LF`` and any other
    line break become a newline)."""
    text = (text if isinstance(text, str) else str(text)).replace("\r\n", "\n")
    return text.translate(_LINES if lines else _ONE_LINE)


def escape_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters
    :func:`printable` removes written as ``\\uXXXX`` escapes: the same value, printable.
    (``json.dumps`` escapes C0 characters itself, but neither DEL, C1 nor the bidirectional
    controls.) Outside its strings JSON is ASCII punctuation, so only strings change."""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


__all__ = ["BIDI_CONTROLS", "escape_json", "printable"]
