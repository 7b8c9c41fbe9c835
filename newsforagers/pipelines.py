"""``ReinforcingAgentPipeline``: the colony's reinforcing agent (Alg. 7) as an item pipeline.

Foragers send candidate documents as items marked ``forager_send``. For each one the agent
decides novelty — first sender of a document not seen before, by canonical URL *and* by
content fingerprint, so the same story under two URLs is paid once — and age (at most
``FORAGERS_NOVELTY_WINDOW`` old, not dated ahead of the site's clock), applies the reward,
cost and score rules, tells the sender through the ``reward_received`` signal, and passes a
novel document on as an output item: a structured document (the i-Bot paper's filter), read
from its page by trafilatura and its language told by py3langid (:mod:`newsforagers.pages.document`)
— ``url, title, published, found_at, forager, reward, description, keywords, authors,
site_name, language`` [, ``text`` (the main text), ``html`` (it as clean HTML)], the same
record the store keeps. A send that is not novel is dropped quietly and counted (an
:class:`AgentDrop`, so that a drop by another pipeline before the agent can be told apart).
Items that are not forager sends pass through untouched, so other pipelines and feed exports
work as usual.

Where it sits: at 100 in ``ITEM_PIPELINES`` (the add-on's order). A project's pipelines ordered
after it — Scrapy's template suggests 300 — take each novel document once, as output, and
what they let through is the colony's output (:mod:`newsforagers.extensions.output`); those
ordered before it see every send, candidates included. What it pays: discovery, as the papers
do. A document that a pipeline after it drops was still found first, novel and on time: the
sender keeps its reward (a user's filter is output policy, not the foragers' lesson); a send a
pipeline before it drops is never judged, neither paid nor charged (counted
``newsforagers/agent/unjudged``). What the foragers should learn to seek, the agent judges
itself: ``FORAGERS_LANGUAGES``, a topic.

With ``FORAGERS_LANGUAGES`` (``en,es``) only documents in those languages are paid and output:
one in another language, or whose language cannot be told, is judged as a send that found
nothing new (charged, counted as ``newsforagers/agent/dropped/language``), so that the
foragers learn to value the pages and links that lead to documents in the wanted languages.

As the i-Bot paper's broker does with its bots, the agent pays only registered foragers: a send
from a forager that is no live member of the population in the store (unknown, retired, or its
lease ran out: its process stalled or died) is refused and counted
(``newsforagers/agent/refused/not_member``), neither paid nor charged.

With a topic (``-a topic="words"``, ``FORAGERS_TOPIC``; docs/topics.md) the agent also reads
each new document's relevance ``r ∈ [0, 1]`` to it (:class:`~newsforagers.text.topic.Topic`,
the tf·idf cosine of Mouton & Marteau) and pays by ``FORAGERS_REWARD_MODE``: ``REWARD·r`` to
the first sender of a novel same-day document (``topic+novelty``, the default with a topic)
or of any document (``topic``). Items carry ``relevance``; only documents at least
``FORAGERS_TOPIC_MIN_RELEVANCE`` relevant are output (the others are paid their ``r``,
claimed, and dropped as ``newsforagers/agent/dropped/off_topic``).

With ``FORAGERS_EXPIRE_CLAIMS``, once per simulated hour of sends the agent forgets the claims
of documents older than the novelty window (stat ``newsforagers/store/claims_expired``): a
send of such a document is out of the window, so forgetting changes no decision.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import replace
from datetime import datetime

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from newsforagers import signals as forager_signals
from newsforagers.config import ForagersConfig
from newsforagers.context import ForagerContext, context_of
from newsforagers.learning.reward import in_window, judge_send, judge_topical_send
from newsforagers.logs import tag_forager_logs
from newsforagers.pages.document import StructuredDocument, detect_language, structured_document
from newsforagers.pages.workers import DocumentTimeout, DocumentWorkers
from newsforagers.store import DocumentRecord, open_store
from newsforagers.terminal import printable
from newsforagers.topics import build_topic, learning_topic, topic_state_key, topic_text

logger = logging.getLogger(__name__)

EXPIRE_EVERY = 3600.0  # seconds of the sends' clock between two expiries of old claims
TOPIC_SYNC_EVERY = 10  # documents judged for the topic between two looks at the colony's topic state
TOPIC_REFIT_GROWTH = 1.25  # the colony's documents grow by this factor between two fits


def _told(adapter: ItemAdapter) -> str | None:
    """The language the forager told from the page's visible text (``forager_language``: once a
    page, py3langid walks its sample in Python), or None where it could not (told again from the
    main text)."""
    told = adapter.get("forager_language")
    return told if isinstance(told, str) and told else None


class _Send:
    """A forager's send under judgement: its item, what was read of it, and its claim keys
    (None: out of the novelty window; ``fresh``: none of them claimed when it came)."""

    __slots__ = ("adapter", "url", "forager", "published", "found_at", "age", "keys", "fresh")

    def __init__(self, adapter: ItemAdapter, url: str, forager: str, published: datetime,
                 found_at: datetime, age: float):
        self.adapter, self.url, self.forager = adapter, url, forager
        self.published, self.found_at, self.age = published, found_at, age
        self.keys: list[str] | None = None
        self.fresh = False


class AgentDrop(DropItem):
    """A send the reinforcing agent saw and does not output (not novel, malformed, off topic,
    from no member...): unlike a drop by a pipeline before it, the send was judged."""

    by_agent = True


class ReinforcingAgentPipeline:
    def __init__(self, crawler, config: ForagersConfig, store=None, context: ForagerContext | None = None):
        self.crawler = crawler
        self.config = config
        self.rules = config.reward_rules()
        self.languages = frozenset(config.language_codes)
        self.store = store
        self.context = context
        self._owns_store = store is None
        self._expired_at: float | None = None  # the sends' clock at the last expiry
        self.mode = config.paid_for
        self.topic = None  # the topic's relevance model, built at open (it may read a corpus)
        self.learning = None  # ... and what it learns from the documents read (LearningTopic)
        self._topic_key = ""  # the colony's topic state in the store
        self._topic_seen = 0  # the store's documents this agent has read into its pool
        self._topic_fitted_on = 0  # the store's documents the topic state in effect was fitted on
        self._topic_judged = 0
        self._topic_next_sync = 0
        self._topic_fitting: asyncio.Future | None = None  # a fit on another thread, until done
        self._closed = False
        self._workers: DocumentWorkers | None = None  # an agent's own, without a colony
        self._warned: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler):
        # Built with the crawler's engine, just after Scrapy installed its log handler again for
        # this crawler and before the engine logs "Spider opened": the earliest moment this
        # forager's lines can be tagged (newsforagers.logs)
        tag_forager_logs()
        context = context_of(crawler)
        config = context.config if context is not None else ForagersConfig.from_settings(crawler.settings)
        return cls(crawler, config, context=context)

    def open_spider(self, spider=None) -> None:
        # (after the scheduler opened: a forager's context holds its colony by now)
        colony = self.context.colony if self.context is not None else None
        if self.store is None and colony is not None:
            self.store, self._owns_store = colony.store, False  # the colony's, closed by it
        if self.store is None:
            self.store = open_store(self.config.store, self.config.url_records_max,
                                    prefix=self.config.redis_prefix, retry=self.config.store_retry,
                                    password_file=self.config.store_password_file)
        if self.config.topic.strip() and self.topic is None:
            # the forager's own (its spider's -a topic, through the context), else one of the settings
            topic = self.context.topic if self.context is not None else None
            self.topic = topic or build_topic(self.config, None)
        if self.topic is not None and self.learning is None:
            # the topic's text (a topic file's contents, not its path), read once: its examples,
            # and the key of its state: a file edited between two runs is another topic, and
            # what was learned of the old one is not taken back
            text = topic_text(self.config.topic)
            self.learning = learning_topic(self.config, self.topic, text)
            self._topic_key = topic_state_key(text)
            self._sync_topic(opening=True)  # what the colony learned of this topic before (a resumed crawl)
            if not self._topic_fitted_on and self.learning.threshold.reason == "examples":
                # nothing learned yet, and the user's examples set the threshold: said at once,
                # since it is in force from the first document on
                self._explain(self.learning.state(), first=self._is_root())
        forager = self.context.name if self.context is not None else None
        if forager is not None and self.store.get_score(forager) is None:
            self.store.set_score(forager, self.rules.score_init)

    def close_spider(self, spider=None) -> None:
        self._closed = True  # (a fit still on its way is not offered)
        if self._workers is not None:
            self._workers.close()
        if self._owns_store and self.store is not None:
            self.store.close()
            self.store = None

    def process_item(self, item, spider=None):
        """The send judged (Alg. 7). A send that may be novel has its page read as a structured
        document first: by the colony's document workers when it has them (``FORAGERS_DOCUMENT_WORKERS``,
        :mod:`newsforagers.pages.workers`), the judgement then a coroutine Scrapy awaits while
        the crawl goes on; else here."""
        adapter = ItemAdapter(item)
        if not adapter.get("forager_send"):
            return item
        stats = self.crawler.stats
        try:
            published = datetime.fromisoformat(adapter["published"])
            found_at = datetime.fromisoformat(adapter["found_at"])
            age = (found_at - published).total_seconds()
            forager = adapter["forager"]
            url = adapter["url"]
        except (KeyError, TypeError, ValueError) as exc:
            stats.inc_value("newsforagers/agent/bad_send")
            raise AgentDrop(f"malformed forager send: {exc}", log_level="WARNING") from None

        if self.context is not None and self.context.colony is not None \
                and not self.store.is_member(forager, time.time()):
            stats.inc_value("newsforagers/agent/refused/not_member")
            raise AgentDrop(f"send from {forager}, no live member of the population (unknown, "
                           f"retired, or its lease ran out): {url}", log_level="WARNING")
        send = _Send(adapter, url, forager, published, found_at, age)
        # (the topic mode pays a document of any age once, from the moment it was found)
        if in_window(self.rules, age) or (self.mode == "topic" and age >= -self.rules.future_skew):
            send.keys = [f"url:{adapter.get('canonical_url') or url}"]
            if adapter.get("fingerprint"):
                send.keys.append(f"fp:{adapter['fingerprint']}")
            # a document read only when it may be novel (reading costs a few milliseconds)
            send.fresh = not any(self.store.is_claimed(key) for key in send.keys)
        html = adapter.get("forager_html") or ""
        if not send.fresh:
            return self._judge(send, None)
        workers = self._document_workers()
        if workers is None or not html:
            return self._judge(send, self._document(adapter, url))
        return self._judge_read_by(workers, send, html)

    async def _judge_read_by(self, workers: DocumentWorkers, send: _Send, html: str):
        """:meth:`_judge` once a worker has read the send's page; one that no worker could take
        (the workers stopped) is read here, one not read in time goes without its structured fields."""
        try:
            document = await workers.read(html, send.url, self.config.max_text, _told(send.adapter))
        except DocumentTimeout as exc:
            self._trouble("documents/worker_timeout", "%s: the document is output without its "
                          "structured fields", exc)
            document = StructuredDocument()
        if document is None:
            self.crawler.stats.inc_value("newsforagers/documents/read_here")
            document = self._document(send.adapter, send.url)
        else:
            self.crawler.stats.inc_value("newsforagers/documents/read_by_worker")
        return self._judge(send, document)

    def _document_workers(self) -> DocumentWorkers | None:
        """The colony's document workers, or this agent's own (an agent without a colony), when
        there are any and the agent runs on an asyncio loop (a Scrapy crawl's); else None."""
        if self.config.document_workers < 1:
            return None
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # called outside a running loop (a test, a non-asyncio reactor)
            return None
        colony = self.context.colony if self.context is not None else None
        if colony is not None:
            return getattr(colony, "documents", None)
        if self._workers is None:
            self._workers = DocumentWorkers(self.config.document_workers,
                                            library_log_level=self.config.library_log_level)
        return None if self._workers.closed else self._workers

    def _trouble(self, kind: str, message: str, *args) -> None:
        """Count ``newsforagers/KIND``; a warning the first time, then DEBUG."""
        self.crawler.stats.inc_value(f"newsforagers/{kind}")
        colony = self.context.colony if self.context is not None else None
        warned = getattr(colony, "warned", self._warned)  # (once a colony, as the spider's)
        if kind in warned:
            logger.debug(message, *args)
            return
        warned.add(kind)
        logger.warning(message + " (logged once; counted in newsforagers/%s)", *args, kind)

    def _judge(self, send: _Send, document: StructuredDocument | None):
        """The send judged, its page read (``document``: None for a send that cannot be novel):
        paid or charged, the sender told, the output item returned or the send dropped."""
        adapter, url, forager, found_at, age = send.adapter, send.url, send.forager, send.found_at, send.age
        stats = self.crawler.stats
        claimed = False
        reason = "out_of_window" if send.keys is None else "not_novel"
        record = None
        relevance = None
        topical = self.topic is not None
        if document is not None:
            record, text = self._record(adapter, url, forager, document)
            if self.languages and record.language not in self.languages:
                reason = "language"
            else:
                if topical:
                    self._topic_judged += 1
                    if self._topic_judged >= self._topic_next_sync:
                        self._sync_topic()
                    relevance = round(self._relevance(f"{record.title}\n{text}"), 6)
                    # kept with the document: the colony's feed and exports read it there
                    paid = self.rules.reward * (relevance if self.mode != "novelty" else 1.0)
                    record = replace(record, reward=paid, relevance=relevance)
                at = found_at if self.mode == "topic" else send.published
                claimed = self.store.claim(send.keys, record, at.timestamp())
        self._expire(found_at.timestamp())
        if topical:
            outcome = judge_topical_send(self.rules, claimed, age, relevance or 0.0, self.mode)
        else:
            outcome = judge_send(self.rules, claimed, age)
        if self.store.get_score(forager) is None:
            self.store.set_score(forager, self.rules.score_init)
        score = self.store.add_score(forager, outcome.score_delta)
        stats.inc_value("newsforagers/agent/sent")
        stats.set_value("newsforagers/score", score)
        self.crawler.signals.send_catch_log(
            forager_signals.reward_received, forager=forager, url=url,
            origin=adapter.get("forager_origin"),
            profit=outcome.profit, rewarded=outcome.rewarded, score=score, relevance=relevance,
            on_topic=None if relevance is None else relevance >= self._threshold(),
        )
        if not outcome.rewarded:
            stats.inc_value(f"newsforagers/agent/dropped/{reason}")
            raise AgentDrop(f"{reason.replace('_', ' ')}: {url}", log_level="DEBUG")
        stats.inc_value("newsforagers/agent/rewarded")
        if record.language:
            stats.inc_value(f"newsforagers/agent/language/{record.language}")
        output = record.item(self.config.item_text)
        if topical:
            if relevance < self._threshold():
                stats.inc_value("newsforagers/agent/dropped/off_topic")
                raise AgentDrop(f"off topic (relevance {relevance:.3f} < {self._threshold():.3f}, "
                               f"the threshold {self._threshold_reason()}): {url}", log_level="DEBUG")
            stats.inc_value("newsforagers/agent/on_topic")
            logger.info("novel: %s (%s, relevance %.3f) found by %s", printable(url),
                        printable(output["title"]), relevance, printable(forager))
            return output
        # (a page's title and URL, without what a terminal would obey: newsforagers.terminal)
        logger.info("novel: %s (%s) found by %s", printable(url), printable(output["title"]),
                    printable(forager))
        return output

    def _relevance(self, text: str) -> float:
        """The document's relevance to the topic: its title and main text (the page's text
        when trafilatura found none), to the topic's query as the colony last learned it."""
        self.topic.observe(text)  # (online idf only: a corpus's or encoder's is fixed)
        return self.learning.relevance(text)

    def _threshold(self) -> float:
        return self.learning.threshold.value

    def _threshold_reason(self) -> str:
        reason = self.learning.threshold.reason
        return {"mixture": "where the scores of the documents read part into the topic's and the rest",
                "examples": "where the topic's examples part, the scores of the documents read showing no mode yet",
                "fixed": "FORAGERS_TOPIC_MIN_RELEVANCE"}.get(
                    reason, "FORAGERS_TOPIC_MIN_RELEVANCE: the scores show no mode of the topic's yet")

    def _sync_topic(self, opening: bool = False) -> None:
        """Take the colony's topic state from the store when it was fitted on more documents
        than the one in effect here; fit it again when the colony's documents grew by
        ``TOPIC_REFIT_GROWTH`` since, reading the new ones into the pool, and offer the result
        to the store (the first offer for a state wins; the others take it). One topic state
        for the colony, whichever forager or process read the documents, saved with the
        colony's other state (docs/topics.md, "What the colony learns").

        The agent that fitted the state in the store fits the next one (one pool of documents
        in the colony, not one an agent); any other does when that one has not for twice the
        growth (it retired, or its process ended)."""
        self._topic_next_sync = self._topic_judged + TOPIC_SYNC_EVERY
        if self._topic_fitting is not None:
            return  # a fit on its way (:meth:`_fit`): the state is looked at again once it is done
        stats = self.crawler.stats
        stored = self.store.get_value(self._topic_key)
        self._adopt(stored, opening)
        if self.config.topic_feedback == "off" and self.config.topic_threshold == "fixed":
            return  # the papers' relevance: nothing to learn
        count = self.store.document_count()
        due = max(self.learning.min_documents, math.ceil(self._topic_fitted_on * TOPIC_REFIT_GROWTH))
        if stored and stored.get("by") != self._agent_name():
            due = max(due, math.ceil(self._topic_fitted_on * TOPIC_REFIT_GROWTH ** 2))
        if count < due:
            return
        # (only the newest the pool keeps are read)
        waited = time.perf_counter()
        start = max(self._topic_seen, count - self.learning.pool_size)
        texts = [f"{record.title}\n{record.text or record.description}"
                 for record in self.store.documents_after(start)]
        self._topic_seen = max(start, count)
        try:
            loop = None if opening else asyncio.get_running_loop()
        except RuntimeError:  # outside a running loop (a test, a non-asyncio reactor): fitted here
            loop = None
        if loop is None:
            self._fitted(self._fit(texts), stored, count)
        else:
            # fitted on a thread of the loop's executor: a fit takes 10-90 ms of CPU (more with a
            # large pool), which on this thread would stall every forager of the process, and
            # at a benchmark's speed 600 each of those ms is 0.6 simulated s of every request
            # in flight; the crawl goes on judging with the state in effect until it is done
            self._topic_fitting = loop.run_in_executor(None, self._fit, texts)
            self._topic_fitting.add_done_callback(lambda done: self._fit_done(done, stored, count))
        # the longest the thread that judges the sends (the reactor's) waited for a fit: the
        # store's reads, and the fit itself when it is done here
        stats.max_value("newsforagers/topic/fit_wait_max", round(time.perf_counter() - waited, 6))

    def _fit(self, texts: list[str]) -> float:
        """``texts`` read into the pool and the topic fitted again (:meth:`LearningTopic.refit`):
        the CPU seconds it took. Only one fit at a time touches the pool; while it runs on
        another thread, the crawl's thread only reads the query and threshold in effect, each
        replaced whole at the fit's end."""
        began = time.thread_time()
        for text in texts:
            self.learning.add(text)
        self.learning.refit()
        return time.thread_time() - began

    def _fit_done(self, done: asyncio.Future, stored, count: int) -> None:
        self._topic_fitting = None
        if self._closed or done.cancelled():
            return  # the agent closed meanwhile (its store too): the fit is not offered
        if done.exception() is not None:
            self._trouble("topic/fit_failed", "the topic's fit failed (%r): the state in effect "
                          "stays, fitted again when the documents grow", done.exception())
            return
        self._fitted(done.result(), stored, count)

    def _fitted(self, seconds: float, stored, count: int) -> None:
        """A fit done: its CPU in the stats, its state offered to the store (the first offer
        for a state wins; the others take it)."""
        stats = self.crawler.stats
        stats.inc_value("newsforagers/topic/fit_seconds", round(seconds, 6))
        state = {**self.learning.state(), "documents": count, "by": self._agent_name()}
        if self.store.swap_value(self._topic_key, stored, state):
            self._topic_fitted_on = count
            stats.inc_value("newsforagers/topic/fits")
            self._explain(state, first=not stored)  # (the colony's first fit)
        else:  # another forager offered its fit first: the colony's is that one
            self._adopt(self.store.get_value(self._topic_key))

    def _agent_name(self) -> str:
        return self.context.name if self.context is not None else f"agent-{id(self):x}"

    def _adopt(self, stored, opening: bool = False) -> None:
        """Take ``stored`` (the colony's topic state) when it was fitted on more documents than
        the one in effect here. A state of the wrong shape (written by hand, or by another
        version) is counted, logged and left to be replaced by the next fit, which is due."""
        if not stored:
            return
        try:
            documents = int(stored.get("documents", 0) or 0)
        except (AttributeError, TypeError, ValueError):
            documents = None
        if documents is not None and documents <= self._topic_fitted_on:
            return
        try:
            if documents is None:
                raise ValueError(f"documents = {stored.get('documents') if isinstance(stored, dict) else stored!r}")
            self.learning.load_state(stored)
        except ValueError as exc:
            self.crawler.stats.inc_value("newsforagers/topic/bad_state")
            logger.warning("the colony's topic state in the store is not usable (%s): fitting "
                           "it again", printable(str(exc)[:200]))
            return
        self._topic_fitted_on = documents
        self._explain(stored, first=opening and self._is_root())

    def _is_root(self) -> bool:
        return self.context is None or self.context.is_root

    def _explain(self, state: dict, first: bool) -> None:
        """The topic state in effect, in the stats; in the log once a colony at INFO (its
        first fit, or the state a resumed crawl's root takes back; and at its start, the
        threshold the user's examples set), else at DEBUG."""
        stats = self.crawler.stats
        stats.set_value("newsforagers/topic/threshold", round(self._threshold(), 6))
        stats.set_value("newsforagers/topic/judged", int(state.get("judged", 0)))
        stats.set_value("newsforagers/topic/kept", int(state.get("kept", 0)))
        query = self.learning.query or self.topic.query_weights()
        words = ", ".join(term for term, _ in sorted(query.items(), key=lambda kv: -kv[1])[:8])
        logger.log(logging.INFO if first else logging.DEBUG,
                   "topic: keeping documents with relevance >= %.3f (%s): %d of %d so far; "
                   "the query's first words now: %s", self._threshold(), self._threshold_reason(),
                   int(state.get("kept", 0)), int(state.get("judged", 0)), printable(words))
        if state.get("forms"):  # (a name's words in the other forms the documents use)
            logger.log(logging.INFO if first else logging.DEBUG, "topic: counted as the name's words: %s",
                       printable(", ".join(f"{form} ({word})" for form, word in sorted(state["forms"].items()))[:300]))
        if state.get("mode"):  # (what the fit saw of the learned query's scores, taken or not)
            logger.debug("topic: the learned query's mode, %s", printable(str(state["mode"])[:300]))

    def _document(self, adapter: ItemAdapter, url: str) -> StructuredDocument:
        """The send's page read as a structured document, here (in the crawl's thread)."""
        html = adapter.get("forager_html") or ""
        return structured_document(html, url, self.config.max_text, _told(adapter)) if html else StructuredDocument()

    def _record(self, adapter: ItemAdapter, url: str, forager: str,
                document: StructuredDocument) -> tuple[DocumentRecord, str]:
        """The send as the structured document the colony keeps and outputs: the page read by
        trafilatura (its main text replaces the forager's reading of the page's text; the title
        stays the forager's, which knows a site's title suffixes), its language."""
        told = _told(adapter)
        text = document.text or str(adapter.get("text") or "")
        with_text = self.config.item_text
        return DocumentRecord(
            url, adapter.get("title") or document.title, adapter["published"], adapter["found_at"],
            forager, self.rules.reward, text if with_text else "", description=document.description,
            keywords=document.keywords, authors=document.authors, site_name=document.site_name,
            html=document.html if with_text else "",
            language=document.language or told or detect_language(f"{adapter.get('title') or ''}\n{text}")), text

    def _expire(self, now: float) -> None:
        if not self.config.expire_claims:
            return
        if self._expired_at is None or not 0 <= now - self._expired_at < EXPIRE_EVERY:
            self._expired_at = now
            before = now - self.rules.novelty_window - self.rules.future_skew
            expired = self.store.expire_claims(before)
            if expired:
                self.crawler.stats.inc_value("newsforagers/store/claims_expired", expired)

