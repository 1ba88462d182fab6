"""The bearer's index screen: MEMORY.md in an editor, the byte meter always in view, panels beside.

The screen composes its parts and routes their messages; each part owns its own state:
- ``IndexEditor`` (widgets/index_editor.py): the text, the disk version, dirty, find, go-to-line;
- ``IndexPanels`` (widgets/index_panels.py): one widget per panel, each with its table and keys;
- ``LeverFlows`` (levers.py): plan → preview → confirm → apply for every lever;
- ``DiskWatch`` (disk.py), ``SaveFlow`` (saving.py), ``JournalSteps`` (journal.py), ``Navigation``
  (navigation.py): the screen's other flows, mixed in;
- the seat store (curator/store.py): every write, journalled for undo.

Messages routed here: ``AnalysisReady`` (a worker analysed the text), ``ChangeApplied`` (the store
wrote), ``FileChangedOnDisk`` (the watcher saw MEMORY.md change, vanish or turn unreadable),
``IndexEditor.DirtyChanged`` (the unsaved mark). Keys come from the registry (curator/keys.py).

Keystroke path: the meter is re-measured on every edit (bytes of the editor text; no parsing). The
full analysis runs debounced in a thread worker.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from curator.keys import REGISTRY, display_keys, effective_keys
from curator.meter import Limits, Meter, claude_code_budget, claude_code_measure, measure
from curator.screens.index.disk import WATCH_INTERVAL, DiskWatch
from curator.screens.index.journal import JournalSteps
from curator.screens.index.navigation import Navigation
from curator.screens.index.saving import SaveFlow
from curator.screens.index.titles import is_claude_memory, status_text, title_words
from curator.screens.worker_errors import ReportsWorkerErrors
from curator.widgets.byte_meter import ByteMeter
from curator.widgets.footer import KeysFooter
from curator.widgets.index_editor import IndexEditor
from curator.widgets.keymap import bindings
from curator.widgets.messages import AnalysisReady, ChangeApplied, DiskState
from curator.widgets.status_line import STALE_AFTER, StatusLine
from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from textual import getters

    from curator.analysis import Analysis
    from curator.pointers import PointerReport
    from curator.screens.index.disk import DiskSignature
    from curator.screens.index.host import SeatApp
    from curator.screens.index.levers import LeverFlows
    from curator.store import InterruptedChange, SeatStore
    from curator.store.records import AppliedChange
    from curator.widgets.index_panels import IndexPanels

# The first frame needs only the title, the meter and the editor: the panels (their tables and tabs),
# the levers and the dialogs are imported when first used, after it is on screen.

class IndexScreen(ReportsWorkerErrors, DiskWatch, SaveFlow, JournalSteps, Navigation, Screen):
    HELP_TITLE = "the index screen"
    HAS_EDITOR = True
    KEY_TARGETS = ("index", "seat", "editor", "panels", "entries", "merge", "trim", "archive", "archive_search")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [*bindings("index"), *bindings("seat")]
    if TYPE_CHECKING:
        app = getters.app(SeatApp)  # the curator's app (curator/app.py sits above the screens)

    def __init__(self, memory_dir: Path, *, resident_id: str | None = None, profile: str | None = None,
                 limits: Limits = Limits(), focus_panels: bool = False, kind: str = ""):
        super().__init__()
        self.memory_dir = Path(memory_dir)
        self.resident_id = resident_id
        self.claude_memory = profile is None and is_claude_memory(self.memory_dir)
        # harness profile for the line cap ("claude-code" has one); a Claude Code memory is Claude Code's
        self.profile = "claude-code" if self.claude_memory else profile
        self.kind = kind  # what the title says this seat is, before its name ("demo seat")
        # Opened over another screen (the fleet): focus starts in the panels, so a key meant for the
        # screen just left (its q, its letters) never types into MEMORY.md; F2 goes to the editor.
        self.focus_panels = focus_panels
        if focus_panels:
            # Textual would focus the first focusable widget: the editor. It reads AUTO_FOCUS through the instance.
            self.AUTO_FOCUS = ""  # type: ignore[misc]  # declared a ClassVar by Textual; this screen sets its own
        self.limits = limits
        self.store: SeatStore | None = None
        self.analysis: Analysis | None = None  # the last analysis shown
        # The panels mount after the first frame; until ``mount_panels`` has awaited them all, nothing
        # may query them. An analysis finishing before then is held and shown once they exist.
        self.panels_ready = False
        self._held_analysis: AnalysisReady | None = None
        self._analysis_timer: Timer | None = None
        self._requested = b""  # editor bytes the last analysis was started on
        self._analysed: bytes | None = None  # editor bytes whose analysis was last shown (or failed)
        self._last_edit = 0.0  # monotonic time of the last keystroke
        self._disk_seen: DiskSignature | None = None  # MEMORY.md as last loaded / saved: see disk_signature
        self._find_text = ""
        self._history = (False, False)  # (can undo, can redo) a change, read from the journal after each write
        self._journal: list[AppliedChange] = []  # the store's history() as last read: the History panel and the footer
        self.interrupted: InterruptedChange | None = None  # the change the journal shows half-way, or None

    # == layout ====================================================================================
    def compose(self) -> ComposeResult:
        yield Static(id="seat-title")
        yield ByteMeter(id="meter")
        yield Static(id="seat-warning")  # an interrupted change: shown until it is resolved
        with Horizontal(id="body"):
            yield IndexEditor(id="editor", soft_wrap=True, show_line_numbers=True, tab_behavior="focus",
                              after_edit=self.editor_changed)
            # The panels mount after the first frame is on screen (see ``on_mount``).
        yield Static(id="detail")
        yield StatusLine(id="status")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.open_store()
        if not self.focus_panels:
            self.editor.focus()
        self.set_interval(WATCH_INTERVAL, self.watch_disk)
        # The app's queue runs once start-up is over and its first frame is written: the title,
        # meter and editor show first, then the panels mount and the analysis starts.
        self.app.call_later(self.call_after_refresh, self.mount_panels)

    async def mount_panels(self) -> None:
        # Awaiting the mount waits for the whole subtree (tabs, panes, tables) to be composed.
        from curator.widgets.archive_panel import ArchivePanel
        from curator.widgets.index_panels import IndexPanels

        if (body := self.body_to_mount_in()) is None:  # left (q/esc back to the fleet) before the panels' turn came
            return
        await body.mount(IndexPanels(self.memory_dir, id="panels"))
        if self.body_to_mount_in() is None or not (archive := self.query(ArchivePanel)):
            return
        self.panels_ready = True
        archive.first().show()
        held, self._held_analysis = self._held_analysis, None
        if held is not None:
            self.on_analysis_ready(held)
        if self._analysed != self.editor_bytes():
            self.start_analysis()
        self.show_history()
        if self.focus_panels and self.focused is None:
            self.panels.focus_active()
        self.refresh_bindings()

    def body_to_mount_in(self) -> Horizontal | None:
        """Where the panels mount: None once the screen was left, or it or the app is closing."""
        gone = self not in self.app.screen_stack or self._closing or self.app._closing
        body = None if gone else next(iter(self.query("#body").results(Horizontal)), None)
        return body if body is not None and body.is_attached else None

    PANEL_ACTIONS = frozenset({"merge", "archive", "fold", "trim", "trim_selection", "restore", "search_archive", "tab", "switch_pane",
                               "focus_panels", "goto_row", "leave_search", "history_jump"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Panel actions wait for the panels (dimmed until then); 'back to the fleet' is offered only
        when there is a fleet panel beneath this screen."""
        if action in self.PANEL_ACTIONS and not self.panels_ready:
            return None
        if action == "goto_row":  # Enter is offered only on a row that is a line of MEMORY.md
            target = getattr(self.focused, "editor_target", None)
            return target is None or target() is not None
        if action == "back":
            return self.fleet_below
        if action == "no_fleet":
            return not self.fleet_below
        if action == "quit":  # q quits only where it cannot go back (over the fleet, q is Back)
            return not self.fleet_below
        # The footer shows what can be done now: Save when there is something to write (Undo / Redo:
        # see footer_label, they answer even with nothing to step). Help lists them always.
        if action == "save":
            return self.store is not None and (self.dirty or self._disk_seen == DiskState.GONE)
        return True

    def footer_label(self, binding: Binding) -> str | None:
        """The footer's word for ``binding`` here: the next undo and redo by name, and "" to leave out a
        key that has nothing to act on now (pressed anyway, it says so)."""
        if binding.id == "index.undo_change":
            return self.history_label("Undo", self.next_undo()) if self._history[0] else ""
        if binding.id == "index.redo_change":
            return self.history_label("Redo", self.next_redo()) if self._history[1] else ""
        if binding.action == "settle_as_is" and self.interrupted is None:
            return ""
        if binding.id == "archive.restore" and self.panels_ready:
            from curator.widgets.archive_panel import ArchiveTable

            table = self.query_one("#archive-table", ArchiveTable)
            return "" if not table.hits else None
        return None

    def is_settled(self) -> bool:
        """True when what the panels show is the analysis of the editor's text and nothing is pending:
        what tests (and anything else that must not race the app) wait for."""
        return (self.panels_ready and self._analysis_timer is None and self._held_analysis is None
                and self._analysed == self.editor_bytes()
                and not any(w.group == "analysis" and not w.is_finished for w in self.workers))

    # == the parts =================================================================================
    @property
    def editor(self) -> IndexEditor:
        return self.query_one("#editor", IndexEditor)

    @property
    def panels(self) -> IndexPanels:
        """The ``IndexPanels`` (mounted after the first frame)."""
        from curator.widgets.index_panels import IndexPanels

        return self.query_one("#panels", IndexPanels)

    @property
    def levers(self) -> LeverFlows:
        """The lever flows (``LeverFlows``), made on first use."""
        if self._levers is None:
            from curator.screens.index.levers import LeverFlows

            self._levers = LeverFlows(self)
        return self._levers

    _levers: LeverFlows | None = None

    @property
    def dirty(self) -> bool:
        return self.editor.dirty

    @property
    def fleet_below(self) -> bool:
        """Opened from the fleet panel (pushed over it), not as the app's own first screen (`tui DIR`).
        Decided from the stack, so start-up never imports the fleet screens."""
        stack = self.app.screen_stack
        return self in stack and stack.index(self) > 0 and self.app.fleet_path is not None

    def node_for_target(self, target: str) -> Widget:
        """The widget a registry target's own actions run on (the palette asks)."""
        ids = {"editor": "#editor", "entries": "#entries-table", "merge": "#merge-table", "trim": "#trim-table",
               "archive": "#archive-table", "archive_search": "#archive-search"}
        return self.query_one(ids[target]) if target in ids and self.query(ids[target]) else self

    def key(self, action_id: str) -> str:
        """The key(s) bound to ``action_id`` now (the user's override, else the default), as written."""
        return display_keys(effective_keys(REGISTRY[action_id], getattr(self.app, "key_overrides", {})))

    def editor_bytes(self) -> bytes:
        return self.editor.text.encode("utf-8", "surrogateescape")

    def set_status(self, message: str, style: str = "", *, lasting: bool = False) -> None:
        """One message on the status line; it clears when stale (``lasting``: a state that stays until
        the next message, such as the file changed on disk)."""
        self.query_one("#status", StatusLine).say(verbatim(status_text(message, self.memory_dir), style),
                                                  None if lasting else STALE_AFTER)

    def update_title(self) -> None:
        """The unsaved mark comes first, then what this is and whose, then where (the part a narrow
        terminal cuts): ``Claude Code memory of <project> · MEMORY.md``, ``demo seat <id> · …``."""
        mark = Content.assemble(("● unsaved ", "bold $warning")) if self.dirty else Content("")
        self.query_one("#seat-title", Static).update(mark + verbatim(title_words(
            self.memory_dir, self.resident_id, kind=self.kind, claude=self.profile == "claude-code")))

    @on(IndexEditor.DirtyChanged)
    def dirty_changed(self) -> None:
        self.update_title()
        self.refresh_bindings()

    # Textual registers the @on handlers of a message pump's own classes only: the disk watch's is bound here.
    file_changed_on_disk = DiskWatch.file_changed_on_disk

    # == typing and the meter ======================================================================
    @on(IndexEditor.Changed, "#editor")
    def editor_loaded(self) -> None:
        """``load_text`` and the editor's own undo/redo change the document without ``edit``, so
        ``after_edit`` never sees them: measure here. A keystroke's own message is skipped."""
        if not self.editor.is_echo():
            self.editor.check_dirty()
            self.editor_changed()

    def editor_changed(self, text: str | None = None) -> None:
        """Every keystroke: re-measure (cheap: bytes of the text, no parsing, a repaint of the meter
        only); the full analysis waits for a pause in typing."""
        raw = (self.editor.text if text is None else text).encode("utf-8", "surrogateescape")
        self.show_meter(raw)
        if raw != self._requested:  # not an echo of text already analysed
            self._last_edit = time.monotonic()
            if self._analysis_timer is None:  # one timer per pause in typing, not one per key
                self._analysis_timer = self.set_timer(self.app.analysis_delay, self.analyse_when_quiet)

    def update_meter(self) -> None:
        self.show_meter(self.editor_bytes())

    def reading_of(self, raw: bytes) -> Meter:
        """The meter's reading of ``raw``: for a Claude Code seat, the bytes Claude Code loads (its
        zone too), the bytes on disk beside them; elsewhere the bytes on disk."""
        return claude_code_measure(raw, self.limits) if self.profile == "claude-code" else measure(raw, self.limits)

    def show_meter(self, raw: bytes) -> None:
        """Bytes against the target; for a Claude Code seat also that harness's own budget (lines and
        characters as it counts them), both from the same keystroke's bytes."""
        meter = self.query_one(ByteMeter)
        meter.reading = self.reading_of(raw)
        meter.budget = claude_code_budget(raw) if self.profile == "claude-code" else None

    # == analysis (debounced, off the UI thread) ===================================================
    def analyse_when_quiet(self) -> None:
        self._analysis_timer = None
        wait = self._last_edit + self.app.analysis_delay - time.monotonic()
        if wait > 0:
            self._analysis_timer = self.set_timer(wait, self.analyse_when_quiet)
        elif self.editor_bytes() != self._requested:
            self.start_analysis()

    def start_analysis(self) -> None:
        if self._analysis_timer is not None:
            self._analysis_timer.stop()
            self._analysis_timer = None
        self._requested = self.editor_bytes()
        self.run_analysis(self._requested)

    @work(thread=True, exclusive=True, group="analysis", exit_on_error=False)
    def run_analysis(self, raw: bytes) -> None:
        self.post_message(self.analyse(raw))

    def analyse(self, raw: bytes) -> AnalysisReady:
        """The core's analysis of ``raw`` and the levers' suggestions (pure; in the worker or, after a
        write, at once)."""
        from curator.analysis import analyze
        from curator.levers.merge import find_candidates
        from curator.levers.trim import suggestions

        try:
            result = analyze(self.memory_dir, index_bytes=raw, limits=self.limits)
            extras = {"merge": find_candidates(result.index),
                      "trim": suggestions(self.memory_dir, result.index, limits=self.limits)}
        except Exception as err:  # a user-readable failure; the editor keeps working
            return AnalysisReady(raw, None, error=str(err))
        return AnalysisReady(raw, result, extras)

    @on(AnalysisReady)
    def on_analysis_ready(self, event: AnalysisReady) -> None:
        if event.raw != self.editor_bytes():
            return  # typing went on meanwhile; the next run will catch up
        if not self.panels_ready:
            self._held_analysis = event
            return
        self._analysed = event.raw
        if event.analysis is None:
            self.set_status(f"analysis failed: {event.error}", "$error")
            return
        self.analysis = event.analysis
        meter = self.query_one(ByteMeter)
        load = event.analysis.loads.get(self.profile or "")
        meter.line_cap, meter.profile = (load.line_cap, load.profile) if load else (None, "")
        self.panels.show(event.analysis, event.extras)
        self.show_detail()
        self.refresh_bindings()  # the rows Enter leads from changed
        for warning in event.analysis.warnings:
            self.set_status(warning, "$warning")

    # == a write happened: re-read, re-analyse at once, flag what broke ===========================
    def change_applied(self, event: ChangeApplied) -> None:
        """Files changed on disk through the store. The editor shows the new index where it changed;
        the analysis runs at once (not debounced), so pointers are re-checked before the next key and
        anything orphaned is flagged immediately."""
        text = self.read_index()
        if text is not None and text != self.editor.text:  # a save leaves the editor (and cursor) alone
            self.show_disk_text(text, keep_place=True)
        self.set_status(event.description, "$success")
        self.read_history()
        before = self.analysis.pointers if self.analysis is not None else None
        result = self.analyse(self.editor_bytes())
        self._requested = result.raw
        self.on_analysis_ready(result)
        if self.panels_ready:
            from curator.widgets.archive_panel import ArchivePanel

            self.query_one("#archive-panel", ArchivePanel).refresh_hits()
            if result.analysis is not None:
                self.flag_new_pointer_problems(before, result.analysis.pointers)

    def flag_new_pointer_problems(self, before: PointerReport | None, after: PointerReport) -> None:
        """Problems the last write introduced: switch to the Pointers panel and say so."""
        old_orphans = set(before.orphans) if before else set()
        old_dangling = {(d.file, d.target) for d in before.dangling} if before else set()
        orphans = [name for name in after.orphans if name not in old_orphans]
        dangling = [d for d in after.dangling if (d.file, d.target) not in old_dangling]
        if not orphans and not dangling:
            return
        self.panels.active = "pointers"
        parts = [f"orphaned: {', '.join(orphans)}"] if orphans else []
        parts += [f"dangling: {', '.join(d.target for d in dangling)}"] if dangling else []
        self.app.notify("Pointers re-checked after the change — " + "; ".join(parts)
                        + f". An orphaned pointer is a deleted memory: re-link it or undo ({self.key('index.undo_change')}).",
                        title="New pointer problems", severity="warning", markup=False, timeout=10)

    def on_key(self, event: events.Key) -> None:
        """A key with nothing focused (opened from the fleet, before the panels exist) reaches the
        screen itself: its back keys still go back, as the panels' would, instead of being lost."""
        if self.focused is None and self.fleet_below and event.key in ("q", "escape", "f"):
            event.stop()
            self.action_back()

    def action_back(self) -> None:
        if self.fleet_below:
            self.confirm_leaving("go back to the fleet", lambda: self.dismiss())

    def action_no_fleet(self) -> None:
        """esc / f outside text under `tui DIR` (no Back there): nothing to go back to, and the way out."""
        self.app.notify(f"No fleet panel in this session: {self.key('seat.quit')} quits.", timeout=3, markup=False)

    async def action_quit(self) -> None:
        """q on the first screen, outside text: quit (asking about unsaved edits first)."""
        await self.app.action_quit()

    def after_typed_keys(self, then: Callable[[], object]) -> None:
        """Run ``then`` once the editor has handled the keys already sent to it. ctrl+s and ctrl+r are
        priority keys, run as they arrive: a letter typed just before them (one read, or typed ahead
        while the app is busy) may still wait in the editor's queue, and the save would miss it or
        the reload would not ask about it."""
        self.editor.call_later(then)

    # == levers (levers.py) ========================================================================
    def action_merge(self) -> None:
        self.levers.merge()

    def action_archive(self) -> None:
        self.levers.archive()

    def action_fold(self) -> None:
        self.levers.fold()

    def action_trim(self) -> None:
        self.levers.trim()

    def action_trim_selection(self) -> None:
        self.levers.trim_selection()

    def action_restore(self) -> None:
        self.levers.restore()

    def action_fit(self) -> None:
        from curator.screens.fit_preview import open_fit

        open_fit(self.levers)

    def action_preview(self) -> None:
        """F4: the re-provision preview of this seat, if the app knows its fleet."""
        self.app.preview_for(self.resident_id, self.memory_dir)
