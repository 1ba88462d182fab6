"""Keys as a QA pass in tmux met them: Esc + a letter in one read, go to line, the footer's Enter and
/ keys, `tui DIR`'s missing fleet, and the quit a conflict must not drop."""

from __future__ import annotations

from textual._xterm_parser import XTermParser
from textual.widgets import Input

from curator.app import CuratorApp
from curator.screens.dialogs import ConfirmDialog
from curator.screens.fleet import FleetScreen
from curator.screens.preview import PreviewScreen
from curator.widgets.panel_table import PanelTable
from tests.support.app import put_cursor_on, settle, write_example_fleet, write_seat, SIZE, footer_keys, notes


async def terminal_bytes(app, pilot, data: str) -> None:
    """Send ``data`` as a terminal writes it in one read: Textual's own parser turns it into key
    events (ESC + "a" is ``alt+a`` with "a" as its character, as tmux delivers Esc then a)."""
    parser = XTermParser()
    events = list(parser.feed(data)) + list(parser.feed(""))
    for event in events:
        event.set_sender(app)
        app._driver.send_message(event)
        await pilot.pause()
    await settle(app, pilot)


# == 1. Esc + a letter in one read is Esc, then the key; never typed ===============================
async def test_esc_then_a_in_one_read_never_types_into_the_editor(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = app.screen.editor
        text = editor.text
        assert app.focused is editor
        put_cursor_on(app, "Never force-push", focus=False)  # not an identity line: those are never archived
        await terminal_bytes(app, pilot, "\x1ba")
        assert editor.text == text
        # Esc left the editor for the panels, then `a` archived the highlighted entry (its preview).
        assert isinstance(app.screen, ConfirmDialog)


async def test_alt_letters_are_never_typed_into_any_text_field(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "slash", "c", "i")  # the Entries panel's filter box
        await settle(app, pilot)
        entries_filter = app.screen.query_one("#entries-filter", Input)
        assert app.focused is entries_filter
        await terminal_bytes(app, pilot, "\x1bz")
        assert entries_filter.value == "ci"
        await pilot.press("4")
        await settle(app, pilot)  # the Archive panel in front before its / is pressed
        await pilot.press("slash", "c", "i")  # the Archive panel's search box
        await settle(app, pilot)
        search = app.screen.query_one("#archive-search", Input)
        assert app.focused is search
        await terminal_bytes(app, pilot, "\x1bz")
        assert search.value == "ci"
        await pilot.press("f2")  # back to the editor: the go-to box and find box are text too
        await pilot.press("ctrl+g")
        await pilot.pause()
        field = app.screen.query_one("#prompt-input", Input)
        await terminal_bytes(app, pilot, "\x1bq")
        assert field.value == ""


async def test_esc_then_a_digit_in_one_read_is_esc_then_the_panel_key_never_a_symbol(tmp_path):
    """Textual reads ESC + a digit as the symbol macOS's Option+digit types ("\x1b2" is "™"); tmux
    sends Esc then 2 typed quickly as just that."""
    from textual.widgets import TabbedContent

    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "4")
        await settle(app, pilot)
        await pilot.press("slash", "c", "i")
        await settle(app, pilot)
        search = app.screen.query_one("#archive-search", Input)
        assert app.focused is search
        await terminal_bytes(app, pilot, "\x1b2")
        assert search.value == "ci"  # not "ci™"
        assert app.screen.query_one(TabbedContent).active == "merge" and isinstance(app.focused, PanelTable)
        await pilot.press("f2")  # in the editor: Esc leaves it, the digit goes to the panels, never typed
        await settle(app, pilot)
        text = app.screen.editor.text
        await terminal_bytes(app, pilot, "\x1b1")
        assert app.screen.editor.text == text
        assert app.screen.query_one(TabbedContent).active == "entries"


