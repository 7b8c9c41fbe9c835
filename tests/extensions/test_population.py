"""The population extension acts on the policy's decisions through the driver's door only: a
context whose driver is a real ``PaperDriver`` over a papers' mind, a colony that records."""

from types import SimpleNamespace

import numpy as np
from scrapy import Spider
from scrapy.utils.test import get_crawler

from newsforagers.config import ForagersConfig
from newsforagers.driver import PaperDriver
from newsforagers.extensions.population import PopulationExtension
from newsforagers.learning import ScorePolicy, Weblog
from newsforagers.strategies.paper import PaperMind
from tests.test_forager import OneHotEncoder

SEEDS = [f"http://s/{i}" for i in range(4)]


class _Colony:
    def __init__(self, config):
        self.config = config
        self.policy = ScorePolicy(min_foragers=1, max_foragers=4)
        self.population = 1
        self.store = SimpleNamespace(set_score=lambda name, score: self.scores.append((name, score)))
        self.scores, self.spawned, self.events, self.retired = [], [], [], []
        self.root = None

    def new_id(self):
        return f"f{len(self.spawned) + 2}"

    def reserve_place(self, name, parent):
        return True

    def spawn(self, name, **arguments):
        self.spawned.append((name, arguments))

    def retire(self, name):
        self.retired.append(name)
        return True

    def event(self, *args, **kwargs):
        self.events.append(args)


def _extension(mode="wlrl"):
    config = ForagersConfig.from_settings({"FORAGERS_N_CLUSTERS": 3})
    crawler = get_crawler(Spider)
    weblog = Weblog.from_seeds(SEEDS, size=10, start_size=4, beta=0.3)
    mind = PaperMind("f1", config, weblog, np.array([0.5, -0.5, 0.0]), np.random.default_rng(0), mode=mode,
                   encoder=OneHotEncoder())
    spider = SimpleNamespace(state=None)
    driver = PaperDriver(crawler, spider, mind, 30.0, seeds=SEEDS)
    colony = _Colony(config)
    context = SimpleNamespace(colony=colony, driver=driver, seeds=SEEDS, model_path=None, is_root=True)
    return PopulationExtension(crawler, context), colony, mind


def test_a_split_hands_the_child_half_the_weblog_and_the_weights_through_the_driver():
    extension, colony, mind = _extension()
    extension.reward_received(forager="f1", score=250.0)
    (name, child), = colony.spawned
    assert name == "f2" and child["parent"] == "f1" and child["mode"] == "wlrl"
    assert len(child["weblog"]["entries"]) == 2 and len(mind.weblog) == 2  # Alg. 6: a half each
    assert child["seeds"] == [url for url, _ in child["weblog"]["entries"]]
    assert child["weights"] == [0.5, -0.5, 0.0]
    assert (child["weblog_before"], child["weblog_child"], child["weblog_parent"]) == (4, 2, 2)
    assert colony.scores == [("f1", colony.config.score_init)]


def test_a_retired_forager_is_retired_by_its_driver_and_decides_nothing_more():
    extension, colony, mind = _extension()
    extension.reward_received(forager="f1", score=-10.0)
    assert colony.retired == [] and not mind.retired  # the population is at its minimum
    colony.population = 2
    extension.reward_received(forager="f1", score=-10.0)
    assert colony.retired == ["f1"] and mind.retired and extension.context.driver.retired
    extension.reward_received(forager="f1", score=250.0)
    assert colony.spawned == []


def test_a_forager_with_no_starting_url_left_does_not_split_until_it_has_one_again():
    """A scheduled forager walks on, harvesting, after its last listing is given up (or its day
    pages closed): a child split from it then would have been born with an empty weblog and
    ended at once with an error. It does not split (counted, its score kept) until a listing
    is live again."""
    from scrapy import Request

    from newsforagers.clock import SiteClock
    from newsforagers.driver import ScheduledDriver
    from newsforagers.store import MemoryStore
    from tests.test_scheduled import HOME, make

    mind = make()
    for _ in range(mind.config.start_failures):  # never read: given up
        mind.schedule.failed(HOME)
    assert len(mind.weblog) == 0 and HOME in mind.schedule
    crawler = get_crawler(Spider)
    spider = Spider("s")
    spider.make_fetch_request = lambda fetch, revisit=False: Request(fetch.url)
    driver = ScheduledDriver(crawler, spider, mind, 30.0, SiteClock(600.0), MemoryStore(), seeds=[HOME])
    colony = _Colony(mind.config)
    context = SimpleNamespace(colony=colony, driver=driver, seeds=[HOME], model_path=None, is_root=True)
    extension = PopulationExtension(crawler, context)

    extension.reward_received(forager="f1", score=250.0)
    assert colony.spawned == [] and colony.scores == []
    assert crawler.stats.get_value("newsforagers/population/split_without_weblog") == 1

    mind.schedule.add(HOME + "world/")
    extension.reward_received(forager="f1", score=250.0)
    (name, child), = colony.spawned
    assert child["seeds"] == [HOME + "world/"] and colony.scores == [("f1", mind.config.score_init)]
