"""Archiving the last entries of a section in the app: the preview says the section is left empty and
offers removing its heading (kept by default), as part of the one undoable change."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Checkbox, Static

from curator.app import CuratorApp
from curator.screens.archive_preview import ArchiveDialog
from curator.screens.dialogs import ConfirmDialog
from curator.widgets.index_editor import IndexEditor
from tests.support.app import settle, write_seat, footer_keys, put_cursor_on
SIZE = (120, 36)
HEADING = "## Craft hooks"


def craft_section_seat(tmp_path):
    """The fixture seat whose last section, Craft hooks, holds one entry (the long parser note)."""
    return write_seat(tmp_path / "memory", craft=0)


async def open_archive_preview(app, pilot, needle: str):
    """Settle, put the Entries cursor on ``needle`` (the panel focused), press a: the dialog."""
    await settle(app, pilot)
    put_cursor_on(app, needle, focus=True)
    await pilot.press("a")
    await settle(app, pilot)
    return app.screen


def body_text(dialog) -> str:
    return str(dialog.query_one("#confirm-body", Static).render())


async def test_panel_focused_archive_of_a_sections_last_entry_says_so_and_keeps_the_heading(tmp_path):
    seat = craft_section_seat(tmp_path)
    async with CuratorApp(seat).run_test(size=SIZE) as pilot:
        app = pilot.app
        dialog = await open_archive_preview(app, pilot, "parser's hot path")
        assert isinstance(dialog, ArchiveDialog)
        assert "'Craft hooks' with no entry" in str(dialog.query_one("#emptied-note", Static).render())
        choice = dialog.query_one("#drop-headings", Checkbox)
        assert not choice.value and "no — it stays" in str(choice.label)  # kept unless asked, in words
        assert f"-{HEADING}" not in body_text(dialog)
        assert "h" in {k.key for k in await footer_keys(app, pilot)}  # the footer names the key
        await pilot.press("y")
        await settle(app, pilot)
        index = (seat / "MEMORY.md").read_text(encoding="utf-8")
        assert "parser's hot path" not in index and HEADING in index
        assert "left empty; its heading stays" in str(app.screen.query_one("#status").render())


async def test_panel_focused_h_removes_the_emptied_heading_in_the_same_undoable_change(tmp_path):
    seat = craft_section_seat(tmp_path)
    before = (seat / "MEMORY.md").read_bytes()
    async with CuratorApp(seat).run_test(size=SIZE) as pilot:
        app = pilot.app
        dialog = await open_archive_preview(app, pilot, "parser's hot path")
        await pilot.press("h")
        await settle(app, pilot)
        choice = dialog.query_one("#drop-headings", Checkbox)
        assert choice.value and "yes" in str(choice.label)
        assert f"-{HEADING}" in body_text(dialog)  # the diff shown is the plan applied
        await pilot.press("y")
        await settle(app, pilot)
        index = (seat / "MEMORY.md").read_text(encoding="utf-8")
        assert HEADING not in index and "parser's hot path" not in index
        assert HEADING not in app.screen.editor.text
        assert "heading dropped" in (seat / "ARCHIVE.md").read_text(encoding="utf-8")
        await pilot.press("f8")  # one undo: the entry and its heading come back together
        await settle(app, pilot)
        assert (seat / "MEMORY.md").read_bytes() == before
        assert not (seat / "ARCHIVE.md").exists()
        assert not app.screen.store.can_undo


async def test_editor_focused_the_palette_archive_offers_the_heading_and_types_nothing(tmp_path):
    seat = craft_section_seat(tmp_path)
    async with CuratorApp(seat).run_test(size=SIZE) as pilot:
        app = pilot.app
        await settle(app, pilot)
        put_cursor_on(app, "parser's hot path", focus=False)
        assert isinstance(app.focused, IndexEditor)
        await pilot.press("ctrl+p")
        await settle(app, pilot)  # the palette (Textual's) takes keys once its search box has focus
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"archive the selection")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ArchiveDialog), f"{dialog} is not the archive preview"
        await pilot.press("h", "y")
        await settle(app, pilot)
        index = (seat / "MEMORY.md").read_text(encoding="utf-8")
        assert HEADING not in index
        assert isinstance(app.focused, IndexEditor)
        assert app.screen.editor.text == index  # no h or y typed into the memory


async def test_an_archive_that_empties_nothing_keeps_the_plain_preview(tmp_path):
    seat = write_seat(tmp_path / "memory")
    async with CuratorApp(seat).run_test(size=SIZE) as pilot:
        dialog = await open_archive_preview(pilot.app, pilot, "Never force-push")
        assert isinstance(dialog, ConfirmDialog) and not isinstance(dialog, ArchiveDialog)
        assert not dialog.query("#drop-headings")
