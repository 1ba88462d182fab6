"""Fit in the app: F6 (editor or panel focused) previews ONE plan of lossless steps with a reason
each, and the questions left to the bearer with their evidence (never steps); unticking a step plans
the rest again; Apply writes it as one undoable change; the preview keeps Apply/Cancel in view at 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, SelectionList

from curator.app import CuratorApp
from curator.index_model import parse_index
from curator.levers.fit import plan_fit
from curator.screens.fit_preview import FitDialog
from curator.widgets.index_editor import IndexEditor
from curator.widgets.panel_table import PanelTable
from tests.support.app import inside, HEADER, LONG_ENTRY, craft_line, settle, write_seat


DONE_RULE = "- The v1 exporter is retired — done 2026-01-02 (ticket #77)"


def over_target_seat(root: Path) -> Path:
    """Over 17,000 B: a long entry fit tightens, craft entries it folds, and an entry marked done under
    the hard rules (a rules heading: never folded by fit) that it asks about, never archives."""
    memory = write_seat(root, craft=0)
    craft = "".join(craft_line(n) for n in range(1, 171))
    header = HEADER.replace("\n## Craft hooks", f"{DONE_RULE}\n\n## Craft hooks", 1)
    assert header != HEADER
    (memory / "MEMORY.md").write_text(header + LONG_ENTRY + craft, encoding="utf-8")
    return memory


def files(memory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(memory.iterdir())}


def body(app) -> str:
    return str(app.screen.query_one("#confirm-body").render())


async def test_f6_in_the_editor_previews_unticks_applies_as_one_change_and_undoes(tmp_path):
    memory = over_target_seat(tmp_path / "memory")
    start = files(memory)
    expected = plan_fit(memory, parse_index(start["MEMORY.md"]))
    assert [s.kind for s in expected.steps] == ["trim", "fold"] and expected.reached  # never an archive
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
        # The entry that looks finished is asked about, with the word, where it stands and the line.
        (question,) = expected.questions
        assert question.kind == "archive" and f"question: {question.question}" in body(app)
        assert f"line {question.lines[0]}: done (a clause opens with it) in «{DONE_RULE}»" in body(app)
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
        assert after["perf.md"] == start["perf.md"]  # fit moves no story into a detail file
        written = b"".join(after.values())
        assert b"in order to go faster" in written  # the unticked tighten was not written
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


@pytest.mark.parametrize("asked", [False, True])
async def test_f6_under_the_target_shows_only_the_questions_if_any(tmp_path, asked):
    memory = write_seat(tmp_path / "memory")
    if asked:  # an entry that looks finished: nothing to do, but a question to ask, with its evidence
        text = (memory / "MEMORY.md").read_text(encoding="utf-8")
        (memory / "MEMORY.md").write_text(text.replace("\n## Craft hooks", f"{DONE_RULE}\n\n## Craft hooks", 1),
                                          encoding="utf-8")
    start = files(memory)
    app = CuratorApp(memory)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f6")
        await settle(app, pilot)
        assert isinstance(app.screen, FitDialog) == asked
        if asked:
            assert "question: archive this entry that looks finished?" in body(app)
            assert "done (a clause opens with it)" in body(app)
            assert "No step: the rest is the questions above" in body(app)
            await pilot.press("y")
            await settle(app, pilot)
        else:
            assert "Nothing to fit" in "\n".join(str(n.message) for n in app.notices)
        assert files(memory) == start  # answering is the bearer's: nothing was written
