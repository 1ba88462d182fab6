"""The curator's levers as MCP tools: check, candidates, fit, fold, archive, restore, merge, trim, undo,
redo, archive_search. Each answers in short text naming entries by id, line and title; each write
goes through ``Seat.write`` (the seat store, under the cap) and ends with the meter line."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from mcp.server.mcpserver.exceptions import ToolError

from curator.analysis import analyze, parse_cached
from curator.change import Change
from curator.errors import CuratorError
from curator.index_model import HotIndex
from curator.levers import archive as archive_lever
from curator.levers import fold as fold_lever
from curator.levers import merge as merge_lever
from curator.levers import trim as trim_lever
from curator.levers.fit import line_ranges, plan_fit
from curator.mcp.report import label
from curator.mcp.seat import Reading, Seat, Written
from curator.store import INDEX_NAME, seat_state

SHOWN = 10  # problems and hits listed before "… and N more"


Planner = Callable[[Reading, HotIndex], Change]


def _index(files: Reading) -> HotIndex:
    """MEMORY.md parsed (the parse is shared with the meter and the pointer report of the same bytes)."""
    return parse_cached(files.index_bytes())


def _labels(index: HotIndex, ids: Sequence[str]) -> str:
    return ", ".join(label(index.entry(i)) if index.has_entry(i) else i for i in ids)


def _applied(written: Written, before: HotIndex) -> str:
    change = written.change
    lines = [f"applied: {change.description}"]
    if change.entry_ids:
        lines.append(f"entries: {_labels(before, change.entry_ids)}")
    lines += [f"warning: {w}" for w in change.warnings]
    lines += [f"section '{h}' is now empty; its heading stays" for h in change.emptied_sections]
    lines.append("undo with the `undo` tool")
    return "\n".join(lines + list(written.notes))


def _write(seat: Seat, planner: Planner) -> str:
    """Apply what ``planner(files, index)`` plans; the result names the entries as they were."""
    seen: list[HotIndex] = []

    def plan(files: Reading) -> Change:
        index = _index(files)
        seen[:] = [index]
        return planner(files, index)

    written = seat.write(plan)
    return _applied(written, seen[0])


# -- reading -------------------------------------------------------------------------------------

def check(seat: Seat) -> str:
    found = analyze(seat.memory_dir, limits=seat.limits)
    lines = [seat.meter(found.index.raw)]
    problems = ([f"dangling: {d.file} line {d.line} -> {d.target} ({d.reason})" for d in found.pointers.dangling]
                + [f"escapes the memory dir: {e.file} line {e.line} -> {e.target}" for e in found.pointers.escapes]
                + [f"orphan: {name} (no link from MEMORY.md)" for name in found.pointers.orphans]
                + [f"unreadable: {u.file}: {u.message}" for u in found.pointers.unreadable])
    lines.append(f"pointer problems: {len(problems)}")
    lines += [f"  {p}" for p in problems[:SHOWN]]
    if len(problems) > SHOWN:
        lines.append(f"  … and {len(problems) - SHOWN} more")
    lines += [f"warning: {w}" for w in found.warnings + seat_state(seat.memory_dir, state_dir=seat.state_dir).warnings]
    longest = sorted(found.index.entries, key=lambda e: e.nbytes, reverse=True)[:5]
    if longest:
        lines.append("longest entries: " + "; ".join(f"{label(e)} {e.nbytes:,} B" for e in longest))
    return "\n".join(lines)


def candidates(seat: Seat, limit: int = SHOWN) -> str:
    index = _index(seat.reading())
    found = merge_lever.find_candidates(index, limit=max(limit, 0))
    lines = [f"{len(found)} merge candidate(s) (merge takes their ids; give `text` for your own merged line):"]
    for n, c in enumerate(found, 1):
        lines.append(f"{n}. {_labels(index, c.entry_ids)}: similarity {c.score:.0f}, saves {c.bytes_saved:,} B "
                     f"({c.reason})")
    return "\n".join(lines)


def archive_search(seat: Seat, query: str, limit: int = SHOWN) -> str:
    hits = archive_lever.search_archive(seat.memory_dir, query, limit=max(limit, 0))
    lines = [f"{len(hits)} archived entr{'y' if len(hits) == 1 else 'ies'} (restore takes the id):"]
    lines += [f'{h.entry_id} (ARCHIVE.md line {h.line}) "{_short(h.text)}" [{h.section or "top"}]'
              + (f" archived {h.archived_on}" if h.archived_on else "") for h in hits]
    return "\n".join(lines)


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


# -- fit -----------------------------------------------------------------------------------------

def fit(seat: Seat, apply: bool = False, keep: list[int] | None = None) -> str:
    """The plan (numbered steps); with ``apply``, the steps in ``keep`` (all when not given) as one change."""
    index = _index(seat.reading())
    plan = plan_fit(seat.memory_dir, index, target=seat.limits.target)
    if keep is not None:
        unknown = sorted(set(keep) - {s.number for s in plan.steps})
        if unknown:
            raise ToolError(f"Error: no step {', '.join(map(str, unknown))} in the plan (it has {len(plan.steps)} "
                            "steps); nothing was written")
        plan = plan_fit(seat.memory_dir, index, target=seat.limits.target,
                        skip=[s.number for s in plan.steps if s.number not in keep])
    lines = [f"fit plan: MEMORY.md {plan.before:,} B -> {plan.after:,} B (target {plan.target:,} B)"]
    for s in plan.steps:
        mark = "x" if s.selected else " "
        lines.append(f"[{mark}] step {s.number} {s.kind}, saves {s.bytes_saved:,} B, line {line_ranges(s.lines)}: "
                     f"{_labels(index, s.entry_ids)} — {s.reason}")
    lines += [f"left out: {note}" for note in plan.left_out]
    if not plan.steps:
        lines.append("no step can save bytes without losing something")
    for q in plan.questions:  # the bearer's to judge: never part of what apply writes
        lines += [f"question: {q.question}", *(f"  {said}" for said in q.said())]
    lines.append("target reached" if plan.reached else f"target NOT reached: {plan.left}")
    if not apply:
        lines.append("apply with fit(apply=true, keep=[step numbers you keep]); every step when keep is left out")
        return "\n".join(lines)
    if plan.change is None:
        return "\n".join(lines + ["nothing to apply"])
    change = plan.change
    return "\n".join(lines + [_write(seat, lambda _files, _index: change)])


# -- fold ----------------------------------------------------------------------------------------

def fold(seat: Seat, section: str | None = None, ids: list[str] | None = None, facet: str | None = None,
         apply: bool = False) -> str:
    """The facets that may fold; with a section or ids, the fold's plan; with ``apply``, the fold."""
    index = _index(seat.reading())
    if section is None and ids is None:
        found = fold_lever.facets(index)
        lines = [f"{len(found)} facet(s) that may fold (fold(section=HEADING) or fold(ids=[…], facet=NAME)):"]
        lines += [f"{f.kind} {f.name!r}: {len(f.entry_ids)} entries, {f.nbytes:,} B; first "
                  f"{label(index.entry(f.entry_ids[0]))}" for f in found[:SHOWN]]
        return "\n".join(lines)

    def planner(files: Reading, now: HotIndex) -> Change:
        return fold_lever.plan_fold(seat.memory_dir, now, ids=ids, section=section, facet=facet)

    if apply:
        return _write(seat, planner)
    change = planner(seat.reading(), index)
    (name,) = [n for n in change.names if n != INDEX_NAME]
    kept = next(line for line in (change.files[INDEX_NAME] or b"").decode("utf-8", "replace").splitlines() if f"]({name})" in line)
    return "\n".join([f"plan: {change.description}", f"entries: {_labels(index, change.entry_ids)}",
                      f"MEMORY.md keeps: {kept}", f"saves {change.bytes_saved:,} B; apply with fold(…, apply=true)"])


