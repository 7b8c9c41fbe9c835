"""A forager whose Redis store does not answer stops as soon as it is asked (issue 29, row 14):
SIGINT (Ctrl-C, scrapyd's ``cancel.json``) or SIGTERM ends its retries at once instead of after
``FORAGERS_STORE_RETRY`` seconds, with one line naming the store."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.integration.forager_run import REPO
from tests.needs import free_port
from tests.scrapyd_nodes import clean_env

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_ends_the_retries_of_a_store_that_does_not_answer(tmp_path, signum):
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nobody listens there
    log = tmp_path / "crawl.log"
    argv = [sys.executable, "-m", "scrapy", "crawl", "forager", "-a", "seeds=http://127.0.0.1:9/",
            "-a", "role=member", "-a", "forager=f2", "-s", f"FORAGERS_STORE={dead}",
            "-s", "FORAGERS_STORE_RETRY=60", "-s", f"LOG_FILE={log}", "-s", "TELNETCONSOLE_ENABLED=False"]
    process = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=clean_env())
    try:
        deadline = time.monotonic() + 60
        while "does not answer" not in (log.read_text() if log.exists() else ""):
            assert process.poll() is None and time.monotonic() < deadline, "it never tried the store"
            time.sleep(0.1)
        asked = time.monotonic()
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=30)
        took = time.monotonic() - asked
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert took < 10, f"{took:.1f} s after the signal"  # not the 60 s of FORAGERS_STORE_RETRY
    text = log.read_text()
    assert "stopped retrying: the process is stopping" in text + stderr, text[-3000:]
    assert "Traceback" not in text + stderr, (text + stderr)[-3000:]
