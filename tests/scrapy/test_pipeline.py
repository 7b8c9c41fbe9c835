"""The reinforcing-agent pipeline, built the way Scrapy builds it."""

from types import SimpleNamespace

import numpy as np
import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from newsforagers import signals as forager_signals
from newsforagers.pipelines import ReinforcingAgentPipeline
from newsforagers.store import DocumentRecord


def send(url, forager="f1", published="2024-01-01T10:00:00+00:00", found_at="2024-01-01T11:00:00+00:00",
         fingerprint=None, origin=(1, 0)):
    return {"forager_send": True, "url": url, "canonical_url": url, "title": f"title of {url}",
            "published": published, "found_at": found_at, "forager": forager,
            "fingerprint": fingerprint or f"fp-{url}", "forager_origin": origin,
            "text": "body"}


@pytest.fixture
def agent():
    crawler = get_crawler(Spider, {"FORAGERS_STORE": "memory://"})
    crawler.spider = crawler._create_spider("forager")
    crawler.spider.forager_id = "f1"
    pipeline = ReinforcingAgentPipeline.from_crawler(crawler)
    pipeline.open_spider()
    received = []

    def on_reward(**kwargs):
        received.append(kwargs)

    crawler.signals.connect(on_reward, signal=forager_signals.reward_received, weak=False)
    pipeline.received = received
    yield pipeline
    pipeline.close_spider()


def process(pipeline, item):
    try:
        return pipeline.process_item(item)
    except DropItem:
        return None


def test_worked_example_profit_98_reaches_the_sender(agent):
    agent.store.claim(["url:http://e/"], DocumentRecord("http://e/", "E", "", "", "f0", 100))
    assert process(agent, send("http://e/")) is None  # E: already seen
    out = process(agent, send("http://f/"))          # F: novel
    # (a send without its page: no structured fields, the forager's text, no language to tell)
    assert out == {"url": "http://f/", "title": "title of http://f/",
                   "published": "2024-01-01T10:00:00+00:00", "found_at": "2024-01-01T11:00:00+00:00",
                   "forager": "f1", "reward": 100.0, "text": "body", "description": "",
                   "keywords": [], "authors": [], "site_name": "", "language": "", "html": ""}
    assert sum(r["profit"] for r in agent.received) == 98
    assert [r["rewarded"] for r in agent.received] == [False, True]
    assert agent.store.get_score("f1") == pytest.approx(100 - 0.05 - 0.05 + 1)
    stats = agent.crawler.stats
    assert stats.get_value("newsforagers/agent/rewarded") == 1
    assert stats.get_value("newsforagers/agent/dropped/not_novel") == 1


def test_the_same_story_under_two_urls_is_paid_once(agent):
    assert process(agent, send("http://a/story", fingerprint="same")) is not None
    assert process(agent, send("http://b/copy-of-story", forager="f2", fingerprint="same")) is None
    assert agent.received[-1]["forager"] == "f2" and agent.received[-1]["profit"] == -1


def test_old_and_future_documents_are_not_rewarded_or_remembered(agent):
    old = send("http://old/", published="2023-12-31T10:00:00+00:00")  # 25 h before found_at
    assert process(agent, old) is None
    assert not agent.store.is_claimed("url:http://old/")
    ahead = send("http://ahead/", published="2024-01-01T12:00:00+00:00")  # an hour ahead
    assert process(agent, ahead) is None
    assert agent.crawler.stats.get_value("newsforagers/agent/dropped/out_of_window") == 2


def test_other_items_pass_untouched_and_malformed_sends_are_counted(agent):
    item = {"name": "not a forager send"}
    assert agent.process_item(item) is item
    bad = send("http://x/")
    bad["published"] = "yesterday"
    assert process(agent, bad) is None
    assert agent.crawler.stats.get_value("newsforagers/agent/bad_send") == 1
    assert agent.received == []


def test_rewards_carry_where_the_send_was_made(agent):
    process(agent, send("http://n/", origin=(3, 7)))
    (reward,) = agent.received
    assert (reward["forager"], reward["origin"], reward["url"]) == ("f1", (3, 7), "http://n/")


