"""Filling a DataTable with Content cells, columns sized to fit.

DataTable measures a cell through Rich, and Textual ``Content`` does not report a width there, so
auto-width columns would stay as narrow as their labels. Widths are computed here instead (capped, so
one long line cannot push every other column off screen).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import DataTable


def fill(
    table: DataTable,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[tuple[Sequence[Content], str | None]],
    *,
    max_width: int = 60,
    widths: dict[str, int] | None = None,
) -> None:
    """Replace columns and rows. ``columns``: (label, key); ``rows``: (cells, row key); ``widths`` fixes some."""
    cursor_row = table.cursor_row
    table.clear(columns=True)
    for index, (label, key) in enumerate(columns):
        width = (widths or {}).get(key)
        if width is None:
            width = max([len(label)] + [row[0][index].cell_length for row in rows if index < len(row[0])])
            width = min(width, max_width)
        table.add_column(label, key=key, width=width)
    for cells, key in rows:
        table.add_row(*cells, key=key)
    if rows:
        table.move_cursor(row=min(cursor_row, len(rows) - 1))
