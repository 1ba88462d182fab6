"""Keys as data: one registry of the app's actions, the keys bound to them, and the user's overrides.

Every key the curator answers to is an ``Action`` here, with a stable id (``"index.save"``) that a
user can rebind in ``keys.toml`` (see ``keymap_path``). The footer, the help screen and the command
palette all read this one table (the widgets turn it into Textual bindings, ``curator.widgets.keymap``),
so they cannot disagree.

The rule the default keys follow: a key that would type a character is bound only where no text can
be typed (a panel's table, a dialog without a text field). Everything that must work while the editor
has focus is a ctrl+ or function key; alt+ keys are avoided because in tmux they arrive as ESC then the
letter and the letter is typed.

``q`` and ``esc`` go back one level, as in lazygit and k9s: they close the dialog or screen on top
(a dialog's ``q`` is its Cancel); on the first screen ``q`` quits, through the unsaved-edits question.
Never while a text field has focus: there ``q`` is a letter (and the footer leaves letters out).

Pure: no textual import (the layering test checks it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from curator.errors import InputError


@dataclass(frozen=True)
class Action:
    id: str  # "<target>.<name>": the id a user rebinds
    target: str  # where the binding lives: "app", a screen, a panel or a dialog (see TARGETS)
    action: str  # the Textual action run there, e.g. "save" or "screen.merge"
    description: str  # what the footer, help and palette call it
    keys: str  # default keys, comma-separated in Textual's names ("ctrl+s", "f4", "space")
    show: bool = True  # shown in the footer (help and palette list every action)
    key_display: str | None = None
    priority: bool = False  # checked before the focused widget: for keys a text widget also binds
    rank: int = 50  # footer order: lower first, so the most important keys stay in view at 80 columns
    short: str = ""  # the footer's word for it when the description is long (help and palette say it all)

    @property
    def footer_label(self) -> str:
        return self.short or self.description


# Where each target's keys work, in the words the help screen uses.
TARGETS = {
    "app": "everywhere",
    "index": "index screen",
    "seat": "index screen opened on its own (tui DIR), outside text",
    "editor": "editor",
    "panels": "any panel",
    "entries": "Entries panel",
    "merge": "Merge panel",
    "trim": "Trim panel",
    "archive": "Archive panel",
    "archive_search": "archive search box",
    "entries_filter": "entries filter box",
    "history": "History panel",
    "pointers": "Pointers panel",
    "confirm": "preview dialog",
    "merge_dialog": "merge preview",
    "archive_dialog": "archive preview",
    "conflict": "changed-on-disk dialog",
    "unsaved": "unsaved-edits dialog",
    "text_dialog": "text view",
    "help": "help",
    "line_prompt": "find / go-to-line box",
    "fleet": "fleet panel",
    "preview": "re-provision preview",
}

ACTIONS: tuple[Action, ...] = (
    # -- everywhere (priority: they work in every focus, the editor included) ------------------------
    Action("app.reprovision", "app", "reprovision_preview", "Re-provision preview", "f4", priority=True, rank=4,
           short="Preview"),
    Action("app.help", "app", "help", "Help", "f1", priority=True, rank=10),
    Action("app.palette", "app", "command_palette", "Commands", "ctrl+p", priority=True, rank=85),
    Action("app.quit", "app", "quit", "Quit", "ctrl+q", priority=True, rank=11),
    # -- the index screen (ctrl+/F keys: they work while the editor has focus) -----------------------
    Action("index.save", "index", "save", "Save", "ctrl+s", priority=True, rank=1),
    Action("index.switch_pane", "index", "switch_pane", "Editor ⇄ panels", "f2", rank=2, short="Switch pane"),
    Action("index.undo_change", "index", "undo_change", "Undo change", "f8", rank=8),
    Action("index.redo_change", "index", "redo_change", "Redo change", "f9", rank=9),
    Action("index.fit", "index", "fit", "Fit under the target (preview a plan of lossless steps)", "f6",
           rank=19, short="Fit"),
    Action("index.settle_as_is", "index", "settle_as_is", "Keep files as they are (settle an interrupted change)",
           "f7", rank=20, short="Settle as is"),
    Action("index.reload", "index", "reload", "Reload from disk", "ctrl+r,f5", key_display="^r", rank=30,
           short="Reload"),
    # Not priority (unlike the index keys above): a text field keeps its q.
    Action("seat.quit", "seat", "screen.quit", "Quit (from the fleet, q goes back instead)", "q", rank=11,
           short="Quit"),
    # Under `tui DIR` no fleet is beneath: a panel's esc / f (Back, not offered) come here and say so.
    Action("seat.no_fleet", "seat", "no_fleet", "Say there is no fleet panel to go back to", "escape,f", show=False,
           rank=46),
    # -- the editor -------------------------------------------------------------------------------
    Action("editor.find", "editor", "screen.find", "Find", "ctrl+f", rank=12),
    Action("editor.find_next", "editor", "screen.find_next", "Find next", "f3", show=False, rank=13),
    Action("editor.goto_line", "editor", "screen.goto_line", "Go to line", "ctrl+g", rank=14),
    Action("editor.leave", "editor", "screen.focus_panels", "To the panels", "escape", show=False, rank=13),
    # -- every panel (letters: a panel's table takes no text) -----------------------------------------
    # Offered only on a row that is a line of MEMORY.md (not the Archive or Load panels' rows).
    Action("panels.goto", "panels", "screen.goto_row", "Go to line in editor", "enter", rank=15,
           short="Go to line"),
    # Priority (bound on the tables, so never while text has focus): focus is in the search box
    # before the next key is routed, so "/ci" in one read searches for "ci".
    Action("panels.search_archive", "panels", "screen.search_archive", "Search archive", "slash",
           key_display="/", priority=True, rank=40),
    # q goes back like esc; on the first screen (`tui DIR`, no fleet beneath) it quits: seat.quit.
    Action("panels.back", "panels", "screen.back",
           "Back to the fleet (with no fleet beneath: quit, asking about unsaved edits)", "escape,q,f",
           key_display="esc/q", rank=12, short="Back to fleet"),
    Action("panels.help", "panels", "app.help", "Help", "question_mark", show=False,
           key_display="?", rank=81),
    *(Action(f"panels.tab_{n}", "panels", f"screen.tab('{tab}')", f"{label} panel", str(n), show=False, priority=True,
             rank=60 + n)
      for n, (tab, label) in enumerate((("entries", "Entries"), ("merge", "Merge"), ("trim", "Trim"),
                                         ("archive", "Archive"), ("pointers", "Pointers"), ("load", "Load"),
                                         ("history", "History")), 1)),
    # The selection the levers act on: marks, else what the filter shows, else the cursor's entry.
    Action("entries.mark", "entries", "toggle_mark", "Mark / unmark the entry and move down", "space", rank=5,
           short="Mark"),
    Action("entries.section", "entries", "mark_section", "Mark / unmark the whole section", "S", rank=33,
           short="Section"),
    Action("entries.range", "entries", "toggle_range", "Start / end a range (move to mark every row between)", "v",
           rank=34, short="Range"),
    Action("entries.extend_down", "entries", "extend(1)", "Range: mark and move down", "shift+down", show=False,
           rank=56),
    Action("entries.extend_up", "entries", "extend(-1)", "Range: mark and move up", "shift+up", show=False, rank=57),
    Action("entries.filter", "entries", "filter", "Filter the entries (levers act on what it shows)", "slash",
           key_display="/", priority=True, rank=39, short="Filter"),
    Action("entries.clear", "entries", "clear_selection", "Clear marks, range and filter", "c", rank=36,
           short="Clear"),
    Action("entries.merge", "entries", "screen.merge", "Merge the selection", "m", rank=6, short="Merge"),
    Action("entries.archive", "entries", "screen.archive", "Archive the selection", "a", rank=7, short="Archive"),
    Action("entries.fold", "entries", "screen.fold", "Fold the selection into one detail file (a whole section: "
           "the section)", "F", rank=7, short="Fold"),
    Action("entries.trim", "entries", "screen.trim_selection", "Trim the selection (a split or a tighten each, "
           "every fact kept; one change)", "t", rank=7, short="Trim"),
    Action("entries.sort", "entries", "cycle_sort", "Sort (line, bytes, section, pointers)", "s", rank=35,
           short="Sort"),
    # Priority: focus is back on the table before the next key is routed ("/ci⏎ " in one read marks).
    Action("entries_filter.done", "entries_filter", "done", "Back to the table (the filter stays)", "escape,enter",
           key_display="esc/⏎", priority=True, rank=15),
    Action("history.jump", "history", "screen.history_jump", "Undo / redo to this point", "enter", rank=6,
           short="Go to here"),
    Action("merge.merge", "merge", "screen.merge", "Merge", "m", rank=6),
    Action("trim.trim", "trim", "screen.trim", "Trim this suggestion (the Entries panel's t trims the selection)",
           "t", rank=6, short="Trim"),
    Action("archive.restore", "archive", "screen.restore", "Restore", "r", rank=6),
    Action("archive_search.back", "archive_search", "screen.leave_search", "Back to the list", "escape",
           priority=True, rank=15),  # priority: the key behind esc goes to the list, not into the box
    # -- dialogs (no text field has focus where these letters are bound) -----------------------------
    Action("confirm.yes", "confirm", "answer(True)", "Apply", "y", rank=1),
    Action("confirm.no", "confirm", "answer(False)", "Cancel", "n,escape,q", key_display="n/esc", rank=2),
    Action("confirm.down", "confirm", "scroll_body(1)", "Scroll down", "down,j", show=False, rank=70),
    Action("confirm.up", "confirm", "scroll_body(-1)", "Scroll up", "up,k", show=False, rank=71),
    Action("confirm.page_down", "confirm", "scroll_page(1)", "Page down", "pagedown", show=False, rank=72),
    Action("confirm.page_up", "confirm", "scroll_page(-1)", "Page up", "pageup", show=False, rank=73),
    # Priority, and not while the line has focus (there e is a letter): the line has focus before the
    # next key is routed, so "e" + the new line in one read is typed into it, never run as y / n.
    Action("merge_dialog.edit", "merge_dialog", "edit", "Edit the merged line", "e", priority=True, rank=3),
    Action("archive_dialog.drop_headings", "archive_dialog", "toggle_drop", "Also remove the emptied heading",
           "h", rank=3, short="Drop heading"),
    # The changed-on-disk and unsaved-edits questions have no text field: their keys are priority, so
    # the answer is in before the next key is routed (esc, then esc again, goes on from the screen below).
    Action("conflict.reload", "conflict", "choose('reload')", "Reload from disk", "r", priority=True, rank=1),
    Action("conflict.keep", "conflict", "choose('keep')", "Keep mine (overwrite)", "k", priority=True, rank=2),
    Action("conflict.diff", "conflict", "choose('diff')", "Show diff", "d", priority=True, rank=3),
    Action("conflict.cancel", "conflict", "choose(None)", "Cancel", "escape,q", key_display="esc", priority=True, rank=4),
    Action("unsaved.save", "unsaved", "choose('save')", "Save", "s,ctrl+s", key_display="s", priority=True, rank=1),
    Action("unsaved.discard", "unsaved", "choose('discard')", "Discard edits", "d", priority=True, rank=2),
    Action("unsaved.cancel", "unsaved", "choose(None)", "Cancel", "escape,c,q", key_display="esc", priority=True, rank=3),
    Action("text_dialog.close", "text_dialog", "close", "Close", "escape,q,enter", key_display="esc", rank=1),
    Action("help.close", "help", "close", "Close help", "escape,q,f1,question_mark", key_display="esc", rank=1),
    Action("line_prompt.cancel", "line_prompt", "cancel", "Cancel", "escape", rank=2),
    Action("line_prompt.ok", "line_prompt", "submit", "Go", "enter", show=True, rank=1),
    # -- the fleet panel and the re-provision preview (their screens bind these ids) ------------------
    # Short words, most used first, so o, x, d and c fit at 80 columns. p is the panel's own key for
    # the preview; the footer shows the app-wide f4 for it, as on every screen.
    Action("fleet.preview", "fleet", "preview", "Re-provision preview", "p", show=False, rank=4),
    Action("fleet.open_seat", "fleet", "open_seat", "Open seat", "o", rank=5),
    Action("fleet.set_aside", "fleet", "set_aside", "Set aside", "x", rank=20),
    Action("fleet.repair", "fleet", "repair", "Repair owned values", "r", rank=26, short="Repair"),
    Action("fleet.show_diff", "fleet", "show_diff", "Diff", "d", rank=21),
    Action("fleet.canary", "fleet", "canary", "Boot check", "c", rank=22),
    Action("fleet.evidence", "fleet", "evidence", "Evidence", "e", rank=23),
    # Priority: the screen moves focus before the next key is sent on, so "/kes" or esc+p arriving in
    # one read (as tmux sends them) is typed into the filter, or runs on the grid, as meant.
    Action("fleet.filter", "fleet", "filter", "Filter", "slash", key_display="/", priority=True, rank=24),
    Action("fleet.mark", "fleet", "mark", "Mark resident", "space", rank=25),
    Action("fleet.refresh", "fleet", "refresh", "Refresh plan", "ctrl+r,f5", key_display="^r", rank=30),
    Action("fleet.leave_filter", "fleet", "leave_filter", "Back to the grid (in the filter)", "escape", show=False, priority=True,
           rank=31),
    Action("fleet.quit", "fleet", "app.quit", "Quit", "q", rank=11),  # the fleet panel is the first screen
    # Not priority: enter on the focused Cancel button presses Cancel; on the file list it applies.
    Action("preview.apply", "preview", "apply", "Apply plan", "enter", rank=1),
    Action("preview.set_aside", "preview", "set_aside", "Set aside", "x", rank=2),
    Action("preview.adopt", "preview", "adopt", "Adopt (add owned keys)", "a", rank=2),
    Action("preview.repair", "preview", "repair", "Repair owned values", "r", rank=2, short="Repair"),
    Action("preview.refresh", "preview", "refresh", "Re-plan", "ctrl+r,f5", rank=3),
    Action("preview.close", "preview", "close", "Close preview", "escape,q", key_display="esc/q", rank=4),
)

REGISTRY: dict[str, Action] = {a.id: a for a in ACTIONS}
assert len(REGISTRY) == len(ACTIONS), "action ids are unique"


def for_target(target: str) -> list[Action]:
    """The actions bound on ``target``, in footer order."""
    return sorted((a for a in ACTIONS if a.target == target), key=lambda a: a.rank)


def keymap_path() -> Path:
    """Where a user's key overrides live: ``keys.toml`` in the platform's user config dir
    (``~/.config/seat-curator/keys.toml`` on Linux; ``$XDG_CONFIG_HOME`` is honoured)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("seat-curator")) / "keys.toml"


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """(overrides, problems): ``{action id: keys}`` from ``path`` (default ``keymap_path()``) and one
    readable line per thing ignored. A missing file is no overrides; a broken file is no overrides and
    one problem naming it. The file::

        [keys]
        "index.undo_change" = "ctrl+t"     # one key
        "app.reprovision" = "f4,ctrl+o"    # or several, comma-separated
    """
    import tomllib  # only when there is a file to read: start-up pays for nothing else

    from curator.fsio import read_bytes

    path = keymap_path() if path is None else Path(path)
    if not path.exists() and not path.is_symlink():
        return {}, []
    if path.exists() and not path.is_symlink() and not path.is_file():  # a FIFO would block the read
        return {}, [f"KEYMAP_UNREADABLE {path}: is not a regular file; using the default keys"]
    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except InputError as err:
        return {}, [f"KEYMAP_UNREADABLE {err}; using the default keys"]
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        return {}, [f"KEYMAP_INVALID {path}: {err}; using the default keys"]
    table = data.get("keys", {})
    if not isinstance(table, dict):
        return {}, [f"KEYMAP_INVALID {path}: [keys] must be a table of action id = \"keys\""]
    overrides, problems = {}, []
    for action_id, keys in table.items():
        if action_id not in REGISTRY:
            problems.append(f"KEYMAP_UNKNOWN_ACTION {path}: no action {action_id!r} (see the help screen for ids)")
        elif not isinstance(keys, str) or not keys.strip() or any(not k.strip() for k in keys.split(",")):
            problems.append(f"KEYMAP_INVALID {path}: {action_id} must be keys like \"ctrl+t\" or \"f7,ctrl+t\"")
        else:
            overrides[action_id] = ",".join(k.strip() for k in keys.split(","))
    return overrides, problems


def effective_keys(action: Action, overrides: dict[str, str]) -> str:
    return overrides.get(action.id, action.keys)


def display_keys(keys: str) -> str:
    """Keys as the help screen writes them: ``ctrl+s`` → ``ctrl+s``, ``slash`` → ``/``, several with ' / '."""
    names = {"slash": "/", "question_mark": "?", "escape": "esc", "space": "space"}
    return " / ".join(names.get(k, k) for k in keys.split(","))