def test_claims_expire_once_their_documents_are_past_the_window(agent):
    assert process(agent, send("http://a/")) is not None  # day 1, 10:00
    assert process(agent, send("http://a/", found_at="2024-01-01T12:00:00+00:00")) is None
    assert agent.store.claim_count() == 2  # its URL and its fingerprint
    # a day and a half later: a.published + 24 h + 5 min skew has passed, its claims go
    late = send("http://b/", published="2024-01-02T22:00:00+00:00", found_at="2024-01-02T23:00:00+00:00")
    assert process(agent, late) is not None
    assert not agent.store.is_claimed("url:http://a/") and agent.store.is_claimed("url:http://b/")
    assert agent.crawler.stats.get_value("newsforagers/store/claims_expired") == 2
    # forgetting changed no decision: a's sends are out of the window now
    again = send("http://a/", found_at="2024-01-02T23:30:00+00:00")
    assert process(agent, again) is None
    assert agent.crawler.stats.get_value("newsforagers/agent/dropped/out_of_window") == 1
    assert [d.url for d in agent.store.documents()] == ["http://a/", "http://b/"]


def test_claims_are_kept_for_ever_when_expiry_is_off():
    crawler = get_crawler(Spider, {"FORAGERS_STORE": "memory://", "FORAGERS_EXPIRE_CLAIMS": False})
    crawler.spider = crawler._create_spider("forager")
    pipeline = ReinforcingAgentPipeline.from_crawler(crawler)
    pipeline.open_spider()
    process(pipeline, send("http://a/"))
    process(pipeline, send("http://b/", published="2024-01-03T22:00:00+00:00", found_at="2024-01-03T23:00:00+00:00"))
    assert pipeline.store.is_claimed("url:http://a/")
    assert crawler.stats.get_value("newsforagers/store/claims_expired") is None
    pipeline.close_spider()


def test_sends_from_foragers_that_are_no_live_members_are_refused(tmp_path):
    """As the i-Bot broker with its bots: in a colony, only registered foragers (live members
    of the population, under a lease) are paid; another's send is refused, neither paid nor
    charged, and counted."""
    import time

    from newsforagers.config import ForagersConfig
    from newsforagers.context import ForagerContext
    from newsforagers.store import MemoryStore

    crawler = get_crawler(Spider, {"FORAGERS_STORE": "memory://"})
    context = ForagerContext(crawler, ForagersConfig.from_settings({}))
    context.name, context.colony = "f1", object()  # a forager of a colony
    store = MemoryStore()
    pipeline = ReinforcingAgentPipeline(crawler, context.config, store=store, context=context)
    pipeline.open_spider()
    now = time.time()
    store.join("f1", now + 60, now)
    store.join("f2", now - 1, now - 61)  # its lease ran out a second ago
    assert process(pipeline, send("http://a/", forager="f1")) is not None
    for forager in ("f2", "ghost"):
        assert process(pipeline, send("http://b/", forager=forager)) is None
    assert not store.is_claimed("url:http://b/") and store.get_score("ghost") is None
    stats = crawler.stats
    assert stats.get_value("newsforagers/agent/refused/not_member") == 2
    assert stats.get_value("newsforagers/agent/sent") == 1
    # once it joins again (its lease renewed), it is paid
    store.join("f2", time.time() + 60, time.time())
    assert process(pipeline, send("http://b/", forager="f2"))["forager"] == "f2"


ARTICLE = """<html lang="{lang}"><head><title>{title}</title>
<meta name="description" content="What happened.">
<meta name="keywords" content="budget, senate"><meta name="author" content="Lois Lane">
<meta property="og:site_name" content="Daily Planet"></head><body>
<nav><a href="/">Home</a> <a href="/world/">World</a></nav>
<article><h1>{title}</h1><p>{body}</p></article>
<aside>More from Daily Planet: <a href="/x">another story</a></aside></body></html>"""
ENGLISH = ("Senators left Washington on Friday without a deal on the budget, after three weeks of "
           "talks that both parties had called their last chance before the holidays.")
