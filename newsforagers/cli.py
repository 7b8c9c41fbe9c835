"""The ``newsforagers`` command line.

Each sub-command lives in its own module, which defines ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int``; those modules keep their heavy imports
inside ``run`` so that ``newsforagers --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

# sub-command -> module implementing it
COMMANDS = {
    "demo": "newsforagers.commands.demo",
    "sim": "newsforagers.commands.sim",
    "status": "newsforagers.commands.status",
    "train": "newsforagers.commands.train",
    "replay": "newsforagers.commands.replay",
    "synth": "newsforagers.commands.synth",
    "bench": "newsforagers.commands.bench",
    "export": "newsforagers.commands.export",
    "index": "newsforagers.commands.index",
    "search": "newsforagers.commands.search",
    "web": "newsforagers.commands.web",
}


def missing_extra(module: str, extra: str) -> str | None:
    """None when the optional dependency ``module`` imports; else one line saying which extra of
    the package installs it (:func:`~newsforagers.errors.install_hint`).

    Commands call this before any work starts, so that a missing package is not found out by
    the last step of a long run.
    """
    try:
        importlib.import_module(module)
    except ImportError as exc:
        missing = getattr(exc, "name", None)
        what = ("is not installed" if missing and missing.split(".")[0] == module.split(".")[0]
                else f"cannot be imported ({exc})")
        from newsforagers.errors import install_hint

        return f"{module} {what}: {install_hint(extra)}"
    return None


def package_version() -> str:
    """The installed package's version, from its metadata (what pip and a bug report see), or
    ``unknown`` when the package runs from a checkout that was never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("newsforagers")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="newsforagers",
        description="A self-organising colony of Scrapy crawlers that finds breaking news.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}",
                        help="print the package's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        command_parser = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command_parser)
        command_parser.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
