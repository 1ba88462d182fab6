"""A change the curator was saving, interrupted half-way: the index screen says so on open and after
reload (a warning in view, not only a toast), refuses new saves with CHANGE_INTERRUPTED, and offers
the ways out: undo change rolls it back, redo change finishes it, settle-as-is keeps the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator import fsio
from curator.app import CuratorApp
from curator.change import Change
from curator.errors import CuratorError
from curator.store import SeatStore, interrupted_change
from curator.widgets.index_editor import IndexEditor
from curator.widgets.panel_table import PanelTable
from tests.support.app import settle, write_seat

SIZE = (120, 36)
ADDED = b"- a lesson the interrupted change was adding\n"


def interrupt_a_change(memory: Path, monkeypatch) -> tuple[bytes, bytes]:
    """Apply a two-file change through the store whose second rename fails and whose putting back
    fails too: the journal keeps it in transition, one file written, one not. (before, after) of
    MEMORY.md."""
    store = SeatStore.open(memory)
    before = store.read("MEMORY.md")
    store.read("perf.md")
    real, calls = fsio.swap, {"n": 0}

    def swap_once(tmp, path):
        calls["n"] += 1
        if calls["n"] > 1:
            raise OSError(28, "No space left on device")
        return real(tmp, path)

    monkeypatch.setattr(fsio, "swap", swap_once)
    with pytest.raises(CuratorError):
        store.apply(Change("add a lesson", {"MEMORY.md": before + ADDED, "perf.md": b"# Perf notes\n\nmore detail\n"}))
    monkeypatch.setattr(fsio, "swap", real)
    assert interrupted_change(memory) is not None
    return before, before + ADDED


def banner(app) -> str:
    widget = app.screen.query_one("#seat-warning")
    return str(widget.render()) if widget.display else ""


def notes(app) -> str:
    return "\n".join(str(n.message) for n in app.notices)


@pytest.mark.parametrize("focus", ["editor", "panel"])
@pytest.mark.parametrize("way_out", ["f8", "f9", "f7"])
async def test_interrupted_change_is_shown_and_each_way_out_resolves_it(tmp_path, monkeypatch, focus, way_out):
    memory = write_seat(tmp_path / "memory")
    before, after = interrupt_a_change(memory, monkeypatch)
    on_disk = (memory / "MEMORY.md").read_bytes()
    app = CuratorApp(memory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert "interrupted save" in banner(app) and "add a lesson" in banner(app)
        assert "F8" in banner(app).upper() and "f7" in banner(app)
        if focus == "panel":
            await pilot.press("f2")
            assert isinstance(app.focused, PanelTable)
        else:
            assert isinstance(app.focused, IndexEditor)
        text = app.screen.editor.text
        await pilot.press(way_out)
        await settle(app, pilot)
        assert interrupted_change(memory) is None
        assert banner(app) == ""
        expected = {"f8": before, "f9": after, "f7": on_disk}[way_out]
        assert (memory / "MEMORY.md").read_bytes() == expected
        assert app.screen.editor_bytes() == expected  # the editor shows the files as they now stand
        if way_out == "f7":
            assert app.screen.editor.text == text  # nothing written, nothing typed


async def test_a_save_while_interrupted_says_change_interrupted_and_writes_nothing(tmp_path, monkeypatch):
    memory = write_seat(tmp_path / "memory")
    interrupt_a_change(memory, monkeypatch)
    on_disk = {p.name: p.read_bytes() for p in memory.iterdir()}
    app = CuratorApp(memory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("q", "ctrl+s")
        await settle(app, pilot)
        assert "CHANGE_INTERRUPTED" in notes(app)
        assert {p.name: p.read_bytes() for p in memory.iterdir()} == on_disk
        assert app.screen.dirty and app.screen.editor.text.startswith("q")  # the edit is kept
        assert "interrupted save" in banner(app)


async def test_the_warning_appears_after_a_reload(tmp_path, monkeypatch):
    memory = write_seat(tmp_path / "memory")
    app = CuratorApp(memory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert banner(app) == ""
        interrupt_a_change(memory, monkeypatch)
        await pilot.press("f2", "ctrl+r")
        await settle(app, pilot)
        assert "interrupted save" in banner(app)
