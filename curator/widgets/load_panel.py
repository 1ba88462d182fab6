"""The Load panel: what each harness would load of MEMORY.md, where it cuts, and which entries it drops."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual.content import Content

from curator.widgets.panel_table import PanelTable
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from curator.load_sim import LoadResult


class LoadTable(PanelTable):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.notes: list[str] = []

    def show(self, loads: Mapping[str, LoadResult]) -> None:
        rows = []
        for name, load in loads.items():
            cut = "—" if load.cut_line is None else f"after line {load.cut_line}"
            lost = load.lost_entries
            drops = "nothing" if not lost else ", ".join(f"line {e.line}" for e in lost[:6]) + (
                f" … (+{len(lost) - 6})" if len(lost) > 6 else "")
            rows.append(((verbatim(name, "bold"), verbatim(f"{load.loaded_bytes:,} B"), verbatim(cut),
                          verbatim(drops, "$error" if lost else "")), name))
        # The detail line: the note, then what loads but not as written (one caution a line).
        self.notes = ["\n".join((load.note, *load.cautions)) for load in loads.values()]
        fill(self, [("Harness", "harness"), ("Loads", "loads"), ("Cut", "cut"), ("Drops", "drops")], rows)

    def detail(self) -> Content:
        note = self.item_at_cursor(self.notes)
        return verbatim(note) if note is not None else super().detail()
