"""The entries panel: one row per index entry, sortable, with marks for acting on several at once."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import DataTable

from curator.widgets.keymap import bindings
from curator.widgets.panel_table import EditorTarget, PanelTable
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
    link: str = ""  # the first pointer on the entry's first line: what Enter selects in the editor
    details: tuple[str, ...] = ()  # "file · type · description" of each linked file that declares any


def rows_of(analysis) -> list[EntryRow]:
    from curator.analysis import entry_details, entry_pointer_state
    from curator.widgets.panel_table import first_link

    target = analysis.limits.target
    return [EntryRow(e.id, e.line, e.section, e.nbytes, e.nbytes / target, entry_pointer_state(analysis, e), e.text,
                     first_link(e), tuple(_declared(name, said) for name, said in entry_details(analysis, e)))
            for e in analysis.index.entries]


def _declared(name: str, said) -> str:
    """What a linked detail file says of itself, as the detail line shows it."""
    return " · ".join(part for part in (f"→ {name}", said.type, said.description) if part)


class EntriesTable(PanelTable):
    BINDINGS = bindings("entries")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.rows_by_id: dict[str, EntryRow] = {}
        self.marked: set[str] = set()
        self.sort_by = "line"

    COLUMNS = [("✓", "mark"), ("Line", "line"), ("Section", "section"), ("Bytes", "bytes"), ("Share", "share"),
               ("Ptrs", "pointers"), ("Entry", "text")]
    NARROW = 100  # below this many columns the Share column gives its room to Section and Entry

    def show(self, rows: list[EntryRow]) -> None:
        """Replace the rows, keeping marks (for ids that still exist), the sort and the cursor entry."""
        current = self.cursor_entry_id()
        self.rows_by_id = {row.id: row for row in rows}
        self.marked &= set(self.rows_by_id)
        narrow = self._narrow = 0 < self.size.width < self.NARROW
        section = min(16 if narrow else 20, max([7] + [len(r.section or "(top)") for r in rows]))
        section = self._section_width(rows, section, narrow)
        dropped = {"share"} if narrow else set()
        if section < self.MIN_SECTION:
            dropped.add("section")  # too narrow to say anything: the detail line names the section
        self._section_hidden = "section" in dropped
        table_rows = []
        for row in self._sorted(rows):
            first_line = row.text.split("\n", 1)[0]
            cells = {
                "mark": verbatim("✓" if row.id in self.marked else " ", "bold $accent"),
                "line": verbatim(row.line),
                "section": verbatim(row.section or "(top)"),
                "bytes": verbatim(f"{row.nbytes:,}"),
                "share": verbatim(f"{row.share:.1%}"),
                "pointers": verbatim(row.pointers, POINTER_STYLES.get(row.pointers, "$warning")),
                "text": verbatim(first_line),
            }
            table_rows.append(([cell for key, cell in cells.items() if key not in dropped], row.id))
        columns = [c for c in self.COLUMNS if c[1] not in dropped]
        fill(self, columns, table_rows, widths={"mark": 1, "section": section, "text": 100}, rest="text",
             min_rest=self.MIN_TEXT)
        self._filled_width = self.size.width
        if current in self.rows_by_id:
            self.move_cursor(row=self.get_row_index(current))

    _narrow = False
    _section_hidden = False
    MIN_TEXT = 30  # the entry's own words: never fewer than this many columns
    MIN_SECTION = 12  # a Section column narrower than this cuts most headings to a word: it goes

    def _section_width(self, rows: list[EntryRow], wanted: int, narrow: bool) -> int:
        """The Section column's width once the entry text has its MIN_TEXT columns (0: no room)."""
        if not self.size.width:
            return wanted  # not laid out yet: on_resize shows the rows again
        pad = 2 * self.cell_padding
        others = [1, max([4] + [len(str(r.line)) for r in rows]), max([5] + [len(f"{r.nbytes:,}") for r in rows]),
                  max([4] + [len(r.pointers) for r in rows])] + ([] if narrow else [6])  # Share: "12.5%"
        room = (self.size.width - self.styles.scrollbar_size_vertical - sum(others) - pad * (len(others) + 2)
                - self.MIN_TEXT)
        return max(0, min(wanted, room))
    _filled_width = 0  # the width the Entry column was sized for

    def on_resize(self) -> None:
        if self.rows_by_id and self.size.width != self._filled_width:
            self.show(list(self.rows_by_id.values()))

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

    def editor_target(self) -> EditorTarget | None:
        row = self.rows_by_id.get(self.cursor_entry_id() or "")
        return EditorTarget(row.line, row.link) if row else None

    def detail(self) -> Content:
        row = self.rows_by_id.get(self.cursor_entry_id() or "")
        if row is None:
            return Content("")
        parts = [verbatim(row.text)] + [verbatim(line, "dim") for line in row.details]
        if self._section_hidden:
            parts.insert(0, verbatim(f"§ {row.section or '(top)'}", "dim"))
        return Content("\n").join(parts)

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
