"""A synthetic news corpus in the replay's format (``shared/data/README.md``).

What it imitates, and why each matters to the foragers:

* section popularity follows Zipf's law (a few busy sections, a long quiet tail), so where to
  look is worth learning;
* publishing follows a daily and weekly rhythm (quiet nights, busy mornings, slower weekends),
  so when to look is worth learning too;
* related links go to older articles by preferential attachment (mostly within the section),
  so in-links are heavy-tailed as on a real site;
* text is readable and each section has its own vocabulary, so a text classifier has
  something to separate.

Everything is drawn from ``seed``: the same arguments give the same corpus, byte for byte.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .retime import HOURS_PER_WEEK, schedule

DEFAULT_START = datetime(2024, 1, 1, tzinfo=timezone.utc)  # a Monday
DEFAULT_HOST = "news.example.com"

# topic: (actors, things, adjectives)
TOPICS: dict[str, tuple[list[str], list[str], list[str]]] = {
    "politics": (["the parliament", "the senate", "the governor", "the opposition", "the coalition",
                  "the mayor", "party leaders", "the prime minister"],
                 ["budget", "election", "reform bill", "tax plan", "ballot measure", "campaign",
                  "cabinet reshuffle", "spending review"],
                 ["contested", "bipartisan", "controversial", "long-awaited"]),
    "business": (["the central bank", "investors", "the retailer", "regulators", "shareholders",
                  "the airline", "the carmaker", "small firms"],
                 ["merger", "earnings report", "interest rate", "supply chain", "quarterly results",
                  "factory", "pay deal", "share price"],
                 ["record", "disappointing", "surprising", "cautious"]),
    "sports": (["the home team", "the coach", "the league", "the champions", "the captain",
                "fans", "the club", "the referee"],
               ["season opener", "transfer", "final", "playoff race", "stadium", "injury",
                "derby", "title bid"],
               ["dramatic", "late", "historic", "hard-fought"]),
    "science": (["researchers", "astronomers", "the university team", "biologists",
                 "the space agency", "geologists", "physicists", "the museum"],
                ["study", "telescope", "experiment", "fossil", "climate model", "genome",
                 "particle detector", "expedition"],
                ["unexpected", "pioneering", "peer-reviewed", "ambitious"]),
    "technology": (["engineers", "the chipmaker", "developers", "the platform",
                    "security experts", "the start-up", "the phone maker", "hackers"],
                   ["software update", "data breach", "battery", "smartphone", "AI model",
                    "network outage", "app store", "privacy setting"],
                   ["open-source", "faster", "buggy", "encrypted"]),
    "health": (["doctors", "the hospital", "nurses", "health officials", "the clinic",
                "patients", "the health ministry", "pharmacists"],
               ["vaccine", "waiting list", "flu season", "treatment", "screening programme",
                "drug trial", "emergency ward", "diet"],
               ["routine", "urgent", "preventive", "free"]),
    "environment": (["conservationists", "the water authority", "farmers", "the park service",
                     "climate scientists", "volunteers", "the river trust", "the council"],
                    ["wildfire", "flood defence", "recycling scheme", "heatwave", "wetland",
                     "emissions target", "forest", "air quality"],
                    ["severe", "green", "endangered", "coastal"]),
    "education": (["teachers", "the school board", "students", "the university", "parents",
                   "the education minister", "head teachers", "the college"],
                  ["exam results", "tuition fees", "curriculum", "school meals", "scholarship",
                   "strike", "campus", "reading scheme"],
                  ["new", "national", "delayed", "popular"]),
    "culture": (["the gallery", "the orchestra", "critics", "the festival", "the author",
                 "the theatre", "the director", "musicians"],
                ["exhibition", "premiere", "novel", "concert", "award", "film", "revival",
                 "tour"],
                ["acclaimed", "sold-out", "experimental", "intimate"]),
    "world": (["diplomats", "the foreign minister", "aid agencies", "the summit", "envoys",
               "the United Nations", "neighbouring states", "observers"],
              ["ceasefire", "trade talks", "treaty", "border crossing", "sanctions",
               "election result", "refugee crisis", "state visit"],
              ["fragile", "landmark", "tense", "regional"]),
    "transport": (["commuters", "the rail operator", "the transport authority", "cyclists",
                   "the port", "drivers", "the airport", "engineers"],
                  ["timetable", "bridge", "bus route", "fare rise", "tram line", "road works",
                   "runway", "signal failure"],
                  ["overdue", "electric", "rush-hour", "weekend"]),
    "energy": (["the grid operator", "the utility", "households", "the wind farm",
                "the energy regulator", "miners", "the solar firm", "the refinery"],
               ["power cut", "price cap", "pipeline", "heat pump", "nuclear plant", "tariff",
                "battery store", "offshore field"],
               ["renewable", "rising", "winter", "low-carbon"]),
    "housing": (["tenants", "landlords", "the housing association", "builders", "planners",
                 "first-time buyers", "the council", "estate agents"],
                ["rent rise", "new estate", "mortgage rate", "planning permit", "eviction ban",
                 "social housing", "house price", "tower block"],
                ["affordable", "empty", "crowded", "modular"]),
    "crime": (["police", "the court", "detectives", "prosecutors", "the jury", "witnesses",
               "the judge", "investigators"],
              ["trial", "robbery", "fraud case", "verdict", "appeal", "arrest", "inquiry",
               "sentence"],
              ["lengthy", "high-profile", "unsolved", "landmark"]),
    "food": (["chefs", "the market", "bakers", "the restaurant", "growers", "the brewery",
              "food critics", "the cafe"],
             ["harvest", "menu", "recipe", "food festival", "street stall", "wine list",
              "price of bread", "cookbook"],
             ["seasonal", "local", "spicy", "traditional"]),
    "travel": (["tourists", "the tourist board", "hoteliers", "the ferry company", "hikers",
                "the cruise line", "travel agents", "guides"],
               ["holiday season", "trail", "beach", "visa rule", "booking", "heritage site",
                "ski resort", "city break"],
               ["crowded", "hidden", "scenic", "budget"]),
    "weather": (["forecasters", "the met office", "emergency crews", "residents",
                 "the coastguard", "motorists", "farmers", "schools"],
                ["storm", "snowfall", "heat warning", "drought", "fog", "gale", "frost",
                 "heavy rain"],
                ["unseasonal", "record", "overnight", "sudden"]),
    "media": (["the broadcaster", "journalists", "the newspaper", "the streaming service",
               "the regulator", "podcasters", "editors", "advertisers"],
              ["licence fee", "ratings", "documentary", "paywall", "press freedom", "launch",
               "merger", "series"],
              ["popular", "investigative", "late-night", "digital"]),
    "agriculture": (["farmers", "the growers' union", "vets", "the agriculture ministry",
                     "the co-operative", "beekeepers", "ranchers", "the seed bank"],
                    ["crop yield", "livestock", "subsidy", "irrigation", "dairy price",
                     "orchard", "fertiliser", "county show"],
                    ["organic", "dry", "bumper", "struggling"]),
    "opinion": (["our columnist", "readers", "the editorial board", "a former minister",
                 "a local historian", "young voters", "a retired teacher", "economists"],
                ["argument", "debate", "open letter", "proposal", "question", "lesson",
                 "choice", "promise"],
                ["honest", "overdue", "uncomfortable", "simple"]),
}
REGIONS = ["north", "south", "east", "west", "central", "coast", "valley", "metro", "islands",
           "highlands"]
PLACES = ["Riverton", "Lakeside", "Northfield", "Port Ellis", "Ashford", "Millbrook",
          "Kingsbridge", "Stonehaven", "Greenvale", "Harbour City", "Elmstead", "Westbury",
          "Fairmont", "Oakridge", "Brightwater", "Redcliff", "Sandholm", "Cedar Falls"]
FIRST = ["Ana", "Ben", "Chloe", "Dev", "Elena", "Femi", "Grace", "Hugo", "Ines", "Jonas", "Kira",
         "Liam", "Maya", "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Sami", "Tara", "Umar",
         "Vera", "Will", "Yara", "Zoltan"]
LAST = ["Abbott", "Berg", "Costa", "Dumont", "Eriksen", "Farkas", "Garcia", "Horvath", "Ivanova",
        "Jensen", "Kowalski", "Lopez", "Moreau", "Nagy", "Okafor", "Petrov", "Quigley", "Rossi",
        "Silva", "Tanaka", "Urban", "Varga", "Weber", "Young", "Zimmer"]
VERBS = [("announces", "announced"), ("delays", "delayed"), ("backs", "backed"),
         ("rejects", "rejected"), ("reviews", "reviewed"), ("unveils", "unveiled"),
         ("questions", "questioned"), ("expands", "expanded"), ("defends", "defended"),
         ("scraps", "scrapped")]
TITLES = [
    "{Actor} {verb} {adj} {thing} in {place}",
    "{Place} {thing}: {actor} {verb} plan",
    "Why the {adj} {thing} matters for {place}",
    "{Actor} and {actor2} clash over {thing}",
    "What we know about the {thing} in {place}",
    "{Actor} {verb} {thing} after {adj} week",
    "Five questions about the {adj} {thing}",
    "Inside the {thing} that divided {place}",
    "{Place} waits as {actor} {verb} {thing}",
    "Live: {actor} {verb} {thing}",
]
SENTENCES = [
    "{Actor} {verb_past} the {thing} on {weekday}, a move that surprised many in {place}.",
    "The {adj} {thing} has been discussed for months, but {actor} only now set out the details.",
    "According to {actor2}, the {thing} could affect thousands of people across {place}.",
    "Critics said the {thing} was {adj}, while supporters called it a sensible first step.",
    "In {place}, {actor} said the next decision on the {thing} would come within weeks.",
    "\"We have listened carefully,\" a spokesperson for {actor} said on {weekday}.",
    "The {thing} follows an earlier {thing2} that {actor2} {verb_past} last year.",
    "Figures seen by this newspaper suggest the {thing2} will cost more than first planned.",
    "Residents of {place} told reporters they wanted clearer answers about the {thing}.",
    "{Actor2} {verb_past} the timing, saying the {thing2} deserved more attention.",
    "It is the third time this season that the {thing} has made headlines in {place}.",
    "Observers expect {actor} to return to the {thing} before the end of the month.",
    "A final vote on the {thing2} is expected after the weekend.",
    "Some in {place} welcomed the {adj} approach; others said it came too late.",
]
SUBHEADS = ["What happens next", "The background", "Reaction in {place}", "Key figures"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def rhythm(weekend: float = 0.55) -> np.ndarray:
    """Publishing intensity per hour of the week: quiet nights, busy days, slower weekends."""
    day = np.array([0.12, 0.08, 0.06, 0.06, 0.1, 0.25, 0.55, 0.9, 1.2, 1.3, 1.3, 1.25, 1.1, 1.15,
                    1.2, 1.2, 1.1, 1.0, 0.85, 0.75, 0.65, 0.5, 0.35, 0.2])
    week = np.concatenate([day * (weekend if d >= 5 else 1.0) for d in range(7)])
    assert week.shape == (HOURS_PER_WEEK,)
    return week


def _section_names(n: int) -> list[str]:
    base = list(TOPICS)
    names = base[:n]
    k = 0
    while len(names) < n:  # more sections than topics: regional editions of the topics
        topic, region = base[k % len(base)], REGIONS[(k // len(base)) % len(REGIONS)]
        suffix = "" if k < len(base) * len(REGIONS) else f"-{k // (len(base) * len(REGIONS)) + 1}"
        names.append(f"{topic}-{region}{suffix}")
        k += 1
    return names


def topic_of(section: str) -> str:
    """The topic a section's stories are written from: a regional edition's (``crime-north``)
    is its topic's (``crime``)."""
    return section.split("-")[0]


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:70].strip("-")


