"""A person's free text as a safe FTS5 query: words ANDed, phrases kept, no syntax passed on."""

import pytest

from newsforagers.index.query import MAX_TERMS, EmptyQuery, fts_query


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
