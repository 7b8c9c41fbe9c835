"""HTML of the replay site: plain string templates, every value escaped.

Article bodies are markdown (or plain text, which markdown turns into paragraphs). They are
reduced to an allow-list of text tags with no attributes: a body must not link anywhere — links
to other corpus articles are rendered separately, and only once those are published, so the
site never leaks the future; links to the real internet must never reach a crawler.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from html import escape
from html.parser import HTMLParser
from typing import Iterable, Sequence

Link = tuple[str, str]  # (href, text)

_TEXT_TAGS = frozenset(
    "p h1 h2 h3 h4 h5 h6 ul ol li em strong b i u code pre blockquote table thead tbody tfoot "
    "tr th td br hr span div dl dt dd sup sub small figure figcaption abbr cite q s mark".split())
_VOID_TAGS = frozenset(("br", "hr"))
_DROP_CONTENT = frozenset(("script", "style", "iframe", "noscript", "template", "svg", "object"))
_SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}", re.S)


class _Sanitizer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []
        self.dropping = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _DROP_CONTENT:
            self.dropping += 1
        elif not self.dropping and tag in _TEXT_TAGS:
            self.out.append(f"<{tag}>")
            if tag not in _VOID_TAGS:
                self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs) -> None:
        if not self.dropping and tag in _VOID_TAGS:
            self.out.append(f"<{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP_CONTENT:
            self.dropping = max(0, self.dropping - 1)
        elif not self.dropping and tag in self.open:
            # Close whatever the source left open inside this tag, so the output nests.
            while self.open:
                inner = self.open.pop()
                self.out.append(f"</{inner}>")
                if inner == tag:
                    break

    def handle_data(self, data: str) -> None:
        if not self.dropping:
            self.out.append(escape(data, quote=False))

    def result(self) -> str:
        self.close()
        self.out.extend(f"</{tag}>" for tag in reversed(self.open))
        return "".join(self.out)


def sanitize_html(html: str) -> str:
    """Keep the text and the text-structure tags of ``html``; drop attributes, links, media."""
    parser = _Sanitizer()
    parser.feed(html)
    return parser.result()


class BodyRenderer:
    """Markdown → safe HTML, reusing one converter (building one per call is slow)."""

    def __init__(self) -> None:
        import markdown

        self._md = markdown.Markdown(output_format="html")

    def __call__(self, text: str) -> str:
        if not text.strip():
            return ""
        self._md.reset()
        return sanitize_html(self._md.convert(_SHORTCODE.sub("", text)))


# -- pieces ------------------------------------------------------------------------------


def human_time(moment: datetime) -> str:
    return f"{moment:%B} {moment.day}, {moment:%Y %H:%M} (UTC{moment:%z})"


def link_list(links: Iterable[Link], css: str = "") -> str:
    items = "".join(f'<li><a href="{escape(href)}">{escape(text)}</a></li>' for href, text in links)
    return f'<ul class="{css}">{items}</ul>' if items else ""


def story_list(stories: Iterable[tuple[str, str, datetime]], css: str = "stories") -> str:
    items = "".join(
        f'<li><a href="{escape(href)}">{escape(title)}</a> '
        f'<time datetime="{when.isoformat()}">{escape(human_time(when))}</time></li>'
        for href, title, when in stories)
    return f'<ul class="{css}">{items}</ul>' if items else "<p>No stories yet.</p>"


def layout(site_name: str, title: str, main: str, nav: Sequence[Link], footer: Sequence[Link],
           head: str = "") -> str:
    nav_html = " ".join(f'<a href="{escape(h)}">{escape(t)}</a>' for h, t in nav)
    foot_html = " · ".join(f'<a href="{escape(h)}">{escape(t)}</a>' for h, t in footer)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)} | {escape(site_name)}</title>{head}</head><body>"
        f'<header><a class="brand" href="/">{escape(site_name)}</a><nav>{nav_html}</nav>'
        '<form action="/search" method="get"><input name="q" type="search"></form></header>'
        f"<main>{main}</main><footer>{foot_html}</footer></body></html>\n"
    )


# -- pages -------------------------------------------------------------------------------


def article_main(title: str, published: datetime, summary: str, body_html: str,
                 authors: Sequence[Link], sections: Sequence[Link], combos: Sequence[Link],
                 related: Sequence[Link], most_read: Sequence[Link], day: Link) -> str:
    byline = ", ".join(f'<a rel="author" href="{escape(h)}">{escape(t)}</a>' for h, t in authors)
    parts = [
        f"<article><h1>{escape(title)}</h1>",
        '<p class="byline">' + (f"By {byline} · " if byline else "")
        + f'<time datetime="{published.isoformat()}" pubdate>{escape(human_time(published))}</time>'
        + f' · <a href="{escape(day[0])}">{escape(day[1])}</a></p>',
    ]
    if summary:
        parts.append(f'<p class="summary">{escape(summary)}</p>')
    parts.append(f'<div class="body">{body_html}</div></article>')
    if related:
        parts.append(f'<aside class="related"><h2>Related</h2>{link_list(related)}</aside>')
    filed = link_list(list(sections) + list(combos))
    parts.append(f'<aside class="filed"><h2>Filed under</h2>{filed}</aside>')
    if most_read:
        parts.append(f'<aside class="most-read"><h2>Most read</h2>{link_list(most_read)}</aside>')
    return "".join(parts)


def article_head(title: str, published: datetime, authors: Sequence[str],
                 sections: Sequence[str], canonical: str, summary: str) -> str:
    ld = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": title,
        "datePublished": published.isoformat(),
        "author": [{"@type": "Person", "name": a} for a in authors],
        "articleSection": list(sections),
    }
    # "</" inside a script element would end it early.
    ld_json = json.dumps(ld, ensure_ascii=False).replace("</", "<\\/")
    meta = [
        f'<meta property="article:published_time" content="{published.isoformat()}">',
        f'<meta property="og:title" content="{escape(title)}">',
        '<meta property="og:type" content="article">',
        f'<link rel="canonical" href="{escape(canonical)}">',
    ]
    if summary:
        meta.append(f'<meta name="description" content="{escape(summary[:300])}">')
    meta.extend(f'<meta property="article:section" content="{escape(s)}">' for s in sections)
    return "".join(meta) + f'<script type="application/ld+json">{ld_json}</script>'


def front_main(heading: str, stories: Sequence[tuple[str, str, datetime]], newer: str | None,
               older: str | None, subfronts: Sequence[Link], sub_heading: str = "") -> str:
    pager = []
    if newer:
        pager.append(f'<a rel="prev" href="{escape(newer)}">Newer</a>')
    if older:
        pager.append(f'<a rel="next" href="{escape(older)}">Older</a>')
    parts = [f"<h1>{escape(heading)}</h1>", story_list(stories)]
    if pager:
        parts.append(f'<nav class="pager">{" ".join(pager)}</nav>')
    if subfronts:
        parts.append(f'<aside class="subfronts"><h2>{escape(sub_heading)}</h2>'
                     f'{link_list(subfronts)}</aside>')
    return "".join(parts)


def home_main(featured: Sequence[tuple[str, str, datetime]],
              latest: Sequence[tuple[str, str, datetime]] | None,
              sections: Sequence[Link]) -> str:
    parts = ['<section class="featured"><h1>Featured</h1>', story_list(featured, "featured"),
             "</section>"]
    if latest is not None:
        parts += ['<section class="latest"><h2>Latest</h2>', story_list(latest, "latest"),
                  "</section>"]
    parts.append(f'<section class="sections"><h2>Sections</h2>{link_list(sections)}</section>')
    return "".join(parts)


def archive_main(day_label: str, stories: Sequence[tuple[str, str, datetime]],
                 prev: str | None, next_: str | None) -> str:
    pager = []
    if prev:
        pager.append(f'<a rel="prev" href="{escape(prev)}">Previous day</a>')
    if next_:
        pager.append(f'<a rel="next" href="{escape(next_)}">Next day</a>')
    return (f"<h1>Archive: {escape(day_label)}</h1>{story_list(stories)}"
            f'<nav class="pager">{" ".join(pager)}</nav>')


def search_main(query: str, page: int, more: Sequence[Link]) -> str:
    return (f"<h1>Search: {escape(query)}</h1><p>Page {page}. No stories match.</p>"
            f'<aside class="more"><h2>Refine your search</h2>{link_list(more)}</aside>')


def not_found_main(path: str) -> str:
    return (f"<h1>Page not found</h1><p>There is no page at <code>{escape(path)}</code>.</p>"
            '<p><a href="/">Back to the home page</a></p>')


def robots_txt(sitemap: str | None = None) -> str:
    """robots.txt; ``sitemap``: the absolute URL of a sitemap (index) to announce."""
    text = "User-agent: *\nDisallow: /search\n"
    return text + f"\nSitemap: {sitemap}\n" if sitemap else text
