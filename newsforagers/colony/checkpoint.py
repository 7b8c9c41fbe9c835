"""What a colony needs to survive a crash (even ``kill -9``): atomic checkpoints and the feed.

Checkpoints are JSON objects written next to themselves, flushed to disk and renamed into
place (``os.replace``), so a reader sees the old file or the new one, never half of one. The
previous checkpoint is kept beside it (``NAME.prev``): a file that is unreadable all the same
(a disk that lost it, a hand edit) is logged and skipped, and the newest valid one (the highest
``seq``) wins.

The user's feed (``-o FILE``) is written by Scrapy's feed exporter through a buffer: after a
crash the file may lack the last items and end in half a line. :func:`repair_feed` cuts that
line off before the feed is reopened; :func:`feed_urls` tells which documents the file holds,
and :meth:`~newsforagers.colony.feed.ColonyFeed.missing` which outputs of the job it lacks —
the store's output is the source of truth.

:class:`PopulationCheckpoint` is the host's ``JOBDIR/population.json``: who lives, with what
each was started, so that a resume respawns them under their own names.

No Scrapy here: paths and dicts in, files and lists out.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Mapping

logger = logging.getLogger(__name__)

VERSION = 1
FORAGER_FILE = "forager.json"  # in a forager's JOBDIR (the root's, or JOBDIR/foragers/<id>)
POPULATION_FILE = "population.json"  # in the root's JOBDIR
ENCODER_FILE = "encoder.joblib"  # a bootstrapped state encoder, in the forager's JOBDIR
JSONLINES = ("jsonlines", "jsonl")


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # some platforms cannot open a directory
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_atomically(target: Path, write) -> None:
    """Call ``write(binary_file)`` on a file beside ``target``, flush it to disk, rename it into
    place. ``target`` is never seen half written."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(temporary, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def encode_checkpoint(data: Mapping[str, Any]) -> bytes:
    """``data`` (which carries its ``seq``) as the bytes of a checkpoint file."""
    return json.dumps({"version": VERSION, **data}, separators=(",", ":")).encode("utf-8")


def write_checkpoint(path: Path, data: Mapping[str, Any] | bytes) -> None:
    """Write ``data`` (or its :func:`encode_checkpoint` bytes) as the newest checkpoint at
    ``path``; the one it replaces becomes ``path.prev``. Writers of one path must take turns
    (a lock): the newest is then always one of the two files, and readers pick it by ``seq``."""
    path = Path(path)
    payload = data if isinstance(data, bytes) else encode_checkpoint(data)
    if path.exists():
        # between the two renames only .prev exists: a reader still finds a whole checkpoint
        os.replace(path, previous_of(path))
    replace_atomically(path, lambda out: out.write(payload))


def previous_of(path: Path) -> Path:
    return Path(path).with_name(Path(path).name + ".prev")


def read_checkpoint(path: Path) -> dict | None:
    """The newest valid checkpoint at ``path`` (or its ``.prev``), or None if there is none.

    An unreadable file is logged and skipped, never raised: a colony that cannot read its
    checkpoint starts as it would without one."""
    best = None
    for candidate in (Path(path), previous_of(path)):
        if not candidate.exists():
            continue
        try:
            data = json.loads(candidate.read_bytes())
            if not isinstance(data, dict) or data.get("version") != VERSION or \
                    not isinstance(data.get("seq"), int):
                raise ValueError("not a checkpoint of this version")
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            logger.warning("checkpoint %s is unreadable (%s); skipped", candidate, exc)
            continue
        if best is None or data["seq"] > best["seq"]:
            best = data
    return best


class PopulationCheckpoint:
    """The population as it must come back after a stop (``JOBDIR/population.json``): every
    forager alive (a retired one leaves it), with what it was started with; the checkpoint this
    run resumes from (:meth:`read`). Without a ``jobdir`` it neither reads nor writes."""

    def __init__(self, jobdir: Path | None):
        self.jobdir = Path(jobdir) if jobdir else None
        self.members: dict[str, dict] = {}
        self.seq = 0
        self.resumed: dict | None = None  # the population checkpoint this run resumes from

    def read(self) -> dict | None:
        """The newest checkpoint of the population, kept as :attr:`resumed`; writing goes on
        from its ``seq``."""
        if self.jobdir is not None:
            self.resumed = read_checkpoint(self.jobdir / POPULATION_FILE)
        if self.resumed is not None:
            self.seq = int(self.resumed["seq"])
        return self.resumed

    def write(self, **state: Any) -> None:
        """Write :attr:`members` and ``state`` (the next id, the host, the output's start, the
        energy policy), atomically; an error is logged (the colony walks on)."""
        if self.jobdir is None:
            return
        self.seq += 1
        data = {"seq": self.seq, "time": datetime.now(UTC).isoformat(), **state, "members": self.members}
        try:
            write_checkpoint(self.jobdir / POPULATION_FILE, data)
        except OSError as exc:
            logger.error("colony: cannot write the population checkpoint: %s", exc)


# -- the feed ---------------------------------------------------------------------------------


def local_feeds(feeds: Mapping[Any, Mapping[str, Any]]) -> tuple[list[tuple[Path, dict]], list[str]]:
    """Split the ``FEEDS`` setting into local files this process can read back (path, options)
    and the others (URIs: remote storage, URI templates, batches), which it cannot."""
    local, other = [], []
    for uri, options in feeds.items():
        options = dict(options or {})
        text = str(uri)
        if text.startswith("file://"):
            text = text[len("file://"):]
        elif "://" in text:
            other.append(str(uri))
            continue
        if "%(" in text or options.get("batch_item_count"):
            other.append(str(uri))
            continue
        local.append((Path(text).absolute(), options))
    return local, other


def repair_feed(path: Path) -> int:
    """Cut off a JSON-lines file's unfinished tail (a line without its newline, or lines that
    are not JSON at the end) so that appending to it starts on a fresh line. Returns the bytes
    removed."""
    path = Path(path)
    if not path.exists():
        return 0
    data = path.read_bytes()
    keep = len(data)
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
    while keep > 0:  # a buffer flushed on a line's end may still have left an unparsable one
        start = data.rfind(b"\n", 0, keep - 1) + 1
        try:
            json.loads(data[start:keep])
            break
        except ValueError:
            keep = start
    if keep == len(data):
        return 0
    with open(path, "r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return len(data) - keep


def feed_urls(path: Path) -> set[str]:
    """The ``url`` of every item in a JSON-lines feed (lines that are not JSON are ignored)."""
    urls: set[str] = set()
    path = Path(path)
    if not path.exists():
        return urls
    with open(path, "rb") as f:
        for line in f:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                urls.add(item["url"])
    return urls