class _Writer:
    """Fills the templates for one section topic."""

    def __init__(self, rng: random.Random, topic: str):
        self.rng = rng
        self.actors, self.things, self.adjs = TOPICS[topic]

    def fields(self) -> dict:
        r = self.rng
        actor, actor2 = r.sample(self.actors, 2)
        thing, thing2 = r.sample(self.things, 2)
        verb, verb_past = r.choice(VERBS)
        return {"actor": actor, "Actor": actor[0].upper() + actor[1:], "actor2": actor2,
                "Actor2": actor2[0].upper() + actor2[1:], "thing": thing, "thing2": thing2,
                "adj": r.choice(self.adjs), "verb": verb, "verb_past": verb_past,
                "place": r.choice(PLACES), "Place": r.choice(PLACES),
                "weekday": r.choice(WEEKDAYS)}

    def title(self) -> str:
        text = self.rng.choice(TITLES).format(**self.fields())
        return text[0].upper() + text[1:]

    def sentence(self) -> str:
        return self.rng.choice(SENTENCES).format(**self.fields())

    def body(self) -> str:
        r = self.rng
        paragraphs = []
        for p in range(r.randint(4, 7)):
            if p and r.random() < 0.2:
                paragraphs.append("## " + r.choice(SUBHEADS).format(place=r.choice(PLACES)))
            paragraphs.append(" ".join(self.sentence() for _ in range(r.randint(2, 4))))
        return "\n\n".join(paragraphs)


