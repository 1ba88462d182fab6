"""The curator app: the bearer's index screen, the operator's fleet panel, the re-provision preview.

The app adds no logic of its own: every number, candidate, plan and write comes from the pure core
(``curator.*``, ``generators.*``); screens only show results and ask before acting.

Entry point for other modules: ``run_app(memory_dir=None, fleet_path=None)``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.screen import Screen

import styles
from curator.errors import CuratorError
from curator.keys import load_keymap
from curator.widgets.keymap import bindings
from curator.widgets.text_fields import read_esc_and_a_key_as_alt

if TYPE_CHECKING:
    from textual.command import Provider

    from curator.screens.index import IndexScreen
    from generators.composer.plan import ResidentPlan


def curator_commands() -> type[Provider]:
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
    # Every key is in the registry (curator/keys.py); keys.toml in the user config dir rebinds by id.
    BINDINGS = bindings("app")

    def __init__(
        self,
        memory_dir: str | Path | None = None,
        fleet_path: str | Path | None = None,
        *,
        resident_id: str | None = None,
        profile: str | None = None,
        analysis_delay: float = 0.3,
        state_dir: str | Path | None = None,
        keymap_file: str | Path | None = None,
    ):
        super().__init__()
        read_esc_and_a_key_as_alt()  # Esc then 2 in one read is Esc, then 2; never "™"
        self.key_overrides, self.keymap_problems = load_keymap(Path(keymap_file) if keymap_file else None)
        self.set_keymap(self.key_overrides)
        if memory_dir is None and fleet_path is None:
            raise ValueError("give a memory dir or a fleet manifest")
        self.memory_dir = Path(memory_dir) if memory_dir is not None else None
        self.fleet_path = Path(fleet_path) if fleet_path is not None else None
        self.resident_id = resident_id
        self.profile = profile
        self.analysis_delay = analysis_delay  # seconds of quiet typing before the full analysis
        self.state_dir = state_dir  # the store's journal dir (None: the store's default)
        self.notices: list = []  # every notification shown (curator.widgets.status_line.Notice)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Notifications go to the status line of the screen in view (or of the one under a dialog),
        never a toast over the content; they clear when stale. ``notices`` keeps every one."""
        from curator.widgets.status_line import STALE_AFTER, Notice, notice_content

        text = Content.from_markup(message).plain if markup else message
        notice = Notice(text, title, severity)
        self.notices.append(notice)
        for screen in reversed(self.screen_stack):
            line = screen.query("#status") if screen.is_mounted else None
            if line and hasattr(line.first(), "say"):
                line.first().say(notice_content(notice), max(timeout or 0, STALE_AFTER), passing=True)
                return
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def clear_notifications(self) -> None:
        self.notices.clear()
        super().clear_notifications()

    def get_default_screen(self) -> Screen[Any]:
        """A seat alone (`tui DIR`) is the app's first screen itself: pushing it from ``on_mount``
        on top of an empty default screen costs the start-up about as much again."""
        if self.fleet_path is None:
            from curator.screens.index import IndexScreen

            assert self.memory_dir is not None  # __init__ refuses neither a seat nor a fleet
            return IndexScreen(self.memory_dir, resident_id=self.resident_id, profile=self.profile)
        return super().get_default_screen()

    def on_mount(self) -> None:
        for problem in self.keymap_problems:
            self.notify(problem, title="Key overrides", severity="warning", markup=False, timeout=10)
        if self.fleet_path is not None:
            from curator.screens.fleet import FleetScreen

            self.push_screen(FleetScreen(self.fleet_path))
            if self.memory_dir is not None:
                plan = self.plan_for(self.memory_dir)
                self.open_seat(self.memory_dir, resident_id=self.resident_id or (plan.agent_id if plan else None),
                               profile=self.profile or (plan.harness if plan else None))

    def open_seat(self, memory_dir: Path, *, resident_id: str | None = None, profile: str | None = None) -> None:
        """Open a seat over the screen showing (the fleet panel). Focus starts in its panels, never its
        editor: a key meant for the screen just left (its ``q``) cannot type into MEMORY.md."""
        from curator.screens.index import IndexScreen

        def open_it() -> None:
            self.push_screen(IndexScreen(memory_dir, resident_id=resident_id, profile=profile, focus_panels=True,
                                         kind="demo seat (esc: its fleet)" if self.is_demo else ""))

        self.leave_index_screens("open another seat", open_it)

    @property
    def is_demo(self) -> bool:
        """The fleet open is the one `seat-curator demo` built (the titles say so)."""
        if self.fleet_path is None:
            return False
        from curator.demo import is_demo

        return is_demo(self.fleet_path.parent)

    def dirty_index_screen(self) -> IndexScreen | None:
        """The topmost index screen with unsaved edits, or None."""
        from curator.screens.index import IndexScreen

        return next((s for s in reversed(self.screen_stack) if isinstance(s, IndexScreen) and s.dirty), None)

    def leave_index_screens(self, leaving: str, then: Callable[[], object]) -> None:
        """Run ``then`` once no index screen holds unsaved edits (each asks save / discard / cancel)."""
        screen = self.dirty_index_screen()
        if screen is None:
            then()
        else:
            screen.confirm_leaving(leaving, lambda: self.leave_index_screens(leaving, then))

    async def action_quit(self) -> None:
        """ctrl+q: quit, after save / discard / cancel when an index has unsaved edits."""
        self.leave_index_screens("quit the app", self.exit)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """F4 is not offered in the preview itself (the footer shows only keys that do something)."""
        if action == "reprovision_preview":
            import sys

            preview = sys.modules.get("curator.screens.preview")  # never imported here just to ask
            return not (preview is not None and isinstance(self.screen, preview.PreviewScreen))
        return True

    def action_reprovision_preview(self) -> None:
        """F4 in every screen and focus: the re-provision preview of what the screen shows (this seat,
        the fleet panel's marked residents); over a dialog, of the screen beneath it."""
        from curator.screens.preview import PreviewScreen

        if isinstance(self.screen, PreviewScreen):
            self.notify("This is the re-provision preview (esc closes it).", timeout=3)
            return
        for screen in reversed(self.screen_stack):
            if hasattr(screen, "action_preview"):
                screen.action_preview()
                return
        self.notify("Nothing here to preview: open a fleet (`seat-curator tui --fleet fleet.toml`).",
                    severity="warning", markup=False)

    def open_preview(self, resident_ids: list[str]) -> None:
        """The re-provision preview; when it changed something, the fleet panel re-plans."""
        from curator.screens.fleet import FleetScreen
        from curator.screens.preview import PreviewScreen

        def done(changed: bool | None) -> None:
            if changed:
                for screen in self.screen_stack:
                    if isinstance(screen, FleetScreen):
                        screen.refresh_plan()

        assert self.fleet_path is not None  # offered only with a fleet (preview_for, the fleet panel)
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

    def plan_for(self, memory_dir: Path | None) -> ResidentPlan | None:
        """The fleet plan of the resident whose memory dir this is, or None."""
        from generators.composer import plan_fleet
        from generators.manifest import load_manifest

        if memory_dir is None or self.fleet_path is None:
            return None
        try:
            plans = plan_fleet(load_manifest(self.fleet_path))
        except CuratorError:
            return None
        wanted = Path(memory_dir).resolve()
        return next((p for p in plans if p.memory_dir.resolve() == wanted), None)

    def action_help(self) -> None:
        """F1: the keys of the screen or dialog on top (from the registry), and the app's."""
        from curator.screens.help import HelpScreen, keys_for

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        screen = self.screen
        title = getattr(screen, "HELP_TITLE", None) or getattr(screen, "title_text", None) or self.TITLE
        self.push_screen(HelpScreen(keys_for(screen, self), title))


def run_app(memory_dir: str | Path | None = None, fleet_path: str | Path | None = None, **options: Any) -> int:
    """Run the curator in this terminal; returns an exit code."""
    result = CuratorApp(memory_dir, fleet_path, **options).run()
    return int(result or 0)
