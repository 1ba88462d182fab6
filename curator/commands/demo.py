"""`seat-curator demo`: build a demo fleet from bundled example data, provision it, open the app."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="build a demo fleet from bundled examples and open the curator on it",
        description="Build example seats (healthy, over the target, divergent, a Claude Code seat over the byte "
        "target that still loads whole) in the per-user demo dir "
        "or --dir, provision them with the generators, then open the curator. An existing demo is "
        "reopened as it is, never rebuilt (--fresh starts over).",
    )
    parser.add_argument("--dir", metavar="D", help="build the demo here (default: one per-user demo dir, "
                        "printed when it is built)")
    parser.add_argument("--fresh", action="store_true",
                        help="remove an earlier demo in that dir first (only a demo this command built)")
    parser.add_argument("--no-tui", action="store_true", help="only build and print the paths")
    parser.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from curator.commands.common import command_name
    from curator.demo import GROWN, build_demo, describe

    demo = build_demo(args.dir, fresh=args.fresh)
    sys.stdout.write(describe(demo, command_name()))
    if args.no_tui:
        return 0
    from curator.app import run_app

    return run_app(demo.memory_dir(GROWN), demo.fleet_path)
