"""What a page says: its title without the site's name around it (:func:`read_title`), and the
visible text of its body (:func:`visible_text`: subtrees a reader never sees or sees on every
page left out, block tags breaking words), cut at ``max_text`` characters."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from parsel import Selector

from newsforagers.pages.piece import PIECE_ELEMENTS

# Subtrees whose text a reader never sees, or sees on every page of the site (navigation,
# asides, footers): boilerplate would only blur the page's text state.
_NOISE_TAGS = frozenset(
    {
        "aside",
        "button",
        "canvas",
        "embed",
        "footer",
        "head",
        "iframe",
        "math",
        "nav",
        "noscript",
        "object",
        "script",
        "select",
        "style",
        "svg",
        "template",
        "textarea",
    }
)

# Tags that break a line when rendered: their text must not run into their neighbours'
# ("<p>end</p><p>Start" is two words), while inline tags may split a word ("<b>W</b>ord").
_BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "blockquote",
        "br",
        "caption",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "img",
        "legend",
        "li",
        "main",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)


def cut_text(text: str, limit: int) -> str:
    """``text`` (whitespace normalised) in at most ``limit`` characters, cut at a word
    boundary; a first word longer than ``limit`` is cut inside."""
    if len(text) <= limit:
        return text
    if text[limit] == " ":
        return text[:limit]
    space = text.rfind(" ", 0, limit)
    return text[:space] if space > 0 else text[:limit]


def _normalise_space(text: str) -> str:
    return " ".join(text.split())


def read_title(selector: Selector) -> str:
    """The document's own title: ``<title>`` without the site's name around it.

    ``<title>`` usually decorates the headline with the site's name ("Storm hits | Daily
    News", "Daily News: Storm hits"), which is not part of what the document says. It is
    cut off when the page names its site (``og:site_name``, ``application-name``), or when
    ``og:title`` or the first ``<h1>`` shows the title without it. Cuts happen only at a
    separator (`` | ``, `` - ``, `` – ``, `` — ``, `` · ``, `` • ``, `` » ``, ``: ``), never
    inside a word, and a title that is nothing but the site's name (a home page) is kept.
    Without ``<title>``: ``og:title``, then the first ``<h1>``.
    """
    title = _xpath_text(selector, "string((//title[not(ancestor::svg)])[1])")
    og_title = _xpath_text(
        selector, "string((//meta[@property='og:title' or @name='og:title']/@content)[1])"
    )
    h1 = _xpath_text(selector, "string((//h1)[1])")
    headline = _xpath_text(selector, _HEADLINE_XPATH)
    site = _xpath_text(
        selector,
        "string((//meta[@property='og:site_name' or @name='og:site_name'"
        " or @name='application-name']/@content)[1])",
    )
    if not title:
        return _without_site(og_title, site) or h1
    # og:title is the publisher's own statement of the title; the headline <h1> is what the
    # reader sees. Either one, found in <title> with a decoration before or after it, is
    # the title without the decoration. The <h1> only when the decoration is no longer than
    # itself: a banner <h1> that slipped past _HEADLINE_XPATH ("News" above the story) is
    # short, the site's name; a headline is rarely shorter than the site's name.
    if og_title and og_title.casefold() != site.casefold() and _decorates(title, og_title):
        return _without_site(og_title, site)
    if headline and headline.casefold() != site.casefold():
        decoration = _decorates(title, headline)
        if decoration and len(decoration) <= len(headline):
            return headline
    return _without_site(title, site)


# The headline's <h1>: the first inside the article or the main content, else the first
# that is not the site's banner (a logo is often an <h1> in the page's <header>, or one that
# links home) nor in a navigation, aside or footer.
# One predicate rather than the union of three paths it stands for (in <article>, in <main>,
# or neither in the banner nor holding a link): libxml2 took 1.3 s for the union's first node
# on a 10 MB page of 37,000 elements, and takes milliseconds for this.
_HEADLINE_XPATH = (
    "string((//h1[ancestor::article or ancestor::main"
    " or not(ancestor::header or ancestor::nav or ancestor::aside or ancestor::footer or .//a)])[1])"
)


def _xpath_text(selector: Selector, xpath: str) -> str:
    return _normalise_space(selector.xpath(xpath).get(default=""))


# What stands between a title and the site's name: a pipe, a spaced dash or a bullet, or a
# colon right after a word. A hyphen without spaces is part of a word ("COVID-19", "Jean-Luc").
_TITLE_SEPARATOR = r"(?:\s*[|\u00b7\u2022\u00bb]\s*|\s[-\u2013\u2014]\s|:\s)"


def _decorates(title: str, own: str) -> str | None:
    """What ``title`` adds to ``own`` beyond one separator, when ``title`` is ``own`` with a
    decoration before or after it; else None."""
    if len(title) <= len(own):
        return None
    # Slices of equal length compared case-blind (casefold may change a string's length).
    own_folded = own.casefold()
    if title[: len(own)].casefold() == own_folded:
        match = re.fullmatch(_TITLE_SEPARATOR + r"(\S.*)", title[len(own):], re.S)
    elif title[len(title) - len(own):].casefold() == own_folded:
        match = re.fullmatch(r"(.*\S)" + _TITLE_SEPARATOR, title[: len(title) - len(own)], re.S)
    else:
        return None
    return match.group(1) if match else None


def _without_site(title: str, site: str) -> str:
    """``title`` without ``site`` and its separator at either end; unchanged when the title
    is nothing else (a home page's title is its site's name)."""
    if not site or not title:
        return title
    name = re.escape(site)
    for pattern in (r"(.*?\S)" + _TITLE_SEPARATOR + name, name + _TITLE_SEPARATOR + r"(\S.*)"):
        match = re.fullmatch(pattern, title, re.S | re.I)
        if match:
            return match.group(1)
    return title


def visible_text(root: Any, max_text: int = 0) -> tuple[str, bool]:
    """The visible text of ``<body>``, and whether it was capped: cut at ``max_text``
    characters (at a word boundary), or its walk stopped after :data:`PIECE_ELEMENTS` elements.
    0: no cap, the whole text however long the walk."""
    if root is None:
        return "", False
    # lxml's HTML parser puts <body> under the root; the first one, without a pass over the page
    body = next(root.iter("body"), None)
    if body is None or _unseen(body):
        return "", False
    parts: list[str] = [body.text or ""]
    size = len(parts[0])  # characters in parts
    # Whitespace collapses, so the raw characters gathered say little about the text's length:
    # it is measured when they pass ``check``, which then doubles (linear in all).
    check = max_text + 1
    walked = 0
    capped = False
    # An explicit stack rather than recursion: parsel parses with huge_tree, so a broken page
    # can nest far deeper than Python's recursion limit. Each open element has its children's
    # iterator on the stack, so an element of 200,000 children costs no more than the ones
    # read before a cap stops the walk.
    stack: list[tuple[Any, Iterator[Any], bool]] = [(body, iter(body), False)]
    while stack:
        if max_text and size >= check:
            joined = "".join(parts)
            if len(_normalise_space(joined)) > max_text:
                capped = True
                break
            # kept raw: a word may go on in the next part ("th<i>re</i>e")
            parts = [joined]
            check = max(check, 2 * size)
        element, children, block = stack[-1]
        node = next(children, None)
        if node is None:
            stack.pop()
            if block:
                parts.append(" ")
            if stack and element.tail:
                parts.append(element.tail)
                size += len(element.tail)
            continue
        if max_text:
            walked += 1
            if walked > PIECE_ELEMENTS:
                # a page of more elements than characters worth reading: markup, not text
                capped = True
                break
        tag = node.tag
        # Comments and processing instructions have a non-string tag; like the subtrees a
        # reader never sees, they are skipped but for their tail, which is the parent's text.
        if not isinstance(tag, str) or tag in _NOISE_TAGS or _unseen(node):
            if node.tail:
                parts.append(node.tail)
                size += len(node.tail)
            continue
        block = tag in _BLOCK_TAGS
        if block:
            parts.append(" ")
        if node.text:
            parts.append(node.text)
            size += len(node.text)
        stack.append((node, iter(node), block))
    text = _normalise_space("".join(parts))
    if max_text and len(text) > max_text:
        text, capped = cut_text(text, max_text), True
    return text, capped


def _unseen(element: Any) -> bool:
    return element.get("hidden") is not None or element.get("aria-hidden") == "true"


__all__ = ["cut_text", "read_title", "visible_text"]
