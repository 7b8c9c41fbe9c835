"""The scheduled strategy's budget rules: how many listing visits the host budget buys, and
when the backlog must go (the threshold maths itself is :mod:`newsforagers.learning.schedule`).

:func:`poll_rate` is the poll share's formula, for the crawler's driver and the simulator alike;
:class:`BudgetRules` holds the mind's uses of it (a part of
:class:`~newsforagers.strategies.scheduled.mind.ScheduledMind`).
"""

from __future__ import annotations

import heapq
import math
import statistics
from datetime import datetime
from typing import Callable, Iterable, Mapping

from newsforagers.learning.schedule import host_of

HOUR_SECONDS = 3600.0
NEWS = 1  # the harvest queue's tier of stories dated since the forager began (0: what must go next)
BACKLOG = 3  # the harvest queue's last tier, stories dated before the forager began: see _push
# A story of the backlog older than this (simulated seconds) waits while a listing is due.
BACKLOG_AGE = 3 * 3600.0
# The site's stories per hour (_story_rate): those published in the last this many simulated
# seconds, as the forager met them (at most STORY_DATES remembered).
STORY_SPAN = 6 * 3600.0
STORY_DATES = 20_000


def poll_rate(share: float, requests_per_second: float, speed: float = 1.0, own: float = 1.0,
              total: float = 1.0) -> float | None:
    """Listing visits per simulated hour a forager may make (``FORAGERS_SCHEDULE_POLL_SHARE``):
    ``share`` of the host budget (``requests_per_second`` of wall time, the site's clock
    ``speed`` times faster), times the forager's ``own`` share of the colony's listing demand
    ``total`` (``HubSchedule.demand``: one threshold for the whole colony, so a forager holding
    quiet listings does not spend as much as one holding the day's busiest). None without a
    budget, a share, or a demand of its own."""
    if requests_per_second <= 0 or share <= 0 or own <= 0:
        return None
    per_hour = requests_per_second * 3600.0 / speed
    return share * per_hour * own / total


#: An answer slower than this many times the forager's median latency is an outlier (a stall,
#: a trickle): it keeps its own request, not the forager's turn (see :func:`stalled`).
STALL_FACTOR = 10.0
#: ... and slower than this many wall seconds, whatever the median.
STALL_FLOOR = 2.0
#: The slowest healthy answer issue 31 names (sites answering in 100 ms to 2 s), wall seconds.
SLOW_ANSWER = 2.0
#: The least time a download of a scheduled forager is given before Scrapy gives it up and
#: retries it (:func:`answer_deadline`): five times the slowest healthy answer, so no healthy
#: site is cut short.
DEADLINE_FLOOR = 5 * SLOW_ANSWER


def in_flight_cap(base: int, rate: float, latency: float, ceiling: int = 0) -> int:
    """Requests a forager keeps handed to Scrapy and unanswered. Little's law: to send
    ``rate`` requests a second when each takes ``latency`` seconds to answer, ``rate ×
    latency`` must be in flight; at least ``base`` (``FORAGERS_SCHEDULE_IN_FLIGHT``; 0: no
    limit, returned as 0), at most ``ceiling`` (``CONCURRENT_REQUESTS``; 0: none). On a fast
    site (latency far below 1/rate) it is ``base``: every request is decided as late as can be."""
    if base <= 0:
        return 0
    need = math.ceil(rate * latency - 1e-9) if rate > 0 and latency > 0 else 0
    cap = max(base, need)
    return min(cap, ceiling) if ceiling > 0 else cap


def downloader_room(hosts: int, rate: float, base: int, host_concurrency: int = 0) -> int:
    """Requests in flight a scheduled colony needs room for over ``hosts`` hosts (what
    ``CONCURRENT_REQUESTS`` sizes when the user has not set it): on each host, what
    :func:`in_flight_cap` keeps in flight there at the slowest healthy answer
    (:data:`SLOW_ANSWER`; ``rate``: the host's requests per second, 0: none), at most
    ``host_concurrency`` (0: none), and its robots.txt, which Scrapy asks for before a host's
    first request while that request waits, holding its room. 0 when ``base`` is 0 (no limit
    in flight: nothing to size)."""
    per_host = in_flight_cap(base, rate, SLOW_ANSWER, host_concurrency)
    return hosts * (per_host + 1) if per_host > 0 else 0


