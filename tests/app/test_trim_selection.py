"""Trim takes the selection, as merge, archive and fold do: the Entries panel's t (and the palette,
from the editor) previews every selected entry's safe trim (a split or a tighten, every fact kept)
by line and title, names the entries that have none with the reason, and applies them as one change
that one undo gives back byte for byte. The Trim panel's t still trims its suggestion."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import Static

from curator.app import CuratorApp
from curator.screens.dialogs import ConfirmDialog, TextDialog
from curator.widgets.entries_table import EntriesTable
from curator.widgets.index_editor import IndexEditor
from tests.support.app import footer_keys, put_cursor_on, settle, write_seat

SIZE = (120, 36)
TIGHTEN = "- In order to rotate the keys run `rotate.sh` first\n"


def trim_seat(tmp_path: Path) -> Path:
    """The fixture seat, its Craft hooks section: the long parser note (a split into perf.md), three
    craft lines (no safe trim) and a line with filler (a tighten)."""
    seat = write_seat(tmp_path / "memory", craft=3)
    with open(seat / "MEMORY.md", "a", encoding="utf-8") as index:
        index.write(TIGHTEN)
    return seat


def files(seat: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(seat.iterdir()) if p.is_file()}


def body(app: CuratorApp) -> str:
    return str(app.screen.query_one("#confirm-body", Static).render())


async def test_panel_focused_t_trims_a_whole_section_in_one_change_and_one_undo(tmp_path):
    seat = trim_seat(tmp_path)
    before = files(seat)
    async with CuratorApp(seat, state_dir=tmp_path / "state").run_test(size=SIZE) as pilot:
        app = pilot.app
        await settle(app, pilot)
        put_cursor_on(app, "parser's hot path", focus=True)
        keys = {k.key: k.description for k in await footer_keys(app, pilot)}
        assert keys.get("t") == "Trim"
        await pilot.press("f1")  # the help says what t acts on, here and on the Trim panel
        await settle(app, pilot)
        rows = {(key, what) for key, what, _where in app.screen.keys}
        assert ("t", "Trim the selection (a split or a tighten each, every fact kept; one change)") in rows
        assert ("t", "Trim this suggestion (the Entries panel's t trims the selection)") in rows
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("S", "t")  # the section, then its trims: the preview
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        text = body(app)
        assert "line 19 'The parser's hot path is the to…' — split → perf.md, saves" in text
        assert "line 23 'In order to rotate the keys run…' — tighten, saves" in text
        assert "no safe trim (3), left as they are:" in text
        assert "line 20 'craft 1:" in text and "split: it has no clause break to split at" in text
        assert not any(row.id in text for row in app.screen_stack[0].query_one(EntriesTable).rows_by_id.values())
        await pilot.press("y")
        await settle(app, pilot)
        index = (seat / "MEMORY.md").read_text(encoding="utf-8")
        assert "In order to" not in index and "rotate the keys run `rotate.sh` first" in index
        assert "cut the run time by a third" in (seat / "perf.md").read_text(encoding="utf-8")
        assert "cut the run time by a third" not in index
        assert "Applied: trim lines 19, 23" in str(app.screen.query_one("#status").render())
        assert app.screen.editor.text == index
        await pilot.press("f8")  # one undo gives every file back
        await settle(app, pilot)
        assert files(seat) == before


async def test_editor_focused_the_palette_trims_the_selection_and_types_nothing(tmp_path):
    seat = trim_seat(tmp_path)
    before = files(seat)
    async with CuratorApp(seat, state_dir=tmp_path / "state").run_test(size=SIZE) as pilot:
        app = pilot.app
        await settle(app, pilot)
        put_cursor_on(app, "rotate the keys", focus=False)
        assert isinstance(app.focused, IndexEditor)
        await pilot.press("ctrl+p")
        await settle(app, pilot)  # the palette (Textual's) takes keys once its search box has focus
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"trim the selection")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog), f"{app.screen} is not the trim preview"
        assert "line 23 'In order to rotate the keys run…' — tighten" in body(app)
        assert "no safe trim" not in body(app)
        await pilot.press("y")
        await settle(app, pilot)
        index = (seat / "MEMORY.md").read_text(encoding="utf-8")
        assert "- To rotate the keys run `rotate.sh` first\n" in index
        assert isinstance(app.focused, IndexEditor) and app.screen.editor.text == index  # no y typed
        await pilot.press("f8")
        await settle(app, pilot)
        assert files(seat) == before and app.screen.editor.text == before["MEMORY.md"].decode()


async def test_a_selection_with_no_safe_trim_says_why_and_writes_nothing(tmp_path):
    seat = trim_seat(tmp_path)
    before = files(seat)
    async with CuratorApp(seat, state_dir=tmp_path / "state").run_test(size=SIZE) as pilot:
        app = pilot.app
        await settle(app, pilot)
        put_cursor_on(app, "craft 2:", focus=True)
        await pilot.press("t")
        await settle(app, pilot)
        assert isinstance(app.screen, TextDialog)
        text = str(app.screen.query_one(".dialog-body Static", Static).render())
        assert "line 21 'craft 2:" in text and "tighten: would not shorten it" in text
        await pilot.press("escape")
        await settle(app, pilot)
    assert files(seat) == before


async def test_with_no_entry_to_select_t_goes_to_the_trim_panel_as_before(tmp_path):
    seat = tmp_path / "memory"
    seat.mkdir()
    (seat / "MEMORY.md").write_text("# Seat memory index\n\n## Hard rules\n", encoding="utf-8")
    async with CuratorApp(seat, state_dir=tmp_path / "state").run_test(size=SIZE) as pilot:
        app = pilot.app
        await settle(app, pilot)
        table = app.screen.query_one(EntriesTable)
        table.focus()
        await pilot.press("t")
        await settle(app, pilot)
        assert app.screen.panels.active == "trim"


async def test_an_agent_writing_while_the_preview_is_open_keeps_its_line_and_nothing_is_trimmed(tmp_path):
    """Between the preview and its y, the seat's agent appends to MEMORY.md: the trim is refused,
    the agent's line stays, no detail file is written, and the app says why."""
    seat = trim_seat(tmp_path)
    async with CuratorApp(seat, state_dir=tmp_path / "state").run_test(size=SIZE) as pilot:
        app = pilot.app
        await settle(app, pilot)
        put_cursor_on(app, "parser's hot path", focus=True)
        await pilot.press("S", "t")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        with open(seat / "MEMORY.md", "a", encoding="utf-8") as index:
            index.write("- the agent's own line, written meanwhile\n")
        theirs = files(seat)
        await pilot.press("y")
        await settle(app, pilot)
        assert files(seat) == theirs
        shown = " ".join(str(w.render()) for w in app.screen.query("#status"))
        notes = " ".join(str(n.message) for n in app._notifications)
        assert "changed on disk" in (shown + notes).lower(), shown + notes
        # The next plan starts from the agent's text: the refusal shows it, or (when the disk watch
        # saw the write first, as on a busy machine) the status offers the reload.
        assert (app.screen.editor.text.endswith("written meanwhile\n")
                and "the editor now shows memory.md as it is" in (shown + notes).lower()) or "reloads it" in shown, shown + notes
