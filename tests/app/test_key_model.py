"""The key and focus model on the index screen: every footer key does what it says in the focus it is
shown in and never types into the memory; leaving with unsaved edits asks; MEMORY.md may vanish or
change under the app; panels lead to the line; previews and help fit."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette
from textual.widgets import Button, TabbedContent
from textual.widgets._footer import FooterKey

from curator.app import CuratorApp
from curator.screens.dialogs import ConfirmDialog, LinePrompt, TextDialog, UnsavedDialog
from curator.screens.fit_preview import FitDialog
from curator.screens.fleet import FleetScreen
from curator.screens.help import HelpScreen
from curator.screens.index import IndexScreen
from curator.screens.merge_preview import MergeDialog
from curator.screens.preview import PreviewScreen
from curator.widgets.archive_panel import ArchiveSearch
from curator.widgets.entries_table import EntriesTable
from curator.widgets.index_editor import IndexEditor
from curator.widgets.panel_table import PanelTable
from tests.support.app import settle, write_seat, SIZE, fleet_seat, footer_keys, highlight_entry, inside, notes


async def back_to_index(app, pilot) -> IndexScreen:
    while not isinstance(app.screen, IndexScreen):
        app.pop_screen()
        await pilot.pause()
    return app.screen


async def check_footer_key(app, pilot, key: FooterKey, focus: str) -> str:
    """Press ``key`` and check it did what its action says; return the action checked."""
    screen: IndexScreen = app.screen
    before_text = screen.editor.text
    app.clear_notifications()
    await pilot.press(key.key)
    await settle(app, pilot)
    action = key.action
    if action == "switch_pane":  # the editor ⇄ the panels
        assert isinstance(app.focused, PanelTable if focus == "the editor" else IndexEditor)
    elif action == "reprovision_preview":
        assert isinstance(app.screen, PreviewScreen) and app.screen.resident_ids == [screen.resident_id]
    elif action == "help":
        assert isinstance(app.screen, HelpScreen)
    elif action == "command_palette":
        assert isinstance(app.screen, CommandPalette)
    elif action in ("screen.find", "screen.goto_line"):
        assert isinstance(app.screen, LinePrompt)
    elif action == "reload":
        assert "Reloaded from disk" in str(screen.query_one("#status").render())
    elif action == "screen.search_archive":
        assert isinstance(app.focused, ArchiveSearch)
    elif action == "screen.goto_row":
        assert isinstance(app.focused, IndexEditor) or "not a line of MEMORY.md" in notes(app)
    elif action in ("toggle_mark", "mark_section", "toggle_range"):
        assert screen.query_one(EntriesTable).marked, f"{key.key} in {focus}"
        screen.query_one(EntriesTable).action_clear_selection()
    elif action == "clear_selection":
        assert not screen.query_one(EntriesTable).marked
    elif action == "filter":
        assert app.focused.id == "entries-filter"
    elif action == "screen.history_jump":
        assert "already stand here" in str(screen.query_one("#status").render())
    elif action == "cycle_sort":
        assert screen.query_one(EntriesTable).sort_by == "bytes"
        screen.query_one(EntriesTable).sort_by = "line"
    elif action == "screen.merge":
        assert isinstance(app.screen, MergeDialog) or "Mark two or more" in notes(app)
    elif action == "screen.archive":  # the preview, or (on an identity line) why it is never archived
        assert isinstance(app.screen, ConfirmDialog) or "never archived" in notes(app)
    elif action == "screen.fold":
        assert isinstance(app.screen, ConfirmDialog) or "Select two or more" in notes(app)
    elif action == "screen.trim":
        assert isinstance(app.screen, ConfirmDialog) or "Pick a suggestion" in notes(app)
    elif action == "screen.trim_selection":  # the preview, or why no selected entry has a safe trim
        assert isinstance(app.screen, (ConfirmDialog, TextDialog))
    elif action == "screen.restore":
        assert "Pick an archived entry" in notes(app)
    elif action == "fit":
        assert isinstance(app.screen, FitDialog) or "Nothing to fit" in notes(app)
    elif action == "screen.back":
        assert isinstance(app.screen, FleetScreen)
        app.open_seat(screen.memory_dir, resident_id=screen.resident_id, profile=screen.profile)
        await settle(app, pilot)
        return action
    elif action == "quit":
        return action  # checked on its own (it ends the app)
    else:
        raise AssertionError(f"no expectation for footer key {key.key} ({action}) in {focus}")
    index = await back_to_index(app, pilot)
    assert index.editor.text == before_text, f"{key.key} in {focus} changed the memory text"
    return action


async def test_every_footer_key_works_with_the_editor_focused_and_types_nothing(tmp_path):
    manifest, memory = fleet_seat(tmp_path)
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=(200, 40)) as pilot:  # wide: every key the footer has is on screen
        await settle(app, pilot)
        assert isinstance(app.focused, EntriesTable)  # opened over the fleet: the panels, never the editor
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.focused, IndexEditor)
        checked = []
        for key in await footer_keys(app, pilot):
            if key.action != "quit":
                app.screen.editor.focus()
                await pilot.pause()
                checked.append(await check_footer_key(app, pilot, key, "the editor"))
        assert {"reprovision_preview", "help", "switch_pane", "screen.find"} <= set(checked)


PANELS = ("entries", "merge", "trim", "archive", "pointers", "load", "history")
# What the panels' footers offer between them: each must be among the keys checked.
EVERY_PANEL_KEYS = {"toggle_mark", "mark_section", "toggle_range", "filter", "screen.history_jump", "screen.merge",
                    "screen.archive", "screen.trim", "screen.back", "screen.goto_row", "switch_pane",
                    "reprovision_preview"}
# The keys each panel's footer must offer (and that must work there): together, EVERY_PANEL_KEYS.
ON_EVERY_PANEL = {"screen.back", "switch_pane", "reprovision_preview", "help"}
PANEL_KEYS: dict[str, set[str]] = {
    "entries": {"toggle_mark", "mark_section", "toggle_range", "filter", "screen.merge", "screen.archive",
                "screen.goto_row"},
    "merge": {"screen.merge", "screen.goto_row"},
    "trim": {"screen.trim", "screen.goto_row"},
    "archive": set(), "pointers": set(), "load": set(),
    "history": {"screen.history_jump"},
}


@pytest.mark.slow
@pytest.mark.parametrize("tab", PANELS)  # one panel per test: the two test workers share them
async def test_every_footer_key_works_in_every_panel(tmp_path, tab):
    manifest, memory = fleet_seat(tmp_path)
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        checked = set()
        screen = await back_to_index(app, pilot)
        screen.action_tab(tab)
        await pilot.pause()
        keys = await footer_keys(app, pilot)
        assert keys
        for key in keys:
            if key.action == "quit":
                continue
            screen = await back_to_index(app, pilot)
            screen.action_tab(tab)
            await pilot.pause()
            checked.add(await check_footer_key(app, pilot, key, f"the {tab} panel"))
        assert checked >= PANEL_KEYS[tab] | ON_EVERY_PANEL


def test_the_panels_footers_offer_every_key_between_them() -> None:
    assert set(PANEL_KEYS) == set(PANELS)
    assert set().union(ON_EVERY_PANEL, *PANEL_KEYS.values()) >= EVERY_PANEL_KEYS


async def test_letters_typed_in_the_editor_are_text_never_commands(tmp_path):
    manifest, memory = fleet_seat(tmp_path)
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = app.screen.editor.text
        await pilot.press("f2")  # opened over the fleet: focus starts in the panels
        await pilot.press(*"pmatrf/?123456 sqz")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen)
        assert app.screen.editor.text == "pmatrf/?123456 sqz" + text


async def test_archive_search_takes_letters_and_esc_returns_to_the_list(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "4")
        await settle(app, pilot)  # the Archive panel in front before its / is pressed
        await pilot.press("slash", *"rest", "f8")
        await settle(app, pilot)
        assert app.screen.query_one(ArchiveSearch).value == "rest"
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused.id == "archive-table"


async def test_ctrl_q_with_an_unsaved_edit_asks_and_cancel_keeps_the_text(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        title = str(app.screen.query_one("#seat-title").render())
        assert title.startswith("● unsaved")  # first, so a long path never cuts it off
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, IndexScreen) and app.screen.editor.text.startswith("x")
        assert app.is_running
        await pilot.press("ctrl+q")
        await settle(app, pilot)  # the question is on screen before it is answered
        await pilot.press("d")  # discard: quits, the file as it was
        await pilot.pause()
    assert (seat / "MEMORY.md").read_bytes() == before


async def test_ctrl_q_then_save_writes_and_quits(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x", "ctrl+q")
        await pilot.pause()
        await pilot.click("#save")
        await pilot.pause()
    assert (seat / "MEMORY.md").read_bytes() == b"x" + before


async def test_back_to_the_fleet_and_reload_ask_about_unsaved_edits(tmp_path):
    manifest, memory = fleet_seat(tmp_path)
    before = (memory / "MEMORY.md").read_bytes()
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "x", "ctrl+r")
        await settle(app, pilot)
        assert isinstance(app.screen, UnsavedDialog)
        await pilot.press("escape", "escape", "escape")  # cancel; editor → panels; panels → back?
        await settle(app, pilot)
        assert isinstance(app.screen, UnsavedDialog)  # leaving for the fleet asks too
        await pilot.press("d")
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
    assert (memory / "MEMORY.md").read_bytes() == before


async def test_memory_md_vanishing_never_crashes_and_a_save_recreates_it(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        text = app.screen.editor.text
        (seat / "MEMORY.md").rename(tmp_path / "stashed.md")  # a git stash, a checkout
        app.screen.watch_disk()
        await settle(app, pilot)
        assert "is gone from disk" in str(app.screen.query_one("#status").render())
        assert "is gone from disk" in notes(app)
        await pilot.press("ctrl+r")
        await settle(app, pilot)  # the question is on screen before it is answered
        await pilot.press("d")  # reload, discarding: nothing to read, the editor keeps a text
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen) and app.is_running
        assert "no such file" in str(app.screen.query_one("#status").render())
        app.screen.editor.load_text(text)  # the bearer's text again (typed back)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert (seat / "MEMORY.md").read_text() == text
        from tests.support.app import put_cursor_on

        put_cursor_on(app, "Never force-push", focus=False)  # not an identity line: those are never archived
        await pilot.press("f2", "a")  # a lever on the recreated file works
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)


async def test_unreadable_memory_md_is_said_and_the_editor_keeps_its_text(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = app.screen.editor.text
        index = seat / "MEMORY.md"
        index.unlink()
        index.mkdir()  # not a file any more
        app.screen.watch_disk()
        await pilot.pause()
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert app.is_running and app.screen.editor.text == text
        assert "MEMORY.md" in str(app.screen.query_one("#status").render())


async def test_watcher_notices_an_edit_on_disk_and_offers_the_reload(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.watch_disk()
        await pilot.pause()
        assert "changed on disk" not in notes(app)  # nothing changed yet: no false alarm
        (seat / "MEMORY.md").write_text("# edited by the agent\n", encoding="utf-8")
        app.screen.watch_disk()
        await pilot.pause()
        assert "changed on disk" in notes(app) and "reloads it" in notes(app)
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert app.screen.editor.text == "# edited by the agent\n"


async def test_a_save_does_not_trigger_the_watcher(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x", "ctrl+s")
        await settle(app, pilot)
        app.clear_notifications()
        app.screen.watch_disk()
        await pilot.pause()
        assert "changed on disk" not in notes(app)


async def test_editor_undo_cannot_bring_back_what_a_lever_moved(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        highlight_entry(app, "Never force-push")
        before_lever = app.screen.editor.text
        await pilot.press("a")
        await settle(app, pilot)  # the preview is on screen before it is answered
        await pilot.press("y")
        await settle(app, pilot)
        after_lever = app.screen.editor.text
        assert "Never force-push" not in after_lever
        # The cursor at the first line the lever changed (the line leading to ARCHIVE.md, added above it).
        first = next(i for i, (a, b) in enumerate(zip(before_lever.splitlines(), after_lever.splitlines())) if a != b)
        assert app.screen.editor.selection.end[0] == first
        await pilot.press("f2", "ctrl+z", "ctrl+z")  # the editor's own undo: its history restarted
        await settle(app, pilot)
        assert app.screen.editor.text == after_lever and not app.screen.dirty
        await pilot.press("f8")  # the journal's undo brings it back, in both files
        await settle(app, pilot)
        assert "Never force-push" in app.screen.editor.text
    assert not (seat / "ARCHIVE.md").exists()


async def test_saving_an_entry_that_is_also_archived_warns(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        entry = highlight_entry(app, "Never force-push")
        await pilot.press("a")
        await settle(app, pilot)  # the preview is on screen before it is answered
        await pilot.press("y")
        await settle(app, pilot)
        app.clear_notifications()
        editor = app.screen.editor
        editor.insert(entry.text + "\n", (entry.line - 1, 0))  # typed (pasted) back by hand
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert "also in ARCHIVE.md" in notes(app)


async def test_enter_on_a_pointer_problem_selects_the_link_in_the_editor(tmp_path):
    seat = write_seat(tmp_path / "memory")
    index = seat / "MEMORY.md"
    index.write_text(index.read_text() + "- see [gone](missing.md) for more\n", encoding="utf-8")
    line = index.read_text().count("\n")  # the last line
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "5")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        editor = app.screen.editor
        assert app.focused is editor
        assert editor.selection.start[0] == line - 1 and editor.selected_text == "missing.md"


async def test_enter_on_an_entry_goes_to_its_line_with_the_link_selected(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        row = highlight_entry(app, "Never force-push")
        await pilot.press("enter")
        await settle(app, pilot)
        editor = app.screen.editor
        assert editor.selection.start[0] == row.line - 1 and editor.selected_text == "git.md"


async def test_find_and_go_to_line(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = app.screen.editor.text
        await pilot.press("ctrl+g", "1", "2", "enter")
        await settle(app, pilot)
        assert app.screen.editor.selection.start == (11, 0)
        await pilot.press("ctrl+f", *"full test suite", "enter")
        await settle(app, pilot)
        first = app.screen.editor.selection
        assert app.screen.editor.selected_text == "full test suite"
        await pilot.press("f3")
        await settle(app, pilot)
        assert app.screen.editor.selection.start[0] > first.start[0]
        assert app.screen.editor.text == text


async def test_clicks_on_tabs_rows_and_buttons(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.click("#--content-tab-merge")
        await settle(app, pilot)
        assert app.screen.query_one(TabbedContent).active == "merge"
        await pilot.click("#--content-tab-entries")
        await settle(app, pilot)
        table = app.screen.query_one(EntriesTable)
        await pilot.click(table, offset=(10, 3))  # the third entry row (header, then rows)
        await settle(app, pilot)
        assert table.cursor_row == 2
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.click("#no")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen)
        assert (seat / "MEMORY.md").read_bytes() == before
        await pilot.press("a")
        await settle(app, pilot)
        await pilot.click("#yes")
        await settle(app, pilot)
    assert (seat / "MEMORY.md").read_bytes() != before and (seat / "ARCHIVE.md").exists()


async def test_merge_preview_at_80x24_shows_apply_cancel_and_scrolls_the_whole_diff(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "2", "m")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        assert inside(dialog.query_one("#yes", Button), (80, 24)) and inside(dialog.query_one("#no", Button), (80, 24))
        scroll = dialog.query_one("#confirm-scroll")
        assert scroll.max_scroll_y > 0  # at 80x24 the diff is longer than the view
        await pilot.press("pagedown", "pagedown", "pagedown")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y  # the whole diff is reachable by keyboard
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_keys = help_text(app.screen)
        assert "Edit the merged line" in help_keys and "Apply" in help_keys and "Scroll down" in help_keys


def help_text(help_screen) -> str:
    """The help screen's rows, one "keys description" line each."""
    return "\n".join(" ".join(str(cell.render()) for cell in row.query("Static"))
                     for row in help_screen.query("#help-keys .help-row"))


