"""The strategies: each one place holding every decision of one kind of forager's mind.

- :mod:`newsforagers.strategies.paper` — the papers' forager (``FORAGERS_STRATEGY=paper``):
  paths of steps behind a step barrier, Alg. 1-5 and 10-12 of the selection paper.
- :mod:`newsforagers.strategies.scheduled` — the scheduled forager: harvest what listings
  list, the weblog as a scheduler of listings, its budget rules (the poll share's formula,
  used by the crawler's driver and the simulator alike), bounded exploration.
- :mod:`newsforagers.strategies.common` — what both share: Alg. 5, the guarded TD step, the
  encoder's bootstrap, what a split's child inherits (Alg. 6), the energy policy's tie-break,
  and :class:`~newsforagers.strategies.common.Mind`, the protocol every mind follows.

The protocol (what the driver, the only door between Scrapy and a mind, relies on):

- *what to fetch next*: ``next_step()`` (paper; ``busy`` while the step barrier holds) or
  ``next_fetch(now)`` (scheduled; ``wait`` says for how long nothing is due); ``done``;
- *what a page teaches*: ``on_step_page``/``on_probe_page``/``on_*_failed`` (paper),
  ``on_page``/``on_not_modified``/``on_failed``/``add_feeds`` (scheduled); ``should_send``
  (Alg. 5); ``on_reward`` (the reinforcing agent's answer);
- *when to split*: the population policy decides (:mod:`newsforagers.learning.population`);
  the mind gives the energy policy a finished step's relevance (``energy_relevance``) and
  takes its teleports (``teleport``);
- *what a child inherits*: ``inherit()`` (half the weblog, the weights; Alg. 6);
- its memory: ``to_state``/``restore``; its bootstrap: ``fit_request``, ``fit``,
  ``encoder_fitted``, ``encoder_failed``.

Pure: no Scrapy, no store, no colony (``.importlinter``); the maths is
:mod:`newsforagers.learning`'s.
"""
