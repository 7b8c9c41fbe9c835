"""The replay site's model: the (retimed) articles, their paths on the replay host, and the
fronts (section, author, section × author) that list them — all pre-indexed so that "what is
published at simulated time t" is a bisection, never a scan.
"""

from __future__ import annotations

import html
import random
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterable, Sequence
from urllib.parse import quote, urlsplit

from newsforagers.corpus import Article, Corpus

from .retime import retime as retime_times
from .retime import rewrite_path_date, site_offset

# Paths the site itself owns; an article whose corpus path falls here is moved under /story.
RESERVED_PREFIXES = ("/section/", "/author/", "/archive/", "/search", "/story/")
RESERVED_PATHS = ("/", "/robots.txt", "/favicon.ico", "/sitemap.xml", "/sitemap-news.xml")
MOST_READ = 5  # size of the "most read" box on article pages


@dataclass(frozen=True, eq=False)
class ReplayArticle:
    """One article as the replay serves it: the ground truth a benchmark scores against."""

    index: int  # rank in publication order
    path: str  # path (and ?query) on the replay host
    published: datetime  # simulated publication time (retimed when --retime is on)
    ts: float  # ``published`` as POSIX seconds
    title: str
    summary: str
    body: str
    sections: tuple[str, ...]  # section names as the site shows them
    authors: tuple[str, ...]
    kind: str
    links: tuple[int, ...]  # indices of the corpus articles this one links to (any time)
    url: str  # the original corpus URL
    original_published: datetime
    lineno: int

    def truth(self, base_url: str = "") -> dict:
        """A JSON-ready record of what the site knows about this article."""
        return {
            "url": base_url.rstrip("/") + self.path if base_url else None,
            "path": self.path,
            "published": self.published.isoformat(),
            "sections": list(self.sections),
            "authors": list(self.authors),
            "title": self.title,
            "kind": self.kind,
            "original_url": self.url,
            "original_published": self.original_published.isoformat(),
        }


@dataclass(eq=False)
class Front:
    """A listing page family (all its ``?page=N``): its members in publication order."""

    path: str
    kind: str  # "section" | "author" | "section-author"
    name: str  # display name
    members: list[int] = field(default_factory=list)
    ts: list[float] = field(default_factory=list)
    subfronts: list["Front"] = field(default_factory=list)  # section × author fronts it links

    def visible(self, now: float) -> int:
        return bisect_right(self.ts, now)

    @property
    def first_ts(self) -> float:
        return self.ts[0] if self.ts else float("inf")


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9._-]+", "-", name.strip().lower()).strip("-")
    return slug or quote(name.strip(), safe="") or "x"


