"""Tests for newsforagers.pages.links.link_contexts: a link's anchor text and the words around
it inside its block (Pant & Srinivasan 2006, as Mouton & Marteau 2008 use it)."""

from __future__ import annotations

import pytest
from parsel import Selector

from newsforagers.pages.links import LINK_CONTEXT_WINDOW, DeferredContexts, base_url, link_contexts, read_links
from tests.pages.html import URL, anchors, page


def _contexts(html: str, **kwargs) -> dict[str, str]:
    root = Selector(text=html).root
    return link_contexts(base_url(URL, root), root, **kwargs)


def test_anchor_text_and_a_window_of_words_on_each_side():
    words = " ".join(f"w{i}" for i in range(1, 16))
    html = page(f"<p>{words} <a href='/world/storm'>Storm hits coast</a> {words}</p>")
    assert LINK_CONTEXT_WINDOW == 10
    assert _contexts(html) == {
        "https://news.example.org/world/storm":
            "w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 Storm hits coast w1 w2 w3 w4 w5 w6 w7 w8 w9 w10",
    }
    assert _contexts(html, window=2) == {
        "https://news.example.org/world/storm": "w14 w15 Storm hits coast w1 w2",
    }
    assert _contexts(html, window=0) == {
        "https://news.example.org/world/storm": "Storm hits coast",
    }


def test_the_window_stops_at_the_enclosing_block_and_at_line_breaks():
    html = page(
        "<p>Other paragraph words</p>"
        "<ul><li>Before <a href='/a'>A story</a> after</li><li>next item words</li></ul>"
        "<div>Intro line<br>Read <a href='/b'>B story</a> now<p>nested paragraph</p></div>"
        "<table><tr><td>cell one</td><td><a href='/c'>C</a></td><td>cell three</td></tr></table>"
        "<h2>Heading <a href='/d'>D</a></h2><p>following paragraph</p>"
    )
    assert _contexts(html) == {
        "https://news.example.org/a": "Before A story after",
        "https://news.example.org/b": "Read B story now",
        "https://news.example.org/c": "C",
        "https://news.example.org/d": "Heading D",
    }


def test_inline_tags_neither_break_words_nor_the_window():
    html = page(
        "<p><span>The <em>st</em>orm</span> <a href='/s'><b>Sto</b>rm <i>hits</i></a>"
        "<strong> the</strong> <code>coast</code> today</p>"
        "<p>Script <script>var x = '<a href=/no>no</a>';</script><style>p {}</style>"
        "<!-- a comment --><a href='/t'>T</a> end</p>"
    )
    assert _contexts(html) == {
        "https://news.example.org/s": "The storm Storm hits the coast today",
        "https://news.example.org/t": "Script T end",
    }


def test_a_block_inside_the_anchor_is_anchor_text():
    html = page(
        "<section>Latest: <a href='/card'><div><h3>Storm hits</h3><p>Coast flooded</p></div>"
        "</a> more</section>"
    )
    assert _contexts(html) == {
        "https://news.example.org/card": "Latest: Storm hits Coast flooded more",
    }


def test_relative_hrefs_and_base_resolve_as_read_links_does():
    html = page(
        "<p>One <a href='a#top'>A</a> two <a href='/b'>B</a> "
        "<a href='mailto:x@example.org'>mail</a> <a href='//cdn.example.net/c?jsessionid=1'>C</a>"
        "</p>",
        "<base href='/archive/2024/'>",
    )
    root = Selector(text=html).root
    base = base_url(URL, root)
    contexts = link_contexts(base, root)
    assert tuple(contexts) == read_links(base, root)[0] == (
        "https://news.example.org/archive/2024/a",
        "https://news.example.org/b",
        "https://cdn.example.net/c",
    )
    # the mailto link is not a link, but its text is text around the others
    assert contexts["https://news.example.org/b"] == "One A two B mail C"


