"""A worker that fails unexpectedly is a notification on the screen that started it, never the app's
end: the fleet panel's planning raises something no one foresaw, and the panel stays, says so, and
works again once the cause is gone."""

from __future__ import annotations

from curator.app import CuratorApp
from curator.screens.fleet import FleetScreen
from generators import composer
from tests.support.app import notes, settle, write_example_fleet


async def test_an_unexpected_error_in_the_fleet_plan_is_a_notice_and_the_app_goes_on(tmp_path, monkeypatch):
    manifest = write_example_fleet(tmp_path / "fleet")
    app = CuratorApp(fleet_path=manifest)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        fleet = app.screen
        assert isinstance(fleet, FleetScreen)
        real_plan = composer.plan_fleet

        def broken(*args, **kwargs):
            raise RuntimeError("planner exploded")

        monkeypatch.setattr(composer, "plan_fleet", broken)
        fleet.plan_worker()
        await settle(app, pilot)
        assert app.is_running and app.screen is fleet
        assert "fleet-plan failed: RuntimeError: planner exploded" in notes(app)
        failed_at = fleet.last_plan
        monkeypatch.setattr(composer, "plan_fleet", real_plan)
        fleet.plan_worker()
        await settle(app, pilot)
        assert app.is_running and fleet.last_plan[0] > failed_at[0]  # planned again, after the failure


async def test_the_index_screen_reports_a_worker_that_fails(tmp_path):
    from curator.screens.index import IndexScreen
    from tests.support.app import write_seat

    app = CuratorApp(write_seat(tmp_path / "memory"), state_dir=tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, IndexScreen)

        def fails() -> None:
            raise ValueError("no such thing")

        screen.run_worker(fails, thread=True, group="probe", exit_on_error=False)
        await settle(app, pilot)
        assert app.is_running and app.screen is screen
        assert "probe failed: ValueError: no such thing" in notes(app)
