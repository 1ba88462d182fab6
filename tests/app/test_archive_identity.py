"""The template's identity lines are never archived: the app refuses as the CLI does, says why, and
opens no preview."""

from __future__ import annotations

from curator.app import CuratorApp
from tests.support.app import put_cursor_on, settle, write_seat

SIZE = (120, 36)


async def test_a_on_an_identity_line_says_it_is_never_archived_and_writes_nothing(tmp_path):
    seat = write_seat(tmp_path / "memory")
    before = (seat / "MEMORY.md").read_bytes()
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        index = app.screen
        put_cursor_on(app, "[Seat pointers]", focus=True)
        await pilot.press("a")
        await settle(app, pilot)
        assert app.screen is index  # no preview to confirm
        said = "\n".join(str(n.message) for n in app.notices)
        assert "identity lines" in said and "never archived" in said
    assert (seat / "MEMORY.md").read_bytes() == before
    assert not (seat / "ARCHIVE.md").exists()