SPANISH = ("Los senadores dejaron Washington el viernes sin un acuerdo sobre el presupuesto, después "
           "de tres semanas de conversaciones que ambos partidos llamaron su última oportunidad.")


def page_send(url, body, lang="en", title="Budget talks stall"):
    item = send(url)
    item["forager_html"] = ARTICLE.format(lang=lang, title=title, body=body)
    item["text"] = f"Home World {title} {body} More from Daily Planet: another story"
    return item


def test_a_paid_document_is_stored_and_output_as_a_structured_one(agent):
    out = process(agent, page_send("http://s/a", ENGLISH))
    assert out["description"] == "What happened." and out["keywords"] == ["budget", "senate"]
    assert out["authors"] == ["Lois Lane"] and out["site_name"] == "Daily Planet"
    assert out["language"] == "en" and "forager_html" not in out
    # the main text, without the page's furniture, replaces the forager's reading of the page
    assert out["text"].startswith("Budget talks stall\nSenators left Washington")
    assert "More from" not in out["text"] and "Home" not in out["text"]
    assert out["html"].startswith("<h1>Budget talks stall</h1>")
    (stored,) = agent.store.documents()
    assert stored.item(True) == out
    assert agent.crawler.stats.get_value("newsforagers/agent/language/en") == 1


def test_the_language_the_forager_told_is_the_document_s_and_is_not_told_again(agent, monkeypatch):
    from newsforagers.pages import document

    told = []
    identifier = document._language_identifier()
    monkeypatch.setattr(document, "_language_identifier", lambda: SimpleNamespace(
        classify=lambda sample: told.append(sample) or identifier.classify(sample)))
    item = page_send("http://s/told", ENGLISH)
    item["forager_language"] = "en"
    assert process(agent, item)["language"] == "en" and told == []
    # a page whose visible text the forager could not tell: told from its main text
    item = page_send("http://s/untold", SPANISH, lang="es", title="Sin acuerdo")
    item["forager_language"] = ""
    assert process(agent, item)["language"] == "es" and len(told) == 1 and "senadores" in told[0]


def test_only_documents_in_the_wanted_languages_are_paid():
    crawler = get_crawler(Spider, {"FORAGERS_STORE": "memory://", "FORAGERS_LANGUAGES": "es, ES"})
    pipeline = ReinforcingAgentPipeline.from_crawler(crawler)
    pipeline.open_spider()
    received = []
    crawler.signals.connect(lambda **kw: received.append(kw), signal=forager_signals.reward_received,
                            weak=False)
    assert process(pipeline, page_send("http://s/en", ENGLISH)) is None
    spanish = process(pipeline, page_send("http://s/es", SPANISH, lang="es", title="Sin acuerdo"))
    assert spanish["language"] == "es"
    # the English one was judged a send that found nothing new: charged, not paid, counted
    assert [r["rewarded"] for r in received] == [False, True]
    assert crawler.stats.get_value("newsforagers/agent/dropped/language") == 1
    assert [d.url for d in pipeline.store.documents()] == ["http://s/es"]
    pipeline.close_spider()


def test_a_bad_languages_setting_is_refused():
    from newsforagers.config import ForagersConfig
    from newsforagers.errors import ForagersUsageError

    with pytest.raises(ForagersUsageError, match="FORAGERS_LANGUAGES"):
        ForagersConfig.from_settings({"FORAGERS_LANGUAGES": "english"})
    assert ForagersConfig.from_settings({"FORAGERS_LANGUAGES": " en, ES,,en"}).language_codes == ("en", "es")


# -- the topical mode (issue 20) -------------------------------------------------------------

