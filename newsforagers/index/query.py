"""A person's free-text query as a safe SQLite FTS5 query.

People type into a search box what they would say, not FTS5's query language: ``AND(``, a lone
``"``, ``*``, ``title:``, ``-`` or ``NEAR`` would each be a syntax error (or an operator the
person did not mean) if passed on. :func:`fts_query` keeps the person's intent and nothing of
the syntax:

* every word must appear (the words are ANDed); a word that FTS5's tokenizer would split
  (``covid-19``, ``e-mail``) must appear as written, its parts side by side;
* ``"quoted phrases"`` must appear as phrases (a quote left open is taken as a word separator);
* a word ending in ``*`` (``elect*``) matches every word it begins;
* everything else — operators, column filters, brackets, punctuation — is a separator, and
  ``AND``, ``OR``, ``NOT`` and ``NEAR`` are plain words.

Each term is emitted as an FTS5 string holding only letters and digits, so the result is
always valid FTS5 whatever the input.
"""

from __future__ import annotations

import re
import unicodedata

#: Terms of one query kept at most (the first ones): a pasted page is not a query, and each term
#: costs a walk through the index.
MAX_TERMS = 32

# Letters and digits of any script: what FTS5's unicode61 tokenizer keeps in a token (it takes
# punctuation, symbols and spaces for separators).
_TOKEN = re.compile(r"[^\W_]+")
_PREFIX = re.compile(r"[^\W_]\*+$")


class EmptyQuery(ValueError):
    """The query holds nothing at all (only spaces)."""


def fts_query(text: str) -> str | None:
    """The FTS5 query of the person's ``text`` (the module's docstring says how it reads), or
    None when ``text`` holds no word to look for (``-``, ``"*"``: it matches nothing).

    Raises :class:`EmptyQuery` (a ``ValueError``) when ``text`` is empty or only spaces."""
    if not isinstance(text, str) or not text.strip():
        raise EmptyQuery("the query is empty: give one or more words to look for")
    terms: list[str] = []
    for phrase, words in _pieces(unicodedata.normalize("NFC", text)):
        if phrase is not None:
            terms.append(_term(phrase, prefix=False))
        for word in words:
            terms.append(_term(word, prefix=bool(_PREFIX.search(word))))
    kept = [term for term in dict.fromkeys(terms) if term]
    return " AND ".join(kept[:MAX_TERMS]) or None


def _pieces(text: str):
    """(phrase or None, words) pieces of ``text``: a quoted phrase, then the words after it."""
    parts = text.split('"')
    # an odd number of quotes leaves the last one open: what follows it is ordinary words
    closed = len(parts) % 2 == 1
    for i, part in enumerate(parts):
        inside = i % 2 == 1 and (closed or i < len(parts) - 1)
        if inside:
            yield part, []
        else:
            yield None, part.split()


def _term(text: str, prefix: bool) -> str:
    """One FTS5 phrase of the tokens of ``text`` (``""`` when it has none)."""
    tokens = _TOKEN.findall(text)
    if not tokens:
        return ""
    return f'"{" ".join(tokens)}"' + (" *" if prefix else "")