async def test_esc_then_p_in_the_fleet_filter_opens_the_preview_and_types_nothing(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", "k")
        await settle(app, pilot)
        field = app.screen.query_one("#fleet-filter", Input)
        assert app.focused is field
        await terminal_bytes(app, pilot, "\x1bp")
        assert field.value == "k"
        assert isinstance(app.screen, PreviewScreen)


# == 2. go to line selects nothing; a link selection does not outlive focus ======================
async def test_go_to_line_puts_the_cursor_at_the_start_and_the_next_key_replaces_nothing(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = app.screen.editor
        line_12 = editor.text.split("\n")[11]
        await pilot.press("ctrl+g", "1", "2", "enter")
        await pilot.pause()
        assert editor.selection.is_empty and editor.selection.start == (11, 0)
        await pilot.press("x")
        assert editor.text.split("\n")[11] == "x" + line_12


async def test_a_link_selected_from_a_panel_is_collapsed_when_the_editor_loses_focus(tmp_path):
    from tests.support.app import highlight_entry
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        row = highlight_entry(app, "Never force-push")
        await pilot.press("enter")
        await settle(app, pilot)
        editor = app.screen.editor
        assert editor.selected_text == "git.md"  # by design: the link, to look at or retype
        await pilot.press("f2")  # to the panels and back, then type
        await settle(app, pilot)
        assert editor.selection.is_empty
        await pilot.press("f2")
        await settle(app, pilot)
        assert app.focused is editor
        await pilot.press("x")
        await settle(app, pilot)
        assert "git.md" in editor.text.split("\n")[row.line - 1]


# == 3. Enter is in the footer only where it goes to a line =====================================
async def test_footer_offers_enter_only_on_panels_whose_rows_are_lines(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=(200, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        shown = {}
        for tab in "123456":
            await pilot.press(tab)
            await settle(app, pilot)
            shown[tab] = "enter" in {k.key for k in await footer_keys(app, pilot)}
        # Pointers: the fixture has no pointer problem, so no row leads anywhere.
        assert shown == {"1": True, "2": True, "3": True, "4": False, "5": False, "6": False}


# == 4. in the fleet filter / is text ============================================================
async def test_slash_types_into_the_fleet_filter_and_the_footer_leaves_it_out_there(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(200, 36)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
        assert "slash" in {k.key for k in await footer_keys(app, pilot)}  # on the grid: / filters
        await pilot.press("slash", "k", "slash", "x")
        await settle(app, pilot)
        field = app.screen.query_one("#fleet-filter", Input)
        assert app.focused is field and field.value == "k/x"
        assert "slash" not in {k.key for k in await footer_keys(app, pilot)}


# == 5. tui DIR: esc and f in a panel say there is no fleet ======================================
async def test_esc_and_f_in_a_panel_of_tui_dir_say_there_is_no_fleet_panel(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        await pilot.pause()
        for key in ("escape", "f"):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            assert "No fleet panel in this session: q quits" in notes(app), key
            assert isinstance(app.focused, PanelTable) and app.return_code is None


async def test_esc_in_a_panel_over_the_fleet_still_goes_back(tmp_path):
    from tests.support.app import fleet_seat
    manifest, memory_dir = fleet_seat(tmp_path)
    app = CuratorApp(memory_dir, fleet_path=manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("escape")  # opened over the fleet: focus starts in the panels
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
        assert "No fleet panel" not in notes(app)


# == 6. the quit a conflict interrupted goes ahead after keep mine ================================
async def quit_into_a_conflict(app, pilot, index) -> str:
    """A dirty edit, MEMORY.md changed from outside, then q and Save: the conflict dialog is up.
    Returns the editor's text (what keep mine must write)."""
    from curator.screens.dialogs import ConflictDialog, UnsavedDialog

    await settle(app, pilot)
    await pilot.press("x")  # a dirty edit in the editor
    mine = app.screen.editor.text
    index.write_text(index.read_text() + "- written from outside the app\n", encoding="utf-8")
    await pilot.press("f2", "q")
    await settle(app, pilot)
    assert isinstance(app.screen, UnsavedDialog)
    await pilot.press("s")
    await settle(app, pilot)
    assert isinstance(app.screen, ConflictDialog) and app.return_code is None
    return mine


async def test_quit_then_save_through_a_conflict_then_keep_mine_saves_and_quits(tmp_path):
    seat = write_seat(tmp_path / "memory")
    index = seat / "MEMORY.md"
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        mine = await quit_into_a_conflict(app, pilot, index)
        await pilot.press("k")
        await pilot.pause()
        assert app.return_code == 0
    assert index.read_text(encoding="utf-8") == mine


async def test_quit_then_save_through_a_conflict_then_cancel_stays_with_the_text(tmp_path):
    from curator.screens.index import IndexScreen

    seat = write_seat(tmp_path / "memory")
    index = seat / "MEMORY.md"
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        mine = await quit_into_a_conflict(app, pilot, index)
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen) and app.return_code is None
        assert app.screen.editor.text == mine