def topical_agent(tmp_path, texts=("solar panels on every roof", "the council budget vote",
                                     "wind and solar farms", "a budget for the library"),
                  store="memory://", topic="solar energy", **settings):
    """A reinforcing agent with a topic, its idf from a corpus of ``texts`` (their titles)."""
    import gzip
    import json

    corpus = tmp_path / "idf.jsonl.gz"
    with gzip.open(corpus, "wt") as handle:
        for i, text in enumerate(texts):
            handle.write(json.dumps({"url": f"https://c/{i}", "title": text,
                                     "published": "2024-01-01T00:00:00+00:00"}) + "\n")
    crawler = get_crawler(Spider, {"FORAGERS_STORE": store, "FORAGERS_TOPIC": topic,
                                   "FORAGERS_TOPIC_CORPUS": str(corpus), **settings})
    crawler.spider = crawler._create_spider("forager")
    pipeline = ReinforcingAgentPipeline.from_crawler(crawler)
    pipeline.open_spider()
    received = []
    crawler.signals.connect(lambda **kwargs: received.append(kwargs),
                            signal=forager_signals.reward_received, weak=False)
    pipeline.received = received
    return pipeline


def topical_send(url, text, **kwargs):
    item = send(url, **kwargs)
    item.update(title="", text=text)
    return item


def test_a_topic_pays_reward_times_relevance_and_outputs_only_relevant_documents(tmp_path):
    from newsforagers.text.topic import Topic

    agent = topical_agent(tmp_path)
    assert agent.mode == "topic+novelty" and agent.topic.idf_source == "corpus"
    on = process(agent, topical_send("http://on/", "solar roofs and solar farms"))
    r = agent.topic.relevance("\nsolar roofs and solar farms")
    assert 0.05 < r < 1
    assert on["relevance"] == round(r, 6) and on["reward"] == pytest.approx(100 * round(r, 6))
    assert agent.received[-1]["profit"] == pytest.approx(100 * round(r, 6) - 1)
    assert agent.received[-1]["relevance"] == round(r, 6)
    # a document without a word of the topic: claimed and charged, never output
    assert process(agent, topical_send("http://off/", "the council budget vote")) is None
    assert agent.received[-1]["rewarded"] and agent.received[-1]["profit"] == -1.0
    assert agent.store.is_claimed("url:http://off/")
    stats = agent.crawler.stats
    assert stats.get_value("newsforagers/agent/dropped/off_topic") == 1
    assert stats.get_value("newsforagers/agent/on_topic") == 1
    # the same idf as the user's corpus gives, computed apart
    texts = ["solar panels on every roof", "the council budget vote", "wind and solar farms",
             "a budget for the library"]
    assert Topic("solar energy", corpus=texts).relevance("\nsolar roofs and solar farms") == pytest.approx(r)
    agent.close_spider()


def test_the_topic_mode_pays_an_old_document_once(tmp_path):
    agent = topical_agent(tmp_path, FORAGERS_REWARD_MODE="topic", FORAGERS_TOPIC_MIN_RELEVANCE=0.0)
    old = topical_send("http://old/", "solar", published="2023-06-01T10:00:00+00:00")
    assert process(agent, old)["relevance"] > 0
    assert process(agent, dict(old, forager="f2")) is None  # paid once
    assert [r["rewarded"] for r in agent.received] == [True, False]
    agent.close_spider()


def test_a_topic_from_a_file_that_cannot_be_read_is_one_usage_error(tmp_path):
    from newsforagers.errors import ForagersUsageError

    with pytest.raises(ForagersUsageError, match="cannot read"):
        topical_agent(tmp_path, FORAGERS_TOPIC=f"@{tmp_path}/missing.txt")


def test_a_topic_with_the_papers_reward_filters_and_labels_the_output_only(tmp_path):
    agent = topical_agent(tmp_path, FORAGERS_REWARD_MODE="novelty")
    on = process(agent, topical_send("http://on/", "solar roofs and solar farms"))
    assert on["reward"] == 100.0 and on["relevance"] > 0.07  # the papers' REWARD, labelled
    assert agent.received[-1]["profit"] == 99.0  # REWARD less the send's cost
    assert process(agent, topical_send("http://off/", "the council budget vote")) is None
    assert agent.received[-1]["profit"] == 99.0  # novel: paid as the papers pay, not output
    assert agent.crawler.stats.get_value("newsforagers/agent/dropped/off_topic") == 1
    agent.close_spider()


