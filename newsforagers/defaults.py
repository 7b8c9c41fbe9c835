"""Every ``FORAGERS_*`` default, in one place (constants only, no logic).

The paper constants come from Palotai, Farkas & Lőrincz, "Selection in scale-free small
world" (Alg. 1-12), Palotai, Mandusitz & Lőrincz (2003) and Mouton & Marteau (2008).
docs/settings.md documents each one.
"""

# Weblog (selection paper, Alg. 1 and 6).
FORAGERS_WEBLOG_SIZE = 100
FORAGERS_WEBLOG_START_SIZE = 10
FORAGERS_WEBLOG_BETA = 0.3

# Paths (Alg. 11-12).
FORAGERS_PATH_STEPS = 100

# Linear value and TD(0) (Alg. 3-4).
FORAGERS_TD_ALPHA = 0.1
FORAGERS_TD_GAMMA = 0.9

# Reinforcing agent (Alg. 7 and the 2003 paper's worked example).
FORAGERS_REWARD = 100.0
FORAGERS_SEND_COST = 1.0
# The worked example of the 2003 paper charges the cost of a send even when it is rewarded
# (sends E and F, F novel: 100 - 1 - 1 = 98); Alg. 7 of the selection paper sends REWARD
# alone. True reproduces the worked example.
FORAGERS_REWARDED_SEND_PAYS_COST = True
FORAGERS_NOVELTY_WINDOW = 24 * 3600.0  # seconds: "not older than 24 hours"
# A document dated further than this ahead of the site's clock is neither sent nor rewarded:
# clocks disagree by a little, a date days ahead is a bad date.
FORAGERS_FUTURE_SKEW = 300.0  # seconds
# Alg. 5's "previously sent" memory of a forager, bounded (oldest sends forgotten first).
FORAGERS_SENT_MEMORY_SIZE = 50_000

# Forager score and population (Alg. 7-8).
FORAGERS_SCORE_INIT = 100.0
FORAGERS_SCORE_PER_SEND = -0.05
FORAGERS_SCORE_PER_REWARD = 1.0
FORAGERS_SPLIT_SCORE = 200.0
FORAGERS_RETIRE_SCORE = 0.0
FORAGERS_MIN = 2
FORAGERS_MAX = 16

# Energy population control (Mouton & Marteau 2008).
FORAGERS_ENERGY_C = 0.5
FORAGERS_ENERGY_G = 10.0
FORAGERS_ENERGY_INIT = 1.0
FORAGERS_ENERGY_LB = 2
FORAGERS_ENERGY_UB = 16
# Relevances the threshold R is read from: 0 = all of them (the paper), N = the last N.
FORAGERS_ENERGY_HISTORY = 0
# The energy model: "sigmoid" (the paper's Δe = (G + C)·σ(λ·(r − R)) − C, self-balancing) or
# "original" (the endogenous fitness model it starts from, InfoSpiders: Δe = ρ·r − C). The
# paper prints no ρ: its range "depends on the order of the similarity metric", so 1.0 is no
# recommendation but a scale to set to one's relevances (a page pays when r > C/ρ).
FORAGERS_ENERGY_MODEL = "sigmoid"
FORAGERS_ENERGY_RHO = 1.0
# How a forager with E > 1 shares it with its ⌊E⌋ clones: "printed" (Alg. 2 as printed: every
# part holds E/⌊E⌋, more than E in all, and a non-integer E leaves every part above 1, so it
# splits again; measured, the population runs away) or "shared" (Alg. 1: the forager and its
# clones share E, E/(⌊E⌋ + 1) each, E conserved).
FORAGERS_ENERGY_SPLIT = "printed"
# How UB and LB act: "strict" (the population stays in [LB, UB]: clones capped at
# UB − population, teleports from LB down; the buffer then never holds a remnant) or "paper"
# (Alg. 2: no clone cap, so the population passes UB and the pages keep their energy while it
# is above; teleports below LB only; the colony admits at most 2·UB foragers all the same).
FORAGERS_ENERGY_BOUNDS = "strict"
# With FORAGERS_ENERGY_BOUNDS = "paper" the colony's hard cap is this many times
# FORAGERS_ENERGY_UB: Alg. 2 lets the population pass UB (there its foragers pay |C| a page and
# leave the pages' energy), but each forager is a crawler of its own, so it must not grow
# without limit; a clone beyond the cap is refused (newsforagers/population/split_refused).
ENERGY_PAPER_CAP = 2

