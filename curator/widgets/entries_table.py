"""The entries panel: one row per index entry, sortable and filterable, with a selection the levers act
on: marks (``space``, one entry), ranges (``v`` or shift+arrows, as lazygit), whole sections (``S``),
and a filter (``/``) whose rows are the selection when nothing is marked."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.content import Content
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Input, Static

from curator.widgets.keymap import bindings
from curator.widgets.panel_table import EditorTarget, PanelTable
from curator.widgets.tables import fill
from curator.widgets.text_input import TextInput
from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from curator.analysis import Analysis
    from curator.frontmatter import FrontMatter

SORTS = ("line", "bytes", "section", "pointers")
SORT_ARROWS = {"line": "↑", "bytes": "↓", "section": "↑", "pointers": "!"}  # which way each sort runs
POINTER_STYLES = {"ok": "$success", "none": "dim", "dangling": "bold $error", "escape": "bold $error",
                  "probable": "$warning"}


@dataclass(frozen=True)
class EntryRow:
    id: str
    line: int
    section: str
    nbytes: int
    share: float  # fraction of the target budget
    pointers: str  # "ok" | "none" | "dangling" | "probable" (see analysis.entry_pointer_state)
    text: str
    link: str = ""  # the first pointer on the entry's first line: what Enter selects in the editor
    details: tuple[str, ...] = ()  # "file · type · description" of each linked file that declares any


def rows_of(analysis: Analysis) -> list[EntryRow]:
    from curator.analysis import entry_details, entry_pointer_state
    from curator.widgets.panel_table import first_link

    target = analysis.limits.target
    return [EntryRow(e.id, e.line, e.section, e.nbytes, e.nbytes / target, entry_pointer_state(analysis, e), e.text,
                     first_link(e), tuple(_declared(name, said) for name, said in entry_details(analysis, e)))
            for e in analysis.index.entries]


def _declared(name: str, said: FrontMatter) -> str:
    """What a linked detail file says of itself, as the detail line shows it."""
    return " · ".join(part for part in (f"→ {name}", said.type, said.description) if part)


class EntriesTable(PanelTable):
    BINDINGS = bindings("entries")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows_by_id: dict[str, EntryRow] = {}
        self.marked: set[str] = set()
        self.sort_by = "line"
        self.filter_words: tuple[str, ...] = ()  # every word must occur in the row's section or text
        self.range_anchor: str | None = None  # the entry a range started on (``v``, shift+arrows)
        self._range_base: set[str] = set()  # the marks from before the range: a range adds to them

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
        for row in self._sorted(self.filtered(rows)):
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
        columns = [(f"{label} {SORT_ARROWS[key]}" if key == self.sort_by else label, key)
                   for label, key in self.COLUMNS if key not in dropped]
        fill(self, columns, table_rows, widths={"mark": 1, "section": section, "text": 100}, rest="text",
             min_rest=self.MIN_TEXT)
        self._filled_width = self.size.width
        if current in self.shown_ids():
            self.move_cursor(row=self.get_row_index(current))
        self.post_message(self.SelectionChanged())

    class SelectionChanged(Message):
        """Marks, range, filter or sort changed: the summary line re-reads them."""

    def filtered(self, rows: list[EntryRow]) -> list[EntryRow]:
        """The rows the filter lets through (all of them without one)."""
        if not self.filter_words:
            return rows
        return [r for r in rows if all(w in f"{r.section}\n{r.text}".lower() for w in self.filter_words)]

    def shown_ids(self) -> set[str]:
        return {row.id for row in self.filtered(list(self.rows_by_id.values()))}

    def set_filter(self, text: str) -> None:
        self.filter_words = tuple(text.lower().split())
        self.show(list(self.rows_by_id.values()))

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
        """What the levers act on, in file order: the marked entries; else, under a filter, every
        entry it shows; else the entry under the cursor."""
        if self.marked:
            return sorted(self.marked, key=lambda i: self.rows_by_id[i].line)
        if self.filter_words:
            return sorted(self.shown_ids(), key=lambda i: self.rows_by_id[i].line)
        current = self.cursor_entry_id()
        return [current] if current else []

    def selection_words(self) -> str:
        """The summary line above the table: what a lever would act on, the filter, the sort."""
        ids = self.selected_ids()
        how = ("marked" if self.marked else "shown by the filter" if self.filter_words else "under the cursor")
        parts = [f"{len(ids)} selected ({how})" if ids else "nothing selected"]
        if self.marked and not self.marked <= self.shown_ids():
            parts.append(f"{len(self.marked - self.shown_ids())} of them hidden by the filter")
        if self.range_anchor is not None:
            parts.append("range: move to extend, v ends it")
        if self.filter_words:
            parts.append(f"filter '{' '.join(self.filter_words)}': {len(self.shown_ids())} of {len(self.rows_by_id)}")
        parts.append(f"sorted by {self.sort_by}")
        return " · ".join(parts)

    def _repaint_marks(self, ids: Iterable[str]) -> None:
        shown = self.shown_ids()
        for entry_id in ids:
            if entry_id in shown:
                self.update_cell(entry_id, "mark", verbatim("✓" if entry_id in self.marked else " ", "bold $accent"))
        self.post_message(self.SelectionChanged())

    def action_toggle_mark(self) -> None:
        """Mark (or unmark) the entry under the cursor and move down, so space space space marks a run."""
        entry_id = self.cursor_entry_id()
        if entry_id is None:
            return
        self.range_anchor = None
        self.marked ^= {entry_id}
        self._repaint_marks([entry_id])
        if self.cursor_row < self.row_count - 1:
            self.move_cursor(row=self.cursor_row + 1)

    def action_toggle_range(self) -> None:
        """``v``: start a range at the cursor (moving the cursor marks every row from there to it); again: end it."""
        entry_id = self.cursor_entry_id()
        if self.range_anchor is not None or entry_id is None:
            self.range_anchor = None
            self.post_message(self.SelectionChanged())
            return
        self.range_anchor, self._range_base = entry_id, set(self.marked)
        self.extend_range()

    def action_extend(self, step: int) -> None:
        """shift+down / shift+up: start a range here if none is open, then move one row."""
        if self.range_anchor is None and self.cursor_entry_id() is not None:
            self.range_anchor, self._range_base = self.cursor_entry_id(), set(self.marked)
        self.move_cursor(row=max(0, min(self.row_count - 1, self.cursor_row + step)))
        self.extend_range()

    def extend_range(self) -> None:
        """The marks are those from before the range plus every row between its start and the cursor."""
        if self.range_anchor is None or self.range_anchor not in self.shown_ids():
            return
        ends = sorted((self.get_row_index(self.range_anchor), self.cursor_row))
        order = [str(self.coordinate_to_cell_key(Coordinate(i, 0)).row_key.value) for i in range(ends[0], ends[1] + 1)]
        before = set(self.marked)
        self.marked = self._range_base | set(order)
        self._repaint_marks(before ^ self.marked)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.range_anchor is not None:
            self.extend_range()
        self.post_message(self.SelectionChanged())

    def action_mark_section(self) -> None:
        """``S``: mark every entry of the cursor row's section (the filter aside); if all are marked, unmark them."""
        row = self.rows_by_id.get(self.cursor_entry_id() or "")
        if row is None:
            return
        self.range_anchor = None
        section = {r.id for r in self.rows_by_id.values() if r.section == row.section}
        before = set(self.marked)
        self.marked = self.marked - section if section <= self.marked else self.marked | section
        self._repaint_marks(before ^ self.marked)

    def action_clear_selection(self) -> None:
        """``c``: no marks, no range, no filter."""
        self.range_anchor, self.marked = None, set()
        if self.filter_words:
            self.set_filter("")
            self.post_message(self.FilterCleared())
        else:
            self.show(list(self.rows_by_id.values()))

    class FilterCleared(Message):
        """``c`` cleared the filter: the box empties."""

    def action_filter(self) -> None:
        self.query_ancestor(EntriesPanel).open_filter()

    def action_cycle_sort(self) -> None:
        """The next sort, the cursor on its first row (bytes: the largest entry), so ``s`` then ``S``
        marks the section holding the largest entry."""
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self.show(list(self.rows_by_id.values()))
        if self.row_count:
            self.move_cursor(row=0)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        key = {"bytes": "bytes", "section": "section", "pointers": "pointers", "line": "line"}.get(
            str(event.column_key.value)
        )
        if key:
            self.sort_by = key
            self.show(list(self.rows_by_id.values()))


