"""The index screen's navigation: between the editor and the panels, a panel row to its line, go to a
line, find, and the detail line under the panels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.content import Content
from textual.widgets import Static

from curator.meter import count_lines
from curator.constants import INDEX_NAME
from curator.screens.index.host import ScreenParts

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.widgets import DataTable


class NavigationHost(ScreenParts, Protocol):
    """What navigation uses of the screen: focus, the last text searched for, and its own steps."""

    _find_text: str

    @property
    def focused(self) -> Widget | None: ...
    def set_focus(self, widget: Widget | None) -> None: ...
    def action_focus_panels(self) -> None: ...
    def action_find(self) -> None: ...
    def find_next(self) -> None: ...
    def show_detail(self) -> None: ...


class Navigation:
    """Mixed into ``IndexScreen``: moving focus and the editor's place."""

    # == navigation: panels, details, the editor's places =========================================
    # Keys that move focus between text and the panels are priority keys (run as they arrive) and move
    # it at once (Widget.focus() defers it behind keys already queued): keys the terminal sent right
    # behind them (one read, or typed ahead while the app is busy) then go where the user meant.
    def action_switch_pane(self: NavigationHost) -> None:
        if self.editor.has_focus:
            self.action_focus_panels()
        else:
            self.set_focus(self.editor)

    def action_focus_panels(self: NavigationHost) -> None:
        self.panels.focus_active()

    def action_tab(self: NavigationHost, tab: str) -> None:
        self.panels.active = tab
        self.panels.focus_active()

    def action_search_archive(self: NavigationHost) -> None:
        self.panels.active = "archive"
        self.set_focus(self.query_one("#archive-search"))

    def action_leave_search(self: NavigationHost) -> None:
        self.set_focus(self.query_one("#archive-table"))

    def action_goto_row(self: NavigationHost) -> None:
        """Enter on a panel row: the editor shows that entry's line with its link selected."""
        from curator.widgets.panel_table import PanelTable

        table = self.focused if isinstance(self.focused, PanelTable) else self.panels.active_table()
        target = table.editor_target() if table is not None else None
        if target is None:
            self.app.notify("This row is not a line of MEMORY.md.", timeout=3)
            return
        self.editor.go_to(target.line, target.select)
        self.editor.focus()

    def on_data_table_row_selected(self: NavigationHost, event: DataTable.RowSelected) -> None:
        """A click on the highlighted row (or DataTable's own enter) leads to the line too."""
        from curator.widgets.panel_table import PanelTable

        if not isinstance(event.data_table, PanelTable):
            return
        target = event.data_table.editor_target()
        if target is None:  # a click on such a row: say why nothing moves
            self.app.notify("This row is not a line of MEMORY.md.", timeout=3)
            return
        self.editor.go_to(target.line, target.select)
        self.editor.focus()

    def action_goto_line(self: NavigationHost) -> None:
        from curator.screens.dialogs import LinePrompt

        def go(value: str | None) -> None:
            if value and value.strip().isdigit():
                self.editor.go_to(int(value.strip()))
            elif value:
                self.set_status(f"Not a line number: {value!r}", "$warning")
            self.editor.focus()

        self.app.push_screen(LinePrompt("Go to line", f"1–{max(1, count_lines(self.editor_bytes()))}"), go)

    def action_find(self: NavigationHost) -> None:
        from curator.screens.dialogs import LinePrompt

        def find(value: str | None) -> None:
            if value:
                self._find_text = value
                self.find_next()
            self.editor.focus()

        self.app.push_screen(LinePrompt(f"Find in {INDEX_NAME} ({self.key('editor.find_next')}: next)",
                                        "text to find", self._find_text), find)

    def action_find_next(self: NavigationHost) -> None:
        if not self._find_text:
            self.action_find()
        else:
            self.find_next()

    def find_next(self: NavigationHost) -> None:
        if not self.editor.find(self._find_text):
            self.set_status(f"Not found: {self._find_text}", "$warning")

    def on_tabbed_content_tab_activated(self: NavigationHost) -> None:
        self.show_detail()

    def on_data_table_row_highlighted(self: NavigationHost, event: DataTable.RowHighlighted) -> None:
        if self.panels_ready and event.data_table is self.panels.active_table():
            self.show_detail()
            self.refresh_bindings()  # Enter leads to a line on some rows and not on others

    def show_detail(self: NavigationHost) -> None:
        table = self.panels.active_table() if self.panels_ready else None
        self.query_one("#detail", Static).update(table.detail() if table is not None and table.row_count
                                                  else Content(""))
