"""Judging crawlers offline: the measures of a run computed from its records (``metrics``,
``compartments``), the benchmark's plan, per-run judgement and results (``bench/``), its plots,
and the baseline crawlers the colonies are compared with (``baselines``: Scrapy spiders, run by
the benchmark). The measures are pure functions of the records; nothing here starts a process:
``newsforagers bench`` (:mod:`newsforagers.commands.bench`) runs the replays and the crawls."""