def test_a_link_without_text_and_images_alt():
    html = page(
        "<p>Words before <a href='/empty'></a> words after</p>"
        "<div><a href='/lonely'> </a></div>"
        "<p><a href='/img'><img src='x.png' alt='Storm photo'></a> caption</p>"
        "<p><map><area href='/area' alt='Region map'></map> legend</p>"
    )
    assert _contexts(html) == {
        "https://news.example.org/empty": "Words before words after",
        "https://news.example.org/lonely": "",
        "https://news.example.org/img": "Storm photo caption",
        "https://news.example.org/area": "Region map legend",
    }


def test_a_link_seen_twice_joins_its_distinct_contexts():
    html = page(
        "<li><a href='/s'><img src='t.jpg'></a></li>"
        "<li><a href='/s'>Storm hits coast</a></li>"
        "<li><a href='/s'>Storm hits coast</a></li>"
        "<li>More: <a href='/s#comments'>comments</a></li>"
    )
    assert _contexts(html) == {
        "https://news.example.org/s": "Storm hits coast More: comments",
    }


def test_the_cap_keeps_the_links_read_links_keeps():
    stories = " ".join(f"<a href='/s/{i}'>story {i}</a>" for i in range(5))
    html = page(f"<p>{stories} tail words</p><p>{anchors(3)}</p>")
    root = Selector(text=html).root
    for cap in (0, 1, 2, 5, 6, 10):
        contexts = link_contexts(URL, root, max_links=cap, window=2)
        assert tuple(contexts) == read_links(URL, root, cap)[0]
    # the text after the cap still fills the last link's window
    assert link_contexts(URL, root, max_links=2, window=2) == {
        "https://news.example.org/s/0": "story 0 story 1",
        "https://news.example.org/s/1": "story 0 story 1 story 2",
    }
    assert link_contexts(URL, root, max_links=5, window=3)["https://news.example.org/s/4"] == (
        "2 story 3 story 4 tail words"
    )
    # anchors without a space between them ("story 0story 1") are cut at their edges
    glued = Selector(text=page(f"<p>x {anchors(3)} y</p>")).root
    assert link_contexts(URL, glued, window=1) == {
        "https://news.example.org/s/0": "x story 0 story",
        "https://news.example.org/s/1": "0 story 1 story",
        "https://news.example.org/s/2": "1 story 2 y",
    }


def test_no_root_no_links_and_a_bad_window():
    assert link_contexts(URL, None) == {}
    assert _contexts(page("<p>no links here</p>")) == {}
    for bad in (-1, 1.5, True, None, "10"):
        with pytest.raises(ValueError, match=r"window \(.*\) must be an integer >= 0"):
            _contexts(page("<a href='/a'>a</a>"), window=bad)


def test_a_deep_page_does_not_recurse():
    # deeper than Python's recursion limit (lxml's own limit is near 2,000 with huge_tree)
    html = page("<div>" * 1_500 + "Deep <a href='/deep'>link</a> text" + "</div>" * 1_500)
    assert _contexts(html) == {"https://news.example.org/deep": "Deep link text"}


def test_deferred_contexts_walk_the_page_at_the_first_read_only_for_the_links_asked():
    html = page("<ul><li><a href='/a'>Storm</a> hits coast</li><li><a href='/b'><img src='b.png'></a></li>"
                "<li><a href='/c'>Floods</a></li></ul>")
    root = Selector(text=html).root
    urls = [f"https://news.example.org/{name}" for name in "abd"]
    deferred = DeferredContexts(base_url(URL, root), root, urls)
    assert not deferred.walked
    assert deferred["https://news.example.org/a"] == "Storm hits coast" and deferred.walked
    # /b has no words, /c was not asked for, /d is not on the page
    assert dict(deferred) == {"https://news.example.org/a": "Storm hits coast"}
    assert deferred.get("https://news.example.org/c") is None and len(deferred) == 1
    # sized first: walked as well
    sized = DeferredContexts(base_url(URL, root), root, urls)
    assert len(sized) == 1 and sized.walked
