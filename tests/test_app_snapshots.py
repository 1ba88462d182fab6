"""Snapshot tests at 120x36: the index screen over target, the fleet panel with a divergent seat, the
re-provision preview refusing. Paths on screen are made deterministic (a relative memory dir; the
fleet under a fixed directory). Record with ``pytest tests/test_app_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import TextArea

from curator.app import CuratorApp
from test_app_fixtures import app_env, make_divergent, settle, write_fleet, write_seat  # noqa: F401

SIZE = (120, 36)
FLEET_ROOT = Path("/tmp/seat-curator-snapshots/fleet")  # fixed: its paths appear on screen


async def quiet(pilot) -> None:
    await settle(pilot.app, pilot)
    for editor in pilot.app.screen.query(TextArea):
        editor.cursor_blink = False
    await pilot.wait_for_scheduled_animations()  # e.g. the grid scrolling to the divergent cell
    await pilot.pause()


def divergent_fleet() -> Path:
    shutil.rmtree(FLEET_ROOT, ignore_errors=True)
    manifest = write_fleet(FLEET_ROOT)
    make_divergent(manifest)
    return manifest


def test_index_screen_over_target(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_seat(tmp_path / "memory", craft=180)
    assert snap_compare(CuratorApp(Path("memory")), terminal_size=SIZE, run_before=quiet)


def test_fleet_panel_with_a_divergent_seat(snap_compare):
    # The panel opens with the cursor on the first DIVERGENT cell, its reason and diff below.
    assert snap_compare(CuratorApp(fleet_path=divergent_fleet()), terminal_size=SIZE, run_before=quiet)


def test_preview_refusing_a_divergent_seat(snap_compare):
    app = CuratorApp(fleet_path=divergent_fleet())

    async def open_preview(pilot) -> None:
        await quiet(pilot)
        await pilot.press("p")  # on the divergent resident
        await quiet(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=open_preview)
