"""The real digital.gov corpus, served as the issue asks: ``--retime 200 --speed 600``."""

import re

import numpy as np
import pytest

from newsforagers.corpus import default_corpus_path, load_corpus
from newsforagers.replay.retime import week_histogram

from .test_site import links

CORPUS = default_corpus_path()
pytestmark = pytest.mark.skipif(CORPUS is None, reason="../shared/data/digitalgov.jsonl.gz not found")


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(CORPUS)


def test_digitalgov_retimed_and_served(serve, corpus):
    served = serve(corpus, retime=200, speed=600)
    site = served.site
    assert len(site.articles) == len(corpus.articles) > 2000
    assert {s.lineno for s in corpus.skipped} >= {1663}  # the empty title, kept on purpose
    span = (site.articles[-1].published - site.articles[0].published).total_seconds() / 86400
    assert 10 < span <= len(site.articles) / 200
    original = week_histogram([a.published for a in corpus.articles])
    assert np.corrcoef(original, week_histogram([a.published for a in site.articles]))[0, 1] > 0.8
    for a in site.articles:
        match = re.search(r"/(\d{4})/(\d{2})/(\d{2})/", a.path)
        if match:
            assert match.group(0) == a.published.astimezone(site.index.tz).strftime("/%Y/%m/%d/")

    served.at(site.articles[0].ts + 4 * 86400)
    visible = site.visible()
    assert 400 < len(visible) < 1400
    home = served.get("/", {"Accept-Encoding": "gzip"})
    assert home.status == 200 and home.headers["content-encoding"] == "gzip"
    linked_articles = 0
    for a in visible[-60:]:
        reply = served.get(a.path)
        assert reply.status == 200
        assert a.published.isoformat() in reply.text
        hrefs = links(reply.text)
        # The body's own links (real internet, or not yet published) never reach a crawler.
        assert all(h.startswith("/") for h in hrefs), [h for h in hrefs if not h.startswith("/")]
        for h in hrefs:
            if h in site.index.by_path:
                linked_articles += 1
                assert site.articles[site.index.by_path[h]].ts <= a.ts or h in {
                    site.articles[j].path for j in site.index.visible_links(a.index, site.clock.now_ts())}
        assert served.get(site.index.section_path[a.sections[0]]).status == 200
    assert linked_articles > 60
    assert served.get(site.articles[-1].path).status == 404
