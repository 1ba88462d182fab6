"""`seat-curator fit DIR [--target N] [--skip N ...] [--apply]`: one plan that brings MEMORY.md under
the target losing nothing (tightens that keep every fact, merges of true duplicates, then folds of the
facets nearest in size to what must go, standing rules kept in the index), shown as one preview with a
reason per step and the questions left to the bearer with their evidence (entries that look finished,
splits); ``--apply`` writes the steps through the seat store as ONE undoable change, and never answers
a question. Exit 0 when the plan reaches the target, 2 when the rest needs the bearer.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from curator.bounds import refuse_large_file
from curator.constants import INDEX_NAME
from curator.errors import ArgumentError
from curator.index_model import parse_index
from curator.levers.fit import FitPlan, line_ranges, plan_fit
from curator.meter import Limits
from curator.store import SeatStore


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("fit", help="plan (and with --apply, make) the lossless steps that bring MEMORY.md "
                                          "under the target, as one undoable change")
    p.add_argument("memory_dir", metavar="DIR", type=Path, help="the directory holding MEMORY.md")
    p.add_argument("--target", type=int, default=Limits.target, metavar="N", help="target bytes (default 17,000)")
    p.add_argument("--skip", type=int, action="append", default=[], metavar="N",
                   help="leave step N out (repeatable); the rest is planned again")
    p.add_argument("--apply", action="store_true", help="write the plan as one change (undo: seat-curator undo DIR)")
    p.add_argument("--state-dir", type=Path, default=None,
                   help="where the undo journal lives (default: the per-user state dir)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def plan_json(plan: FitPlan) -> dict:
    return {
        "target": plan.target, "bytes_before": plan.before, "bytes_after": plan.after, "reached": plan.reached,
        "left": plan.left, "counts": plan.counts, "left_out": list(plan.left_out),
        "pointer_problems_before": plan.problems_before, "pointer_problems_after": plan.problems_after,
        "steps": [{"number": s.number, "kind": s.kind, "selected": s.selected, "entry_ids": list(s.entry_ids),
                   "lines": list(s.lines), "bytes_saved": s.bytes_saved, "reason": s.reason, "files": list(s.files)}
                  for s in plan.steps],
        "files": list(plan.change.names) if plan.change else [],
        "questions": [{"kind": q.kind, "question": q.question, "entry_ids": list(q.entry_ids), "lines": list(q.lines),
                       "evidence": [{"line": line, "mark": mark,
                                     "where": q.where[n] if n < len(q.where) else "",
                                     "text": q.texts[n] if n < len(q.texts) else ""}
                                    for n, (line, mark) in enumerate(zip(q.lines, q.evidence))]}
                      for q in plan.questions],
    }


def plan_lines(plan: FitPlan) -> list[str]:
    out = [f"fit: MEMORY.md {plan.before:,} B -> {plan.after:,} B (target {plan.target:,} B)"]
    for s in plan.steps:
        mark = "x" if s.selected else " "
        where = line_ranges(s.lines)
        out.append(f"  [{mark}] {s.number:>2}  {s.kind:<7} saves {s.bytes_saved:>6,} B  line {where}: {s.reason}")
    for note in plan.left_out:
        out.append(f"  left out: {note}")
    if not plan.steps:
        out.append("  no step can save bytes without losing something")
    for q in plan.questions:
        out.append(f"  question: {q.question}")
        out += [f"    {said}" for said in q.said()]
    out.append(f"pointer problems: {plan.problems_before} before, {plan.problems_after} after")
    out.append("target reached" if plan.reached else f"target NOT reached: {plan.left}")
    return out


def run(args: argparse.Namespace) -> int:
    try:
        Limits(args.target, max(args.target, Limits.read_limit))
    except ValueError as err:
        raise ArgumentError(str(err)) from None
    refuse_large_file(Path(args.memory_dir) / INDEX_NAME, "fit", kind="fit")  # at once, before any parse
    store = SeatStore.open(args.memory_dir, state_dir=args.state_dir, read_only=not args.apply)
    raw = store.read(INDEX_NAME)
    plan = plan_fit(store.memory_dir, parse_index(raw), target=args.target, skip=args.skip)
    data, lines = plan_json(plan), plan_lines(plan)
    if args.apply:
        if plan.change is None:
            lines.append("nothing to apply")
        else:
            store.apply(plan.change)
            data["applied"] = plan.change.summary()
            lines.append(f"applied as one change; undo with: seat-curator undo {args.memory_dir}")
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        print("\n".join(lines))
    return 0 if plan.reached else 2
