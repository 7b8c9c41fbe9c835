"""What a benchmark knows of its site before any run: the window's start (by default the
corpus's first Monday morning, :func:`default_start`) and, for freshness, when each article
page changes, from the replay's model built here with the same corpus, retime and seed as
every run's replay (:func:`prepare_site`). A many-site benchmark (``--sites N``) builds the
many-site replay's model instead (the same split and profiles): each site's page changes,
pages and down windows, by site number (:class:`SitesModel`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from newsforagers.corpus import CorpusError, load_corpus
from newsforagers.evaluation.bench.config import BenchConfig, BenchError
from newsforagers.evaluation.bench.sites import SitePages, site_path
from newsforagers.evaluation.metrics import article_changes, as_time
from newsforagers.replay.index import SiteIndex
from newsforagers.replay.many import ManySites
from newsforagers.replay.profiles import ProfileError, Profiles
from newsforagers.replay.site import PageBuilder


def default_start(published: Sequence[datetime]) -> datetime:
    """The window's default start: the first Monday 07:00 (site-local time, the offset of the
    first article) at or after the first article, as the demo starts on the synthetic week —
    a working morning, when a news site is busy. A corpus with no Monday morning before its
    last article starts one minute before its first article (the replay's own default)."""
    if not published:
        raise BenchError("the corpus has no article")
    first, last = min(published), max(published)
    tz = first.tzinfo or timezone.utc
    local = first.astimezone(tz)
    monday = (local - timedelta(days=local.weekday())).replace(hour=7, minute=0, second=0,
                                                                microsecond=0)
    while monday < local:
        monday += timedelta(days=7)
    if monday <= last:
        return monday
    return first - timedelta(minutes=1)


def earlier_titles(articles, start: datetime) -> dict[str, tuple[str, ...]]:
    """Each section's titles of ``articles`` (``title``, ``published``, ``sections``) published
    before ``start``, in publication order: what a reader knew of a section before the window."""
    found: dict[str, list[str]] = {}
    for article in sorted(articles, key=lambda a: a.published):
        if article.published >= start:
            break
        for section in article.sections:
            found.setdefault(section, []).append(article.title)
    return {section: tuple(titles) for section, titles in found.items()}


@dataclass
class SitesModel:
    """A many-site replay's sites as every run's replay serves them, by site number: when each
    article page changes, the pages (to render again what a page showed), each site's down
    windows (simulated seconds from the replay's start, its profile's, resolved) and stories.
    A run's hosts (each site's address and port, new with every replay) come from its truth."""

    changes: list[dict[str, list[float]]]
    pages: list[Any] = field(repr=False, compare=False)
    down: list[tuple[tuple[float, float], ...]]
    articles: list[int]
    start: datetime  # the replay's start: the down windows count from it

    def for_hosts(self, hosts: Mapping[int, str]) -> tuple[dict[str, list[float]], SitePages]:
        """The page changes under qualified paths and the pages of a run whose site ``n`` is at
        ``hosts[n]``."""
        changes = {site_path(host, path): times for number, host in hosts.items()
                   if number < len(self.changes) for path, times in self.changes[number].items()}
        pages = SitePages({host: self.pages[number] for number, host in hosts.items()
                           if number < len(self.pages)})
        return changes, pages

    def describe(self) -> dict[str, Any]:
        return {"count": len(self.articles), "articles": list(self.articles),
                "down": [n for n, windows in enumerate(self.down) if windows]}


@dataclass
class Site:
    """What the benchmark knows of the replay before any run: the window's start and, for
    freshness, when each article page changes (:func:`article_changes`)."""

    start: str
    changes: dict[str, list[float]]
    articles: int
    first: str
    last: str
    #: The replay's pages (the same model every run's replay serves), to render again what a
    #: page showed when a run fetched it (the lag split); None: no split
    pages: Any = field(default=None, repr=False, compare=False)
    #: The site's sections, the largest first (what ``--topic`` may name: the names the
    #: truth's ``sections`` carry)
    sections: tuple[str, ...] = ()
    #: Each section's article titles published before the window's start, oldest first: the
    #: examples a topic is described by with ``--topic-words examples``
    examples: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    #: A many-site benchmark's sites (None: one site, ``changes`` and ``pages`` above)
    many: SitesModel | None = field(default=None, repr=False, compare=False)

    def describe(self) -> dict[str, Any]:
        """The site as ``results.json`` records it (the changes counted, not listed); with
        many sites, ``sites``: their number, each one's stories and the sites with a down
        window."""
        if self.many is not None:
            return {"start": self.start, "articles": self.articles, "first": self.first,
                    "last": self.last,
                    "changing_articles": sum(len(changes) for changes in self.many.changes),
                    "sites": self.many.describe()}
        return {"start": self.start, "articles": self.articles, "first": self.first,
                "last": self.last, "changing_articles": len(self.changes)}


def prepare_site(config: BenchConfig) -> Site:
    """Build the replay's model in this process (the same corpus, retime and seed as every
    run's replay), resolve the window's start. Raises :class:`BenchError` for a corpus that
    cannot be read."""
    path = Path(config.corpus)
    if not path.is_file():
        raise BenchError(f"--corpus ({config.corpus!r}) is not a file.")
    if config.sites is not None:
        return _prepare_sites(config, path)
    try:
        index = SiteIndex(load_corpus(path), retime=config.retime, seed=config.seed)
    except (CorpusError, ValueError, OSError) as exc:
        raise BenchError(f"--corpus ({config.corpus!r}) cannot be read: {exc}") from None
    if not index.articles:
        raise BenchError(f"--corpus ({config.corpus!r}) has no article.")
    published = [a.published for a in index.articles]
    start = as_time(config.start) if config.start else default_start(published)
    return Site(start=start.isoformat(), changes=article_changes(index),
                articles=len(index.articles), first=published[0].isoformat(),
                last=published[-1].isoformat(),
                pages=PageBuilder(index, config.profile, feeds=config.feeds),
                sections=tuple(front.name for front in index.sections),
                examples=earlier_titles(index.articles, start))


def _prepare_sites(config: BenchConfig, path: Path) -> Site:
    """:func:`prepare_site` of a many-site benchmark: the many-site replay's model, built as
    every run's replay builds it (corpus, retime, seed, split, profiles resolved over the
    run's simulated length), nothing listening."""
    try:
        corpus = load_corpus(path)
    except (CorpusError, ValueError, OSError) as exc:
        raise BenchError(f"--corpus ({config.corpus!r}) cannot be read: {exc}") from None
    try:
        profiles = Profiles.load(config.site_profiles, config.sites) if config.site_profiles else None
        many = ManySites(corpus, config.sites, profiles=profiles, profile=config.profile,
                         speed=config.speed, retime=config.retime, seed=config.seed,
                         feeds=config.feeds, split=config.split, run=config.sim_seconds,
                         prerender=False)
    except ProfileError as exc:
        raise BenchError(f"--site-profiles: {exc}") from None
    except ValueError as exc:
        raise BenchError(f"--sites ({config.sites}): {exc}") from None
    articles = sorted(many.articles, key=lambda a: a.published)
    if not articles:
        raise BenchError(f"--corpus ({config.corpus!r}) has no article.")
    published = [a.published for a in articles]
    start = as_time(config.start) if config.start else default_start(published)
    sizes: dict[str, int] = {}
    for site in many.sites:
        for front in site.index.sections:
            sizes[front.name] = sizes.get(front.name, 0) + len(front.members)
    model = SitesModel(changes=[article_changes(site.index) for site in many.sites],
                       pages=[site.pages for site in many.sites],
                       down=[tuple((w.start, w.end) for w in site.profile.down) for site in many.sites],
                       articles=[len(site.articles) for site in many.sites], start=start)
    return Site(start=start.isoformat(), changes={}, articles=len(articles),
                first=published[0].isoformat(), last=published[-1].isoformat(), pages=None,
                sections=tuple(sorted(sizes, key=lambda name: (-sizes[name], name.lower()))),
                examples=earlier_titles(articles, start), many=model)


__all__ = ["Site", "SitesModel", "default_start", "earlier_titles", "prepare_site"]
