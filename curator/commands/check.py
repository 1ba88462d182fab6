"""`seat-curator check MEMORY_DIR`: the byte meter, the load simulation and the pointer problems.

Exit codes (for CI and pre-commit): 0 under target with no pointer problems; 2 over target or any
problem; 3 past the read limit; 4 a change the curator was saving was interrupted half-way (it wins
over 2 and 3: undo rolls it back, redo finishes it); 1 an error (missing directory, unreadable
file), one line naming it.
``--json`` prints one object; its schema is documented in docs/check-json.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from curator.analysis import Analysis, analyze
from curator.errors import ArgumentError
from curator.index_model import Entry
from curator.load_sim import ALL, LoadResult
from curator.locate import locate_memory_dir
from curator.meter import Limits
from curator.store import seat_state

JSON_SCHEMA_VERSION = 1
BAR_WIDTH = 40
LOST_SHOWN = 15  # per profile in the human report; --json has them all
ZONE_STYLE = {"ok": "green", "over-target": "yellow", "over-limit": "bold red"}
EXIT_INTERRUPTED = 4
PRETTY_ENTRIES = 5_000  # --json is indented up to this many entries, one line past it


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        help="measure a seat's MEMORY.md, simulate each harness's load, check every pointer",
        description="Measure MEMORY.md against the target and read limit (KB = 1000 B), show what each "
        "harness would load and drop, and report dangling, escaping and orphaned pointers. "
        "Exit 0 clean, 2 over target or pointer problems, 3 past the read limit, 4 an interrupted "
        "change (a save, undo or redo killed half-way: `undo` rolls it back, `redo` finishes it), 1 error.",
    )
    parser.add_argument("memory_dir", metavar="MEMORY_DIR", type=Path, nargs="?",
                        help="the directory holding MEMORY.md (default: ./memory, else this project's "
                        "Claude Code memory; which one is said on stderr)")
    parser.add_argument("--profile", choices=ALL, action="append",
                        help="simulate only this harness profile (repeatable; default: all)")
    parser.add_argument("--target", type=int, default=Limits.target, metavar="N",
                        help=f"target size in bytes (default {Limits.target:,})")
    parser.add_argument("--read-limit", type=int, default=Limits.read_limit, metavar="N",
                        help=f"read limit in bytes (default {Limits.read_limit:,})")
    parser.add_argument("--json", action="store_true", help="print one JSON object (see docs/check-json.md)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        limits = Limits(args.target, args.read_limit)
    except ValueError as err:
        raise ArgumentError(str(err)) from None
    profiles = tuple(dict.fromkeys(args.profile)) if args.profile else ALL
    memory_dir = args.memory_dir
    if memory_dir is None:
        located = locate_memory_dir()
        print(f"seat-curator: {located.how}", file=sys.stderr)
        memory_dir = located.memory_dir
        if not args.profile and "the Claude Code memory" in located.how:
            profiles = ("claude-code",)  # the other harnesses' files (identity.md…) are not a Claude memory's
    analysis = analyze(memory_dir, limits=limits, profiles=profiles)
    # The curator's journal: a change interrupted half-way, temp files a killed save left behind.
    state = seat_state(memory_dir)
    analysis = dataclasses.replace(analysis, warnings=analysis.warnings + state.warnings)
    code = EXIT_INTERRUPTED if state.interrupted else analysis.exit_code
    if args.json:
        data = to_json(analysis)
        data["exit_code"] = code
        data["interrupted_change"] = state.interrupted.to_json() if state.interrupted else None
        # Indented for people; on one line past PRETTY_ENTRIES, where the pure-Python indenting
        # encoder costs more than the analysis itself.
        indent = 2 if len(analysis.index.entries) <= PRETTY_ENTRIES else None
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=indent) + "\n")
    else:
        console = PipeConsole(highlight=False)
        # In a pipe (pre-commit, CI logs) nothing may depend on a width nobody chose: no wrapping,
        # and the tables become one record per line with every path and cell whole.
        console.soft_wrap = not console.is_terminal
        print_report(analysis, console)
    return code


class PipeConsole(Console):
    """A console that lets a closed pipe (`check DIR | head`) reach the CLI, which exits 141 as
    other Unix tools do; rich's own handling would exit 1, which reads as an error."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


# -- JSON --------------------------------------------------------------------------------------

def _entry_json(entry: Entry) -> dict:
    return {
        "id": entry.id,
        "section": entry.section,
        "line": entry.line,
        "end_line": entry.end_line,
        "bytes": entry.nbytes,
        "text": entry.text,
        "kind": entry.kind,
        "pointers": [{"target": link.shown, "kind": link.kind, "line": link.line} for link in entry.pointers],
    }


