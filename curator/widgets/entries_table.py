"""The entries panel: one row per index entry, sortable, with marks for acting on several at once."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.content import Content
from textual.widgets import DataTable

from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

SORTS = ("line", "bytes", "section", "pointers")
POINTER_STYLES = {"ok": "$success", "none": "dim", "dangling": "bold $error", "escape": "bold $error"}


@dataclass(frozen=True)
class EntryRow:
    id: str
    line: int
    section: str
    nbytes: int
    share: float  # fraction of the target budget
    pointers: str  # "ok" | "none" | "dangling" | "escape" | …
    text: str


class EntriesTable(DataTable):
    BINDINGS = [
        Binding("space", "toggle_mark", "Mark entry"),
        Binding("s", "cycle_sort", "Sort entries"),
    ]

    def __init__(self, **kwargs):
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.rows_by_id: dict[str, EntryRow] = {}
        self.marked: set[str] = set()
        self.sort_by = "line"

    COLUMNS = [("✓", "mark"), ("Line", "line"), ("Section", "section"), ("Bytes", "bytes"), ("Share", "share"),
               ("Ptrs", "pointers"), ("Entry", "text")]

    def show(self, rows: list[EntryRow]) -> None:
        """Replace the rows, keeping marks (for ids that still exist), the sort and the cursor entry."""
        current = self.cursor_entry_id()
        self.rows_by_id = {row.id: row for row in rows}
        self.marked &= set(self.rows_by_id)
        table_rows = []
        for row in self._sorted(rows):
            first_line = row.text.split("\n", 1)[0]
            cells = (
                verbatim("✓" if row.id in self.marked else " ", "bold $accent"),
                verbatim(row.line),
                verbatim(row.section or "(top)"),
                verbatim(f"{row.nbytes:,}"),
                verbatim(f"{row.share:.1%}"),
                verbatim(row.pointers, POINTER_STYLES.get(row.pointers, "$warning")),
                verbatim(first_line),
            )
            table_rows.append((cells, row.id))
        fill(self, self.COLUMNS, table_rows, widths={"mark": 1, "section": 10, "text": 100})
        if current in self.rows_by_id:
            self.move_cursor(row=self.get_row_index(current))

    def _sorted(self, rows: list[EntryRow]) -> list[EntryRow]:
        if self.sort_by == "bytes":
            return sorted(rows, key=lambda r: (-r.nbytes, r.line))
        if self.sort_by == "section":
            return sorted(rows, key=lambda r: (r.section, r.line))
        if self.sort_by == "pointers":
            return sorted(rows, key=lambda r: (r.pointers in ("ok", "none"), r.pointers, r.line))
        return sorted(rows, key=lambda r: r.line)

    def cursor_entry_id(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except Exception:  # cursor outside the table after a refresh
            return None

    def selected_ids(self) -> list[str]:
        """Marked entries in file order, or the entry under the cursor when none is marked."""
        if self.marked:
            return sorted(self.marked, key=lambda i: self.rows_by_id[i].line)
        current = self.cursor_entry_id()
        return [current] if current else []

    def action_toggle_mark(self) -> None:
        entry_id = self.cursor_entry_id()
        if entry_id is None:
            return
        self.marked ^= {entry_id}
        self.update_cell(entry_id, "mark", verbatim("✓" if entry_id in self.marked else " ", "bold $accent"))
        if self.cursor_row < self.row_count - 1:
            self.move_cursor(row=self.cursor_row + 1)

    def action_cycle_sort(self) -> None:
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self.show(list(self.rows_by_id.values()))
        self.notify(f"Entries sorted by {self.sort_by}", timeout=2)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        key = {"bytes": "bytes", "section": "section", "pointers": "pointers", "line": "line"}.get(
            str(event.column_key.value)
        )
        if key:
            self.sort_by = key
            self.show(list(self.rows_by_id.values()))