def typical_latency(latencies: Iterable[float]) -> float:
    """The latency Little's law wants: the *mean* time an answer takes (a median would
    under-size the cap: a log-normal latency of σ 0.5 has a mean 13 % above its median), of
    the recent answers that were not stalls (at most ``STALL_FACTOR`` times their median:
    a stalled answer keeps its own request, not a turn, :func:`stalled`). 0 without any."""
    usual = _usual(list(latencies))
    return statistics.fmean(usual) if usual else 0.0


def _usual(recent: list[float]) -> list[float]:
    """The answers of ``recent`` that were not stalls: at most ``STALL_FACTOR`` times their
    median (the rest keep their own requests, not a turn: :func:`stalled`)."""
    if not recent:
        return []
    limit = STALL_FACTOR * statistics.median(recent)
    return [latency for latency in recent if latency <= limit]


#: The share of a host's healthy answers its harvest's in-flight cap waits for (see
#: :func:`slow_latency`): the cap holds the requests sent over an answer this slow.
PACE_QUANTILE = 0.9


def slow_latency(latencies: Iterable[float], quantile: float = PACE_QUANTILE) -> float:
    """The time within which ``quantile`` of the recent answers came (stalls left out, as
    :func:`typical_latency`): what keeps a host's pace. A host's requests leave one a spacing
    apart; the next may leave only while fewer than the cap are unanswered, that is while the
    request the cap's number of spacings back has been answered. With the cap at the *mean*
    answer times the rate (Little's law, :func:`typical_latency`), that request is still out
    whenever its answer is slower than the mean: a log-normal latency of σ 0.5 is, a third of
    the time, and the host's next request waits (requests 3 back at 5 a second, 0.63 s ago,
    against a median of 0.5 s). With the cap at this latency times the rate, ``1 − quantile``
    of them. 0 without any answer."""
    usual = sorted(_usual(list(latencies)))
    if not usual:
        return 0.0
    # the order statistic at the quantile (of 32 answers, the 29th): no interpolation
    return usual[min(len(usual) - 1, max(0, math.ceil(quantile * len(usual)) - 1))]


def stall_after(latencies: Iterable[float]) -> float:
    """Wall seconds after which an unanswered request is stalled: ``STALL_FACTOR`` times the
    median of the recent answers' ``latencies``, and ``STALL_FLOOR`` at least."""
    recent = list(latencies)
    return max(STALL_FLOOR, STALL_FACTOR * statistics.median(recent)) if recent else STALL_FLOOR


def answer_deadline(stall: float, download_timeout: float = 0.0) -> float:
    """Wall seconds a scheduled forager's download may take before Scrapy gives it up (its
    ``download_timeout``; the timeout is one of Scrapy's ``RETRY_EXCEPTIONS``, so the request is
    asked again at once, under the host's budget): the age at which an unanswered request is
    stalled (``stall``, :func:`stall_after`: ``STALL_FACTOR`` times the median answer),
    :data:`DEADLINE_FLOOR` at least, never more than the user's ``DOWNLOAD_TIMEOUT`` (0: none).
    A response that stalls after its headers (2 % of answers in
    issue 31's profiles, for 30 s) then holds its listing's next visit, and the stories it would
    show, a third as long: on most sites the answer asked again comes at once."""
    deadline = max(DEADLINE_FLOOR, stall)
    return min(deadline, download_timeout) if download_timeout > 0 else deadline


def stalled(ages: Iterable[float], limit: float) -> int:
    """How many of the unanswered requests, ``ages`` wall seconds old, are stalled (older than
    ``limit``, :func:`stall_after`). Each keeps its own request in flight (Scrapy's
    ``DOWNLOAD_TIMEOUT`` ends it), but not the forager's turn: a slow answer costs only itself."""
    return sum(1 for age in ages if age > limit)


