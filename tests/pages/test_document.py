"""A paid document read as a structured one (trafilatura) and its language (py3langid)."""

from __future__ import annotations

import re

import pytest

from newsforagers.corpus import default_corpus_path, load_corpus
from newsforagers.pages.document import (
    LANGUAGE_SAMPLE_CHARS,
    StructuredDocument,
    detect_language,
    language_sample,
    structured_document,
)
from newsforagers.replay.index import SiteIndex
from newsforagers.replay.site import PageBuilder

PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Budget talks stall in the Senate | Daily Planet</title>
<meta name="description" content="Senators left Washington without a deal.">
<meta name="keywords" content="budget, Senate; politics, budget">
<meta name="author" content="Lois Lane; Clark Kent">
<meta property="og:site_name" content="Daily Planet">
</head><body>
<nav><a href="/">Home</a> <a href="/world/">World</a> <a href="/sports/">Sports</a></nav>
<article><h1>Budget talks stall in the Senate</h1><p class="byline">By Lois Lane</p>
<p>Senators left Washington on Friday without a deal on the budget, after three weeks of talks
that both parties had called their last chance before the holidays.</p>
<p>The majority leader said negotiations would resume on Monday. <b>Markets</b> were calm,
<script>window.__pwned = 1</script> and the dollar barely moved.</p></article>
<aside><h2>More from Daily Planet</h2><ul><li><a href="/a">A story about gardens</a></li></ul></aside>
<footer>Copyright Daily Planet. All rights reserved.</footer></body></html>"""


def test_a_page_becomes_a_structured_document_without_its_furniture():
    document = structured_document(PAGE, "https://planet.example/2024/01/05/budget-talks")
    assert document.description == "Senators left Washington without a deal."
    assert document.keywords == ("budget", "Senate", "politics")  # split, each once
    assert document.authors == ("Lois Lane", "Clark Kent")
    assert document.site_name == "Daily Planet"
    assert document.language == "en"
    assert document.text.startswith("Budget talks stall in the Senate\nSenators left Washington")
    assert "the dollar barely moved" in document.text
    # no navigation, byline, related box, footer or script in the main text
    for furniture in ("Sports", "By Lois Lane", "More from", "gardens", "Copyright", "__pwned"):
        assert furniture not in document.text, furniture
    # the clean HTML keeps the structure, and only that
    assert "<p>Senators left Washington" in document.html and "<strong>Markets</strong>" in document.html
    assert "<script" not in document.html and "class=" not in document.html and "<nav" not in document.html


def test_the_main_text_is_capped():
    document = structured_document(PAGE, "https://planet.example/a", max_text=40)
    assert len(document.text) == 40 and len(document.html) <= 40


@pytest.mark.parametrize("html", ["", "   ", "<html><body></body></html>"])
def test_a_page_without_a_document_gives_an_empty_one(html):
    document = structured_document(html, "https://planet.example/a")
    assert document.text == "" and document.language == ""


def test_a_huge_page_is_read_from_its_beginning_only():
    filler = "<div><p>filler words of a broken page</p></div>" * 60_000  # 60,000 × 2 elements
    page = PAGE.replace("</article>", "</article>" + filler)
    document = structured_document(page, "https://planet.example/huge")
    assert "Senators left Washington" in document.text


@pytest.mark.parametrize("text, language", [
    ("The government announced on Tuesday a new pension reform that has drawn strong criticism "
     "from the unions.", "en"),
    ("Le gouvernement a annoncé mardi une nouvelle réforme des retraites qui suscite de vives "
     "critiques des syndicats.", "fr"),
    ("El gobierno anunció el martes una nueva reforma de las pensiones que ha provocado fuertes "
     "críticas de los sindicatos.", "es"),
    ("Die Regierung hat am Dienstag eine neue Rentenreform angekündigt, die bei den Gewerkschaften "
     "heftige Kritik auslöst.", "de"),
    ("Il governo ha annunciato martedì una nuova riforma delle pensioni che ha suscitato forti "
     "critiche dai sindacati.", "it"),
])
def test_the_language_of_a_text(text, language):
    assert detect_language(text) == language


@pytest.mark.parametrize("text", ["", "Breaking", "12:30 — 4–2", "OK " * 5])
def test_too_little_text_has_no_language(text):
    assert detect_language(text) == ""


def test_a_french_page_is_french():
    page = PAGE.replace('lang="en"', 'lang="fr"').replace(
        "Senators left Washington on Friday without a deal on the budget, after three weeks of talks\n"
        "that both parties had called their last chance before the holidays.",
        "Les sénateurs ont quitté Washington vendredi sans accord sur le budget, après trois "
        "semaines de discussions que les deux partis présentaient comme la dernière chance.")
    page = page.replace("The majority leader said negotiations would resume on Monday.",
                        "Le chef de la majorité a dit que les négociations reprendraient lundi.")
    assert structured_document(page, "https://planet.example/fr").language == "fr"


CORPUS = default_corpus_path()


@pytest.mark.skipif(CORPUS is None, reason="../shared/data/digitalgov.jsonl.gz is not available")
def test_real_pages_of_digital_gov_as_the_replay_serves_them():
    """The replay's article pages of real digital.gov posts: the page's metadata and main text,
    not its navigation, come back."""
    index = SiteIndex(load_corpus(CORPUS), retime=200, seed=0)
    pages = PageBuilder(index)
    checked = 0
    for article in index.articles[100:400:15]:
        if len(article.body) < 200:
            continue
        page = pages.get(article.path, article.ts + 60)
        assert page.status == 200
        document = structured_document(page.body.decode("utf-8"), f"http://127.0.0.1{article.path}")
        assert document.language == "en", article.path
        if article.summary:  # (whitespace folded)
            assert " ".join(document.description.split()).startswith(
                " ".join(article.summary.split())[:40]), (document.description, article.summary)
        assert {s.lower() for s in article.sections} <= {k.lower() for k in document.keywords}, (
            article.sections, document.keywords)
        # the main text is the post's (its first paragraph of plain words), without the site's
        # navigation
        paragraph = next((line for line in article.body.splitlines()
                          if len(line.split()) > 12 and not re.search(r"[{}<>\[\]()*_#|]", line)), None)
        if paragraph is None:
            continue
        words = [w.strip(".,:;!?'\"") for w in paragraph.split()[:12]]
        assert sum(w in document.text for w in words if w) >= 10, (words, document.text[:300])
        assert "Sections" not in document.text[:200]
        checked += 1
    assert checked >= 10


def test_a_structured_document_is_immutable_data():
    document = StructuredDocument(title="t", keywords=("a",))
    with pytest.raises(AttributeError):
        document.title = "u"  # type: ignore[misc]


def test_the_language_is_told_from_a_sample_of_a_long_text():
    # 1,500 characters of English navigation, then a French article of 12,000: the sample's
    # first half is navigation, its second comes from the middle, in the article
    navigation = "Home News Politics Business Sports Weather Subscribe Sign in Contact us " * 20
    article = ("Le gouvernement a annoncé mardi une nouvelle réforme des retraites qui suscite de vives "
               "critiques des syndicats. ") * 110
    text = navigation + article
    sample = language_sample(text)
    assert len(sample) == LANGUAGE_SAMPLE_CHARS + 1  # two halves and the line between them
    half = LANGUAGE_SAMPLE_CHARS // 2
    assert sample.startswith(navigation[:half])
    middle = len(text) // 2
    assert sample.endswith(text[middle - half // 2:middle + half // 2])
    assert detect_language(text) == "fr"
    assert language_sample("short text") == "short text"


def test_letters_are_counted_in_the_sample_only():
    # 40 letters beyond the sample do not make a language: digits fill what is read
    assert detect_language("1234 " * 2_000 + "The government announced a pension reform today") == ""