def test_the_novel_line_carries_no_terminal_escape_of_the_page(agent, caplog):
    # issue 29, row 9: a title read from a page, its escapes and bidi controls as written
    from datetime import UTC, datetime

    from newsforagers.pages import read_page
    from newsforagers.terminal import BIDI_CONTROLS

    html = ("<html><head><title>Budget \x1b]0;pwned\x07passes \x1b[31mred\x1b(0 lqqk \x9b2J "
            "\u202eevil\u202c\nINFO forged line</title></head><body><p>text</p></body></html>")
    title = read_page("http://e/budget", html, now=datetime(2024, 1, 1, 11, tzinfo=UTC)).title
    assert "\x1b]0;pwned\x07" in title and "\x9b" in title and "\u202e" in title
    with caplog.at_level("INFO", logger="newsforagers.pipelines"):
        out = process(agent, dict(send("http://e/budget"), title=title))
    assert out["title"] == title  # the document keeps what the page wrote
    [line] = [r.getMessage() for r in caplog.records if r.getMessage().startswith("novel:")]
    assert not [c for c in line if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in BIDI_CONTROLS]
    assert line == ("novel: http://e/budget (Budget ]0;pwnedpasses [31mred(0 lqqk 2J evil INFO "
                    "forged line) found by f1")


# -- the topic learns from what the colony reads (issue 32) ---------------------------------

def newswire_agent(tmp_path, store, topic="crude oil output", **settings):
    from tests.text.test_feedback import newswire

    return topical_agent(tmp_path, newswire(seed=7, oil_words=8)[0], store=store, topic=topic, **settings)


def test_the_colony_learns_one_threshold_and_stops_outputting_what_shares_one_word(tmp_path, caplog):
    import re

    from tests.text.test_feedback import newswire

    store = f"sqlite:///{tmp_path}/colony.db"
    agent = newswire_agent(tmp_path, store)
    texts, oil = newswire(seed=1, oil_words=8)
    # before any evidence the papers' cosine keeps a story at the floor for one shared word; the
    # colony's topic does not: one word of a name of three is below its quorum of two
    one_word = next(t for t, o in zip(texts, oil) if not o and 0.07 <= agent.topic.relevance(f"\n{t}"))
    assert process(agent, topical_send("http://early/", one_word)) is None
    assert agent.received[-1]["on_topic"] is False
    outputs = []
    with caplog.at_level("DEBUG", logger="newsforagers.pipelines"):
        for i, text in enumerate(texts):
            outputs.append(process(agent, topical_send(f"http://wire/{i}", text)) is not None)
    stats = agent.crawler.stats
    assert stats.get_value("newsforagers/topic/fits") >= 1
    assert stats.get_value("newsforagers/topic/fit_seconds") > 0  # (what the fits cost the reactor's thread)
    assert 0 < stats.get_value("newsforagers/topic/fit_wait_max") < 60  # (the longest the crawl waited for one)
    threshold = stats.get_value("newsforagers/topic/threshold")
    assert threshold > agent.topic.relevance(f"\n{one_word}")  # the one word no longer clears it
    explained = [r.getMessage() for r in caplog.records
                 if r.levelname == "INFO" and "keeping documents with relevance" in r.getMessage()]
    assert len(explained) == 1, explained  # explained once (later fits at DEBUG)
    # at DEBUG, each fit's mixture of the learned query's scores, taken or not, and why not
    modes = [r.getMessage() for r in caplog.records if r.getMessage().startswith("topic: the learned query's mode, ")]
    assert len(modes) >= stats.get_value("newsforagers/topic/fits") - 1, modes
    assert re.fullmatch(r"topic: the learned query's mode, taken: \d+ of the \d+ documents sharing a term with it "
                        r"at 0\.\d{3} ± 0\.\d{3} beside 0\.\d{3} ± 0\.\d{3}, D \d+\.\d\d", modes[-1]), modes
    first = re.search(r">= (0\.\d+) \((.+)\): (\d+) of (\d+) so far; the query's first words now", explained[0])
    assert first, explained
    # the second half of the wire, judged as learned, against the papers' cosine at the floor:
    # at least as many oil stories, fewer others
    half = len(texts) // 2
    late = np.array(outputs[half:])
    papers = np.array([agent.topic.relevance(f"\n{t}") >= 0.07 for t in texts[half:]])
    assert (late & oil[half:]).sum() >= (papers & oil[half:]).sum()
    assert (late & ~oil[half:]).sum() < (papers & ~oil[half:]).sum()
    # the colony's learning is in the store: a second forager (another process on the same
    # store) takes it at once, without fitting
    state = agent.store.get_value(agent._topic_key)
    assert state["threshold"] == pytest.approx(threshold, abs=1e-6) and "opec" in state["query"]
    assert state["documents"] >= 0.8 * len(texts)
    agent.close_spider()
    other = newswire_agent(tmp_path, store)
    assert other.learning.threshold.value == pytest.approx(threshold, abs=1e-6)
    assert process(other, topical_send("http://late/one", one_word + " late")) is None
    assert other.received[-1]["on_topic"] is False  # a scheduled forager credits no listing for it
    assert process(other, topical_send("http://late/oil", "opec barrels brent crude oil quota")) is not None
    assert other.crawler.stats.get_value("newsforagers/topic/fits") is None
    other.close_spider()


