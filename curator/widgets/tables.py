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
    rest: str | None = None,
    min_rest: int = 30,
) -> None:
    """Replace columns and rows. ``columns``: (label, key); ``rows``: (cells, row key); ``widths`` fixes
    some. ``rest``: the column (the last, the text) that takes the table's remaining width, at least
    ``min_rest``, so the other columns never push it out of view (the detail line shows it whole)."""
    cursor_row = table.cursor_row
    table.clear(columns=True)
    sized = {}
    for index, (label, key) in enumerate(columns):
        width = (widths or {}).get(key)
        if width is None:
            width = max([len(label)] + [row[0][index].cell_length for row in rows if index < len(row[0])])
            width = min(width, max_width)
        sized[key] = width
    if rest is not None and table.size.width:
        others = sum(w for key, w in sized.items() if key != rest) + 2 * table.cell_padding * len(sized)
        sized[rest] = max(min_rest, table.size.width - table.styles.scrollbar_size_vertical - others)
    for label, key in columns:
        table.add_column(label, key=key, width=sized[key])
    for cells, row_key in rows:
        table.add_row(*cells, key=row_key)
    if rows:
        table.move_cursor(row=min(cursor_row, len(rows) - 1))
