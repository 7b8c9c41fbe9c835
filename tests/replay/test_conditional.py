"""RFC 9110's conditional requests, as the replay evaluates them (newsforagers/replay/conditional.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from newsforagers.replay.conditional import entity_tags, http_date, last_modified_value, not_modified

TAG = b'"3f2a"'
NOW = datetime(2024, 1, 1, 12, tzinfo=UTC).timestamp()
DATE = b"Sun, 06 Nov 1994 08:49:37 GMT"
T_1994 = datetime(1994, 11, 6, 8, 49, 37, tzinfo=UTC).timestamp()


def test_if_none_match_is_star_or_a_list_of_entity_tags():
    assert entity_tags(b'"a", W/"b" ,, "c"') == [b'"a"', b'"b"', b'"c"']
    assert entity_tags(b" * ") == [b"*"] and entity_tags(b'""') == [b'""']
    assert entity_tags(b'"a,b"') == [b'"a,b"']  # a comma inside a tag is part of it
    for bad in (b'"a" "b"', b"a", b'*, "a"', b'w/"a"', b'"a', b'"a"b'):
        assert entity_tags(bad) is None, bad


def test_if_none_match_compares_weakly_and_takes_precedence():
    assert not_modified([TAG], [], TAG, NOW, NOW)
    assert not_modified([b'W/"3f2a"'], [], TAG, NOW, NOW)  # weak comparison
    assert not_modified([b'"x"', b'"3f2a"'], [], TAG, NOW, NOW)  # one field over two lines
    assert not_modified([b"*"], [], TAG, None, NOW)  # any current representation
    assert not not_modified([b'"x"'], [DATE], TAG, T_1994 - 60, NOW)  # the date is ignored
    assert not not_modified([b"garbage"], [DATE], TAG, T_1994 - 60, NOW)


def test_if_modified_since_is_one_valid_http_date():
    assert not_modified([], [DATE], TAG, T_1994, NOW)  # not modified after it
    assert not not_modified([], [DATE], TAG, T_1994 + 1, NOW)
    assert not not_modified([], [DATE], TAG, None, NOW)  # no modification time known
    assert not not_modified([], [DATE, DATE], TAG, T_1994, NOW)  # more than one: ignored
    assert not not_modified([], [DATE + b", " + DATE], TAG, T_1994, NOW)
    assert not not_modified([], [b"yesterday"], TAG, T_1994, NOW)


def test_the_three_forms_of_an_http_date():
    assert http_date(DATE, NOW) == http_date(b"Sunday, 06-Nov-94 08:49:37 GMT", NOW) == T_1994
    assert http_date(b"Sun Nov  6 08:49:37 1994", NOW) == T_1994
    for bad in (b"Sun, 06 Nov 1994 08:49:37 UTC", b"Sun, 31 Feb 1994 08:49:37 GMT", b"06 Nov 1994",
                b"Sun, 06 nov 1994 08:49:37 GMT", b""):
        assert http_date(bad, NOW) is None, bad
    # a two-digit year more than 50 years ahead of the site's clock is the last one in the past
    in_2090 = datetime(2090, 3, 6, tzinfo=UTC).timestamp()
    assert datetime.fromtimestamp(http_date(b"Sunday, 06-Nov-94 08:49:37 GMT", in_2090), UTC).year == 2094
    assert datetime.fromtimestamp(http_date(b"Tuesday, 06-Nov-85 08:49:37 GMT", NOW), UTC).year == 1985
    assert http_date(b"Wed, 31 Dec 2008 23:59:60 GMT", NOW) == datetime(2009, 1, 1, tzinfo=UTC).timestamp()


@pytest.mark.parametrize("modified, now, declared", [(100.0, 105.0, 100), (100.3, 105.0, 101), (100.3, 100.8, 100)])
def test_last_modified_rounds_up_but_never_past_the_date(modified, now, declared):
    assert last_modified_value(modified, now) == declared
    # a copy fetched in the second of a change, before it, is never called current after it
    assert not_modified([], [b"Thu, 01 Jan 1970 00:01:40 GMT"], TAG, modified, now) == (modified <= 100)
