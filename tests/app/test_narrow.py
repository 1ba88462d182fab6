"""80x24 usable, 120x36 comfortable: footers end with a whole key (the most important first), the
text columns of the Entries and Merge panels stay readable and nothing hides under a sideways scroll."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from curator.app import CuratorApp
from curator.screens.dialogs import ConfirmDialog
from curator.screens.fleet import FleetScreen
from curator.widgets.entries_table import EntriesTable
from curator.widgets.merge_panel import MergeTable
from tests.support.app import settle, write_example_fleet, write_seat, fleet_seat, footer_keys, highlight_entry
SIZES = [(80, 24), (120, 36)]


async def assert_footer_whole(app, pilot, where: str) -> list[str]:
    """Every key shown is whole and on screen, and they are the most important ones: the first of
    the focus's keys in rank order, none skipped. Returns the keys shown."""
    keys = await footer_keys(app, pilot)
    width = app.size.width
    for key in keys:
        need = cell_len(key.key_display) + 1 + cell_len(key.description)
        assert key.region.right <= width and key.region.width == need, \
            f"{where}: '{key.key_display} {key.description}' is cut at {width} columns"
    footer = app.screen.query_one("KeysFooter")
    wanted = [binding.action for binding, _enabled, _tip in footer.wanted()]
    assert [k.action for k in keys] == wanted[:len(keys)], f"{where}: a more important key was left out"
    return [k.key_display for k in keys]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_fleet_footer_ends_with_a_whole_key_and_keeps_the_fleet_actions(tmp_path, size):
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, FleetScreen)
        shown = await assert_footer_whole(app, pilot, "fleet panel")
        assert {"o", "x", "d", "c", "e"} <= set(shown)  # open, set aside, diff, boot check, evidence


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_index_and_dialog_footers_end_with_a_whole_key(tmp_path, size):
    manifest, memory = fleet_seat(tmp_path)
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await assert_footer_whole(app, pilot, "the editor")
        highlight_entry(app, "Never force-push")
        await assert_footer_whole(app, pilot, "the Entries panel")
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmDialog)
        await assert_footer_whole(app, pilot, "the archive preview")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_entry_and_why_columns_stay_readable_and_in_view(tmp_path, size):
    seat = write_seat(tmp_path / "memory")
    app = CuratorApp(seat)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for table_type, column, tab in ((EntriesTable, "text", "entries"), (MergeTable, "why", "merge")):
            app.screen.action_tab(tab)
            await settle(app, pilot)
            table = app.screen.query_one(table_type)
            assert table.row_count
            assert table.columns[column].width >= 30, f"{tab}: the {column} column is too narrow to read"
            # Every column in view: no cell hides behind a sideways scroll.
            assert table.virtual_size.width <= table.size.width, f"{tab} at {size}: wider than its panel"