# Topical mode (Mouton & Marteau 2008; docs/topics.md). The topic: a few words or a longer
# text, or "@PATH" of a file holding it (`-a topic=...` sets it); empty: no topic, the news
# use of the papers.
FORAGERS_TOPIC = ""
# A corpus (a newsforagers corpus, .jsonl or .jsonl.gz) whose documents give the topic's idf;
# empty: the idf of the forager's encoder (a model of `newsforagers train`), else the
# document frequencies of the pages read so far.
FORAGERS_TOPIC_CORPUS = ""
# What the reinforcing agent pays a first sender: "novelty" (the papers: REWARD for a novel
# same-day document), "topic" (REWARD·r for a document not paid before, whatever its date),
# "topic+novelty" (REWARD·r for a novel same-day document: "new and about X"). Empty: the
# last with a topic, the first without.
FORAGERS_REWARD_MODE = ""
# With a topic, only documents at least this relevant are output (the others are still
# judged and paid their relevance). Measured (benchmarks/topic_threshold.py, docs/benchmarks.md
# "Topical mode"): the best mean F1 of "relevance >= t" against a corpus's own sections over
# digital.gov's 20 commonest tags (best alone at 0.03) and the synthetic site's 12 sections
# (best alone from 0.1 on).
FORAGERS_TOPIC_MIN_RELEVANCE = 0.07
# The topic learns from what the colony reads (issue 32; docs/topics.md, docs/algorithms.md
# "Topic feedback"). "pseudo": the topic's query moved toward the documents its words rank
# highest and the user's examples (Rocchio; pseudo-relevance feedback, RM3); "off": the papers'
# cosine of the topic's words.
FORAGERS_TOPIC_FEEDBACK = "pseudo"
# The feedback's documents and weight β: Anserini's RM3 defaults (fbDocs 10,
# originalQueryWeight 0.5), not fitted here. Its terms: 50, not Anserini's 10 (for web queries
# of a few words): a topic's profile of 10 terms left the mixture of the synthetic site's scores
# less apart (the worst section's precision 0.81 against 1.00 with 50; digital.gov alike);
# docs/benchmarks.md, "Topic feedback".
FORAGERS_TOPIC_FEEDBACK_DOCUMENTS = 10
FORAGERS_TOPIC_FEEDBACK_TERMS = 50
FORAGERS_TOPIC_FEEDBACK_WEIGHT = 0.5
# The output's threshold: "mixture" (from the relevance scores of the documents read: the
# crossing of a two-Gaussian mixture when it has two separate modes, never below
# FORAGERS_TOPIC_MIN_RELEVANCE), "fixed" (FORAGERS_TOPIC_MIN_RELEVANCE).
FORAGERS_TOPIC_THRESHOLD = "mixture"

# Text state (PrTFIDF over PDDP clusters).
FORAGERS_N_CLUSTERS = 50
FORAGERS_TANH_SCALE = 40.0
# The papers squash a PrTFIDF output p by tanh((p - 0.5)·scale). With 50 clusters of one
# site's vocabulary p rarely reaches 0.5 and the state is constant -1 (docs/algorithms.md,
# "Text state" 6): 0.1% of digital.gov's documents and none of the synthetic site's get a
# "Yes". None: each strategy's own — the papers' 0.5 for "paper", kept exact; for
# "scheduled", 0.08, measured to give the Yes/No-like state the papers describe (66% of
# digital.gov's and 39% of the synthetic site's documents with a "Yes", 95-97% of the
# components beyond ±0.9).
FORAGERS_TANH_OFFSET = None
PAPER_TANH_OFFSET = 0.5
SCHEDULED_TANH_OFFSET = 0.08

