"""The names the dashboard answers to: its defence against DNS rebinding.

A page of any site can have the browser that shows it ask the dashboard's port, and read the
answer: its own name, looked up again, resolves to 127.0.0.1 (or to the dashboard's address)
— "DNS rebinding" — so that for the browser the request goes to the page's own origin, which
the same-origin policy lets it read. The request still names that site in its ``Host``
header, and that is what :class:`HostCheck` looks at. The dashboard answers a ``Host`` that
is ``localhost`` or a loopback address; one of the names it was given (``newsforagers web
--allow-remote NAME``); and, when it serves other machines, any IP address: an address is
no name a DNS answer can move. The port is not looked at: a browser sends the one it
connected to. A request without a ``Host`` (HTTP/1.0) comes from no browser, and passes.
"""

from __future__ import annotations

import ipaddress
import re

# a Host header: a name or an IPv4 address, or an IPv6 address in brackets, then a port
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::[0-9]{1,5})?", re.ASCII | re.IGNORECASE)
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)", re.ASCII)


def host_name(text: str) -> str | None:
    """The name or address ``text`` says, as the check compares it: a name in lower case
    without a final dot, an address as :mod:`ipaddress` writes it (an IPv6 one without its
    brackets); None for anything else (a port, a scheme, a space...)."""
    text = text.strip().lower()
    address = _address(text.removeprefix("[").removesuffix("]") if text.startswith("[") else text)
    if address is not None:
        return str(address)
    name = text.removesuffix(".")
    if 0 < len(name) <= 253 and all(_LABEL.fullmatch(label) for label in name.split(".")):
        return name
    return None


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class HostCheck:
    """Whether a request's ``Host`` header names this dashboard: ``localhost``, a loopback
    address, one of ``names`` (host names or addresses), or — with ``addresses``, when the
    dashboard serves other machines — any IP address."""

    def __init__(self, names=(), *, addresses: bool = False):
        self.names = frozenset(filter(None, map(host_name, names))) | {"localhost"}
        self.addresses = addresses

    def allows(self, host: str | None) -> bool:
        if host is None:
            return True  # HTTP/1.0: no browser, no page to rebind
        match = _HOST.fullmatch(host.strip())
        if match is None:
            return False
        name = host_name(match.group(1))
        if name is None:
            return False
        if name in self.names:
            return True
        address = _address(name)
        return address is not None and (self.addresses or address.is_loopback)


__all__ = ["HostCheck", "host_name"]
