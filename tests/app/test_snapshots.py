"""Snapshot tests: the index screen over target (a Claude Code memory's too: its meter counts what
Claude Code loads) and the merge preview at 80x24 and 120x36 (the fleet
panel and the re-provision preview: test_fleet_snapshots.py). Paths on screen are made
deterministic (a relative memory dir; the fleet under a fixed directory). Record with
``pytest tests/app/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.app import CuratorApp
from tests.support.app import hide_parts_in, quiet, write_seat

pytestmark = pytest.mark.xdist_group("fleet-root")  # both snapshot modules rebuild FLEET_ROOT

SIZE = (120, 36)


def test_index_screen_over_target(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_seat(tmp_path / "memory", craft=180)

    async def in_the_panels(pilot) -> None:
        await quiet(pilot)
        await pilot.press("f2")  # focus on the entries: the footer shows the panel's keys
        await quiet(pilot)

    assert snap_compare(CuratorApp(Path("memory")), terminal_size=SIZE, run_before=in_the_panels)


def test_claude_code_memory_meter_counts_what_claude_code_loads(snap_compare, tmp_path, monkeypatch):
    # Frontmatter and an HTML comment block on top: the meter's number is what Claude Code loads
    # (over the target, under the read limit), the bytes on disk (past the read limit) beside it.
    monkeypatch.chdir(tmp_path)
    hide_parts_in(tmp_path / "memory", craft=180)

    async def in_the_panels(pilot) -> None:
        await quiet(pilot)
        await pilot.press("f2")  # no editor cursor on screen: its blink is no part of the picture
        await quiet(pilot)

    app = CuratorApp(Path("memory"), resident_id="shop", profile="claude-code")
    assert snap_compare(app, terminal_size=SIZE, run_before=in_the_panels)


def test_index_screen_at_80x24_with_an_unsaved_edit(snap_compare, tmp_path, monkeypatch):
    # The editor has focus (cursor blink off): the unsaved mark leads the title, the footer shows
    # the keys that work while typing, most important first.
    monkeypatch.chdir(tmp_path)
    write_seat(tmp_path / "memory", craft=180)

    async def typed(pilot) -> None:
        await quiet(pilot)
        await pilot.press("x")
        await quiet(pilot)

    assert snap_compare(CuratorApp(Path("memory")), terminal_size=(80, 24), run_before=typed)


def merge_preview_snapshot(snap_compare, tmp_path, monkeypatch, size) -> bool:
    monkeypatch.chdir(tmp_path)
    write_seat(tmp_path / "memory")

    async def open_merge(pilot) -> None:
        await quiet(pilot)
        await pilot.press("f2", "2", "m")  # the Merge panel's top candidate
        await quiet(pilot)

    return snap_compare(CuratorApp(Path("memory")), terminal_size=size, run_before=open_merge)


def test_merge_preview_at_80x24_keeps_apply_and_cancel_in_view(snap_compare, tmp_path, monkeypatch):
    assert merge_preview_snapshot(snap_compare, tmp_path, monkeypatch, (80, 24))


def test_merge_preview_at_120x36(snap_compare, tmp_path, monkeypatch):
    assert merge_preview_snapshot(snap_compare, tmp_path, monkeypatch, SIZE)

