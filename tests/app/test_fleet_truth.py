"""The fleet panel tells the truth: a drift marks only the role whose owned keys differ, the detail
leads with the worst file, and the preview shows the whole content of every file it would create."""

from __future__ import annotations

from curator.app import CuratorApp
from generators.emission import ROLE_BOOT, ROLE_CONFIG, ROLE_MCP
from tests.support.fleet_screen import KIMI, OPENCODE, cell, detail, open_preview_on, select
from tests.support.app import artifact_path, make_divergent, settle, write_example_fleet


async def test_only_the_role_whose_owned_keys_differ_is_marked(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    make_divergent(manifest)  # opencode.jsonc: only `instructions` changed; its MCP servers match
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        assert cell(fleet, OPENCODE, ROLE_CONFIG) == "✗ DIVERGENT"
        assert cell(fleet, OPENCODE, ROLE_MCP) == "✓ MATCH"
        path = artifact_path(manifest, "opencode.jsonc")
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace('"node"', '"deno"', 1) if '"node"' in text else
                        text.replace('"npx"', '"deno"', 1), encoding="utf-8")
        fleet.refresh_plan()
        await settle(app, pilot)
        assert cell(fleet, OPENCODE, ROLE_MCP) == "✗ DIVERGENT"  # now a server differs too


async def test_a_pending_seat_leads_with_the_missing_file(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    hook = artifact_path(manifest, "identity_anchor_hook.py")
    hook.unlink()  # the kimi seat is PENDING: its config.toml is MATCH, its hook is missing
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        select(fleet, KIMI)  # the resident's column: every file of the seat in the detail
        await settle(app, pilot)
        shown = detail(fleet)
        head, first_file = shown.splitlines()[0], shown.split("\n\n")[1].splitlines()[0]
        assert "worst: PENDING (hooks/identity_anchor_hook.py (in the seat home))" in head
        assert first_file.startswith("+ PENDING") and "identity_anchor_hook.py" in first_file
        select(fleet, KIMI, ROLE_BOOT)
        await settle(app, pilot)
        assert cell(fleet, KIMI, ROLE_BOOT) == "+ PENDING"


async def test_the_preview_shows_the_whole_content_of_a_file_it_would_create(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet", provision=False)
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        preview = await open_preview_on(app, pilot, KIMI)
        for row, (_plan, artifact) in enumerate(preview.rows):
            if artifact.path.name in ("config.toml", "identity_anchor_hook.py"):
                preview.query_one("#preview-table").move_cursor(row=row)
                await settle(app, pilot)
                shown = str(preview.query_one("#preview-diff-text").render())
                assert "will be created (mode 0" in shown
                assert artifact.emitted.content.decode() in shown  # every line, not a summary


async def test_the_set_aside_prompt_names_the_residents_keys_the_new_file_will_lack(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    path = make_divergent(manifest)
    path.write_text(path.read_text(encoding="utf-8").replace('"instructions": [', '"model": "anthropic/claude-sonnet",\n'
                                                             '  "instructions": [', 1), encoding="utf-8")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        select(app.screen, OPENCODE, ROLE_CONFIG)
        await pilot.press("x")
        await settle(app, pilot)
        body = " ".join(str(app.screen.query_one("#confirm-body").render()).split())
        assert "The re-created file will lack the resident's own model" in body
        assert "`provision --repair` rewrites only the owned values and keeps them" in body
        assert "nothing is deleted" not in body
        await pilot.press("n")
        await settle(app, pilot)
        assert '"model": "anthropic/claude-sonnet"' in path.read_text(encoding="utf-8")


async def test_a_kept_file_shows_as_kept_and_is_counted(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('harness = "kimi-code"', 'harness = "kimi-code"\nkeep = ["config.toml"]', 1),
                        encoding="utf-8")
    config = artifact_path(manifest, "config.toml")
    config.write_text('default_model = "mine"\n', encoding="utf-8")  # the resident's own, no fleet keys
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        assert cell(fleet, KIMI, ROLE_CONFIG) == "= KEPT"
        assert "1 KEPT" in str(fleet.query_one("#status").render()) and "0 DIVERGENT" in str(fleet.query_one("#status").render())


async def test_r_repairs_the_owned_values_and_keeps_the_residents_own_key(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    path = make_divergent(manifest)
    path.write_text(path.read_text(encoding="utf-8").replace('"instructions": [', '"model": "anthropic/claude-sonnet",'
                                                             ' // mine\n  "instructions": [', 1), encoding="utf-8")
    edited = path.read_text(encoding="utf-8")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        select(app.screen, OPENCODE, ROLE_MCP)  # its MCP servers match: nothing to repair in this cell
        await pilot.press("r")
        await settle(app, pilot)
        assert "repairable" in " ".join(n.message for n in app.notices) and path.read_text() == edited
        select(app.screen, OPENCODE, ROLE_CONFIG)
        await pilot.press("r")
        await settle(app, pilot)
        body = str(app.screen.query_one("#confirm-body").render())
        assert '-    "/tmp/extra-notes.md",' in body
        await pilot.press("y")
        await settle(app, pilot)
        assert cell(app.screen, OPENCODE, ROLE_CONFIG) in ("✓ MATCH", "✓")
        repaired = path.read_text(encoding="utf-8")
        assert repaired == edited.replace('\n    "/tmp/extra-notes.md",', "", 1)  # just that, nothing else


async def test_r_in_the_filter_types_an_r(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    make_divergent(manifest)
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        select(app.screen, OPENCODE, ROLE_CONFIG)
        await pilot.press("slash", "r")
        await settle(app, pilot)
        assert app.screen.query_one("#fleet-filter").value == "r" and not app.screen.query("#confirm-body")


async def test_r_in_the_preview_repairs_the_selected_file_and_keeps_the_residents_own_key(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    path = make_divergent(manifest)
    path.write_text(path.read_text(encoding="utf-8").replace('"instructions": [', '"model": "anthropic/claude-sonnet",'
                                                             ' // mine\n  "instructions": [', 1), encoding="utf-8")
    edited = path.read_text(encoding="utf-8")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        preview = await open_preview_on(app, pilot, OPENCODE)
        table = preview.query_one("#preview-table")
        row = next(i for i, (_plan, a) in enumerate(preview.rows) if a.path == path)
        table.move_cursor(row=row)
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        assert '-    "/tmp/extra-notes.md",' in str(app.screen.query_one("#confirm-body").render())
        await pilot.press("y")
        await settle(app, pilot)
        assert path.read_text(encoding="utf-8") == edited.replace('\n    "/tmp/extra-notes.md",', "", 1)
        assert app.screen is preview and preview.changed
