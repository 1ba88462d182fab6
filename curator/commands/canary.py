"""`seat-curator canary`: run each seat's real harness offline against a stub model and check that
its memory index reaches the model's context at boot and after compaction.

Exit codes: 0 every check passed, 4 a check failed, 1 an error (a harness CLI not found — nothing is
run then — a bad manifest, or a harness that could not be run at all).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from curator.canary.result import render_text
from curator.canary.run import run_canary
from curator.canary.runner import TURN_TIMEOUT_S


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "canary", help="boot-check seats: run the real harness against a loopback stub and read what reached the model")
    parser.add_argument("--fleet", default="fleet.toml", metavar="F", help="the fleet manifest (default: ./fleet.toml)")
    parser.add_argument("--resident", metavar="ID", help="only this resident (agent id)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--kimi-cli", metavar="PATH", help="kimi-code CLI (executable, or dist/main.mjs)")
    parser.add_argument("--opencode-cli", metavar="PATH", help="opencode CLI executable")
    parser.add_argument("--claude-cli", metavar="PATH", help="Claude Code CLI executable (its native binary)")
    parser.add_argument("--timeout", type=float, default=TURN_TIMEOUT_S, metavar="S",
                        help=f"seconds one harness turn may take (default {TURN_TIMEOUT_S:g})")
    parser.add_argument("--record", metavar="DIR", help="also write each run's trimmed request log to DIR")
    parser.add_argument("--no-save", action="store_true", help="do not keep this run as the residents' last result")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    progress = None if args.json else (lambda message: print(message, file=sys.stderr, flush=True))
    result = run_canary(
        Path(args.fleet), args.resident, progress=progress, kimi_cli=args.kimi_cli,
        opencode_cli=args.opencode_cli, claude_cli=args.claude_cli, timeout=args.timeout, save=not args.no_save,
        record_dir=Path(args.record) if args.record else None,
    )
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print(render_text(result))
    return result.exit_code
