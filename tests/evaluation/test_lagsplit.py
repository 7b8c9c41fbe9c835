"""newsforagers.evaluation.lagsplit: a story's lag split where the run first saw it, on a tiny
made-up site (hand-computed), and on the replay's own pages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from newsforagers.evaluation.lagsplit import lag_split, page_links, shown_times

T0 = datetime(2024, 1, 1, 12, tzinfo=UTC).timestamp()


def at(minutes: float) -> datetime:
    return datetime.fromtimestamp(T0 + 60 * minutes, UTC)


@dataclass
class FakePage:
    status: int
    body: bytes
    content_type: bytes = b"text/html; charset=utf-8"


class FakeSite:
    """/front/ links the stories published by then (s1 at minute 0, s2 at 10, s3 at 20);
    /feed.xml is an RSS of the same; /gone/ is a 404."""

    published = {"/s1": 0.0, "/s2": 10.0, "/s3": 20.0}

    def get(self, uri, now, host="127.0.0.1"):
        visible = [p for p, m in self.published.items() if T0 + 60 * m <= now]
        if uri == "/front/":
            return FakePage(200, "".join(f'<a href="http://x{p}">{p}</a>' for p in visible).encode())
        if uri == "/feed.xml":
            items = "".join(f"<item><link>http://x{p}</link></item>" for p in visible)
            return FakePage(200, f"<rss><channel>{items}</channel></rss>".encode(),
                            b"application/rss+xml")
        return FakePage(404, b"")


def log(*rows):
    return [{"sim_time": at(m).isoformat(), "path": path, "status": status} for m, path, status in rows]


def test_links_of_html_feeds_and_sitemaps():
    assert page_links(b'<a href="/a?b=1">x</a><a href="mailto:x@y">m</a><a href="http://h/%C3%A9">e</a>',
                      b"text/html") == {"/a?b=1", "/é"}
    assert page_links(b"<urlset><url><loc> http://h/x </loc></url></urlset>", "application/xml") == {"/x"}


def test_a_story_s_lag_splits_at_the_first_fetched_page_that_showed_it():
    site = FakeSite()
    requests = log((5, "/front/", 200), (12, "/s1", 200), (15, "/gone/", 404), (25, "/feed.xml", 200),
                   (26, "/front/", 304), (30, "/s2", 200), (40, "/s3", 200))
    assert shown_times(site, requests, ["/s1", "/s2", "/s3"]) == {
        "/s1": T0 + 300, "/s2": T0 + 1500, "/s3": T0 + 1500}
    novel = [("/s1", at(0), at(12)), ("/s2", at(10), at(30)), ("/s3", at(20), at(40)),
             ("/s4", at(30), at(31))]  # s4: never shown on a fetched page (a guessed URL)
    split = lag_split(site, requests, novel, (at(0), at(60)))
    # discovery: s1 5, s2 15, s3 5 minutes; fetch: s1 7, s2 5, s3 15
    assert split["n"] == 3 and split["unseen"] == 1
    assert split["discovery_median"] == 5.0 and split["fetch_median"] == 7.0
    assert split["discovery_p90"] == pytest.approx(13.0)  # 5, 5, 15: 90th percentile, linear
    assert split["fetch_p90"] == pytest.approx(13.4)  # 5, 7, 15
    # only the window's stories
    assert lag_split(site, requests, novel, (at(5), at(60)))["n"] == 2


def test_the_split_on_the_replay_s_own_pages(tmp_path):
    from newsforagers.corpus import load_corpus
    from newsforagers.replay.index import SiteIndex
    from newsforagers.replay.site import PageBuilder
    from newsforagers.replay.synth import synth_corpus

    corpus = synth_corpus(tmp_path / "s.jsonl.gz", days=1, rate=48, sections=4, seed=3)
    index = SiteIndex(load_corpus(corpus), seed=1)
    pages = PageBuilder(index, "hard")
    story = index.articles[10]
    front = next(f for f in index.sections if 10 in f.members)
    when = story.published.timestamp()
    requests = [{"sim_time": datetime.fromtimestamp(when + 120, UTC).isoformat(), "path": front.path,
                 "status": 200}]
    assert shown_times(pages, requests, [story.path]) == {story.path: when + 120}
    # before its publication, the front does not show it
    early = [dict(requests[0], sim_time=datetime.fromtimestamp(when - 60, UTC).isoformat())]
    assert shown_times(pages, early, [story.path]) == {}