# Running foragers under Scrapy.
# The colony store: memory://, sqlite:///PATH (the embedded default, relative to the
# directory the crawl runs in) or redis://[:password@]host:port/db (rediss:// for TLS), which
# foragers in many processes and on many machines share.
FORAGERS_STORE = "sqlite:///.newsforagers/colony.db"
# Every key of one colony in a Redis store starts with this prefix (two colonies on one Redis
# need two prefixes).
FORAGERS_REDIS_PREFIX = "newsforagers:"
# The colony's search index (docs/search.md): an SQLite FTS5 file the root keeps current with the
# store's paid documents. "": beside an SQLite store (colony.db -> colony.index.sqlite), under
# .newsforagers/index/ for memory:// and redis:// stores; "off": no index.
FORAGERS_INDEX = ""
# Wall seconds between two looks of the root at the store for documents to index.
FORAGERS_INDEX_INTERVAL = 1.0
# Seconds a store operation keeps retrying a server that does not answer (Redis restarting,
# a network blip), with exponential backoff, before it fails with an error naming the store.
FORAGERS_STORE_RETRY = 60.0
# A file holding the Redis store's password on its first line, readable by its owner only
# ("": none; the password may also be in FORAGERS_STORE's URL, $NEWSFORAGERS_STORE_PASSWORD or
# ~/.netrc: newsforagers/store/secrets.py). The setting is a reference, not the secret: a
# scrapyd job is given the path, and reads the file on its own node.
FORAGERS_STORE_PASSWORD_FILE = ""
# Whose clock decides a document's age and an item's found_at: "site" (the response's Date
# header, falling back to the system clock when a response has none) or "system".
FORAGERS_CLOCK = "site"
# Without -a model=..., a forager fits its state encoder on its first N probed pages and
# walks in random order until then.
FORAGERS_BOOTSTRAP_PAGES = 500
# Alg. 2: reuse the stored state of a dated page (an article cannot change) instead of
# downloading it again.
FORAGERS_REUSE_STATES = True
# Stored states per forager, oldest forgotten first: 40,000 hold about 22 MiB (measured:
# benchmarks/bench_memory_caps.py, docs/benchmarks.md "Memory at the caps").
FORAGERS_STATE_CACHE_SIZE = 40_000
# Seconds a step may wait for its page and probes before the missing ones count as failed.
FORAGERS_STEP_TIMEOUT = 60.0
# A start URL that fails this many times in a row leaves the weblog.
FORAGERS_START_FAILURES = 3
# Stop a forager after this many paths (0: never; news monitoring runs until stopped).
FORAGERS_MAX_PATHS = 0
# Seed of the forager's random generator (-1: fresh entropy every run).
FORAGERS_SEED = -1
# Put the page's visible text in output items (field "text").
FORAGERS_ITEM_TEXT = True
# The log level of the libraries a forager reads pages with (newsforagers/logs.py,
# LIBRARY_LOGGERS). At Scrapy's default LOG_LEVEL (DEBUG), a 40 s colony crawl of the
# digital.gov replay that output 271 documents logged 1,727 DEBUG lines of trafilatura's and 542
# of htmldate's (8.4 a document), against Scrapy's own 812: 57% of its log. "DEBUG" brings them
# back (docs/settings.md).
FORAGERS_LIBRARY_LOG_LEVEL = "INFO"
# Only documents in these languages (ISO 639-1 codes, comma separated: "en,es") are paid and
# output; "" : any language (the i-Bot paper's language filter, docs/pages.md).
FORAGERS_LANGUAGES = ""
# Bounded work per page (docs/pages.md, "Bounded work"). The distinct hrefs read from
# one page (0: all): the replay of digital.gov's 2,412 posts renders no page with more than 399
# links, and a large real news front carries a few hundred (not measured here: no network),
# so 5,000 leaves every real page whole, while a page of 200,000 links reads in 0.7 s instead
# of 7.3 s and its listing's claims in 0.08 s instead of 8 s (docs/benchmarks.md, "Bounded
# work per page").
FORAGERS_MAX_LINKS = 5_000
# Worker processes that read paid documents as structured documents (trafilatura's main text
# and metadata, docs/pages.md), beside the crawl's thread; 0: in the crawl's thread. The
# reading is about a quarter of a busy crawl thread's work (measured: docs/benchmarks.md,
# "Documents read in a worker process"): one worker keeps up with a crawl thread at its full
# core, and a page that takes long to read (or a worker that dies) delays only its document.
FORAGERS_DOCUMENT_WORKERS = 1
# Characters of a page's visible text (and title) handed to the state encoder, cut at a word
# (0: all). The longest digital.gov post has 64,949 characters of body (the replay's longest
# page text 54,753), a long-form story of 10,000 words about 60,000; a bag of words learns
# nothing more from a page's second 100,000 characters than from its first.
FORAGERS_MAX_TEXT = 100_000

