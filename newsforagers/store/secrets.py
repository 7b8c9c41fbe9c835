"""Where a store's password comes from, so that it need never be written where others read.

A store URL may carry a password (``redis://:PASSWORD@host:6379/0``), but then it travels
wherever the URL does: a command line (``ps`` shows it to every user of the machine), a
scrapyd job's arguments (its node's log writes them), Scrapy's "Overridden settings" line.
So the password of a URL without one is looked for, in this order:

1. ``FORAGERS_STORE_PASSWORD_FILE`` (``--password-file`` on the command line): a file holding
   the password on its first line, readable by its owner only (a file others may read is
   refused, as ssh refuses such a key) — the reference a scrapyd job is given, the file
   being on its node;
2. the environment variable :data:`PASSWORD_ENV` (``NEWSFORAGERS_STORE_PASSWORD``), which only the
   process's user (and root) can read — what a scrapyd node started with it hands its jobs;
3. ``~/.netrc``: ``machine HOST:PORT [login USER] password PASSWORD`` for the store's address,
   its port written out (6379 when the URL names none) — the host alone would be the entry of
   every service of that machine: curl and scrapyd-deploy read ``machine HOST`` for a scrapyd
   node, whose login is no Redis user's (Python's netrc refuses a file others may read).

What is found is handed to the client as a keyword, never written into a URL, and every
spelling of it is hidden from the messages the store writes (``hide_password``).
"""

from __future__ import annotations

import netrc
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote

from newsforagers.errors import ForagersUsageError, mask_password

#: The environment variable a store's password may be given in.
PASSWORD_ENV = "NEWSFORAGERS_STORE_PASSWORD"
#: Users that mean "no user name" in a ``~/.netrc`` entry (Redis's ``default`` user).
_NO_USER = frozenset({"", "default"})
#: Schemes of the URLs whose authority may hold credentials.
_AUTHORITY_SCHEMES = frozenset({"redis", "rediss", "http", "https"})


@dataclass(frozen=True)
class Credentials:
    """A store URL as its client takes it — the password, if it held one, moved out of it —
    and the user and password to log in with (None: none), and where they came from (for
    messages: never the secret itself)."""

    url: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    source: str = ""

    @property
    def secrets(self) -> set[str]:
        if not self.password:
            return set()
        return {self.password, quote(self.password, safe=""), quote(self.password)}


def split_password(url: str) -> tuple[str, str | None, str | None]:
    """``(url without its password, user, password)``; the userinfo is everything up to the
    last ``@`` (a password may hold ``/``, ``#``, ``?`` and ``@`` unencoded), decoded. A URL
    without credentials comes back as it was."""
    scheme, sep, rest = url.partition("://")
    if scheme.lower() not in _AUTHORITY_SCHEMES:
        return url, None, None  # sqlite:///a@b.db is a path
    userinfo, at, after = rest.rpartition("@")
    if not sep or not at:
        return url, None, None
    user, colon, password = userinfo.partition(":")
    user = unquote(user) or None
    return f"{scheme}{sep}{quote(user, safe='') + '@' if user else ''}{after}", user, unquote(password) or None


def read_password_file(path: str | os.PathLike) -> str:
    """The first line of a password file readable by its owner only; ForagersUsageError (one
    line, the path but never the content) otherwise."""
    path = Path(path).expanduser()
    try:
        info = path.stat()
    except OSError as exc:
        raise ForagersUsageError(f"FORAGERS_STORE_PASSWORD_FILE ({str(path)!r}) cannot be read: "
                                 f"{exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ForagersUsageError(f"FORAGERS_STORE_PASSWORD_FILE ({str(path)!r}) is not a file")
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ForagersUsageError(
            f"FORAGERS_STORE_PASSWORD_FILE ({str(path)!r}) may be read by others (mode "
            f"{stat.S_IMODE(info.st_mode):o}): make it its owner's only, chmod 600 {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ForagersUsageError(f"FORAGERS_STORE_PASSWORD_FILE ({str(path)!r}) cannot be read: "
                                 f"{type(exc).__name__}") from None
    password = text.splitlines()[0].strip() if text.strip() else ""
    if not password:
        raise ForagersUsageError(f"FORAGERS_STORE_PASSWORD_FILE ({str(path)!r}) holds no password "
                                 "on its first line")
    return password


def _from_netrc(host: str) -> tuple[str | None, str | None]:
    try:
        found = netrc.netrc().authenticators(host)
    except FileNotFoundError:
        return None, None
    except (OSError, netrc.NetrcParseError) as exc:
        # (its message quotes the file, never a password)
        raise ForagersUsageError(f"~/.netrc cannot be used for the store's password: {exc}") from None
    if not found or not found[2]:
        return None, None
    login = found[0] or ""
    return (None if login in _NO_USER else login), found[2]


def store_credentials(url: str, password_file: str = "", environ: dict | None = None) -> Credentials:
    """The credentials of a store URL (module docstring: the URL's own, else the password
    file, else :data:`PASSWORD_ENV`, else ``~/.netrc`` for its host)."""
    environ = os.environ if environ is None else environ
    bare, user, password = split_password(url)
    if password:
        return Credentials(bare, user, password, "the URL")
    if password_file:
        return Credentials(bare, user, read_password_file(password_file), f"the file {password_file}")
    if environ.get(PASSWORD_ENV):
        return Credentials(bare, user, environ[PASSWORD_ENV], f"${PASSWORD_ENV}")
    address = _address(bare)
    if address:
        netrc_user, netrc_password = _from_netrc(address)
        if netrc_password:
            return Credentials(bare, user or netrc_user, netrc_password, f"~/.netrc ({address})")
    return Credentials(bare, user, None, "")


def _address(url: str) -> str:
    """``HOST:PORT`` of a store URL (6379 when it names no port), as ``~/.netrc`` names it."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or 6379
    except ValueError:
        return ""
    if not host:
        return ""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def without_password(url: str) -> str:
    """The URL with no password in it (for a job's settings: the job's node finds its own)."""
    return split_password(url)[0] if isinstance(url, str) else url


__all__ = ["Credentials", "PASSWORD_ENV", "mask_password", "read_password_file", "split_password",
           "store_credentials", "without_password"]
