"""The fleet panel's boot check against the real Kimi Code CLI: `c` runs the canary in a worker,
the grid shows its progress and verdict, the evidence opens in a panel, the result is saved.

Each run is a real harness (10–25 s), so there are two: a born seat passes; the same seat without
its hook pair fails and the panel names the missing piece. Skips when the CLIs are absent, fails
under CI=true (the `harness_clis` fixture in tests/conftest.py)."""

from __future__ import annotations

import asyncio
import time

import pytest

from curator.app import CuratorApp
from curator.canary.last_result import load_result, results_path
from curator.canary.seat import seats_from_fleet
from curator.screens.canary_evidence import CanaryEvidence
from curator.screens.fleet import FleetScreen
from curator.widgets.fleet_grid import FleetGrid
from tests.support.app import boot_cell, settle
from tests.support.canary import born_fleet, remove_kimi_hook_pair
from tests.support.fleets import KIMI

pytestmark = [pytest.mark.canary, pytest.mark.xdist_group("canary")]

SIZE = (120, 36)
RUN_LIMIT_S = 150  # a canary run is bounded by its turn timeouts; this only stops a hung test


async def run_boot_check(app, pilot, resident: str) -> str:
    """Select ``resident``, press c, check the progress shows, wait for the evidence panel; its text."""
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, FleetScreen)
    grid = screen.query_one(FleetGrid)
    grid.move_cursor(row=[p.agent_id for p in grid.plans].index(resident))
    await pilot.press("c")
    await pilot.pause()
    assert boot_cell(screen, resident) == "running…"
    assert "Boot check" in str(screen.query_one("#status").render())
    deadline = time.monotonic() + RUN_LIMIT_S
    while not isinstance(app.screen, CanaryEvidence):
        assert time.monotonic() < deadline, f"no boot-check result after {RUN_LIMIT_S} s"
        await asyncio.sleep(0.2)
    await pilot.pause()
    evidence = str(app.screen.query_one("#canary-evidence-text").render())
    await pilot.press("escape")
    await settle(app, pilot)
    assert app.screen is screen
    return evidence


async def test_c_runs_the_boot_check_and_shows_pass_with_evidence(harness_clis, tmp_path, monkeypatch):
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "canary-state"))
    fleet = born_fleet(tmp_path / "fleet")
    memory = (seats_from_fleet(fleet, KIMI)[0].memory_dir / "MEMORY.md").read_bytes()
    app = CuratorApp(fleet_path=fleet.path)
    async with app.run_test(size=SIZE) as pilot:
        evidence = await run_boot_check(app, pilot, KIMI)
        assert boot_cell(app.screen, KIMI).startswith("PASS ")
        assert boot_cell(app.screen, "@neo-opencode-juno") == "never run"  # only the selected resident ran
    assert f"✓ PASS  {KIMI} (kimi-code)" in evidence
    for step in ("boot", "silent", "compact", "reload"):
        assert f"✓ PASS  {step}: " in evidence
    assert "i INFO  compact-turn-index: " in evidence
    assert f"MEMORY.md: {len(memory)} bytes arrived, identical to disk" in evidence
    saved = results_path(fleet.path)
    assert saved.is_file() and saved.is_relative_to(tmp_path / "canary-state")
    assert load_result(fleet.path, KIMI).status == "PASS"


async def test_boot_check_without_the_hook_pair_fails_and_names_it(harness_clis, tmp_path, monkeypatch):
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "canary-state"))
    fleet = born_fleet(tmp_path / "fleet")
    remove_kimi_hook_pair(fleet)
    app = CuratorApp(fleet_path=fleet.path)
    async with app.run_test(size=SIZE) as pilot:
        evidence = await run_boot_check(app, pilot, KIMI)
        assert boot_cell(app.screen, KIMI).startswith("FAIL ")
    assert f"✗ FAIL  {KIMI} (kimi-code)" in evidence
    assert "✗ FAIL  boot: " in evidence
    assert "no [[hooks]] entry for UserPromptSubmit" in evidence
    assert "no [[hooks]] entry for PostCompact" in evidence
    assert load_result(fleet.path, KIMI).status == "FAIL"


async def test_missing_cli_says_so_and_runs_nothing(tmp_path, monkeypatch):
    """No harness needed: a manifest pointing kimi-code at nothing is an error before any run."""
    from generators.composer import apply_fleet
    from generators.manifest import load_manifest
    from tests.support.fleets import write_fleet
    monkeypatch.setenv("SEAT_CURATOR_STATE_DIR", str(tmp_path / "canary-state"))
    missing = tmp_path / "nowhere" / "kimi"
    fleet = load_manifest(write_fleet(tmp_path / "fleet", f'\n[harness_cli]\nkimi-code = "{missing}"\n'))
    apply_fleet(fleet)
    app = CuratorApp(fleet_path=fleet.path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        screen = app.screen
        grid = screen.query_one(FleetGrid)
        grid.move_cursor(row=[p.agent_id for p in grid.plans].index(KIMI))
        await pilot.press("c")
        await settle(app, pilot)
        assert app.screen is screen  # no evidence panel: nothing ran
        assert boot_cell(screen, KIMI) == "never run"
        status = str(screen.query_one("#status").render())
        assert "boot check not run" in status and str(missing) in status
        await pilot.press("e")  # this attempt's evidence: why it could not start, not "none has run"
        await pilot.pause()
        assert isinstance(app.screen, CanaryEvidence)
        evidence = str(app.screen.query_one("#canary-evidence-text").render())
        assert "ERROR" in evidence and "not run" in evidence and str(missing) in evidence
    assert not results_path(fleet.path).exists()
