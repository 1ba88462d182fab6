"""Trim a selection: every chosen entry gets the safe trim that saves most, all in ONE change.

A safe trim is one ``curator.levers.trim`` offers: a **split** (the lesson stays in the index, the
story moves verbatim into the entry's detail file) or a **tighten** (filler wording goes, every fact
stays). An entry with neither is named with the lever's reasons, and the others are trimmed without
it. Splits into the same detail file follow one another there (each under its own heading), and a
new detail file is never named twice. The batch is checked against the pointer graph once; if
together the trims would add a pointer problem, they are taken one at a time, each kept only if the
batch so far stays clean. One ``Change`` (kind ``trim``), so the store applies it atomically and one
undo gives every file back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from curator.change import Change, digest
from curator.constants import INDEX_NAME
from curator.errors import CuratorError
from curator.index_model import Entry, HotIndex
from curator.levers import trim
from curator.levers.pointer_delta import added_problems
from curator.levers.text import entries_by_id, read_optional
from curator.pointers import PointerReport, check_pointers

KINDS = ("split", "tighten")


@dataclass(frozen=True)
class TrimmedEntry:
    entry_id: str
    kind: str  # split | tighten
    bytes_saved: int  # MEMORY.md bytes this entry's trim saves
    detail_file: str  # where a split moves the story ('' for a tighten)


@dataclass(frozen=True)
class UntrimmedEntry:
    entry_id: str
    reason: str  # why no safe trim is offered, per kind, without the entry's id


@dataclass(frozen=True)
class SelectionTrim:
    change: Change | None  # None when no selected entry has a safe trim
    trimmed: tuple[TrimmedEntry, ...]  # in file order
    untrimmed: tuple[UntrimmedEntry, ...]  # in file order


def plan_selection_trim(memory_dir: str | Path, index: HotIndex, ids: list[str] | tuple[str, ...]) -> SelectionTrim:
    """The safe trims of the entries ``ids`` of ``index`` as one change, and the entries left as they are."""
    memory_dir = Path(memory_dir)
    entries = sorted(entries_by_id(index, list(ids)), key=lambda e: e.line)
    chosen: list[tuple[Entry, trim.TrimSuggestion]] = []
    reasons: dict[str, str] = {}
    for entry in entries:
        options, why = [], []
        for kind in KINDS:
            try:
                options.append(trim.suggest(memory_dir, index, entry, kind))
            except CuratorError as err:
                why.append(f"{kind}: {_without_id(err.message, entry.id, kind)}")
        if options:  # the one that saves more (a split, on a tie: it leaves the shorter line)
            chosen.append((entry, max(options, key=lambda s: s.bytes_saved)))
        else:
            reasons[entry.id] = "; ".join(why)
    before = check_pointers(memory_dir, parsed_index=index)
    batch = _Batch(memory_dir, index, before)
    batch.take(chosen)
    if batch.broken:  # together they would add a pointer problem: keep each only if the batch stays clean
        kept: list[tuple[Entry, trim.TrimSuggestion]] = []
        for pick in chosen:
            trial = _Batch(memory_dir, index, before)
            trial.take(kept + [pick])
            if trial.broken:
                reasons[pick[0].id] = "with the others trimmed it would add " + ", ".join(trial.broken)
            else:
                kept.append(pick)
        batch = _Batch(memory_dir, index, before)
        batch.take(kept)
    for entry_id, reason in batch.failed.items():
        reasons[entry_id] = reason
    untrimmed = tuple(UntrimmedEntry(e.id, reasons[e.id]) for e in entries if e.id in reasons)
    return SelectionTrim(batch.change(), tuple(batch.trimmed), untrimmed)


class _Batch:
    """The chosen trims written together: one splice of MEMORY.md, the detail files as the splits
    leave them, checked against the pointer report of the index as it was."""

    def __init__(self, memory_dir: Path, index: HotIndex, before: PointerReport):
        self.memory_dir, self.index, self.before = memory_dir, index, before
        self.trimmed: list[TrimmedEntry] = []
        self.failed: dict[str, str] = {}
        self.files: dict[str, bytes | None] = {}
        self.base: dict[str, str | None] = {INDEX_NAME: digest(index.raw)}
        self.broken: list[str] = []

    def take(self, chosen: list[tuple[Entry, trim.TrimSuggestion]]) -> None:
        edits: list[tuple[int, int, bytes]] = []
        details: dict[str, bytes] = {}
        for entry, suggestion in chosen:
            detail = ""
            if suggestion.kind == "split":
                try:  # planned again beside the splits before it (a shared detail file, a new name)
                    new_text, detail, files = trim.split_entry(self.memory_dir, self.index, entry, details)
                except CuratorError as err:
                    self.failed[entry.id] = "split: " + _without_id(err.message, entry.id, "split")
                    continue
                self.base.setdefault(detail, digest(read_optional(self.memory_dir, detail)))
                details.update(files)
            else:
                new_text = suggestion.new_line
            edit = trim.entry_edit(self.index, entry, new_text)
            edits.append(edit)
            self.trimmed.append(TrimmedEntry(entry.id, suggestion.kind, (edit[1] - edit[0]) - len(edit[2]), detail))
        if edits:
            self.files = {INDEX_NAME: self.index.splice(edits), **details}
            after = check_pointers(self.memory_dir, overrides=self.files)
            self.broken = added_problems(self.before, after)

    def change(self) -> Change | None:
        if not self.trimmed:
            return None
        new_index = self.files[INDEX_NAME] or b""
        count = len(self.trimmed)
        return Change(
            description=f"trim {count} entr{'y' if count == 1 else 'ies'}",
            files=self.files,
            bytes_saved=len(self.index.raw) - len(new_index),
            entry_ids=tuple(t.entry_id for t in self.trimmed),
            kind="trim",
            base={name: self.base[name] for name in self.files},
        )


def _without_id(message: str, entry_id: str, kind: str) -> str:
    """The lever's reason as a person reads it beside the entry's line and title: no id, no kind twice."""
    words = message.replace(f"entry {entry_id}: ", "").replace(f"entry {entry_id}", "it").replace(entry_id, "it")
    return words.removeprefix(f"{kind} ").removesuffix(": not offered")
