"""`seat-curator tui`: open the curator on a seat (MEMORY_DIR) or a fleet (--fleet fleet.toml).

``run_default`` is what a bare ``seat-curator`` does: open ./memory when there is one, else say how
to start.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from curator.errors import InputError

DEFAULT_DIR = Path("memory")

HOW_TO_START = """\
seat-curator: no ./memory directory here.
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
    parser.add_argument("memory_dir", nargs="?", metavar="MEMORY_DIR", help="the seat's memory directory")
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
    return path


def run_tui(args: argparse.Namespace) -> int:
    if not args.memory_dir and not args.fleet:
        raise InputError("give MEMORY_DIR or --fleet FLEET_TOML (see seat-curator tui --help)")
    memory_dir = check_memory_dir(Path(args.memory_dir)) if args.memory_dir else None
    fleet = Path(args.fleet) if args.fleet else None
    if fleet is not None:
        from generators.manifest import load_manifest

        load_manifest(fleet)  # a broken manifest is a one-line error here, not a crash in the app
    from curator.app import run_app

    return run_app(memory_dir, fleet, resident_id=args.resident, profile=args.profile)


def run_default(args: argparse.Namespace) -> int:
    """No subcommand: open ./memory if it holds a MEMORY.md, else print how to start."""
    if (DEFAULT_DIR / "MEMORY.md").is_file():
        from curator.app import run_app

        return run_app(DEFAULT_DIR)
    sys.stdout.write(HOW_TO_START)
    return 0
