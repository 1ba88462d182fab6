"""`seat-curator tui`: open the curator on a seat (MEMORY_DIR) or a fleet (--fleet fleet.toml).

``run_default`` is what a bare ``seat-curator`` does: open ./memory when there is one, else this
project's Claude Code memory (``curator.locate``), else say where it looked and how to start (exit 1).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from curator.bounds import refuse_large_file
from curator.errors import InputError
from curator.locate import locate_memory_dir

HOW_TO_START = """\
  seat-curator tui MEMORY_DIR          open a seat's hot index (the directory holding MEMORY.md)
  seat-curator tui --fleet fleet.toml  open the fleet panel
  seat-curator demo                    build a demo fleet and open it
  seat-curator --help                  every command
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tui",
        help="open the curator app on a seat or a fleet",
        description="Open the curator: a seat's hot index with a live byte meter (MEMORY_DIR), "
        "or the fleet divergence panel (--fleet).",
    )
    parser.add_argument("memory_dir", nargs="?", metavar="MEMORY_DIR",
                        help="the seat's memory directory (default: ./memory, else this project's Claude Code memory)")
    parser.add_argument("--fleet", metavar="FLEET_TOML", help="the fleet manifest: open the fleet panel")
    parser.add_argument("--resident", metavar="AGENT_ID", help="with --fleet and MEMORY_DIR: the seat's agent id")
    parser.add_argument("--profile", choices=("claude-code", "kimi-code", "opencode"),
                        help="harness profile for the meter's line cap (claude-code caps at 200 lines)")
    parser.set_defaults(func=run_tui)


def check_memory_dir(path: Path) -> Path:
    if not path.exists():
        raise InputError("no such memory directory", path=path)
    if not path.is_dir():
        raise InputError("is a file, expected the memory directory that holds MEMORY.md", path=path)
    if not (path / "MEMORY.md").exists():
        raise InputError("no MEMORY.md in this directory", path=path)
    refuse_large_file(path / "MEMORY.md", "the curator")  # before the app starts
    return path


def run_tui(args: argparse.Namespace) -> int:
    if args.memory_dir:
        memory_dir = check_memory_dir(Path(args.memory_dir))
    elif args.fleet:
        memory_dir = None
    else:
        memory_dir = _located()
    fleet = Path(args.fleet) if args.fleet else None
    if fleet is not None:
        from generators.manifest import load_manifest

        load_manifest(fleet)  # a broken manifest is a one-line error here, not a crash in the app
    from curator.app import run_app

    return run_app(memory_dir, fleet, resident_id=args.resident, profile=args.profile)


def _located() -> Path:
    """The memory dir a command without one means, saying on stderr which one it opened."""
    located = locate_memory_dir()
    print(f"seat-curator: {located.how}", file=sys.stderr)
    return located.memory_dir


def run_default(args: argparse.Namespace) -> int:
    """No subcommand: open the memory ``locate_memory_dir`` finds, else say where it looked (exit 1)."""
    try:
        memory_dir = _located()
    except InputError as err:
        sys.stderr.write(f"seat-curator: {err}\n{HOW_TO_START}")
        return err.exit_code
    try:
        refuse_large_file(memory_dir / "MEMORY.md", "the curator")  # before the app starts
    except InputError as err:
        print(f"seat-curator: {err.code}: {err}", file=sys.stderr)
        return err.exit_code
    from curator.app import run_app

    return run_app(memory_dir)
