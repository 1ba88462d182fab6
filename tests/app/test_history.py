"""The History panel: the journal's changes as a list (what, when, which files, bytes), undo and redo
to any point with enter, the next undo and redo named in the footer; F8 / F9 with nothing to step
say so."""

from __future__ import annotations

from curator.app import CuratorApp
from curator.widgets.history_panel import HistoryTable
from tests.support.app import footer_keys, settle, write_seat

SIZE = (120, 36)


async def save_edit(app, pilot, text: str) -> None:
    await pilot.press("f2") if not app.screen.editor.has_focus else None
    await pilot.press(*text, "ctrl+s")
    await settle(app, pilot)


async def test_history_lists_changes_and_enter_goes_to_any_point(tmp_path):
    seat = write_seat(tmp_path / "memory")
    original = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat, state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await save_edit(app, pilot, "a")
        await save_edit(app, pilot, "b")
        assert (seat / "MEMORY.md").read_bytes() == b"ab" + original
        keys = {k.key: k.description for k in await footer_keys(app, pilot)}
        assert keys["f8"] == "Undo: edit MEMORY.md"  # the next undo, named
        assert "f9" not in keys  # nothing to redo: not offered
        await pilot.press("f2", "7")  # the panels, the History panel
        await settle(app, pilot)
        table = app.screen.query_one(HistoryTable)
        assert app.focused is table and table.row_count == 3  # the start, then both saves
        assert [r.files for r in table.history_rows[1:]] == ["MEMORY.md", "MEMORY.md"]
        assert [r.nbytes for r in table.history_rows[1:]] == [-1, -1]  # each grew the index by a byte
        table.move_cursor(row=0)
        await pilot.press("enter")  # back to before both
        await settle(app, pilot)
        assert (seat / "MEMORY.md").read_bytes() == original
        assert "Undid 2 changes" in str(app.screen.query_one("#status").render())
        keys = {k.key: k.description for k in await footer_keys(app, pilot)}
        assert keys["f9"] == "Redo: edit MEMORY.md" and "f8" not in keys
        table.move_cursor(row=2)
        await pilot.press("enter")  # forward again, to after the second
        await settle(app, pilot)
        assert (seat / "MEMORY.md").read_bytes() == b"ab" + original
        assert table.now == 2


async def test_f8_and_f9_with_nothing_to_step_say_so_in_the_editor_and_the_panels(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat, state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for focus in ("editor", "panels"):
            await pilot.press("f8")
            await settle(app, pilot)
            assert "Nothing to undo" in str(app.screen.query_one("#status").render()), focus
            await pilot.press("f9")
            await settle(app, pilot)
            assert "Nothing to redo" in str(app.screen.query_one("#status").render()), focus
            await pilot.press("f2")
