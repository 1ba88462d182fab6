"""The editor pane: MEMORY.md's text, the version last loaded from or saved to disk (so whether it is
dirty), find and go-to-line.

``TextArea.Changed`` arrives as a message after the edit has been painted, so a meter updated from it
costs a second frame per keystroke. ``after_edit`` runs inside the edit itself, so the meter and the
text repaint together.

One history: text from disk (a load, a lever, an undo of a change, a reload) replaces the document and
its undo history, so ctrl+z can never bring back text the store moved without the journal knowing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from textual import events

from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Document, Edit, EditResult

from curator.widgets.keymap import bindings
from curator.widgets.text_fields import EscThenKey


class IndexEditor(EscThenKey, TextArea):
    BINDINGS = bindings("editor")

    class DirtyChanged(Message):
        def __init__(self, dirty: bool) -> None:
            super().__init__()
            self.dirty = dirty

    def __init__(self, *args: Any, after_edit: Callable[[str], None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.after_edit = after_edit  # called with the new text inside every edit
        self._echoes = 0  # Changed messages still to come for edits already handled here
        self.saved_text = ""  # as last loaded from / saved to disk
        self._shown_dirty = False

    @property
    def dirty(self) -> bool:
        return self.text != self.saved_text

    def edit(self, edit: Edit) -> EditResult:
        result = super().edit(edit)
        self._echoes += 1
        text = self.text  # joined once per keystroke: the document keeps lines
        self.check_dirty(text)
        if self.after_edit is not None:
            self.after_edit(text)
        return result

    def is_echo(self) -> bool:
        """For a ``Changed`` message: True when it reports an edit ``edit`` already handled (a
        keystroke), False for a change made without ``edit`` (load_text, the editor's undo/redo)."""
        if self._echoes:
            self._echoes -= 1
            return True
        return False

    def check_dirty(self, text: str | None = None) -> None:
        """Post ``DirtyChanged`` when the text starts or stops matching the disk version."""
        dirty = (self.text if text is None else text) != self.saved_text
        if dirty != self._shown_dirty:
            self._shown_dirty = dirty
            self.post_message(self.DirtyChanged(dirty))

    def load_from_disk(self, text: str, *, keep_place: bool = False) -> None:
        """Show ``text`` as the disk version, with a fresh undo history. ``keep_place``: put the cursor
        on the first line that changed (a lever's place), else at the top."""
        old = self.text
        self.saved_text = text
        self.load_text(text)
        if keep_place:
            self.move_cursor((first_changed_row(old, text), 0), center=True)
        self.check_dirty()

    def mark_saved(self) -> None:
        self.saved_text = self.text
        self.check_dirty()

    def go_to(self, line: int, select: str = "") -> None:
        """Cursor to 1-based ``line``, ``select`` (e.g. a link target) selected if it is on that line,
        else at the start of the line with nothing selected (the next key types, it replaces nothing);
        centred in view."""
        lines = self.text.split("\n")
        row = max(0, min(line - 1, len(lines) - 1))
        text = lines[row] if lines else ""
        column = text.find(select) if select else -1
        if column >= 0:
            self.select_range((row, column), (row, column + len(select)))
        else:
            self.select_range((row, 0), (row, 0))
        self.scroll_cursor_visible(center=True)

    def _on_blur(self, _event: events.Blur) -> None:
        """A selection (the link Enter on a panel row selects) does not outlive focus: typing after
        coming back, or a key pressed elsewhere meanwhile, never replaces it."""
        if not self.selection.is_empty:
            self.select_range(self.selection.end, self.selection.end)  # find next goes on from here

    def select_range(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        from textual.widgets.text_area import Selection

        self.selection = Selection(start, end)

    def find(self, needle: str, *, after_cursor: bool = True) -> bool:
        """Select the next occurrence of ``needle`` (case-insensitive) after the cursor, wrapping round."""
        if not needle:
            return False
        text = self.text
        document = cast(Document, self.document)  # a TextArea's is a Document (syntax-aware or not)
        start = document.get_index_from_location(self.selection.end) if after_cursor else 0
        lowered, wanted = text.lower(), needle.lower()
        at = lowered.find(wanted, start)
        if at < 0:
            at = lowered.find(wanted)
        if at < 0:
            return False
        begin = document.get_location_from_index(at)
        finish = document.get_location_from_index(at + len(needle))
        self.select_range(begin, finish)
        self.scroll_cursor_visible(center=True)
        return True


def first_changed_row(old: str, new: str) -> int:
    """The 0-based row of the first line that differs between ``old`` and ``new`` (clamped to new)."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    for row, (a, b) in enumerate(zip(old_lines, new_lines)):
        if a != b:
            return row
    return min(len(old_lines), len(new_lines)) - 1 if new_lines else 0
