"""Snapshot tests of the fleet panel and the re-provision preview at 80x24 and 120x36, on the example
fleet of three harnesses (kimi-code, opencode, claude-code) whose opencode seat hand-edited its owned
``instructions``: the panel opens on that divergence with
the file's own lines below; the preview refuses, its buttons and keys in view. The fleet lives under
a fixed directory (its paths are on screen). Record with
``pytest tests/app/test_fleet_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from curator.app import CuratorApp
from tests.support.app import divergent_fleet, quiet

pytestmark = pytest.mark.xdist_group("fleet-root")  # both snapshot modules rebuild FLEET_ROOT
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")]


@pytest.mark.parametrize("size", SIZES)
def test_fleet_panel_opens_on_the_divergent_file(snap_compare, size):
    assert snap_compare(CuratorApp(fleet_path=divergent_fleet()), terminal_size=size, run_before=quiet)


@pytest.mark.parametrize("size", SIZES)
def test_preview_refuses_with_apply_and_cancel_in_view(snap_compare, size):
    async def open_preview(pilot) -> None:
        await quiet(pilot)
        await pilot.press("p")  # on the divergent resident
        await quiet(pilot)

    assert snap_compare(CuratorApp(fleet_path=divergent_fleet()), terminal_size=size, run_before=open_preview)

