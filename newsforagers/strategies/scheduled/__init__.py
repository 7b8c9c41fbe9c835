"""The scheduled strategy (``FORAGERS_STRATEGY=scheduled``): its mind and every rule it follows.

Beside the papers' forager (:mod:`newsforagers.strategies.paper`, kept exact), the same product parts
used differently (DESIGN.md, "Where the papers fall short"):

- **Harvest.** Every downloaded page is read as an article (it has a publication date) or a
  listing. The links of a listing that the colony has never fetched, except items the listing
  itself dates beyond the novelty window (``Page.listed``), are queued at once, first
  in line: news (dated since the forager began) the oldest first, then the backlog ordered by
  the TD value ``w·s`` of what is known about them (the state of the page itself when the
  colony has read it, else of the listing that shows it); the colony-wide check is the
  ``claim`` callable (the colony store's per-URL records), or ``claim_many`` for all of a
  listing's links at once (one store transaction per page). An article, once
  fetched, is never fetched again.
- **The weblog as a scheduler.** :class:`~newsforagers.learning.schedule.HubSchedule` says which
  listing is due; the reinforcing agent's rewards for documents found through a listing's
  visit are credited to that listing. A listing met while harvesting is added to the schedule
  (with the optimistic prior when it was reached from a seed or a listing that has paid, else
  with its parent's rate), and is read at once when everything its parent showed was new (the
  next page of a front whose whole first page is new) or its parent is a seed at its first
  visit (the site's map).
- **Spending the budget.** With ``poll_rate`` (set by the driver from the host budget) the
  schedule's threshold drops until the listing visits use that rate
  (:meth:`~newsforagers.learning.schedule.HubSchedule.budget_threshold`).
- **Exploration.** At most ``FORAGERS_EXPLORE_SHARE`` of the requests walk short paths (at
  most ``FORAGERS_EXPLORE_STEPS`` steps, ending after ``FORAGERS_EXPLORE_PATIENCE`` fruitless
  ones) from a weblog entry along the highest ``w·s``, with a TD(0) step (Alg. 4) on every step
  (profit: the reward of a fresh article not sent before, minus the send cost, plus one per
  listing the step added to the schedule); their job is to find listings the weblog lacks.
- **Feeds and sitemaps** (``FORAGERS_FEEDS``) are listings like any other: the spider reads one
  as a listing whose every entry is dated, and hands over the feeds a site announces
  (:meth:`ScheduledMind.add_feeds`), which join the schedule with the optimistic prior.
- **Conditional revisits.** A listing unchanged since the colony's last copy answers a revisit
  ``304 Not Modified`` (``FORAGERS_CONDITIONAL``; the spider asks with the URL's validators):
  :meth:`ScheduledMind.on_not_modified` counts it a visit that showed no new link.
- **Rhythms** (``FORAGERS_SCHEDULE_RHYTHM``). The dates of listed items and fetched articles,
  each story once, feed the schedule's hour-of-week publication profile
  (:class:`~newsforagers.learning.rhythm.RhythmProfile`): rates become levels × p(t).
- **Idle when nothing is due.** :meth:`ScheduledMind.next_fetch` returns None and
  :attr:`ScheduledMind.wait` says for how many simulated seconds.

Never imports Scrapy: URLs, texts, dates and simulated times (POSIX seconds of the site's
clock) in; URLs and numbers out.
"""

from newsforagers.strategies.scheduled.budget import listed_rate, poll_rate
from newsforagers.strategies.scheduled.fetch import KINDS, NEWS_PRIORITY, Fetch, ScheduledCounters
from newsforagers.strategies.scheduled.mind import ScheduledMind, continues, schedule_from_config

__all__ = ["KINDS", "NEWS_PRIORITY", "Fetch", "ScheduledCounters", "ScheduledMind", "continues",
           "listed_rate", "poll_rate", "schedule_from_config"]