def listed_rate(dates: Iterable[datetime], now: float,
                hours: Callable[[float, float], float] | None = None) -> float | None:
    """Stories per simulated hour a listing's own dates show, whoever found them first: the
    ``n − 1`` stories that came after the oldest it dates, over the time from that one to
    ``now`` (None when it dates none; 0 for one story: one date says nothing of a rate). A
    front showing its latest 21 stories of the past week publishes about 20 a week. ``hours``:
    the schedule's average hours between two times (``HubSchedule.hours``; with the rhythm, a
    level: stories per average hour)."""
    stamps = [d.timestamp() for d in dates]
    if not stamps:
        return None
    span = max(now - min(stamps), 60.0) / 3600.0
    if hours is not None:
        span = hours(now - span * 3600.0, now)
    return (len(stamps) - 1) / span if span > 0 else 0.0


class BudgetRules:
    """The mind's budget rules (mixed into ``ScheduledMind``, whose state they read)."""


    def _backlog_urgent(self, now: float) -> bool:
        """Whether the backlog must go now to be fetched in time: its oldest dated story would
        leave the novelty window before the backlog, fetched at the budget's pace
        (``poll_rate`` over ``FORAGERS_SCHEDULE_POLL_SHARE`` requests an hour), is done —
        twice over, for the visits in between. Without a known budget it never is: a forager
        without one is not short of requests."""
        while self._backlog_dates and self._done_with(self._backlog_dates[0][1]):
            heapq.heappop(self._backlog_dates)
        share = self.config.schedule_poll_share
        if not self._backlog_dates or self.poll_rate is None or share <= 0:
            return False
        spacing = HOUR_SECONDS * share / self.poll_rate  # simulated seconds per request
        pending = sum(1 for entry in self._harvest if entry[0] == BACKLOG)
        deadline = self._backlog_dates[0][0] + self.config.novelty_window
        return now + 2.0 * pending * spacing >= deadline


    def _visit_budget(self, now: float | None = None, host: str | None = None,
                      novelty: float | None = None) -> float | None:
        """The listing visits per simulated hour the budget allows (``poll_rate``; with
        ``host``, that host's, ``poll_rates``), at most as many as expect
        ``FORAGERS_SCHEDULE_POLL_YIELD`` novel documents each on average
        (``HubSchedule.novelty`` over that yield, at ``now``'s rates with the rhythm; of the
        host's listings, ``novelty`` when the caller has it): a larger budget buys polls only
        while they still pay."""
        rate = self.poll_rate if host is None else (self.poll_rates or {}).get(host)
        floor = self.config.schedule_poll_yield
        if rate is None or floor <= 0:
            return rate
        if novelty is None:
            novelty = self.schedule.novelty(now, host)
        if self.config.schedule_credit == "listed":
            # rates credited by what each listing lists count a story once per listing that
            # shows it: the visits a bound buys are for the distinct stories the site publishes
            # (as the forager meets them; the rates alone when it meets no date)
            stories = self._stories_per_hour(now, host)
            if stories > 0:
                novelty = min(novelty, stories)
        if self.config.topic.strip():
            # The topical mode credits listings for on-topic documents only, so their rates
            # are the topic's share of the news. The bound counts every story the forager meets
            # instead: a topic's listings get the visits the site's news would buy, and the
            # threshold spends them on the listings that show the topic (bounded by the
            # topic's rates alone, a topic's stories wait for visits: docs/benchmarks.md,
            # "Topical mode").
            novelty = max(novelty, self._stories_per_hour(now, host))
        return min(rate, novelty / floor) or None

    def _budgets(self, now: float) -> tuple[dict[str, tuple[float | None, float | None]] | None,
                                            float | dict[str, float] | None]:
        """``(`` :meth:`_host_budgets`, :meth:`_spare` ``)`` at ``now``, reckoned again when the
        driver gives new rates (``poll_rate``, ``poll_rates``, ``spare_rates``) or the
        schedule's reckoning is no longer fresh (``HubSchedule.fresh``: at the driver's next
        reckoning, or ``RECKONING`` simulated seconds later without a driver), not at every
        decision: each is a pass over every host and its listings (at 1,000 sites, a sixth of
        the CPU spent deciding), and what changes between two reckonings (a listing's rate
        after a visit or a credit) moves a host's budget by one listing's share of it."""
        key = (self.poll_rate, self.poll_rates, self.spare_rates)
        cached = self._budgets_cache
        if cached is not None and all(a is b for a, b in zip(cached[0], key)) and self.schedule.fresh(cached[1], now):
            return cached[2]
        budgets = self._host_budgets(now)
        reckoned = budgets, self._spare(now, budgets)
        self._budgets_cache = key, self.schedule.reckoned_at(now), reckoned
        return reckoned

    def _host_budgets(self, now: float | None) -> dict[str, tuple[float | None, float | None]] | None:
        """``host -> (visit budget, scarce rate)`` of each host the driver gave a poll rate
        (``poll_rates``: the budget per host), or None (one budget for all the listings). Each
        host's listings' rates are summed in one pass over the schedule, not one a host."""
        if self.poll_rates is None:
            return None
        levels, scale = self.schedule.novelties(), self.schedule.rate_scale(now)
        return {host: (self._visit_budget(now, host, levels.get(host, 0.0) * scale),
                       self._scarce_rate(now, host, levels.get(host, 0.0)))
                for host in self.poll_rates}

    def _spare(self, now: float | None,
               budgets: Mapping[str, tuple[float | None, float | None]] | None) -> float | dict[str, float] | None:
        """The listing visits per simulated hour the budget allows beyond what the threshold
        is given (``HubSchedule.next_due``'s ``spare``): per host, what ``spare_rates`` allows
        this forager on it (at most what a scarce budget leaves after the stories) less the
        host's visit budget (:meth:`_visit_budget`, which the poll yield bounds); with one
        budget for all the listings, ``poll_rate`` less :meth:`_visit_budget`. A budget that
        stories and paying listings would not use goes to the listings by their spare rates
        (a quiet front, a home page that showed nothing new at night), instead of idling: the
        yield bound holds back visits only where the budget is short. None: nothing spare."""
        if self.spare_rates is not None:
            spare: dict[str, float] = {}
            for host, allowed in self.spare_rates.items():
                spent, scarce = (budgets or {}).get(host, (None, None))
                if budgets is None or host not in budgets:
                    scarce = self._scarce_rate(now, host, 0.0, rate=allowed)
                left = (allowed if scarce is None else min(allowed, scarce)) - (spent or 0.0)
                if left > 0:
                    spare[host] = left
            return spare or None
        if self.poll_rate is None or self.poll_rates is not None:
            return None
        scarce = self._scarce_rate(now)
        allowed = self.poll_rate if scarce is None else min(self.poll_rate, scarce)
        left = allowed - (self._visit_budget(now) or 0.0)
        return left if left > 0 else None

    def _visit_yield(self) -> float:
        """The novel documents a listing's visit must expect (``HubSchedule.next_due``'s
        ``min_yield``): ``FORAGERS_SCHEDULE_VISIT_YIELD`` while the budget sets the poll rate,
        so that listings of low rate (a front whose stories a busier listing shows first) do
        not take the visits of the listings that pay; in the topical mode, times the topic's
        share of the novel documents met, ``(on + 1)/(on + off + 1)`` (its listings' rates
        count the topic's documents only). 0 without a budget."""
        floor = self.config.schedule_visit_yield
        if self.poll_rate is None or floor <= 0:
            return 0.0
        if self.config.topic.strip():
            on = self.counters.rewarded
            floor *= (on + 1.0) / (on + self.counters.off_topic + 1.0)
        return floor

    def _hours(self) -> Callable[[float, float], float] | None:
        # with the rhythm, a listing's own dates tell a level (stories per average hour)
        return self.schedule.hours if self.schedule.profile is not None else None

    def _observe_dates(self, dates: Mapping[str, datetime], now: float, listing: bool = False,
                       page: str | None = None) -> None:
        """Every dated story is a sample of the site's publishing rhythm: each story
        once, whether a listing dated it or it was fetched; a listing's dates are its window
        (see :meth:`~newsforagers.learning.rhythm.RhythmProfile.observe_listing`). And of
        where its site's day begins: the day its URL names, and the day of ``page`` (the
        listing that dates it) when that names one (:meth:`HubSchedule.observe_day`)."""
        if not dates:
            return
        first = [(u, d.timestamp()) for u, d in dates.items() if u not in self._dated]
        for url in dates:
            self._dated.add(url)
        if page is not None and self.schedule.day_end(page) is None:
            page = None  # (a listing naming no day: its stories' own URLs only)
        for url, stamp in first:
            self.schedule.observe_day(url, stamp)
            if page is not None:
                self.schedule.observe_day(page, stamp)
        self._story_dates.extend((stamp, host_of(url)) for url, stamp in first)
        profile = self.schedule.profile
        if profile is None:
            return
        if listing:
            profile.observe_listing([stamp for _, stamp in first], [d.timestamp() for d in dates.values()], now)
        else:
            for _, stamp in first:
                profile.observe(stamp, now)

    def _stories_per_hour(self, now: float | None, host: str | None = None) -> float:
        """The site's stories per simulated hour as this forager meets them (on ``host``
        only, when given): the distinct stories (a listing dated them, or fetched) published
        in the last ``STORY_SPAN``, over it; computed at most once a simulated minute (for
        every host in one pass)."""
        if now is None or not self._story_dates:
            return 0.0
        key = None if host is None else "hosts"
        computed = self._story_rate.get(key)
        if computed is None or not 0.0 <= now - computed[0] < 60.0:
            since = now - STORY_SPAN
            if host is None:
                rate = sum(1 for t, _ in self._story_dates if since <= t <= now) * HOUR_SECONDS / STORY_SPAN
            else:
                counts: dict[str, int] = {}
                for t, h in self._story_dates:
                    if since <= t <= now:
                        counts[h] = counts.get(h, 0) + 1
                rate = {h: n * HOUR_SECONDS / STORY_SPAN for h, n in counts.items()}
            computed = self._story_rate[key] = (now, rate)
        return computed[1] if host is None else computed[1].get(host, 0.0)

    def _scarce_rate(self, now: float | None = None, host: str | None = None,
                     novelty: float | None = None, rate: float | None = None) -> float | None:
        """Listing visits per simulated hour the budget leaves once the stories the listings
        are expected to show are fetched (crawl against recrawl, by what each request is
        expected to bring): ``B·(1 − explore share) − Λ``, ``Λ`` the stories per hour to
        fetch: the site's distinct stories per hour as the forager meets them
        (:meth:`_stories_per_hour`), or the listings' credited rates when those say more (a
        story on five listings is one story: their own dates would count it five times) with
        ``B`` this forager's
        requests per hour (``poll_rate`` over ``FORAGERS_SCHEDULE_POLL_SHARE``), at least
        ``FORAGERS_SCHEDULE_SCARCE_FLOOR`` of ``B``. Where the budget is plentiful it is far
        above what the threshold asks and changes nothing; where it is scarce the threshold
        rises until visits fit in it: fewer visits, each showing more stories, so the budget
        goes to stories rather than to looking for them. With ``host``: that host's budget
        (``poll_rates``), stories and listings (``novelty``: its listings' levels, when the
        caller has them; ``rate``: the host's listing visits per hour, when not its
        ``poll_rates``). None without a budget."""
        share, floor = self.config.schedule_poll_share, self.config.schedule_scarce_floor
        if rate is None:
            rate = self.poll_rate if host is None else (self.poll_rates or {}).get(host)
        if rate is None or share <= 0 or floor <= 0:
            return None
        budget = rate / share
        # levels, not the rates of this hour: a peak's stories are fetched over the quiet
        # hours after it too, so the budget is shared out over the day
        listed = self.schedule.novelty(host=host) if novelty is None else novelty
        stories = max(listed, self._stories_per_hour(now, host))
        spare = budget * (1.0 - self.config.explore_share) - stories
        return max(spare, floor * budget)
