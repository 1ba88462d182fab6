"""A Claude Code seat's own budget in the byte meter: lines and characters as that harness counts
them, beside the bytes, re-measured on every keystroke; absent for other harnesses."""

from __future__ import annotations

import pytest

from curator.app import CuratorApp
from curator.meter import claude_code_budget
from curator.widgets.byte_meter import ByteMeter
from curator.widgets.index_editor import IndexEditor
from curator.widgets.panel_table import PanelTable
from tests.support.app import settle, write_seat

SIZE = (120, 36)


def meter_text(app) -> str:
    return str(app.screen.query_one(ByteMeter).render())


async def test_claude_code_seat_shows_its_budget_and_typing_moves_it(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat, profile="claude-code")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        raw = (seat / "MEMORY.md").read_bytes()
        assert claude_code_budget(raw).describe() in meter_text(app)
        assert app.screen.query_one(ByteMeter).region.height == 3  # the budget has a line of its own
        assert isinstance(app.focused, IndexEditor)
        await pilot.press("x", "y", "z")  # the editor has focus: typed, and measured at once
        typed = app.screen.editor_bytes()
        assert typed == b"xyz" + raw
        budget = claude_code_budget(typed)
        assert budget.chars == claude_code_budget(raw).chars + 3
        assert budget.describe() in meter_text(app)
        assert f"{len(typed):,} B" in meter_text(app)  # bytes stay the main measure
        await pilot.press("f2", "x", "2")  # a panel has focus: letters are commands, the text stays
        await settle(app, pilot)
        assert isinstance(app.focused, PanelTable)
        assert app.screen.editor_bytes() == typed
        assert budget.describe() in meter_text(app)


async def test_over_the_line_cap_the_budget_says_cut(tmp_path):
    seat = write_seat(tmp_path / "memory", craft=230)  # more than 200 lines
    app = CuratorApp(seat, profile="claude-code")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        budget = claude_code_budget((seat / "MEMORY.md").read_bytes())
        assert budget.over and budget.lines > 200
        assert f"{budget.lines}/200 lines" in meter_text(app) and "CUT" in meter_text(app)


async def test_other_harnesses_show_no_claude_code_budget(tmp_path):
    seat = write_seat(tmp_path / "memory")
    for profile in (None, "opencode"):
        app = CuratorApp(seat, profile=profile)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert "claude-code" not in meter_text(app) and "chars" not in meter_text(app)
            assert app.screen.query_one(ByteMeter).region.height == 2


@pytest.mark.parametrize("width", [78, 99, 100, 110, 118])  # 80 to 120 columns
@pytest.mark.parametrize("size", [16_900, 24_000, 26_500])
def test_a_claude_code_reading_says_both_figures_and_its_zone_in_the_width_it_has(width: int, size: int) -> None:
    from curator.meter import claude_code_measure
    from curator.widgets.byte_meter import ZONE_WORDS, words

    raw = b"---\nname: x\n---\n" + b"x" * (size - 16)
    reading = claude_code_measure(raw)
    line = words(reading, 200, "claude-code", width)
    assert line.cell_length <= width
    text = str(line)
    assert text.startswith(f"{size - 16:,} B loaded") and f" · {size:,} B on disk" in text
    assert ZONE_WORDS[reading.zone] in text
