"""A many-site run judged from hand-made files: stories matched by their full URL (host
included), each site's recall, lags and requests computed by hand, the sites never down, and
the summary and report of them."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from newsforagers.evaluation.bench.config import BenchConfig
from newsforagers.evaluation.bench.evaluate import evaluate_files
from newsforagers.evaluation.bench.plan import PlannedRun
from newsforagers.evaluation.bench.report import results_markdown
from newsforagers.evaluation.bench.site import SitesModel
from newsforagers.evaluation.bench.sites import (
    SitePages,
    down_hosts,
    qualify,
    site_measures,
    site_spread,
)
from newsforagers.evaluation.bench.summary import summarise
from newsforagers.evaluation.lagsplit import lag_split

A, B, C = "127.1.0.1:1001", "127.1.0.2:1002", "127.1.0.3:1003"
HOSTS = {0: A, 1: B, 2: C}


def at(hhmm: str) -> str:
    return f"2024-01-01T{hhmm}:00+00:00"


def when(hhmm: str) -> datetime:
    return datetime.fromisoformat(at(hhmm))


def story(host: str, path: str, published: str) -> dict:
    number = {h: n for n, h in HOSTS.items()}[host]
    return {"url": f"http://{host}{path}", "path": path, "published": at(published),
            "sections": ["news"], "host": host, "site": number}


# Both A and B have a story at /same/: a path alone would take one for the other.
TRUTH = [
    story(A, "/old/", "09:00"),  # before the window
    story(A, "/same/", "10:05"), story(A, "/a1/", "10:10"), story(A, "/a2/", "10:20"),
    story(C, "/c1/", "10:15"),
    story(B, "/b1/", "10:30"), story(B, "/same/", "10:40"),
]


def request(host: str, path: str, hhmm: str, status: int = 200, forager: str = "bfs") -> dict:
    return {"sim_time": at(hhmm), "wall_time": 0.0, "method": "GET", "path": path,
            "status": status, "bytes": 100, "forager": forager, "host": host}


LOG = [
    request(A, "/", "10:00"), request(A, "/same/", "10:07"), request(A, "/a1/", "10:14"),
    request(B, "/", "10:30"), request(B, "/b1/", "10:36"),
    request(A, "/b1/", "10:50", status=404, forager="f2"), request(B, "/", "11:00"),
]


def item(host: str, path: str, found: str) -> dict:
    return {"url": f"http://{host}{path}", "title": "t", "published": None,
            "found_at": at(found), "forager": "bfs", "reward": None}


ITEMS = [
    item(A, "/a1/", "10:14"),  # lag 4
    item(A, "/same/", "10:07"),  # A's /same/, lag 2 (B's /same/ is not found)
    item(B, "/b1/", "10:36"),  # lag 6
    item(A, "/b1/", "10:50"),  # no story of A: B's /b1/ does not count twice
]

WINDOW = (when("10:00"), when("11:00"))


def test_each_sites_measures_by_hand():
    robots = request(B, "/robots.txt", "10:37", forager=None)  # Scrapy's middleware, no forager
    sites = site_measures(TRUTH, LOG + [robots], ITEMS, WINDOW, down={C})
    # A was read by two foragers (one request of four by the second), B by one (and Scrapy's
    # robots.txt middleware, no forager), C by none
    assert sites[A] == {"site": 0, "recall": 2 / 3, "lag_median": 3.0, "lag_p90": 3.8,
                        "requests": 4, "window_articles": 3, "found": 2, "down": False,
                        "foragers": 2, "main_share": 0.75}
    assert sites[B] == {"site": 1, "recall": 0.5, "lag_median": 6.0, "lag_p90": 6.0,
                        "requests": 4, "window_articles": 2, "found": 1, "down": False,
                        "foragers": 1, "main_share": 1.0}
    assert sites[C] == {"site": 2, "recall": 0.0, "lag_median": None, "lag_p90": None,
                        "requests": 0, "window_articles": 1, "found": 0, "down": True,
                        "foragers": None, "main_share": None}
    spread = site_spread(sites)
    assert spread == {"recall_all": 0.5, "recall_live": 0.6, "recall_min": 0.0, "recall_median": 0.5,
                      "recall_max": 2 / 3, "lag_median_min": 3.0, "lag_median_median": 4.5,
                      "lag_median_max": 6.0, "requests_min": 0.0, "requests_median": 4.0,
                      "requests_max": 4.0, "foragers_min": 1.0, "foragers_median": 1.5, "foragers_max": 2.0,
                      "main_share_median": 0.875, "sites": 3, "down_sites": 1}


def test_paths_get_their_host_first():
    truth, log, items = qualify(TRUTH[:1], LOG[:1], [ITEMS[0], {"url": None}, "junk"])
    assert truth[0]["path"] == f"/{A}/old/" and log[0]["path"] == f"/{A}/"
    assert items == [{**ITEMS[0], "url": f"/{A}/a1/"}, {"url": None}, "junk"]
    # a replay of one site: no host, nothing changes
    assert qualify([{"path": "/x/"}], [], []) == ([{"path": "/x/"}], [], [])


def test_a_site_is_down_when_a_down_window_meets_the_runs():
    start = when("09:59")  # the replay's start: windows count from it
    down = [((7200.0, 9000.0),), (), ((0.0, 120.0), (3000.0, 3100.0))]
    assert down_hosts(HOSTS, down, start, WINDOW) == {C}
    assert down_hosts(HOSTS, down, start, (when("11:59"), when("12:30"))) == {A}
    assert down_hosts(HOSTS, down, start, None) == set()


def write(run_dir: Path) -> None:
    run_dir.mkdir(parents=True)
    for name, records in (("truth", TRUTH), ("requests", LOG), ("items", ITEMS)):
        (run_dir / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def model(pages=None) -> SitesModel:
    return SitesModel(changes=[{"/a1/": [when("10:30").timestamp()]}, {}, {}],
                      pages=pages or [None, None, None],
                      down=[(), (), ((0.0, 7200.0),)], articles=[4, 2, 1], start=when("09:59"))


def test_a_run_of_many_sites_is_judged_by_full_url(tmp_path):
    write(tmp_path / "run")
    config = BenchConfig(corpus="c", out=str(tmp_path), crawlers=("bfs",), repeats=1, sites=3)
    record = evaluate_files(config, PlannedRun(0, "bfs", 0, 1), tmp_path / "run", {}, None, model())
    metrics = record["metrics"]
    # 3 of the 6 stories published in the window, each of its own site; A's /b1/ is unknown
    assert metrics["recall"] == 0.5 and metrics["window_articles"] == 6 and metrics["novel"] == 3
    assert metrics["invalid"]["unknown"] == 1 and metrics["invalid"]["early"] == 0
    assert metrics["lag_median"] == 4.0 and metrics["requests"] == 7
    assert metrics["found_urls"] == 6  # A's / and B's / are two pages
    # A's /a1/ changed at 10:30, after the run's copy (10:14): 1 of the 3 found is stale
    assert metrics["freshness"] == pytest.approx(2 / 3)
    assert set(record["sites"]) == {A, B, C} and record["sites"][C]["down"]
    assert record["site_spread"]["recall_live"] == 0.6
    assert record["lag_split"]["unseen"] == 3  # no page of these sites to show them

    # path-only matching would have taken B's /same/ (10:40) for A's item found at 10:07
    one = BenchConfig(corpus="c", out=str(tmp_path), crawlers=("bfs",), repeats=1)
    assert evaluate_files(one, PlannedRun(0, "bfs", 0, 1), tmp_path / "run", {})["metrics"][
        "invalid"]["early"] == 1

    results = summarise(config, {"start": at("09:59"), "articles": 7,
                                 "sites": {"count": 3, "articles": [4, 2, 1], "down": [2]}},
                        [{"crawler": "bfs", "repeat": 0, "seed": 1, "status": "ok", **record}])
    sites = results["crawlers"]["bfs"]["sites"]
    assert sites["recall_live"] == {"mean": 0.6, "std": 0.0, "n": 1}
    assert sites["lag_median_median"]["mean"] == 4.5
    text = results_markdown(results)
    assert "## Many sites" in text and "Sites with a down window: 2." in text
    assert "| `bfs` | 1/1 | 0.500 ± 0.000 | 0.600 ± 0.000 | 1.0 | 0.000 / 0.500 / 0.667 | " \
           "3.0 / 4.5 / 6.0 | 0 / 3 / 4 |" in text


class Page:
    def __init__(self, status: int, body: bytes, content_type: str = "text/html"):
        self.status, self.body, self.content_type = status, body, content_type


class FakeSite:
    """A site's pages: its home links two stories."""

    def get(self, uri: str, now: float, host: str = "") -> Page:
        if uri == "/":
            return Page(200, b'<a href="/a1/">one</a> <a href="http://x/same%20page/">two</a>')
        return Page(404, b"")