def crawl_loop(agent, texts, close_after=None):
    """``texts`` sent to ``agent`` on a running asyncio loop, as in a crawl (the loop's turn
    between two sends), until the last fit is done; ``close_after``: the agent closed as soon
    as that many fits were started, the loop then run until they are done."""
    import asyncio

    async def crawl():
        started = 0
        for i, text in enumerate(texts):
            process(agent, topical_send(f"http://wire/{i}", text))
            if agent._topic_fitting is not None:
                started += 1
                if close_after is not None and started >= close_after:
                    fitting = agent._topic_fitting
                    agent.close_spider()
                    await fitting
                    return
            await asyncio.sleep(0)
        while agent._topic_fitting is not None:
            await asyncio.sleep(0.01)

    asyncio.run(crawl())


def test_in_a_crawl_the_topic_is_fitted_off_the_thread_that_judges_the_sends(tmp_path):
    import threading

    from tests.text.test_feedback import newswire

    agent = newswire_agent(tmp_path, f"sqlite:///{tmp_path}/colony.db", FORAGERS_DOCUMENT_WORKERS=0)
    texts, oil = newswire(seed=1, oil_words=8)
    threads = []
    refit = agent.learning.refit

    def recorded_refit():
        threads.append(threading.get_ident())
        return refit()

    agent.learning.refit = recorded_refit
    crawl_loop(agent, texts)
    assert threads and threading.get_ident() not in threads  # each fit on another thread
    stats = agent.crawler.stats
    assert stats.get_value("newsforagers/topic/fits") == len(threads)
    assert stats.get_value("newsforagers/topic/fit_seconds") > 0
    # what the last fit learned is in effect here and offered to the colony, as in place
    state = agent.store.get_value(agent._topic_key)
    assert state["documents"] == agent._topic_fitted_on >= 0.8 * len(texts)
    assert state["threshold"] == agent.learning.threshold.value > 0.07 and "opec" in state["query"]
    assert stats.get_value("newsforagers/topic/threshold") == round(state["threshold"], 6)
    agent.close_spider()


