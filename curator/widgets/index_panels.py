"""The index screen's panels, one tab each: Entries, Merge, Trim, Archive, Pointers, Load, History.

Each panel is its own widget (its table, its keys, its CSS); this container only holds them and hands
each its part of an analysis.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.widgets import TabbedContent, TabPane

from curator.widgets.archive_panel import ArchivePanel
from curator.widgets.history_panel import HistoryTable
from curator.widgets.entries_table import EntriesPanel, EntriesTable, rows_of
from curator.widgets.load_panel import LoadTable
from curator.widgets.merge_panel import MergeTable
from curator.widgets.panel_table import PanelTable
from curator.widgets.pointers_panel import PointersTable
from curator.widgets.trim_panel import TrimTable

if TYPE_CHECKING:
    from curator.analysis import Analysis

PANEL_TABS = ("entries", "merge", "trim", "archive", "pointers", "load", "history")


class IndexPanels(TabbedContent):
    DEFAULT_CSS = "IndexPanels TabPane { padding: 0; }"

    def __init__(self, memory_dir: Path, **kwargs: Any) -> None:
        super().__init__(initial="entries", **kwargs)
        for pane in (
            TabPane("Entries", EntriesPanel(id="entries-panel"), id="entries"),
            TabPane("Merge", MergeTable(id="merge-table"), id="merge"),
            TabPane("Trim", TrimTable(id="trim-table"), id="trim"),
            TabPane("Archive", ArchivePanel(memory_dir, id="archive-panel"), id="archive"),
            TabPane("Pointers", PointersTable(id="pointers-table"), id="pointers"),
            TabPane("Load", LoadTable(id="load-table"), id="load"),
            TabPane("History", HistoryTable(id="history-table"), id="history"),
        ):
            self.compose_add_child(pane)  # what ``with TabbedContent():`` does in compose

    def show(self, analysis: Analysis, extras: dict[str, Any]) -> None:
        self.query_one(EntriesTable).show(rows_of(analysis))
        self.query_one(PointersTable).show(analysis.pointers)
        self.query_one(LoadTable).show(analysis.loads)
        self.query_one(MergeTable).show(extras.get("merge", []), analysis.index)
        self.query_one(TrimTable).show(extras.get("trim", []), analysis.index)
        count = analysis.pointers.problem_count
        self.get_tab("pointers").label = Content(f"Pointers ({count})" if count else "Pointers")

    def active_table(self) -> PanelTable | None:
        tables = self.get_pane(self.active).query(PanelTable)
        return tables.first() if tables else None

    def on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        """A pane says a widget in it took focus; a key behind the one that focused it (one read) may
        have moved focus to another pane since. Only the pane that holds the focus now becomes the tab."""
        focused = self.screen.focused
        if focused is None or event.tab_pane not in focused.ancestors_with_self:
            event.prevent_default()  # TabbedContent's own handler would switch back to the stale pane
            event.stop()

    def focus_active(self) -> None:
        """Focus the active panel's table at once (not deferred): see IndexScreen's navigation keys."""
        self.screen.set_focus(self.active_table() or self)
