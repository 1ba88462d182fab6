"""The Merge panel: the merge lever's candidates (entries that say the same thing), best first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.content import Content

from curator.widgets.keymap import bindings
from curator.widgets.panel_table import EditorTarget, PanelTable, first_link
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from curator.index_model import Entry, HotIndex
    from curator.levers.merge_candidates import Candidate


class MergeTable(PanelTable):
    BINDINGS = bindings("merge")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.candidates: Sequence[Candidate] = []
        self.index: HotIndex | None = None

    def show(self, candidates: Sequence[Candidate], index: HotIndex) -> None:
        self.candidates, self.index = candidates, index
        rows = []
        for c in candidates:
            lines = ", ".join(str(index.entry(i).line) for i in c.entry_ids if index.has_entry(i))
            # The score and the reason lead the last column: at 80 columns "Why" must still say why.
            rows.append(((verbatim(lines), verbatim(c.section or "(across sections)"),
                          verbatim(f"{c.bytes_saved:,} B"), verbatim(f"{c.score:.0f}% alike · {c.reason}")), None))
        if not rows:
            rows.append(((verbatim("—"), verbatim(""), verbatim(""), verbatim("no entries say the same thing")), None))
        fill(self, [("Lines", "entries"), ("Section", "section"), ("Saves", "saves"), ("Why", "why")], rows,
             widths={"section": min(16, max([len("Section")] + [len(c.section or "(across sections)")
                                                                for c in candidates]))}, rest="why")
        self._filled_width = self.size.width

    _filled_width = 0  # the width the Why column was sized for

    def on_resize(self) -> None:
        if self.index is not None and self.size.width != self._filled_width:
            self.show(self.candidates, self.index)

    def candidate(self) -> Candidate | None:
        return self.item_at_cursor(self.candidates)

    def entries(self) -> list[Entry]:
        c = self.candidate()
        if c is None or self.index is None:
            return []
        return [self.index.entry(i) for i in c.entry_ids if self.index.has_entry(i)]

    def editor_target(self) -> EditorTarget | None:
        entries = self.entries()
        return EditorTarget(entries[0].line, first_link(entries[0])) if entries else None

    def detail(self) -> Content:
        entries, candidate = self.entries(), self.candidate()
        if not entries or candidate is None:
            return super().detail()
        why = verbatim(f"{candidate.score:.0f}% alike · {candidate.reason}", "dim")  # whole, however narrow
        return Content("\n").join([why, *(verbatim(e.text) for e in entries)])