def test_a_fit_still_on_its_way_when_the_agent_closes_is_not_offered(tmp_path, caplog):
    from newsforagers.store import open_store
    from tests.text.test_feedback import newswire

    agent = newswire_agent(tmp_path, f"sqlite:///{tmp_path}/colony.db", FORAGERS_DOCUMENT_WORKERS=0)
    texts, _ = newswire(seed=1, oil_words=8)
    with caplog.at_level("DEBUG"):
        crawl_loop(agent, texts, close_after=1)
    assert not [r for r in caplog.records if r.levelname == "ERROR"]  # (its store closed meanwhile)
    assert agent.crawler.stats.get_value("newsforagers/topic/fits") is None
    assert agent._topic_fitting is None
    store = open_store(f"sqlite:///{tmp_path}/colony.db")
    assert store.get_value(agent._topic_key) is None and store.document_count() >= 20
    store.close()


def test_a_fit_that_fails_on_its_thread_is_counted_and_the_crawl_goes_on(tmp_path, caplog):
    from tests.text.test_feedback import newswire

    agent = newswire_agent(tmp_path, f"sqlite:///{tmp_path}/colony.db", FORAGERS_DOCUMENT_WORKERS=0)
    texts, _ = newswire(seed=1, oil_words=8)

    def broken_refit():
        raise ValueError("a broken fit")

    agent.learning.refit = broken_refit
    with caplog.at_level("WARNING", logger="newsforagers.pipelines"):
        crawl_loop(agent, texts)
    stats = agent.crawler.stats
    assert stats.get_value("newsforagers/topic/fit_failed") >= 2  # each growth tried again
    assert stats.get_value("newsforagers/topic/fits") is None
    assert stats.get_value("newsforagers/agent/sent") == len(texts)  # every send judged
    [warning] = [r.getMessage() for r in caplog.records if "fit failed" in r.getMessage()]
    assert "a broken fit" in warning and "logged once" in warning
    agent.close_spider()


def test_the_papers_cosine_and_a_fixed_threshold_learn_nothing(tmp_path):
    from tests.text.test_feedback import newswire

    agent = newswire_agent(tmp_path, f"sqlite:///{tmp_path}/colony.db", FORAGERS_TOPIC_FEEDBACK="off",
                           FORAGERS_TOPIC_THRESHOLD="fixed")
    texts, oil = newswire(seed=1, oil_words=8)
    for i, text in enumerate(texts):
        process(agent, topical_send(f"http://wire/{i}", text))
    assert agent.crawler.stats.get_value("newsforagers/topic/fits") is None
    assert agent.learning.query is None and agent.learning.threshold.value == 0.07
    # one shared word still clears the floor, as in the papers
    one_word = next(t for t, o in zip(texts, oil) if not o and 0.07 <= agent.topic.relevance(f"\n{t}"))
    assert process(agent, topical_send("http://one/", one_word + " again")) is not None
    agent.close_spider()


def test_a_topic_file_with_examples(tmp_path):
    topic = tmp_path / "oil.txt"
    topic.write_text("crude oil\n+ opec agrees barrels quota\n+ refinery margins widen\n"
                     "- sony television output\n", encoding="utf-8")
    agent = newswire_agent(tmp_path, f"sqlite:///{tmp_path}/colony.db", topic=f"@{topic}")
    assert agent.topic.terms == {"crude": 1, "oil": 1}  # the words, not the examples
    assert {"opec", "barrels", "refinery"} <= set(agent.learning.query)
    assert agent.learning.negatives == ["sony television output"]
    item = process(agent, topical_send("http://opec/", "opec barrels quota refinery"))
    assert item is not None and item["relevance"] > 0.07  # no word of "crude oil" in it
    agent.close_spider()