def test_the_lag_split_reads_each_sites_pages():
    pages = SitePages({A: FakeSite()})
    listing = pages.get(f"/{A}/", 0.0)
    assert listing.status == 200 and listing.body == (f"<link>/{A}/a1/</link>\n<link>/{A}/same%20page/"
                                                      f"</link>\n").encode()
    assert pages.get(f"/{B}/", 0.0).status == 404 and pages.get(f"/{A}/nope/", 0.0).status == 404
    truth, log, _ = qualify([story(A, "/a1/", "10:05")], [request(A, "/", "10:06")], [])
    novel = [(truth[0]["path"], when("10:05"), when("10:09"))]
    split = lag_split(pages, log, novel, WINDOW)
    assert split["n"] == 1 and split["discovery_median"] == 1.0 and split["fetch_median"] == 3.0


def test_the_same_files_give_the_same_record(tmp_path):
    write(tmp_path / "run")
    config = BenchConfig(corpus="c", out=str(tmp_path), crawlers=("scheduled",), repeats=1, sites=3)
    run = PlannedRun(0, "scheduled", 0, 1)
    first = evaluate_files(config, run, tmp_path / "run", {}, None, model())
    again = evaluate_files(config, run, tmp_path / "run", {}, None, model())
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    # any site's robots.txt is a request, not a page of a compartment
    with (tmp_path / "run" / "requests.jsonl").open("a") as log:
        log.write(json.dumps(request(B, "/robots.txt", "10:01")) + "\n")
    robots = evaluate_files(config, run, tmp_path / "run", {}, None, model())
    assert robots["metrics"]["requests"] == first["metrics"]["requests"] + 1
    assert robots["series"]["compartments"] == first["series"]["compartments"]
