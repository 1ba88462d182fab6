"""The merge preview's editable line: the bearer writes the merged line, the core re-plans it."""

from __future__ import annotations

from textual.widgets import Button, Input, Static

from curator.app import CuratorApp
from curator.screens.merge_preview import MergeDialog, editable_line
from tests.support.app import settle, write_seat

SIZE = (120, 36)
FIRST = b"- Run the full test suite before every push, see [ci notes](ci.md)\n"
SECOND = b"- Always run the full test suite before each push; details in [ci](ci-details.md)\n"
SHORT = "Full suite before each push: [ci notes](ci.md), [ci](ci-details.md)"


def seat_and_app(tmp_path):
    """The fixture seat (its two CI rules are the merge candidate), its MEMORY.md bytes, the app."""
    seat = write_seat(tmp_path / "memory")
    return seat, (seat / "MEMORY.md").read_bytes(), CuratorApp(seat)


async def open_merge_preview(app, pilot) -> MergeDialog:
    await settle(app, pilot)
    await pilot.press("f2", "2", "m")  # leave the editor, Merge panel, merge the top candidate
    await settle(app, pilot)
    assert isinstance(app.screen, MergeDialog)
    return app.screen


async def write_line(pilot, text: str) -> None:
    await pilot.press("e", "ctrl+u", *text, "enter")  # edit, clear, type, done


def preview_text(dialog: MergeDialog) -> str:
    return str(dialog.query_one("#confirm-body", Static).render())


async def test_default_line_is_prefilled_without_the_list_marker(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_merge_preview(app, pilot)
        assert dialog.query_one("#merge-text", Input).value == (
            "Run the full test suite before every push, see [ci notes](ci.md); details in [ci](ci-details.md)")


async def test_written_line_replaces_both_entries_once(tmp_path):
    seat, before, app = seat_and_app(tmp_path)
    assert before.count(FIRST) == 1 and before.count(SECOND) == 1
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_merge_preview(app, pilot)
        default_saving = dialog.change.bytes_saved
        await write_line(pilot, SHORT)
        await settle(app, pilot)
        saved = len(FIRST) + len(SECOND) - len(b"- " + SHORT.encode() + b"\n")
        assert dialog.change.bytes_saved == saved > default_saving
        shown = preview_text(dialog)
        assert f"saves {saved:,} B" in shown
        assert f"+- {SHORT}" in shown  # the diff shows the line verbatim, brackets and all
        assert str(dialog.query_one("#yes", Button).label) == "Apply (y)"
        assert (seat / "MEMORY.md").read_bytes() == before  # the preview writes nothing
        await pilot.press("y")
        await settle(app, pilot)
        after = (seat / "MEMORY.md").read_bytes()
        assert after == before.replace(FIRST, b"- " + SHORT.encode() + b"\n").replace(SECOND, b"")
        assert len(before) - len(after) == saved
        await pilot.press("f8")  # the store journalled it: undo brings both entries back
        await settle(app, pilot)
    assert (seat / "MEMORY.md").read_bytes() == before


async def test_enter_after_a_stale_empty_plan_still_lets_y_apply(tmp_path):
    """The field is cleared and that empty line is planned (Apply disabled); the new line is typed
    and enter pressed before its plan lands. y must apply the new plan, not be typed into the field."""
    seat, before, app = seat_and_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_merge_preview(app, pilot)
        await pilot.press("e", "ctrl+u")
        await settle(app, pilot)
        assert dialog.query_one("#yes", Button).disabled  # "The merged line is empty"
        dialog.REPLAN_DELAY = 30  # the typing below is never re-planned before enter
        await pilot.press(*SHORT, "enter")
        await settle(app, pilot)
        assert app.focused is dialog.query_one("#yes", Button)
        await pilot.press("y")
        await settle(app, pilot)
        assert app.screen is not dialog  # y answered; it was not typed into the field
    assert (seat / "MEMORY.md").read_bytes() == before.replace(FIRST, b"- " + SHORT.encode() + b"\n").replace(SECOND, b"")


async def test_written_line_that_drops_a_pointer_needs_apply_anyway(tmp_path):
    seat, before, app = seat_and_app(tmp_path)
    dropped = "Full suite before each push: [ci notes](ci.md)"
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_merge_preview(app, pilot)
        await write_line(pilot, dropped)
        await settle(app, pilot)
        yes = dialog.query_one("#yes", Button)
        assert dialog.refused and "ci-details.md" in "; ".join(dialog.refused)
        assert str(yes.label) == "Apply anyway (y)" and yes.variant == "error"
        assert "REFUSED by default — it would lose: pointer ci-details.md" in preview_text(dialog)
        assert (seat / "MEMORY.md").read_bytes() == before
        await pilot.press("y")  # the explicit 'Apply anyway'
        await settle(app, pilot)
    after = (seat / "MEMORY.md").read_bytes()
    assert after == before.replace(FIRST, b"- " + dropped.encode() + b"\n").replace(SECOND, b"")


async def test_apply_before_the_replan_shows_the_refusal_first(tmp_path):
    """An edit not yet re-planned is planned on Apply; a refusal stops there, nothing written."""
    seat, before, app = seat_and_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_merge_preview(app, pilot)
        dialog.REPLAN_DELAY = 60  # the debounce never fires during this test
        await pilot.press("e", "ctrl+u", *"no pointers left")
        dialog.query_one("#yes", Button).focus()
        await pilot.pause()
        assert dialog.shown_text != "no pointers left"
        await pilot.press("enter")  # presses the Apply button
        await pilot.pause()
        assert app.screen is dialog and dialog.refused
        assert str(dialog.query_one("#yes", Button).label) == "Apply anyway (y)"
        assert (seat / "MEMORY.md").read_bytes() == before
        await pilot.press("n")
        await settle(app, pilot)
    assert (seat / "MEMORY.md").read_bytes() == before


async def test_empty_line_cannot_be_applied(tmp_path):
    seat, before, app = seat_and_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_merge_preview(app, pilot)
        await pilot.press("e", "ctrl+u", "enter")
        await settle(app, pilot)
        assert dialog.query_one("#yes", Button).disabled
        assert "empty" in preview_text(dialog)
        dialog.action_answer(True)
        await pilot.pause()
        assert app.screen is dialog
    assert (seat / "MEMORY.md").read_bytes() == before


def test_editable_line_drops_the_marker_and_joins_continuations():
    assert editable_line("  * first [a](a.md)\n    more words") == "first [a](a.md) more words"
    assert editable_line("1. numbered") == "numbered"


async def test_typing_replans_after_a_short_pause_without_enter(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_merge_preview(app, pilot)
        await pilot.press("e", "ctrl+u", *SHORT)
        assert dialog.shown_text != SHORT  # still debouncing
        await pilot.pause(dialog.REPLAN_DELAY * 2)
        await settle(app, pilot)
        assert dialog.shown_text == SHORT
        assert dialog.change.files["MEMORY.md"].count(f"- {SHORT}\n".encode()) == 1
