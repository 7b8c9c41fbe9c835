"""``newsforagers web [--store STORE] [--prefix P] [--index PATH] [--run RUN_DIR] [--host H] [--port P]
[--allow-remote [NAME]]``: the dashboard.

Serves :func:`newsforagers.web.create_app` with werkzeug's threaded server until SIGINT or
SIGTERM (exit status 0). The store and the run are named as every command names them
(:mod:`~newsforagers.commands.arguments`), with the same defaults: the store a crawl keeps by
default (unless ``--index`` alone is given: then the index alone) and the index beside it, and
the newest run under ``.newsforagers/runs/``, looked up again as runs start. A source that is
not there yet is no error: the dashboard may start before the crawl. It listens on 127.0.0.1
unless told otherwise; a host that is not a loopback address needs ``--allow-remote`` (the
dashboard has no login: anyone who reaches the port reads what the colony found), and is then
served with a warning. It answers only requests that name it in their ``Host`` header
(:mod:`newsforagers.web.hosts`, against DNS rebinding): ``localhost``, a loopback address, the
``--host``, each ``--allow-remote NAME`` and, with ``--allow-remote``, any IP address. The
first line on standard output says what is served where, ``serving the dashboard of store
STORE, index PATH and run RUN at URL``: the URL is its last word, the store's password hidden.
Exit status 2, with one line on stderr, when Flask is missing (the ``[web]`` extra), the host
or a name is refused, or the port cannot be bound (it is bound before the server is made, so
that werkzeug says nothing of its own).
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import sys

from newsforagers.commands.arguments import (
    DEFAULT_STORE,
    RUNS_DIR,
    add_run_argument,
    add_store_arguments,
    runs_newest_first,
    store_file,
    store_options,
)

HELP = "serve a dashboard: search the documents found, the latest discoveries, the colony"

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8050

logger = logging.getLogger(__name__)


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{value!r} must be between 0 and 65535 (0: any free port)")
    return port


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_store_arguments(parser, help="the colony store to show (it may not exist yet: a crawl "
                        "about to start)", default_note=", unless --index alone is given")
    parser.add_argument("--index", metavar="PATH", default=None,
                        help="the document index to search (default: the one the colony keeps "
                        "beside the store)")
    add_run_argument(parser, help="the colony's run directory to show",
                     default_note=", looked up again as runs start")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"the address to listen on (default {DEFAULT_HOST}; another than a "
                        "loopback address needs --allow-remote)")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT,
                        help=f"the port (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--allow-remote", action="append", nargs="?", const="", default=None,
                        metavar="NAME",
                        help="allow a --host other machines can reach (the dashboard has no "
                        "login); with NAME (again for each), a host name the dashboard answers "
                        "to besides localhost, loopback addresses, the --host and, with "
                        "--allow-remote, any IP address: a request naming another gets 400 "
                        "(DNS rebinding)")


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def check_host(host: str, allow_remote: bool) -> tuple[str | None, str | None]:
    """``(error, warning)`` for listening on ``host``: an error for a non-loopback host
    without ``allow_remote``, a warning with it."""
    if is_loopback(host):
        return None, None
    if not allow_remote:
        return (f"refusing to listen on {host}, which other machines may reach: the dashboard "
                "has no login. Give --allow-remote to serve it there anyway "
                f"(or --host {DEFAULT_HOST})"), None
    return None, (f"listening on {host} (--allow-remote): anyone who reaches this port reads "
                  "what the colony found and the state of its foragers; the dashboard has no login")


def _error(message: str) -> int:
    print(f"newsforagers web: {message}", file=sys.stderr)
    return 2


def sources(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The store's URL and the index's path the arguments name: ``--store`` (by default the
    store a crawl keeps, unless ``--index`` alone is given, which serves that index alone) and
    ``--index`` (by default the one the colony keeps beside the store)."""
    store = args.store
    if store is None and args.index is None:
        store = DEFAULT_STORE
    index = args.index
    if index is None and store is not None:
        from newsforagers.index import default_index_path

        try:
            index = str(default_index_path(store, args.prefix))
        except ValueError:
            index = None  # a store URL with a bad port: its pages say what is wrong with it
    return store, index


