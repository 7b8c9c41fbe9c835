"""The colony of one process: its population is the store's (members under leases, bounded
joins), and the root's feed follows the store's record of paid documents."""

from __future__ import annotations

import time

from scrapy import signals
from scrapy.utils.test import get_crawler

from newsforagers.colony.local import Colony, site_reading, site_time_now
from newsforagers.config import ForagersConfig
from newsforagers.store import DocumentRecord, MemoryStore


def colony(tmp_path, **settings) -> Colony:
    config = ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run"), **settings})
    made = Colony(get_crawler(settings_dict={}), config, store=MemoryStore())
    assert not (tmp_path / "run").exists()  # building it does no I/O
    made.open()
    return made


def paid(store, url: str, forager: str) -> None:
    assert store.claim([f"url:{url}"], DocumentRecord(url, "t", "2024-01-01T00:00:00+00:00",
                                                      "2024-01-01T00:01:00+00:00", forager, 100.0,
                                                      text=f"text of {url}"))


def test_the_root_s_feed_gets_the_other_foragers_documents_from_the_store_once(tmp_path):
    c = colony(tmp_path)
    paid(c.store, "http://s/earlier-job", "f9")  # paid before this colony opened: not its feed's
    c.feed_position = c.store.document_count()
    c.register("f1", c.root)  # the root: its own documents reach the feed through its pipeline
    output = []
    c.root.signals.connect(lambda item, response, spider: output.append(item),
                           signal=signals.item_scraped, weak=False)
    c.root.spider = object()
    paid(c.store, "http://s/a", "f2")
    paid(c.store, "http://s/b", "f1")
    paid(c.store, "http://s/c", "f3")
    assert c.output_new_documents() == 2
    assert [item["url"] for item in output] == ["http://s/a", "http://s/c"]
    assert output[0] == {"url": "http://s/a", "title": "t", "published": "2024-01-01T00:00:00+00:00",
                         "found_at": "2024-01-01T00:01:00+00:00", "forager": "f2", "reward": 100.0,
                         "text": "text of http://s/a", "description": "", "keywords": [],
                         "authors": [], "site_name": "", "language": "", "html": ""}
    assert c.output_new_documents() == 0  # once
    assert c.root.stats.get_value("newsforagers/colony/feed_items") == 2
    without_text = colony(tmp_path / "2", FORAGERS_ITEM_TEXT=False)
    paid(without_text.store, "http://s/d", "f2")
    without_text.feed_position = 0
    assert "text" not in without_text.new_documents()[0]


def test_the_population_is_the_store_s_count_within_its_bounds(tmp_path):
    c = colony(tmp_path, FORAGERS_MIN=2, FORAGERS_MAX=3)
    c.register("f1", c.root)
    c.register("f2", None)
    assert c.population == 2 and sorted(c.store.members(time.time())) == ["f1", "f2"]
    assert c.reserve_place("f3", "f1")
    assert not c.reserve_place("f4", "f1")  # FORAGERS_MAX: another process may have taken it
    assert c.root.stats.get_value("newsforagers/population/split_refused") == 1
    assert c.retire("f3") and c.population == 2
    assert not c.retire("f2")  # FORAGERS_MIN: it walks on
    assert c.root.stats.get_value("newsforagers/population/retire_refused") == 1
    # a forager of another process whose lease ran out is no member any more
    c.store.join("other", lease=time.time() - 1, now=time.time() - 10)
    assert c.population == 2


def test_events_are_dated_by_the_site_s_clock_the_foragers_shared(tmp_path):
    from datetime import UTC, datetime

    site = datetime(2010, 10, 25, 9, 0, tzinfo=UTC)
    assert site_time_now(None, 0.0) is None and site_time_now({"bad": 1}, 0.0) is None
    assert site_time_now(site_reading(site, 600.0, 1000.0), 1001.0) == "2010-10-25T09:10:00+00:00"
    c = colony(tmp_path)
    c.store.put_value("site_clock", site_reading(site, 1.0, time.time()))
    c.register("f1", c.root)
    events = (tmp_path / "run" / "events.jsonl").read_text()
    assert '"sim_time": "2010-10-25T09:00:0' in events


def test_forager_names_are_unique_across_the_processes_of_a_colony(tmp_path):
    """The host names its foragers f1, f2, ...; a member process (its own forager f2) names
    the foragers it splits off f2.1, f2.2: never a name the host gave, dead or alive."""
    config = ForagersConfig.from_settings({"FORAGERS_RUN_DIR": str(tmp_path / "run")})
    host = Colony(get_crawler(settings_dict={}), config, store=MemoryStore())
    host.claim_id("f1")
    assert [host.new_id() for _ in range(3)] == ["f2", "f3", "f4"]
    member = Colony(get_crawler(settings_dict={}), config, store=MemoryStore(), hosting=False)
    member.claim_id("f2")
    member.claim_id("f7")  # (a name claimed later changes nothing)
    assert [member.new_id() for _ in range(2)] == ["f2.1", "f2.2"]
    grandchild = Colony(get_crawler(settings_dict={}), config, store=MemoryStore(), hosting=False)
    grandchild.claim_id("f2.1")
    assert grandchild.new_id() == "f2.1.1"


def test_the_energy_policy_takes_its_split_and_bounds_and_paper_bounds_double_the_cap(tmp_path):
    energy = {"FORAGERS_POPULATION": "energy", "FORAGERS_STRATEGY": "paper",
              "FORAGERS_ENERGY_LB": 1, "FORAGERS_ENERGY_UB": 2}
    strict = colony(tmp_path / "strict", **energy)
    assert (strict.policy.split, strict.policy.bounds, strict.upper_bound) == ("printed", "strict", 2)
    paper = colony(tmp_path / "paper", **energy, FORAGERS_ENERGY_SPLIT="shared",
                   FORAGERS_ENERGY_BOUNDS="paper")
    assert (paper.policy.split, paper.policy.bounds, paper.upper_bound) == ("shared", "paper", 4)
    # Alg. 2 lets the population pass UB = 2; the colony's hard cap, 2·UB, still holds
    paper.register("f1", paper.root)
    assert [paper.reserve_place(f"f{i}", "f1") for i in (2, 3, 4, 5)] == [True, True, True, False]
