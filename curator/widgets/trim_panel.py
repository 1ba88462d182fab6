"""The Trim panel: the trim lever's suggestions (tighten a long entry, or split its tail to a detail file)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.content import Content

from curator.widgets.keymap import bindings
from curator.widgets.panel_table import EditorTarget, PanelTable, first_link
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from curator.index_model import HotIndex
    from curator.levers.trim import TrimSuggestion


class TrimTable(PanelTable):
    BINDINGS = bindings("trim")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suggestions: Sequence[TrimSuggestion] = []
        self.index: HotIndex | None = None

    def show(self, suggestions: Sequence[TrimSuggestion], index: HotIndex) -> None:
        self.suggestions, self.index = suggestions, index
        rows = []
        for t in suggestions:
            entry = index.entry(t.entry_id) if index.has_entry(t.entry_id) else None
            where = f"line {entry.line}" if entry else t.entry_id
            what = f"split → {t.detail_file}" if t.kind == "split" else "tighten"
            rows.append(((verbatim(where), verbatim(f"{entry.nbytes:,} B" if entry else "?"),
                          verbatim(f"{t.bytes_saved:,} B"), verbatim(what)), None))
        if not rows:
            rows.append(((verbatim("—"), verbatim(""), verbatim(""), verbatim("no entry is long enough to trim")), None))
        fill(self, [("Entry", "entry"), ("Bytes", "bytes"), ("Saves", "saves"), ("Suggestion", "what")], rows)

    def suggestion(self) -> TrimSuggestion | None:
        return self.item_at_cursor(self.suggestions)

    def editor_target(self) -> EditorTarget | None:
        t = self.suggestion()
        if t is None or self.index is None or not self.index.has_entry(t.entry_id):
            return None
        entry = self.index.entry(t.entry_id)
        return EditorTarget(entry.line, first_link(entry))

    def detail(self) -> Content:
        t = self.suggestion()
        return verbatim("after: " + t.new_line) if t else super().detail()