# The colony (one process).
# Population control: "score" (Alg. 8: split at FORAGERS_SPLIT_SCORE, retire at
# FORAGERS_RETIRE_SCORE, between FORAGERS_MIN and FORAGERS_MAX) or "energy" (Mouton & Marteau,
# between FORAGERS_ENERGY_LB and FORAGERS_ENERGY_UB).
FORAGERS_POPULATION = "score"
# One budget per host for the whole colony: requests per second (0: no rate limit) and
# requests in flight (0: no limit). Scrapy's DOWNLOAD_DELAY, CONCURRENT_REQUESTS*,
# DOWNLOAD_SLOTS and AutoThrottle are folded in (colony/throttle.py: Politeness), so they bind
# the colony as a whole too.
FORAGERS_HOST_RATE = 0.0
FORAGERS_HOST_CONCURRENCY = 8
# A 429 or 503 with Retry-After pauses the colony's budget for that host; a site asking for
# hours (or a broken header: "Retry-After: 999999") is paused this many seconds at most, after
# which the next request asks again (and is paused again if the site still says so): two
# minutes keep a news monitor useful on a host that is merely busy, and other hosts never wait.
FORAGERS_RETRY_AFTER_MAX = 120.0
# A host that cannot be reached (connection refused or timed out) is sent nothing for 1 s, then
# 2, 4, ... while it stays down, at most this many wall seconds (0: no back-off), so a site that
# is down for an hour costs a request a minute, not a share of every turn. Its first answer
# ends the series. Not measured on a corpus: a bound on what a down host may cost.
FORAGERS_HOST_BACKOFF_MAX = 60.0
# After CLOSESPIDER_TIMEOUT, a signal or a retirement: requests waiting for the colony's budget
# leave at once, and downloads still in flight this many seconds later are cancelled (a
# response that stalls after its headers would hold the close for DOWNLOAD_TIMEOUT).
FORAGERS_CLOSE_GRACE = 15.0
# Foragers probing the same page within this many seconds share one download (0: never).
# Seconds of the wall clock: against a replay running S times faster, divide by S.
FORAGERS_FETCH_TTL = 10.0
FORAGERS_FETCH_CACHE_SIZE = 5_000
# Where the colony's record goes: the run directory ("" : JOBDIR when set, else
# .newsforagers/runs/<time>-<pid>), the events log ("" : RUN_DIR/events.jsonl) and the
# seconds between snapshots of every forager (0: only at the end).
FORAGERS_RUN_DIR = ""
FORAGERS_EVENTS = ""
FORAGERS_SNAPSHOT_INTERVAL = 10.0
# With JOBDIR: seconds between checkpoints of every forager and of the population, written
# atomically so that a crash (even kill -9) resumes from the last one. Checkpoints are also
# written at a path's end, when the population changes and on close (0: only then).
FORAGERS_CHECKPOINT_INTERVAL = 10.0
# Seconds a forager stays a member of the population without renewing its lease in the store
# (renewed every third of it): a forager whose process died is counted out this long after.
FORAGERS_LEASE = 30.0
# What starts the colony's foragers: "inprocess" (each a crawler of the process `scrapy crawl`
# started) or "process" (each a process of its own, sharing nothing with the others but the
# store: FORAGERS_STORE must then be a file or a server, not memory://).
FORAGERS_SPAWNER = "inprocess"
# FORAGERS_SPAWNER=scrapyd: the scrapyd nodes that run the colony's foragers as jobs, comma
# separated (http://[user:password@]host:port), each a split's child going to the least loaded
# node, and the scrapyd project the colony was deployed as ("": the crawl's BOT_NAME).
FORAGERS_SCRAPYD_URLS = ""
FORAGERS_SCRAPYD_PROJECT = ""
# Bounded memory, for runs of weeks (docs/deployment.md, "Bounded memory").
# Per-URL records in the colony store (which forager queued
# a URL): at most this many, the least recently written evicted first (0: no cap). Claims on
# documents (their canonical URL and content fingerprint) expire once the document is older
# than FORAGERS_NOVELTY_WINDOW + FORAGERS_FUTURE_SKEW, when no send of it can be paid anyway
# (False: keep them for ever); the documents stay in the store. The energy policy's page
# buffer and relevance history keep the last this many pages (0: no cap).
FORAGERS_URL_RECORDS_MAX = 200_000
# The scheduled strategy's memories of URLs it fetched, queued, or requested outside listing
# visits: this many each, per forager, oldest first (the store's per-URL records still keep a
# URL from being queued twice in the colony).
FORAGERS_URL_MEMORY_SIZE = 25_000
FORAGERS_EXPIRE_CLAIMS = True
FORAGERS_ENERGY_PAGES_MAX = 100_000

