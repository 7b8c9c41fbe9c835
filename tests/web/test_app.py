"""The dashboard's application (Flask's test client): every page and its JSON endpoint on a small
store, index and run directory made here; escaping; filters; missing sources; the command's
host check, its missing extra, and its server stopped by a signal."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("flask")

from newsforagers.cli import build_parser, main  # noqa: E402
from newsforagers.commands import web as web_command  # noqa: E402
from newsforagers.index import DocumentIndex, default_index_path  # noqa: E402
from newsforagers.store import DocumentRecord, open_store  # noqa: E402
from newsforagers.web import create_app  # noqa: E402
from newsforagers.web.colony import RunHistory  # noqa: E402
from newsforagers.web.text import format_lag, http_url, lag_seconds, snippet_parts  # noqa: E402
from tests.commands.test_cli_extras import without  # noqa: E402
from tests.outputs import output

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "newsforagers" / "web"
HOSTILE = "<script>alert(1)</script> Budget"
T0 = datetime(2024, 1, 1, 7, 0, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def record(url, title, published, found, forager="f1", language="en", text="", description=""):
    return DocumentRecord(url=url, title=title, published=at(published), found_at=at(found),
                          forager=forager, reward=10.0, text=text, description=description,
                          language=language)


DOCUMENTS = [
    record("http://news.test/2024/01/01/budget", HOSTILE, 0, 180, "f1",
           text="Parliament passed the budget [draft] after a night of votes."),
    record("javascript:alert(2)", "Élection municipale", 86_400, 86_460, "f2", "fr",
           text="Les résultats de l'élection sont tombés dans la nuit."),
    record("http://news.test/2024/01/02/talks", "Talks resume", 86_500, 86_530, "f3",
           text="Negotiators resumed talks on the budget of the harbour authority."),
] + [
    record(f"http://news.test/2024/01/02/harbour-{i}", f"Harbour report {i}", 90_000 + i,
           90_060 + i, "f1", text="The harbour opened again.")
    for i in range(11)
]


def lines(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def event(kind, forager, seconds, parent=None, score=100.0):
    return {"event": kind, "forager": forager, "parent": parent, "score": score,
            "time": at(seconds), "sim_time": None}


def snapshot(forager, seconds, sent, rewarded, downloaded, head="http://news.test/section/a/"):
    return {"time": at(seconds), "forager": forager, "score": 100.0, "energy": None,
            "sent": sent, "rewarded": rewarded, "downloaded": downloaded, "steps": downloaded,
            "paths": 1, "weblog_head": [[head, 1.0]], "weight_norm": 0.5}


@pytest.fixture
def colony(tmp_path):
    """A store with the documents above (f1's process registered with a hostile name), its
    index beside it, and a run: f1 and f2 started, f3 split from f1, f2 retired."""
    url = f"sqlite:///{tmp_path / 'colony.db'}"
    store = open_store(url)
    for document in DOCUMENTS:
        assert output(store, [document.url], document)
    store.set_score("f1", 120.0)
    store.set_score("f3", 101.0)
    store.join("f1", time.time() + 3600, time.time(), fields={"process": "<b>host</b>:12"})
    index = default_index_path(url, "newsforagers")
    with DocumentIndex(index) as documents:
        documents.follow(store)
    store.close()
    run = tmp_path / "run"
    run.mkdir()
    (run / "events.jsonl").write_text(lines([
        event("start", "f1", 0), event("start", "f2", 1),
        event("split", "f3", 10, parent="f1"), event("retire", "f2", 30, score=39.0),
    ]))
    (run / "snapshots.jsonl").write_text(lines([
        snapshot("f1", 20, 10, 4, 50, head="http://news.test/<b>front</b>"),
        snapshot("f2", 20, 8, 1, 40),
        snapshot("f3", 20, 2, 1, 6, head="javascript:alert(3)"),
        snapshot("f1", 40, 20, 8, 100, head="http://news.test/<b>front</b>"),
        snapshot("f3", 40, 4, 2, 10, head="javascript:alert(3)"),
    ]))
    return {"store": url, "index": index, "run": run, "tmp": tmp_path}


@pytest.fixture
def client(colony):
    app = create_app(colony["store"], index=colony["index"], run_dir=colony["run"])
    return app.test_client()


class Page(HTMLParser):
    """The page's text, its links, its <mark> elements and its script elements."""

    def __init__(self, html: str):
        super().__init__()
        self.text: list[str] = []
        self.links: list[str] = []
        self.marks: list[str] = []
        self.scripts: list[dict] = []
        self._in_mark = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
        if tag == "script":
            self.scripts.append(attrs)
        if tag == "mark":
            self._in_mark = True
            self.marks.append("")

    def handle_endtag(self, tag):
        if tag == "mark":
            self._in_mark = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_mark:
            self.marks[-1] += data

    @property
    def all_text(self) -> str:
        return " ".join(" ".join(self.text).split())


def page(response) -> Page:
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.mimetype == "text/html"
    return Page(response.get_data(as_text=True))


def assert_escaped(html: str) -> None:
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; Budget" in html


# -- the pure helpers -------------------------------------------------------------------------------


def test_snippet_parts_split_the_markers_and_keep_the_rest_as_text():
    assert snippet_parts("the [budget] <b>vote</b> [passed]") == [
        ("the ", False), ("budget", True), (" <b>vote</b> ", False), ("passed", True)]
    assert snippet_parts("a [ lone bracket") == [("a [ lone bracket", False)]
    assert snippet_parts("") == []


def test_only_http_urls_are_links():
    assert http_url("https://news.test/a?b=1") == "https://news.test/a?b=1"
    for url in ("javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,<b>x</b>",
                "//news.test/a", "/relative", "http://", "http://news.test/a b", None, 3):
        assert http_url(url) is None, url


def test_lag_is_found_minus_published():
    assert lag_seconds(at(0), at(192)) == 192.0
    assert format_lag(192.0) == "3m12s" and format_lag(-30.0) == "-30s"
    assert lag_seconds("", at(1)) is None and format_lag(None) == "—"


# -- search ------------------------------------------------------------------------------------------


def test_search_ranks_escapes_and_marks(client):
    response = client.get("/search?q=budget")
    html = response.get_data(as_text=True)
    assert_escaped(html)
    shown = page(response)
    # the title's match first (a word of the title weighs most), the text's after it
    titles = re.findall(r'<h3 class="title">(.*?)</h3>', html)
    assert len(titles) == 2 and "Budget" in titles[0] and "Talks resume" in titles[1]
    assert "http://news.test/2024/01/01/budget" in shown.links
    assert [mark.lower() for mark in shown.marks] == ["budget", "budget"]
    assert "[" not in " ".join(re.findall(r'<p class="snippet">(.*?)</p>', html))
    assert shown.scripts == [{"src": "/static/dashboard.js", "defer": None}]  # the page's own only


def test_search_api_returns_plain_data(client):
    data = client.get("/api/search?q=budget").get_json()
    first = data["results"][0]
    assert first["title"] == HOSTILE and first["rank"] == 1 and first["relevance"] > 0
    assert first["snippet_parts"] == [list(part) for part in snippet_parts(first["snippet"])]
    assert ["budget", True] in [[text.lower(), marked] for text, marked in first["snippet_parts"]]
    assert first["lag"] == "3m00s" and first["link"] == first["url"]
    assert data["facets"]["language"] == [{"value": "en", "count": 2}]
    assert {"value": "2024-01-01", "count": 1} in data["facets"]["day"]


def test_search_filters_by_language_and_day(client):
    data = client.get("/api/search?q=élection&lang=fr").get_json()
    assert [r["url"] for r in data["results"]] == ["javascript:alert(2)"]
    assert data["results"][0]["link"] is None  # shown, never linked
    html = client.get("/search?q=élection&lang=fr").get_data(as_text=True)
    assert "javascript:" not in " ".join(Page(html).links)
    assert 'href="/search?q=%C3%A9lection"' in html  # the filter, removable
    assert client.get("/api/search?q=élection&lang=en").get_json()["results"] == []
    # days are facets of the publication day; a day clicked keeps what was found since it began
    budget = client.get("/search?q=budget").get_data(as_text=True)
    assert 'href="/search?q=budget&amp;since=2024-01-02"' in budget
    since = client.get("/api/search?q=budget&since=2024-01-02").get_json()
    assert [r["title"] for r in since["results"]] == ["Talks resume"]
    assert since["filters"] == {"lang": "", "since": "2024-01-02"}
    # a filter that is none is dropped, not an error (a page that is none is: below)
    odd = client.get("/api/search?q=budget&lang=<x>&since=2024-13-45").get_json()
    assert odd["filters"] == {"lang": "", "since": ""} and len(odd["results"]) == 2


def test_search_pages(client):
    first = client.get("/api/search?q=harbour").get_json()
    second = client.get("/api/search?q=harbour&page=2").get_json()
    assert len(first["results"]) == 10 and first["has_next"]
    assert len(second["results"]) == 2 and not second["has_next"] and second["results"][0]["rank"] == 11
    html = client.get("/search?q=harbour").get_data(as_text=True)
    assert 'href="/search?q=harbour&amp;page=2"' in html


def test_search_without_a_query_or_with_punctuation_only(client):
    shown = page(client.get("/"))
    assert "14 documents indexed" in shown.all_text
    data = client.get('/api/search?q=" - *').get_json()
    assert data["results"] == [] and data["facets"] == {"language": [], "day": []}
    assert "No document matches" in page(client.get('/search?q=" - *')).all_text


# -- the latest discoveries ----------------------------------------------------------------------


def test_latest_newest_first_with_lag(client):
    data = client.get("/api/latest").get_json()
    assert data["source"] == "store" and data["total"] == len(DOCUMENTS)
    documents = data["documents"]
    assert [d["position"] for d in documents] == list(range(len(DOCUMENTS), 0, -1))
    oldest = documents[-1]
    assert oldest["title"] == HOSTILE and oldest["lag_seconds"] == 180.0 and oldest["lag"] == "3m00s"
    assert client.get("/api/latest?limit=2").get_json()["documents"][0]["url"] == DOCUMENTS[-1].url
    html = client.get("/latest").get_data(as_text=True)
    assert_escaped(html)
    shown = Page(html)
    assert "Élection municipale" in shown.all_text and not any("javascript" in link for link in shown.links)
    assert html.index("Harbour report 10") < html.index("Talks resume") < html.index("Budget")
    assert 'data-api="/api/latest?limit=50"' in html


def test_latest_from_the_index_alone(colony):
    client = create_app(index=colony["index"]).test_client()
    data = client.get("/api/latest?limit=3").get_json()
    assert data["source"] == "index" and data["total"] == len(DOCUMENTS)
    assert [d["title"] for d in data["documents"]] == ["Harbour report 10", "Harbour report 9",
                                                      "Harbour report 8"]
    assert_escaped(client.get("/latest?limit=50").get_data(as_text=True))


# -- the colony ----------------------------------------------------------------------------------


def test_colony_rows_and_summary(client):
    data = client.get("/api/colony").get_json()
    rows = {row["forager"]: row for row in data["rows"]}
    assert list(rows) == ["f1", "f2", "f3"]
    assert rows["f1"]["state"] == "alive" and rows["f2"]["state"] == "retired"
    assert rows["f3"]["parent"] == "f1"
    assert rows["f1"]["score"] == 120.0 and rows["f1"]["found"] == 12  # from the store
    assert (rows["f1"]["sent"], rows["f1"]["rewarded"], rows["f1"]["downloaded"]) == (20, 8, 100)
    assert rows["f1"]["download_efficiency"] == 0.08 and rows["f1"]["cells"]["download_efficiency"] == "8.0%"
    assert rows["f1"]["process"] == "<b>host</b>:12"  # plain data in JSON
    assert rows["f3"]["weblog_link"] is None and rows["f1"]["weblog_link"] == "http://news.test/<b>front</b>"
    assert data["summary"]["alive"] == 2 and data["summary"]["splits"] == 1
    assert data["summary"]["retirements"] == 1 and data["summary"]["found"] == 14
    assert [c["title"] for c in data["columns"]][:5] == ["forager", "parent", "state", "process", "score"]
    html = client.get("/colony").get_data(as_text=True)
    assert "<b>" not in html and "&lt;b&gt;host&lt;/b&gt;:12" in html
    shown = Page(html)
    assert "javascript:alert(3)" in shown.all_text and not any("javascript" in link for link in shown.links)
    assert "/colony/population.png" in html and "/colony/efficiency.png" in html


def test_colony_series_births_deaths_population_efficiency(client):
    data = client.get("/api/colony/series").get_json()
    assert [p["alive"] for p in data["population"]] == [1, 2, 3, 2]
    assert [p["t"] for p in data["population"]] == [0.0, 1.0, 10.0, 30.0]
    assert [(b["forager"], b["kind"], b["parent"]) for b in data["births"]] == [
        ("f1", "start", None), ("f2", "start", None), ("f3", "split", "f1")]
    assert [(d["forager"], d["kind"], d["t"]) for d in data["deaths"]] == [("f2", "retire", 30.0)]
    first, second = data["efficiency"]
    assert (first["t"], first["sent"], first["rewarded"], first["downloaded"]) == (20.0, 20, 6, 96)
    assert first["download_efficiency"] == 6 / 96 and first["sent_efficiency"] == 6 / 20
    # f2 retired: its last counts stay in the colony's totals
    assert (second["sent"], second["rewarded"], second["downloaded"]) == (32, 11, 150)
    # fewer rounds than the recent window: since the start
    assert second["recent_download_efficiency"] == 11 / 150
    assert second["recent_sent_efficiency"] == 11 / 32
    assert data["end"] == 40.0


def test_colony_history_follows_appends(colony):
    history = RunHistory(colony["run"]).poll()
    assert len(history.population) == 4
    with open(colony["run"] / "events.jsonl", "a") as events:
        events.write(json.dumps(event("split", "f4", 50, parent="f3")) + "\n")
        events.write('{"event": "retire", "forager": "f1", "ti')  # still being written
    history.poll()
    assert [p["alive"] for p in history.population] == [1, 2, 3, 2, 3]


def test_the_recent_efficiency_is_over_the_last_rounds(tmp_path):
    (tmp_path / "snapshots.jsonl").write_text(lines(
        snapshot("f1", k, sent=10 * k, rewarded=k * k, downloaded=20 * k) for k in range(1, 8)))
    last = RunHistory(tmp_path).poll().efficiency[-1]
    assert last["download_efficiency"] == 49 / 140 and last["sent_efficiency"] == 49 / 70
    # rounds 3 to 7 (what came after round 2)
    assert last["recent_download_efficiency"] == 45 / 100
    assert last["recent_sent_efficiency"] == 45 / 50


def test_colony_plots_are_png(client):
    for path in ("/colony/population.png", "/colony/efficiency.png"):
        response = client.get(path)
        assert response.status_code == 200 and response.mimetype == "image/png"
        assert response.data[:8] == b"\x89PNG\r\n\x1a\n" and len(response.data) > 5000


def test_colony_follows_the_newest_run(tmp_path, monkeypatch):
    base = tmp_path / "runs"
    client = create_app(runs_base=base).test_client()
    data = client.get("/api/colony").get_json()
    assert data["rows"] == [] and "no run directory" in data["notes"][0]
    assert "no run directory" in page(client.get("/colony")).all_text
    assert client.get("/colony/population.png").mimetype == "image/png"  # an empty plot
    run = base / "20240101-1"
    run.mkdir(parents=True)
    (run / "events.jsonl").write_text(lines([event("start", "f1", 0)]))
    data = client.get("/api/colony").get_json()
    assert data["run_dir"] == str(run) and [r["forager"] for r in data["rows"]] == ["f1"]


# -- sources missing -------------------------------------------------------------------------------


def test_a_missing_store_and_index_are_a_clear_page(tmp_path):
    url = f"sqlite:///{tmp_path / 'later.db'}"
    app = create_app(url, index=tmp_path / "later.index.sqlite", run_dir=tmp_path / "run")
    client = app.test_client()
    for path, words in (("/latest", "no store at"), ("/search?q=budget", "no document index at"),
                        ("/", "no document index at"), ("/colony", "no run directory at")):
        response = client.get(path)
        assert response.status_code == 200, path
        text = page(response).all_text
        assert words in text and "Traceback" not in text, (path, text)
    for path in ("/api/latest", "/api/search?q=budget"):
        response = client.get(path)
        assert response.status_code == 503 and "error" in response.get_json()
    assert client.get("/api/colony").status_code == 200
    assert not (tmp_path / "later.db").exists() and not (tmp_path / "later.index.sqlite").exists()
    # the crawl starts: the same application reads the store once it is there
    store = open_store(url)
    output(store, ["k"], DOCUMENTS[0])
    store.close()
    assert client.get("/api/latest").get_json()["total"] == 1


def test_no_sources_at_all_and_a_broken_index(colony, tmp_path):
    client = create_app(runs_base=tmp_path / "none").test_client()
    assert "no colony store or document index given" in page(client.get("/latest")).all_text
    assert "no document index given" in page(client.get("/")).all_text
    # the store given where the index belongs
    client = create_app(index=colony["tmp"] / "colony.db").test_client()
    response = client.get("/search?q=budget")
    assert "no newsforagers index" in page(response).all_text


def test_not_found_and_security_headers(client):
    response = client.get("/nowhere/<script>")
    assert response.status_code == 404 and "<script>" not in response.get_data(as_text=True)
    assert client.get("/api/nowhere").get_json() == {"error": "no such endpoint"}
    assert client.get("/favicon.ico").status_code == 204
    headers = client.get("/latest").headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer"


def test_no_markup_is_ever_assembled_from_strings():
    script = (WEB / "static" / "dashboard.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function"):
        assert sink not in script, sink
    for template in (WEB / "templates").glob("*.html"):
        text = template.read_text()
        assert "|safe" not in text.replace(" ", "") and "autoescape false" not in text, template
        assert "<script>" not in text, template  # no inline script: the CSP allows none
    for module in WEB.glob("*.py"):
        text = module.read_text()
        assert "Markup" not in text and "render_template_string" not in text, module


# -- issue 29: the Host header, errors as JSON, limits validated ------------------------------------


@pytest.mark.parametrize("path", ["/api/latest", "/api/search?q=budget", "/api/colony", "/latest",
                                  "/", "/static/dashboard.js", "/api/nowhere"])
def test_a_request_naming_another_host_is_refused_and_learns_nothing(colony, client, path, caplog):
    # row 13: a page of attacker.example, its name rebound to 127.0.0.1, asks the dashboard
    with caplog.at_level("WARNING", logger="newsforagers.web.app"):
        response = client.get(path, headers={"Host": "attacker.example"})
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    for secret in (str(colony["tmp"]), "Budget", "news.test", "f1"):
        assert secret not in body  # nothing of the dashboard: the page that asked reads it
    if path.startswith("/api/"):
        assert response.get_json() == {"error": "this dashboard does not answer to that host name"}
    else:
        assert response.mimetype == "text/plain"
    assert "refused a request for host 'attacker.example'" in caplog.text
    assert client.get(path, headers={"Host": "attacker.example:8050"}).status_code == 400


@pytest.mark.parametrize("host", ["localhost", "localhost:8050", "127.0.0.1:8050", "127.0.0.2",
                                  "[::1]:8050", "LOCALHOST.", None])
def test_the_loopback_names_are_served(client, host):
    headers = {"Host": host} if host is not None else {}
    if host is None:  # HTTP/1.0 without a Host: no browser asks so
        response = client.get("/api/latest", environ_overrides={"HTTP_HOST": None})
    else:
        response = client.get("/api/latest", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)


@pytest.mark.parametrize("host", ["127.0.0.1.attacker.example", "localhost.attacker.example",
                                  "192.0.2.7", "[2001:db8::1]", "a b", "", "127.0.0.1:8050@evil",
                                  "dash.example.org.evil"])
def test_lookalikes_and_other_addresses_are_not(client, host):
    assert client.get("/api/latest", headers={"Host": host}).status_code == 400


def test_names_given_are_served_and_addresses_with_any_address(colony):
    app = create_app(colony["store"], index=colony["index"], run_dir=colony["run"],
                     hosts=["Dash.Example.org", "192.0.2.5"])
    client = app.test_client()
    for host in ("dash.example.org", "dash.example.org:443", "192.0.2.5:8050", "localhost"):
        assert client.get("/api/latest", headers={"Host": host}).status_code == 200, host
    for host in ("192.0.2.6", "attacker.example", "www.dash.example.org"):
        assert client.get("/api/latest", headers={"Host": host}).status_code == 400, host
    # a dashboard other machines reach (--allow-remote): any address, still no other name
    client = create_app(colony["store"], any_address=True).test_client()
    assert client.get("/api/latest", headers={"Host": "192.0.2.6:8050"}).status_code == 200
    assert client.get("/api/latest", headers={"Host": "[2001:db8::1]:8050"}).status_code == 200
    assert client.get("/api/latest", headers={"Host": "attacker.example"}).status_code == 400


def test_every_error_under_api_is_json(colony, tmp_path):
    app = create_app(colony["store"], index=colony["index"], run_dir=colony["run"])

    def broken():
        raise RuntimeError("a bug")

    app.view_functions["colony_api"] = broken
    client = app.test_client()
    answers = {
        404: client.get("/api/nowhere"),
        405: client.post("/api/search?q=budget"),
        400: client.get("/api/latest?limit=zero"),
        500: client.get("/api/colony"),
        503: create_app(index=tmp_path / "none.sqlite").test_client().get("/api/search?q=x"),
    }
    for status, response in answers.items():
        assert response.status_code == status and response.mimetype == "application/json", status
        assert set(response.get_json()) == {"error"} and response.get_json()["error"], status
        assert "a bug" not in response.get_data(as_text=True)
    assert "GET" in answers[405].headers["Allow"]
    # elsewhere, a page
    response = client.post("/search")
    assert response.status_code == 405 and response.mimetype == "text/html"


@pytest.mark.parametrize("path, error", [
    ("/api/latest?limit=0", "limit '0' is not a whole number from 1 to 500"),
    ("/api/latest?limit=501", "limit '501' is not a whole number from 1 to 500"),
    ("/api/latest?limit=99999999999999999999",
     "limit '99999999999999999999' is not a whole number from 1 to 500"),
    ("/api/latest?limit=-3", "limit '-3' is not a whole number from 1 to 500"),
    ("/api/search?q=budget&limit=1001", "limit '1001' is not a whole number from 1 to 1000"),
    ("/api/search?q=budget&limit=99999999999999999999",
     "limit '99999999999999999999' is not a whole number from 1 to 1000"),
    ("/api/search?q=budget&page=zz", "page 'zz' is not a whole number from 1 to 100"),
    ("/api/search?q=budget&page=101", "page '101' is not a whole number from 1 to 100"),
    ("/api/search?q=budget&limit=500&page=3", "page '3' is not a whole number from 1 to 2"),
])
def test_limits_and_pages_are_validated_as_the_command_line_s(client, path, error):
    # row 12, the dashboard's side: the CLI's --limit takes 1 to 1000 too
    response = client.get(path)
    assert response.status_code == 400 and response.get_json()["error"].startswith(error)
    page_path = path.replace("/api/", "/", 1)
    if page_path.startswith("/latest") or page_path.startswith("/search"):
        shown = client.get(page_path)
        assert shown.status_code == 400 and error.replace("'", "&#39;") in shown.get_data(as_text=True)


def test_the_largest_limit_and_the_last_page_are_served(client):
    assert len(client.get("/api/latest?limit=500").get_json()["documents"]) == len(DOCUMENTS)
    data = client.get("/api/search?q=harbour&limit=1000").get_json()
    assert len(data["results"]) == 12 and data["limit"] == 1000 and not data["has_next"]
    data = client.get("/api/search?q=harbour&limit=5&page=2").get_json()
    assert [r["rank"] for r in data["results"]] == [6, 7, 8, 9, 10] and data["has_next"]
    html = client.get("/search?q=harbour&limit=5&page=2").get_data(as_text=True)
    assert 'href="/search?q=harbour&amp;page=3&amp;limit=5"' in html
    last = client.get("/api/search?q=harbour&limit=10&page=100").get_json()
    assert last["results"] == [] and not last["has_next"]


# -- the command -----------------------------------------------------------------------------------


def test_loopback_by_default_and_remote_only_when_allowed(colony, caplog):
    args = build_parser().parse_args(["web"])
    assert args.host == "127.0.0.1" and not args.allow_remote
    for host in ("127.0.0.1", "127.0.0.2", "::1", "localhost"):
        assert web_command.check_host(host, False) == (None, None), host
    error, _ = web_command.check_host("0.0.0.0", False)
    assert "refusing to listen on 0.0.0.0" in error and "--allow-remote" in error
    served = []

    def serve(app, host, port):  # nothing is bound: only loopback ports in tests
        served.append((app, host, port))
        return 0

    args = build_parser().parse_args(["web", "--host", "0.0.0.0", "--port", "0",
                                      "--store", colony["store"]])
    assert web_command.run(args, serve=serve) == 2 and not served
    args = build_parser().parse_args(["web", "--host", "0.0.0.0", "--allow-remote",
                                      "--store", colony["store"]])
    with caplog.at_level("WARNING"):
        assert web_command.run(args, serve=serve) == 0
    assert served[0][1:] == ("0.0.0.0", 8050)
    assert "anyone who reaches this port" in caplog.text
    # the index beside the store, by default
    assert served[0][0].test_client().get("/api/search?q=budget").get_json()["results"]


def test_a_refused_host_is_one_line_and_status_2(capsys):
    assert main(["web", "--host", "192.0.2.1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("newsforagers web: refusing to listen on 192.0.2.1") and "\n" not in err


def test_without_flask_the_command_names_the_extra():
    run = without("flask", "web", "--port", "0")
    assert run.returncode == 2, run.stderr
    assert ("install newsforagers with its [web] extra (in its checkout: pip install '.[web]')" in run.stderr
            and "Traceback" not in run.stderr)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_server_stops_on_a_signal_with_status_0(colony, sig):
    process = subprocess.Popen(
        [sys.executable, "-m", "newsforagers.cli", "web", "--port", "0", "--store", colony["store"],
         "--run", str(colony["run"])],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        line = process.stdout.readline()
        match = re.match(r"serving the dashboard of .* at (http://127\.0\.0\.1:\d+/)$", line.strip())
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        with urllib.request.urlopen(match.group(1) + "api/latest?limit=1", timeout=10) as answer:
            assert json.load(answer)["total"] == len(DOCUMENTS)
        process.send_signal(sig)
        assert process.wait(15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


# -- read-only: the dashboard only reads (issue 29, row 4) -------------------------------------------


def test_latest_on_another_program_s_database_leaves_it_as_it_was(tmp_path):
    """Row 4: the file gained the store's tables, a WAL and columns; the page says what it is."""
    from tests.foreign import files_that_are_no_store, on_disk

    refused = files_that_are_no_store(tmp_path)
    (other, _), (empty, _) = refused
    for path, words in refused:
        before = on_disk(path)
        client = create_app(f"sqlite:///{path}", index=path).test_client()
        text = page(client.get("/latest")).all_text
        assert f"{path} {words}" in text
        assert "creates it when its crawl starts" not in text  # no crawl will make it a store
        response = client.get("/api/latest")
        assert response.status_code == 503 and words in response.get_json()["error"]
        assert client.get("/api/search?q=budget").status_code == 503  # the file as an index
        assert on_disk(path) == before  # byte for byte, its journal mode, nothing beside it
    assert on_disk(other)["journal"] == "rollback" and empty.stat().st_size == 0


def test_latest_reads_a_store_its_crawl_is_writing(colony):
    """The common case: the crawl has the store open (WAL) and outputs between two polls."""
    client = create_app(colony["store"]).test_client()
    crawl = open_store(colony["store"])
    try:
        for n in range(1, 4):
            assert output(crawl, [f"new:{n}"], record(f"http://news.test/new-{n}", f"New {n}", 0, n))
            data = client.get("/api/latest?limit=1").get_json()
            assert data["total"] == len(DOCUMENTS) + n and data["documents"][0]["title"] == f"New {n}"
    finally:
        crawl.close()
