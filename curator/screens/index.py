"""The bearer's index screen: MEMORY.md in an editor, the byte meter always in view, panels beside.

The screen composes its parts and routes their messages; each part owns its own state:
- ``IndexEditor`` (widgets/index_editor.py): the text, the disk version, dirty, find, go-to-line;
- ``IndexPanels`` (widgets/index_panels.py): one widget per panel, each with its table and keys;
- ``LeverFlows`` (screens/index_levers.py): plan → preview → confirm → apply for every lever;
- the seat store (curator/store.py): every write, journalled for undo.

Messages routed here: ``AnalysisReady`` (a worker analysed the text), ``ChangeApplied`` (the store
wrote), ``FileChangedOnDisk`` (the watcher saw MEMORY.md change, vanish or turn unreadable),
``IndexEditor.DirtyChanged`` (the unsaved mark). Keys come from the registry (curator/keys.py).

Keystroke path: the meter is re-measured on every edit (bytes of the editor text; no parsing). The
full analysis runs debounced in a thread worker.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from curator.change import Change
from curator.errors import ConflictError, CuratorError
from curator.keys import REGISTRY, display_keys, effective_keys
from curator.meter import Limits, claude_code_budget, count_lines, measure
from curator.widgets.byte_meter import ByteMeter
from curator.widgets.footer import KeysFooter
from curator.widgets.index_editor import IndexEditor
from curator.widgets.keymap import bindings
from curator.widgets.messages import AnalysisReady, ChangeApplied, FileChangedOnDisk
from curator.widgets.status_line import STALE_AFTER, StatusLine
from curator.widgets.verbatim import verbatim

# The first frame needs only the title, the meter and the editor: the panels (their tables and tabs),
# the levers and the dialogs are imported when first used, after it is on screen.

INDEX_NAME = "MEMORY.md"


def status_text(message: str, memory_dir: Path) -> str:
    """``message`` for the one-line status: files of the seat by name and the seat's directory,
    shortened, at the end. A full path first filled 80 columns before the line said what happened."""
    where = str(memory_dir)
    if where not in message:
        return message
    message = message.replace(where + os.sep, "").replace(where, memory_dir.name)
    parts = memory_dir.parts
    short = os.sep.join(parts[-2:]) if len(parts) > 2 else where
    return f"{message} · in …{os.sep}{short}" if short != where else f"{message} · in {where}"
def is_claude_memory(memory_dir: Path) -> bool:
    """A Claude Code auto memory: ``<config>/projects/<project key>/memory`` (the layout Claude Code
    keeps), or what ``autoMemoryDirectory`` names for this project (``curator.locate``)."""
    parts = memory_dir.absolute().parts
    if len(parts) >= 3 and parts[-1] == "memory" and parts[-3] == "projects" and parts[-2].startswith("-"):
        return True
    try:
        from curator.locate import locate_memory_dir

        located = locate_memory_dir()
    except Exception:  # no Claude memory here, or unreadable settings: not one
        return False
    return "Claude Code" in located.how and located.memory_dir.absolute() == memory_dir.absolute()


def claude_project(memory_dir: Path) -> str:
    """The project a Claude Code memory belongs to, as Claude Code spells its key (``-work-app`` →
    ``…/work/app``): the last two parts, readable."""
    key = memory_dir.absolute().parent.name
    words = [w for w in key.split("-") if w]
    return "/".join(words[-2:]) if words else key


def title_words(memory_dir: Path, resident_id: str | None, *, kind: str = "", claude: bool = False) -> str:
    """``[kind · ]who · MEMORY.md · in <dir>``; a Claude Code memory says so, and whose (the fleet's
    resident, else the project Claude Code keeps it for)."""
    if claude:
        whose = f"Claude Code memory of {resident_id or claude_project(memory_dir)}"
        return f"{kind + ' · ' if kind else ''}{whose} · {INDEX_NAME} · in {memory_dir}"
    who = " · ".join(part for part in (kind, resident_id) if part)
    return f"{who + ' · ' if who else ''}{INDEX_NAME} · in {memory_dir}"


ARCHIVE_NAME = "ARCHIVE.md"
WATCH_INTERVAL = 1.0  # seconds between looks at MEMORY.md's inode, size and mtime


class IndexScreen(Screen):
    HELP_TITLE = "the index screen"
    HAS_EDITOR = True
    KEY_TARGETS = ("index", "seat", "editor", "panels", "entries", "merge", "trim", "archive", "archive_search")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS = bindings("index") + bindings("seat")

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
            self.AUTO_FOCUS = ""  # Textual would focus the first focusable widget: the editor
        self.limits = limits
        self.store = None
        self.analysis = None  # the last curator.analysis.Analysis shown
        # The panels mount after the first frame; until ``mount_panels`` has awaited them all, nothing
        # may query them. An analysis finishing before then is held and shown once they exist.
        self.panels_ready = False
        self._held_analysis: AnalysisReady | None = None
        self._analysis_timer: Timer | None = None
        self._requested = b""  # editor bytes the last analysis was started on
        self._analysed: bytes | None = None  # editor bytes whose analysis was last shown (or failed)
        self._last_edit = 0.0  # monotonic time of the last keystroke
        self._disk_seen: tuple | str | None = None  # MEMORY.md as last loaded / saved: see disk_signature
        self._find_text = ""
        self._history = (False, False)  # (can undo, can redo) a change, read from the journal after each write
        self._journal: list = []  # the store's history() as last read: the History panel and the footer
        self.interrupted = None  # curator.store.InterruptedChange the journal shows, or None

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

        await self.query_one("#body", Horizontal).mount(IndexPanels(self.memory_dir, id="panels"))
        self.panels_ready = True
        self.query_one(ArchivePanel).show()
        held, self._held_analysis = self._held_analysis, None
        if held is not None:
            self.on_analysis_ready(held)
        if self._analysed != self.editor_bytes():
            self.start_analysis()
        self.show_history()
        if self.focus_panels and self.focused is None:
            self.panels.focus_active()
        self.refresh_bindings()

    PANEL_ACTIONS = frozenset({"merge", "archive", "fold", "trim", "restore", "search_archive", "tab", "switch_pane",
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
            return self.store is not None and (self.dirty or self._disk_seen == "gone")
        if action == "settle_as_is":
            return self.interrupted is not None
        return True

    def footer_label(self, binding) -> str | None:
        """The footer's word for ``binding`` here: the next undo and redo by name, and "" to leave out a
        key that has nothing to act on now (pressed anyway, it says so)."""
        if binding.id == "index.undo_change":
            return self.history_label("Undo", self.next_undo()) if self._history[0] else ""
        if binding.id == "index.redo_change":
            return self.history_label("Redo", self.next_redo()) if self._history[1] else ""
        if binding.id == "archive.restore" and self.panels_ready:
            table = self.query_one("#archive-table")
            return "" if not table.hits else None
        return None

    @staticmethod
    def history_label(verb: str, entry) -> str:
        if entry is None:
            return verb
        words = entry.description
        return f"{verb}: {words if len(words) <= 22 else words[:21].rstrip() + '…'}"

    def next_undo(self):
        done = [e for e in self._journal if e.state != "undone"]
        return done[-1] if done else None

    def next_redo(self):
        undone = [e for e in self._journal if e.state == "undone"]
        return undone[0] if undone else None

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
    def panels(self):
        """The ``IndexPanels`` (mounted after the first frame)."""
        return self.query_one("#panels")

    @property
    def levers(self):
        """The lever flows (``LeverFlows``), made on first use."""
        if self._levers is None:
            from curator.screens.index_levers import LeverFlows

            self._levers = LeverFlows(self)
        return self._levers

    _levers = None

    @property
    def dirty(self) -> bool:
        return self.editor.dirty

    @property
    def fleet_below(self) -> bool:
        """Opened from the fleet panel (pushed over it), not as the app's own first screen (`tui DIR`).
        Decided from the stack, so start-up never imports the fleet screens."""
        stack = self.app.screen_stack
        return self in stack and stack.index(self) > 0 and self.app.fleet_path is not None

    def node_for_target(self, target: str):
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

    def read_history(self) -> None:
        try:
            self._history = (self.store.can_undo, self.store.can_redo) if self.store else (False, False)
            self._journal = self.store.history() if self.store else []
        except CuratorError:
            self._history, self._journal = (False, False), []
        self.show_interrupted()
        self.show_history()
        self.refresh_bindings()

    def show_history(self) -> None:
        if self.panels_ready:
            self.query_one("#history-table").show(self._journal)

    def show_interrupted(self) -> None:
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

    # == the seat on disk ==========================================================================
    def open_store(self) -> None:
        """Open the store and put MEMORY.md in the editor. A missing or unreadable index is said, and
        the editor starts empty; a save creates it."""
        from curator.store import SeatStore

        try:
            self.store = SeatStore.open(self.memory_dir, state_dir=self.app.state_dir)
        except CuratorError as err:
            self.app.notify(str(err), title="Cannot open the seat", severity="error", markup=False, timeout=10)
            self.store = None
        text = self.read_index() if self.store is not None else None
        self.show_disk_text(text or "")
        self.update_meter()
        self.read_history()

    def read_index(self) -> str | None:
        """MEMORY.md's text from disk (the store's baseline for the next save), or None with the reason
        on the status line: gone, unreadable, a symlink."""
        try:
            text = self.store.read(INDEX_NAME).decode("utf-8", "surrogateescape")
        except CuratorError as err:
            self.set_status(f"{err} — the editor keeps its text; {self.key('index.save')} writes it.", "$warning")
            self._disk_seen = self.disk_signature()
            return None
        self._disk_seen = self.disk_signature()
        return text

    def show_disk_text(self, text: str, *, keep_place: bool = False) -> None:
        """``text`` is what disk holds now: the editor shows it with a fresh undo history (one history:
        ctrl+z never crosses a write the journal knows about)."""
        self.editor.load_from_disk(text, keep_place=keep_place)
        self.update_meter()
        self.update_title()

    def disk_signature(self) -> tuple | str | None:
        """(inode, size, mtime) of MEMORY.md, "gone", or "unreadable: why": what the watcher compares."""
        try:
            info = os.lstat(self.memory_dir / INDEX_NAME)
        except FileNotFoundError:
            return "gone"
        except OSError as err:
            return f"unreadable: {err.strerror}"
        if not os.path.isfile(self.memory_dir / INDEX_NAME) or os.path.islink(self.memory_dir / INDEX_NAME):
            return "unreadable: not a regular file"
        if not os.access(self.memory_dir / INDEX_NAME, os.R_OK):
            return "unreadable: permission denied"
        return (info.st_ino, info.st_size, info.st_mtime_ns)

    def watch_disk(self) -> None:
        """The watcher (a timer, as cheap as one lstat): MEMORY.md changed, vanished or became
        unreadable since this app last read or wrote it."""
        if self.store is None:
            return
        now = self.disk_signature()
        if now == self._disk_seen:
            return
        self._disk_seen = now
        if now == "gone":
            self.post_message(FileChangedOnDisk("gone"))
        elif isinstance(now, str):
            self.post_message(FileChangedOnDisk("unreadable", now.removeprefix("unreadable: ")))
        else:
            self.post_message(FileChangedOnDisk("changed"))

    @on(FileChangedOnDisk)
    def file_changed_on_disk(self, event: FileChangedOnDisk) -> None:
        path = self.memory_dir / INDEX_NAME
        save, reload = self.key("index.save"), self.key("index.reload")
        if event.state == "gone":
            message = f"{path} is gone from disk (moved or deleted). Your text is still here; {save} writes it back."
        elif event.state == "unreadable":
            message = f"{path} cannot be read now ({event.detail}). Your text is still here."
        else:
            message = (f"{path} changed on disk (not through this app). {reload} reloads it"
                       + (" — you will be asked about your unsaved edits." if self.dirty else "."))
        self.set_status(message, "$warning", lasting=True)
        self.refresh_bindings()  # Save shows when the file is gone

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

    def show_meter(self, raw: bytes) -> None:
        """Bytes against the target; for a Claude Code seat also that harness's own budget (lines and
        characters as it counts them), both from the same keystroke's bytes."""
        meter = self.query_one(ByteMeter)
        meter.reading = measure(raw, self.limits)
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

    @work(thread=True, exclusive=True, group="analysis")
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
            self.query_one("#archive-panel").refresh_hits()
            if result.analysis is not None:
                self.flag_new_pointer_problems(before, result.analysis.pointers)

    def flag_new_pointer_problems(self, before, after) -> None:
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

    # == leaving with unsaved edits ===============================================================
    def confirm_leaving(self, leaving: str, then) -> None:
        """Run ``then`` now if nothing is unsaved; else ask save / discard / cancel first."""
        if not self.dirty:
            then()
            return

        def decided(choice: str | None) -> None:
            if choice == "save":
                self.save(then=then)  # after a conflict too: once keep-mine has written it
            elif choice == "discard":
                self.show_disk_text(self.editor.saved_text)
                then()
            elif choice is None:
                self.set_status("Still here: your edits are as they were.")

        from curator.screens.dialogs import UnsavedDialog

        self.app.push_screen(UnsavedDialog(str(self.memory_dir / INDEX_NAME), leaving), decided)

    def action_back(self) -> None:
        if self.fleet_below:
            self.confirm_leaving("go back to the fleet", lambda: self.dismiss())

    def action_no_fleet(self) -> None:
        """esc / f outside text under `tui DIR` (a panel's Back is not offered there): nothing to go
        back to, and the way out."""
        self.app.notify(f"No fleet panel in this session: {self.key('seat.quit')} quits.", timeout=3, markup=False)

    async def action_quit(self) -> None:
        """q on the first screen, outside text: quit (asking about unsaved edits first)."""
        await self.app.action_quit()

    def action_reload(self) -> None:
        if self.store is not None:
            self.after_typed_keys(lambda: self.confirm_leaving("reload MEMORY.md from disk", self.reload))

    def after_typed_keys(self, then) -> None:
        """Run ``then`` once the editor has handled the keys already sent to it. ctrl+s and ctrl+r are
        priority keys, run as they arrive: a letter typed just before them (one read, or typed ahead
        while the app is busy) may still wait in the editor's queue, and the save would miss it or
        the reload would not ask about it."""
        self.editor.call_later(then)

    def reload(self) -> None:
        self.store.reload()  # the disk version is the new baseline
        text = self.read_index()
        if text is None:
            return  # said on the status line; the editor keeps its text
        self.show_disk_text(text)
        self.read_history()
        self.set_status("Reloaded from disk.")

    # == saving and conflicts =====================================================================
    def action_save(self) -> None:
        self.after_typed_keys(self.save_now)

    def save_now(self) -> None:
        if self.store is None:
            self.app.notify("No seat is open; nothing to save.", severity="error")
        elif not self.dirty and self.disk_signature() != "gone":
            self.set_status("Nothing to save: the editor matches the file on disk.")
        else:
            self.save()

    def save(self, *, overwrite: bool = False, then=None) -> bool:
        """Write the editor's text through the store; True when it is on disk. A file that vanished is
        recreated; one changed under us asks reload / keep mine / diff. ``then`` (what the save was
        for: quit, back to the fleet…) runs once the text is on disk, also when that is after the
        conflict dialog's keep mine."""
        new = self.editor_bytes()
        old = self.editor.saved_text.encode("utf-8", "surrogateescape")
        change = Change(f"edit {INDEX_NAME}", {INDEX_NAME: new}, bytes_saved=len(old) - len(new), kind="edit")
        try:
            if overwrite or self.disk_signature() == "gone":
                self.store.reload()  # the disk version (or its absence) becomes the baseline; the journal keeps it
            self.store.apply(change)
        except ConflictError as err:
            from curator.screens.dialogs import ConflictDialog

            self.app.push_screen(ConflictDialog(str(self.memory_dir / INDEX_NAME), str(err)),
                                 lambda choice: self.resolve_conflict(choice, then))
            return False
        except CuratorError as err:
            if err.code == "NOTHING_TO_CHANGE":  # disk already holds this text
                self.editor.mark_saved()
                if then is not None:
                    then()
                return True
            self.app.notify(f"{err.code} {err}", title="Not saved", severity="error", markup=False)
            return False
        self.editor.mark_saved()
        self._disk_seen = self.disk_signature()
        self.change_applied(ChangeApplied(
            f"Saved {INDEX_NAME} ({len(new):,} B). {self.key('index.undo_change')} undoes the save.", "edit"))
        reading = measure(new, self.limits)
        if reading.zone == "over-limit":  # saved, but the harness stops reading before its end
            self.set_status(f"Saved {INDEX_NAME}, {-reading.headroom_read_limit:,} B over the read limit "
                            f"({reading.read_limit:,} B): a harness never reads past it. "
                            f"{self.key('index.fit')} fits it under the target; "
                            f"{self.key('index.undo_change')} undoes the save.", "bold $error")
        self.warn_readded_archive_entries(old.decode("utf-8", "surrogateescape"))
        if then is not None:
            then()
        return True

    def warn_readded_archive_entries(self, before: str) -> None:
        """Saving text that brings back an entry also kept in ARCHIVE.md: say so (a restore would add
        a second copy)."""
        from curator.index_model import parse_index
        from curator.levers.archive import STAMP
        from curator.levers.text import read_optional

        try:
            raw = read_optional(self.memory_dir, ARCHIVE_NAME)
        except CuratorError:
            return
        if raw is None:
            return
        # An archived entry carries "· archived YYYY-MM-DD" at the end of its first line.
        archived = {"\n".join([STAMP.sub("", e.text.split("\n")[0])] + e.text.split("\n")[1:]).strip()
                    for e in parse_index(raw).entries}
        had = {e.text.strip() for e in parse_index(before.encode("utf-8", "surrogateescape")).entries}
        back = [e for e in parse_index(self.editor_bytes()).entries if e.text.strip() in archived - had]
        if back:
            lines = ", ".join(str(e.line) for e in back)
            self.app.notify(f"Line {lines} of MEMORY.md is also in ARCHIVE.md: the entry now lives in both. "
                            "Archive it again or remove it from ARCHIVE.md; restoring it would add another copy.",
                            title="Entry in both files", severity="warning", markup=False, timeout=12)

    def resolve_conflict(self, choice: str | None, then=None) -> None:
        """``then``: what the save was for; it goes ahead only when keep mine has written the text
        (reload and cancel stay here, the user sees what is now in the editor)."""
        if choice == "reload":
            self.reload()
        elif choice == "keep":
            self.save(overwrite=True, then=then)
        elif choice == "diff":
            self.show_conflict_diff(then)
        else:
            self.set_status(f"Not saved: the file on disk changed. {self.key('index.save')} to decide again.",
                            "$warning")

    def show_conflict_diff(self, then=None) -> None:
        import difflib

        from curator.fsio import read_bytes
        from curator.screens.dialogs import ConflictDialog, DiffDialog

        try:  # a display read: never the store's, which would make the disk version the baseline
            disk = read_bytes(self.store.path_of(INDEX_NAME)).decode("utf-8", "surrogateescape")
        except CuratorError as err:
            disk = ""
            self.set_status(f"{err}: the diff shows the editor against nothing", "$warning")
        diff = "".join(difflib.unified_diff(
            disk.splitlines(keepends=True), self.editor.text.splitlines(keepends=True),
            fromfile="on disk", tofile="in the editor"))

        def back(_: None) -> None:
            self.app.push_screen(ConflictDialog(str(self.memory_dir / INDEX_NAME)),
                                 lambda choice: self.resolve_conflict(choice, then))

        self.app.push_screen(DiffDialog(f"{INDEX_NAME}: on disk → in the editor", diff), back)

    # == the journal: undo / redo a change ========================================================
    def action_undo_change(self) -> None:
        self.step_history(undo=True)

    def action_redo_change(self) -> None:
        self.step_history(undo=False)

    def action_history_jump(self) -> None:
        """Enter on a History row: undo or redo one change at a time until the files stand there."""
        if self.store is None:
            return
        wanted = self.query_one("#history-table").target()
        now = len([e for e in self._journal if e.state != "undone"])
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

    def action_settle_as_is(self) -> None:
        """An interrupted change settled as its files stand (nothing written); undo then goes to before it."""
        if self.store is None:
            return
        try:
            entry = self.store.settle_as_is()
        except CuratorError as err:
            self.app.notify(str(err), severity="warning", markup=False)
            return
        self.change_applied(ChangeApplied(f"Settled as the files stand: {entry.description}. "
                                          f"{self.key('index.undo_change')} goes back to before it.", "history"))

    def step_history(self, *, undo: bool) -> None:
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

    # == levers (screens/index_levers.py) =========================================================
    def action_merge(self) -> None:
        self.levers.merge()

    def action_archive(self) -> None:
        self.levers.archive()

    def action_fold(self) -> None:
        self.levers.fold()

    def action_trim(self) -> None:
        self.levers.trim()

    def action_restore(self) -> None:
        self.levers.restore()

    def action_fit(self) -> None:
        from curator.screens.fit_preview import open_fit

        open_fit(self.levers)

    def action_preview(self) -> None:
        """F4: the re-provision preview of this seat, if the app knows its fleet."""
        self.app.preview_for(self.resident_id, self.memory_dir)

    # == navigation: panels, details, the editor's places =========================================
    # Keys that move focus between text and the panels are priority keys (run as they arrive) and move
    # it at once (Widget.focus() defers it behind keys already queued): keys the terminal sent right
    # behind them (one read, or typed ahead while the app is busy) then go where the user meant.
    def action_switch_pane(self) -> None:
        if self.editor.has_focus:
            self.action_focus_panels()
        else:
            self.set_focus(self.editor)

    def action_focus_panels(self) -> None:
        self.panels.focus_active()

    def action_tab(self, tab: str) -> None:
        self.panels.active = tab
        self.panels.focus_active()

    def action_search_archive(self) -> None:
        self.panels.active = "archive"
        self.set_focus(self.query_one("#archive-search"))

    def action_leave_search(self) -> None:
        self.set_focus(self.query_one("#archive-table"))

    def action_goto_row(self) -> None:
        """Enter on a panel row: the editor shows that entry's line with its link selected."""
        from curator.widgets.panel_table import PanelTable

        table = self.focused if isinstance(self.focused, PanelTable) else self.panels.active_table()
        target = table.editor_target() if table is not None else None
        if target is None:
            self.app.notify("This row is not a line of MEMORY.md.", timeout=3)
            return
        self.editor.go_to(target.line, target.select)
        self.editor.focus()

    def on_data_table_row_selected(self, event) -> None:
        """A click on the highlighted row (or DataTable's own enter) leads to the line too."""
        from curator.widgets.panel_table import PanelTable

        if not isinstance(event.data_table, PanelTable):
            return
        target = event.data_table.editor_target()
        if target is None:  # a click on such a row: say why nothing moves
            self.app.notify("This row is not a line of MEMORY.md.", timeout=3)
            return
        self.editor.go_to(target.line, target.select)
        self.editor.focus()

    def action_goto_line(self) -> None:
        from curator.screens.dialogs import LinePrompt

        def go(value: str | None) -> None:
            if value and value.strip().isdigit():
                self.editor.go_to(int(value.strip()))
            elif value:
                self.set_status(f"Not a line number: {value!r}", "$warning")
            self.editor.focus()

        self.app.push_screen(LinePrompt("Go to line", f"1–{max(1, count_lines(self.editor_bytes()))}"), go)

    def action_find(self) -> None:
        from curator.screens.dialogs import LinePrompt

        def find(value: str | None) -> None:
            if value:
                self._find_text = value
                self.find_next()
            self.editor.focus()

        self.app.push_screen(LinePrompt(f"Find in {INDEX_NAME} ({self.key('editor.find_next')}: next)",
                                        "text to find", self._find_text), find)

    def action_find_next(self) -> None:
        if not self._find_text:
            self.action_find()
        else:
            self.find_next()

    def find_next(self) -> None:
        if not self.editor.find(self._find_text):
            self.set_status(f"Not found: {self._find_text}", "$warning")

    def on_tabbed_content_tab_activated(self) -> None:
        self.show_detail()

    def on_data_table_row_highlighted(self, event) -> None:
        if self.panels_ready and event.data_table is self.panels.active_table():
            self.show_detail()
            self.refresh_bindings()  # Enter leads to a line on some rows and not on others

    def show_detail(self) -> None:
        table = self.panels.active_table() if self.panels_ready else None
        self.query_one("#detail", Static).update(table.detail() if table is not None and table.row_count
                                                  else Content(""))
