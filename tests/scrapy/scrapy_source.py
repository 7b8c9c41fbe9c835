"""Where Scrapy's own test suite comes from: the source distribution of the installed Scrapy.

Nothing of Scrapy's is kept in this repository. The sdist of exactly ``scrapy.__version__`` is
fetched from the package registry with pip (once per machine) into a cache directory, and its
``tests/`` package, with the ``conftest.py`` and ``pyproject.toml`` (pytest configuration) that
sit beside it, is extracted there, without the ``scrapy/`` source tree, so that the tests run
against the *installed* Scrapy that ``ForagerScheduler`` extends.

Scrapy's suite is run with ``pytest-twisted`` (its own CI's default mode). That plugin is kept
out of this project's virtualenv on purpose: installed there it would load into our whole test
session and install a reactor at start-up. So it (with its two dependencies) is installed with
``pip install --target`` into the same cache and put on the ``PYTHONPATH`` of the subprocess that
runs Scrapy's tests only, unless it is importable already.

Cache directory: ``$NEWSFORAGERS_SCRAPY_SDIST_DIR``, default ``~/.cache/newsforagers/scrapy-sdist``.
When the sdist cannot be had (no network), :class:`Unavailable` says why; the tests skip with that
reason, or fail if ``NEWSFORAGERS_REQUIRE_SCRAPY_TESTS=1`` (for a CI that must run them).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import scrapy

from tests.needs import required

CACHE_ENV = "NEWSFORAGERS_SCRAPY_SDIST_DIR"
REQUIRE_ENV = "NEWSFORAGERS_REQUIRE_SCRAPY_TESTS"
DEFAULT_CACHE = Path.home() / ".cache" / "newsforagers" / "scrapy-sdist"

#: what Scrapy's tests need beyond Scrapy, pytest and the project's own dependencies, for the
#: modules the contract adapter runs (Scrapy's tox.ini asks for pytest-twisted >= 1.14.3)
HARNESS_REQUIREMENTS = ("pytest-twisted>=1.14.3", "greenlet>=3", "decorator>=5")

#: the files of the sdist, besides ``tests/``, that Scrapy's tests need: the root conftest (the
#: ``mockserver`` fixture, the ``--reactor`` option, the TLS keys the mock server uses) and the
#: pytest configuration (markers, ``--reactor=asyncio``, warnings as errors)
ROOT_FILES = ("conftest.py", "pyproject.toml")

PIP_TIMEOUT = 600


class Unavailable(Exception):
    """Scrapy's test suite, or what runs it, could not be had on this machine."""


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or DEFAULT_CACHE).expanduser()


def require_scrapy_tests() -> bool:
    return required(REQUIRE_ENV)


@contextlib.contextmanager
def _locked(directory: Path):
    """One fetch at a time per cache directory (two test runs on one machine)."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", *args, "--disable-pip-version-check",
               "--no-input", "--quiet", "--timeout", "30", "--retries", "2"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise Unavailable(f"`{' '.join(command[2:])}` did not complete: {error}") from error
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise Unavailable(f"`{' '.join(command[2:])}` failed (exit {done.returncode}):\n{tail}")


def _sdist(version: str, root: Path) -> Path:
    """The sdist tarball of Scrapy ``version`` in ``root``, downloaded if it is not there."""
    name = f"scrapy-{version}.tar.gz"
    tarball = root / name
    if tarball.is_file():
        return tarball
    with tempfile.TemporaryDirectory(dir=root, prefix=".download-") as tmp:
        # `--no-binary scrapy` rather than `:all:`: the same file (the sdist), without building
        # Scrapy's build backend (hatchling and its dependencies) from source as well
        _pip("download", f"scrapy=={version}", "--no-binary", "scrapy", "--no-deps",
             "--dest", tmp)
        found = list(Path(tmp).glob(f"[sS]crapy-{version}.tar.gz"))
        if not found:
            raise Unavailable(f"pip downloaded no {name} (got {os.listdir(tmp)})")
        os.replace(found[0], tarball)
    return tarball


def _extract_tests(tarball: Path, version: str, dest: Path) -> None:
    prefix = f"scrapy-{version}/"
    wanted = (prefix + "tests/",) + tuple(prefix + f for f in ROOT_FILES)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".extract-") as tmp:
        with tarfile.open(tarball) as archive:
            members = [m for m in archive.getmembers()
                       if m.name.startswith(wanted[0]) or m.name in wanted[1:]]
            if not any(m.name == prefix + "tests/test_scheduler.py" for m in members):
                raise Unavailable(f"{tarball.name} has no tests/test_scheduler.py")
            # the "data" filter (Python >= 3.11.4) refuses links and paths that leave `tmp`
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(tmp, members=members, **safe)
        (Path(tmp) / prefix / ".complete").write_text(version + "\n")
        shutil.rmtree(dest, ignore_errors=True)
        os.replace(Path(tmp) / prefix, dest)


def scrapy_tests_root(version: str | None = None) -> Path:
    """A directory holding Scrapy ``version``'s ``tests/`` package, ``conftest.py`` and
    ``pyproject.toml`` (default: the installed Scrapy's version). Raises :class:`Unavailable`."""
    version = version or scrapy.__version__
    root = cache_dir()
    dest = root / f"scrapy-{version}"
    if (dest / ".complete").is_file():
        return dest
    with _locked(root):
        if not (dest / ".complete").is_file():
            _extract_tests(_sdist(version, root), version, dest)
    return dest


def harness_path() -> Path | None:
    """A directory to put on the ``PYTHONPATH`` of the subprocess that runs Scrapy's tests so
    that it finds pytest-twisted, or None when it is importable here already. Installs it into
    the cache directory the first time. Raises :class:`Unavailable`."""
    if importlib.util.find_spec("pytest_twisted") is not None:
        return None
    root = cache_dir()
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    dest = root / f"harness-{tag}"
    if (dest / ".complete").is_file():
        return dest
    with _locked(root):
        if not (dest / ".complete").is_file():
            with tempfile.TemporaryDirectory(dir=root, prefix=".harness-") as tmp:
                # --no-deps: pytest itself must stay the virtualenv's one
                _pip("install", "--no-deps", "--target", tmp, *HARNESS_REQUIREMENTS)
                (Path(tmp) / ".complete").write_text("\n".join(HARNESS_REQUIREMENTS) + "\n")
                shutil.rmtree(dest, ignore_errors=True)
                os.replace(tmp, dest)
                os.mkdir(tmp)  # for TemporaryDirectory's cleanup
    return dest
