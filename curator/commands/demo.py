"""`seat-curator demo`: build a demo fleet from bundled example data, provision it, open the app."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="build a demo fleet from bundled examples and open the curator on it",
        description="Build three example seats (healthy, over the target, divergent) in a temp dir or "
        "--dir, provision them with the generators, then open the curator. An existing demo dir is "
        "reopened as it is, never rebuilt.",
    )
    parser.add_argument("--dir", metavar="D", help="build the demo here (default: a new temp dir)")
    parser.add_argument("--no-tui", action="store_true", help="only build and print the paths")
    parser.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from curator.demo import GROWN, build_demo, describe

    demo = build_demo(args.dir)
    sys.stdout.write(describe(demo))
    if args.no_tui:
        return 0
    from curator.app import run_app

    return run_app(demo.memory_dir(GROWN), demo.fleet_path)
