"""Keys that arrive together (one terminal read, or typed ahead while the app is busy) on the index
screen: each goes where it would have gone had the app handled the one before it first.

Textual routes a key to the widget focused when the key is handled, and ``Widget.focus()`` only
queues the move; a key that moves focus between text and the panels must move it at once, and a save
must see the letters typed just before it. On a loaded machine Pilot.press delivers keys this way
now and then; ``press_in_one_read`` does it every time.
"""

from __future__ import annotations

from textual.widgets import Input, TabbedContent

from curator.app import CuratorApp
from curator.screens.dialogs import UnsavedDialog
from curator.screens.merge_preview import MergeDialog
from curator.widgets.archive_panel import ArchiveSearch, ArchiveTable
from curator.widgets.index_editor import IndexEditor
from curator.widgets.panel_table import PanelTable
from tests.support.app import press_in_one_read, settle, write_seat

SIZE = (120, 36)


async def test_f2_then_a_letter_lands_on_the_panels_never_in_the_text(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = app.screen.editor.text
        await press_in_one_read(app, pilot, "f2", "x")
        assert isinstance(app.focused, PanelTable)
        assert app.screen.editor.text == text


async def test_f2_a_panel_number_and_m_open_the_merge_preview(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = app.screen.editor.text
        await press_in_one_read(app, pilot, "f2", "2", "m")
        assert isinstance(app.screen, MergeDialog)
        assert app.screen_stack[0].editor.text == text


async def test_f2_back_to_the_editor_then_a_letter_is_typed_there(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = app.screen.editor.text
        await pilot.press("f2")
        await settle(app, pilot)
        assert isinstance(app.focused, PanelTable)
        await press_in_one_read(app, pilot, "f2", "x")
        assert isinstance(app.focused, IndexEditor)
        assert app.screen.editor.text == "x" + text


async def test_slash_and_a_query_search_the_archive(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "4")  # the Archive panel: / searches the archive
        await settle(app, pilot)
        await press_in_one_read(app, pilot, "slash", "c", "i")
        search = app.screen.query_one(ArchiveSearch)
        assert app.focused is search and search.value == "ci"


async def test_a_panel_number_then_slash_in_one_read_searches_that_panel(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")  # the Entries panel, where / would filter the entries
        await settle(app, pilot)
        await press_in_one_read(app, pilot, "4", "slash", "c", "i")
        search = app.screen.query_one(ArchiveSearch)
        assert app.focused is search and search.value == "ci"
        assert app.screen.query_one("#entries-filter").value == ""


async def test_panel_numbers_in_a_search_box_are_text(tmp_path):
    """The panel numbers run as they arrive (so a / behind one goes to the new panel), but only from a
    table: in the archive search and the entries filter they are digits."""
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        await settle(app, pilot)
        await press_in_one_read(app, pilot, "slash", "2", "4")
        assert app.screen.query_one("#entries-filter").value == "24"
        await press_in_one_read(app, pilot, "escape", "4", "slash", "1", "7")
        assert app.focused is app.screen.query_one(ArchiveSearch) and app.focused.value == "17"
        assert app.screen.query_one(TabbedContent).active == "archive"


async def test_slash_and_words_in_one_read_filter_the_entries(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")  # the Entries panel: / filters it
        await settle(app, pilot)
        await press_in_one_read(app, pilot, "slash", "c", "i", "enter", "space")
        table = app.screen.query_one("#entries-table")
        assert app.screen.query_one("#entries-filter").value == "ci" and app.focused is table
        assert len(table.marked) == 1 and table.row_count < len(table.rows_by_id)


async def test_esc_in_the_archive_search_then_a_panel_number_switches_panel(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "4")
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        search = app.screen.query_one(ArchiveSearch)
        assert app.focused is search
        await press_in_one_read(app, pilot, "escape", "2")
        assert search.value == ""  # 2 was the Merge panel's key on the list, not a letter in the box
        assert app.screen.query_one(TabbedContent).active == "merge"
        assert isinstance(app.focused, PanelTable) and not isinstance(app.focused, ArchiveTable)


async def test_a_letter_then_ctrl_s_saves_the_letter_too(tmp_path):
    """Unsaved edits already there (so Save is offered): ctrl+s writes the letter typed just before it.
    (On a clean editor Save is not offered, and a ctrl+s that comes before the first letter of an
    edit is handled finds nothing to save: that case is left as it is.)"""
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("a")
        await settle(app, pilot)
        assert app.screen.dirty
        await press_in_one_read(app, pilot, "x", "ctrl+s")
        assert not app.screen.dirty
    assert (seat / "MEMORY.md").read_bytes() == b"ax" + before


async def test_keys_bound_in_the_editor_keep_their_place_among_the_letters(tmp_path):
    """down and backspace are the editor's own bindings; Textual runs those only once the key has
    bubbled up to the app, after the letters behind them were typed."""
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        lines = app.screen.editor.text.split("\n")
        await press_in_one_read(app, pilot, "down", "down", "x", "y", "backspace", "z")
        assert app.screen.editor.text.split("\n")[2] == "xz" + lines[2]
        assert app.screen.editor.cursor_location == (2, 2)


async def test_archive_preview_h_then_y_applies_the_plan_h_asked_for(tmp_path):
    """h (remove the emptied heading too) re-plans at once: the y right behind it applies that plan."""
    from curator.screens.archive_preview import ArchiveDialog
    from curator.widgets.entries_table import EntriesTable

    seat = write_seat(tmp_path / "memory", craft=0)  # Craft hooks holds one entry: archiving it empties it
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one(EntriesTable)
        row = next(r for r in table.rows_by_id.values() if "parser's hot path" in r.text)
        table.move_cursor(row=table.get_row_index(row.id))
        app.screen.set_focus(table)
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        await press_in_one_read(app, pilot, "h", "y")
        index = (seat / "MEMORY.md").read_text(encoding="utf-8")
        assert "parser's hot path" not in index and "## Craft hooks" not in index


async def test_a_letter_then_ctrl_r_asks_about_the_unsaved_letter(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press_in_one_read(app, pilot, "x", "ctrl+r")
        assert isinstance(app.screen, UnsavedDialog)
        assert app.screen_stack[0].editor.text.encode() == b"x" + before
        await pilot.press("escape")  # cancel: the edit stays
        await settle(app, pilot)
        assert app.screen.editor.text.encode() == b"x" + before and app.screen.dirty
    assert (seat / "MEMORY.md").read_bytes() == before


async def test_e_and_a_new_line_are_typed_into_the_merge_preview_line(tmp_path):
    """The line has n (Cancel) and e in it: had they reached the dialog's buttons, n would cancel."""
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await press_in_one_read(app, pilot, "f2", "2", "m")
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        line = "Full suite before each push: [ci notes](ci.md), [ci](ci-details.md)"
        await press_in_one_read(app, pilot, "e", "ctrl+u", *line)
        assert app.screen is dialog
        field = dialog.query_one("#merge-text", Input)
        assert app.focused is field and field.value == line


async def test_esc_closing_the_unsaved_question_then_esc_leaves_the_editor(tmp_path):
    """The question's esc is answered as it arrives: the second esc is the editor's (to the panels)."""
    from curator.screens.index import IndexScreen

    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x", "ctrl+r")
        await settle(app, pilot)
        assert isinstance(app.screen, UnsavedDialog)
        await press_in_one_read(app, pilot, "escape", "escape")
        assert isinstance(app.screen, IndexScreen) and app.screen.dirty
        assert isinstance(app.focused, PanelTable)


async def test_a_dialog_takes_no_answer_before_it_is_mounted(tmp_path):
    """A key typed in the same read as the one that opened a dialog can be checked before the dialog
    has had a turn to mount: it is no answer (it dismissed the dialog unseen, and its on_mount then
    failed on widgets that were never composed)."""
    from curator.screens.dialogs import ConfirmDialog

    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for dialog, answer in ((ConfirmDialog("Archive: preview", "the diff"), "answer(True)"),
                               (UnsavedDialog("MEMORY.md", "quit the app"), "choose('discard')")):
            answers = []
            app.push_screen(dialog, answers.append)
            assert not await app.run_action(answer, dialog)  # before the dialog's first turn
            await settle(app, pilot)
            assert app.screen is dialog and answers == []
            assert await app.run_action(answer, dialog)  # on screen: now it answers
            await settle(app, pilot)
            assert app.screen is not dialog and answers == [True if answer.startswith("answer") else "discard"]
