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
from typing import Any

from curator.errors import CuratorError, from_os_error

# Module → the subcommands it registers. Order is the order shown in --help. Only the module of the
# command being run is imported, so `seat-curator tui` never pays for the generators or the canary;
# a test checks this table against what each module really registers.
COMMAND_MODULES = {
    "curator.commands.demo": ("demo",),
    "curator.commands.app": ("tui",),
    "curator.commands.check": ("check",),
    "curator.commands.fleet": ("init-fleet", "plan", "provision", "set-aside"),
    "curator.commands.canary": ("canary",),
    "curator.commands.harnesses": ("install-harnesses",),
    "curator.commands.fit": ("fit",),
    "curator.commands.mcp": ("mcp",),
    "curator.commands.levers": (
        "candidates", "merge", "archive", "restore", "archive-search", "trim", "fold", "undo", "redo",
    ),
}


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # ~20 ms: only when the version is asked

    try:
        return version("seat-curator")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


class VersionAction(argparse.Action):
    """``--version``, looked up only when asked: every other command (``tui`` first) starts sooner."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"{parser.prog} {package_version()}")
        parser.exit()


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv`` naming a known command, only that command's module is loaded."""
    parser = argparse.ArgumentParser(
        prog="seat-curator",
        description="Give every AI-agent seat a durable, self-loading memory, and keep it small enough to load.",
    )
    parser.add_argument("--version", action=VersionAction)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = next((arg for arg in argv or () if not arg.startswith("-")), None)
    modules = [name for name, commands in COMMAND_MODULES.items() if wanted in commands] or list(COMMAND_MODULES)
    for name in modules:
        importlib.import_module(name).register(subparsers)
    return parser


def _print_paths_as_bytes() -> None:
    """A path that is not UTF-8 arrives with lone surrogates (Python's surrogateescape); printing it
    in a strict UTF-8 locale would raise. Print it as the bytes it is, as other Unix tools do."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "encoding", "").lower().replace("-", "") == "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    _print_paths_as_bytes()
    if not argv:  # bare `seat-curator`: open ./memory, or say how to start
        from curator.commands.app import run_default

        return run_default(argparse.Namespace())
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
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
    except OSError as err:  # one a command did not turn into a CuratorError: still one line naming the file
        error = from_os_error(err, "cannot access")
        print(f"seat-curator: {error.code}: {error}", file=sys.stderr)
        return error.exit_code
