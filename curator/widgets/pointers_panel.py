"""The Pointers panel: dangling links, respelled wikilinks (a question), orphaned detail files, links escaping the memory dir."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from curator.constants import INDEX_NAME
from curator.widgets.panel_table import EditorTarget, PanelTable
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

if TYPE_CHECKING:
    from curator.pointers import PointerReport


class PointersTable(PanelTable):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.places: list[EditorTarget | None] = []  # per row: where in MEMORY.md the problem is

    def show(self, report: PointerReport) -> None:
        rows, places = [], []
        for d in report.dangling:
            hint = f"{d.reason}; did you mean {d.suggestion}?" if d.suggestion else d.reason
            rows.append((verbatim("DANGLING", "bold $error"), verbatim(f"{d.file}:{d.line}"),
                         verbatim(d.target), verbatim(hint)))
            places.append(EditorTarget(d.line, d.target) if d.file == INDEX_NAME else None)
        for p in report.probable:  # a question, not a problem: the bearer decides whether to respell
            rows.append((verbatim("PROBABLE?", "bold $warning"), verbatim(f"{p.file}:{p.line}"), verbatim(p.target),
                         verbatim(f"probably means {p.meant} ({p.why}): write {p.spelling}?")))
            places.append(EditorTarget(p.line, p.target) if p.file == INDEX_NAME else None)
        for name in report.orphans:
            rows.append((verbatim("ORPHAN", "bold $warning"), verbatim(name), verbatim("—"),
                         verbatim("nothing links here: a deleted memory unless re-linked")))
            places.append(None)
        for e in report.escapes:
            rows.append((verbatim("ESCAPE", "bold $error"), verbatim(f"{e.file}:{e.line}"),
                         verbatim(e.target), verbatim(e.reason)))
            places.append(EditorTarget(e.line, e.target) if e.file == INDEX_NAME else None)
        for u in report.unreadable:
            rows.append((verbatim("UNREADABLE", "bold $error"), verbatim(u.file), verbatim("—"), verbatim(u.message)))
            places.append(None)
        if not rows:
            rows.append((verbatim("OK", "$success"), verbatim("—"), verbatim("—"),
                         verbatim(f"every pointer resolves; {len(report.files)} files checked")))
            places.append(None)
        self.places = places
        fill(self, [("Problem", "problem"), ("Where", "where"), ("Target", "target"), ("Did you mean / why", "why")],
             [(cells, None) for cells in rows])

    def editor_target(self) -> EditorTarget | None:
        return self.item_at_cursor(self.places)
