"""The forager spider's arguments that need reading: ``-a seeds`` (:func:`parse_seeds`) and
``-a role`` (:data:`ROLES`), and a send's content fingerprint (:func:`fingerprint`)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import urlsplit

from newsforagers.errors import ForagersUsageError

_SPACES = re.compile(r"\s+")

#: What a forager is in its colony: the one that starts it and hosts its feed, or a member.
ROLES = ("root", "member")

#: How to give seeds, appended to every seed error: the message is all a user sees of it.
SEEDS_USAGE = "give -a seeds=URL[,URL...] or -a seeds=@FILE (one URL a line)"


def parse_seeds(seeds: str | None) -> list[str]:
    """``URL[,URL...]`` or ``@FILE``; every seed must be an absolute http(s) URL.

    Raises :class:`~newsforagers.errors.ForagersUsageError` (a ValueError) saying what is wrong
    and how to give seeds."""
    if not seeds:
        raise ForagersUsageError(f"a forager needs seeds: {SEEDS_USAGE}")
    where = ""
    if seeds.startswith("@"):
        path = Path(seeds[1:])
        where = f" in seed file {str(path)!r}"
        if not path.is_file():
            raise ForagersUsageError(f"seed file {str(path)!r} does not exist; {SEEDS_USAGE}")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ForagersUsageError(f"seed file {str(path)!r} cannot be read ({exc}); "
                                     f"{SEEDS_USAGE}") from None
        items = [line.strip() for line in lines]
        items = [line for line in items if line and not line.startswith("#")]
    else:
        items = [part.strip() for part in seeds.split(",") if part.strip()]
    bad = [u for u in items if urlsplit(u).scheme not in ("http", "https") or not urlsplit(u).hostname]
    if bad:
        raise ForagersUsageError(f"seed {bad[0]!r}{where} is not an absolute http(s) URL; {SEEDS_USAGE}")
    if not items:
        raise ForagersUsageError(f"{'seed file ' + repr(seeds[1:]) if where else 'the seed list'} "
                                 f"has no URL; {SEEDS_USAGE}")
    return list(dict.fromkeys(items))


def fingerprint(title: str, text: str) -> str:
    """A content fingerprint: the same story under two URLs gets the same one."""
    normalised = _SPACES.sub(" ", f"{title}\n{text}".lower()).strip()
    return hashlib.sha1(normalised.encode("utf-8")).hexdigest()