async def test_help_close_button_is_in_view_at_120x36_and_lists_hidden_keys(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert inside(app.screen.query_one("#close", Button), SIZE)
        rows = help_text(app.screen)
        for words in ("space Mark / unmark the entry and move down", "S Mark / unmark the whole section",
                      "v Start / end a range", "/ Filter the entries", "s Sort", "Undo change", "Re-provision preview", "Find next"):
            assert words in rows


async def test_a_keys_file_rebinds_an_action_everywhere_it_is_shown(tmp_path):
    keys = tmp_path / "keys.toml"
    keys.write_text('[keys]\n"index.undo_change" = "f7"\n', encoding="utf-8")
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat, keymap_file=keys)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x", "ctrl+s")
        await settle(app, pilot)
        assert "f7 undoes the save" in str(app.screen.query_one("#status").render())
        assert any(k.key == "f7" and k.description.startswith("Undo: edit MEMORY.md")
                   for k in await footer_keys(app, pilot))
        await pilot.press("f7")
        await settle(app, pilot)
    assert (seat / "MEMORY.md").read_bytes() == before


async def test_the_unsaved_mark_follows_typing_undo_and_save_keeps_the_cursor(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        title = app.screen.query_one("#seat-title")
        await pilot.press("down", "down", "x")
        await settle(app, pilot)
        assert str(title.render()).startswith("● unsaved")
        await pilot.press("ctrl+z")  # the editor's own undo: no edit() call, still measured
        await settle(app, pilot)
        assert not str(title.render()).startswith("● unsaved") and not app.screen.dirty
        await pilot.press("y", "ctrl+s")
        await settle(app, pilot)
        assert not app.screen.dirty and app.screen.editor.cursor_location == (2, 1)  # where the bearer typed
