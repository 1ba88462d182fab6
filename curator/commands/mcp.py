"""`seat-curator mcp [MEMORY_DIR]`: serve the seat's memory to its agent over stdio (MCP).

Stdout is the protocol channel: nothing else is ever printed there. Which memory dir was chosen
(when none is given) goes to stderr, as for `check`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from curator.errors import ArgumentError, InputError
from curator.meter import Limits


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("mcp", help="serve the memory tool's commands and the levers to the seat's agent "
                                          "(MCP over stdio)")
    p.add_argument("memory_dir", metavar="MEMORY_DIR", type=Path, nargs="?",
                   help="the directory holding MEMORY.md (default: ./memory, else this project's Claude Code memory)")
    p.add_argument("--target", type=int, default=Limits.target, metavar="N", help="target bytes")
    p.add_argument("--read-limit", type=int, default=Limits.read_limit, metavar="N",
                   help="read limit bytes: a write past it is refused")
    p.add_argument("--state-dir", type=Path, default=None,
                   help="where the undo journal lives (default: the per-user state dir)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        limits = Limits(args.target, args.read_limit)
    except ValueError as err:
        raise ArgumentError(str(err)) from None
    memory_dir = args.memory_dir
    if memory_dir is None:
        from curator.locate import locate_memory_dir

        located = locate_memory_dir()
        print(f"seat-curator: {located.how}", file=sys.stderr)
        memory_dir = located.memory_dir
    if not memory_dir.is_dir():
        raise InputError("no such memory directory", path=memory_dir)
    from curator.mcp.server import build_server  # the SDK loads only for this command

    build_server(memory_dir, limits, args.state_dir).run("stdio")
    return 0
