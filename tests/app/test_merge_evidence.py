"""The Merge panel says why each candidate may be one entry: its evidence, in the Why column."""

from __future__ import annotations

from pathlib import Path

from curator.app import CuratorApp
from curator.widgets.merge_panel import MergeTable
from tests.support.app import settle


async def test_the_merge_panel_shows_each_pairs_evidence(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(
        "# Index\n"
        "- [Release lane](release_lane.md) — tokens rotate monthly\n"
        "- [[release_lane]] — tag, canary, promote\n"
        "- The nightly crawler backs off for an hour after a 429 from the league site.\n"
    )
    (memory / "release_lane.md").write_text("# Release lane\n")
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
