"""What tests that start real servers share: a free loopback port, and skipping (or, where CI
says the part must be there, failing) when a part of the machine is missing."""

from __future__ import annotations

import os
import socket


def required(env: str) -> bool:
    """Whether the environment variable ``env`` says a missing part is a failure (CI sets it)."""
    return os.environ.get(env, "").strip() not in ("", "0", "false", "no")


def skip_or_fail(reason: str | None, env: str) -> None:
    """Nothing when ``reason`` is None (the part is there); else skip the calling test with
    it, or fail when ``env`` says the part must be there."""
    import pytest

    if reason is None:
        return
    if required(env):
        pytest.fail(reason)
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (taken again by the time it is used, rarely: a server
    that cannot bind it is started on another)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
