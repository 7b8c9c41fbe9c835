"""``pip install .`` with the pip that Python 3.11's ``venv`` ships, not upgraded, as a user who
follows no instruction but ``pip install`` does: the forager must import.

The pip of Python 3.11's venv (23.2) does not match justext's ``lxml[html_clean]`` with the
``html-clean`` extra that lxml's metadata now declares: it installed no HTML cleaner and
``import newsforagers.spiders.forager`` failed (``Install lxml[html-clean] or lxml_html_clean
directly``) until setup.py required ``lxml_html_clean`` itself. The installed package must also
hold the dashboard's templates and static files (setup.py's ``package_data``).

The repository is copied first (only what a build reads), so that the build leaves no
``build/`` or egg-info in the checkout. The new venv's pip runs with the user's pip configuration
and download cache, as ``make venv``'s does (nothing here turns the cache off). It needs the
package registry: without it the test skips, or fails where ``NEWSFORAGERS_REQUIRE_INSTALL=1``
(CI).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.needs import skip_or_fail

REPO = Path(__file__).resolve().parents[2]
REQUIRE_ENV = "NEWSFORAGERS_REQUIRE_INSTALL"
#: what a build of the package reads
BUILD_FILES = ("setup.py", "MANIFEST.in", "README.md", "newsforagers")
#: pip's words for a package registry it could not reach
UNREACHABLE = ("NewConnectionError", "Temporary failure in name resolution",
               "Network is unreachable")
INSTALL_TIMEOUT = 1200

# pip downloads and unpacks some 70 packages (Scrapy, Twisted, NumPy, SciPy, scikit-learn...):
# measured, 19 s for `pip install .` and 22 s for the test on a development machine, whose pip
# cache held nothing; the generous limit is for a slow registry.
pytestmark = pytest.mark.timeout(INSTALL_TIMEOUT + 120)


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, **kwargs)


def test_pip_install_with_python_3_11_s_own_pip_gives_an_importable_forager(tmp_path):
    python = shutil.which("python3.11")
    skip_or_fail(None if python else "no python3.11 on PATH", REQUIRE_ENV)
    source = tmp_path / "src"
    source.mkdir()
    for name in BUILD_FILES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(REPO / name, source / name)
    venv = tmp_path / "v"
    made = run(python, "-m", "venv", venv, timeout=120)
    assert made.returncode == 0, made.stderr
    # the pip the venv was made with, not upgraded (23.2.1 with Python 3.11.7)
    pip_version = run(venv / "bin" / "pip", "--version", timeout=60).stdout.split()[1]
    bundled = run(python, "-c", "import ensurepip; print(ensurepip.version())", timeout=60)
    assert pip_version == bundled.stdout.strip(), (pip_version, bundled.stdout)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    started = time.monotonic()
    # (--no-compile: what is resolved and installed is the same, without the byte-compiling of
    # some 70 packages' sources, a third of the install's time: 30 s -> 20 s, measured)
    installed = run(venv / "bin" / "pip", "install", "--no-compile", source, env=env, timeout=INSTALL_TIMEOUT)
    seconds = time.monotonic() - started
    output = installed.stdout + installed.stderr
    if installed.returncode != 0 and any(word in output for word in UNREACHABLE):
        skip_or_fail(f"pip could not reach the package registry:\n{output[-2000:]}", REQUIRE_ENV)
    assert installed.returncode == 0, output[-4000:]
    print(f"pip {pip_version}: `pip install .` took {seconds:.0f} s")
    # (the dashboard's package is not imported: Flask comes with the [web] extra only)
    check = ("import importlib.util, json, pathlib, newsforagers.spiders.forager; "
             "web = importlib.util.find_spec('newsforagers.web'); "
             "where = pathlib.Path(web.submodule_search_locations[0]); "
             "print(json.dumps({'package': str(where), 'data': sorted("
             "p.relative_to(where).as_posix() for p in where.rglob('*') "
             "if p.suffix in ('.html', '.js', '.css'))}))")
    imported = run(venv / "bin" / "python", "-c", check, env=env, cwd=tmp_path, timeout=120)
    assert imported.returncode == 0, imported.stderr[-4000:]
    found = json.loads(imported.stdout)
    # the installed package, not the checkout, with its data
    assert Path(found["package"]).is_relative_to(venv), found["package"]
    assert {"templates/base.html", "templates/colony.html", "static/dashboard.js",
            "static/dashboard.css"} <= set(found["data"]), found["data"]
