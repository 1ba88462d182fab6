"""The fleet grid with one seat of each of the five harnesses: four role columns, every column in
view at 80 columns, and each harness's files under the role they play."""

from __future__ import annotations

import pytest

from curator.app import CuratorApp
from curator.widgets.fleet_grid import FleetGrid
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
        assert len(grid.roles) == 4
        assert grid.virtual_size.width <= grid.size.width and grid.max_scroll_x == 0

        def files(harness: str, role: str) -> list[str]:
            row = [p.harness for p in grid.plans].index(harness)
            grid.move_cursor(row=row, column=grid.first_role_column + grid.roles.index(role))
            return [a.path.name for a in grid.current_artifacts()]

        assert files("codex", ROLE_CONFIG) == files("codex", ROLE_MCP) == ["config.toml"]
        assert files("codex", ROLE_BOOT) == ["hooks.json", "identity_anchor_hook.py"]
        assert files("gemini-cli", ROLE_CONFIG) == ["settings.json", "trustedFolders.json"]
        assert files("gemini-cli", ROLE_MCP) == ["settings.json"]
        assert files("gemini-cli", ROLE_BOOT) == []  # Gemini loads the files itself: no hook
        await pilot.pause()
        detail = str(app.screen.query_one("#fleet-detail-text").render())
        assert "gemini-cli" in detail or "@neo-gemini-lyra" in detail  # the empty cell still names its seat
