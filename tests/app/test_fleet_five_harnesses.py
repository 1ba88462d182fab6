"""The fleet grid with one seat of each of the five harnesses: five role columns (the cap guard in
its own), every column in view at 80 columns with a gap between every two headers, and each
harness's files under the role they play."""

from __future__ import annotations

import pytest

from curator.app import CuratorApp
from curator.widgets.fleet_grid import ROLE_GUARD, FleetGrid
from generators.emission import ROLE_BOOT, ROLE_CONFIG, ROLE_MCP
from generators.manifest import HARNESSES
from tests.support.app import settle, write_example_fleet


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_five_harnesses_fit_and_their_files_sit_under_their_roles(tmp_path, size):
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        grid = app.screen.query_one(FleetGrid)
        assert sorted(p.harness for p in grid.plans) == sorted(HARNESSES)
        assert len(grid.roles) == 5
        assert grid.virtual_size.width <= grid.size.width and grid.max_scroll_x == 0

        def files(harness: str, role: str) -> list[str]:
            row = [p.harness for p in grid.plans].index(harness)
            grid.move_cursor(row=row, column=grid.first_role_column + grid.roles.index(role))
            return [a.path.name for a in grid.current_artifacts()]

        assert files("codex", ROLE_CONFIG) == files("codex", ROLE_MCP) == ["config.toml"]
        assert files("codex", ROLE_BOOT) == ["hooks.json", "identity_anchor_hook.py"]
        # The cap guard is not a boot hook: Kimi and Claude seats show one hook and one guard.
        for harness in ("kimi-code", "claude-code"):
            assert files(harness, ROLE_BOOT) == ["identity_anchor_hook.py"]
            assert files(harness, ROLE_GUARD) == ["cap_guard_hook.py"]
            assert "×2" not in grid.get_cell_at(grid.cursor_coordinate).plain
        assert files("codex", ROLE_GUARD) == files("opencode", ROLE_GUARD) == []
        assert files("gemini-cli", ROLE_CONFIG) == ["settings.json", "trustedFolders.json"]
        assert files("gemini-cli", ROLE_MCP) == ["settings.json"]
        assert files("gemini-cli", ROLE_BOOT) == []  # Gemini loads the files itself: no hook
        await pilot.pause()
        detail = str(app.screen.query_one("#fleet-detail-text").render())
        assert "gemini-cli" in detail or "@neo-gemini-lyra" in detail  # the empty cell still names its seat
        # Every header but the last has a blank cell on each side inside its own column, so no two
        # titles touch ("MCPhook" was a title as wide as its column's cells and lead).
        columns = list(grid.columns.values())
        assert all(column.get_render_width(grid) >= len(str(column.label).strip()) + 2 for column in columns[:-1])
