"""The replay's feeds and sitemaps (``--feeds SHARE``): which sections have an RSS feed, and the
XML of the three documents — a section's RSS 2.0 feed, the news sitemap (Google's format) and
the sitemap index that lists it.

Plain string templates, every value escaped, as :mod:`.render` does for the HTML. Feeds and
sitemaps name absolute URLs (RSS 2.0 and the sitemap protocol require them), so each document
is rendered for one ``base`` (``http://HOST:PORT``, from the request's ``Host``).
"""

from __future__ import annotations

import random
import re
from datetime import datetime
from email.utils import format_datetime
from html import escape
from typing import Sequence
from urllib.parse import quote

from .index import Front

FEED_ITEMS = 20  # a feed holds its section's latest stories
NEWS_WINDOW = 2 * 86400.0  # the news sitemap lists the stories of the last two days...
NEWS_MAX = 1000  # ... at most this many (Google's limit for one news sitemap)
LANGUAGE = "en"
RSS_TYPE = b"application/rss+xml; charset=utf-8"
XML_TYPE = b"application/xml; charset=utf-8"
SITEMAP_INDEX_PATH = "/sitemap.xml"
NEWS_SITEMAP_PATH = "/sitemap-news.xml"
FEED_NAME = "feed.xml"  # a section's feed is at its front's path + this

# Characters XML 1.0 forbids even as references: a corpus title carrying one must not make the
# whole document unreadable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# What stays as it is in a URL path and query (an existing %-escape too); the rest is encoded.
_URL_SAFE = "/?&=;:@!$'()*+,~%-._"


def feed_sections(sections: Sequence[Front], share: float, seed: int) -> list[Front]:
    """The sections that have a feed: ``share`` of them (rounded to the nearest, halves up),
    drawn with ``seed``, in the order of ``sections``."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"feeds ({share!r}) must be a share between 0 and 1.")
    count = int(share * len(sections) + 0.5)
    chosen = set(random.Random(f"feeds/{seed}").sample(range(len(sections)), count))
    return [front for k, front in enumerate(sections) if k in chosen]


def feed_path(front: Front) -> str:
    return front.path + FEED_NAME


def alternate_link(front: Front) -> str:
    """The ``<link rel="alternate">`` that announces a section's feed in an HTML ``<head>``."""
    return (f'<link rel="alternate" type="application/rss+xml" title="{escape(front.name)}" '
            f'href="{escape(feed_path(front))}">')


def _text(value: str) -> str:
    return escape(_NOT_XML.sub("", value), quote=False)


def _url(base: str, path: str) -> str:
    return escape(base + quote(path, safe=_URL_SAFE))


def _w3c(moment: datetime) -> str:
    return moment.isoformat()


def rss_feed(base: str, site_name: str, front: Front,
             stories: Sequence[tuple[str, str, datetime, str]], built: datetime) -> str:
    """A section's RSS 2.0 feed: ``stories`` are (path, title, published, summary), newest first."""
    items = "".join(
        f"<item><title>{_text(title)}</title><link>{_url(base, path)}</link>"
        f'<guid isPermaLink="true">{_url(base, path)}</guid>'
        f"<pubDate>{format_datetime(published)}</pubDate>"
        f"<description>{_text(summary)}</description></item>\n"
        for path, title, published, summary in stories)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>\n'
        f"<title>{_text(front.name)} | {_text(site_name)}</title>"
        f"<link>{_url(base, front.path)}</link>"
        f"<description>The latest {_text(front.name)} stories of {_text(site_name)}</description>"
        f"<language>{LANGUAGE}</language><lastBuildDate>{format_datetime(built)}</lastBuildDate>"
        f'<atom:link href="{_url(base, feed_path(front))}" rel="self" type="application/rss+xml"/>\n'
        f"{items}</channel></rss>\n"
    )


def news_sitemap(base: str, site_name: str, stories: Sequence[tuple[str, str, datetime]]) -> str:
    """The news sitemap: ``stories`` are (path, title, published), newest first."""
    publication = (f"<news:publication><news:name>{_text(site_name)}</news:name>"
                   f"<news:language>{LANGUAGE}</news:language></news:publication>")
    urls = "".join(
        f"<url><loc>{_url(base, path)}</loc><news:news>{publication}"
        f"<news:publication_date>{_w3c(published)}</news:publication_date>"
        f"<news:title>{_text(title)}</news:title></news:news></url>\n"
        for path, title, published in stories)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n'
        f"{urls}</urlset>\n"
    )


def sitemap_index(base: str, paths: Sequence[str]) -> str:
    """A sitemap index listing the sitemaps at ``paths``."""
    entries = "".join(f"<sitemap><loc>{_url(base, path)}</loc></sitemap>\n" for path in paths)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{entries}</sitemapindex>\n"
    )
