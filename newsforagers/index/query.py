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


# -- what a person may ask: `newsforagers search` and the dashboard check it alike ----------------

#: The deepest hit a search shows: ``newsforagers search --limit`` at most, and the dashboard's
#: ``/api/search`` (``page`` × ``limit``) as far.
MAX_HITS = 1000
#: Characters the part of a query that counts (:func:`query_text`) may hold: only long quoted
#: phrases reach it, and each of their words costs a walk through the index.
MAX_QUERY_CHARS = 2000


class QueryTooLong(ValueError):
    """The words and phrases of a query that count hold more than :data:`MAX_QUERY_CHARS`."""


def query_text(text: str) -> str:
    """The query the index is asked, as the person's ``text`` says it, for the command line
    and the dashboard alike: its runs of spaces as one space; when it holds more than
    :data:`MAX_TERMS` different words and phrases, or more than :data:`MAX_QUERY_CHARS`
    characters, only its words and phrases that count — the first :data:`MAX_TERMS`, each once,
    whole (never cut inside a word or a phrase). ``fts_query`` of it is ``fts_query(text)``.

    Raises :class:`EmptyQuery` for an empty ``text``, :class:`QueryTooLong` when what counts is
    still longer than :data:`MAX_QUERY_CHARS` (long phrases)."""
    if not isinstance(text, str) or not text.strip():
        raise EmptyQuery("the query is empty: give one or more words to look for")
    text = " ".join(unicodedata.normalize("NFC", text).split())
    kept: dict[str, str] = {}  # each term that counts: as it was written
    whole = True
    for phrase, words in _pieces(text):
        pieces = [(f'"{phrase.strip()}"', _term(phrase, prefix=False))] if phrase is not None else [
            (word, _term(word, prefix=bool(_PREFIX.search(word)))) for word in words]
        for written, term in pieces:
            if not term or term in kept:
                continue
            if len(kept) == MAX_TERMS:
                whole = False
                break
            kept[term] = written
        if not whole:
            break
    if whole and len(text) <= MAX_QUERY_CHARS:
        return text
    counted = " ".join(kept.values())
    if len(counted) > MAX_QUERY_CHARS:
        raise QueryTooLong(f"the query is too long: its words and phrases that count (the first "
                           f"{MAX_TERMS}) hold {len(counted)} characters, more than "
                           f"{MAX_QUERY_CHARS}; shorten its phrases")
    return counted


def hit_count(value: object, maximum: int = MAX_HITS) -> int:
    """A count (of hits, of documents) as a person gives it, on a command line or in a URL: a
    whole number from 1 to ``maximum``, written in ASCII digits. ValueError saying so for
    anything else (a word, 0, a number too large for SQLite)."""
    text = str(value).strip()
    if re.fullmatch(r"[0-9]{1,18}", text) and 1 <= int(text) <= maximum:
        return int(text)
    shown = text if len(text) <= 40 else f"{text[:40]}…"
    raise ValueError(f"{shown!r} is not a whole number from 1 to {maximum}")
