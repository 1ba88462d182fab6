"""The History panel: the seat's journal as a list — what each change did, when, which files, how many
bytes — with the point the files stand at now. Enter on a row undoes or redoes every change between
there and now (the screen does it, one journalled step at a time)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from textual.content import Content

from curator.store.records import JournalState
from curator.widgets.keymap import bindings
from curator.widgets.panel_table import PanelTable
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from curator.store.records import AppliedChange

START = "the start"  # the row before every change: enter there undoes them all


@dataclass(frozen=True)
class HistoryRow:
    position: int  # changes applied when the files stand here: 0 = before any
    state: JournalState | Literal[""]  # "" for the start row
    when: str
    what: str
    files: str
    nbytes: int


def rows_of(history: Sequence[AppliedChange]) -> list[HistoryRow]:
    """The start row, then each journal entry oldest first (applied ones, then undone ones in redo order)."""
    rows = [HistoryRow(0, "", "", f"({START}: before any change in this journal)", "", 0)]
    for n, entry in enumerate(history, 1):
        when = entry.applied_at.replace("T", " ")[5:16]  # month, day and minute tell changes apart
        rows.append(HistoryRow(n, entry.state, when, entry.description, ", ".join(sorted(entry.files)),
                               entry.bytes_saved))
    return rows


def applied_count(history: Sequence[AppliedChange]) -> int:
    return sum(1 for entry in history if entry.state != JournalState.UNDONE)


class HistoryTable(PanelTable):
    BINDINGS = bindings("history")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.history_rows: list[HistoryRow] = []
        self.now = 0  # the position the files stand at

    def show(self, history: Sequence[AppliedChange]) -> None:
        self.history_rows, self.now = rows_of(history), applied_count(history)
        cells = []
        for row in self.history_rows:
            if row.position == self.now:
                mark = verbatim("▶ now", "bold $accent")
            elif row.state == JournalState.UNDONE:
                mark = verbatim("undone", "dim")
            else:
                mark = verbatim("done" if row.state else "", "")
            saved = f"{row.nbytes:+,} B".replace("+", "−", 1) if row.nbytes > 0 else f"+{-row.nbytes:,} B"
            cells.append(((mark, verbatim(row.what, "dim" if row.state == JournalState.UNDONE else ""),
                           verbatim(saved if row.state else ""), verbatim(row.when), verbatim(row.files)), None))
        fill(self, [("", "mark"), ("Change", "what"), ("MEMORY.md", "bytes"), ("When (UTC)", "when"),
                    ("Files", "files")], cells, widths={"mark": 6, "when": 11, "what": 40})

    def target(self) -> int | None:
        row = self.item_at_cursor(self.history_rows)
        return row.position if row is not None else None

    def detail(self) -> Content:
        row = self.item_at_cursor(self.history_rows)
        if row is None:
            return Content("")
        if row.position == self.now:
            return verbatim("The files stand here now.", "dim")
        steps = abs(row.position - self.now)
        verb = "undoes" if row.position < self.now else "redoes"
        return verbatim(f"{row.what}\nenter {verb} {steps} change{'s' if steps > 1 else ''} to stand here", "")
