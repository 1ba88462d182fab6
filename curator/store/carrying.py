"""Carrying out a change of several files so that moved text is always in at least one live file.

A change that moves text has files that receive it (a line comes in) and files that give it up (a
line goes); ``write_order`` writes the receivers first. Someone may rewrite a file the change
already wrote (an agent saving MEMORY.md from the copy it read before the change). So before each
giver is written, and again after the last write, every file written is read back: each must
still hold what the change wrote to it (as written, or with text appended since). If one does not, the
change is rolled back file by file, last written first, under one rule: a file that received
nothing may always be put back (that only returns text to it), one that received text only while
every other giver holds its old version again (so what it gives back is provably still there).
What cannot be put back under that rule stays as the change wrote it, and the change is left
interrupted for the bearer (`check`, undo, redo). Either way the command fails with one line saying what happened.
"""

from __future__ import annotations

import contextlib
from curator.change import digest
from curator.errors import ConflictError, CuratorError, SaveError
from curator.safe_replace import holds
from curator.store.inspection import where_files_stand
from curator.store.base import JournalLists, Move, StoreBase, Written
from curator.store.records import AppliedChange
from curator.store.seat_files import gives, receives


class CarryingOut(StoreBase):
    """Writing a change's moves, checking them, and putting them back (a part of ``SeatStore``)."""

    def _carry_out(self, entry: AppliedChange, moves: list[Move], history: JournalLists,
                   *, carry_appends: bool = False) -> Written:
        """Write each (name, old, new) move in order, checking the files already written before
        each giver and after the last write (see the module doc). On a failure, or a file no longer
        holding what was written to it, put back what may be put back and restore the journal as it
        was (``history``); what may not stays, with the entry left interrupted. Returns
        name -> (replaced, written) as on disk."""
        written: Written = {}
        name: str | None = None
        old = new = None
        try:
            for name, old, new in moves:
                if gives(old, new) and self._no_longer_held(written):
                    break  # a receiver lost what it got: never take the text from its giver
                written[name] = self._settle(name, old, new, entry.files[name].mode, carry_appends=carry_appends)
                self._seen[name] = self._fingerprint(name, written[name][1])  # ours is the new baseline
            name = None
        except BaseException as err:
            if name is not None and name not in written and new is not None:
                # Interrupted after its rename (Ctrl-C, say): it is ours now, so it goes back too.
                with contextlib.suppress(BaseException):
                    if self._current(name)[1].sha256 == digest(new):
                        written[name] = (old, new)
            self._roll_back(entry, moves, written, history, failure=(err, self._save_error(err, name)))
        lost = self._no_longer_held(written)
        if lost:
            self._roll_back(entry, moves, written, history, lost=tuple(lost))
        return written

    def _no_longer_held(self, written: Written) -> list[str]:
        """The files written so far that someone has since rewritten (what was written is gone)."""
        return [name for name, (_replaced, wrote) in written.items()
                if not holds(wrote, self._current(name)[0])]

    def _roll_back(self, entry: AppliedChange, moves: list[Move], written: Written, history: JournalLists,
                   *, failure: tuple[BaseException, BaseException] | None = None, lost: tuple[str, ...] = ()) -> None:
        """Put back the written files (see the module doc), then raise: the failure, or a
        ConflictError naming the ``lost`` files."""
        givers = {n: old for n, old, new in moves if gives(old, new)}
        receivers = {n for n, old, new in moves if receives(old, new)}
        kept: list[str] = []
        back: list[str] = []
        problems: list[str] = []
        for name, (replaced, wrote) in reversed(list(written.items())):
            if name in lost:
                continue  # someone else's now: left as they wrote it
            if name in receivers and not all(holds(old, self._current(g)[0]) for g, old in givers.items()
                                             if g != name):
                kept.append(name)  # what it received may be nowhere else: it stays
                continue
            try:
                _, put = self._settle(name, wrote, replaced, entry.files[name].mode, carry_appends=True)
                self._seen[name] = self._fingerprint(name, put)
                back.append(name)
            except BaseException as trouble:  # noqa: BLE001 (written to meanwhile, or a failing disk: it stays)
                kept.append(name)
                problems.append(str(trouble))
        if not kept:
            self._done, self._undone = history
            with contextlib.suppress(CuratorError):  # if this fails, the next open settles the entry
                self._save_journal()
        if failure is not None:
            err, reported = failure
            if kept:
                why = f" ({'; '.join(problems)})" if problems else " (their text may be nowhere else)"
                raise SaveError(f"{reported}; {', '.join(sorted(kept))} could not be put back{why}; "
                                + self._interrupted_note()) from err
            if reported is err:
                raise err
            raise reported from err
        others = sorted(lost)[1:]
        said = ("rewritten by someone else while the change was being saved, so it no longer holds what the change "
                "wrote to it" + (f" (nor does {', '.join(others)})" if others else ""))
        if kept:
            raise ConflictError(f"{said}; {', '.join(sorted(kept))} still hold the change, so no text was lost; "
                                + self._interrupted_note(), path=self.memory_dir / sorted(lost)[0])
        returned = f"; {', '.join(sorted(back))} put back as before" if back else ""
        raise ConflictError(f"{said}{returned}: nothing of the change remains and no text was lost",
                            path=self.memory_dir / sorted(lost)[0])

    def _interrupted_note(self) -> str:
        """How the journal leaves the change: in transition, as `check` reports it."""
        found = where_files_stand(self.memory_dir, self._done[-1]) if self._done else None
        if found is None:
            return "the journal keeps the change as interrupted: `seat-curator check` describes it"
        return found.message
