"""A real ``redis-server`` for tests, on loopback, that keeps its data across a restart.

:func:`start_server` runs ``redis-server`` bound to 127.0.0.1 on a free port, in a directory
of its own, with the append-only file written and fsynced at every write (``--appendonly yes
--appendfsync always``) and no RDB snapshots: :meth:`RedisServer.restart` (or a
:meth:`~RedisServer.stop` then :meth:`~RedisServer.start`) brings it back on the same port
with every acknowledged write, as a production server configured so would. It returns once
the server answers PING (not ``-LOADING``).

When ``redis-server`` is not on PATH the tests that need it skip, saying so, unless
``NEWSFORAGERS_REQUIRE_REDIS=1`` (then they fail: CI sets it).
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.needs import free_port, skip_or_fail

REQUIRE_ENV = "NEWSFORAGERS_REQUIRE_REDIS"
#: seconds a server may take to answer PING after it was started
START_TIMEOUT = 20.0
#: seconds a server may take to end after SIGTERM before SIGKILL
STOP_GRACE = 10.0


def redis_missing() -> str | None:
    """Why redis-server cannot run here (None: it can)."""
    if shutil.which("redis-server") is None:
        return (f"redis-server is not on PATH (apt install redis-server; set {REQUIRE_ENV}=1 "
                "to make this a failure)")
    return None


def require_redis() -> None:
    """Skip the calling test when redis-server is missing, or fail with ``NEWSFORAGERS_REQUIRE_REDIS=1``."""
    skip_or_fail(redis_missing(), REQUIRE_ENV)


def _answer(port: int, password: str) -> bytes:
    """The server's first reply line to (AUTH and) PING, b"" when it does not answer."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            if password:
                sock.sendall(f"AUTH {password}\r\n".encode())
                if not sock.recv(1024).startswith(b"+OK"):
                    return b""
            sock.sendall(b"PING\r\n")
            return sock.recv(1024)
    except OSError:
        return b""


class RedisServer:
    """One ``redis-server`` on ``127.0.0.1:port``, its files in ``directory``."""

    def __init__(self, directory: Path, port: int | None = None, password: str = ""):
        self.directory = Path(directory)
        self.port = port
        self.password = password
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``, with the password when the server has one."""
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start the server (on a free port the first time, on its port after) and wait until
        it answers; a port taken between its choice and the start is given up for another."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for _ in range(3 if self.port is None else 1):
            port = self.port or free_port()
            command = ["redis-server"]
            if self.password:
                # in a file of the server's own, readable by its user only, as an operator keeps
                # it (docs/deployment.md, Secrets): a --requirepass argument would be in ps
                conf = self.directory / "redis.conf"
                conf.touch(mode=0o600)
                conf.chmod(0o600)
                conf.write_text(f"requirepass {self.password}\n", encoding="utf-8")
                command.append(str(conf))
            command += ["--bind", "127.0.0.1", "--port", str(port),
                        "--dir", str(self.directory), "--appendonly", "yes", "--appendfsync", "always",
                        "--save", "", "--daemonize", "no", "--logfile", str(self.directory / "redis.log")]
            self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline and self.process.poll() is None:
                if _answer(port, self.password).startswith(b"+PONG"):
                    self.port = port
                    return self
                time.sleep(0.02)
            self.stop()
        log = self.directory / "redis.log"
        raise RuntimeError(f"redis-server did not start on 127.0.0.1:{self.port or port}: "
                           f"{log.read_text()[-2000:] if log.exists() else 'no log'}")

    def stop(self, kill: bool = False) -> None:
        """End the server: SIGTERM (it writes what it holds and exits), or SIGKILL with
        ``kill`` (a crash: only what the append-only file has survives)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            process.wait(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_GRACE)

    def restart(self, down: float = 1.0, kill: bool = False) -> None:
        """Stop the server, leave it down ``down`` seconds, start it on the same port and files."""
        self.stop(kill=kill)
        time.sleep(down)
        self.start()


def start_server(directory: Path, password: str = "") -> RedisServer:
    """A running server in ``directory`` (skips or fails the test when there is no redis-server)."""
    require_redis()
    return RedisServer(directory, password=password).start()
