"""The `seat-curator` command: one parser, subcommands registered by the modules in ``curator.commands``.

Each command module exposes ``register(subparsers)`` and sets ``func`` on its parser; the function
returns an exit code. Errors are ``CuratorError`` values, printed as one line and mapped to exit 1
(or the error's own exit code) — never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from curator.errors import CuratorError

# Order is the order shown in --help.
COMMAND_MODULES = [
    "curator.commands.demo",
    "curator.commands.app",
    "curator.commands.check",
    "curator.commands.fleet",
    "curator.commands.canary",
    "curator.commands.levers",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seat-curator",
        description="Give every AI-agent seat a durable, self-loading memory, and keep it small enough to load.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        default = getattr(sys.modules.get("curator.commands.app"), "run_default", None)
        if default is not None:
            return default(args)
        parser.print_help()
        return 0
    try:
        return int(func(args) or 0)
    except CuratorError as err:
        print(f"seat-curator: {err.code}: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`seat-curator plan | head`): stop quietly, as other Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
