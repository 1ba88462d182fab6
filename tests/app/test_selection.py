"""Selection at the scale of real memory: ranges (v, shift+arrows), a whole section in one key (S), a
filter (/) the levers then act on, the sort shown in the header; previews and the status line name
lines and titles, never entry ids."""

from __future__ import annotations

import re

from curator.app import CuratorApp
from curator.screens.archive_preview import ArchiveDialog
from curator.screens.merge_preview import MergeDialog
from curator.widgets.entries_table import EntriesTable
from curator.widgets.index_editor import IndexEditor
from tests.support.app import settle, write_seat

SIZE = (120, 36)
HEX_ID = re.compile(r"\b[0-9a-f]{6}\b")


def cursor_to(table: EntriesTable, needle: str) -> None:
    row = next(r for r in table.rows_by_id.values() if needle in r.text)
    table.move_cursor(row=table.get_row_index(row.id))


def marked_texts(table: EntriesTable) -> list[str]:
    return [table.rows_by_id[i].text for i in table.selected_ids()]


async def test_v_starts_a_range_that_moving_extends_and_shift_arrows_do_the_same(tmp_path):
    app = CuratorApp(write_seat(tmp_path / "memory"), state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("v")  # the editor has focus: v is a letter there
        await settle(app, pilot)
        assert app.screen.editor.text.startswith("v") and isinstance(app.focused, IndexEditor)
        await pilot.press("ctrl+z", "f2")
        await settle(app, pilot)
        table = app.screen.query_one(EntriesTable)
        cursor_to(table, "Never force-push")
        await pilot.press("v", "down", "down")
        await settle(app, pilot)
        assert len(table.marked) == 3
        await pilot.press("up")  # the range follows the cursor both ways
        await settle(app, pilot)
        assert len(table.marked) == 2
        await pilot.press("v", "down", "down")  # ended: moving marks nothing more
        await settle(app, pilot)
        assert len(table.marked) == 2
        await pilot.press("shift+down", "shift+down")  # a second range, added to the first
        await settle(app, pilot)
        assert len(table.marked) == 5
        summary = str(app.screen.query_one("#entries-summary").render())
        assert "5 selected (marked)" in summary and "sorted by line" in summary
        await pilot.press("c")
        await settle(app, pilot)
        assert not table.marked


async def test_S_archives_a_whole_section_in_three_keys_named_by_lines_and_title(tmp_path):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat, state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        cursor_to(app.screen.query_one(EntriesTable), "Never force-push")
        await pilot.press("S", "a")  # the section, then archive it: its preview
        await settle(app, pilot)
        assert isinstance(app.screen, ArchiveDialog)
        body = str(app.screen.query_one("#confirm-body").render())
        assert "archive section 'Hard rules (they bit; don't relearn)' (lines 12–15, 4 entries)" in body
        await pilot.press("y")
        await settle(app, pilot)
        status = str(app.screen.query_one("#status").render())
        assert "Applied: archive section 'Hard rules" in status and not HEX_ID.search(status)
        archive = (seat / "ARCHIVE.md").read_text(encoding="utf-8")
        assert archive.count("· archived ") == 4 and "· after " not in archive
        assert "Never force-push" not in (seat / "MEMORY.md").read_text(encoding="utf-8")


async def test_a_filter_is_the_selection_the_levers_act_on_and_the_header_shows_the_sort(tmp_path):
    app = CuratorApp(write_seat(tmp_path / "memory"), state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "slash", *"full test suite", "enter")
        await settle(app, pilot)
        table = app.screen.query_one(EntriesTable)
        assert app.focused is table and table.row_count == 2
        assert all("full test suite" in text for text in marked_texts(table))
        labels = [str(c.label) for c in table.columns.values()]
        assert "Line ↑" in labels
        await pilot.press("s")
        await settle(app, pilot)
        assert "Bytes ↓" in [str(c.label) for c in table.columns.values()]
        await pilot.press("m")  # merge what the filter shows
        await settle(app, pilot)
        assert isinstance(app.screen, MergeDialog)
        body = str(app.screen.query_one("#confirm-body").render())
        assert "merge lines 13–14 'Run the full test suite before…' + 'Always run the full test suite…'" in body
        await pilot.press("n")
        await settle(app, pilot)
        await pilot.press("c")  # clears the filter too
        await settle(app, pilot)
        assert table.row_count == len(table.rows_by_id) > 2


async def test_a_merge_that_empties_a_section_warns_in_its_preview(tmp_path):
    seat = write_seat(tmp_path / "memory", craft=0)  # Craft hooks holds one entry: the parser note
    app = CuratorApp(seat, state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        await settle(app, pilot)
        table = app.screen.query_one(EntriesTable)
        for needle in ("Keep `[brackets]`", "The parser's hot path"):
            cursor_to(table, needle)
            await pilot.press("space")
            await settle(app, pilot)  # marked before the cursor moves on
        await pilot.press("m")
        await settle(app, pilot)
        assert isinstance(app.screen, MergeDialog)
        body = str(app.screen.query_one("#confirm-body").render())
        assert "section 'Craft hooks' left with no entry" in body


async def test_F_folds_a_whole_section_marked_with_S_into_one_detail_file(tmp_path):
    seat = write_seat(tmp_path / "memory", craft=6)
    app = CuratorApp(seat, state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        cursor_to(app.screen.query_one(EntriesTable), "craft 3")
        await pilot.press("S", "F")  # the section, then fold it: its preview
        await settle(app, pilot)
        body = str(app.screen.query_one("#confirm-body").render())
        assert body.startswith("fold section 'Craft hooks' (lines 19–25, 7 entries) into folded-craft-hooks.md")
        await pilot.press("y")
        await settle(app, pilot)
        folded = [p for p in seat.iterdir() if p.name.startswith("folded-")]
        assert len(folded) == 1 and "craft 3:" in folded[0].read_text(encoding="utf-8")
        assert "craft 3:" not in (seat / "MEMORY.md").read_text(encoding="utf-8")
        await pilot.press("f8")  # one change, one undo
        await settle(app, pilot)
        assert "craft 3:" in (seat / "MEMORY.md").read_text(encoding="utf-8")


async def test_s_puts_the_cursor_on_the_largest_entry_so_S_marks_its_section(tmp_path):
    app = CuratorApp(write_seat(tmp_path / "memory"), state_dir=tmp_path / "state")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        await settle(app, pilot)
        table = app.screen.query_one(EntriesTable)
        cursor_to(table, "Never force-push")
        await pilot.press("s", "S")  # bytes: the parser note, the largest, alone in Craft hooks
        await settle(app, pilot)
        selected = [table.rows_by_id[i] for i in table.selected_ids()]
        assert selected[0].text.startswith("- The parser's hot path") and len(selected) == 11
        assert {row.section for row in selected} == {"Craft hooks"}
