"""A paid document as a structured record: what its page says of itself, read by trafilatura,
and the language of its text, told by py3langid (the i-Bot paper's filter and language filter).

:func:`structured_document` gives the title, the description, keywords and tags, the authors,
the site's name and the main text — plain, and as clean HTML — without the page's furniture
(navigation, bylines, "More from ..." boxes, footers), and the text's language
(:func:`detect_language`). Publication dates stay ours (:mod:`newsforagers.pages.dates`): the
replay's eras and a site's own clock decide them, not a library's window of years.

Bounded like the rest of a page's reading: a page of more than :data:`DOCUMENT_ELEMENTS`
elements is read from its beginning only (:func:`~newsforagers.pages.piece.bounded_piece`), and
the text kept is at most ``max_text`` characters.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

import trafilatura
from parsel import Selector
from py3langid.langid import MODEL_FILE, LanguageIdentifier
from trafilatura.htmlprocessing import build_html_output
from trafilatura.xml import xmltotxt

from newsforagers.pages.piece import bounded_piece

#: A page of more elements or characters than these is read as a structured document from its
#: beginning only (:func:`~newsforagers.pages.piece.bounded_piece`): trafilatura walks its tree
#: several times, 3-5 ms for a news article (the replay's digital.gov pages have at most 1,181
#: elements) but about 50 s for a hostile page of 50,000 (measured here).
DOCUMENT_ELEMENTS = 5_000
DOCUMENT_CHARS = 512 * 1024
#: A text shorter than this many letters has no language we can tell: "" (a title alone, a
#: caption).
LANGUAGE_MIN_LETTERS = 40
#: py3langid's probability (normalised over its 97 languages) below which the language is
#: unknown: "". A text mixing languages, or too short to tell, stays below it.
LANGUAGE_MIN_PROBABILITY = 0.6
#: The language is told from at most this many characters of a text: its first half from the
#: beginning, its second from the middle (where a page's visible text has its article, after the
#: navigation). py3langid's cost is linear in the text (it walks the bytes in Python: 0.72 ms
#: for a 2,000-character sample, 0.38 ms for 1,000, measured here), and a sample of this size
#: tells a language as well as 2,000 characters or the whole text do: the same language for
#: all of digital.gov's 2,414 documents, and for 109 of 110 languages' texts (Debian's
#: translations of its programs' messages; docs/benchmarks.md, *The language from a sample*).
LANGUAGE_SAMPLE_CHARS = 1_000

_SEPARATORS = re.compile(r"\s*[,;|]\s*")
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)


@dataclass(frozen=True)
class StructuredDocument:
    """What a document's page says of itself (every field "" or () when it says nothing)."""

    title: str = ""
    description: str = ""
    keywords: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    site_name: str = ""
    text: str = ""
    html: str = ""
    language: str = ""


def structured_document(html: str, url: str, max_text: int = 0, language: str | None = None) -> StructuredDocument:
    """Read ``html`` (the page at ``url``) as a structured document; ``max_text`` (> 0) caps
    the main text, plain and HTML, at that many characters. A page trafilatura finds no main
    text in gives what its metadata says, and no text. ``language``, when given and not "",
    is the page's language already told (the forager tells it once, from the page's visible
    text, for its URL record): not told again; else it is told from the title and main text."""
    if not html or not html.strip():
        return StructuredDocument()
    selector = Selector(text=html)
    piece = bounded_piece(selector, html, DOCUMENT_ELEMENTS, DOCUMENT_CHARS)
    source = html if piece is selector else piece.get()
    try:
        found = trafilatura.bare_extraction(source, url=url, with_metadata=True, include_formatting=True,
                                            include_comments=False, include_tables=True)
    except (ValueError, TypeError, AttributeError):  # a tree trafilatura cannot walk
        found = None
    if found is None:
        return StructuredDocument()
    body = getattr(found, "body", None)
    text = xmltotxt(body, include_formatting=False).strip() if body is not None else (found.text or "")
    # (converts the body's tags to HTML in place: after the plain text)
    clean_html = _body_html(found) if body is not None else ""
    if max_text and max_text > 0:
        text, clean_html = text[:max_text], clean_html[:max_text]
    title = (found.title or "").strip()
    return StructuredDocument(
        title=title, description=(found.description or "").strip(),
        keywords=_split(list(found.tags or ()) + list(found.categories or ())),
        authors=_split([found.author or ""]), site_name=(found.sitename or "").strip(),
        text=text, html=clean_html, language=language or detect_language(f"{title}\n{text}"))


def detect_language(text: str) -> str:
    """The ISO 639-1 code of ``text``'s language, or "" when it cannot be told (too short, or
    no language likely enough)."""
    sample = language_sample(text)
    if sum(1 for _ in itertools.islice(_LETTERS.finditer(sample), LANGUAGE_MIN_LETTERS)) < LANGUAGE_MIN_LETTERS:
        return ""
    language, probability = _language_identifier().classify(sample)
    return str(language) if probability >= LANGUAGE_MIN_PROBABILITY else ""


def language_sample(text: str, size: int = LANGUAGE_SAMPLE_CHARS) -> str:
    """The part of ``text`` its language is told from: all of it up to ``size`` characters;
    beyond, its first ``size // 2`` and the ``size // 2`` around its middle."""
    if len(text) <= size:
        return text
    half = size // 2
    middle = len(text) // 2
    return f"{text[:half]}\n{text[middle - half // 2:middle - half // 2 + half]}"


@functools.cache
def _language_identifier():
    """py3langid's model with normalised probabilities, loaded once per process when first
    needed; read only (a constant, the same for every crawler)."""
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _body_html(found) -> str:
    """The main text as clean HTML: its ``<body>``'s content, without the document around it."""
    page = build_html_output(found)
    inner = Selector(text=page).xpath("//body/node()").getall()
    return "".join(inner).strip()


def _split(values: list[str]) -> tuple[str, ...]:
    """Keywords or authors as one list: each value split on commas, semicolons and bars,
    stripped, in order, each once (case kept, compared without it)."""
    seen: dict[str, str] = {}
    for value in values:
        for part in _SEPARATORS.split(value or ""):
            part = part.strip()
            if part and part.lower() not in seen:
                seen[part.lower()] = part
    return tuple(seen.values())


__all__ = ["DOCUMENT_CHARS", "DOCUMENT_ELEMENTS", "LANGUAGE_MIN_LETTERS", "LANGUAGE_MIN_PROBABILITY",
           "LANGUAGE_SAMPLE_CHARS", "StructuredDocument", "detect_language", "language_sample",
           "structured_document"]