# Strategy: "paper" (the papers' forager, exactly) or "scheduled" (harvest what a
# page lists, run the weblog as a scheduler of listing pages, explore with short TD paths).
FORAGERS_STRATEGY = "scheduled"
# The scheduled strategy's weblog of listing pages: entries kept, and in simulated seconds
# the minimum interval between two visits of one URL, the floor (a listing not visited for
# this long is visited whatever it is expected to hold), what makes a listing due (see
# FORAGERS_SCHEDULE_PRIORITY for its unit), and the visits that showed new links but never a
# novel document after which it is barren.
FORAGERS_SCHEDULE_SIZE = 500
FORAGERS_SCHEDULE_MIN_INTERVAL = 60.0
FORAGERS_SCHEDULE_MAX_INTERVAL = 3 * 3600.0
FORAGERS_SCHEDULE_THRESHOLD = 0.07
FORAGERS_SCHEDULE_BARREN_AFTER = 3
# What makes a listing due and orders the due ones: "return" (rate × time since the last
# visit: novel documents waiting, the threshold in documents) or "lag" (rate × time² / 2:
# document-hours of discovery lag waiting, the threshold in document-hours). "lag" polls a
# listing about √rate times as often, which minimises the mean lag for a given number of polls;
# "return" polls in proportion to the rate (measured: docs/benchmarks.md, *The scheduled strategy*).
FORAGERS_SCHEDULE_PRIORITY = "lag"
# Requests a scheduled forager keeps handed to Scrapy and not yet answered. The colony's host
# budget holds requests back in the downloader, first in, first out: a forager that handed
# over many would commit its next requests minutes (of an accelerated site) before they are
# made, and a story just found would wait behind polls decided earlier. 0: no limit.
FORAGERS_SCHEDULE_IN_FLIGHT = 1
# A request of a scheduled forager whose answer has not come STALL_FACTOR (10) times its
# host's median answer after it left the host budget (2 s at least; a host with 3 answers or
# more) is sent once more, and the first of the two answers is read (a hedged request: Dean &
# Barroso, "The Tail at Scale"): a stalled answer no longer holds a listing, and the stories it
# shows, until DOWNLOAD_TIMEOUT or the answer deadline. One request more per stalled answer.
# Measured on 50 synthetic and 20 digital.gov sites with 2 % of answers stalled for 30 s
# (docs/benchmarks.md, issue 31, "Hedged requests"). False: a stalled answer waits for its
# deadline, then Scrapy's retry.
FORAGERS_SCHEDULE_HEDGE = True
# Share of the host budget (FORAGERS_HOST_RATE) the scheduled strategy may spend on listing
# visits, on each host for that host's listings: when it allows more visits than
# FORAGERS_SCHEDULE_THRESHOLD makes due, the threshold drops until the expected visits use it
# (spare budget goes to the listings that pay instead of idling); the colony's foragers split
# each host's by their listings' Σ√rate on it, one threshold per host for all.
# 0: the threshold alone.
FORAGERS_SCHEDULE_POLL_SHARE = 0.3
# ... but the threshold gets only as many visits as expect this many novel documents each on
# average (the sum of the listings' rates over it, per hour); the rest of the share is *spare*
# and goes, after everything the threshold and the floors make due, to the visited listings
# by their rate or, when larger, one story per floor (a listing that has not paid yet: a quiet
# front, a home page that showed nothing new at night). Measured on 20 digital.gov sections
# (3 repeats), 50 synthetic sites, one digital.gov site, a quiet synthetic site and the
# simulator's 90 fronts (docs/benchmarks.md, issue 31, "Quiet listings").
# 0: no bound.
FORAGERS_SCHEDULE_POLL_YIELD = 0.3
# When the budget is scarce (the host budget leaves fewer requests than the stories and the
# visits the threshold asks for need), the threshold rises until listing visits take what is
# left after fetching the stories, and at least this share of the budget: fewer, fuller visits
# (crawl against recrawl by expected value); a listing that overflowed gets at least
# the rate its dates show. 0 (the default): off. 0.1 wins in the simulator at scarce budgets
# (one forager); in a colony of the replay it cost lag at plentiful ones (docs/benchmarks.md).
FORAGERS_SCHEDULE_SCARCE_FLOOR = 0.0
# Novel documents each listing visit due by the budget's threshold must expect (its floor
# aside), while the budget sets the poll rate: a listing of low rate waits until it does, at
# most rate/this visits an hour, and the visits it cannot take go to the others (water-filling
# of the threshold). For a site where one listing shows every story first (a "latest" page, a
# day archive): the fronts it covers keep their low credited rates and stop taking polls.
# 0: off (measured: docs/benchmarks.md, lag-cost curves, "Round 3").
FORAGERS_SCHEDULE_VISIT_YIELD = 0.0
# What a listing's novelty rate counts: "found" (the novel documents it showed first; the rest
# are another listing's) or "listed" (every novel document it showed that it did not show at
# its previous read, whoever fetched it first: a listing polled less often than another that
# shows the same stories is not undercounted). Measured on 50 synthetic and 20 digital.gov
# sites, 3 repeats each (docs/benchmarks.md, issue 31, "What a listing is credited with"):
# "listed" cut digital.gov's median lag from 48 to 37 minutes but spent 14 % more requests,
# polling a feed and a day archive that list the same stories, and its download efficiency fell
# below adaptive polling's; on the synthetic sites it was level on recall with 5 % more requests.
FORAGERS_SCHEDULE_CREDIT = "found"
# A listing that shows every story of its host makes the host's other listings wait the
# novelty window once two of its visits checked another listing's story with no hole. True: a
# page whose URL names a day (a day archive) is also complete once one of its visits had no
# hole while pages of its URL family (its path with digits as N: /archive/N/N/N/) were proven
# so, during their day, on two other hosts or more, never with a hole: pages of one template
# list alike. Measured on 50 synthetic and 20 digital.gov sites (docs/benchmarks.md, issue 31,
# "A day archive's family, complete on other hosts").
FORAGERS_SCHEDULE_FAMILY_COMPLETE = True
# Daily and weekly rhythms: a listing's rate is its level times the site's
# hour-of-week publication profile, learned from the dates the forager sees, so that it polls
# less at night and more at the peak (docs/algorithms.md, "Rhythms"). False: constant rates.
# Off by default: in the simulator it is ahead at 2-5 requests a minute (4-6 % fewer requests,
# median and p90 lag 4-13 % lower at equal requests) but behind at 1 a minute, where the
# scarce-budget rule reads the peak's rates as more stories than the budget fetches
# (docs/simulator.md, "Daily rhythms").
FORAGERS_SCHEDULE_RHYTHM = False
# The profile's estimator (newsforagers/learning/rhythm.py; not settings): the half-life of its
# evidence in seconds (a site's schedule change is followed in about that long), the prior
# strengths in expected stories of the hour-of-day profile (towards flat) and of the
# hour-of-week one (towards the hour-of-day one), the share of the rate spread flat over the
# week (no hour ever 0), and how often (simulated seconds) the curve is recomputed.
RHYTHM_HALF_LIFE = 14 * 86400.0
RHYTHM_DAY_PRIOR = 4.0
RHYTHM_WEEK_PRIOR = 16.0
RHYTHM_FLOOR = 0.1
RHYTHM_REFRESH = 600.0
# Share of the requests the scheduled strategy spends on exploration paths (in all and on each
# host), their length, and the fruitless steps (no novel document, no new listing) that end one.
FORAGERS_EXPLORE_SHARE = 0.1
FORAGERS_EXPLORE_STEPS = 20
FORAGERS_EXPLORE_PATIENCE = 3
# The scheduled strategy revisits a listing with a conditional request (If-None-Match and
# If-Modified-Since from the URL's record in the store, whichever forager fetched it last):
# a 304 is a visit that showed nothing new, and nothing is read again. False: plain GETs (the
# benchmark's control).
FORAGERS_CONDITIONAL = True
# Every page a forager reads is reported to the colony's URL records (the i-Bot broker: its
# status, validators, language and links; docs/pages.md). A page's report is one store call of
# about 1 ms (memory), 6 ms (SQLite) or 10 ms (Redis) for 400 links: nothing at a polite host
# budget, a third of the pages a second of a colony crawling a loopback site without one
# (docs/benchmarks.md). False: no URL records, and no conditional revisits (their validators
# live there).
FORAGERS_URL_RECORDS = True
# The scheduled strategy reads feeds (RSS, Atom) and sitemaps as listings, and finds them where a
# site announces them: the Sitemap: lines of each seed host's robots.txt, a page's
# <link rel="alternate"> of type RSS or Atom, a sitemap index (docs/pages.md, "Feeds and
# sitemaps"). False: none of it; a feed or sitemap is skipped as not HTML, as before (the
# benchmark's control).
FORAGERS_FEEDS = True

# Scrapy settings the add-on sets (at add-on priority: the project and command line still win).
# Items processed in parallel per response (Scrapy's default: 100); see addon.py.
CONCURRENT_ITEMS = 8
# Bounded work per page (docs/deployment.md, "Limits"): a news page is tens to hundreds of kB;
# Scrapy's 1 GiB maximum let a gzip bomb (1 MB expanding to 10^9 bytes) through, and 10 MiB
# still holds any real page. Scrapy applies it to the decompressed body too.
DOWNLOAD_MAXSIZE = 10 * 1024 * 1024
DOWNLOAD_WARNSIZE = 2 * 1024 * 1024
# Seconds a download may take (Scrapy's 180 held a forager, and the colony's close, for three
# minutes on a response that stalls after its headers); a news page that does not arrive in
# 30 s is better asked for again at the next poll.
DOWNLOAD_TIMEOUT = 30
# A request that failed its retries is the site's failure, counted (retry/max_reached) and
# warned about once by the forager: Scrapy's ERROR line for each is kept for faults of ours.
RETRY_GIVE_UP_LOG_LEVEL = "INFO"
