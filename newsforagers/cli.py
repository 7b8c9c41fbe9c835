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
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="newsforagers",
        description="A self-organising colony of Scrapy crawlers that finds breaking news.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
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
