"""The index screen's journal: the seat store's history read after each write, shown in the History
panel, the footer and the interrupted-change banner, and stepped back and forth (undo / redo)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.widgets import Static

from curator.errors import CuratorError
from curator.screens.index.host import ScreenParts
from curator.store.records import JournalState
from curator.widgets.messages import ChangeApplied
from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from curator.store import InterruptedChange
    from curator.store.records import AppliedChange


class JournalHost(ScreenParts, Protocol):
    """What the journal steps use of the screen: the journal as last read, and their own steps."""

    _history: tuple[bool, bool]  # (can undo, can redo) a change
    _journal: list[AppliedChange]  # the store's history() as last read
    interrupted: InterruptedChange | None

    def show_interrupted(self) -> None: ...
    def show_history(self) -> None: ...
    def step_history(self, *, undo: bool) -> None: ...


class JournalSteps:
    """Mixed into ``IndexScreen``: undo / redo a change, and what the journal says about it."""

    def read_history(self: JournalHost) -> None:
        try:
            self._history = (self.store.can_undo, self.store.can_redo) if self.store else (False, False)
            self._journal = self.store.history() if self.store else []
        except CuratorError:
            self._history, self._journal = (False, False), []
        self.show_interrupted()
        self.show_history()
        self.refresh_bindings()

    def show_history(self: JournalHost) -> None:
        if self.panels_ready:
            from curator.widgets.history_panel import HistoryTable  # loaded with the panels, after the first frame

            self.query_one("#history-table", HistoryTable).show(self._journal)

    def show_interrupted(self: JournalHost) -> None:
        """A change the curator was saving when it was killed half-way: a warning that stays in view
        (not only a toast) with the ways out, until undo, redo or settle-as-is resolves it."""
        try:
            self.interrupted = self.store.interrupted if self.store is not None else None
        except CuratorError:
            self.interrupted = None
        banner = self.query_one("#seat-warning", Static)
        banner.display = self.interrupted is not None
        if self.interrupted is not None:
            banner.update(verbatim(
                f"⚠ {self.interrupted.message}. Here: {self.key('index.undo_change')} rolls it back · "
                f"{self.key('index.redo_change')} finishes it · {self.key('index.settle_as_is')} keeps the files "
                "as they are. Nothing new is saved until then.", "bold $warning"))

    @staticmethod
    def history_label(verb: str, entry: AppliedChange | None) -> str:
        if entry is None:
            return verb
        words = entry.description
        return f"{verb}: {words if len(words) <= 22 else words[:21].rstrip() + '…'}"

    def next_undo(self: JournalHost) -> AppliedChange | None:
        done = [e for e in self._journal if e.state != JournalState.UNDONE]
        return done[-1] if done else None

    def next_redo(self: JournalHost) -> AppliedChange | None:
        undone = [e for e in self._journal if e.state == JournalState.UNDONE]
        return undone[0] if undone else None

    # == the journal: undo / redo a change ========================================================
    def action_undo_change(self: JournalHost) -> None:
        self.step_history(undo=True)

    def action_redo_change(self: JournalHost) -> None:
        self.step_history(undo=False)

    def action_history_jump(self: JournalHost) -> None:
        """Enter on a History row: undo or redo one change at a time until the files stand there."""
        from curator.widgets.history_panel import HistoryTable

        if self.store is None:
            return
        wanted = self.query_one("#history-table", HistoryTable).target()
        now = len([e for e in self._journal if e.state != JournalState.UNDONE])
        if wanted is None or wanted == now:
            self.set_status("The files already stand here.")
            return
        if self.dirty:
            self.app.notify("Save or reload your edits first: undo restores files on disk.",
                            severity="warning", markup=False)
            return
        undo, steps, last = wanted < now, abs(wanted - now), None
        try:
            for _ in range(steps):
                last = self.store.undo() if undo else self.store.redo()
        except CuratorError as err:
            self.app.notify(str(err), severity="warning", markup=False)
        if last is not None:
            self.change_applied(ChangeApplied(
                f"{'Undid' if undo else 'Redid'} {steps} change{'s' if steps > 1 else ''}, the last: {last.description}",
                "history"))
            self.panels.active = "history"

    def action_settle_as_is(self: JournalHost) -> None:
        """An interrupted change settled as its files stand (nothing written); undo then goes to before it."""
        if self.store is None:
            return
        if self.interrupted is None:  # offered only then; pressed anyway, it says why nothing happens
            self.set_status("Nothing to settle: no change was interrupted half-way.", "$warning")
            return
        try:
            entry = self.store.settle_as_is()
        except CuratorError as err:
            self.app.notify(str(err), severity="warning", markup=False)
            return
        self.change_applied(ChangeApplied(f"Settled as the files stand: {entry.description}. "
                                          f"{self.key('index.undo_change')} goes back to before it.", "history"))

    def step_history(self: JournalHost, *, undo: bool) -> None:
        if self.store is None:
            return
        if not self._history[0 if undo else 1]:
            self.set_status(f"Nothing to {'undo' if undo else 'redo'}: "
                            + ("no change in this seat's journal yet." if not self._journal else
                               "every change in the journal is " + ("undone." if undo else "applied.")), "$warning")
            return
        if self.dirty:
            self.app.notify("Save or reload your edits first: undo restores files on disk.",
                            severity="warning", markup=False)
            return
        try:
            entry = self.store.undo() if undo else self.store.redo()
        except CuratorError as err:
            self.app.notify(str(err), severity="warning", markup=False)
            return
        self.change_applied(ChangeApplied(f"{'Undid' if undo else 'Redid'}: {entry.description}", "history"))
