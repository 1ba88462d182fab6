"""The base of every panel's table on the index screen: the keys all panels share, and the two
questions the screen asks a panel about its highlighted row (where in the editor, what in detail)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from textual.content import Content
from textual.widgets import DataTable

from curator.widgets.keymap import bindings

if TYPE_CHECKING:
    from curator.index_model import Entry

Item = TypeVar("Item")


@dataclass(frozen=True)
class EditorTarget:
    """A place in MEMORY.md: 1-based ``line``, and the text on it to select (a link), if any."""

    line: int
    select: str = ""


class PanelTable(DataTable):
    DEFAULT_CSS = "PanelTable { height: 1fr; }"
    BINDINGS = bindings("panels")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def editor_target(self) -> EditorTarget | None:
        """Where Enter on the highlighted row leads in the editor (None: nowhere)."""
        return None

    def detail(self) -> Content:
        """Text shown under the panels for the highlighted row: by default the whole row (cells cut off
        at the edge included)."""
        row = self.cursor_row
        if 0 <= row < self.row_count:
            return Content(" · ").join(cell for cell in self.get_row_at(row) if isinstance(cell, Content))
        return Content("")

    def item_at_cursor(self, items: Sequence[Item]) -> Item | None:
        row = self.cursor_row
        return items[row] if 0 <= row < len(items) else None


def first_link(entry: Entry) -> str:
    """The first pointer's target in an entry (what Enter selects in the editor), else ''."""
    for link in entry.pointers:
        if link.line == entry.line and link.target:
            return link.target
    return ""
