"""The smaller things a bearer meets: every key that cannot act says why, the meter and the save speak
of the read limit past it, notifications sit in the status line (never over content) and clear when
stale, the demo says what it is, help fits 80x24, go-to-line counts lines as the meter does."""

from __future__ import annotations

from textual.widgets import Static

from curator.app import CuratorApp
from curator.meter import measure
from curator.screens.dialogs import LinePrompt
from curator.screens.help import HelpScreen
from curator.screens.preview import PreviewScreen
from curator.widgets.byte_meter import ByteMeter, words
from curator.widgets.status_line import StatusLine
from tests.support.app import footer_keys, settle, write_example_fleet, write_seat

SIZE = (120, 36)


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


def test_past_the_read_limit_the_meter_says_how_far_past_it():
    said = str(words(measure(b"x" * 25_327)))
    assert "727 B over the read limit" in said and "over target" not in said


async def test_a_save_past_the_read_limit_warns(tmp_path):
    seat = write_seat(tmp_path / "memory", craft=200)
    app = CuratorApp(seat, state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.screen.query_one(ByteMeter).reading.zone == "over-limit"
        await pilot.press("x", "ctrl+s")
        await settle(app, pilot)
        assert (seat / "MEMORY.md").read_bytes().startswith(b"x")
        assert "over the read limit" in status(app) and "f6 fits it" in status(app)


async def test_keys_without_anything_to_act_on_are_not_offered_and_say_so_when_pressed(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat, state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for focus in ("editor", "panels"):
            assert "f4" not in {k.key for k in await footer_keys(app, pilot)}, focus  # no fleet
            await pilot.press("f4")
            await pilot.pause()
            assert "No fleet manifest" in status(app), focus
            if focus == "editor":
                await pilot.press("f2")
        await pilot.press("4")  # the Archive panel, nothing archived yet
        await settle(app, pilot)
        assert "r" not in {k.key for k in await footer_keys(app, pilot)}
        await pilot.press("r")
        await pilot.pause()
        assert "Nothing to restore: ARCHIVE.md is empty" in status(app)


async def test_adopt_in_a_preview_with_nothing_adoptable_says_why(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest, state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen)
        assert "a" not in {k.key for k in await footer_keys(app, pilot)}
        await pilot.press("a")
        await pilot.pause()
        assert "Nothing here can be adopted" in status(app)


async def test_notifications_go_to_the_status_line_never_a_toast_and_clear_when_stale(tmp_path):
    app = CuratorApp(write_seat(tmp_path / "memory"), state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("Cancelled: nothing was written.", markup=False)
        await pilot.pause()
        line = app.screen.query_one("#status", StatusLine)
        assert "Cancelled" in status(app) and not app.query("Toast") and not list(app._notifications)
        assert line._stale is not None  # it goes when stale
        line.clear()  # what its timer does
        assert status(app) == ""
        await pilot.press("ctrl+g")  # a dialog: the notice lands in the screen's line, not over the box
        await pilot.pause()
        assert isinstance(app.screen, LinePrompt)


async def test_the_demo_says_it_is_a_demo_with_a_fleet_behind_it(tmp_path):
    from curator.demo import GROWN, build_demo

    demo = build_demo(tmp_path / "demo")
    app = CuratorApp(demo.memory_dir(GROWN), demo.fleet_path, resident_id=GROWN, state_dir=tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        title = str(app.screen.query_one("#seat-title").render())
        assert title.startswith(f"demo seat (esc: its fleet) · {GROWN} · MEMORY.md")
        await pilot.press("f1")
        await pilot.pause()
        rows = "\n".join(str(s.render()) for s in app.screen.query(".help-where"))
        assert "opened on its own" not in rows
        await pilot.press("escape", "escape")
        await settle(app, pilot)
        assert str(app.screen.query_one("#fleet-title").render()).startswith("Demo fleet")


async def test_help_at_80x24_gives_its_rows_to_the_keys(tmp_path):
    app = CuratorApp(write_seat(tmp_path / "memory"), state_dir=tmp_path / "state")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen.query_one("#help-keys")
        shown = [row for row in app.screen.query("#help-keys .help-row") if row.region.height
                 and keys.region.y <= row.region.y < keys.region.bottom]
        assert len(shown) >= 14
        hint = app.screen.query_one(".hint", Static)
        assert hint.region.height == 1


async def test_go_to_line_counts_lines_as_the_meter_does(tmp_path):
    app = CuratorApp(write_seat(tmp_path / "memory"), state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        lines = app.screen.query_one(ByteMeter).reading.lines
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.screen.placeholder == f"1–{lines}"


async def test_no_dialog_offers_f4_without_a_fleet(tmp_path):
    app = CuratorApp(write_seat(tmp_path / "memory"), state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        for key in ("ctrl+g", "f1"):  # the go-to-line box, the help
            await pilot.press(key)
            await settle(app, pilot)
            assert "f4" not in {k.key for k in await footer_keys(app, pilot)}, key
            await pilot.press("escape")
            await settle(app, pilot)


async def test_f7_with_no_interrupted_change_is_not_offered_and_says_so_when_pressed(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat, state_dir=tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        for focus in ("editor", "panels"):
            assert "f7" not in {k.key for k in await footer_keys(app, pilot)}, focus
            await pilot.press("f7")
            await pilot.pause()
            assert "Nothing to settle: no change was interrupted" in status(app), focus
            if focus == "editor":
                await pilot.press("f2")