# -- writing levers ------------------------------------------------------------------------------

def archive(seat: Seat, ids: list[str], drop_empty_sections: bool = False) -> str:
    return _write(seat, lambda files, index: archive_lever.plan_archive(
        seat.memory_dir, index, ids, today=date.today(), drop_empty_sections=drop_empty_sections))


def restore(seat: Seat, id: str) -> str:
    return _write(seat, lambda files, index: archive_lever.plan_restore(seat.memory_dir, index, id))


def merge(seat: Seat, ids: list[str], text: str | None = None, drop_pointers: list[str] | None = None,
          force: bool = False) -> str:
    return _write(seat, lambda files, index: merge_lever.plan_merge(
        seat.memory_dir, index, ids, text=text, drop_pointers=tuple(drop_pointers or ()), force=force))


def trim(seat: Seat, apply_id: str | None = None, kind: str | None = None) -> str:
    """Suggestions for the longest entries; with ``apply_id``, apply the one for that entry."""
    if kind not in (None, "split", "tighten"):
        raise ToolError(f"Error: kind must be split or tighten, not {kind}")
    if apply_id is None:
        index = _index(seat.reading())
        found = trim_lever.suggestions(seat.memory_dir, index, threshold_bytes=trim_lever.DEFAULT_THRESHOLD,
                                       top=trim_lever.DEFAULT_TOP, limits=seat.limits)
        lines = [f"{len(found)} trim suggestion(s) (trim(apply_id=ID, kind=split|tighten) applies one):"]
        for s in found:
            where = f" -> {s.detail_file}" if s.detail_file else ""
            lines.append(f"{label(index.entry(s.entry_id))}: {s.kind}{where}, saves {s.bytes_saved:,} B; "
                         f"new line: {_short(s.new_line, 100)}")
        return "\n".join(lines)

    def planner(files: Reading, index: HotIndex) -> Change:
        if not index.has_entry(apply_id):
            raise ToolError(f"Error: no entry with id {apply_id} in MEMORY.md")
        options, errors = [], []
        for k in [kind] if kind else ["split", "tighten"]:
            try:
                options.append(trim_lever.plan_trim(seat.memory_dir, index, apply_id, kind=k))
            except CuratorError as err:  # a lever's refusal says why; the first one is reported
                errors.append(err)
        if not options:
            raise errors[0]
        return max(options, key=lambda c: c.bytes_saved)

    return _write(seat, planner)


def history_step(seat: Seat, undo: bool) -> str:
    entry, before, after = seat.step(undo)
    word = "undone" if undo else "redone"
    return "\n".join([f"{word}: {entry.description}", f"files: {', '.join(sorted(entry.files))}", seat.meter(after)])

