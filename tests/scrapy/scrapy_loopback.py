"""Run one of Scrapy's test mock servers listening on 127.0.0.1 only.

``python -m scrapy_loopback tests.mockserver.http [ARGS...]`` runs that module as ``__main__``
with ARGS, after making the global Twisted reactor's ``listenTCP``/``listenSSL``/``listenUDP``
bind to 127.0.0.1 when no interface is given (their servers listen on port 0 of every interface
otherwise). Started for them by ``scrapy_contract_plugin``; the mock server's own code is
untouched. Only the reactor-based servers are allowed.
"""

from __future__ import annotations

import runpy
import sys

LOOPBACK = "127.0.0.1"
ALLOWED = ("tests.mockserver.http", "tests.mockserver.simple_https",
           "tests.mockserver.proxy_echo", "tests.mockserver.dns")


def _bind_to_loopback(reactor) -> None:
    tcp, ssl, udp = reactor.listenTCP, reactor.listenSSL, reactor.listenUDP

    def listenTCP(port, factory, backlog=50, interface=""):
        return tcp(port, factory, backlog, interface or LOOPBACK)

    def listenSSL(port, factory, contextFactory, backlog=50, interface=""):
        return ssl(port, factory, contextFactory, backlog, interface or LOOPBACK)

    def listenUDP(port, protocol, interface="", maxPacketSize=8192):
        return udp(port, protocol, interface or LOOPBACK, maxPacketSize)

    reactor.listenTCP, reactor.listenSSL, reactor.listenUDP = listenTCP, listenSSL, listenUDP


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in ALLOWED:
        sys.exit(f"scrapy_loopback: expected one of {', '.join(ALLOWED)}, got {sys.argv[1:2]}")
    target = sys.argv.pop(1)
    from twisted.internet import reactor  # the same default reactor the server module takes

    _bind_to_loopback(reactor)
    runpy.run_module(target, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
