"""Reading and steering the fleet panel in Pilot tests: a grid cell's text, the detail pane, the
cursor on a resident's cell, the re-provision preview opened on a resident."""

from __future__ import annotations

from curator.screens.fleet import FleetScreen
from curator.screens.preview import PreviewScreen
from curator.widgets.fleet_grid import FleetGrid
from tests.support.app import settle

KIMI, OPENCODE = "@neo-kimi-iris", "@neo-opencode-juno"


def cell(screen: FleetScreen, resident: str, column: str) -> str:
    return screen.query_one(FleetGrid).get_cell(resident, column).plain.strip()


def select(screen: FleetScreen, resident: str, role: str | None = None) -> None:
    grid = screen.query_one(FleetGrid)
    row = [p.agent_id for p in grid.plans].index(resident)
    grid.move_cursor(row=row, column=grid.first_role_column + grid.roles.index(role) if role else 0)


def detail(screen) -> str:
    return str(screen.query_one("#fleet-detail-text").render())


async def open_preview_on(app, pilot, resident: str, role: str | None = None) -> PreviewScreen:
    await settle(app, pilot)
    select(app.screen, resident, role)
    await pilot.press("p")
    await settle(app, pilot)
    assert isinstance(app.screen, PreviewScreen)
    return app.screen
