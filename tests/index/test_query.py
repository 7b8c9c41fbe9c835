"""A person's free text as a safe FTS5 query: words ANDed, phrases kept, no syntax passed on."""

import pytest

from newsforagers.index.query import (
    MAX_HITS,
    MAX_QUERY_CHARS,
    MAX_TERMS,
    EmptyQuery,
    QueryTooLong,
    fts_query,
    hit_count,
    query_text,
)


@pytest.mark.parametrize("text, query", [
    ("budget", '"budget"'),
    ("city budget", '"city" AND "budget"'),
    ('"city budget" vote', '"city budget" AND "vote"'),
    ("covid-19 e-mail", '"covid 19" AND "e mail"'),  # a word the tokenizer splits stays whole
    ("elect*", '"elect" *'),
    ("Zürich café", '"Zürich" AND "café"'),
    # FTS5's syntax is words and separators here
    ("AND(", '"AND"'),
    ("NEAR(a b) OR NOT c", '"NEAR a" AND "b" AND "OR" AND "NOT" AND "c"'),
    ("title:budget", '"title budget"'),
    ('budget "open', '"budget" AND "open"'),  # a quote left open separates words
    ("budget budget", '"budget"'),
    ("C++ -x", '"C" AND "x"'),
])
def test_free_text_becomes_fts5_terms(text, query):
    assert fts_query(text) == query


@pytest.mark.parametrize("text", ["-", '"', "*", ":", "()", '""', "^ + ~ {}", "…"])
def test_punctuation_alone_is_no_query(text):
    assert fts_query(text) is None


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_query_is_an_error_that_says_so(text):
    with pytest.raises(EmptyQuery, match="the query is empty"):
        fts_query(text)
    assert issubclass(EmptyQuery, ValueError)


def test_a_pasted_page_keeps_its_first_terms():
    query = fts_query(" ".join(f"word{i}" for i in range(100)))
    assert query.count(" AND ") == MAX_TERMS - 1 and query.startswith('"word0"')


# -- what a person may ask (issue 29, rows 11 and 12): the CLI and the dashboard read it alike ------

WORDS = ["lighthouse", "keeper", "harbour", "storm", "ferry", "budget", "council", "election"]


@pytest.mark.parametrize("text", [
    "budget", '  city   budget "open', 'C++ -x', '"a  b" c* "d', "budget budget",
    " ".join(f"word{i}" for i in range(100)),
    " ".join(WORDS * 125),  # 1,000 words, eight different
    " ".join(["extraordinarily-long-hyphenated-compound"] * 3 + [f"w{i}" for i in range(997)]),
    '"' + " ".join(f"p{i}" for i in range(300)) + '" then words',
])
def test_the_query_asked_is_what_counts_and_finds_the_same(text):
    asked = query_text(text)
    assert fts_query(asked) == fts_query(text)
    assert len(asked) <= MAX_QUERY_CHARS
    if len(" ".join(text.split())) <= MAX_QUERY_CHARS and fts_query(text).count(" AND ") < MAX_TERMS - 1:
        assert asked == " ".join(text.split())  # a query that counts whole is left as typed


def test_a_long_query_keeps_its_first_terms_whole_never_a_piece_of_a_word():
    long_words = [f"{word}{'x' * 12}{i}" for i, word in enumerate(WORDS * 125)]
    asked = query_text(" ".join(long_words))
    assert asked.split() == long_words[:MAX_TERMS]


def test_what_counts_past_the_maximum_is_refused_not_cut():
    phrase = '"' + " ".join(["word"] * (MAX_QUERY_CHARS // 4)) + '"'
    with pytest.raises(QueryTooLong, match=f"more than {MAX_QUERY_CHARS}; shorten its phrases"):
        query_text(phrase)
    with pytest.raises(EmptyQuery):
        query_text("  ")


@pytest.mark.parametrize("value, count", [("1", 1), (" 7 ", 7), (str(MAX_HITS), MAX_HITS), (25, 25)])
def test_a_count_is_a_whole_number_up_to_the_maximum(value, count):
    assert hit_count(value) == count


@pytest.mark.parametrize("value", ["0", "-1", "1001", "99999999999999999999", "1e3", "2.0", "1_0",
                                   "\uff11", "", "ten", "9" * 5000])
def test_anything_else_is_refused_saying_the_range(value):
    with pytest.raises(ValueError, match=f"is not a whole number from 1 to {MAX_HITS}$"):
        hit_count(value)
    assert hit_count("500", maximum=500) == 500
