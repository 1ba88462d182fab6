"""`seat-curator install-harnesses`: the pinned Kimi Code, OpenCode and Claude Code CLIs the boot
canary runs, from the npm registry into the per-user cache (where `canary` looks for them).

Exit codes: 0 every CLI ready, 1 an error (npm missing, an install that failed), one line naming it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from curator.canary.pins import CACHE_ENV, HARNESSES, PINS, pin_for, user_cache


def register(subparsers: argparse._SubParsersAction) -> None:
    pinned = ", ".join(f"{pin.package}@{pin.version}" for pin in PINS.values())
    parser = subparsers.add_parser(
        "install-harnesses",
        help="install the pinned harness CLIs the boot canary runs (npm registry, ~1 GB)",
        description=f"Install the pinned harness CLIs ({pinned}) with npm into the per-user cache "
        f"({user_cache()}; ${CACHE_ENV} or --dir chooses another), where `seat-curator canary` finds "
        "them. Already-installed pins are left alone.",
    )
    parser.add_argument("harness", nargs="*", metavar="HARNESS",
                        help=f"only these ({', '.join(HARNESSES)}; default: all)")
    parser.add_argument("--dir", type=Path, metavar="DIR", help="install into DIR instead of the user cache")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from curator.canary.install import install

    cache = args.dir.expanduser().absolute() if args.dir else user_cache()
    harnesses = tuple(pin_for(name).harness for name in dict.fromkeys(args.harness)) or HARNESSES
    install(cache, harnesses, progress=lambda line: print(line, flush=True))
    if args.dir and cache != user_cache():
        print(f"canary finds them there with {CACHE_ENV}={cache}", file=sys.stderr)
    print(f"harness CLIs ready under {cache}")
    return 0
