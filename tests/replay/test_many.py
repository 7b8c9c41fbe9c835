"""The many-site replay: the split, the addresses, and each profile (latency, stall, error
burst, down window) asserted over real HTTP on loopback."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest
from twisted.internet import threads
from twisted.internet.selectreactor import SelectReactor

from newsforagers.corpus import Article, load_corpus
from newsforagers.replay.clock import ManualWall
from newsforagers.replay.many import ManySites, retimed, site_address, split_articles
from newsforagers.replay.profiles import ProfileError, Profiles

from .conftest import fetch

T0 = datetime(2024, 3, 4, 9, tzinfo=UTC)


def _article(i: int, section: str, minutes: int = 0) -> Article:
    return Article(url=f"https://news.example/{section}/2024/03/04/story-{i}/",
                   published=T0 + timedelta(minutes=minutes), title=f"Story {i}", body="words " * 50,
                   sections=(section,), lineno=i)


def test_a_split_by_section_gives_each_section_to_the_smallest_site_largest_first():
    articles = ([_article(i, "a") for i in range(5)] + [_article(10 + i, "b") for i in range(3)]
                + [_article(20 + i, "c") for i in range(2)] + [_article(30, "d")])
    groups = split_articles(articles, 2)
    # a (5) → site 0; b (3) → site 1; c (2) → site 1 (3 < 5); d (1) → site 0 (5 = 5: the lowest)
    assert [sorted({x.sections[0] for x in g}) for g in groups] == [["a", "d"], ["b", "c"]]
    assert sum(map(len, groups)) == len(articles)


def test_a_split_by_hash_when_sections_are_few_is_disjoint_and_complete():
    articles = [_article(i, "only") for i in range(60)]
    groups = split_articles(articles, 4)
    urls = [a.url for g in groups for a in g]
    assert len(urls) == len(set(urls)) == 60 and [len(g) for g in groups] == [15, 15, 15, 15]
    assert split_articles(articles, 4) == groups  # the same every time (a hash, not a draw)
    with pytest.raises(ValueError, match="sections"):
        split_articles(articles, 4, by="section")
    with pytest.raises(ValueError, match="at most one site per article"):
        split_articles(articles[:3], 4)


def test_retiming_is_one_schedule_for_the_whole_corpus_with_the_dates_in_paths_moved():
    articles = [_article(i, "a", minutes=i * 600) for i in range(20)]
    moved = retimed(articles, rate=10.0, seed=1)
    assert [a.title for a in moved] == [a.title for a in articles]  # same order
    assert (moved[-1].published - moved[0].published) < timedelta(days=2.1)
    for article in moved:
        day = article.published.astimezone(UTC).strftime("%Y/%m/%d")
        assert f"/{day}/" in article.url


def test_sites_have_their_own_loopback_addresses():
    assert site_address(0) == "127.1.0.1" and site_address(299) == "127.1.1.44"
    with pytest.raises(ValueError, match="outside"):
        site_address(10, network="127.255.255.250")


def test_profiles_are_checked_key_by_key():
    assert Profiles.from_json({"default": {"latency": 0.3}}, 2).of(1).latency == 0.3
    profiles = Profiles.from_json({"default": {"latency": 0.3}, "sites": {"1": {"stall_share": 0.5}}}, 2)
    assert profiles.of(1).latency == 0.3 and profiles.of(1).stall_share == 0.5  # over the default
    for bad, message in [({"default": {"latancy": 1}}, "unknown key"), ({"sites": {"5": {}}}, "does not exist"),
                         ({"default": {"stall_share": 2}}, "at most 1"),
                         ({"default": {"down": [[5, 2]]}}, "after 'from'"),
                         ({"default": {"errors": [{"from": 0, "to": 9, "status": 404}]}}, "not one of"),
                         ({"default": {"latency": "fast"}}, "not a number")]:
        with pytest.raises(ProfileError, match=message):
            Profiles.from_json(bad, 2)
    shares = Profiles.from_json({"default": {"down": [[0.25, 0.5]]}}, 1)
    assert shares.resolved(4000.0).of(0).down[0].start == 1000.0
    with pytest.raises(ProfileError, match="--run-seconds"):
        shares.resolved(None)


class ServedMany:
    """A :class:`ManySites` in a private reactor thread, its clock on a manual wall."""

    def __init__(self, sites: ManySites, wall: ManualWall):
        self.sites, self.wall = sites, wall
        self.reactor = SelectReactor()
        sites.listen(self.reactor)
        self.thread = threading.Thread(target=self.reactor.run, kwargs={"installSignalHandlers": False},
                                       daemon=True)
        self.thread.start()

    def at(self, offset: float) -> None:
        """Simulated seconds since the start."""
        self.wall.set(self.sites.clock.wall_at(self.sites.clock.start_ts + offset))

    def close(self) -> None:
        threads.blockingCallFromThread(self.reactor, self.sites.stop)
        self.reactor.callFromThread(self.reactor.stop)
        self.thread.join(10)


@pytest.fixture
def many(synth_path, tmp_path):
    started: list[ServedMany] = []

    def start(n: int, profiles: dict | None = None, **kwargs) -> ServedMany:
        wall = ManualWall()
        loaded = Profiles.from_json(profiles, n) if profiles else None
        kwargs.setdefault("start", load_corpus(synth_path).articles[0].published + timedelta(hours=12))
        sites = ManySites(synth_path, n, profiles=loaded, wall=wall, speed=600.0,
                          log_path=tmp_path / "requests.jsonl", **kwargs)
        served = ServedMany(sites, wall)
        started.append(served)
        return served

    yield start
    for served in started:
        served.close()


def test_every_site_serves_its_own_stories_on_its_own_address(many, synth_path, tmp_path):
    served = many(3)
    sites = served.sites
    assert len({s.address for s in sites.sites}) == 3
    truth = sites.truth()
    assert len(truth) == len(load_corpus(synth_path).articles)  # every story, on one site
    assert len({r["original_url"] for r in truth}) == len(truth)
    for site in sites.sites:
        home = fetch(site.url)
        assert home.status == 200
        mine = {r["path"] for r in truth if r["site"] == site.number}
        # the home page links stories of this site's sections only
        linked = {p for p in mine if p in home.text}
        now = sites.clock.now().isoformat()
        others = {r["path"] for r in truth if r["site"] != site.number and r["published"] <= now}
        assert linked and not any(p in home.text for p in others - mine)
    sites.write_truth(tmp_path / "truth.jsonl")
    records = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    assert {r["host"] for r in records} == {s.host for s in sites.sites}
    assert all(r["url"] == f"http://{r['host']}{r['path']}" for r in records)
    log = [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert {r["host"] for r in log} == {s.host for s in sites.sites}  # one log, each record its host


def _timed(url: str, timeout: float = 10.0) -> tuple[float, int]:
    began = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            reply.read()
            return time.monotonic() - began, reply.status
    except urllib.error.HTTPError as error:
        return time.monotonic() - began, error.code


def test_latency_delays_every_answer_of_its_site_only(many):
    served = many(2, {"sites": {"0": {"latency": 0.4, "spread": 0.0}}})
    slow, fast = served.sites.sites
    took = [_timed(slow.url)[0] for _ in range(3)]
    assert all(0.38 <= t < 2.0 for t in took), took
    assert _timed(fast.url)[0] < 0.3
    assert slow.resource.counts["delayed"] == 3 and fast.resource.counts["delayed"] == 0


def test_a_stalled_answer_sends_its_headers_then_nothing_then_its_body(many):
    served = many(2, {"sites": {"1": {"stall_share": 1.0, "stall_seconds": 1.0}}})
    stalled = served.sites.sites[1]
    address, port = stalled.address, stalled.port_number
    with socket.create_connection((address, port), timeout=5) as conn:
        conn.sendall(f"GET / HTTP/1.1\r\nHost: {stalled.host}\r\nConnection: close\r\n\r\n".encode())
        began = time.monotonic()
        head = b""
        while b"\r\n\r\n" not in head:
            head += conn.recv(4096)
        headers_at = time.monotonic() - began
        rest = head.split(b"\r\n\r\n", 1)[1]
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            rest += chunk
        body_at = time.monotonic() - began
    assert head.startswith(b"HTTP/1.1 200") and headers_at < 0.5
    assert body_at >= 0.95 and b"</html>" in rest
    # another site is not held by the stall
    assert _timed(served.sites.sites[0].url)[0] < 0.3


def test_a_request_its_client_gave_up_is_logged_all_the_same(many, tmp_path):
    """A client that closes the connection during a stall (after the headers) or during the
    latency (before them) leaves a record: the log counts every request a site received."""
    served = many(2, {"sites": {"0": {"stall_share": 1.0, "stall_seconds": 5.0},
                                "1": {"latency": 5.0, "spread": 0.0}}})
    for site, wait_for_headers in zip(served.sites.sites, (True, False)):
        with socket.create_connection((site.address, site.port_number), timeout=5) as conn:
            conn.sendall(f"GET / HTTP/1.1\r\nHost: {site.host}\r\n\r\n".encode())
            if wait_for_headers:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += conn.recv(4096)
            else:
                time.sleep(0.3)
    deadline = time.monotonic() + 5
    records: list[dict] = []
    while time.monotonic() < deadline and len(records) < 2:
        time.sleep(0.05)
        path = tmp_path / "requests.jsonl"
        records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    by_host = {r["host"]: r for r in records}
    stalled, held = (by_host[site.host] for site in served.sites.sites)
    assert stalled["abandoned"] and stalled["stalled"] and stalled["status"] == 200  # the headers went
    assert held["abandoned"] and not held["stalled"] and held["status"] == 499  # nothing went


def test_an_error_burst_answers_its_status_with_retry_after_for_its_window_only(many):
    served = many(2, {"sites": {"0": {"errors": [{"from": 600, "to": 1200, "status": 429, "retry_after": 60}]}}})
    site = served.sites.sites[0]
    served.at(300)
    assert fetch(site.url).status == 200
    served.at(900)
    answer = fetch(site.url)
    assert answer.status == 429 and answer.headers["retry-after"] == "60"
    assert fetch(served.sites.sites[1].url).status == 200  # the other site answers
    served.at(1300)
    assert fetch(site.url).status == 200


def test_a_down_site_refuses_connections_for_its_window_and_comes_back_on_its_port(many):
    import http.client

    served = many(2, {"sites": {"1": {"down": [[600, 1200]]}}})
    site = served.sites.sites[1]
    url = site.url
    assert fetch(url).status == 200
    kept = http.client.HTTPConnection(site.address, site.port_number, timeout=5)  # keep-alive
    kept.request("GET", "/")
    assert kept.getresponse().read()
    served.at(700)
    deadline = time.monotonic() + 5
    refused = False
    while time.monotonic() < deadline and not refused:
        try:
            socket.create_connection((site.address, site.port_number), timeout=1).close()
            time.sleep(0.05)
        except ConnectionRefusedError:
            refused = True
    assert refused
    with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):  # its connection was closed
        kept.request("GET", "/")
        kept.getresponse().read()
    assert fetch(served.sites.sites[0].url).status == 200
    served.at(1300)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            assert fetch(url).status == 200 and site.url == url
            break
        except urllib.error.URLError:
            time.sleep(0.05)
    else:
        pytest.fail("the site did not come back")


def test_the_busiest_second_counts_the_most_times_in_any_one_second_window():
    from newsforagers.replay.log import busiest_second

    assert busiest_second([]) == 0
    assert busiest_second([0.0, 0.5, 0.99, 1.0, 1.5]) == 3  # [0, 1) holds 0, 0.5, 0.99
    assert busiest_second([3.0, 0.0, 1.0, 2.0]) == 1  # a second apart: one in each window
