"""What the index screen's flows (mixed into ``IndexScreen``) use of the screen and of the app, as
Protocols: each flow types ``self`` as its own host Protocol, so it is checked against what it uses
and never imports the screen; the screen is checked against every host where it calls a flow."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, overload

if TYPE_CHECKING:
    from textual.app import App
    from textual.css.query import QueryType
    from textual.widget import Widget

    from curator.meter import Limits
    from curator.store import SeatStore
    from curator.widgets.index_editor import IndexEditor
    from curator.widgets.index_panels import IndexPanels
    from curator.widgets.messages import ChangeApplied


class CuratorAppParts(Protocol):
    """What the index screen reads of the curator's app (``CuratorApp``, curator/app.py, a layer
    above the screens) beyond Textual's own ``App``."""

    state_dir: str | Path | None  # the store's journal dir (None: the store's default)
    fleet_path: Path | None
    analysis_delay: float  # seconds of quiet typing before the full analysis

    def preview_for(self, resident_id: str | None, memory_dir: Path | None) -> None: ...


if TYPE_CHECKING:

    class SeatApp(App[int], CuratorAppParts):
        """The app as the index screen sees it: Textual's ``App`` with the curator's parts (a type
        only: the screen runs in ``CuratorApp``, which the screens may not import)."""


class ScreenParts(Protocol):
    """The index screen's own parts (screen.py) and the Textual calls that every flow uses."""

    memory_dir: Path
    limits: Limits
    store: SeatStore | None  # None when the seat could not be opened
    panels_ready: bool  # the panels mount after the first frame

    @property
    def app(self) -> SeatApp: ...
    @property
    def editor(self) -> IndexEditor: ...
    @property
    def panels(self) -> IndexPanels: ...
    @property
    def dirty(self) -> bool: ...
    def key(self, action_id: str) -> str: ...
    def editor_bytes(self) -> bytes: ...
    def set_status(self, message: str, style: str = "", *, lasting: bool = False) -> None: ...
    def change_applied(self, event: ChangeApplied) -> None: ...
    def refresh_bindings(self) -> None: ...
    @overload
    def query_one(self, selector: str) -> Widget: ...
    @overload
    def query_one(self, selector: type[QueryType]) -> QueryType: ...
    @overload
    def query_one(self, selector: str, expect_type: type[QueryType]) -> QueryType: ...
