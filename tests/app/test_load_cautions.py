"""The Load panel names what a harness loads but not as written: Gemini's @word imports."""

from __future__ import annotations

from curator.app import CuratorApp
from curator.widgets.load_panel import LoadTable
from tests.support.app import settle, write_seat

SIZE = (120, 36)


async def test_the_gemini_row_shows_each_at_word_gemini_would_import(tmp_path):
    seat = write_seat(tmp_path / "memory")
    (seat / "identity.md").write_text("# Identity\nI am @seat-x.\n", encoding="utf-8")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.action_tab("load")
        await pilot.pause()
        table = app.screen.query_one(LoadTable)
        table.focus()
        row = [str(key.value) for key in table.rows].index("gemini-cli")
        table.move_cursor(row=row)
        await pilot.pause()
        detail = str(table.detail())
        assert "identity.md line 2: `@seat-x.` outside code" in detail
        assert "1 @word(s) outside code" in detail
        table.move_cursor(row=[str(key.value) for key in table.rows].index("opencode"))
        await pilot.pause()
        assert "@seat-x" not in str(table.detail())
