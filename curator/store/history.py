"""Undo and redo: bringing every file of a journalled change back to one of its two sides."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

from curator.change import digest
from curator.errors import ConflictError, NothingToRedoError, NothingToSettleError, NothingToUndoError
from curator.store import consolidate_lock
from curator.store.base import Move, StoreBase, Written
from curator.store.records import IN_TRANSITION, AppliedChange, FileStep, JournalState, Side, side
from curator.safe_replace import appended
from curator.store.seat_files import write_order


class History(StoreBase):
    """The undo/redo half of the seat store (mixed into ``SeatStore``)."""

    # -- undo / redo ---------------------------------------------------------------------------
    # These re-read the journal (atomically replaced, so always whole): another curator window on
    # the same seat may have applied or undone something since.
    @property
    def can_undo(self) -> bool:
        self._load_journal()
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        self._load_journal()
        return bool(self._undone) or bool(self._done and self._done[-1].state in IN_TRANSITION)

    def history(self) -> list[AppliedChange]:
        """Applied changes oldest first, then undone ones (the next redo first)."""
        self._load_journal()
        return list(self._done) + list(reversed(self._undone))

    def undo(self) -> AppliedChange:
        """Revert the last change; an interrupted one is rolled back (its files put as before)."""
        return self._step(undo=True)

    def redo(self) -> AppliedChange:
        """Re-apply the last undone change; an interrupted one is finished."""
        return self._step(undo=False)

    def settle_as_is(self) -> AppliedChange:
        """Settle an interrupted change as its files stand now, writing no file: it becomes an
        applied change whose "after" is what is on disk, so undo still brings back the version
        from before it. The way out when a file was edited since (undo and redo both refuse)."""
        with self._locked():
            self._load_journal()
            self._reconcile_pending()
            if not self._done or self._done[-1].state not in IN_TRANSITION:
                raise NothingToSettleError("no interrupted change to settle")
            entry = self._done[-1]
            steps = {}
            for name, step in entry.files.items():
                data, now = self._current(name)
                self._put_blob(data)
                steps[name] = FileStep(step.before, now.sha256, step.mode)
            entry = dataclasses.replace(entry, files=MappingProxyType(steps), state=JournalState.APPLIED)
            self._done[-1] = entry
            self._save_journal()
            self._collect_blobs()
            return entry

    def _step(self, *, undo: bool) -> AppliedChange:
        with self._locked(), consolidate_lock.taken(self.memory_dir):
            self._load_journal()  # another curator on this seat may have moved the history
            self._reconcile_pending()
            interrupted = bool(self._done) and self._done[-1].state in IN_TRANSITION
            if interrupted:
                entry = self._done[-1]
            else:
                source = self._done if undo else self._undone
                if not source:
                    raise NothingToUndoError("nothing to undo") if undo else NothingToRedoError("nothing to redo")
                entry = source[-1]
            moves = self._plan_restore(entry, to_before=undo, interrupted=interrupted)
            history = (list(self._done), list(self._undone))
            # Journal the transition before the first file is touched. An interrupted change takes
            # the state of this step too: killed after its last write, it is then settled as undone
            # (redo-able) or applied, never dropped as a save that never happened.
            if interrupted:
                self._done[-1] = entry.with_state(JournalState.UNDOING if undo else JournalState.REDOING)
            elif undo:
                self._done[-1] = entry.with_state(JournalState.UNDOING)
            else:
                self._undone.pop()
                self._done.append(entry.with_state(JournalState.REDOING))
            self._save_journal()
            written = self._carry_out(entry, moves, history, carry_appends=interrupted)
            entry = self._with_written(entry, written, to_before=undo)
            self._done.pop()
            if undo:
                entry = entry.with_state(JournalState.UNDONE)
                self._undone.append(entry)
            else:
                entry = entry.with_state(JournalState.APPLIED)
                self._done.append(entry)
            self._save_journal(written=True)
            self._collect_blobs()
            return entry

    def _plan_restore(self, entry: AppliedChange, *, to_before: bool, interrupted: bool) -> list[Move]:
        """The (name, old, new) moves that bring every file of ``entry`` to one side, in write
        order; files already there are left alone. A file at neither side is refused, except, for
        an interrupted change, one that is a side plus text appended since (the append is kept)."""
        moves: list[tuple[str, bytes | None, str | None]] = []  # (name, bytes now, sha256 wanted)
        conflicts: list[str] = []
        for name, step in entry.files.items():
            want, other = (step.before, step.after) if to_before else (step.after, step.before)
            data, now = self._current(name)
            if now.sha256 == want:
                continue
            if now.sha256 == other:
                moves.append((name, data, want))
                continue
            if interrupted and appended(self._get_blob(want), data) is not None:
                continue  # already as wanted, plus an append since: nothing to write
            if interrupted and appended(self._get_blob(other), data) is not None:
                moves.append((name, self._get_blob(other), want))  # _settle carries the append over
                continue
            conflicts.append(name)
        if conflicts:
            since = "the interrupted change began" if interrupted else "the curator wrote it"
            way_out = (f"; to keep the files as they are, settle it with `seat-curator redo {self.memory_dir} "
                       "--as-is` (undo then returns to before the change)") if interrupted else ""
            raise ConflictError(
                f"changed on disk since {since}, so {'undo' if to_before else 'redo'} "
                f"would overwrite someone's edit; nothing was written: {', '.join(sorted(conflicts))}{way_out}",
                path=self.memory_dir / sorted(conflicts)[0],
            )
        # Read every blob before writing anything, so a missing blob cannot leave half a restore.
        return write_order([(name, old, self._get_blob(sha)) for name, old, sha in moves])

    def _with_written(self, entry: AppliedChange, written: Written, *, to_before: bool) -> AppliedChange:
        """``entry`` with its steps following what was really written when appends were carried."""
        steps = dict(entry.files)
        for name, (replaced, wrote) in written.items():
            before, after = (wrote, replaced) if to_before else (replaced, wrote)
            if (digest(before), digest(after)) != (steps[name].before, steps[name].after):
                self._put_blob(before)
                self._put_blob(after)
                steps[name] = FileStep(digest(before), digest(after), steps[name].mode)
        return dataclasses.replace(entry, files=MappingProxyType(steps))


    def _reconcile_pending(self) -> None:
        """A crash between journalling and the last file write leaves an entry in transition: if no
        file or every file was reached, settle it; a change left half-way stays (interrupted)."""
        if not self._done or self._done[-1].state not in IN_TRANSITION:
            return
        entry = self._done[-1]
        sides = {side(step, self._current(name)[1].sha256) for name, step in entry.files.items()}
        if sides == {Side.AFTER}:  # every file reached (or, for an undo, none): it is applied
            self._done[-1] = entry.with_state(JournalState.APPLIED)
        elif sides == {Side.BEFORE}:
            self._done.pop()
            if entry.state != JournalState.PENDING:  # an undo that finished, or a redo that never began
                self._undone.append(entry.with_state(JournalState.UNDONE))
        else:
            return
        self._save_journal()
        self._collect_blobs()

