"""Fit in the app: F6 (editor or panel focused) previews ONE plan of lossless steps with a reason
each; unticking a step plans the rest again; Apply writes it as one undoable change; the preview
keeps Apply/Cancel in view at 80x24."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button, SelectionList

from curator.app import CuratorApp
from curator.index_model import parse_index
from curator.levers.fit import plan_fit
from curator.screens.fit_preview import FitDialog
from curator.widgets.index_editor import IndexEditor
from curator.widgets.panel_table import PanelTable
from tests.support.app import inside, HEADER, LONG_ENTRY, craft_line, settle, write_seat


def over_target_seat(root: Path) -> Path:
    """Over 17,000 B: a long entry fit trims into perf.md, and entries marked done it can archive."""
    memory = write_seat(root, craft=0)
    dated = "".join(craft_line(n).replace(" (ticket", f" — done 2026-0{1 + n % 9}-{10 + n % 18} (ticket")
                    for n in range(1, 171))
    (memory / "MEMORY.md").write_text(HEADER + LONG_ENTRY + dated, encoding="utf-8")
    return memory


def files(memory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(memory.iterdir())}


def body(app) -> str:
    return str(app.screen.query_one("#confirm-body").render())


async def test_f6_in_the_editor_previews_unticks_applies_as_one_change_and_undoes(tmp_path):
    memory = over_target_seat(tmp_path / "memory")
    start = files(memory)
    expected = plan_fit(memory, parse_index(start["MEMORY.md"]))
    assert [s.kind for s in expected.steps] == ["trim", "archive"] and expected.reached
    app = CuratorApp(memory)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert isinstance(app.focused, IndexEditor)
        text = app.screen.editor.text
        await pilot.press("f6")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, FitDialog)
        steps = dialog.query_one("#fit-steps", SelectionList)
        assert steps.option_count == 2 and sorted(steps.selected) == [1, 2]
        for step in expected.steps:
            assert step.reason in str(steps.get_option_at_index(step.number - 1).prompt)
        assert "TARGET REACHED" in body(app) and f"{expected.after:,} B" in body(app)
        # The finished entries the target did not need are asked about, with the words that mark them.
        (question,) = expected.questions
        assert f"question: {question.question} (line {question.lines[0]}: done" in body(app)
        # Untick the trim: the rest is planned again without it.
        steps.focus()
        steps.highlighted = 0
        await pilot.press("space")
        await settle(app, pilot)
        replanned = plan_fit(memory, parse_index(start["MEMORY.md"]), skip=(1,))
        assert dialog.plan == replanned and not dialog.plan.steps[0].selected
        assert f"{replanned.after:,} B" in body(app)
        await pilot.press("y")
        await settle(app, pilot)
        assert not isinstance(app.screen, FitDialog)
        after = files(memory)
        assert after["MEMORY.md"] == replanned.change.files["MEMORY.md"]
        assert after["perf.md"] == start["perf.md"]  # the unticked trim was not written
        assert app.screen.editor_bytes() == after["MEMORY.md"] != text.encode()
        await pilot.press("f8")  # one change: one undo gives every file back
        await settle(app, pilot)
        assert files(memory) == start


async def test_f6_with_a_panel_focused_and_cancel_writes_nothing(tmp_path):
    memory = over_target_seat(tmp_path / "memory")
    start = files(memory)
    app = CuratorApp(memory)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        assert isinstance(app.focused, PanelTable)
        text = app.screen.editor.text
        await pilot.press("f6")
        await settle(app, pilot)
        assert isinstance(app.screen, FitDialog)
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, FitDialog)
        assert files(memory) == start and app.screen.editor.text == text
        assert "Cancelled" in str(app.screen.query_one("#status").render())


async def test_fit_preview_at_80x24_keeps_apply_and_cancel_in_view(tmp_path):
    memory = over_target_seat(tmp_path / "memory")
    app = CuratorApp(memory)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("f6")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, FitDialog)
        assert inside(dialog.query_one("#yes", Button), (80, 24)) and inside(dialog.query_one("#no", Button), (80, 24))
        assert inside(dialog.query_one("#fit-steps"), (80, 24))


async def test_f6_under_the_target_says_there_is_nothing_to_fit(tmp_path):
    memory = write_seat(tmp_path / "memory")
    start = files(memory)
    app = CuratorApp(memory)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f6")
        await settle(app, pilot)
        assert not isinstance(app.screen, FitDialog)
        assert "Nothing to fit" in "\n".join(str(n.message) for n in app.notices)
        assert files(memory) == start