def _split_url(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    path = parts.path or "/"
    if not path.startswith("/"):
        path = "/" + path
    return path, parts.query


def _url_key(url: str) -> str:
    """A URL without scheme, fragment and trailing slash: how corpus links are matched."""
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/") or "/"
    return f"{parts.netloc.lower()}{path}" + (f"?{parts.query}" if parts.query else "")


def _with_suffix(path: str, suffix: str) -> str:
    if path.endswith("/"):
        return f"{path[:-1]}{suffix}/"
    return path + suffix


class SiteIndex:
    """Articles in publication order with every index a page needs.

    ``retime`` (articles per simulated day) re-spaces the corpus (see :mod:`.retime`) and
    rewrites the dates inside article paths to the new dates; ``seed`` fixes the retimed
    schedule and the "most read" choices.
    """

    def __init__(self, corpus: Corpus | Iterable[Article], retime: float | None = None,
                 seed: int = 0):
        originals = sorted(corpus.articles if isinstance(corpus, Corpus) else corpus,
                           key=lambda a: (a.published, a.lineno))
        if not originals:
            raise ValueError("the replay needs at least one article")
        self.source = corpus.source if isinstance(corpus, Corpus) else ""
        self.seed = seed
        self.retime_rate = retime
        self.tz: timezone = site_offset([a.published for a in originals])
        if retime is not None:
            published = retime_times([a.published for a in originals], retime, seed, self.tz)
        else:
            published = [a.published for a in originals]
        self.host = urlsplit(originals[0].url).netloc or "replay"
        paths = self._assign_paths(originals, published, retime is not None)
        by_key = {_url_key(a.url): i for i, a in enumerate(originals)}
        self.articles: list[ReplayArticle] = []
        for i, (article, when, path) in enumerate(zip(originals, published, paths)):
            links = []
            for link in article.links:
                j = by_key.get(_url_key(link))
                if j is not None and j != i and j not in links:
                    links.append(j)
            sections = article.sections or (article.kind or "general",)
            self.articles.append(ReplayArticle(
                # Titles and summaries of CMS exports carry HTML entities (&#8211;); the site
                # shows the text they stand for.
                index=i, path=path, published=when, ts=when.timestamp(),
                title=html.unescape(article.title), summary=html.unescape(article.summary),
                body=article.body, sections=tuple(sections),
                authors=article.authors, kind=article.kind, links=tuple(links), url=article.url,
                original_published=article.published, lineno=article.lineno))
        self.ts: list[float] = [a.ts for a in self.articles]
        self.by_path: dict[str, int] = {a.path: a.index for a in self.articles}
        self._link_order()
        self._build_fronts()
        self._most_read()

    # -- construction -------------------------------------------------------------------

    def _assign_paths(self, originals: Sequence[Article], published: Sequence[datetime],
                      rewrite: bool) -> list[str]:
        taken: set[str] = set()
        paths = []
        for article, when in zip(originals, published):
            path, query = _split_url(article.url)
            if rewrite:
                path = rewrite_path_date(path, when.astimezone(self.tz).date())
            if path in RESERVED_PATHS or path.startswith(RESERVED_PREFIXES):
                path = "/story" + path
            candidate, n = path, 1
            while (candidate + (f"?{query}" if query else "")) in taken:
                n += 1
                candidate = _with_suffix(path, f"-{n}")
            full = candidate + (f"?{query}" if query else "")
            taken.add(full)
            paths.append(full)
        return paths

    def _link_order(self) -> None:
        # Per article: its links sorted by publication time, so "links published by t" is a
        # prefix found by bisection.
        self.link_ids: list[list[int]] = []
        self.link_ts: list[list[float]] = []
        for a in self.articles:
            ordered = sorted(a.links, key=lambda j: self.ts[j])
            self.link_ids.append(ordered)
            self.link_ts.append([self.ts[j] for j in ordered])

    def _build_fronts(self) -> None:
        self.fronts: dict[str, Front] = {}
        section_slug: dict[str, str] = {}
        author_slug: dict[str, str] = {}

        def slug_for(name: str, table: dict[str, str]) -> str:
            if name not in table:
                base = slugify(name)
                slug, n = base, 1
                used = set(table.values())
                while slug in used:
                    n += 1
                    slug = f"{base}-{n}"
                table[name] = slug
            return table[name]

        def front(path: str, kind: str, name: str) -> Front:
            if path not in self.fronts:
                self.fronts[path] = Front(path, kind, name)
            return self.fronts[path]

        for a in self.articles:
            for section in a.sections:
                s = slug_for(section, section_slug)
                fronts = [front(f"/section/{s}/", "section", section)]
                for author in a.authors:
                    fronts.append(front(f"/section/{s}/by/{slug_for(author, author_slug)}/",
                                        "section-author", f"{section} by {author}"))
                for f in fronts:
                    if not f.members or f.members[-1] != a.index:
                        f.members.append(a.index)
                        f.ts.append(a.ts)
            for author in a.authors:
                f = front(f"/author/{slug_for(author, author_slug)}/", "author", author)
                f.members.append(a.index)
                f.ts.append(a.ts)
        self._section_slug, self._author_slug = section_slug, author_slug
        self.section_path = {name: f"/section/{slug}/" for name, slug in section_slug.items()}
        self.author_path = {name: f"/author/{slug}/" for name, slug in author_slug.items()}
        for section, s_path in self.section_path.items():
            s_slug = section_slug[section]
            for author, a_slug in author_slug.items():
                sub = self.fronts.get(f"/section/{s_slug}/by/{a_slug}/")
                if sub is not None:
                    self.fronts[s_path].subfronts.append(sub)
                    self.fronts[self.author_path[author]].subfronts.append(sub)
        for f in self.fronts.values():
            f.subfronts.sort(key=lambda sub: sub.name.lower())
        self.sections: list[Front] = sorted(
            (self.fronts[p] for p in self.section_path.values()),
            key=lambda f: (-len(f.members), f.name.lower()))

    def _most_read(self) -> None:
        # Preferential attachment: each article's box draws older articles with probability
        # proportional to 1 + the times they were drawn before, so a few stories collect most
        # of the in-links, as on a real site.
        rng = random.Random(self.seed * 7919 + 17)
        urn: list[int] = []
        self.most_read: list[tuple[int, ...]] = []
        for a in self.articles:
            picks: list[int] = []
            if urn:
                want = min(MOST_READ, a.index)
                for _ in range(want * 8):
                    j = urn[rng.randrange(len(urn))]
                    if j not in picks:
                        picks.append(j)
                        if len(picks) == want:
                            break
            self.most_read.append(tuple(picks))
            urn.extend(picks)
            urn.append(a.index)

    # -- queries --------------------------------------------------------------------------

    def visible_count(self, now: float) -> int:
        """How many articles are published at simulated time ``now`` (a prefix of the list)."""
        return bisect_right(self.ts, now)

    def visible_links(self, index: int, now: float) -> list[int]:
        ids = self.link_ids[index]
        return ids[:bisect_right(self.link_ts[index], now)]

    def day_range(self, day_start: float, day_end: float, now: float) -> tuple[int, int]:
        """Indices ``[lo, hi)`` of the articles published in ``[day_start, day_end)`` by ``now``."""
        lo = bisect_right(self.ts, day_start - 1e-9)
        hi = bisect_right(self.ts, min(now, day_end - 1e-9))
        return lo, max(lo, hi)

    def sections_of(self, article: ReplayArticle) -> list[tuple[str, str]]:
        """(front path, name) of each section of ``article``."""
        return [(self.section_path[name], name) for name in article.sections]

    def combo_path(self, section: str, author: str) -> str | None:
        """The section × author front of the pair, if the corpus has one."""
        s, a = self._section_slug.get(section), self._author_slug.get(author)
        path = f"/section/{s}/by/{a}/"
        return path if path in self.fronts else None

    def authors_of(self, article: ReplayArticle) -> list[tuple[str, str]]:
        """(page path, name) of each author of ``article``."""
        return [(self.author_path[name], name) for name in article.authors]
