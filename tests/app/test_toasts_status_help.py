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
from tests.support.app import settle, write_seat

GONE = ("MEMORY.md on disk /tmp/ud/seats/neo-opencode-wren-17fd80e76c15/opencode-62f8e1ec095e/memory/MEMORY.md "
        "is gone from disk (moved or deleted). Your text is still here; ctrl+s writes it back.")


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
@pytest.mark.parametrize("dialog", ["unsaved", "restore", "conflict"])
async def test_a_notice_never_covers_a_dialogs_buttons_or_footer(tmp_path: Path, size, dialog):
    """No toast at all: a notice goes to a status line (the dialog's own, or the screen's under it),
    which never sits on the dialog's buttons or footer."""
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
        app.notify("a second notice that replaces the first", timeout=30)
        await pilot.pause(0.3)
        assert not list(app.query(Toast)) and not list(screen.query(Toast))
        lines = [line for s in app.screen_stack for line in s.query("#status") if "second notice" in str(line.render())]
        assert len(lines) == 1
        keep_visible = [*screen.query(Button), screen.query_one("KeysFooter")]
        for widget in keep_visible:
            assert not lines[0].region.overlaps(widget.region), (lines[0].region, widget, widget.region)


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
    from tests.support.app import artifact_path, write_example_fleet
    monkeypatch.setattr(FleetScreen, "REPLAN_S", 0.2, raising=False)  # the test need not wait 3 s a tick
    manifest = write_example_fleet(tmp_path / "fleet")
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


def help_rows(app) -> list[tuple[str, str, str]]:
    """(keys, description, where) as the open help screen shows them: each row under its heading."""
    from curator.screens.help import HelpScreen

    assert isinstance(app.screen, HelpScreen)
    rows, where = [], None
    for widget in app.screen.query("#help-keys > *"):
        if widget.has_class("help-where"):
            where = str(widget.render())
        else:
            keys, description = (str(w.render()) for w in widget.query("Static"))
            rows.append((keys, description, where))
    return rows


def assert_readable(app) -> None:
    """Every key, description and heading is shown whole (wrapped, never cut) inside the dialog."""
    from textual.widgets import Static

    dialog = app.screen.query_one(".dialog")
    for widget in app.screen.query("#help-keys Static").results(Static):
        text = str(widget.render())
        assert widget.size.width > 0 and widget.region.right <= dialog.region.right, text
        lines = widget.render_lines(widget.region.reset_offset)  # what it paints, wrapped to its width
        painted = " ".join("".join(seg.text for seg in line).strip() for line in lines)
        assert " ".join(text.split()) == " ".join(painted.split()), (text, painted)


def registry_ids_bound(screen) -> set[str]:
    from curator.keys import REGISTRY

    return {b.id for group in screen._merged_bindings.key_to_bindings.values() for b in group if b.id in REGISTRY}


def assert_lists_every_key(rows, screen, app) -> None:
    """Every registry action the screen and the app bind is a row, with all its keys and a where."""
    from curator.keys import REGISTRY, display_keys

    shown = {(keys, description) for keys, description, _ in rows}
    for action_id in registry_ids_bound(screen) | registry_ids_bound(app):
        action = REGISTRY[action_id]
        assert (display_keys(action.keys), action.description) in shown, action_id
    assert all(where for _, _, where in rows), rows


async def open_help(app, pilot) -> list[tuple[str, str, str]]:
    """F1 on the screen on top; the help's rows, checked to list every key that screen and the app bind."""
    screen = app.screen
    await pilot.press("f1")
    await settle(app, pilot)
    rows = help_rows(app)
    assert_lists_every_key(rows, screen, app)
    return rows


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_index_help_says_where_each_key_works_and_wraps_instead_of_cutting(tmp_path: Path, size):
    memory = write_seat(tmp_path / "memory")
    app = CuratorApp(memory)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        rows = await open_help(app, pilot)
        by_keys = {keys: where for keys, _, where in rows}
        assert by_keys["esc / q / f"] == "any panel"  # back to the fleet: in the panels
        assert by_keys["q"] != by_keys["esc / q / f"]  # the screen's q (quit) is told apart from it
        assert by_keys["ctrl+q"] == "everywhere"
        assert_readable(app)


async def test_fleet_help_lists_its_keys_with_alternatives_and_no_textual_internals(tmp_path: Path):
    from tests.support.app import write_example_fleet
    app = CuratorApp(fleet_path=write_example_fleet(tmp_path / "fleet"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        rows = await open_help(app, pilot)
        keys = [k for k, _, _ in rows]
        assert "ctrl+r / f5" in keys and "ctrl+q" in keys
        descriptions = " ".join(d for _, d, _ in rows)
        for internal in ("Focus Next", "Focus Previous", "Copy selected text"):
            assert internal not in descriptions
        assert {where for _, _, where in rows} == {"fleet panel", "everywhere"}
        assert_readable(app)


async def test_preview_and_fit_help_name_the_keys_their_dialogs_name(tmp_path: Path):
    from curator.screens.fit_preview import FitDialog
    from curator.screens.preview import PreviewScreen
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest
    from tests.support.app import write_example_fleet
    manifest = write_example_fleet(tmp_path / "fleet")
    memory = plan_fleet(load_manifest(manifest))[1].memory_dir
    write_seat(memory, craft=160)  # over the target: F6 has a fit to preview
    app = CuratorApp(memory, manifest)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        for key, dialog_type, wanted in (("f4", PreviewScreen, {"↑ / ↓", "pgup / pgdn", "tab / shift+tab"}),
                                         ("f6", FitDialog, {"tab / shift+tab", "space", "↑ / ↓"})):
            await pilot.press(key)
            await settle(app, pilot)
            assert isinstance(app.screen, dialog_type), key
            rows = await open_help(app, pilot)
            assert wanted <= {k for k, _, _ in rows}, (key, rows)
            assert_readable(app)
            await pilot.press("escape")
            await settle(app, pilot)
            await pilot.press("escape")
            await settle(app, pilot)


async def test_a_slow_fleet_plan_spaces_the_quiet_replans_out(tmp_path: Path):
    # A big fleet plans for longer: the background re-plan waits REPLAN_SHARE times the last plan's
    # duration, so it never keeps a core busy.
    import time

    from curator.screens.fleet import FleetScreen
    from tests.support.app import write_example_fleet
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        assert isinstance(fleet, FleetScreen)
        started = []
        fleet.plan_worker = lambda quiet=False: started.append(quiet)
        fleet.last_plan = (time.monotonic(), 2.0)  # a plan that took 2 s just ended: wait 20 s
        fleet.replan_tick()
        assert started == []
        fleet.last_plan = (time.monotonic() - 21.0, 2.0)  # 21 s later: due
        fleet.replan_tick()
        assert started == [True]
