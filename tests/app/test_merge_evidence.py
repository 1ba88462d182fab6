"""The Merge panel says why each candidate may be one entry: its evidence, in the Why column."""

from __future__ import annotations

from pathlib import Path

from curator.app import CuratorApp
from curator.widgets.merge_panel import MergeTable
from tests.support.app import settle
from tests.support.candidates import write_linked_pair_seat


async def test_the_merge_panel_shows_each_pairs_evidence(tmp_path: Path) -> None:
    memory = write_linked_pair_seat(tmp_path / "memory")
    app = CuratorApp(memory)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("f2", "2")  # leave the editor, Merge panel
        await settle(app, pilot)
        table = app.screen.query_one(MergeTable)
        (candidate,) = table.candidates
        why = str(table.get_row_at(0)[-1])
        assert candidate.kind == "same-target"
        assert "index one detail file, release_lane.md" in why
