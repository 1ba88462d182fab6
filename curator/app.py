"""The curator app: the bearer's index screen, the operator's fleet panel, the re-provision preview.

The app adds no logic of its own: every number, candidate, plan and write comes from the pure core
(``curator.*``, ``generators.*``); screens only show results and ask before acting.

Entry point for other modules: ``run_app(memory_dir=None, fleet_path=None)``.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding

import styles
from curator.errors import CuratorError


def curator_commands():
    """The palette's provider, imported when the palette first opens (not at start-up)."""
    from curator.screens.palette import CuratorCommands

    return CuratorCommands


class CuratorApp(App[int]):
    """Opens the index screen for ``memory_dir``, or the fleet panel for ``fleet_path`` (or both:
    the fleet panel first, with ``memory_dir`` as the seat to open from it)."""

    TITLE = "seat-curator"
    # The index screen is what `tui DIR` paints first: its sheet loads with the app (a screen's own
    # CSS_PATH re-parses and restyles everything when it is pushed). The fleet sheet comes with its screens.
    CSS_PATH = [styles.path("app.tcss"), styles.path("index.tcss")]
    COMMANDS = App.COMMANDS | {curator_commands}
    BINDINGS = [
        Binding("f1", "help", "Help"),
        Binding("question_mark", "help", "Help", show=False, key_display="?"),
        Binding("ctrl+p", "command_palette", "Commands", show=False, priority=True),  # the footer shows it
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        memory_dir: str | Path | None = None,
        fleet_path: str | Path | None = None,
        *,
        resident_id: str | None = None,
        profile: str | None = None,
        analysis_delay: float = 0.3,
        state_dir: str | Path | None = None,
    ):
        super().__init__()
        if memory_dir is None and fleet_path is None:
            raise ValueError("give a memory dir or a fleet manifest")
        self.memory_dir = Path(memory_dir) if memory_dir is not None else None
        self.fleet_path = Path(fleet_path) if fleet_path is not None else None
        self.resident_id = resident_id
        self.profile = profile
        self.analysis_delay = analysis_delay  # seconds of quiet typing before the full analysis
        self.state_dir = state_dir  # the store's journal dir (None: the store's default)

    def get_default_screen(self):
        """A seat alone (`tui DIR`) is the app's first screen itself: pushing it from ``on_mount``
        on top of an empty default screen costs the start-up about as much again."""
        if self.fleet_path is None:
            from curator.screens.index import IndexScreen

            return IndexScreen(self.memory_dir, resident_id=self.resident_id, profile=self.profile)
        return super().get_default_screen()

    def on_mount(self) -> None:
        if self.fleet_path is not None:
            from curator.screens.fleet import FleetScreen

            self.push_screen(FleetScreen(self.fleet_path))
            if self.memory_dir is not None:
                plan = self.plan_for(self.memory_dir)
                self.open_seat(self.memory_dir, resident_id=self.resident_id or (plan.agent_id if plan else None),
                               profile=self.profile or (plan.harness if plan else None))

    def open_seat(self, memory_dir: Path, *, resident_id: str | None = None, profile: str | None = None) -> None:
        from curator.screens.index import IndexScreen

        self.push_screen(IndexScreen(memory_dir, resident_id=resident_id, profile=profile))

    def open_preview(self, resident_ids: list[str]) -> None:
        """The re-provision preview; when it changed something, the fleet panel re-plans."""
        from curator.screens.fleet import FleetScreen
        from curator.screens.preview import PreviewScreen

        def done(changed: bool | None) -> None:
            if changed:
                for screen in self.screen_stack:
                    if isinstance(screen, FleetScreen):
                        screen.refresh_plan()

        self.push_screen(PreviewScreen(self.fleet_path, resident_ids), done)

    def preview_for(self, resident_id: str | None, memory_dir: Path | None) -> None:
        """``p`` on the index screen: the preview for this seat, if the app knows its fleet."""
        if self.fleet_path is None:
            self.notify("No fleet manifest: open with `seat-curator tui --fleet fleet.toml` to preview provisioning.",
                        severity="warning", markup=False)
            return
        if resident_id is None:
            plan = self.plan_for(memory_dir)
            resident_id = plan.agent_id if plan else None
        if resident_id is None:
            self.notify(f"{memory_dir} is not a seat of {self.fleet_path}.", severity="warning", markup=False)
            return
        self.open_preview([resident_id])

    def plan_for(self, memory_dir: Path | None):
        """The fleet plan of the resident whose memory dir this is, or None."""
        from generators.composer import plan_fleet
        from generators.manifest import load_manifest

        if memory_dir is None:
            return None
        try:
            plans = plan_fleet(load_manifest(self.fleet_path))
        except CuratorError:
            return None
        wanted = Path(memory_dir).resolve()
        return next((p for p in plans if p.memory_dir.resolve() == wanted), None)

    def action_help(self) -> None:
        from curator.screens.help import HelpScreen, described_bindings

        if isinstance(self.screen, HelpScreen):
            return
        screen = self.screen
        keys = described_bindings(screen, self)
        title = getattr(screen, "HELP_TITLE", self.TITLE)
        self.push_screen(HelpScreen(keys, title, editor=getattr(screen, "HAS_EDITOR", False)))


def run_app(memory_dir: str | Path | None = None, fleet_path: str | Path | None = None, **options) -> int:
    """Run the curator in this terminal; returns an exit code."""
    result = CuratorApp(memory_dir, fleet_path, **options).run()
    return int(result or 0)
