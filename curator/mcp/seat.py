"""The one way the MCP tools write: through the seat store, under the cap.

Every write is planned on what is on disk now and applied by the seat store (atomic, journalled,
undoable, refused when a file changed meanwhile). When someone else writes a file between the plan
and the save (the agent appending from another tool, say), the store refuses and nothing of theirs
is lost; the command is then planned again on the new bytes, since each command is defined against
the file as it is. A write that takes MEMORY.md past the read limit is refused, naming the levers
that make room; past the target it is made, with a warning.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from curator.analysis import read_identity
from curator.change import Change
from curator.errors import ConflictError
from curator.mcp import report
from curator.mcp.pointer_cache import PointerCache
from curator.meter import Limits
from curator.store import INDEX_NAME, AppliedChange, SeatStore

ATTEMPTS = 5  # plans made again after a concurrent write before the tool gives up (and says so)
MAKE_ROOM = ("make room first with the seat's levers: `fit` (plans lossless steps; apply=true writes them), "
             "`trim`, `merge`, `archive` (moves entries to ARCHIVE.md; `restore` brings one back); or keep the "
             "detail in a topic file and link it from one short index line")


class CapRefused(Exception):
    """A write that would take MEMORY.md past the read limit; the message says what to do instead."""


@dataclass(frozen=True)
class Written:
    change: Change
    applied: AppliedChange
    index_before: bytes
    index_after: bytes
    notes: tuple[str, ...]  # the target warning, the pointer problems the write created, the meter line


class Reading:
    """The seat's files as one plan reads them: each file read once, and that version is the one the
    store lets the change overwrite; the cap check and the pointer report see the same bytes."""

    def __init__(self, store: SeatStore) -> None:
        self.store = store
        self._read: dict[str, bytes | None] = {}

    def read_if_exists(self, name: str) -> bytes | None:
        if name not in self._read:
            self._read[name] = self.store.read_if_exists(name)
        return self._read[name]

    def read(self, name: str) -> bytes:
        data = self.read_if_exists(name)
        return self.store.read(name) if data is None else data  # absent: the store's own "no such file"

    def index_bytes(self) -> bytes:
        return self.read_if_exists(INDEX_NAME) or b""


class Seat:
    """One seat's memory dir, its limits and its journal."""

    def __init__(self, memory_dir: Path, limits: Limits = Limits(), state_dir: Path | None = None):
        self.memory_dir = Path(memory_dir).absolute()
        self.limits = limits
        self.state_dir = state_dir
        self.pointers = PointerCache(self.memory_dir)

    def store(self) -> SeatStore:
        return SeatStore.open(self.memory_dir, state_dir=self.state_dir)

    def reading(self) -> Reading:
        return Reading(self.store())

    def identity(self) -> bytes | None:
        return read_identity(self.memory_dir / "identity.md")

    def meter(self, raw: bytes) -> str:
        return report.meter_line(raw, self.limits, self.identity())

    def write(self, plan: Callable[[Reading], Change]) -> Written:
        """Plan on the files as they are, check the cap, apply; plan again if someone wrote meanwhile."""
        for attempt in range(ATTEMPTS):
            files = self.reading()
            change = plan(files)
            before = files.index_bytes()
            after = (change.files[INDEX_NAME] if INDEX_NAME in change.files else before) or b""
            self.check_cap(before, after)
            pointers_before, state = self.pointers.current(before)
            pointers_after = self.pointers.proposed(after, change.files, state)
            self.make_parents(change.files)
            try:
                applied = files.store.apply(change)
            except ConflictError:
                if attempt == ATTEMPTS - 1:
                    raise
                continue
            self.remove_emptied_dirs(change.files)
            notes = [*self.target_warning(after), self.meter(after),
                     *report.created_problems(pointers_before, pointers_after)]
            return Written(change, applied, before, after, tuple(notes))
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def check_cap(self, before: bytes, after: bytes) -> None:
        """Refuse a write that grows MEMORY.md past the read limit (shrinking one that is already
        past is how room is made, so that passes)."""
        limit = self.limits.read_limit
        if len(after) > limit and len(after) > len(before):
            raise CapRefused(f"Error: refused: MEMORY.md would be {len(after):,} B, past its {limit:,} B read limit "
                             f"(it is {len(before):,} B now); nothing was written. To add this, {MAKE_ROOM}.")

    def target_warning(self, after: bytes) -> list[str]:
        over = len(after) - self.limits.target
        if over <= 0:
            return []
        return [f"warning: MEMORY.md is {over:,} B over its {self.limits.target:,} B target; the write was made, "
                f"but {MAKE_ROOM}."]

    def make_parents(self, files: Mapping[str, bytes | None]) -> None:
        """Directories a new file needs (the memory tool creates them; the store writes files only)."""
        for name, data in files.items():
            if data is not None and "/" in name:
                parent = self.memory_dir / name.rsplit("/", 1)[0]
                parent.mkdir(parents=True, exist_ok=True, mode=0o700)

    def remove_emptied_dirs(self, files: Mapping[str, bytes | None]) -> None:
        """A delete or rename that empties a directory takes it away too, as the memory tool does."""
        for name, data in files.items():
            if data is None:
                parts = name.split("/")[:-1]
                while parts:
                    try:
                        os.rmdir(self.memory_dir.joinpath(*parts))
                    except OSError as err:
                        if err.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                            raise
                        break
                    parts.pop()

    def step(self, undo: bool) -> tuple[AppliedChange, bytes, bytes]:
        """Undo or redo the last change (the agent's own writes included); MEMORY.md before and after."""
        store = self.store()
        before = Reading(store).index_bytes()
        # A file the step brings back may have lived in a directory removed since: make them all
        # first, and take away the ones left empty after.
        names = {name for entry in store.history() for name in entry.files}
        self.make_parents(dict.fromkeys(names, b""))
        try:
            entry = store.undo() if undo else store.redo()
        finally:
            self.remove_emptied_dirs({name: None for name in names if not store.exists(name)})
        return entry, before, Reading(store).index_bytes()
