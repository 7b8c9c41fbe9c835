"""A small in-memory news site in simulated time, for the demo and fast experiments.

Sections with Zipf popularity receive articles by a Poisson process (optionally with a daily
and weekly rhythm, :func:`news_rhythm`: quiet nights, a morning peak, slower weekends); the
home page links to
every section front; a front lists its latest ``front_size`` articles; an article links to its
front, the home page and a few older articles chosen by preferential attachment. Every page
has a ``k``-dimensional state vector in [−1, 1] standing in for the PrTFIDF state: pages of a
section lean on the same cluster, so a forager's value function can learn where the news is.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from newsforagers import defaults
from newsforagers.learning.rhythm import HOUR, WEEK_HOURS, Rhythm, hour_of_week

HOST = "http://news.sim"

#: stories per hour of a weekday relative to one another, from midnight (site time = UTC):
#: a quiet night, a morning peak, a busy day thinning out in the evening
WEEKDAY_HOURS = (0.15, 0.15, 0.15, 0.15, 0.15, 0.3, 0.8, 2.2, 2.6, 2.4, 1.9, 1.7,
                 1.5, 1.5, 1.4, 1.3, 1.2, 1.1, 1.0, 0.9, 0.8, 0.6, 0.4, 0.25)


def news_rhythm(weekend: float = 0.5, day: Sequence[float] = WEEKDAY_HOURS) -> np.ndarray:
    """A news site's publishing rhythm over the UTC week (168 values, Monday 00:00 first, mean
    1): ``day``'s shape every day, Saturday and Sunday at ``weekend`` of a weekday."""
    if len(day) != 24 or weekend <= 0:
        raise ValueError("a rhythm needs 24 hourly values and a weekend factor > 0.")
    week = np.tile(np.asarray(day, dtype=np.float64), 7)
    week[5 * 24:] *= weekend
    return week / week.mean()


@dataclass(frozen=True)
class SimArticle:
    url: str
    section: int
    published: float  # simulated seconds since the start


