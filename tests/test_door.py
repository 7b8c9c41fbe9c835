"""The driver is the only door between Scrapy and a mind (docs/architecture.md).

``.importlinter`` keeps the Scrapy-side parts from importing a strategy; this keeps them from
reaching a mind through the driver (``driver.mind``) or their collaborators through the
spider (``crawler.spider``): what import-linter cannot see."""

import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "newsforagers"
SCRAPY_SIDE = ["spiders", "extensions", "pipelines.py", "downloadhandlers.py", "downloadermiddlewares.py",
               "scheduler.py", "assembly.py", "context.py", "colony"]
REACHING = re.compile(r"\.mind\b|\bdriver\.forager\b|\bcrawler\.spider\b")


def _sources():
    for part in SCRAPY_SIDE:
        path = PACKAGE / part
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


@pytest.mark.parametrize("path", list(_sources()), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_scrapy_side_part_reaches_through_the_driver_or_the_spider(path):
    code = [line.split("#")[0] for line in path.read_text(encoding="utf-8").splitlines()]
    # docstrings may name what is not done: only lines of code that are not inside one count
    inside, offending = False, []
    for number, line in enumerate(code, 1):
        quotes = line.count('"""')
        if not inside and REACHING.search(line.split('"""')[0] if quotes else line):
            offending.append((number, line.strip()))
        if quotes % 2:
            inside = not inside
    assert not offending, offending
