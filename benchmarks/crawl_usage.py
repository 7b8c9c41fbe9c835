"""Run ``scrapy ...`` in a child Python that writes its own resource usage (peak RSS, CPU
seconds) to a JSON file when Scrapy exits (its command line ends with ``sys.exit``: a
``finally`` clause still runs). For the benchmarks that judge a crawl process's memory and CPU."""

from __future__ import annotations

import json
import sys
from pathlib import Path

_CHILD = """
import json, resource, runpy, sys
out, sys.argv = sys.argv[1], ["scrapy"] + sys.argv[2:]
try:
    runpy.run_module("scrapy", run_name="__main__", alter_sys=True)
finally:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # its document workers, once ended
    with open(out, "w") as f:
        json.dump({"maxrss_kib": usage.ru_maxrss, "cpu": usage.ru_utime + usage.ru_stime,
                   "children_cpu": children.ru_utime + children.ru_stime}, f)
"""


def scrapy_argv(usage: Path, *scrapy_args: str) -> list[str]:
    """The argv of ``scrapy SCRAPY_ARGS...`` run so that it leaves its usage in ``usage``."""
    return [sys.executable, "-c", _CHILD, str(usage), *scrapy_args]


def forager_argv(work: Path, seeds: Path, speed: float, seconds: float, settings: dict,
                 extra: list[str] = ()) -> list[str]:
    """``scrapy crawl forager`` of ``seeds`` (a file) against a replay at ``speed`` for
    ``seconds``, its log, run record, items and usage (:func:`read_usage`) in ``work``, with
    ``settings`` and the ``KEY=VALUE`` strings of ``extra`` (a benchmark's ``--set``)."""
    argv = scrapy_argv(work / "usage.json", "crawl", "forager", "-a", f"seeds=@{seeds}", "-a", f"speed={speed}",
                       "-O", str(work / "items.jsonl"))
    common = {"CLOSESPIDER_TIMEOUT": seconds, "LOG_FILE": work / "crawl.log", "LOG_LEVEL": "INFO",
              "TELNETCONSOLE_ENABLED": False, "FORAGERS_RUN_DIR": work / "run"}
    for key, value in {**common, **settings}.items():
        argv += ["-s", f"{key}={value}"]
    for setting in extra:
        argv += ["-s", setting]
    return argv


def read_usage(usage: Path) -> dict:
    """``{"peak_rss_mib", "cpu_s", "children_cpu_s"}`` of the finished crawl (empty if it left
    none): its own peak RSS and CPU seconds, and the CPU seconds of the processes it started and
    waited for (its document workers, ``FORAGERS_DOCUMENT_WORKERS``)."""
    if not usage.exists():
        return {}
    used = json.loads(usage.read_text())
    return {"peak_rss_mib": round(used["maxrss_kib"] / 1024, 1), "cpu_s": round(used["cpu"], 2),
            "children_cpu_s": round(used.get("children_cpu", 0.0), 2)}