class NewsWorld:
    """The site: which pages exist at simulated time ``t``, their links and their states."""

    def __init__(
        self,
        duration: float,
        n_sections: int = 12,
        rate_per_hour: float = 30.0,
        front_size: int = 20,
        related: int = 3,
        k: int = defaults.FORAGERS_N_CLUSTERS,
        rng: np.random.Generator | None = None,
        rhythm: Sequence[float] | None = None,
    ):
        if duration <= 0 or n_sections < 1 or rate_per_hour <= 0:
            raise ValueError("a news world needs duration > 0, n_sections >= 1 and rate > 0.")
        rng = rng if rng is not None else np.random.default_rng(0)
        self.k = k
        self.front_size = front_size
        self.n_sections = n_sections
        popularity = 1.0 / np.arange(1, n_sections + 1)
        popularity /= popularity.sum()
        # ``rhythm``: stories per hour of the week relative to the week's mean (time 0 is
        # POSIX 0, a Thursday 00:00 UTC); None: the same rate at every hour
        self.rhythm = None if rhythm is None else Rhythm(rhythm)
        if self.rhythm is None:
            n_articles = int(rng.poisson(rate_per_hour * duration / 3600.0))
            times = np.sort(rng.uniform(0.0, duration, size=n_articles))
        else:
            times = self._rhythmic_times(rng, duration, rate_per_hour)
            n_articles = len(times)
        sections = rng.choice(n_sections, size=n_articles, p=popularity)
        self.articles = [
            SimArticle(f"{HOST}/section/{s}/article/{i}/", int(s), float(t))
            for i, (t, s) in enumerate(zip(times, sections))
        ]
        self._times = [a.published for a in self.articles]
        self._by_url = {a.url: a for a in self.articles}
        self._section_articles: list[list[int]] = [[] for _ in range(n_sections)]
        for index, article in enumerate(self.articles):
            self._section_articles[article.section].append(index)
        # related links by preferential attachment over older articles
        in_degree = np.ones(max(n_articles, 1))
        self._related: list[list[int]] = []
        for index in range(n_articles):
            if index == 0:
                self._related.append([])
                continue
            weights = in_degree[:index] / in_degree[:index].sum()
            chosen = rng.choice(index, size=min(related, index), replace=False, p=weights)
            in_degree[chosen] += 1
            self._related.append(sorted(int(c) for c in chosen))
        # PrTFIDF-like states: class probabilities p (a Dirichlet leaning on the section's
        # cluster) squashed by tanh((p - 0.5)·40) as in the papers, so most components are
        # near -1 and a page's own cluster is near +1 when the classifier is sure of it.
        clusters = rng.permutation(k)[: n_sections] if n_sections <= k else rng.integers(0, k, n_sections)
        self._states: dict[str, np.ndarray] = {}

        def squashed(concentration: np.ndarray) -> np.ndarray:
            p = rng.dirichlet(concentration)
            return np.tanh((p - 0.5) * defaults.FORAGERS_TANH_SCALE)

        for article in self.articles:
            concentration = np.full(k, 0.05)
            concentration[clusters[article.section]] = 2.0
            self._states[article.url] = squashed(concentration)
        for s in range(n_sections):
            concentration = np.full(k, 0.05)
            concentration[clusters[s]] = 6.0
            self._states[self.front_url(s)] = squashed(concentration)
        self._states[self.home_url] = squashed(np.full(k, 1.0))

    def _rhythmic_times(self, rng: np.random.Generator, duration: float, rate_per_hour: float) -> np.ndarray:
        # a Poisson process of intensity rate·p(t): uniform draws mapped through the inverse of
        # Λ(t) = ∫_0^t p, which is piecewise linear between the hours
        knots = np.minimum(np.arange(0.0, duration + HOUR, HOUR), duration)
        hourly = np.array([self.rhythm.hourly[int(hour_of_week(t)) % WEEK_HOURS] for t in knots[:-1]])
        cumulative = np.concatenate(([0.0], np.cumsum(hourly * np.diff(knots) / HOUR)))
        n_articles = int(rng.poisson(rate_per_hour * cumulative[-1]))
        draws = np.sort(rng.uniform(0.0, cumulative[-1], size=n_articles))
        return np.interp(draws, cumulative, knots)

    home_url = f"{HOST}/"

    @staticmethod
    def front_url(section: int) -> str:
        return f"{HOST}/section/{section}/"

    def _visible(self, t: float) -> int:
        return bisect.bisect_right(self._times, t)

    def exists(self, url: str, t: float) -> bool:
        article = self._by_url.get(url)
        return article is None or article.published <= t

    def article(self, url: str) -> SimArticle | None:
        return self._by_url.get(url)

    def links(self, url: str, t: float) -> list[str]:
        """The links a page shows at time ``t`` (only published articles are linked)."""
        if url == self.home_url:
            return [self.front_url(s) for s in range(self.n_sections)]
        article = self._by_url.get(url)
        if article is not None:
            return [self.front_url(article.section), self.home_url] + [
                self.articles[i].url for i in self._related[int(url.rstrip("/").rsplit("/", 1)[1])]
            ]
        section = int(url.rstrip("/").rsplit("/", 1)[1])
        visible = self._visible(t)
        ids = self._section_articles[section]
        latest = ids[: bisect.bisect_left(ids, visible)][-self.front_size:]
        return [self.home_url] + [self.articles[i].url for i in reversed(latest)]

    def state(self, url: str) -> np.ndarray:
        return self._states[url]

    def states(self, urls) -> np.ndarray:
        return np.stack([self._states[u] for u in urls])

    def seed_urls(self) -> list[str]:
        return [self.home_url]

    #: an article, once published, never changes (a forager may reuse its state)
    dated_pages_change = False

    def documents(self, urls, t):
        """``(url, url, published)`` of the probed pages that are articles (see colony); a
        page links only to published articles, so the download times ``t`` do not matter."""
        for url in urls:
            article = self._by_url.get(url)
            if article is not None:
                yield url, url, article.published

    def published_between(self, start: float, end: float) -> list[SimArticle]:
        return self.articles[bisect.bisect_left(self._times, start): bisect.bisect_right(self._times, end)]
