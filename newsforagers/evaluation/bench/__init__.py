"""The discovery benchmark (DESIGN.md, "How we judge discovery"): its plan, the judgement of
each run and the results, as a library with no process of its own.

``newsforagers bench`` (:mod:`newsforagers.commands.bench`) puts the parts together::

    config = BenchConfig(corpus="digitalgov.jsonl.gz", out="bench", retime=200, duration=180,
                         crawlers=("wlrl", "adaptive", "oracle")).validate()   # config
    site = prepare_site(config)          # site: the replay's model, default start, page changes
    results = run_bench(config, site)    # commands.bench.runner: a replay + a crawl per run
    write_results(config.out, results)   # report: results.json, results.md

- :mod:`~newsforagers.evaluation.bench.config`: the options (:class:`BenchConfig`), the
  crawlers it can compare, the error a bad value raises;
- :mod:`~newsforagers.evaluation.bench.plan`: every run in order and its commands (the replay's
  arguments, ``scrapy crawl``), the ``--dry-run`` text;
- :mod:`~newsforagers.evaluation.bench.site`: what is known of the replay (of its sites) before
  any run;
- :mod:`~newsforagers.evaluation.bench.evaluate`: one run's measures and series from the files
  it left;
- :mod:`~newsforagers.evaluation.bench.summary`: the means, the failures and the targets
  (``results.json``);
- :mod:`~newsforagers.evaluation.bench.report`: ``results.json`` and ``results.md`` written.
- :mod:`~newsforagers.evaluation.bench.sites`: a many-site benchmark's (``--sites N``) judge:
  stories matched by their full URL, each site's measures, their spread over the sites;
- :mod:`~newsforagers.evaluation.bench.topic` and :mod:`~newsforagers.evaluation.bench.harvest`:
  a topical benchmark's (``--topic SECTION``) topic, from a section of the corpus, and
  its measures (harvest rate, topic recall, precision, recall at equal requests).

What is deterministic for a fixed seed: the plan (:func:`plan_runs`), every command
(:func:`crawl_argv`), the replay's truth for the window (same site seed) and everything computed
from the run records (:func:`summarise`, :func:`results_markdown`: same records, same bytes).
What is not: an HTTP crawl against an accelerated clock depends on wall-clock scheduling (how
fast a process starts, when a response arrives on a shared machine), so two repeats with the
same seed differ a little; the standard deviation over repeats measures it.
"""
