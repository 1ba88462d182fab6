"""The bearer's index screen: MEMORY.md in an editor, the byte meter always in view, panels beside.

Keystroke path: the meter is re-measured on every edit (bytes of the editor text; no parsing). The
full analysis (entries, candidates, pointers, load preview) runs debounced in a thread worker and
posts its result back. Levers are planned by the core, previewed here, confirmed, and applied by the
seat store; the editor then shows the new text. Nothing on this screen writes a file itself.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, Static, TabbedContent, TabPane, TextArea

from curator.change import Change, digest
from curator.errors import ConflictError, CuratorError
from curator.meter import Limits, measure
from curator.screens.dialogs import ConfirmDialog, ConflictDialog, DiffDialog
from curator.widgets.byte_meter import ByteMeter
from curator.widgets.entries_table import EntriesTable
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

INDEX_NAME = "MEMORY.md"
PANEL_TABS = ("entries", "merge", "trim", "archive", "pointers", "load")


class IndexScreen(Screen):
    HELP_TITLE = "the index screen"
    HAS_EDITOR = True
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("f2", "switch_pane", "Editor ⇄ panels"),
        Binding("escape", "leave_editor", "Leave editor", show=False),
        Binding("m", "merge", "Merge"),
        Binding("a", "archive", "Archive"),
        Binding("t", "trim", "Trim"),
        Binding("r", "restore", "Restore from archive"),
        Binding("slash", "search_archive", "Search archive", key_display="/"),
        Binding("p", "preview", "Re-provision preview"),
        Binding("alt+z", "undo_change", "Undo change"),
        Binding("alt+y", "redo_change", "Redo change"),
        Binding("ctrl+r", "reload", "Reload from disk"),
        Binding("1", "tab('entries')", "Entries panel", show=False),
        Binding("2", "tab('merge')", "Merge panel", show=False),
        Binding("3", "tab('trim')", "Trim panel", show=False),
        Binding("4", "tab('archive')", "Archive panel", show=False),
        Binding("5", "tab('pointers')", "Pointers panel", show=False),
        Binding("6", "tab('load')", "Load preview panel", show=False),
        Binding("f", "fleet", "Back to fleet", show=False),
    ]

    def __init__(self, memory_dir: Path, *, resident_id: str | None = None, profile: str | None = None,
                 limits: Limits = Limits()):
        super().__init__()
        self.memory_dir = Path(memory_dir)
        self.resident_id = resident_id
        self.profile = profile  # harness profile for the line cap ("claude-code" has one)
        self.limits = limits
        self.analysis = None  # the last curator.analysis.Analysis
        self._analysis_timer: Timer | None = None
        self._saved_text = ""  # editor text as last loaded from / saved to disk
        self.store = None

    # -- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="seat-title")
        yield ByteMeter(id="meter")
        with Horizontal(id="body"):
            yield TextArea(id="editor", soft_wrap=True, show_line_numbers=True, tab_behavior="focus")
            with TabbedContent(id="panels", initial="entries"):
                with TabPane("Entries", id="entries"):
                    yield EntriesTable(id="entries-table")
                with TabPane("Merge", id="merge"):
                    yield DataTable(id="merge-table", cursor_type="row", zebra_stripes=True)
                with TabPane("Trim", id="trim"):
                    yield DataTable(id="trim-table", cursor_type="row", zebra_stripes=True)
                with TabPane("Archive", id="archive"):
                    yield Input(placeholder="search the archive…", id="archive-search")
                    yield DataTable(id="archive-table", cursor_type="row", zebra_stripes=True)
                with TabPane("Pointers", id="pointers"):
                    yield DataTable(id="pointers-table", cursor_type="row", zebra_stripes=True)
                with TabPane("Load", id="load"):
                    yield DataTable(id="load-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="detail")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.load_from_disk()
        self.query_one("#editor", TextArea).focus()

    # -- the editor and the meter ------------------------------------------------------------------
    @property
    def editor(self) -> TextArea:
        return self.query_one("#editor", TextArea)

    def editor_bytes(self) -> bytes:
        return self.editor.text.encode("utf-8", "surrogateescape")

    @property
    def dirty(self) -> bool:
        return self.editor.text != self._saved_text

    def load_from_disk(self) -> None:
        """Open the store and put MEMORY.md in the editor (a fresh editor history)."""
        from curator.store import SeatStore

        try:
            self.store = SeatStore.open(self.memory_dir, state_dir=self.app.state_dir)
            text = self.store.read(INDEX_NAME).decode("utf-8", "surrogateescape")
        except CuratorError as err:
            self.app.notify(str(err), title="Cannot open the seat", severity="error", markup=False, timeout=10)
            text = ""
            self.store = None
        self._saved_text = text
        self.editor.load_text(text)
        self.update_meter()
        self.update_title()

    def replace_editor_text(self, text: str) -> None:
        """New text from disk (a lever, undo, reload): an undoable edit, so editor history survives."""
        editor = self.editor
        if editor.text != text:
            editor.replace(text, editor.document.start, editor.document.end, maintain_selection_offset=False)
        self._saved_text = text
        self.update_meter()
        self.update_title()

    def reread_index(self) -> str:
        return self.store.read(INDEX_NAME).decode("utf-8", "surrogateescape")

    @on(TextArea.Changed, "#editor")
    def editor_changed(self) -> None:
        """Every keystroke: re-measure (cheap); the full analysis waits for a pause in typing."""
        self.update_meter()
        self.update_title()
        if self._analysis_timer is not None:
            self._analysis_timer.stop()
        self._analysis_timer = self.set_timer(self.app.analysis_delay, self.start_analysis)

    def update_meter(self) -> None:
        meter = self.query_one(ByteMeter)
        meter.reading = measure(self.editor_bytes(), self.limits)

    def update_title(self) -> None:
        who = f"{self.resident_id} · " if self.resident_id else ""
        mark = " ● unsaved" if self.dirty else ""
        self.query_one("#seat-title", Static).update(verbatim(f"{who}{self.memory_dir / INDEX_NAME}{mark}"))

    def set_status(self, message: str, style: str = "") -> None:
        self.query_one("#status", Static).update(verbatim(message, style))

    # -- analysis (debounced, off the UI thread) ---------------------------------------------------
    def start_analysis(self) -> None:
        self._analysis_timer = None
        self.run_analysis(self.editor_bytes())

    @work(thread=True, exclusive=True, group="analysis")
    def run_analysis(self, raw: bytes) -> None:
        from curator.analysis import analyze

        try:
            result = analyze(self.memory_dir, index_bytes=raw, limits=self.limits)
            extras = self.lever_suggestions(result)
        except Exception as err:  # a user-readable failure; the editor keeps working
            self.app.call_from_thread(self.set_status, f"analysis failed: {err}", "$error")
            return
        self.app.call_from_thread(self.show_analysis, result, raw, extras)

    def lever_suggestions(self, analysis) -> dict:
        """Merge candidates and trim suggestions from the levers (pure), computed in the worker."""
        return {}

    def show_analysis(self, analysis, raw: bytes, extras: dict) -> None:
        if raw != self.editor_bytes():
            return  # typing went on meanwhile; the next run will catch up
        self.analysis = analysis
        self.show_entries(analysis)
        self.show_pointers(analysis)
        self.show_loads(analysis)
        self.show_merge(extras.get("merge", []))
        self.show_trim(extras.get("trim", []))
        for warning in analysis.warnings:
            self.set_status(warning, "$warning")

    def show_entries(self, analysis) -> None:
        from curator.analysis import entry_pointer_state
        from curator.widgets.entries_table import EntryRow

        target = analysis.limits.target
        rows = [
            EntryRow(e.id, e.line, e.section, e.nbytes, e.nbytes / target, entry_pointer_state(analysis, e), e.text)
            for e in analysis.index.entries
        ]
        self.query_one(EntriesTable).show(rows)

    def show_pointers(self, analysis) -> None:
        report = analysis.pointers
        rows = []
        for d in report.dangling:
            hint = f"{d.reason}; did you mean {d.suggestion}?" if d.suggestion else d.reason
            rows.append((verbatim("DANGLING", "bold $error"), verbatim(f"{d.file}:{d.line}"),
                         verbatim(d.target), verbatim(hint)))
        for name in report.orphans:
            rows.append((verbatim("ORPHAN", "bold $warning"), verbatim(name), verbatim("—"),
                         verbatim("nothing links here: a deleted memory unless re-linked")))
        for e in report.escapes:
            rows.append((verbatim("ESCAPE", "bold $error"), verbatim(f"{e.file}:{e.line}"),
                         verbatim(e.target), verbatim(e.reason)))
        for u in report.unreadable:
            rows.append((verbatim("UNREADABLE", "bold $error"), verbatim(u.file), verbatim("—"), verbatim(u.message)))
        if not rows:
            rows.append((verbatim("OK", "$success"), verbatim("—"), verbatim("—"),
                         verbatim(f"every pointer resolves; {len(report.files)} files checked")))
        fill(self.query_one("#pointers-table", DataTable),
             [("Problem", "problem"), ("Where", "where"), ("Target", "target"), ("Did you mean / why", "why")],
             [(cells, None) for cells in rows])
        count = report.problem_count
        label = f"Pointers ({count})" if count else "Pointers"
        self.query_one(TabbedContent).get_tab("pointers").label = Content(label)

    def show_loads(self, analysis) -> None:
        rows = []
        for name, load in analysis.loads.items():
            cut = "—" if load.cut_line is None else f"after line {load.cut_line}"
            lost = load.lost_entries
            drops = "nothing" if not lost else ", ".join(f"line {e.line}" for e in lost[:6]) + (
                f" … (+{len(lost) - 6})" if len(lost) > 6 else "")
            style = "$error" if lost else ""
            rows.append(((verbatim(name, "bold"), verbatim(f"{load.loaded_bytes:,} B"), verbatim(cut),
                          verbatim(drops, style)), name))
        fill(self.query_one("#load-table", DataTable),
             [("Harness", "harness"), ("Loads", "loads"), ("Cut", "cut"), ("Drops", "drops")], rows)
        self._load_notes = {name: load.note for name, load in analysis.loads.items()}

    def show_merge(self, candidates: list) -> None:
        pass

    def show_trim(self, suggestions: list) -> None:
        pass

    # -- details under the panels ------------------------------------------------------------------
    @on(DataTable.RowHighlighted)
    def row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        detail = self.query_one("#detail", Static)
        table_id = event.data_table.id
        key = event.row_key.value if event.row_key is not None else None
        if table_id == "entries-table" and self.analysis and key and self.analysis.index.has_entry(key):
            entry = self.analysis.index.entry(key)
            detail.update(verbatim(entry.text))
        elif table_id == "load-table" and key:
            detail.update(verbatim(getattr(self, "_load_notes", {}).get(key, "")))
        else:
            detail.update(self.detail_for(table_id, key))

    def detail_for(self, table_id: str | None, key: str | None) -> Content:
        return Content("")

    # -- navigation --------------------------------------------------------------------------------
    def action_switch_pane(self) -> None:
        if self.editor.has_focus:
            self.focus_panel()
        else:
            self.editor.focus()

    def action_leave_editor(self) -> None:
        if self.editor.has_focus:
            self.focus_panel()

    def focus_panel(self) -> None:
        tabs = self.query_one(TabbedContent)
        pane = tabs.get_pane(tabs.active)
        target = pane.query(DataTable).first() if pane.query(DataTable) else None
        (target or tabs).focus()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self.focus_panel()

    def action_fleet(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.dismiss()

    def action_preview(self) -> None:
        self.app.preview_for(self.resident_id, self.memory_dir)

    # -- saving, conflicts, undo -------------------------------------------------------------------
    def action_save(self) -> None:
        if self.store is None:
            self.app.notify("No seat is open; nothing to save.", severity="error")
            return
        if not self.dirty:
            self.set_status("Nothing to save: the editor matches the file on disk.")
            return
        self.save(overwrite=False)

    def save_change(self) -> Change:
        new = self.editor_bytes()
        old = self._saved_text.encode("utf-8", "surrogateescape")
        return Change(f"edit {INDEX_NAME}", {INDEX_NAME: new}, bytes_saved=len(old) - len(new), kind="edit")

    def save(self, *, overwrite: bool) -> None:
        try:
            if overwrite:
                self.store.read(INDEX_NAME)  # the disk version becomes the baseline; the journal keeps it
            self.store.apply(self.save_change())
        except ConflictError as err:
            self.app.push_screen(ConflictDialog(str(self.memory_dir / INDEX_NAME), str(err)), self.resolve_conflict)
            return
        except CuratorError as err:
            self.app.notify(str(err), title="Not saved", severity="error", markup=False)
            return
        self._saved_text = self.editor.text
        self.update_title()
        self.set_status(f"Saved {INDEX_NAME} ({len(self.editor_bytes()):,} B). alt+z undoes the save.", "$success")
        self.start_analysis()

    def resolve_conflict(self, choice: str | None) -> None:
        if choice == "reload":
            self.replace_editor_text(self.reread_index())
            self.set_status("Reloaded from disk; ctrl+z in the editor brings your text back.", "$warning")
        elif choice == "keep":
            self.save(overwrite=True)
        elif choice == "diff":
            disk = self.store.path_of(INDEX_NAME).read_bytes().decode("utf-8", "surrogateescape")
            diff = "".join(difflib.unified_diff(
                disk.splitlines(keepends=True), self.editor.text.splitlines(keepends=True),
                fromfile="on disk", tofile="in the editor"))

            def back(_: None) -> None:
                self.app.push_screen(ConflictDialog(str(self.memory_dir / INDEX_NAME)), self.resolve_conflict)

            self.app.push_screen(DiffDialog(f"{INDEX_NAME}: on disk → in the editor", diff), back)
        else:
            self.set_status("Not saved: the file on disk changed. ctrl+s to decide again.", "$warning")

    def action_reload(self) -> None:
        if self.store is None:
            return
        self.replace_editor_text(self.reread_index())
        self.set_status("Reloaded from disk (ctrl+z in the editor restores the previous text).")

    def action_undo_change(self) -> None:
        self._step_history(undo=True)

    def action_redo_change(self) -> None:
        self._step_history(undo=False)

    def _step_history(self, *, undo: bool) -> None:
        if self.store is None:
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
        self.replace_editor_text(self.reread_index())
        self.set_status(f"{'Undid' if undo else 'Redid'}: {entry.description}")
        self.after_change()

    def after_change(self) -> None:
        """Files changed on disk through the store: re-analyse now (pointers re-checked at once)."""
        self.start_analysis()
