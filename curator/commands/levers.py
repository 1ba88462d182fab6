"""Headless levers: candidates, merge, archive, restore, archive-search, trim, fold, undo, redo.

Every command that writes goes through the seat store (atomic, refuses a file changed on disk,
journalled for undo) and prints the byte meter before and after. Entry ids are the ones
`seat-curator check --json` prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from curator.bounds import refuse_large_file
from curator.change import Change
from curator.constants import INDEX_NAME
from curator.errors import ArgumentError, InputError
from curator.index_model import HotIndex, parse_index
from curator.levers import archive, fold, merge, trim
from curator.meter import Limits, Meter, measure
from curator.store import AppliedChange, SeatStore


def _common(parser: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    parser.add_argument("memory_dir", metavar="DIR", type=Path, help="the directory holding MEMORY.md")
    parser.add_argument("--target", type=int, default=Limits.target, metavar="N", help="target bytes")
    parser.add_argument("--read-limit", type=int, default=Limits.read_limit, metavar="N", help="read limit bytes")
    parser.add_argument("--state-dir", type=Path, default=None,
                        help="where the undo journal lives (default: the per-user state dir)")
    if json_flag:
        parser.add_argument("--json", action="store_true", help="print one JSON object")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("candidates", help="list entries that say the same thing (merge-facet candidates)")
    _common(p)
    p.add_argument("--limit", type=int, default=20, help="how many candidates (default 20)")
    p.set_defaults(func=run_candidates)

    p = subparsers.add_parser("merge", help="merge entries into one line; refuses to lose a pointer unless forced")
    _common(p)
    p.add_argument("ids", metavar="ID", nargs="+", help="entry ids; the first keeps its place and lesson")
    p.add_argument("--text", help="the merged line instead of the default (first lesson + distinct facets)")
    p.add_argument("--drop-pointer", action="append", default=[], metavar="TARGET",
                   help="a pointer you choose to drop (repeatable)")
    p.add_argument("--force", action="store_true", help="merge even if a pointer or detail file would be lost")
    p.set_defaults(func=run_merge)

    p = subparsers.add_parser("archive", help="move entries to ARCHIVE.md (created on first need)")
    _common(p)
    p.add_argument("ids", metavar="ID", nargs="+")
    p.add_argument("--date", type=date.fromisoformat, default=None, help="archive stamp date (default today)")
    p.add_argument("--drop-empty-section", action="store_true",
                   help="also remove the heading of a section left without entries (restore re-creates it)")
    p.set_defaults(func=run_archive)

    p = subparsers.add_parser("restore", help="move an archived entry back into MEMORY.md")
    _common(p)
    p.add_argument("id", metavar="ID", help="the archived entry's id (archive-search prints it)")
    p.set_defaults(func=run_restore)

    p = subparsers.add_parser("archive-search", help="fuzzy search over ARCHIVE.md")
    _common(p)
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--limit", type=int, default=20)
    p.set_defaults(func=run_search)

    p = subparsers.add_parser("trim", help="tighten/split suggestions for the longest entries; --apply one")
    _common(p)
    p.add_argument("--apply", metavar="ID", help="apply the suggestion for this entry id")
    p.add_argument("--kind", choices=("split", "tighten"), default=None,
                   help="with --apply: which suggestion (default: the one that saves more)")
    p.add_argument("--threshold", type=int, default=trim.DEFAULT_THRESHOLD, metavar="BYTES",
                   help=f"only entries at least this long (default {trim.DEFAULT_THRESHOLD})")
    p.add_argument("--top", type=int, default=trim.DEFAULT_TOP, metavar="N",
                   help=f"the N longest entries (default {trim.DEFAULT_TOP})")
    p.set_defaults(func=run_trim)

    p = subparsers.add_parser("fold", help="move a section (or entries that share a facet) verbatim into one detail "
                                           "file, leaving one line that links it; a plan unless --apply")
    _common(p)
    p.add_argument("what", metavar="SECTION|ID", nargs="+",
                   help="a section's heading, or the ids of the entries to fold (at least two)")
    p.add_argument("--facet", default=None, help="with ids: what the entries share, to name the line and file")
    p.add_argument("--apply", action="store_true", help="write the fold (undo: seat-curator undo DIR)")
    p.set_defaults(func=run_fold)

    for name, word in (("undo", "undo the last applied change; an interrupted one is put back as before it"),
                       ("redo", "redo the last undone change; an interrupted one is finished")):
        p = subparsers.add_parser(name, help=f"{word} (byte-identical, survives restarts)")
        _common(p)
        p.set_defaults(func=run_undo if name == "undo" else run_redo)
    p.add_argument("--as-is", action="store_true",
                   help="settle an interrupted change as its files stand now, writing no file "
                        "(when a file was edited since and undo and redo both refuse)")


# -- shared ------------------------------------------------------------------------------------

def _limits(args: argparse.Namespace) -> Limits:
    try:
        return Limits(args.target, args.read_limit)
    except ValueError as err:
        raise ArgumentError(str(err)) from None


def _check_arguments(args: argparse.Namespace) -> None:
    """Every argument, before anything is read or written: a bad one must never fail a command
    after its change is on disk."""
    _limits(args)
    for option in ("limit", "top", "threshold"):
        value = getattr(args, option, None)
        if value is not None and value < 0:
            raise ArgumentError(f"--{option} must be zero or more, not {value}")
    text = getattr(args, "text", None)
    if text is not None:  # it becomes file content; an argv byte that was not UTF-8 arrives as a surrogate
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ArgumentError(f"--text is not valid UTF-8 (character {err.start + 1})") from None


def _open(args: argparse.Namespace, *, what: str = "the curator",
          kind: str = "analysis") -> tuple[SeatStore, bytes, HotIndex]:
    refuse_large_file(Path(args.memory_dir) / INDEX_NAME, what, kind=kind)  # at once, before any parse
    store = SeatStore.open(args.memory_dir, state_dir=args.state_dir)
    raw = store.read(INDEX_NAME)
    return store, raw, parse_index(raw)


def _meter_text(meter: Meter) -> str:
    return f"{meter.bytes:,} B, {meter.lines:,} lines, {meter.zone} (target {meter.target:,} B, read limit {meter.read_limit:,} B)"


def _meter_json(meter: Meter) -> dict:
    return {"bytes": meter.bytes, "lines": meter.lines, "zone": meter.zone,
            "headroom_target": meter.headroom_target, "headroom_read_limit": meter.headroom_read_limit}


def _out(args: argparse.Namespace, data: dict, lines: list[str]) -> None:
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        print("\n".join(lines))


def _report(args: argparse.Namespace, before: bytes, after: bytes, what: dict, headline: str, extra: Sequence[str] = ()) -> int:
    limits = _limits(args)
    m_before, m_after = measure(before, limits), measure(after, limits)
    lines = [headline, *extra,
             f"before: {_meter_text(m_before)}",
             f"after:  {_meter_text(m_after)}  ({_delta(len(before) - len(after))})"]
    _out(args, {**what, "meter_before": _meter_json(m_before), "meter_after": _meter_json(m_after)}, lines)
    return 0


def _apply(args: argparse.Namespace, store: SeatStore, raw: bytes, change: Change) -> int:
    store.apply(change)
    extra = [f"warning: {w}" for w in change.warnings]
    if change.kind == "archive":
        dropped = getattr(args, "drop_empty_section", False)
        extra += [f"section '{h}' is now empty" + ("; its heading was removed" if dropped else
                  "; its heading stays (undo, then archive again with --drop-empty-section to remove it)")
                  for h in change.emptied_sections]
    extra.append(f"undo with: seat-curator undo {args.memory_dir}")
    after = change.files.get(INDEX_NAME)
    return _report(args, raw, raw if after is None else after, {"applied": change.summary()},
                   f"applied: {change.description}", extra)


# -- commands ----------------------------------------------------------------------------------

def run_candidates(args: argparse.Namespace) -> int:
    _check_arguments(args)
    _store, raw, index = _open(args, what="candidates", kind="weighing")
    meter = measure(raw, _limits(args))
    found = merge.find_candidates(index, limit=args.limit)
    lines = [f"now: {_meter_text(meter)}", f"{len(found)} merge candidate(s):"]
    for c in found:
        lines.append(f"  {' '.join(c.entry_ids)}  score {c.score:5.1f}  saves {c.bytes_saved:,} B  ({c.reason})")
        lines.append(f"      evidence: {c.kind}" + (f": {'; '.join(c.evidence)}" if c.evidence else ""))
        for entry_id in c.entry_ids:
            lines.append(f"      {entry_id}: {_short(index.entry(entry_id).text)}")
    data = {"meter": _meter_json(meter), "candidates": [
        {"entry_ids": list(c.entry_ids), "score": c.score, "bytes_saved": c.bytes_saved, "reason": c.reason,
         "section": c.section, "shared_target": c.shared_target,
         "evidence": {"kind": c.kind, "shown": list(c.evidence)}} for c in found]}
    _out(args, data, lines)
    return 0


def run_merge(args: argparse.Namespace) -> int:
    _check_arguments(args)
    store, raw, index = _open(args)
    change = merge.plan_merge(store.memory_dir, index, args.ids, text=args.text,
                              drop_pointers=tuple(args.drop_pointer), force=args.force)
    return _apply(args, store, raw, change)


def run_archive(args: argparse.Namespace) -> int:
    _check_arguments(args)
    store, raw, index = _open(args)
    change = archive.plan_archive(store.memory_dir, index, args.ids, today=args.date or date.today(),
                                  drop_empty_sections=args.drop_empty_section)
    return _apply(args, store, raw, change)


def run_restore(args: argparse.Namespace) -> int:
    _check_arguments(args)
    store, raw, index = _open(args)
    change = archive.plan_restore(store.memory_dir, index, args.id)
    return _apply(args, store, raw, change)


def run_search(args: argparse.Namespace) -> int:
    _check_arguments(args)
    store, raw, _index = _open(args)
    refuse_large_file(store.memory_dir / "ARCHIVE.md", "archive-search")
    hits = archive.search_archive(store.memory_dir, args.query, limit=args.limit)
    lines = [f"now: {_meter_text(measure(raw, _limits(args)))}", f"{len(hits)} archived entr{'y' if len(hits) == 1 else 'ies'}:"]
    lines += [f"  {h.entry_id}  {h.score:5.1f}  [{h.section or '(top)'}] {_short(h.text)}" for h in hits]
    _out(args, {"hits": [h.__dict__ for h in hits]}, lines)
    return 0


def run_trim(args: argparse.Namespace) -> int:
    _check_arguments(args)
    store, raw, index = _open(args)
    limits = _limits(args)
    found = trim.suggestions(store.memory_dir, index, threshold_bytes=args.threshold, top=args.top, limits=limits)
    if args.apply:
        if not index.has_entry(args.apply):
            raise InputError(f"no entry with id {args.apply}", path=INDEX_NAME)
        mine = [s for s in found if s.entry_id == args.apply and (args.kind is None or s.kind == args.kind)]
        if not mine:  # not among the top N: plan it directly
            kinds = [args.kind] if args.kind else ["split", "tighten"]
            changes, errors = [], []
            for kind in kinds:
                try:
                    changes.append(trim.plan_trim(store.memory_dir, index, args.apply, kind=kind))
                except InputError as err:
                    errors.append(err)
            if not changes:
                raise errors[0]
            change = max(changes, key=lambda c: c.bytes_saved)
        else:
            change = max(mine, key=lambda s: s.bytes_saved).change
        return _apply(args, store, raw, change)
    meter = measure(raw, limits)
    lines = [f"now: {_meter_text(meter)}", f"{len(found)} trim suggestion(s) (entries >= {args.threshold} B):"]
    for s in found:
        where = f" -> {s.detail_file}" if s.detail_file else ""
        lines.append(f"  {s.entry_id}  {s.kind:<7} saves {s.bytes_saved:,} B{where}; after: {s.meter.bytes:,} B {s.meter.zone}")
        lines.append(f"      {_short(s.new_line)}")
    data = {"meter": _meter_json(meter), "suggestions": [
        {"entry_id": s.entry_id, "kind": s.kind, "new_line": s.new_line, "detail_file": s.detail_file,
         "bytes_saved": s.bytes_saved, "meter_after": _meter_json(s.meter)} for s in found]}
    _out(args, data, lines)
    return 0


def run_fold(args: argparse.Namespace) -> int:
    _check_arguments(args)
    store, raw, index = _open(args)
    if all(index.has_entry(word) for word in args.what):
        change = fold.plan_fold(store.memory_dir, index, ids=args.what, facet=args.facet)
    else:
        change = fold.plan_fold(store.memory_dir, index, section=" ".join(args.what))
    if args.apply:
        return _apply(args, store, raw, change)
    (name,) = [n for n in change.names if n != INDEX_NAME]
    after = change.files[INDEX_NAME]
    assert after is not None  # a fold rewrites MEMORY.md, never deletes it
    line = next(text for text in after.decode("utf-8", "replace").splitlines() if f"]({name})" in text)
    return _report(args, raw, after, {"plan": change.summary(), "line": line},
                   f"plan: {change.description}",
                   [f"MEMORY.md keeps: {line}", f"apply with: seat-curator fold {args.memory_dir} "
                    f"{' '.join(args.what)} --apply"])


def _history_step(args: argparse.Namespace, undo: bool) -> int:
    _check_arguments(args)
    store = SeatStore.open(args.memory_dir, state_dir=args.state_dir)
    before = store.read(INDEX_NAME) if store.exists(INDEX_NAME) else b""
    if getattr(args, "as_is", False):
        settled = store.settle_as_is()
        _out(args, {"settled": settled.to_json()}, [f"settled as the files stand: {settled.description}",
                                                  f"undo with: seat-curator undo {args.memory_dir}"])
        return 0
    entry: AppliedChange = store.undo() if undo else store.redo()
    after = store.read(INDEX_NAME) if store.exists(INDEX_NAME) else b""
    word = "undone" if undo else "redone"
    return _report(args, before, after, {word: entry.to_json()}, f"{word}: {entry.description}",
                   [f"files: {', '.join(sorted(entry.files))}"])


def run_undo(args: argparse.Namespace) -> int:
    return _history_step(args, undo=True)


def run_redo(args: argparse.Namespace) -> int:
    return _history_step(args, undo=False)


def _delta(saved: int) -> str:
    return f"saved {saved:,} B" if saved >= 0 else f"grew by {-saved:,} B"


def _short(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
