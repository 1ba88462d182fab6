"""``q`` means one thing everywhere: close the dialog or screen on top and go back; on the first screen
quit, through the unsaved-edits question. Never while a text field has focus: there it is a letter."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Input

from curator.app import CuratorApp
from curator.screens.dialogs import ConfirmDialog, ConflictDialog, DiffDialog, LinePrompt, UnsavedDialog
from curator.screens.fleet import FleetScreen
from curator.screens.help import HelpScreen
from curator.screens.index import IndexScreen
from curator.screens.merge_preview import MergeDialog
from curator.screens.preview import PreviewScreen
from curator.widgets.index_editor import IndexEditor
from curator.widgets.merge_panel import MergeTable
from curator.widgets.panel_table import PanelTable
from tests.support.app import key_event, make_divergent, settle, write_example_fleet, write_seat, fleet_seat, footer_keys, highlight_entry, notes
SIZE = (120, 36)


async def shown(app, pilot) -> dict[str, str]:
    """The footer as {key shown: label}."""
    return {k.key_display: k.description for k in await footer_keys(app, pilot)}


async def test_q_in_the_editor_is_text_and_nothing_closes(tmp_path):
    manifest, memory = fleet_seat(tmp_path)
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = app.screen.editor.text
        assert isinstance(app.focused, PanelTable)  # opened over the fleet: the panels first
        await pilot.press("f2")
        assert isinstance(app.focused, IndexEditor)
        assert "q" not in await shown(app, pilot)  # the footer offers no letter while text has focus
        await pilot.press("q", "q")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen) and app.return_code is None
        assert app.screen.editor.text == "qq" + text


async def test_q_on_the_panels_goes_back_to_the_fleet_and_on_the_fleet_quits(tmp_path):
    manifest, memory = fleet_seat(tmp_path)
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=(200, 40)) as pilot:  # wide: the footer has room for the back key
        await settle(app, pilot)
        assert isinstance(app.focused, PanelTable)  # opened over the fleet: the panels first
        assert (await shown(app, pilot)).get("esc/q") == "Back to fleet"
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
        assert (await shown(app, pilot)).get("q") == "Quit"
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0


async def test_q_pressed_before_the_panels_exist_still_goes_back_to_the_fleet(tmp_path, monkeypatch):
    """Opened from the fleet, the seat focuses its panels once they have mounted; a q that arrives
    before that (typed ahead on a busy machine, as the fleet's footer taught) reaches a screen with
    nothing focused: it goes back. The panels' turn is kept from coming here, as a loaded machine
    delays it; when it comes after the seat was left, it mounts nothing and raises nothing."""
    manifest, memory = fleet_seat(tmp_path)
    before = (memory / "MEMORY.md").read_bytes()
    mount_panels = IndexScreen.mount_panels
    left: list[IndexScreen] = []

    async def not_yet(screen: IndexScreen) -> None:
        left.append(screen)

    monkeypatch.setattr(IndexScreen, "mount_panels", not_yet)
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause()  # not settle(): it waits for the panels, which are not coming
        assert isinstance(app.screen, IndexScreen) and not app.screen.panels_ready and app.focused is None
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
        await mount_panels(left[0])  # the delayed turn, on the seat already left
        assert not left[0].panels_ready
    assert (memory / "MEMORY.md").read_bytes() == before


async def test_q_back_to_the_fleet_with_unsaved_edits_asks_and_q_there_cancels(tmp_path):
    manifest, memory = fleet_seat(tmp_path)
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "x", "f2", "q")
        await settle(app, pilot)
        assert isinstance(app.screen, UnsavedDialog)
        await pilot.press("q")  # the dialog's q is its Cancel: back to the seat, the edit kept
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen) and app.screen.editor.text.startswith("x")


async def test_q_on_the_first_index_screen_quits_through_the_unsaved_question(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x", "f2")
        keys = await shown(app, pilot)
        assert keys.get("q") == "Quit" and "^q" not in keys  # one Quit, the key that works here
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, UnsavedDialog) and app.return_code is None
        await pilot.press("d")
        await pilot.pause()
        assert app.return_code == 0
    assert (seat / "MEMORY.md").read_bytes() == before


async def test_q_closes_each_dialog_over_the_index_screen_and_writes_nothing(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        highlight_entry(app, "Never force-push")
        await pilot.press("a")  # the archive preview
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen)
        await pilot.press("f1")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen) and app.return_code is None
    assert (seat / "MEMORY.md").read_bytes() == before
    assert not (seat / "ARCHIVE.md").exists()


async def test_q_in_the_merged_line_is_text_and_on_the_buttons_cancels(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.action_tab("merge")
        await pilot.pause()
        assert app.screen.query_one(MergeTable).candidates
        await pilot.press("m")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, MergeDialog)
        await pilot.press("e")
        field = dialog.query_one("#merge-text", Input)
        assert app.focused is field
        keys = await shown(app, pilot)
        assert not {"y", "n", "q", "e"} & set(keys) and keys.get("esc") == "Cancel"  # letters are text here
        await pilot.press("q")
        await settle(app, pilot)
        assert app.screen is dialog and field.value.endswith("q")
        await pilot.press("enter")  # done with the line: focus on Apply
        await settle(app, pilot)
        assert (await shown(app, pilot)).get("n/esc") == "Cancel"  # out of the field: the letters are keys again
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen)
    assert (seat / "MEMORY.md").read_bytes() == before


async def test_q_is_text_in_the_go_to_line_box_and_the_palette(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        text = app.screen.editor.text
        await pilot.press("ctrl+g", "q")
        await pilot.pause()
        assert isinstance(app.screen, LinePrompt) and app.screen.query_one(Input).value == "q"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p", "q")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, IndexScreen) and app.screen.editor.text == text


async def test_q_closes_the_conflict_dialog_and_its_diff_keeping_the_text(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x")
        (seat / "MEMORY.md").write_text("# changed by someone else\n", encoding="utf-8")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ConflictDialog)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DiffDialog)
        await pilot.press("q")  # the diff closes, back to the question
        await pilot.pause()
        assert isinstance(app.screen, ConflictDialog)
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen) and app.screen.editor.text.startswith("x")
    assert (seat / "MEMORY.md").read_text(encoding="utf-8") == "# changed by someone else\n"


async def test_q_closes_the_preview_and_is_text_in_the_fleet_filter(tmp_path):
    manifest, memory = fleet_seat(tmp_path)
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
        await pilot.press("f4")
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen)
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
        await pilot.press("slash", "q")
        await pilot.pause()
        assert app.screen.query_one("#fleet-filter", Input).value == "q"
        assert "q" not in await shown(app, pilot)
        assert isinstance(app.screen, FleetScreen) and app.return_code is None


async def test_q_closes_every_dialog_opened_from_the_editor_and_the_editor_gets_its_focus_back(tmp_path):
    """Dialogs opened while the editor has focus (F1 help, F6 fit, F4 preview, the archive preview from
    the palette): q closes each, nothing is typed or written, the editor has the focus again."""
    from curator.screens.archive_preview import ArchiveDialog
    from curator.screens.fit_preview import FitDialog
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    manifest = write_example_fleet(tmp_path / "fleet")
    memory = plan_fleet(load_manifest(manifest))[1].memory_dir
    write_seat(memory, craft=160)  # over the target: F6 has a fit to preview
    before = (memory / "MEMORY.md").read_bytes()
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        index = app.screen
        text = index.editor.text
        await pilot.press("f2")  # opened over the fleet: the panels first
        for keys, dialog_type in ((("f1",), HelpScreen), (("f6",), FitDialog), (("f4",), PreviewScreen)):
            assert isinstance(app.focused, IndexEditor)
            await pilot.press(*keys)
            await settle(app, pilot)
            assert isinstance(app.screen, dialog_type), keys
            await pilot.press("q")
            await settle(app, pilot)
            assert app.screen is index and isinstance(app.focused, IndexEditor), f"q after {keys}"
        for entry in ("Never force-push", "Run the full", "Always run", "Keep `[brackets]`"):
            highlight_entry(app, entry)  # mark the four Hard rules: archiving them empties the section
            await pilot.press("space")
            await settle(app, pilot)  # marked before the cursor moves on (the mark is the cursor's row)
        index.editor.focus()
        await pilot.press("ctrl+p")
        await settle(app, pilot)  # the palette (Textual's) takes keys once its search box has focus
        await pilot.press(*"archive the selection")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        await pilot.press("q")
        await settle(app, pilot)
        assert app.screen is index and index.editor.text == text
    assert (memory / "MEMORY.md").read_bytes() == before


async def test_q_closes_the_fleet_panels_dialogs(tmp_path):
    """The fleet panel's own dialogs: the set-aside question and a diff; q closes each, nothing renamed."""
    from curator.widgets.fleet_grid import FleetGrid

    manifest = write_example_fleet(tmp_path / "fleet")
    divergent = make_divergent(manifest)
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        grid = fleet.query_one(FleetGrid)
        grid.move_cursor(row=[p.agent_id for p in grid.plans].index("@neo-opencode-juno"))
        for key, dialog_type in (("x", ConfirmDialog), ("d", DiffDialog)):
            await pilot.press(key)
            await settle(app, pilot)
            assert isinstance(app.screen, dialog_type), key
            await pilot.press("q")
            await settle(app, pilot)
            assert app.screen is fleet and app.return_code is None
    assert divergent.exists()  # not set aside


async def test_leaving_a_seat_that_never_opened_with_save_keeps_the_text_and_says_so(tmp_path):
    """The state dir cannot be made (a file stands in its way): the seat never opens. Typing, then q and
    "save" must not crash: nothing is written, the text stays in the editor and the app stays."""
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    (tmp_path / "blocker").write_text("a file, not a dir\n")
    app = CuratorApp(seat, state_dir=tmp_path / "blocker" / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("x", "f2", "q")
        await settle(app, pilot)
        assert isinstance(app.screen, UnsavedDialog)
        await pilot.press("s")
        await settle(app, pilot)
        assert app.return_code is None and isinstance(app.screen, IndexScreen)
        assert "x" in app.screen.query_one(IndexEditor).text
        assert "nothing was written" in notes(app)
    assert (seat / "MEMORY.md").read_bytes() == before


async def test_quitting_before_the_panels_mount_ends_cleanly(tmp_path):
    """ctrl+q in the first frame (the panels mount after it): the app ends without an error, the file
    as it was."""
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(key_event("ctrl+q"))
        await pilot._wait_for_screen()
    assert app.return_code in (0, None) and app._exception is None
    assert (seat / "MEMORY.md").read_bytes() == before
