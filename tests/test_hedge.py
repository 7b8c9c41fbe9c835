"""The scheduled driver on slow and stalling hosts: hedged requests (driver/hedge.py), when a
request has stalled and which of a fetch's two answers the mind reads; and a host the colony's
budget holds back, passed over until it is ready."""

from types import SimpleNamespace

import pytest
from scrapy import Request

from newsforagers.driver.hedge import PAIRS_KEPT, Hedges
from newsforagers.scrapy_access import SENT_META


def _sent(url, at, method="GET"):
    request = Request(url, method=method)
    if at is not None:
        request.meta[SENT_META] = at
    return request


def _fetch(url):
    return SimpleNamespace(url=url)


def test_a_host_s_limit_is_ten_times_its_median_answer_after_three_answers_and_two_seconds_at_least():
    hedges = Hedges()
    hedges.observe("a", 0.3)
    hedges.observe("a", 0.2)
    assert hedges.limit("a") is None  # two answers say nothing yet
    hedges.observe("a", 0.4)
    assert hedges.limit("a") == pytest.approx(3.0)  # 10 x the median 0.3
    for _ in range(3):
        hedges.observe("fast", 0.01)
    assert hedges.limit("fast") == pytest.approx(2.0)  # the floor
    for latency in (1.5, 2.0, 2.5):
        hedges.observe("slow", latency)
    assert hedges.limit("slow") == pytest.approx(20.0)  # its own answers, not the fast host's
    hedges.observe("slow", float("nan"))
    hedges.observe("slow", -1.0)
    assert hedges.limit("slow") == pytest.approx(20.0)  # nonsense is not an answer


def test_only_a_get_that_left_the_budget_longer_than_its_host_s_limit_ago_is_due():
    hedges = Hedges()
    assert hedges.limit("a") is None  # no host has a limit yet: nothing is hedged
    for host in ("a", "b"):
        for _ in range(3):
            hedges.observe(host, 0.3)  # limit 3 s
    waiting, held, posted = _fetch("w"), _fetch("h"), _fetch("p")
    requests = [(waiting, "a", _sent("http://a/w", 100.0)),  # sent, 2 s old at 102
                (held, "b", _sent("http://b/h", None)),  # still held by the host budget
                (posted, "a", _sent("http://a/p", 90.0, method="POST"))]  # never asked twice
    assert hedges.due(requests, 102.0) == (None, pytest.approx(1.0))
    assert hedges.due(requests, 103.0) == (waiting, 0.0)
    hedges.hedge(waiting, requests[0][2])
    assert requests[0][2].meta["dont_retry"] is True  # its twin is its retry
    # asked once only: the held one is looked at again after its host's limit
    assert hedges.due(requests, 200.0) == (None, pytest.approx(3.0))
    assert hedges.hedged == 1


def test_a_host_with_too_few_answers_is_given_the_slowest_known_host_s_limit():
    hedges = Hedges()
    for _ in range(3):
        hedges.observe("fast", 0.3)
    assert hedges.limit("new") == pytest.approx(3.0)
    for _ in range(3):
        hedges.observe("slow", 1.0)
    assert hedges.limit("new") == pytest.approx(10.0)  # as slow as the slowest seen
    for _ in range(8):
        hedges.observe("slow", 0.1)  # the slow host got fast: the next slowest counts
    assert hedges.limit("slow") == pytest.approx(2.0)
    assert hedges.limit("new") == pytest.approx(3.0)
    first = _fetch("n")
    requests = [(first, "new", _sent("http://new/n", 100.0))]
    assert hedges.due(requests, 102.0) == (None, pytest.approx(1.0))
    assert hedges.due(requests, 103.0) == (first, 0.0)


def test_the_first_answer_of_a_hedged_fetch_is_read_and_the_other_dropped_whichever_comes_first():
    hedges = Hedges()
    plain, one, two = _fetch("plain"), _fetch("one"), _fetch("two")
    assert hedges.answer(plain) and hedges.failure(plain)  # never hedged: every answer counts
    hedges.hedge(one, Request("http://a/one"))
    hedges.hedge(two, Request("http://a/two"))
    assert hedges.answer(one, hedge=True) is True  # the hedge won
    assert hedges.answer(one) is False  # the stalled first answer, late
    assert hedges.answer(two) is True  # the first request answered after all
    assert hedges.failure(two) is False  # its hedge's failure is not the mind's
    assert (hedges.won, hedges.late) == (1, 2)
    assert hedges.answer(one) is True and hedges.answer(two) is True  # both settled: forgotten


def test_a_hedged_fetch_fails_only_when_both_of_its_requests_do():
    hedges = Hedges()
    fetch = _fetch("f")
    hedges.hedge(fetch, Request("http://a/f"))
    assert hedges.failure(fetch) is False  # the other may still answer
    assert hedges.failure(fetch) is True  # it did not: the mind hears of the failure once
    hedges.hedge(fetch, Request("http://a/f"))
    assert hedges.failure(fetch) is False
    assert hedges.answer(fetch, hedge=True) is True  # a failure, then the twin's answer: read


def test_pairs_never_settled_are_let_go_oldest_first():
    hedges = Hedges()
    fetches = [_fetch(str(i)) for i in range(PAIRS_KEPT + 1)]
    for fetch in fetches:
        hedges.hedge(fetch, Request("http://a/x"))
    assert hedges.answer(fetches[0]) is True  # forgotten: counts as never hedged
    assert hedges.answer(fetches[-1]) is True
    assert hedges.answer(fetches[-1]) is False


def test_a_host_the_budget_holds_back_is_passed_over_until_it_is_ready():
    from newsforagers.driver.scheduled import _BusyHosts

    waits = {"spaced": 0.6, "soon": 0.01, "paused": 30.0}
    busy = _BusyHosts({"full": 1}, lambda host: 1, lambda host: waits.get(host, 0.0), margin=0.05)
    assert not busy("soon") and not busy("idle")  # ready, or within the margin: handed over now
    assert not busy.passed
    assert busy("full")  # its share in flight
    assert busy.soonest == float("inf")
    assert busy("paused") and busy("spaced")  # would wait in the budget, holding a request
    assert busy.passed and busy.soonest == pytest.approx(0.6)  # the engine is woken then
    plain = _BusyHosts({}, lambda host: 1)  # no colony budget: the share in flight alone
    assert not plain("spaced") and plain.soonest == float("inf")
