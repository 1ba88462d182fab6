"""What a QA pass in tmux found on the curator's screens: toasts over dialog buttons, a status line
cut before it says what happened, a fleet panel that misses changes made outside the app, and help
that is incomplete or unreadable at 80 columns."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button
from textual.widgets._toast import Toast

from curator.app import CuratorApp
from curator.screens.dialogs import ConfirmDialog, ConflictDialog, UnsavedDialog
from test_app_fixtures import app_env, settle, write_seat  # noqa: F401

GONE = ("MEMORY.md on disk /tmp/ud/seats/neo-opencode-wren-17fd80e76c15/opencode-62f8e1ec095e/memory/MEMORY.md "
        "is gone from disk (moved or deleted). Your text is still here; ctrl+s writes it back.")


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
@pytest.mark.parametrize("dialog", ["unsaved", "restore", "conflict"])
async def test_a_toast_never_covers_a_dialogs_buttons_or_footer(tmp_path: Path, size, dialog):
    memory = write_seat(tmp_path / "memory")
    app = CuratorApp(memory)
    async with app.run_test(size=size, notifications=True) as pilot:  # run_test hides toasts by default
        await settle(app, pilot)
        path = str(memory / "MEMORY.md")
        screen = {"unsaved": lambda: UnsavedDialog(path, "quit the app"),
                  "restore": lambda: ConfirmDialog("Restore 1 entry from ARCHIVE.md", "+ - a line\n" * 60,
                                                   "Restore"),
                  "conflict": lambda: ConflictDialog(path)}[dialog]()
        app.push_screen(screen)
        await pilot.pause()
        app.notify(GONE, severity="warning", timeout=30)
        app.notify("a second toast that stacks under the first", timeout=30)
        await pilot.pause(0.3)
        toasts = list(screen.query(Toast))
        assert len(toasts) == 2
        keep_visible = [*screen.query(Button), screen.query_one("KeysFooter")]
        for toast in toasts:
            for widget in keep_visible:
                assert not toast.region.overlaps(widget.region), (toast.region, widget, widget.region)


def status_line(app) -> tuple[str, int]:
    """(the status line's text, how many columns of it are on screen)."""
    status = app.screen.query_one("#status")
    return str(status.render()), status.content_size.width


async def test_the_status_line_says_what_happened_before_the_path_at_80_columns(tmp_path: Path):
    # Deep, as a provisioned seat is: the full path alone is wider than 80 columns.
    memory = write_seat(tmp_path / "seats" / "neo-opencode-wren-17fd80e76c15" / "opencode-62f8e1ec095e" / "memory")
    app = CuratorApp(memory)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("x")  # an unsaved edit: reload asks, and d discards it
        (memory / "MEMORY.md").rename(tmp_path / "away.md")
        for _ in range(100):  # the watcher's tick, bounded
            await pilot.pause(0.05)
            if "gone from disk" in status_line(app)[0]:
                break
        text, width = status_line(app)
        assert text.index("MEMORY.md is gone from disk") + len("MEMORY.md is gone from disk") <= width, text
        assert "…/opencode-62f8e1ec095e/memory" in text  # where, shortened, after what

        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, UnsavedDialog)
        await pilot.press("d")
        await pilot.pause()
        text, width = status_line(app)
        assert text.index("MEMORY.md: no such file — the editor") + len("MEMORY.md: no such file — the editor") <= width, text

        (memory / "MEMORY.md").write_bytes(b"# Seat memory index\n\n- caf\xe9 entry\n")
        await pilot.press("ctrl+r")
        await pilot.pause()
        if isinstance(app.screen, UnsavedDialog):
            await pilot.press("d")
        await settle(app, pilot)
        text, width = status_line(app)
        assert text.index("not valid UTF-8") + len("not valid UTF-8") <= width, text


async def wait_for(pilot, condition, what: str, seconds: float = 15) -> None:
    """Until ``condition()`` holds; the bound only turns a hang into a readable failure."""
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        await pilot.pause(0.05)


async def test_the_fleet_panel_shows_changes_made_outside_the_app_while_it_is_shown(tmp_path: Path, monkeypatch):
    from curator.screens.fleet import FleetScreen
    from curator.widgets.fleet_grid import FleetGrid
    from generators.composer import DIVERGENT
    from test_app_fixtures import artifact_path, write_fleet

    monkeypatch.setattr(FleetScreen, "REPLAN_S", 0.2, raising=False)  # the test need not wait 3 s a tick
    manifest = write_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        assert isinstance(fleet, FleetScreen)
        grid = fleet.query_one(FleetGrid)
        grid.move_cursor(row=1, column=grid.first_role_column)  # a file's cell: the selection to keep
        await pilot.pause()
        where = (grid.cursor_row, grid.cursor_column, grid.current_plan().agent_id)
        assert DIVERGENT not in [a.status for p in fleet.plans for a in p.artifacts]

        config = artifact_path(manifest, "config.toml")  # the kimi seat's, edited by hand
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace('default_permission_mode = "manual"', 'default_permission_mode = "yolo"'),
                          encoding="utf-8")
        await wait_for(pilot, lambda: any(a.path == config and a.status == DIVERGENT
                                          for p in fleet.plans for a in p.artifacts),
                       "the panel re-plans the hand-edited config.toml")
        assert f"1 {DIVERGENT}" in str(fleet.query_one("#status").render())

        plan = fleet.plans[0]
        before = fleet.meters[plan.agent_id]
        shown_before = grid.get_cell(plan.agent_id, "index").plain
        index = plan.memory_dir / "MEMORY.md"
        index.parent.mkdir(parents=True, exist_ok=True)
        grown = (index.read_bytes() if index.exists() else b"# Seat memory index\n") + b"- grown by hand\n" * 50
        index.write_bytes(grown)
        await wait_for(pilot, lambda: fleet.meters[plan.agent_id] is not None
                       and fleet.meters[plan.agent_id].bytes == len(grown), "the meter reads the grown MEMORY.md")
        assert fleet.meters[plan.agent_id] != before
        await pilot.pause()
        assert grid.get_cell(plan.agent_id, "index").plain != shown_before  # the grid, not only the state
        assert (grid.cursor_row, grid.cursor_column, grid.current_plan().agent_id) == where  # cursor kept
