"""`e` after a boot check shows that check's evidence, also when its result could not be saved, and
the boot-check status line fits 80 columns. No harness runs here: the canary is replaced by one that
returns a failed check, the way a real run reports it."""

from __future__ import annotations

import time

from curator.app import CuratorApp
from curator.canary.result import CanaryResult, ResidentResult, StepResult
from curator.screens.canary_evidence import CanaryEvidence
from curator.screens.fleet import FleetScreen
from curator.widgets.fleet_grid import FleetGrid
from tests.support.app import boot_cell, settle
from tests.support.canary import born_fleet
from tests.support.fleets import KIMI


def failing_canary(calls: list):
    def run_canary(fleet_path, resident, *, progress=None, save=True, **_):
        calls.append((resident, save))
        step = StepResult("boot", "FAIL", "no session-boot block reached the model",
                          ["no [[hooks]] entry for UserPromptSubmit"])
        return CanaryResult(str(fleet_path), [ResidentResult(resident, "kimi-code", [step], finished_at=time.time(),
                                                             seconds=7.5, cli="kimi")])
    return run_canary


async def press_c_on(app, pilot, resident: str) -> FleetScreen:
    """Settle, put the grid's cursor on ``resident``, press c and let the boot check end: the fleet screen."""
    await settle(app, pilot)
    screen = app.screen
    grid = screen.query_one(FleetGrid)
    grid.move_cursor(row=[p.agent_id for p in grid.plans].index(resident))
    await pilot.press("c")
    await settle(app, pilot)
    return screen


async def test_e_after_a_failed_check_shows_its_evidence_even_when_the_result_cannot_be_saved(tmp_path, monkeypatch):
    import curator.canary.run

    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("not a directory\n", encoding="utf-8")
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(blocker))  # saving the result fails
    calls: list = []
    monkeypatch.setattr(curator.canary.run, "run_canary", failing_canary(calls))
    fleet = born_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=fleet.path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = await press_c_on(app, pilot, KIMI)
        assert [resident for resident, _save in calls] == [KIMI]
        assert isinstance(app.screen, CanaryEvidence)  # the evidence opens when the check ends
        await pilot.press("q")
        await settle(app, pilot)
        assert app.screen is screen and boot_cell(screen, KIMI).split()[0] == "FAIL"
        assert "not saved" in "\n".join(str(n.message) for n in app.notices)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, CanaryEvidence)
        evidence = str(app.screen.query_one("#canary-evidence-text").render())
        assert "✗ FAIL" in evidence and "no [[hooks]] entry for UserPromptSubmit" in evidence


async def test_boot_check_not_run_status_fits_80_columns_and_names_no_flag(tmp_path, monkeypatch):
    from tests.support.fleets import write_fleet
    from generators.composer import apply_fleet
    from generators.manifest import load_manifest

    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "canary-state"))
    monkeypatch.setenv("SEAT_CURATOR_HARNESS_DIR", str(tmp_path / "no-harnesses"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    fleet = load_manifest(write_fleet(tmp_path / "fleet"))
    apply_fleet(fleet)
    app = CuratorApp(fleet_path=fleet.path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen: FleetScreen = await press_c_on(app, pilot, KIMI)
        status = screen.query_one("#status")
        text = str(status.render())
        assert "boot check not run" in text and "e: why" in text
        assert "flag" not in text
        assert len(text) <= status.content_size.width * 2  # two lines at most, and it fits them
        assert status.virtual_size.height <= status.size.height  # nothing of it out of view
