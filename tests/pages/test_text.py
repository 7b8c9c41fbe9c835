"""Tests for newsforagers.pages.text: a page's title without the site's name, and its visible
text (and its cap)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from newsforagers.pages.read import read_page
from tests.pages.html import URL, page


def test_title_from_title_element_with_whitespace_normalised():
    html = page("<h1>Headline</h1>", "<title>\n  Storm  hits\tthe\u00a0coast | News </title>")
    assert read_page(URL, html).title == "Storm hits the coast | News"


def test_title_falls_back_to_og_title_then_h1():
    og = '<title>   </title><meta property="og:title" content=" Open  Graph ">'
    assert read_page(URL, page("<h1>H</h1>", og)).title == "Open Graph"
    assert read_page(URL, page("<h1> First <em>one</em></h1><h1>Second</h1>")).title == (
        "First one"
    )
    assert read_page(URL, page("<p>no title at all</p>")).title == ""


def test_title_ignores_svg_titles():
    html = page('<svg><title>icon</title></svg><h1>Real</h1>')
    assert read_page(URL, html).title == "Real"


@pytest.mark.parametrize("title, site", [
    ("Storm hits the coast | Daily News", "Daily News"),
    ("Storm hits the coast - Daily News", "Daily News"),
    ("Storm hits the coast \u2014 daily news", "Daily News"),  # the name's case may differ
    ("Daily News: Storm hits the coast", "Daily News"),
    ("Daily News | Storm hits the coast", "Daily News"),
])
def test_title_drops_the_site_name_the_page_declares(title, site):
    for meta in (f'<meta property="og:site_name" content="{site}">',
                 f'<meta name="application-name" content="{site}">'):
        html = page("<p>No headline element.</p>", f"<title>{title}</title>{meta}")
        assert read_page(URL, html).title == "Storm hits the coast"


def test_a_title_that_is_only_the_site_name_is_kept():
    html = page("<p>Front</p>", '<title>Daily News</title><meta property="og:site_name" content="Daily News">')
    assert read_page(URL, html).title == "Daily News"


def test_title_with_a_dash_of_its_own_loses_only_the_site_name():
    title = "<title>Brexit - what happens next - BBC News</title>"
    declared = page("", title + '<meta property="og:site_name" content="BBC News">')
    assert read_page(URL, declared).title == "Brexit - what happens next"
    shown = page("<article><h1>Brexit - what happens next</h1><p>Text.</p></article>", title)
    assert read_page(URL, shown).title == "Brexit - what happens next"
    # Nothing says which part is the site's: the title is kept whole, not cut at a guess.
    assert read_page(URL, page("<p>Text.</p>", title)).title == (
        "Brexit - what happens next - BBC News"
    )


def test_title_is_the_og_title_or_headline_it_decorates():
    # no <h1>: og:title shows the title without the decoration
    og = page("<p>Text.</p>", '<title>Storm hits | Daily News</title><meta property="og:title" content="Storm hits">')
    assert read_page(URL, og).title == "Storm hits"
    # no og:title: the article's <h1>, decorated before or after
    for title in ("Storm hits the coast | Daily News", "Daily News: Storm hits the coast"):
        html = page("<header><a href='/'>Daily News</a></header><main><h1>Storm hits the coast</h1></main>",
                    f"<title>{title}</title>")
        assert read_page(URL, html).title == "Storm hits the coast"
    # og:title may itself carry the site's name
    both = page("", '<title>Storm hits | Daily News</title><meta property="og:title" '
                'content="Storm hits | Daily News"><meta property="og:site_name" content="Daily News">')
    assert read_page(URL, both).title == "Storm hits"


def test_title_is_never_cut_inside_a_word_or_at_a_banner():
    # the headline is a prefix of the title, but not up to a separator
    whole = page("<h1>Storm hits the coast</h1>", "<title>Storm hits the coast | News</title>")
    assert read_page(URL, whole).title == "Storm hits the coast"
    partial = page("<h1>Storm hits the coast</h1>", "<title>Storm hits the coastline | News</title>")
    assert read_page(URL, partial).title == "Storm hits the coastline | News"
    # a hyphen inside a word is not a separator
    hyphen = page("", '<title>Cases rise after COVID-19</title><meta property="og:site_name" content="19">')
    assert read_page(URL, hyphen).title == "Cases rise after COVID-19"
    # the site's logo as an <h1> in its banner, or as a short <h1> linking home, is not the title
    for banner, site in (("<header><h1>Daily News</h1></header><p>Text.</p>", "Daily News"),
                         ("<h1><a href='/'>Daily News</a></h1><p>Text.</p>", "Daily News"),
                         ("<h1>News</h1><p>Text.</p>", "News")):
        for title in (f"Storm hits the coast | {site}", f"{site}: Storm hits the coast"):
            assert read_page(URL, page(banner, f"<title>{title}</title>")).title == title


def test_replay_article_title_is_the_story_title():
    from newsforagers.replay import render

    when = datetime(2024, 3, 5, 14, 30, tzinfo=UTC)
    story = "Fairmont film: critics defend plan - again"
    main = render.article_main(story, when, "Summary.", "<p>Body.</p>", [("/author/a/", "A")],
                               [("/section/arts/", "arts")], [], [], [], ("/archive/2024/03/05/", "x"))
    head = render.article_head(story, when, ["A"], ["arts"], "/2024/03/05/fairmont/", "Summary.")
    html = render.layout("news.example.com (replay)", story, main, [], [], head)
    assert f"<title>{story} | news.example.com (replay)</title>" in html
    assert read_page(URL, html).title == story


def test_text_is_visible_body_text_without_noise():
    html = page(
        "<nav><a href='/'>Home</a> <a href='/world'>World</a></nav>"
        "<h1>Storm</h1><p>The <b>st</b>orm hit &amp; left.</p><p>Second<br>line</p>"
        "<script>var tracking = 1;</script><style>p {color: red}</style>"
        "<noscript>Enable JavaScript</noscript><template><p>tpl</p></template>"
        "<div hidden>secret</div><span aria-hidden='true'>icon</span>"
        "<!-- a comment -->after comment"
        "<aside>Most read</aside><footer>© 2025 Example</footer>",
        "<title>Not body text</title>",
    )
    assert read_page(URL, html).text == (
        "Storm The storm hit & left. Second line after comment"
    )


def test_text_keeps_blocks_apart_and_inline_words_together():
    html = page("<div>one</div><div>two</div><p>th<i>re</i>e</p><ul><li>a</li><li>b</li></ul>")
    assert read_page(URL, html).text == "one two three a b"


def test_deeply_nested_text_is_read_without_recursion():
    # Deeper than Python's recursion limit, within what lxml keeps (about 2,000 levels;
    # beyond that the parser drops the rest, and the page reads as empty).
    html = "<div>" * 1_500 + "deep" + "</div>" * 1_500
    assert read_page(URL, html).text == "deep"


def test_text_is_cut_at_max_text_characters_at_a_word_boundary():
    html = page("<p>alpha beta gamma</p><p>delta</p>", "<title>Storm over the harbour</title>")
    assert read_page(URL, html, max_text=13).text == "alpha beta"  # not "alpha beta ga"
    assert read_page(URL, html, max_text=10).text == "alpha beta"  # the cut falls on a space
    assert read_page(URL, html, max_text=13).text_capped
    whole = read_page(URL, html, max_text=len("alpha beta gamma delta"))
    assert whole.text == "alpha beta gamma delta" and not whole.text_capped
    assert read_page(URL, html, max_text=0).text == whole.text  # 0: no cap
    # one word longer than the cap is cut inside; the title is cut as the text is
    word = read_page(URL, page("<p>Donaudampfschifffahrt</p>"), max_text=5)
    assert word.text == "Donau" and word.text_capped
    assert read_page(URL, html, max_text=16).title == "Storm over the"


@pytest.mark.parametrize("max_text", [5, 7, 50, 333, 1_000, 4_096])
def test_a_capped_text_is_the_beginning_of_the_whole_text(max_text):
    # words split across inline elements ("wo<b>rd</b>") and blocks: the walk stops early, and
    # what it read is exactly the start of the text it would have read to the end
    body = "".join(f"<p>wo<b>rd</b>{i} <i>x</i>y{i}<br>z{i}\n\n  </p>" for i in range(2_000))
    whole = read_page(URL, page(body), max_text=0).text
    capped = read_page(URL, page(body), max_text=max_text).text
    assert len(capped) <= max_text and whole.startswith(capped)
    assert whole[len(capped)] == " " and len(capped) > max_text - len("word1999 xy1999 z1999 ")


def test_the_text_walk_stops_after_piece_elements_elements():
    from newsforagers.pages.piece import PIECE_ELEMENTS

    html = page("<p>first</p>" + "<i></i>" * PIECE_ELEMENTS + "<p>last</p>")
    capped = read_page(URL, html)
    assert capped.text == "first" and capped.text_capped
    assert read_page(URL, html, max_text=0).text == "first last"  # no cap: the whole walk