def _lost_json(entry: Entry) -> dict:
    return {"id": entry.id, "section": entry.section, "line": entry.line, "bytes": entry.nbytes, "text": entry.text}


def _load_json(load: LoadResult) -> dict:
    return {
        "loaded_bytes": load.loaded_bytes,
        "total_bytes": load.total_bytes,
        "cut_line": load.cut_line,
        "cut_offset": load.cut_offset,
        "line_cap": load.line_cap,
        "dropped": [_lost_json(entry) for entry in load.dropped],
        "partial": _lost_json(load.partial) if load.partial else None,
        "note": load.note,
        "warning": load.warning,
        "cautions": list(load.cautions),
    }


def to_json(analysis: Analysis) -> dict:
    meter, pointers = analysis.meter, analysis.pointers
    return {
        "schema": JSON_SCHEMA_VERSION,
        "memory_dir": str(analysis.memory_dir),
        "bytes": meter.bytes,
        "lines": meter.lines,
        "target": meter.target,
        "read_limit": meter.read_limit,
        "zone": meter.zone,
        "headroom_target": meter.headroom_target,
        "headroom_read_limit": meter.headroom_read_limit,
        "identity_bytes": analysis.identity_bytes,
        "symlinked": analysis.symlinked,
        "utf8_error_offset": analysis.decode_error_offset,
        "warnings": list(analysis.warnings),
        "exit_code": analysis.exit_code,
        "entries": [_entry_json(entry) for entry in analysis.index.entries],
        "profiles": {name: _load_json(load) for name, load in analysis.loads.items()},
        "pointers": {
            "dangling": [
                {"file": d.file, "line": d.line, "target": d.target, "reason": d.reason, "suggestion": d.suggestion}
                for d in pointers.dangling
            ],
            "orphans": list(pointers.orphans),
            "escapes": [{"file": e.file, "line": e.line, "target": e.target, "reason": e.reason}
                        for e in pointers.escapes],
            "unreadable": [{"file": u.file, "message": u.message} for u in pointers.unreadable],
            "unwritten": [{"file": u.file, "line": u.line, "target": u.target} for u in pointers.unwritten],
            "probable": [{"file": p.file, "line": p.line, "target": p.target, "meant": p.meant,
                          "spelling": p.spelling, "why": p.why, "question": p.question} for p in pointers.probable],
            "outside": [{"file": o.file, "line": o.line, "target": o.target, "path": o.path} for o in pointers.outside],
            "named_only": list(pointers.named_only),
            "unlinked_archive": pointers.unlinked_archive,
        },
    }


# -- human output ------------------------------------------------------------------------------

def meter_bar(nbytes: int, limits: Limits, width: int = BAR_WIDTH) -> Text:
    """A bar scaled to a bit past the read limit, with ┃ at the target and ┃ at the read limit."""
    scale = max(int(limits.read_limit * 1.15), nbytes)
    target_at = min(width - 1, round(limits.target / scale * width))
    limit_at = min(width - 1, round(limits.read_limit / scale * width))
    filled = min(width, round(nbytes / scale * width))
    zone = limits.zone(nbytes)
    bar = Text()
    for cell in range(width):
        if cell == target_at:
            bar.append("┃", style="bold yellow")
        elif cell == limit_at:
            bar.append("┃", style="bold red")
        elif cell < filled:
            bar.append("█", style=ZONE_STYLE[zone])
        else:
            bar.append("░", style="dim")
    return bar


def _short(text: str, width: int | None = 90) -> str:
    """An entry on one line; cut to ``width`` on a terminal, whole (``None``) in a pipe."""
    first = " ".join(text.split())
    return first if width is None or len(first) <= width else first[: width - 1] + "…"