def test_a_topic_file_s_examples_set_the_threshold_from_the_first_document(tmp_path, caplog):
    """The issue's case: headlines that share one word with the topic, given as negative
    examples, are dropped from the crawl's first document on, before the colony has read
    enough to learn anything; the oil news is kept."""
    from tests.text.test_feedback import OIL_NEGATIVES, OIL_POSITIVES

    topic = tmp_path / "oil.txt"
    topic.write_text("crude oil output prices\n" + "".join(f"+ {p}\n" for p in OIL_POSITIVES)
                     + "".join(f"- {n}\n" for n in OIL_NEGATIVES), encoding="utf-8")
    agent = newswire_agent(tmp_path, f"sqlite:///{tmp_path}/colony.db", topic=f"@{topic}")
    threshold = agent.learning.threshold
    assert threshold.reason == "examples" and threshold.value > 0.07
    one_word = "w010x w011x w012x w013x output w014x w015x w016x w017x"
    assert agent.topic.relevance(f"\n{one_word}") >= 0.07  # the papers' floor would keep it
    assert process(agent, topical_send("http://cars/", one_word)) is None
    assert agent.received[-1]["on_topic"] is False
    assert agent.crawler.stats.get_value("newsforagers/agent/dropped/off_topic") == 1
    item = process(agent, topical_send("http://oil/", "saudi crude output opec barrels quota"))
    assert item is not None and item["relevance"] >= threshold.value
    agent.close_spider()


def test_the_colony_s_topic_state_is_keyed_by_the_topic_file_s_text_not_its_path(tmp_path):
    topic = tmp_path / "oil.txt"
    store = f"sqlite:///{tmp_path}/colony.db"
    keys = []
    for text in ("crude oil output\n", "crude oil output\n", "crude oil output\n+ opec barrels quota\n"):
        topic.write_text(text, encoding="utf-8")
        agent = newswire_agent(tmp_path, store, topic=f"@{topic}")
        keys.append(agent._topic_key)
        agent.close_spider()
    # the same text, the same state; the file edited (an example added), another topic
    assert keys[0] == keys[1] != keys[2]
    # ... and the words given inline are the same topic as a file holding them
    inline = newswire_agent(tmp_path, store, topic="crude oil output")
    assert inline._topic_key == keys[0]
    inline.close_spider()


def test_one_forager_fits_the_colony_s_topic_another_takes_over_when_it_stops(tmp_path):
    from tests.text.test_feedback import newswire

    store = f"sqlite:///{tmp_path}/colony.db"
    first, second = newswire_agent(tmp_path, store), newswire_agent(tmp_path, store)
    texts, _ = newswire(seed=1, stories=400, oil_words=8)
    for i, text in enumerate(texts[:100]):
        process(first, topical_send(f"http://wire/{i}", text))
    fitted = first.store.get_value(first._topic_key)["documents"]
    assert first.crawler.stats.get_value("newsforagers/topic/fits") >= 1
    # the second judges with the first's fit, and leaves the next fit to it
    for i, text in enumerate(texts[100:100 + fitted // 4 + 10], start=100):
        process(second, topical_send(f"http://wire/{i}", text))
    assert second._topic_fitted_on == fitted and len(second.learning) == 0
    assert second.crawler.stats.get_value("newsforagers/topic/fits") is None
    # the first has stopped: past twice the growth the second fits, on the colony's documents
    first.close_spider()
    for i, text in enumerate(texts[200:], start=200):
        process(second, topical_send(f"http://wire/{i}", text))
    assert second.crawler.stats.get_value("newsforagers/topic/fits") >= 1
    state = second.store.get_value(second._topic_key)
    assert state["by"] == second._agent_name() and state["documents"] > fitted * 1.5
    assert len(second.learning) > fitted  # the documents the first found too
    second.close_spider()


def test_a_topic_state_of_the_wrong_shape_is_counted_logged_and_fitted_again(tmp_path, caplog):
    from tests.text.test_feedback import newswire

    agent = newswire_agent(tmp_path, f"sqlite:///{tmp_path}/colony.db")
    agent.store.put_value(agent._topic_key, {"documents": "many", "query": 3})
    texts, _ = newswire(seed=1, oil_words=8)
    with caplog.at_level("WARNING", logger="newsforagers.pipelines"):
        for i, text in enumerate(texts[:40]):
            process(agent, topical_send(f"http://wire/{i}", text))
    assert agent.crawler.stats.get_value("newsforagers/topic/bad_state") >= 1
    assert any("topic state in the store is not usable" in r.getMessage() for r in caplog.records)
    state = agent.store.get_value(agent._topic_key)
    assert isinstance(state["documents"], int) and state["by"] == agent._agent_name()
    agent.close_spider()