def synth_records(days: float = 7.0, rate: float = 200.0, sections: int = 20, seed: int = 0,
                  start: datetime = DEFAULT_START, host: str = DEFAULT_HOST,
                  zipf: float = 1.0) -> list[dict]:
    """``round(days × rate)`` articles as corpus records, sorted by publication time."""
    if not days > 0 or not rate > 0:
        raise ValueError(f"days ({days!r}) and rate ({rate!r}) must be higher than 0.")
    if sections < 1:
        raise ValueError(f"sections ({sections!r}) must be at least 1.")
    rng = random.Random(seed)
    n = max(1, round(days * rate))
    times = schedule(n, start, days, rhythm(), np.random.default_rng(seed))
    names = _section_names(sections)
    popularity = np.array([1.0 / (k + 1) ** zipf for k in range(sections)])
    cumulative = list(np.cumsum(popularity / popularity.sum()))
    cumulative[-1] = 1.0
    # Bigger sections employ more reporters; an author writes mostly for one section.
    staff: dict[str, list[str]] = {}
    used: set[str] = set()
    for k, name in enumerate(names):
        staff[name] = []
        for _ in range(max(2, round(30 * popularity[k] / popularity.sum()) + 1)):
            while True:
                author = f"{rng.choice(FIRST)}-{rng.choice(LAST)}".lower()
                if author not in used or len(used) >= len(FIRST) * len(LAST):
                    break
            used.add(author)
            staff[name].append(author)
    writers = {topic: _Writer(rng, topic) for topic in TOPICS}
    urn_all: list[int] = []  # preferential attachment: an index appears 1 + in-degree times
    urn_section: dict[str, list[int]] = {name: [] for name in names}
    slugs: set[str] = set()
    records = []
    for i, when in enumerate(times):
        section = names[min(sections - 1, int(np.searchsorted(cumulative, rng.random())))]
        article_sections = [section]
        if sections > 1 and rng.random() < 0.12:
            other = names[rng.randrange(sections)]
            if other != section:
                article_sections.append(other)
        authors = [rng.choice(staff[section])]
        if rng.random() < 0.15:
            second = rng.choice(staff[article_sections[-1]])
            if second not in authors:
                authors.append(second)
        writer = writers[topic_of(section)]
        title = writer.title()
        slug = base = _slug(title) or f"story-{i}"
        k = 1
        while slug in slugs:
            k += 1
            slug = f"{base}-{k}"
        slugs.add(slug)
        links: list[int] = []
        for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 4))):
            urn = urn_section[section] if urn_section[section] and rng.random() < 0.7 else urn_all
            if urn:
                j = urn[rng.randrange(len(urn))]
                if j not in links:
                    links.append(j)
        for j in links:
            urn_all.append(j)
            urn_section[records[j]["sections"][0]].append(j)
        urn_all.append(i)
        urn_section[section].append(i)
        records.append({
            "url": f"https://{host}/{when:%Y/%m/%d}/{slug}/",
            "published": when.isoformat(),
            "title": title,
            "summary": writer.sentence(),
            "body": writer.body(),
            "sections": article_sections,
            "authors": authors,
            "kind": "opinion" if topic_of(section) == "opinion" else "news",
            "links": [records[j]["url"] for j in links],
        })
    return records


def write_corpus(records: list[dict], path: str | Path) -> Path:
    """Write records as JSON lines, gzipped when ``path`` ends in ``.gz`` (reproducibly)."""
    path = Path(path)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
    if path.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    # Write then rename, so a reader (or a concurrent ensure_synth_corpus) never sees half a file.
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)
    return path


def synth_corpus(path: str | Path, **kwargs) -> Path:
    """Generate (see :func:`synth_records`) and write a corpus; returns its path."""
    return write_corpus(synth_records(**kwargs), path)


def ensure_synth_corpus(path: str | Path, **kwargs) -> Path:
    """The synthetic corpus at ``path``, generated first if the file does not exist yet.

    With no arguments it is the embedded default of the demo and of the tests that run
    without ``../shared``: 7 simulated days, 200 articles a day, 20 sections, seed 0.
    """
    path = Path(path)
    if not path.is_file():
        synth_corpus(path, **kwargs)
    return path
