"""Page text made safe to print (issue 29, row 9): no C0/C1 control character, DEL or
bidirectional control reaches a terminal or a log; JSON keeps the value, escaped."""

from __future__ import annotations

import json

import pytest

from newsforagers.terminal import BIDI_CONTROLS, escape_json, printable

# what a page may put in its title: a window title (OSC ... BEL), a colour (CSI), line drawing
# (ESC ( 0), a one-character CSI (U+009B), a bidi override, a carriage return, a log line
HOSTILE = ("Budget \x1b]0;pwned\x07passes \x1b[31mred\x1b(0 lqqk \x9b2J \u202eevil\u202c "
           "\u2067iso\u2069 a\rb\r\nINFO forged\x7f\u2028next\x00end")


def unsafe(text: str) -> list[str]:
    return [c for c in text if ord(c) < 0x20 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0
            or c in BIDI_CONTROLS or c in "\u2028\u2029"]


def test_a_hostile_title_keeps_its_words_and_loses_every_control():
    shown = printable(HOSTILE)
    assert unsafe(shown) == [] and "\n" not in shown and "\t" not in shown
    assert shown == ("Budget ]0;pwnedpasses [31mred(0 lqqk 2J evil iso a b INFO forged next"
                     "end")


def test_lines_keep_newlines_and_tabs_and_nothing_else():
    assert printable("a\tb\r\nc\rd\u2028e\x1b[0m", lines=True) == "a\tb\nc\nd\ne[0m"
    assert unsafe(printable(HOSTILE, lines=True)) == []


@pytest.mark.parametrize("text", ["Élection à Zürich", "עברית\u200f (RTL mark)", "emoji 👩‍🚀 ZWJ",
                                  "soft\u00adhyphen", "plain"])
def test_ordinary_text_is_untouched(text):
    assert printable(text) == text


def test_anything_is_printed_as_its_text():
    assert printable(None) == "None" and printable(3) == "3"


def test_json_escapes_them_and_keeps_the_value():
    line = escape_json(json.dumps({"title": HOSTILE, "url": "http://s/\u202e"}, ensure_ascii=False))
    assert unsafe(line) == [] and "\\u009b" in line and "\\u202e" in line and "\\u007f" in line
    assert json.loads(line) == {"title": HOSTILE, "url": "http://s/\u202e"}
    assert escape_json('{"t": "Zürich"}') == '{"t": "Zürich"}'