def describe(args: argparse.Namespace) -> str:
    """What the dashboard shows, for its first line: ``the dashboard of store STORE, index PATH
    and run RUN``, a source that is not there yet said to be so (the dashboard reads it once it
    is) and a password never shown."""
    from pathlib import Path

    from newsforagers.errors import mask_password

    def there(yes: bool) -> str:
        return "" if yes else " (not there yet)"

    store, index = sources(args)
    parts = []
    if store is not None:
        path = store_file(store)
        parts.append(f"store {mask_password(store)}{there(path is None or path.is_file())}")
    if index is not None:
        parts.append(f"index {index}{there(Path(index).is_file())}")
    if args.run is not None:
        parts.append(f"run {args.run}{there(Path(args.run).is_dir())}")
    else:
        runs = runs_newest_first()
        parts.append(f"the newest run under {RUNS_DIR}/ ({runs[0].name + ' now' if runs else 'none yet'})")
    return f"the dashboard of {', '.join(parts[:-1])} and {parts[-1]}"


def remote_names(args: argparse.Namespace) -> list[str]:
    """The names given with ``--allow-remote NAME``."""
    return [name for name in args.allow_remote or () if name]


def build_app(args: argparse.Namespace):
    """The application the arguments describe (:func:`sources`), answering to the names they
    give (:func:`remote_names`, the ``--host``) and, with ``--allow-remote``, to any address."""
    from newsforagers.web import create_app

    store, index = sources(args)
    return create_app(store, index=index, run_dir=args.run, **store_options(args),
                      hosts=[args.host, *remote_names(args)], any_address=bool(args.allow_remote))


def run(args: argparse.Namespace, *, serve=None) -> int:
    """``serve(app, host, port)`` replaces the server (for tests)."""
    from newsforagers.cli import missing_extra

    problem = missing_extra("flask", "web")
    if problem:
        return _error(f"the dashboard needs Flask, and {problem}")
    error, warning = check_host(args.host, bool(args.allow_remote))
    if error:
        return _error(error)
    from newsforagers.web.hosts import host_name

    for name in remote_names(args):
        if host_name(name) is None:
            return _error(f"--allow-remote {name!r} is no host name or address: give the name "
                          "clients write in the dashboard's URL, without a port "
                          "(--allow-remote dashboard.example.org)")
    if warning:
        logger.warning("%s", warning)
    app = build_app(args)
    if not logging.getLogger().isEnabledFor(logging.DEBUG):
        # a line per request (the pages poll every second or two) only with -v
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    if serve is not None:
        return serve(app, args.host, args.port)
    return _serve(app, args.host, args.port, what=describe(args))


def listen(host: str, port: int):
    """A socket listening on ``host``:``port`` (an IPv6 address for a host with a ``:``, as
    werkzeug chooses). OSError when it cannot be had (a port in use, an unknown host)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    address = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM, socket.IPPROTO_TCP)[0][4]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as werkzeug does
        sock.bind(address)
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return sock


def _serve(app, host: str, port: int, what: str = "the dashboard") -> int:
    import errno
    import signal
    import threading

    from werkzeug.serving import make_server

    # bound here: werkzeug's server, binding it, prints two lines of its own and exits with 1
    try:
        sock = listen(host, port)
    except OSError as exc:
        hint = ("; another program has it: give another --port, or --port 0 for any free one"
                if exc.errno == errno.EADDRINUSE else "")
        return _error(f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}")
    with sock:
        server = make_server(host, port, app, threaded=True, fd=sock.fileno())
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    shown = f"[{host}]" if ":" in host else host
    print(f"serving {what} at http://{shown}:{server.port}/", flush=True)
    # the server in a thread, the main thread waiting for a signal: shutdown() must be called
    # from another thread than the one in serve_forever()
    thread = threading.Thread(target=server.serve_forever, name="newsforagers-web", daemon=True)
    thread.start()
    try:
        while not stop.wait(0.5) and thread.is_alive():
            pass
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    logger.info("dashboard stopped")
    return 0
