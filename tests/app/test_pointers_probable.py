"""Pilot: a respelled ``[[wikilink]]`` shows in the Pointers panel as a question with its evidence,
and Enter on it leads the editor to the link (panels focused), while typing in the editor stays text."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, TextArea

from curator.app import CuratorApp
from tests.support.app import settle
from tests.support.files import write

INDEX = "# Index\n## Rules\n- [TLS](feedback_no_tls.md) — never skip checks\n- Related: [[feedback-no-tls]] again\n"


def seat(tmp_path: Path) -> Path:
    return write(tmp_path / "memory", {
        "MEMORY.md": INDEX,
        "feedback_no_tls.md": "---\nname: no-tls\ndescription: never skip TLS checks\ntype: feedback\n---\n# x\n",
    })


def rows(table: DataTable) -> list[str]:
    return [" | ".join(str(getattr(c, "plain", c)) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def test_a_respelled_wikilink_is_a_question_row_that_leads_to_its_line(tmp_path: Path) -> None:
    app = CuratorApp(seat(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        table = screen.query_one("#pointers-table", DataTable)
        (row,) = rows(table)
        assert row.startswith("PROBABLE? | MEMORY.md:4 | [[feedback-no-tls]] | probably means feedback_no_tls.md")
        assert row.endswith("write [[no-tls]]?")
        screen.panels.active = "pointers"
        table.focus()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        editor = screen.query_one("#editor", TextArea)
        assert app.focused is editor and editor.cursor_location[0] == 3  # line 4, 0-based
        await pilot.press("x")  # the editor focused: a key is text, as everywhere
        await pilot.pause()
        assert editor.text.count("x") == INDEX.count("x") + 1


async def test_the_entry_with_the_respelled_wikilink_says_probable_in_the_entries_panel(tmp_path: Path) -> None:
    """Not "ok": the entry holds a question for the bearer, as its Pointers row does."""
    app = CuratorApp(seat(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#entries-table", DataTable)
        shown = rows(table)
        assert any(" probable " in row and "[[feedback-no-tls]]" in row for row in shown), shown
        assert any(" ok " in row and "[TLS]" in row for row in shown), shown
