"""The Archive panel: a search box over ARCHIVE.md (fuzzy, from the archive lever) and its entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input

from curator.constants import ARCHIVE_NAME
from curator.errors import CuratorError
from curator.widgets.keymap import bindings
from curator.widgets.panel_table import PanelTable
from curator.widgets.tables import fill
from curator.widgets.text_input import TextInput
from curator.widgets.verbatim import verbatim


class ArchiveSearch(TextInput):
    """Text goes in here: its only command is esc (back to the list)."""

    BINDINGS = bindings("archive_search")


class ArchiveTable(PanelTable):
    BINDINGS = bindings("archive")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hits: list[tuple[str, str, str]] = []  # (entry id, section, text)
        self.searching = False  # the hits are a search's (an empty list: no match, not an empty archive)

    def hit(self) -> tuple[str, str, str] | None:
        return self.item_at_cursor(self.hits)

    def detail(self) -> Content:
        hit = self.hit()
        return verbatim(hit[2]) if hit else super().detail()


class ArchivePanel(Vertical):
    DEFAULT_CSS = """
    ArchivePanel { height: 1fr; }
    ArchivePanel ArchiveSearch { height: 3; }
    """

    def __init__(self, memory_dir: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.memory_dir = memory_dir
        self.problem = ""  # why the archive could not be read, if it could not

    def compose(self) -> ComposeResult:
        yield ArchiveSearch(placeholder="search the archive… (esc: back to the list)", id="archive-search")
        yield ArchiveTable(id="archive-table")

    @property
    def table(self) -> ArchiveTable:
        return self.query_one(ArchiveTable)

    @on(Input.Changed, "#archive-search")
    def query_changed(self, event: Input.Changed) -> None:
        self.show(event.value)

    @on(Input.Submitted, "#archive-search")
    def query_submitted(self) -> None:
        self.table.focus()

    def refresh_hits(self) -> None:
        self.show(self.query_one(ArchiveSearch).value)

    def show(self, query: str = "") -> None:
        """Search hits, or every archived entry when the query is empty."""
        from curator.index_model import parse_index
        from curator.levers.archive import search_archive
        from curator.levers.text import read_optional

        self.problem = ""
        try:
            if query.strip():
                hits = [(h.entry_id, h.section, h.text) for h in search_archive(self.memory_dir, query)]
            else:
                raw = read_optional(self.memory_dir, ARCHIVE_NAME)
                hits = [(e.id, e.section, e.text) for e in parse_index(raw).entries] if raw is not None else []
        except CuratorError as err:
            self.problem = f"archive: {err}"
            hits = []
        table = self.table
        table.hits, table.searching = hits, bool(query.strip())
        rows = [((verbatim(section or "(top)"), verbatim(f"{len(text.encode()):,} B"),
                  verbatim(text.split("\n", 1)[0])), None) for _id, section, text in hits]
        if not rows:
            why = self.problem or ("no match" if query.strip() else "ARCHIVE.md is empty or not created yet")
            rows.append(((verbatim("—"), verbatim(""), verbatim(why)), None))
        fill(table, [("Section", "section"), ("Bytes", "bytes"), ("Archived entry", "text")], rows, max_width=100,
             widths={"section": 14})
