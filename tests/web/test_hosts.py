"""The names the dashboard answers to (issue 29, row 13: DNS rebinding): loopback names and
addresses, the names it was given, any address when it serves other machines; nothing else."""

from __future__ import annotations

import pytest

pytest.importorskip("flask")

from newsforagers.web.hosts import HostCheck, host_name  # noqa: E402


@pytest.mark.parametrize("text, name", [
    ("Dash.Example.ORG", "dash.example.org"), ("dash.example.org.", "dash.example.org"),
    ("127.0.0.1", "127.0.0.1"), ("[::1]", "::1"), ("::1", "::1"), ("localhost", "localhost"),
    ("xn--bcher-kva.example", "xn--bcher-kva.example"),
])
def test_a_name_or_an_address_as_compared(text, name):
    assert host_name(text) == name


@pytest.mark.parametrize("text", ["", "dash.example.org:8050", "http://dash.example.org",
                                  "a b", "-dash.example", "dash..example", "bücher.example",
                                  "x" * 64 + ".example", "*.example.org"])
def test_anything_else_is_no_name(text):
    assert host_name(text) is None


def test_loopback_names_and_addresses_by_default():
    check = HostCheck()
    for host in ("localhost", "localhost:1", "127.0.0.1:8050", "127.9.9.9", "[::1]:8050", None):
        assert check.allows(host), host
    for host in ("attacker.example", "attacker.example:8050", "127.0.0.1.nip.io", "192.0.2.1",
                 "[2001:db8::1]", "::1", "", " ", "localhost:80:80", "localhost/x", "local\x1bhost"):
        assert not check.allows(host), host


def test_names_given_and_any_address():
    check = HostCheck(["dash.example.org", "not a name", ""], addresses=True)
    assert check.names == {"dash.example.org", "localhost"}
    for host in ("DASH.example.org:443", "192.0.2.1", "[2001:db8::1]:8050", "localhost"):
        assert check.allows(host), host
    for host in ("attacker.example", "sub.dash.example.org", "dash.example.org.attacker.example"):
        assert not check.allows(host), host
