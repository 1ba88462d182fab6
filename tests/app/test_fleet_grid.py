"""The fleet grid's columns are the roles files play in a seat, read from the artifacts, so a third
harness fits at 80 columns without a change to the screen; a file whose rule has no role still
shows, in a column named after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.app import CuratorApp
from curator.screens.fleet import FleetScreen
from curator.widgets.fleet_grid import FleetGrid
from generators import composer, emission
from generators.composer import DIVERGENT, MATCH, Artifact, ResidentPlan
from generators.emission import CONVERGENCE_ROLES, ROLE_CONFIG, ROLE_MCP, EmittedFile
from tests.support.app import settle, write_example_fleet, cell_offset

ROLE_TITLES_WIDE = ["config", "MCP servers", "boot hook", "guard", "bearer files"]
ROLE_TITLES_NARROW = ["cfg", "MCP", "hook", "guard", "bearer"]


def labels(grid: FleetGrid) -> list[str]:
    return [str(column.label).strip() for column in grid.columns.values()]


def third_harness_plan(root: Path, *, settings_rule: str = "claude-settings") -> ResidentPlan:
    """A seat of a harness the screens have never seen: a settings file, project MCP servers, a hook
    script and the four bearer files, as its emitter would describe them."""
    home, repo = root / "seats" / "ada" / "claude-code", root / "repos" / "ada"

    def file(path: Path, owner: str, rule: str, status: str = MATCH) -> Artifact:
        emitted = EmittedFile(path, owner, rule, 0o600, root, render=lambda: b"")
        return Artifact(path, owner, status, (), "as planned", emitted=emitted)

    artifacts = [
        file(home / "settings.json", "fleet", settings_rule, DIVERGENT),
        file(repo / ".mcp.json", "fleet", "claude-mcp"),
        file(home / "hooks" / "identity_session_start.py", "fleet", emission.WHOLE_FILE),
    ] + [file(home / "memory" / name, "bearer", emission.CREATE_ONLY) for name in
         ("MEMORY.md", "identity.md", "seat-pointers.md", "about-this-layer.md")]
    return ResidentPlan("@neo-claude-ada", "claude-code", home, home / "memory", repo, artifacts)


async def show_three_harnesses(app, pilot, tmp_path) -> FleetScreen:
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, FleetScreen)
    plans = screen.plans + [third_harness_plan(tmp_path)]
    screen.show_plans(screen.fleet, plans, screen.meters, screen.boot_results)
    await pilot.pause()
    return screen


@pytest.mark.parametrize("size, titles", [((80, 24), [ROLE_TITLES_NARROW]),
                                          ((120, 36), [ROLE_TITLES_WIDE, ROLE_TITLES_NARROW])])
async def test_three_harnesses_fit_in_five_role_columns(tmp_path, monkeypatch, size, titles):
    # What the claude-code emitter adds to the core's table; the screen itself is not touched.
    monkeypatch.setitem(CONVERGENCE_ROLES, "claude-settings", (ROLE_CONFIG,))
    monkeypatch.setitem(CONVERGENCE_ROLES, "claude-mcp", (ROLE_MCP,))
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=size) as pilot:
        screen = await show_three_harnesses(app, pilot, tmp_path)
        grid = screen.query_one(FleetGrid)
        assert {"kimi-code", "opencode", "claude-code"} <= {p.harness for p in grid.plans}
        assert labels(grid)[-5:] in titles
        assert grid.virtual_size.width <= grid.size.width  # every column in view: nothing scrolls sideways
        assert grid.max_scroll_x == 0
        # A click on the new seat's config cell: its divergent settings file, named in the detail.
        row = [p.agent_id for p in grid.plans].index("@neo-claude-ada")
        assert await pilot.click(grid, offset=cell_offset(grid, row, grid.first_role_column))
        await pilot.pause()
        assert grid.cursor_coordinate == (row, grid.first_role_column)
        assert grid.get_cell_at(grid.cursor_coordinate).plain.strip() in ("✗", "✗ DIVERGENT")
        detail = str(screen.query_one("#fleet-detail-text").render())
        assert "settings.json" in detail and "DIVERGENT" in detail


async def test_opencode_config_file_serves_config_and_mcp(tmp_path):
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        grid = app.screen.query_one(FleetGrid)
        row = [p.harness for p in grid.plans].index("opencode")
        for role in (ROLE_CONFIG, ROLE_MCP):
            grid.move_cursor(row=row, column=grid.first_role_column + grid.roles.index(role))
            await pilot.pause()
            assert [a.path.name for a in grid.current_artifacts()] == ["opencode.jsonc"]
            assert "opencode.jsonc" in str(app.screen.query_one("#fleet-detail-text").render())


async def test_a_rule_without_a_role_gets_a_column_named_after_its_file(tmp_path, monkeypatch):
    monkeypatch.setitem(CONVERGENCE_ROLES, "claude-mcp", (ROLE_MCP,))
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        plans = screen.plans + [third_harness_plan(tmp_path, settings_rule="a-rule-nobody-mapped")]
        screen.show_plans(screen.fleet, plans, screen.meters, screen.boot_results)
        await pilot.pause()
        grid = screen.query_one(FleetGrid)
        assert labels(grid)[-6:] in (ROLE_TITLES_WIDE[:4] + ["settings.json", ROLE_TITLES_WIDE[4]],
                                     ROLE_TITLES_NARROW[:4] + ["settings.json", ROLE_TITLES_NARROW[4]])
        assert grid.roles[4] == "settings.json"


def test_every_file_every_emitter_writes_has_a_role(tmp_path):
    """A new harness's emitter must map its convergence rules to roles (emission.CONVERGENCE_ROLES);
    else its files get columns of their own and the panel stops fitting at 80 columns."""
    from generators.manifest import HARNESSES, load_manifest

    residents = "".join(f'\n[[residents]]\nagent_id = "@neo-{h}-seat"\nharness = "{h}"\nrepo = "repos/{h}"\n'
                        for h in HARNESSES)
    manifest = tmp_path / "fleet.toml"
    manifest.write_text('instance_root = "seats"\nmcp_prefix = "neo-mjs-"\ndefault_model = "kimi-k2"\n'
                        'default_permission_mode = "manual"\n\n[mcp.neo-mjs-memory-core]\ncommand = "npx"\n'
                        'enabled = true\n' + residents, encoding="utf-8")
    fleet = load_manifest(manifest)
    assert set(composer.EMITTERS) == set(HARNESSES)
    for resident in fleet.residents:
        for item in composer.emit_resident(fleet, resident):
            assert item.convergence in CONVERGENCE_ROLES, f"{resident.harness}: {item.path.name} ({item.convergence})"


async def test_a_long_resident_id_is_cut_rather_than_the_grid_scrolling_sideways(tmp_path, monkeypatch):
    """Fixed columns over a half-scrolled one showed fragments ("rness", "encode"): at 80 columns the
    grid fits instead, a long id cut with … and named in full in the detail."""
    monkeypatch.setitem(CONVERGENCE_ROLES, "claude-settings", (ROLE_CONFIG,))
    monkeypatch.setitem(CONVERGENCE_ROLES, "claude-mcp", (ROLE_MCP,))
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        long_one = third_harness_plan(tmp_path)
        long_one.agent_id = "@neo-claude-code-ada-lovelace-analytical-engine"
        screen.show_plans(screen.fleet, screen.plans + [long_one], screen.meters, screen.boot_results)
        await pilot.pause()
        grid = screen.query_one(FleetGrid)
        assert grid.max_scroll_x == 0 and grid.virtual_size.width <= grid.size.width
        assert labels(grid)[-5:] == ROLE_TITLES_NARROW
        row = len(grid.plans) - 1
        grid.move_cursor(row=row, column=grid.first_role_column)
        await pilot.pause()
        assert long_one.agent_id in str(screen.query_one("#fleet-detail-text").render())
        rendered = "".join(s.text for s in grid.render_line(grid.header_height + row))
        assert "@neo-claude" in rendered and "…" in rendered
