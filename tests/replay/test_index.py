"""The site model and the body sanitizer, without a server."""

import collections
from datetime import datetime, timedelta, timezone

from newsforagers.corpus import Article
from newsforagers.replay.clock import ManualWall
from newsforagers.replay.index import SiteIndex
from newsforagers.replay.render import BodyRenderer, sanitize_html
from newsforagers.replay.server import ReplaySite

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def article(url, minutes=0, **fields):
    return Article(url=url, published=T0 + timedelta(minutes=minutes), title=fields.pop("title", url),
                   **fields)


def test_paths_collisions_and_non_ascii():
    site = ReplaySite([article("https://x.org/caf\u00e9/"), article("https://x.org/", 1),
                       article("https://x.org/section/a/", 2, sections=("a",)),
                       article("https://y.org/caf\u00e9/", 3)], wall=ManualWall())
    assert [a.path for a in site.articles] == ["/café/", "/story/", "/story/section/a/", "/café-2/"]
    now = site.articles[-1].ts
    assert site.pages.get("/caf%C3%A9/", now).status == 200  # as a client encodes it
    assert site.pages.get("/section/a/", now).status == 200  # the site's own front
    assert b"/story/section/a/" in site.pages.get("/section/a/", now).body
    assert site.pages.get("/section/general/", now).status == 200  # articles without sections


def test_links_resolve_loosely_and_never_to_self():
    index = SiteIndex([
        article("https://x.org/a/", 0),
        article("https://x.org/b/", 1, links=("http://X.org/a", "https://x.org/b/", "https://elsewhere.net/")),
    ])
    assert index.articles[1].links == (0,)


def test_most_read_is_heavy_tailed_and_seeded():
    articles = [article(f"https://x.org/{i}/", i) for i in range(2000)]
    index = SiteIndex(articles, seed=1)
    assert all(all(j < i for j in picks) for i, picks in enumerate(index.most_read))
    in_links = collections.Counter(j for picks in index.most_read for j in picks)
    mean = sum(in_links.values()) / len(articles)
    assert max(in_links.values()) > 10 * mean
    assert SiteIndex(articles, seed=1).most_read == index.most_read
    assert SiteIndex(articles, seed=2).most_read != index.most_read


def test_body_keeps_text_drops_links_and_scripts():
    html = BodyRenderer()(
        "Read [the report](https://example.gov/r) now.\n\n"
        "<script>alert(1)</script><img src='https://cdn/x.png'>**Bold** {{< img src=\"x\" >}}\n\n"
        "<a href=\"https://digital.gov/2014/01/01/x/\">old post</a> & <b>more</b>")
    assert "href" not in html and "src" not in html and "alert" not in html and "{{" not in html
    assert "the report" in html and "<strong>Bold</strong>" in html and "old post" in html
    assert "&amp;" in html
    assert sanitize_html("<div><p>open <em>tags</div>") == "<div><p>open <em>tags</em></p></div>"
