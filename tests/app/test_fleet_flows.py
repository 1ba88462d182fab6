"""Pilot tests of the operator's fleet panel and the re-provision preview, asserting on what the
screen shows and on the files on disk: the panel is current whenever it is shown, boot-check ages
tick, a boot check that could not start says why (at 80 columns too), diffs are in the file's own
lines, and the preview fits 80x24 with its buttons and keys in view."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import Button, Input

from curator.app import CuratorApp
from curator.canary.last_result import save_results
from curator.canary.result import ResidentResult, StepResult
from curator.screens.canary_evidence import CanaryEvidence
from curator.screens.dialogs import DiffDialog
from curator.screens.fleet import BOOT_CHECK
from curator.screens.help import HelpScreen
from curator.screens.index import IndexScreen
from curator.screens.preview import PreviewScreen
from curator.widgets.fleet_grid import FleetGrid
from generators.composer import DIVERGENT, MATCH, PENDING
from generators.emission import ROLE_BOOT, ROLE_CONFIG
from tests.support.fleet_screen import KIMI, OPENCODE, cell, detail, open_preview_on, select
from tests.support.app import artifact_path, settle, write_example_fleet, write_seat

def edit_kimi_config(manifest: Path) -> Path:
    path = artifact_path(manifest, "config.toml")
    text = path.read_text(encoding="utf-8")
    assert 'default_permission_mode = "manual"' in text
    path.write_text(text.replace('default_permission_mode = "manual"', 'default_permission_mode = "yolo"'),
                    encoding="utf-8")
    return path


# -- current whenever shown ------------------------------------------------------------------

async def test_back_from_a_seat_the_panel_shows_what_is_on_disk_now(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        assert cell(fleet, KIMI, "index").endswith("OK")
        select(fleet, KIMI)
        await pilot.press("o")
        await settle(app, pilot)
        assert isinstance(app.screen, IndexScreen)
        write_seat(app.screen.memory_dir, craft=180)  # the seat grew over its target meanwhile
        app.pop_screen()
        await settle(app, pilot)
        assert app.screen is fleet
        assert cell(fleet, KIMI, "index").endswith("OVER")


async def test_back_from_a_preview_that_changed_nothing_the_panel_replans(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        select(fleet, KIMI, ROLE_CONFIG)
        assert cell(fleet, KIMI, ROLE_CONFIG).endswith(MATCH)
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen)
        edit_kimi_config(manifest)  # a hand edit while the operator looks at the preview
        await pilot.press("q")
        await settle(app, pilot)
        assert app.screen is fleet
        assert cell(fleet, KIMI, ROLE_CONFIG).endswith(DIVERGENT)


async def test_boot_check_ages_tick_while_the_panel_is_open(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    finished = time.time()
    save_results(manifest, [ResidentResult(KIMI, "kimi-code", [StepResult("boot", "FAIL", "no index")],
                                           finished_at=finished)])
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        fleet.clock = lambda: finished + 3
        await pilot.pause(fleet.AGE_TICK_S + 0.3)
        assert cell(fleet, KIMI, BOOT_CHECK) == "FAIL 3s ago"
        fleet.clock = lambda: finished + 65  # a minute later, without a key pressed
        await pilot.pause(fleet.AGE_TICK_S + 0.3)
        assert cell(fleet, KIMI, BOOT_CHECK) == "FAIL 1m ago"


# -- the filter and the grid -------------------------------------------------------------------

async def test_in_the_filter_letters_are_text_and_esc_returns_to_the_grid(tmp_path):
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        grid = fleet.query_one(FleetGrid)
        await pilot.press("slash")
        box = fleet.query_one("#fleet-filter", Input)
        assert app.focused is box
        await pilot.press("o", "p", "e", "n")  # o, p and e are commands on the grid, text here
        await pilot.pause()
        assert app.screen is fleet and box.value == "open"
        assert [p.agent_id for p in grid.plans] == [OPENCODE]
        await pilot.press("f1")  # an F-key still works in the filter
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is fleet
        await pilot.press("escape")  # back to the grid, the filter kept
        await pilot.pause()
        assert app.focused is grid and box.value == "open"
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen) and app.screen.resident_ids == [OPENCODE]
        await pilot.press("q")
        await settle(app, pilot)
        await pilot.press("slash")  # the filter focused again: f4 still opens the preview
        assert app.focused is box
        await pilot.press("f4")
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen) and app.screen.resident_ids == [OPENCODE]
        assert box.value == "open"


async def test_enter_in_the_filter_returns_to_the_grid_and_a_click_selects_a_cell(tmp_path):
    from tests.support.app import cell_offset
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        grid = fleet.query_one(FleetGrid)
        await pilot.press("slash", *"kimi", "enter")
        await pilot.pause()
        assert app.focused is grid and [p.agent_id for p in grid.plans] == [KIMI]
        column = grid.first_role_column + grid.roles.index(ROLE_BOOT)
        assert await pilot.click(grid, offset=cell_offset(grid, 0, column))
        await pilot.pause()
        assert grid.cursor_coordinate == (0, column)
        assert "identity_anchor_hook.py" in detail(fleet) and "config.toml" not in detail(fleet)


# -- the boot check that could not start -------------------------------------------------------

async def test_a_boot_check_that_cannot_start_says_why_at_80_columns_and_e_shows_it(tmp_path, monkeypatch):
    monkeypatch.setattr("curator.canary.clis.cache_dirs", lambda: (tmp_path / "no-cache",))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))  # no harness anywhere
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "canary-state"))
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        select(fleet, KIMI)
        await pilot.press("c")
        await settle(app, pilot)
        status = fleet.query_one("#status")
        text = str(status.render())
        assert text.startswith("boot check not run: kimi-code CLI not found")
        assert "no flag" not in text  # the app has no flag to name
        assert len(text) <= status.content_size.width * status.content_size.height  # nothing cut
        assert cell(fleet, KIMI, BOOT_CHECK) == "never"  # nothing ran (narrow words at 80 columns)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, CanaryEvidence)
        evidence = str(app.screen.query_one("#canary-evidence-text").render())
        assert "ERROR" in evidence and KIMI in evidence and "not run" in evidence
        assert "kimi-code CLI not found" in evidence and "No boot check has run" not in evidence


# -- diffs in the file's own lines -------------------------------------------------------------

async def test_a_hand_edited_config_toml_shows_its_own_toml_lines(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    edit_kimi_config(manifest)
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        assert fleet.query_one(FleetGrid).current_role() == ROLE_CONFIG  # opens on the divergence
        shown = detail(fleet)
        assert '-default_permission_mode = "manual"' in shown and '+default_permission_mode = "yolo"' in shown
        assert '"default_permission_mode":' not in shown  # not the JSON projection
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DiffDialog)
        assert '+default_permission_mode = "yolo"' in app.screen.diff
        assert "config.toml (the fleet writes)" in app.screen.diff


# -- the re-provision preview --------------------------------------------------------------------

def long_hook_divergence(manifest: Path) -> Path:
    """The kimi hook script rewritten by hand: a diff far longer than any terminal."""
    hook = artifact_path(manifest, "identity_anchor_hook.py")
    hook.write_text("".join(f"print('hand edit {n}')\n" for n in range(200)), encoding="utf-8")
    return hook


def inside(widget, size: tuple[int, int]) -> bool:
    region = widget.region
    return region.width > 0 and region.height > 0 and region.right <= size[0] and region.bottom <= size[1]


async def test_preview_at_80x24_keeps_apply_cancel_and_their_keys_in_view_and_scrolls_the_whole_diff(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    long_hook_divergence(manifest)
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(80, 24)) as pilot:
        preview = await open_preview_on(app, pilot, KIMI)
        apply, cancel = preview.query_one("#apply", Button), preview.query_one("#cancel", Button)
        assert inside(apply, (80, 24)) and inside(cancel, (80, 24))
        assert "enter" in str(apply.label) and "esc" in str(cancel.label)
        assert apply.disabled  # refused: something is DIVERGENT
        pane = preview.query_one("#preview-diff")
        assert "diff of" in pane.border_title
        await pilot.press("tab")  # from the file list into the diff
        await settle(app, pilot)
        assert app.focused is pane
        await pilot.press("pagedown")
        await settle(app, pilot)
        assert pane.scroll_y > 0
        await pilot.press("end")
        await settle(app, pilot)
        assert pane.scroll_y == pane.max_scroll_y > 0
        assert "print('hand edit 199')" in str(preview.query_one("#preview-diff-text").render())
        short = pane.size.height
    async with CuratorApp(fleet_path=manifest).run_test(size=(80, 50)) as pilot:
        preview = await open_preview_on(pilot.app, pilot, KIMI)
        assert preview.query_one("#preview-diff").size.height > short + 20  # the diff takes the room


async def test_preview_keys_f1_q_esc_and_a_click_on_cancel(tmp_path):
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        preview = await open_preview_on(app, pilot, KIMI)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is preview
        await pilot.press("q")
        await settle(app, pilot)
        assert app.screen is fleet
        preview = await open_preview_on(app, pilot, KIMI)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is fleet
        preview = await open_preview_on(app, pilot, KIMI)
        assert await pilot.click("#cancel")
        await settle(app, pilot)
        assert app.screen is fleet


async def test_preview_click_on_a_row_shows_its_file_and_click_on_apply_writes(tmp_path):
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    manifest = write_example_fleet(tmp_path / "fleet", provision=False)
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)  # the plan runs in a worker: its counts come when it is done
        fleet = app.screen
        assert f"0 {MATCH}" in str(fleet.query_one("#status").render())
        preview = await open_preview_on(app, pilot, KIMI)
        table = preview.query_one("#preview-table")
        assert await pilot.click(table, offset=(2, 1 + 2))  # the third file
        await pilot.pause()
        assert table.cursor_row == 2
        _, third = preview.rows[2]
        assert third.path.name in preview.query_one("#preview-diff").border_title
        apply = preview.query_one("#apply", Button)
        assert not apply.disabled and "READY" in str(preview.query_one("#preview-verdict").render())
        assert await pilot.click("#apply")
        await settle(app, pilot)
        assert {a.status for _, a in preview.rows} == {MATCH} and apply.disabled
        await pilot.press("q")
        await settle(app, pilot)
        assert app.screen is fleet
    kimi = plan_fleet(load_manifest(manifest), KIMI)[0]
    assert kimi.status == MATCH and (kimi.memory_dir / "MEMORY.md").is_file()


async def test_status_line_counts_with_the_cores_status_words(tmp_path):
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    manifest = write_example_fleet(tmp_path / "fleet", provision=False)
    statuses = [a.status for p in plan_fleet(load_manifest(manifest)) for a in p.artifacts]
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        status = str(app.screen.query_one("#status").render())
    assert statuses.count(PENDING) > 0
    for word in set(statuses):  # the core's own words, with their counts
        assert f"{statuses.count(word)} {word}" in status
    assert "(pending)" not in status


async def test_keys_typed_ahead_after_slash_land_in_the_filter_and_after_esc_on_the_grid(tmp_path):
    """A terminal delivers "/iris" in one read (tmux send-keys does): focus must move before the next
    key is handled, or the letters reach the grid (where e, c, x, d are commands) instead of the filter."""
    from textual import events

    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        for key, char in (("slash", "/"), ("i", "i"), ("r", "r"), ("i", "i"), ("s", "s")):
            app.post_message(events.Key(key, char))  # all queued before any is handled
        await settle(app, pilot)
        assert app.screen is fleet and fleet.query_one("#fleet-filter", Input).value == "iris"
        for key, char in (("escape", None), ("p", "p")):
            app.post_message(events.Key(key, char))
        await settle(app, pilot)
        assert isinstance(app.screen, PreviewScreen) and app.screen.resident_ids == [KIMI]


USERS_OWN_JSONC = """// my own opencode settings
{
  "model": "anthropic/claude-sonnet", // the one I like
  "mcp": {
    "my-private-server": { "type": "local", "command": ["my-server"] }
  }
}
"""


async def test_preview_adopts_a_users_own_config_keeping_every_byte_after_showing_the_diff(tmp_path):
    from curator.screens.dialogs import ConfirmDialog
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    manifest = write_example_fleet(tmp_path / "fleet", provision=False)
    jsonc = next(a.path for p in plan_fleet(load_manifest(manifest)) for a in p.artifacts
                 if a.path.name == "opencode.jsonc")
    jsonc.write_text(USERS_OWN_JSONC, encoding="utf-8")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(80, 24)) as pilot:
        preview = await open_preview_on(app, pilot, OPENCODE)
        assert "ADOPTABLE" in str(preview.query_one("#preview-verdict").render())
        adopt = preview.query_one("#adopt", Button)
        assert inside(adopt, (80, 24)) and not adopt.disabled and "(a)" in str(adopt.label)
        assert preview.query_one("#apply", Button).disabled  # enter alone would refuse
        shown = str(preview.query_one("#preview-diff-text").render())  # the divergent row is first
        assert "adoptable" in shown
        assert any(line.startswith("+") and '"instructions"' in line for line in shown.splitlines())
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        assert "instructions" in str(app.screen.query_one("#confirm-body").render())
        assert jsonc.read_text(encoding="utf-8") == USERS_OWN_JSONC  # nothing written before yes
        await pilot.press("y")
        await settle(app, pilot)
        assert app.screen is preview and {a.status for _, a in preview.rows} == {MATCH}
    after = jsonc.read_text(encoding="utf-8")
    # Every byte of the user's file is still there, in order; only the owned keys were added.
    position = 0
    for char in USERS_OWN_JSONC:
        position = after.index(char, position) + 1
    assert "instructions" in after and "neo-mjs-memory-core" in after
    assert all(p.status == MATCH for p in plan_fleet(load_manifest(manifest), OPENCODE))


async def test_space_marks_residents_for_one_preview_and_help_lists_it(tmp_path):
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        listed = [description for _, description, _ in app.screen.keys]
        assert "Mark resident" in listed and "Boot check" in listed and "Re-provision preview" in listed
        await pilot.press("escape")
        await pilot.pause()
        select(fleet, KIMI)
        await pilot.press("space")
        select(fleet, OPENCODE)
        await pilot.press("space")
        await pilot.pause()
        assert cell(fleet, KIMI, "mark") == "✓" and cell(fleet, OPENCODE, "mark") == "✓"
        await pilot.press("p")
        await settle(app, pilot)
        preview = app.screen
        assert isinstance(preview, PreviewScreen) and preview.resident_ids == [KIMI, OPENCODE]
        assert "Resident" in [str(c.label) for c in preview.query_one("#preview-table").columns.values()]
        assert {plan.agent_id for plan, _ in preview.rows} == {KIMI, OPENCODE}
