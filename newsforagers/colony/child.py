"""``python -m newsforagers.colony.child SPEC``: one forager of a colony in a process of its own.

Started by :class:`~newsforagers.colony.spawner.ProcessSpawner`. ``SPEC`` is a JSON file (read,
then removed) with the spider class's import path, the settings (the root's, as the in-process
spawner gives them to a crawler) and the spider arguments (``role=member`` among them). The
process runs that one crawl and exits with 0 when it ended cleanly; SIGINT stops it as it stops
``scrapy crawl``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scrapy.crawler import CrawlerProcess
from scrapy.utils.misc import load_object


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m newsforagers.colony.child SPEC.json", file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"newsforagers.colony.child: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    path.unlink(missing_ok=True)
    process = CrawlerProcess(spec["settings"])
    crawler = process.create_crawler(load_object(spec["spider"]))
    process.crawl(crawler, **spec["arguments"])
    process.start()
    return 0


if __name__ == "__main__":
    sys.exit(main())
