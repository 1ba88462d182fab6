"""The fleet panel sees changes made outside the app through a watch on the files its plan reads:
a manifest replaced by rename (as editors save) re-plans the fleet, a seat's file re-plans that
seat only, and no timer re-plans anything. Where no watch can start, the panel says so once and
re-plans on a timer instead."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from curator.app import CuratorApp
from curator.screens import fleet_watching
from curator.screens.fleet import FleetScreen
from generators.composer import DIVERGENT
from tests.support.app import artifact_path, settle, write_example_fleet

KIMI = "@neo-kimi-iris"


async def until(pilot, what: Callable[[], bool], rounds: int = 400) -> None:
    """Let the app run (the watch thread, its debounce, the plan it starts) until ``what`` holds."""
    for _ in range(rounds):
        if what():
            return
        await pilot.pause(0.02)
    raise AssertionError("the panel never showed the change")


def status_of(app, path: Path) -> str:
    return next(a.status for p in app.screen.plans for a in p.artifacts if a.path == path)


async def open_panel(app, pilot, monkeypatch) -> FleetScreen:
    def no_timer(self) -> None:
        raise AssertionError("a timer re-planned the fleet")

    monkeypatch.setattr(fleet_watching.WatchesFleetFiles, "replan_tick", no_timer)
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, FleetScreen)
    await until(pilot, lambda: screen.watch_stop is not None and screen.watched.dirs)
    return screen


async def test_a_manifest_replaced_by_rename_re_plans_the_fleet(tmp_path: Path, monkeypatch):
    manifest = write_example_fleet(tmp_path / "fleet")
    config = artifact_path(manifest, "config.toml")  # the kimi seat's: it spells the permission mode
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_panel(app, pilot, monkeypatch)
        assert status_of(app, config) != DIVERGENT
        edited = manifest.with_name(".fleet.toml.swp")
        edited.write_text(manifest.read_text(encoding="utf-8").replace(
            'default_permission_mode = "manual"', 'default_permission_mode = "yolo"'), encoding="utf-8")
        os.replace(edited, manifest)  # a new inode under the old name
        await until(pilot, lambda: status_of(app, config) == DIVERGENT)
        assert screen.polling is None
        assert f"1 {DIVERGENT}" in str(screen.query_one("#status").render())


async def test_a_seat_file_edited_re_plans_that_seat_only(tmp_path: Path, monkeypatch):
    manifest = write_example_fleet(tmp_path / "fleet")
    config = artifact_path(manifest, "config.toml")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_panel(app, pilot, monkeypatch)
        asked: list[frozenset[str] | None] = []
        plan_worker = screen.plan_worker

        def recording(quiet: bool = False, only: frozenset[str] | None = None) -> object:
            asked.append(only)
            return plan_worker(quiet=quiet, only=only)

        monkeypatch.setattr(screen, "plan_worker", recording)
        others = {p.agent_id: p for p in screen.plans if p.agent_id != KIMI}
        config.write_text(config.read_text(encoding="utf-8").replace(
            'default_permission_mode = "manual"', 'default_permission_mode = "yolo"'), encoding="utf-8")
        await until(pilot, lambda: status_of(app, config) == DIVERGENT)
        assert asked and all(only == frozenset({KIMI}) for only in asked)
        assert all(screen.plans[i] is others[p.agent_id] for i, p in enumerate(screen.plans) if p.agent_id != KIMI)


async def test_a_seat_directory_created_later_is_watched(tmp_path: Path, monkeypatch):
    """A path the plan reads whose directory is not there yet: the nearest existing one is watched,
    and once the directory appears the file created in it is seen too."""
    manifest = write_example_fleet(tmp_path / "fleet", provision=False)
    config = artifact_path(manifest, "config.toml")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_panel(app, pilot, monkeypatch)
        assert not config.parent.exists() and status_of(app, config) != DIVERGENT
        config.parent.mkdir(parents=True)
        await until(pilot, lambda: str(config.parent) in screen.watched.dirs)
        config.write_text("not = [toml\n", encoding="utf-8")
        await until(pilot, lambda: status_of(app, config) == DIVERGENT)


async def test_without_a_watch_the_panel_says_so_and_re_plans_on_a_timer(tmp_path: Path, monkeypatch):
    def no_watch(*_args: object):
        raise OSError(28, "inotify watch limit reached")
        yield set()  # a generator, as the real one

    monkeypatch.setattr(fleet_watching, "watch_changes", no_watch)
    monkeypatch.setattr(FleetScreen, "REPLAN_S", 0.2)  # the test need not wait 3 s a tick
    manifest = write_example_fleet(tmp_path / "fleet")
    config = artifact_path(manifest, "config.toml")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        await until(pilot, lambda: screen.polling is not None)
        assert "Cannot watch the fleet's files" in str(screen.query_one("#status").render())
        config.write_text(config.read_text(encoding="utf-8").replace(
            'default_permission_mode = "manual"', 'default_permission_mode = "yolo"'), encoding="utf-8")
        await until(pilot, lambda: status_of(app, config) == DIVERGENT)
        assert screen.watch_stop is None


async def test_the_refresh_key_still_re_plans(tmp_path: Path, monkeypatch):
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_panel(app, pilot, monkeypatch)
        asked: list[bool] = []
        plan_worker = screen.plan_worker
        monkeypatch.setattr(screen, "plan_worker", lambda quiet=False, only=None: asked.append(quiet)
                            or plan_worker(quiet=quiet, only=only))
        screen.action_refresh()
        await settle(app, pilot)
        assert asked == [False]