def print_report(analysis: Analysis, console: Console) -> None:
    meter, limits = analysis.meter, analysis.limits
    width = 90 if console.is_terminal else None
    console.print(Text(f"{analysis.memory_dir / 'MEMORY.md'}", style="bold"))
    for warning in analysis.warnings:
        console.print(Text(f"warning: {warning}", style="yellow"))
    line = Text()
    line.append_text(meter_bar(meter.bytes, limits))
    line.append(f"  {meter.bytes:,} B · {meter.lines:,} lines · ")
    line.append(meter.zone, style=ZONE_STYLE[meter.zone])
    console.print(line)
    console.print(Text(
        f"target {limits.target:,} B (headroom {meter.headroom_target:+,} B) · "
        f"read limit {limits.read_limit:,} B (headroom {meter.headroom_read_limit:+,} B) · KB = 1000 B"
    ))

    console.print()
    rows = [(name, f"{load.loaded_bytes:,} B", len(load.dropped) + (1 if load.partial else 0), load.note)
            for name, load in analysis.loads.items()]
    if console.is_terminal:
        table = Table(title="Load simulation", title_justify="left", show_lines=False)
        table.add_column("profile")
        table.add_column("loaded", justify="right")
        table.add_column("lost", justify="right")
        table.add_column("what happens")
        for name, loaded, lost, note in rows:
            table.add_row(name, loaded, str(lost) if lost else "–", Text(note))
        console.print(table)
    else:
        console.print("Load simulation:")
        for name, loaded, lost, note in rows:
            console.print(Text(f"  {name}: loaded {loaded}, {lost or 'no'} entries lost: {note}"))
    for name, load in analysis.loads.items():
        if load.warning:  # the harness's own words, as it appends them to what it loaded
            console.print(Text(f"{name} tells the model: {load.warning}", style="yellow"))
        for caution in load.cautions:  # loaded, but not as written
            console.print(Text(f"{name}: {caution}", style="yellow"))
        if not load.lost_entries:
            continue
        console.print(Text(f"{name} never loads these entries:", style="bold"))
        if load.partial:
            entry = load.partial
            console.print(Text(f"  [{entry.section or '(top)'}] line {entry.line}: {_short(entry.text, width)}  "
                               "(cut in the middle: partially dropped)", style="yellow"))
        for entry in load.dropped[:LOST_SHOWN]:
            console.print(Text(f"  [{entry.section or '(top)'}] line {entry.line}: {_short(entry.text, width)}"))
        if len(load.dropped) > LOST_SHOWN:
            console.print(Text(f"  … and {len(load.dropped) - LOST_SHOWN} more entries (--json lists every one)",
                               style="dim"))

    pointers = analysis.pointers
    console.print()
    if pointers.unwritten:  # information: the harness's own convention for "worth writing later"
        names = ", ".join(dict.fromkeys(f"[[{u.target}]]" for u in pointers.unwritten))
        console.print(Text(f"Unwritten memories ({len(pointers.unwritten)} wikilink(s) naming no file yet, "
                           f"not a problem): {names}", style="dim"))
    for probable in pointers.probable:  # a question: the link probably means this file, the bearer decides
        console.print(Text(f"{probable.file}:{probable.line}: {probable.question}", style="yellow"))
    if pointers.outside:  # information: the link leaves the memory dir but lands in the same repository
        where = ", ".join(dict.fromkeys(o.target for o in pointers.outside))
        console.print(Text(f"Links out of the memory dir into this repository ({len(pointers.outside)}, "
                           f"not a problem): {where}", style="dim"))
    if pointers.named_only:  # information: a bare name reaches the file, a link would let tools follow it
        console.print(Text(f"Reached by bare file name only ({len(pointers.named_only)}, not a problem): "
                           + ", ".join(pointers.named_only), style="dim"))
    if not pointers.problem_count:
        console.print(Text(f"Pointers: {len(pointers.files)} markdown file(s), no problems.", style="green"))
        return
    title = f"Pointer problems ({pointers.problem_count})"
    problems_found = [(f"{d.file}:{d.line}", d.target, d.reason, d.suggestion or "") for d in pointers.dangling]
    problems_found += [(f"{e.file}:{e.line}", e.target, e.reason, "") for e in pointers.escapes]
    problems_found += [(orphan, "", "orphan: nothing reachable links here", "") for orphan in pointers.orphans]
    if pointers.unlinked_archive:
        problems_found.append((pointers.unlinked_archive, "", "unlinked archive: nothing reachable from MEMORY.md "
                               "links or names it, so its entries are out of the agent's reach", ""))
    problems_found += [(u.file, "", f"unreadable: {u.message}", "") for u in pointers.unreadable]
    if not console.is_terminal:  # `file:line: target: problem`, the shape editors and CI logs link
        console.print(f"{title}:")
        for where, target, problem, suggestion in problems_found:
            record = f"  {where}: " + (f"{target}: " if target else "") + problem
            console.print(Text(record + (f" (did you mean {suggestion}?)" if suggestion else "")))
        return
    problems = Table(title=title, title_justify="left")
    problems.add_column("where")
    problems.add_column("target")
    problems.add_column("problem")
    problems.add_column("did you mean")
    for where, target, problem, suggestion in problems_found:
        problems.add_row(where, Text(target), problem, Text(suggestion))
    console.print(problems)
