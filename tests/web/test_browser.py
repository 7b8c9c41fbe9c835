"""The dashboard in a real headless Chromium, during a live crawl of the replay site.

A corpus of our own (the synthetic one, with a hostile title on every third article and a
code word, unique to it, at the end of every title) is served by the replay; a short
``scrapy crawl forager`` runs in a thread while ``newsforagers web`` (a subprocess on a free
loopback port) follows its SQLite store, its index and its run directory, and the browser:

- loads the latest discoveries before the crawl has begun, and sees rows appear and the list
  grow without a reload;
- shows the hostile titles as text (their ``<script>`` visible, no element made of them, the
  flag their script would set never set);
- finds a known document by a word of its title typed into the query box (first result), and
  ranks several documents for a common word;
- shows the colony's table and plots (``NEWSFORAGERS_DASHBOARD_SCREENSHOT=PATH`` saves the
  page there: ``docs/img/dashboard_colony.png`` is made so).

Skips without Chromium and its driver (``apt-get install chromium chromium-driver``), unless
``NEWSFORAGERS_REQUIRE_BROWSER=1``. Selenium Manager is never asked for a driver: it would
download one.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from newsforagers.replay.process import ReplayProcess
from newsforagers.replay.synth import synth_records, write_corpus
from tests.integration.forager_run import crawl_forager
from tests.needs import skip_or_fail

pytestmark = pytest.mark.timeout(180)

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
REQUIRE = "NEWSFORAGERS_REQUIRE_BROWSER"
SCREENSHOT = "NEWSFORAGERS_DASHBOARD_SCREENSHOT"
# no network here: without these Chromium tries to reach Google's services
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--window-size=1280,1000")
START = "2024-01-01T07:00:00+00:00"  # a Monday morning: the synthetic site is busy
HOSTILE = "<script>window.__pwned=1</script><img src=x onerror=window.__pwned=2> "
# code words have no vowel, no s and no y: the index's stemmer leaves them whole
_LETTERS = "bcdfghjklmnpqrtvwxz"


def code_word(i: int) -> str:
    letters = ""
    for _ in range(3):
        i, digit = divmod(i, len(_LETTERS))
        letters += _LETTERS[digit]
    return "zq" + letters


def browser_missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    for module in ("selenium", "flask"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install -e '.[test,web]')"
    return None


@pytest.fixture
def browser(tmp_path, monkeypatch):
    skip_or_fail(browser_missing(), REQUIRE)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.selenium_manager import SeleniumManager

    def refuse(*args, **kwargs):
        raise AssertionError("Selenium Manager was asked for a driver (it would download one)")

    monkeypatch.setattr(SeleniumManager, "binary_paths", refuse)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the pages' console
    service = Service(executable_path=str(CHROMEDRIVER), log_output=str(tmp_path / "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


class Dashboard:
    """``newsforagers web --port 0`` on a store and a run directory (which may not exist yet)."""

    def __init__(self, store: Path, run_dir: Path, cwd: Path):
        # paths relative to where it runs, as a person gives them (and short on the screenshot)
        self.argv = [sys.executable, "-m", "newsforagers.cli", "web", "--port", "0",
                     "--store", f"sqlite:///{store.relative_to(cwd)}",
                     "--run", str(run_dir.relative_to(cwd))]
        self.cwd = cwd
        self.log = cwd / "dashboard.log"
        self.url = ""
        self.process: subprocess.Popen | None = None
        self.returncode: int | None = None

    def __enter__(self) -> "Dashboard":
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(self.argv, cwd=self.cwd, stdout=subprocess.PIPE,
                                            stderr=log, text=True,
                                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
        return self

    def wait_serving(self, timeout: float = 30.0) -> str:
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                raise AssertionError(f"the dashboard did not start: {self.log.read_text()[-2000:]}")
        line = self.process.stdout.readline().strip()
        match = re.fullmatch(r"serving the dashboard of .* at (http://127\.0\.0\.1:\d+/)", line)
        assert match, (line, self.log.read_text()[-2000:])
        self.url = match.group(1)
        return self.url

    def api(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=10) as answer:
            return json.load(answer)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        self.returncode = self.process.returncode
        return self.returncode

    def __exit__(self, *exc) -> None:
        self.stop()


class Crawl:
    """A short ``scrapy crawl forager`` in a thread, stopped (SIGINT, a clean stop) on leaving."""

    def __init__(self, url: str, tmp: Path, settings: dict):
        self.stop_asked = threading.Event()
        self.result = None
        self.error: BaseException | None = None
        self.started = time.monotonic()

        def crawl():
            try:
                self.result = crawl_forager(url, tmp, seconds=90, settings=settings,
                                            args={"speed": 600}, timeout=150,
                                            until=self.stop_asked.is_set)
            except BaseException as exc:  # noqa: BLE001 - reported by the test's thread
                self.error = exc

        self.thread = threading.Thread(target=crawl, name="crawl", daemon=True)

    def __enter__(self) -> "Crawl":
        self.started = time.monotonic()
        self.thread.start()
        return self

    @property
    def age(self) -> float:
        return time.monotonic() - self.started

    def __exit__(self, *exc) -> None:
        self.stop_asked.set()
        self.thread.join(160)


def wait(driver, condition, timeout: float, what: str):
    """``condition()``'s first true value within ``timeout`` seconds (selenium's poller)."""
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    # (a live page redraws its rows while a condition reads them: an element found, then gone,
    # is looked for again at the next poll)
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda _: condition())
    except TimeoutException:
        raise AssertionError(f"not seen within {timeout:g} s: {what}") from None


def found_documents(store: Path) -> list[tuple[str, str]]:
    """(url, title) of the documents the colony paid for so far, in the order it paid."""
    if not store.exists():
        return []
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
    try:
        return db.execute("SELECT url, title FROM documents ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # the crawl is creating its tables
        return []
    finally:
        db.close()


def test_the_dashboard_follows_a_live_crawl(tmp_path, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    began = time.monotonic()
    records = synth_records(days=2, rate=300, sections=8, seed=5)  # from Monday 00:00 UTC
    for i, record in enumerate(records):
        if i % 3 == 0:
            record["title"] = HOSTILE + record["title"]
        record["title"] += " " + code_word(i)
    corpus = write_corpus(records, tmp_path / "corpus.jsonl")
    store, run_dir = tmp_path / "colony.db", tmp_path / "run"
    settings = {"FORAGERS_STORE": f"sqlite:///{store}", "FORAGERS_RUN_DIR": run_dir,
                "FORAGERS_SNAPSHOT_INTERVAL": 1, "FORAGERS_SEED": 3, "FORAGERS_SPLIT_SCORE": 103,
                "FORAGERS_MAX": 6}
    screenshot = os.environ.get(SCREENSHOT)

    def rows() -> int:
        return browser.execute_script("return document.querySelectorAll('#latest-rows tr').length")

    def texts(selector: str) -> list[str]:
        # read in one script: the live pages redraw their rows, and an element found by one call
        # may be gone by the next (a stale element)
        return browser.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.innerText)", selector)

    with ReplayProcess(corpus, speed=600, start=START) as replay, \
            Dashboard(store, run_dir, tmp_path) as dashboard:
        url = dashboard.wait_serving()
        # the page is there before the crawl: no store yet, said on the page
        browser.get(url + "latest")
        assert "no store at" in browser.find_element(By.ID, "notice").text
        browser.execute_script("window.__sameLoad = 'yes'")
        latest_tab = browser.current_window_handle
        with Crawl(replay.url, tmp_path, settings) as crawl:
            # discoveries appear without a reload
            wait(browser, lambda: rows() > 0, 30, "a first discovery on the latest page")
            first_rows = rows()
            assert browser.find_element(By.ID, "notice").is_displayed() is False

            # hostile titles are text: their characters visible, no element made of them
            hostile = wait(browser, lambda: [text for text in texts("#latest-rows td.title") if "<script>" in text],
                           20, "a hostile title on the latest page")
            assert HOSTILE.strip() in hostile[0]
            assert browser.execute_script(
                "return [document.querySelectorAll('#latest-rows script, #latest-rows img').length,"
                " typeof window.__pwned]") == [0, "undefined"]

            # a word typed into the query box finds its document first (through the index
            # the colony keeps beside its store); a hostile one, to see the results escaped
            url_of, title = next((u, t) for u, t in found_documents(store) if t.startswith("<script>"))
            word = title.split()[-1]
            assert re.fullmatch(r"zq[a-z]{3}", word), title
            wait(browser, lambda: dashboard.api(f"api/search?q={word}")["results"], 20,
                 f"{word} in the index")
            browser.switch_to.new_window("tab")
            browser.get(url)
            box = browser.find_element(By.ID, "q")
            box.send_keys(word, Keys.ENTER)
            wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#results li"), 10,
                 "the results of the search")
            first = browser.find_element(By.CSS_SELECTOR, "#results li .title a")
            assert first.get_attribute("href") == url_of
            assert first.text == title and "<script>" in first.text
            marks = [m.text for m in browser.find_elements(By.CSS_SELECTOR, "#results li mark")]
            assert word in marks
            assert browser.execute_script(
                "return [document.querySelectorAll('#results script, #results img').length,"
                " typeof window.__pwned]") == [0, "undefined"]
            # a common word: several documents, in the index's order
            common = _common_word([t for _, t in found_documents(store)])
            box = browser.find_element(By.ID, "q")
            box.clear()
            box.send_keys(common, Keys.ENTER)
            wait(browser, lambda: f"q={common}" in browser.current_url
                 and len(browser.find_elements(By.CSS_SELECTOR, "#results li")) >= 2, 10,
                 f"several results for {common!r}")
            relevance = [float(cell.text) for cell in
                         browser.find_elements(By.CSS_SELECTOR, "#results li .relevance")]
            assert len(relevance) >= 2 and relevance == sorted(relevance, reverse=True), relevance
            marks = {m.text.lower() for m in browser.find_elements(By.CSS_SELECTOR, "#results li mark")}
            assert marks and all(common[:4] in mark for mark in marks), marks  # stems of the word

            # the colony: its foragers and plots, refreshed while it crawls
            browser.get(url + "colony")
            wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "#colony-rows tr")) >= 2,
                 20, "two foragers on the colony page")
            wait(browser, lambda: len(dashboard.api("api/colony/series")["efficiency"]) >= 3, 20,
                 "three snapshots of the colony")
            if screenshot:  # a picture worth the docs: the crawl's first 20 seconds
                wait(browser, lambda: crawl.age > 20, 30, "20 seconds of crawl")
                drawn = browser.execute_script("return document.getElementById('plot-efficiency').src")
                wait(browser, lambda: browser.execute_script(
                    "return document.getElementById('plot-efficiency').src") != drawn, 10,
                    "the plots drawn again")
            wait(browser, lambda: browser.execute_script(
                "return Array.from(document.images).every(i => i.complete && i.naturalWidth >= 580)"),
                10, "the colony's plots")
            states = texts("#colony-rows tr td:nth-child(3)")
            assert "alive" in states, states
            if screenshot:
                browser.set_window_size(1280, browser.execute_script(  # the whole page
                    "return document.documentElement.scrollHeight"
                    " + window.outerHeight - window.innerHeight"))
                browser.save_screenshot(screenshot)

            # back on the latest discoveries: more of them, and still the same page
            browser.switch_to.window(latest_tab)
            wait(browser, lambda: rows() > first_rows, 30, f"more than {first_rows} discoveries")
            assert browser.execute_script("return [window.__sameLoad, typeof window.__pwned]") == [
                "yes", "undefined"]
            shown_urls = browser.execute_script(
                "return Array.from(document.querySelectorAll('#latest-rows tr')).map(r => r.dataset.url)")
            paid = [u for u, _ in found_documents(store)]
            assert set(shown_urls) <= set(paid) and len(shown_urls) == len(set(shown_urls))
            # no script error and no Content-Security-Policy violation on any page
            # (a 503 of /api/latest is the page's poll finding the store unreadable for a moment —
            # the page says so and polls again; seen twice under load in CI, its cause not found
            # yet: a network entry, not a script error, and bounded apart)
            severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
            polls = [entry for entry in severe if entry.get("source") == "network"
                     and "/api/latest" in entry["message"] and "status of 503" in entry["message"]]
            problems = [entry for entry in severe if entry not in polls]
            assert not problems, problems
            assert len(polls) <= 2, polls
        assert crawl.error is None, crawl.error
        assert crawl.result.returncode == 0, crawl.result.log[-3000:]
    assert dashboard.returncode == 0, dashboard.log.read_text()[-2000:]
    assert "Traceback" not in dashboard.log.read_text()
    print(f"browser test: {time.monotonic() - began:.1f} s, {len(paid)} documents")


def _common_word(titles: list[str]) -> str:
    """The most frequent word (5 letters or more) of the titles found, planted words aside."""
    counts = Counter(word.lower() for title in titles
                     for word in re.findall(r"[A-Za-z]{5,}", title.replace(HOSTILE, ""))
                     if not word.startswith("zq"))
    return counts.most_common(1)[0][0]
