"""Read-only views of a seat's store state for `check` and the app: an interrupted change, temp
files a killed operation left in the state dir, a journal that cannot be read. Nothing here writes."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from curator import fsio
from curator.errors import CuratorError, shown_path
from curator.store.journal import parse_journal
from curator.store.lock import lock_is_held
from curator.store.records import IN_TRANSITION, AppliedChange, JournalState, Side, side
from curator.store.seat_files import absent, locate, read_current


@dataclass(frozen=True)
class InterruptedChange:
    """A change the journal shows half-way between its two sides: the store was killed (or could
    not put files back) after writing some of its files and before the last."""

    entry: AppliedChange
    at_before: tuple[str, ...]  # files still as they were before the change
    at_after: tuple[str, ...]  # files already as the change makes them
    changed: tuple[str, ...]  # files at neither side (someone wrote to them since)
    memory_dir: Path

    @property
    def verb(self) -> Literal["undo", "redo", "save"]:
        state = self.entry.state
        return "undo" if state == JournalState.UNDOING else "redo" if state == JournalState.REDOING else "save"

    @property
    def message(self) -> str:
        """One line for people: what was interrupted, where each file stands, what to run. undo
        always brings the files to before the change and redo to after it, so for an interrupted
        undo, undo is what finishes it."""
        parts = [f"{', '.join(names)} {label}" for names, label in (
            (self.at_after, "changed"), (self.at_before, "not yet changed"), (self.changed, "edited since"))
            if names]
        finish, back = ("undo", "redo") if self.verb == "undo" else ("redo", "undo")
        memory_dir = shown_path(self.memory_dir)
        return (f"an interrupted {self.verb} of change {self.entry.id} ({self.entry.description}): "
                f"{'; '.join(parts)}; finish it with `seat-curator {finish} {memory_dir}` or roll it back "
                f"with `seat-curator {back} {memory_dir}`")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.entry.id, "description": self.entry.description, "kind": self.entry.kind,
                "interrupted": self.verb, "at_before": list(self.at_before), "at_after": list(self.at_after),
                "changed": list(self.changed), "message": self.message}


def interrupted_change(memory_dir: str | Path, *, state_dir: str | Path | None = None) -> InterruptedChange | None:
    """The seat's interrupted change, or None. Reads the journal and the files, writes nothing, and
    says None while a store operation holds the seat's lock (a save under way is not interrupted).
    Raises InputError for an unreadable journal."""
    memory, state = locate(memory_dir, state_dir)
    journal = state / "journal.json"
    if absent(journal) or lock_is_held(state):
        return None
    done, _undone = parse_journal(fsio.read_bytes(journal), memory, journal)
    if not done or done[-1].state not in IN_TRANSITION:
        return None
    return where_files_stand(memory, done[-1])


def where_files_stand(memory: Path, entry: AppliedChange) -> InterruptedChange | None:
    """``entry`` (in transition) as an InterruptedChange, or None if no file or every file was reached."""
    sides = {name: side(step, read_current(memory, name)[1].sha256) for name, step in entry.files.items()}
    if len(set(sides.values())) == 1 and Side.CHANGED not in sides.values():
        return None  # no file or every file reached: the next store operation settles it silently
    group = lambda side: tuple(sorted(n for n, s in sides.items() if s == side))  # noqa: E731
    return InterruptedChange(entry, group(Side.BEFORE), group(Side.AFTER), group(Side.CHANGED), memory)


def state_leftovers(memory_dir: str | Path, *, state_dir: str | Path | None = None) -> list[tuple[Path, int]]:
    """(path, size) of the temp files a killed store operation left in the seat's state dir (undo
    copies and journal writes that never reached their rename). They hold nothing the journal
    needs; the next store operation removes them under the lock."""
    _memory, state = locate(memory_dir, state_dir)
    stale = time.time() - fsio.TEMP_STALE_S
    return [(directory / name, size) for directory in (state, state / "blobs")
            for name, _target, size in fsio.temp_files(directory, older_than=stale)]


@dataclass(frozen=True)
class SeatState:
    """What the curator's own state says about a seat, for `check` and the app: an interrupted
    change, temp files a killed operation left in the state dir, or a journal that cannot be read."""

    interrupted: InterruptedChange | None = None
    leftovers: tuple[tuple[Path, int], ...] = ()
    problem: str | None = None  # the journal or state dir could not be read

    @property
    def warnings(self) -> tuple[str, ...]:
        found = [self.interrupted.message] if self.interrupted else []
        if self.leftovers:
            total = sum(size for _path, size in self.leftovers)
            names = ", ".join(f"{path} ({size:,} B)" for path, size in self.leftovers)
            found.append(f"{len(self.leftovers)} temp file(s), {total:,} B, left in the curator's state dir by an "
                         f"interrupted operation (no bearer text; the next save or undo removes them): {names}")
        if self.problem:
            found.append(self.problem)
        return tuple(found)


def seat_state(memory_dir: str | Path, *, state_dir: str | Path | None = None) -> SeatState:
    """Read-only: ``interrupted_change`` and ``state_leftovers`` together, problems as a warning."""
    try:
        return SeatState(interrupted_change(memory_dir, state_dir=state_dir),
                         tuple(state_leftovers(memory_dir, state_dir=state_dir)))
    except CuratorError as err:
        return SeatState(problem=str(err))


