"""Run a command and write its peak resident set size: ``python -m tests.integration.peak_rss
OUT CAP_BYTES -- ARGV...``.

A crawl's peak memory, measured by the kernel: this process is the crawl's only parent, so
``getrusage(RUSAGE_CHILDREN).ru_maxrss`` once it has been waited for is the crawl's own peak
(the pytest process's children are every crawl of the session, and /proc/PID/status is gone
by the time a crawl is reaped). OUT gets the peak in bytes.

With CAP_BYTES > 0 the command runs under that address-space limit (RLIMIT_AS): a crawl that
would take gigabytes (a gzip bomb read into memory) fails with MemoryError instead of taking
a shared machine's memory; it has still failed its test (the peak it reached, a MemoryError's
traceback).

It stands in for the crawl as its harness sees it: SIGINT (a user's stop), SIGTERM and SIGABRT
(the harness's hang detector, for faulthandler's stacks) are passed on, and its exit code is
the crawl's (minus the signal number when a signal ended it, as subprocess reports).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGABRT)


def main(argv: list[str]) -> int:
    out, cap, separator, *command = argv
    if separator != "--" or not command:
        raise SystemExit(__doc__)
    if int(cap) > 0:
        resource.setrlimit(resource.RLIMIT_AS, (int(cap), int(cap)))
    children: list[subprocess.Popen] = []
    for number in FORWARDED:  # before the crawl starts: a stop that comes early still reaches it
        signal.signal(number, lambda received, frame: [child.send_signal(received) for child in children])
    children.append(subprocess.Popen(command))
    returncode = children[0].wait()  # (a forwarded signal does not interrupt it: PEP 475)
    # ru_maxrss is in KiB on Linux
    Path(out).write_text(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024))
    if returncode < 0:  # ended by a signal: end the same way, so the harness sees it
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # (SIGABRT: no core file left behind)
        signal.signal(-returncode, signal.SIG_DFL)
        os.kill(os.getpid(), -returncode)
    return returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
