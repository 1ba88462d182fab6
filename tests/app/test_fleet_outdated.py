"""The fleet panel and the re-provision preview on a seat whose hook an earlier seat-curator wrote:
OUTDATED in the grid, the detail and the status line, and written over by a plain apply."""

from __future__ import annotations

from textual.widgets import Button

from curator.app import CuratorApp
from generators.composer import MATCH
from generators.emission import ROLE_BOOT
from tests.support.app import artifact_path, settle, write_example_fleet
from tests.support.fleet_screen import KIMI, cell, detail, open_preview_on, select
from tests.support.prior_scripts import make_outdated

OUTDATED = "OUTDATED"  # the core's word (spelt out: the test must read on a core that lacks it)


async def test_an_earlier_hook_shows_outdated_and_the_preview_writes_this_version(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    hook = artifact_path(manifest, "identity_anchor_hook.py")
    current = hook.read_bytes()
    make_outdated(hook)
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        assert cell(fleet, KIMI, ROLE_BOOT) == f"~ {OUTDATED}"
        status = str(fleet.query_one("#status").render())
        assert f"1 {OUTDATED}" in status and "0 DIVERGENT" in status
        select(fleet, KIMI, ROLE_BOOT)
        await settle(app, pilot)
        assert "written by an earlier seat-curator" in detail(fleet)
        preview = await open_preview_on(app, pilot, KIMI, ROLE_BOOT)
        apply = preview.query_one("#apply", Button)
        verdict = str(preview.query_one("#preview-verdict").render())
        assert not apply.disabled and "READY" in verdict and OUTDATED in verdict
        assert await pilot.click("#apply")
        await settle(app, pilot)
        assert {a.status for _, a in preview.rows} == {MATCH}
        await pilot.press("q")
        await settle(app, pilot)
        assert cell(app.screen, KIMI, ROLE_BOOT).endswith(MATCH)
    assert hook.read_bytes() == current