class EntriesFilter(TextInput):
    """The filter box over the Entries table: every word typed must occur in an entry's section or text."""

    BINDINGS = bindings("entries_filter")

    def action_done(self) -> None:
        self.query_ancestor(EntriesPanel).leave_filter()


class EntriesPanel(Vertical):
    """The filter box (shown while it has focus or text), a line saying what is selected, the table."""

    DEFAULT_CSS = """
    EntriesPanel { height: 1fr; }
    EntriesPanel EntriesFilter { display: none; height: 1; border: none; padding: 0 1; }
    EntriesPanel.-filtering EntriesFilter { display: block; }
    EntriesPanel #entries-summary { height: 1; padding: 0 1; color: $text-muted; background: $boost; }
    """

    def compose(self) -> ComposeResult:
        yield EntriesFilter(placeholder="filter entries: words in section or text (enter: to the table)",
                            id="entries-filter", compact=True)
        yield Static(id="entries-summary")
        yield EntriesTable(id="entries-table")

    @property
    def table(self) -> EntriesTable:
        return self.query_one(EntriesTable)

    def open_filter(self) -> None:
        self.add_class("-filtering")
        self.screen.set_focus(self.query_one(EntriesFilter))

    @on(Input.Changed, "#entries-filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.table.set_filter(event.value)

    @on(Input.Submitted, "#entries-filter")
    def filter_done(self) -> None:
        self.leave_filter()

    def leave_filter(self) -> None:
        self.set_class(bool(self.query_one(EntriesFilter).value.strip()), "-filtering")
        self.screen.set_focus(self.table)

    @on(EntriesTable.FilterCleared)
    def filter_cleared(self) -> None:
        self.query_one(EntriesFilter).value = ""
        self.remove_class("-filtering")

    @on(EntriesTable.SelectionChanged)
    def selection_changed(self) -> None:
        self.query_one("#entries-summary", Static).update(verbatim(self.table.selection_words()))
