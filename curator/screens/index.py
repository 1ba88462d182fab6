"""The bearer's index screen: MEMORY.md in an editor, the byte meter always in view, panels beside.

Keystroke path: the meter is re-measured on every edit (bytes of the editor text; no parsing). The
full analysis (entries, candidates, pointers, load preview) runs debounced in a thread worker and
posts its result back. Levers are planned by the core, previewed here, confirmed, and applied by the
seat store; the editor then shows the new text. Nothing on this screen writes a file itself.
"""

from __future__ import annotations

import difflib
import time
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static, TabbedContent, TabPane, TextArea

from curator.change import Change, digest
from curator.errors import ConflictError, CuratorError
from curator.fsio import read_bytes
from curator.meter import Limits, measure
from curator.screens.dialogs import ConfirmDialog, ConflictDialog, DiffDialog
from curator.widgets.byte_meter import ZONE_WORDS, ByteMeter
from curator.widgets.entries_table import EntriesTable
from curator.widgets.footer import KeysFooter
from curator.widgets.index_editor import IndexEditor
from curator.widgets.tables import fill
from curator.widgets.verbatim import diff_content, verbatim

INDEX_NAME = "MEMORY.md"
ARCHIVE_NAME = "ARCHIVE.md"
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
        self._requested = b""  # editor bytes the last analysis was started on
        self._shown_dirty = False  # what the title says
        self._last_edit = 0.0  # monotonic time of the last keystroke
        self._archive_shown = False
        # The panels mount after the first frame; until ``mount_panels`` has awaited them all, nothing
        # may query them. An analysis finishing before then is held here and shown once they exist.
        self.panels_ready = False
        self._held_analysis: tuple | None = None
        self._analysed = None  # editor bytes whose analysis was last shown (or failed)
        self.store = None
        self.merge_candidates: list = []
        self.trim_suggestions: list = []
        self.archive_hits: list[tuple[str, str, str]] = []
        self._load_notes: dict[str, str] = {}  # harness profile -> its load preview's note

    # -- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="seat-title")
        yield ByteMeter(id="meter")
        with Horizontal(id="body"):
            yield IndexEditor(id="editor", soft_wrap=True, show_line_numbers=True, tab_behavior="focus",
                              after_edit=self.editor_changed)
            # The panels mount after the first frame is on screen (see ``on_mount``).
        yield Static(id="detail")
        yield Static(id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.load_from_disk()
        self.query_one("#editor", TextArea).focus()
        # The app's queue runs once start-up is over and its first frame is written: the title,
        # meter and editor show first, then the panels mount and the analysis starts.
        self.app.call_later(self.call_after_refresh, self.mount_panels)

    async def mount_panels(self) -> None:
        tabs = TabbedContent(id="panels", initial="entries")
        for pane in (
            TabPane("Entries", EntriesTable(id="entries-table"), id="entries"),
            TabPane("Merge", DataTable(id="merge-table", cursor_type="row", zebra_stripes=True), id="merge"),
            TabPane("Trim", DataTable(id="trim-table", cursor_type="row", zebra_stripes=True), id="trim"),
            TabPane("Archive", Input(placeholder="search the archive…", id="archive-search"),
                    DataTable(id="archive-table", cursor_type="row", zebra_stripes=True), id="archive"),
            TabPane("Pointers", DataTable(id="pointers-table", cursor_type="row", zebra_stripes=True), id="pointers"),
            TabPane("Load", DataTable(id="load-table", cursor_type="row", zebra_stripes=True), id="load"),
        ):
            tabs.compose_add_child(pane)  # what ``with TabbedContent():`` does in compose
        # Awaiting the mount waits for the whole subtree (tabs, panes, tables) to be composed.
        await self.query_one("#body", Horizontal).mount(tabs)
        self.panels_ready = True
        held, self._held_analysis = self._held_analysis, None
        if held is not None:
            self.show_analysis(*held)
        if self._analysed != self.editor_bytes():
            self.start_analysis()

    PANEL_ACTIONS = frozenset({"merge", "archive", "trim", "restore", "search_archive", "tab", "switch_pane",
                               "leave_editor"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Panel actions wait for the panels to exist (shown dimmed until then)."""
        if action in self.PANEL_ACTIONS and not self.panels_ready:
            return None
        return True

    def is_settled(self) -> bool:
        """True when what the panels show is the analysis of the editor's text and nothing is pending:
        what tests (and anything else that must not race the app) wait for."""
        return (self.panels_ready and self._analysis_timer is None and self._held_analysis is None
                and self._analysed == self.editor_bytes()
                and not any(w.group == "analysis" and not w.is_finished for w in self.workers))

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
    def editor_loaded(self) -> None:
        """``load_text`` and the editor's own undo/redo change the document without ``edit``, so
        ``after_edit`` never sees them: measure here. After a keystroke this is a cheap echo (the
        same reading, a timer already pending)."""
        self.editor_changed()

    def editor_changed(self) -> None:
        """Every keystroke: re-measure (cheap: bytes of the text, no parsing, a repaint of the meter
        only); the full analysis waits for a pause in typing."""
        text = self.editor.text
        raw = text.encode("utf-8", "surrogateescape")
        self.query_one(ByteMeter).reading = measure(raw, self.limits)
        dirty = text != self._saved_text
        if dirty != self._shown_dirty:  # the title changes (and re-lays out) only when this flips
            self.update_title()
        if raw != self._requested:  # not an echo of text already analysed
            self._last_edit = time.monotonic()
            if self._analysis_timer is None:  # one timer per pause in typing, not one per key
                self._analysis_timer = self.set_timer(self.app.analysis_delay, self.analyse_when_quiet)

    def analyse_when_quiet(self) -> None:
        self._analysis_timer = None
        wait = self._last_edit + self.app.analysis_delay - time.monotonic()
        if wait > 0:
            self._analysis_timer = self.set_timer(wait, self.analyse_when_quiet)
        elif self.editor_bytes() != self._requested:
            self.start_analysis()

    def update_meter(self) -> None:
        meter = self.query_one(ByteMeter)
        meter.reading = measure(self.editor_bytes(), self.limits)

    def update_title(self) -> None:
        who = f"{self.resident_id} · " if self.resident_id else ""
        self._shown_dirty = self.dirty
        mark = " ● unsaved" if self._shown_dirty else ""
        self.query_one("#seat-title", Static).update(verbatim(f"{who}{self.memory_dir / INDEX_NAME}{mark}"))

    def set_status(self, message: str, style: str = "") -> None:
        self.query_one("#status", Static).update(verbatim(message, style))

    # -- analysis (debounced, off the UI thread) ---------------------------------------------------
    def start_analysis(self) -> None:
        self._analysis_timer = None
        self._requested = self.editor_bytes()
        self.run_analysis(self._requested)

    @work(thread=True, exclusive=True, group="analysis")
    def run_analysis(self, raw: bytes) -> None:
        from curator.analysis import analyze

        try:
            result = analyze(self.memory_dir, index_bytes=raw, limits=self.limits)
            extras = self.lever_suggestions(result)
        except Exception as err:  # a user-readable failure; the editor keeps working
            self.app.call_from_thread(self.analysis_failed, raw, err)
            return
        self.app.call_from_thread(self.show_analysis, result, raw, extras)

    def lever_suggestions(self, analysis) -> dict:
        """Merge candidates and trim suggestions from the levers (pure), computed in the worker."""
        from curator.levers.merge import find_candidates
        from curator.levers.trim import suggestions

        return {
            "merge": find_candidates(analysis.index),
            "trim": suggestions(self.memory_dir, analysis.index, limits=self.limits),
        }

    def analysis_failed(self, raw: bytes, err: Exception) -> None:
        self._analysed = raw
        self.set_status(f"analysis failed: {err}", "$error")

    def show_analysis(self, analysis, raw: bytes, extras: dict) -> None:
        if raw != self.editor_bytes():
            return  # typing went on meanwhile; the next run will catch up
        if not self.panels_ready:
            self._held_analysis = (analysis, raw, extras)
            return
        self._analysed = raw
        if not self._archive_shown:
            self._archive_shown = True
            self.show_archive()
        self.analysis = analysis
        meter = self.query_one(ByteMeter)
        load = analysis.loads.get(self.profile or "")
        meter.line_cap, meter.profile = (load.line_cap, load.profile) if load else (None, "")
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
        self.merge_candidates = candidates
        index = self.analysis.index
        rows = []
        for c in candidates:
            lines = ", ".join(str(index.entry(i).line) for i in c.entry_ids if index.has_entry(i))
            rows.append(((verbatim(f"lines {lines}"), verbatim(c.section or "(across sections)"),
                          verbatim(f"{c.bytes_saved:,} B"), verbatim(f"{c.score:.0f}% alike · {c.reason}")), None))
        if not rows:
            rows.append(((verbatim("—"), verbatim(""), verbatim(""), verbatim("no entries say the same thing")), None))
        fill(self.query_one("#merge-table", DataTable),
             [("Entries", "entries"), ("Section", "section"), ("Saves", "saves"), ("Why", "why")], rows)

    def show_trim(self, suggestions: list) -> None:
        self.trim_suggestions = suggestions
        index = self.analysis.index
        rows = []
        for t in suggestions:
            entry = index.entry(t.entry_id) if index.has_entry(t.entry_id) else None
            where = f"line {entry.line}" if entry else t.entry_id
            what = f"split → {t.detail_file}" if t.kind == "split" else "tighten"
            rows.append(((verbatim(where), verbatim(f"{entry.nbytes:,} B" if entry else "?"),
                          verbatim(f"{t.bytes_saved:,} B"), verbatim(what)), None))
        if not rows:
            rows.append(((verbatim("—"), verbatim(""), verbatim(""), verbatim("no entry is long enough to trim")), None))
        fill(self.query_one("#trim-table", DataTable),
             [("Entry", "entry"), ("Bytes", "bytes"), ("Saves", "saves"), ("Suggestion", "what")], rows)

    # -- the archive panel ---------------------------------------------------------------------
    @on(Input.Changed, "#archive-search")
    def archive_query_changed(self, event: Input.Changed) -> None:
        self.show_archive(event.value)

    @on(Input.Submitted, "#archive-search")
    def archive_query_submitted(self) -> None:
        self.query_one("#archive-table", DataTable).focus()

    def show_archive(self, query: str = "") -> None:
        """Search hits (fuzzy, from the archive lever), or every archived entry when the query is empty."""
        from curator.index_model import parse_index
        from curator.levers.archive import search_archive

        try:
            if query.strip():
                hits = [(h.entry_id, h.section, h.text) for h in search_archive(self.memory_dir, query)]
            elif self.store is not None and self.store.exists(ARCHIVE_NAME):
                archive = parse_index(read_bytes(self.store.path_of(ARCHIVE_NAME)))
                hits = [(e.id, e.section, e.text) for e in archive.entries]
            else:
                hits = []
        except CuratorError as err:
            self.set_status(f"archive: {err}", "$error")
            hits = []
        self.archive_hits = hits
        rows = [((verbatim(section or "(top)"), verbatim(f"{len(text.encode()):,} B"),
                  verbatim(text.split("\n", 1)[0])), None) for _id, section, text in hits]
        if not rows:
            rows.append(((verbatim("—"), verbatim(""),
                          verbatim("no match" if query.strip() else "ARCHIVE.md is empty or not created yet")), None))
        fill(self.query_one("#archive-table", DataTable),
             [("Section", "section"), ("Bytes", "bytes"), ("Archived entry", "text")], rows, max_width=100)

    # -- details under the panels ------------------------------------------------------------------
    @on(TabbedContent.TabActivated)
    def tab_activated(self) -> None:
        table = self.active_table()
        if table is not None and table.row_count:
            self.show_detail(table, table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        else:
            self.query_one("#detail", Static).update(Content(""))

    def active_table(self) -> DataTable | None:
        tabs = self.query_one(TabbedContent)
        tables = tabs.get_pane(tabs.active).query(DataTable)
        return tables.first() if tables else None

    @on(DataTable.RowHighlighted)
    def row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is self.active_table():
            self.show_detail(event.data_table, event.row_key.value if event.row_key is not None else None)

    def show_detail(self, table: DataTable, key: str | None) -> None:
        detail = self.query_one("#detail", Static)
        table_id = table.id
        if table_id == "entries-table" and self.analysis and key and self.analysis.index.has_entry(key):
            entry = self.analysis.index.entry(key)
            detail.update(verbatim(entry.text))
        elif table_id == "load-table" and key:
            detail.update(verbatim(self._load_notes.get(key, "")))
        else:
            detail.update(self.detail_for(table))

    def detail_for(self, table: DataTable) -> Content:
        """Detail for the highlighted row of ``table``: the lever's own text, else the whole row."""
        table_id, row = table.id, table.cursor_row
        if table_id == "merge-table" and 0 <= row < len(self.merge_candidates):
            index = self.analysis.index
            ids = [i for i in self.merge_candidates[row].entry_ids if index.has_entry(i)]
            return Content("\n").join(verbatim(index.entry(i).text) for i in ids)
        if table_id == "trim-table" and 0 <= row < len(self.trim_suggestions):
            return verbatim("after: " + self.trim_suggestions[row].new_line)
        if table_id == "archive-table" and 0 <= row < len(self.archive_hits):
            return verbatim(self.archive_hits[row][2])
        if 0 <= row < table.row_count:  # the whole row, for cells cut off at the edge
            return Content(" · ").join(cell for cell in table.get_row_at(row) if isinstance(cell, Content))
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
        self.after_change()

    def resolve_conflict(self, choice: str | None) -> None:
        if choice == "reload":
            self.replace_editor_text(self.reread_index())
            self.set_status("Reloaded from disk; ctrl+z in the editor brings your text back.", "$warning")
        elif choice == "keep":
            self.save(overwrite=True)
        elif choice == "diff":
            try:  # a display read: never the store's, which would make the disk version the baseline
                disk = read_bytes(self.store.path_of(INDEX_NAME)).decode("utf-8", "surrogateescape")
            except CuratorError as err:
                self.set_status(f"cannot show the diff: {err}", "$error")
                return
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
        """Files changed on disk through the store: re-analyse at once (not debounced), so pointers are
        re-checked before the next key and anything orphaned is flagged immediately."""
        from curator.analysis import analyze

        if self._analysis_timer is not None:
            self._analysis_timer.stop()
            self._analysis_timer = None
        raw = self._requested = self.editor_bytes()
        before = self.analysis.pointers if self.analysis is not None else None
        try:
            result = analyze(self.memory_dir, index_bytes=raw, limits=self.limits)
            extras = self.lever_suggestions(result)
        except CuratorError as err:
            self.analysis_failed(raw, err)
            return
        self.show_analysis(result, raw, extras)
        if self.panels_ready:
            self.show_archive(self.query_one("#archive-search", Input).value)
            self.flag_new_pointer_problems(before, result.pointers)

    def flag_new_pointer_problems(self, before, after) -> None:
        """Problems the last write introduced: switch to the Pointers panel and say so."""
        old_orphans = set(before.orphans) if before else set()
        old_dangling = {(d.file, d.target) for d in before.dangling} if before else set()
        orphans = [name for name in after.orphans if name not in old_orphans]
        dangling = [d for d in after.dangling if (d.file, d.target) not in old_dangling]
        if not orphans and not dangling:
            return
        self.query_one(TabbedContent).active = "pointers"
        parts = [f"orphaned: {', '.join(orphans)}"] if orphans else []
        parts += [f"dangling: {', '.join(d.target for d in dangling)}"] if dangling else []
        self.app.notify("Pointers re-checked after the change — " + "; ".join(parts)
                        + ". An orphaned pointer is a deleted memory: re-link it or undo (alt+z).",
                        title="New pointer problems", severity="warning", markup=False, timeout=10)

    # -- levers: plan (core) → preview → confirm → apply (store) -------------------------------
    def disk_index(self):
        """MEMORY.md as on disk, parsed; None (with a message) when the editor has unsaved edits."""
        from curator.index_model import parse_index

        if self.store is None:
            return None
        if self.dirty:
            self.app.notify("Save your edits first (ctrl+s): levers work on the file as saved.",
                            severity="warning", markup=False)
            return None
        raw = self.store.read(INDEX_NAME)
        if raw.decode("utf-8", "surrogateescape") != self._saved_text:
            self.replace_editor_text(raw.decode("utf-8", "surrogateescape"))
            self.app.notify("MEMORY.md changed on disk; the editor now shows it. Try again.",
                            severity="warning", markup=False)
            return None
        return parse_index(raw)

    def selected_entry_ids(self) -> list[str]:
        return self.query_one(EntriesTable).selected_ids()

    def highlighted(self, table_id: str, items: list):
        table = self.query_one(f"#{table_id}", DataTable)
        row = table.cursor_row
        return items[row] if 0 <= row < len(items) else None

    def run_lever(self, what: str, plan) -> None:
        """Plan with the core on the saved index (``plan(index) -> Change``), then preview and confirm.
        A merge the core refuses is still previewed, with what it would lose, and needs 'Apply anyway'."""
        from curator.levers.merge import MergeRefused

        index = self.disk_index()
        if index is None:
            return
        refused: list[str] = []
        try:
            change = plan(index)
        except MergeRefused as err:
            change, refused = err.change, err.lost
        except CuratorError as err:
            self.app.notify(str(err), title=f"Cannot {what}", severity="error", markup=False)
            return
        self.confirm_change(change, index, refused=refused)

    def pick(self, tab: str, items: list, hint: str):
        """The highlighted row of ``tab``'s table, or None (and a hint) when that panel is not in use."""
        item = self.highlighted(f"{tab}-table", items)
        if item is None or self.query_one(TabbedContent).active != tab:
            self.action_tab(tab)
            self.app.notify(hint, markup=False)
            return None
        return item

    def action_merge(self) -> None:
        """Preview a merge with the merged line editable (``MergeDialog``); apply what it shows."""
        from curator.levers.merge import MergeRefused, merged_entry_text, plan_merge
        from curator.levers.text import entries_by_id
        from curator.screens.merge_preview import MergeDialog, editable_line

        if self.query_one(TabbedContent).active == "merge":
            candidate = self.highlighted("merge-table", self.merge_candidates)
            ids = list(candidate.entry_ids) if candidate else []
        else:
            ids = self.selected_entry_ids()
        if len(ids) < 2:
            self.app.notify("Mark two or more entries (space in the Entries panel), or pick a row in the Merge panel.",
                            severity="warning", markup=False)
            return
        index = self.disk_index()
        if index is None:
            return

        def plan(text: str | None) -> tuple[Change, list[str]]:
            try:
                return plan_merge(self.memory_dir, index, ids, text=text), []
            except MergeRefused as err:
                return err.change, err.lost

        try:
            first = plan(None)
            default_line = editable_line(merged_entry_text(index, entries_by_id(index, ids)))
        except CuratorError as err:
            self.app.notify(str(err), title="Cannot merge", severity="error", markup=False)
            return
        dialog = MergeDialog("Merge: preview", default_line, plan,
                             lambda change, refused: self.change_preview(change, index, refused), first)

        def decided(yes: bool | None) -> None:
            if yes and dialog.change is not None:
                self.apply_change(dialog.change)
            else:
                self.set_status("Cancelled: nothing was written.")

        self.app.push_screen(dialog, decided)

    def action_archive(self) -> None:
        from datetime import date

        from curator.levers.archive import plan_archive

        ids = self.selected_entry_ids()
        if not ids:
            self.app.notify("Select entries in the Entries panel (space marks several).", severity="warning")
            return
        self.run_lever("archive", lambda index: plan_archive(self.memory_dir, index, ids, today=date.today()))

    def action_trim(self) -> None:
        from curator.levers.trim import plan_trim

        suggestion = self.pick("trim", self.trim_suggestions, "Pick a suggestion in the Trim panel, then press t.")
        if suggestion is not None:
            self.run_lever("trim", lambda index: plan_trim(self.memory_dir, index, suggestion.entry_id,
                                                           kind=suggestion.kind))

    def action_restore(self) -> None:
        from curator.levers.archive import plan_restore

        hit = self.pick("archive", self.archive_hits, "Pick an archived entry in the Archive panel, then press r.")
        if hit is not None:
            self.run_lever("restore", lambda index: plan_restore(self.memory_dir, index, hit[0]))

    def action_search_archive(self) -> None:
        self.query_one(TabbedContent).active = "archive"
        self.query_one("#archive-search", Input).focus()

    def change_preview(self, change: Change, index, refused: list[str]) -> Content:
        """Bytes saved, the meter after, warnings, and the diff of every file the change writes."""
        after = measure(change.files.get(INDEX_NAME, index.raw), self.limits)
        before = measure(index.raw, self.limits)
        lines = [
            verbatim(change.description, "bold"),
            verbatim(f"saves {change.bytes_saved:,} B · meter {before.bytes:,} → {after.bytes:,} B, "
                     f"{ZONE_WORDS.get(after.zone, after.zone)} · " + (
                         f"{after.headroom_target:,} B headroom to the target" if after.headroom_target >= 0
                         else f"{-after.headroom_target:,} B over the target")),
        ]
        if refused:
            lines.append(verbatim("REFUSED by default — it would lose: " + "; ".join(refused), "bold $error"))
            lines.append(verbatim("Apply anyway only if that is what you want; the pointers panel will flag it.",
                                  "$error"))
        for warning in change.warnings:
            lines.append(verbatim(f"warning: {warning}", "$warning"))
        for name in change.names:
            new = change.files[name]
            old = index.raw if name == INDEX_NAME else (read_bytes(self.store.path_of(name))
                                                         if self.store.exists(name) else b"")
            diff = "".join(difflib.unified_diff(
                old.decode("utf-8", "replace").splitlines(True),
                (new or b"").decode("utf-8", "replace").splitlines(True),
                fromfile=f"{name} (now)", tofile=f"{name} (after)", n=1))
            lines.append(diff_content(diff))
        return Content("\n").join(lines)

    def confirm_change(self, change: Change, index, *, refused: list[str] = ()) -> None:
        body = self.change_preview(change, index, list(refused))
        title = f"{change.kind.capitalize() or 'Change'}: preview"

        def decided(yes: bool | None) -> None:
            if yes:
                self.apply_change(change)
            else:
                self.set_status("Cancelled: nothing was written.")

        label = "Apply anyway" if refused else "Apply"
        self.app.push_screen(ConfirmDialog(title, body, label, danger=bool(refused)), decided)

    def apply_change(self, change: Change) -> None:
        try:
            self.store.apply(change)
        except ConflictError as err:
            self.app.notify(str(err), title="Not applied: changed on disk", severity="error", markup=False, timeout=10)
            return
        except CuratorError as err:
            self.app.notify(str(err), title="Not applied", severity="error", markup=False)
            return
        self.replace_editor_text(self.reread_index())
        self.set_status(f"Applied: {change.description} (saved {change.bytes_saved:,} B). alt+z undoes it.", "$success")
        self.after_change()
