"""The index editor: a TextArea that reports each edit synchronously.

``TextArea.Changed`` arrives as a message after the edit has been painted, so a meter updated from it
costs a second frame per keystroke. ``after_edit`` runs inside the edit itself, so the meter and the
text repaint together.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import TextArea


class IndexEditor(TextArea):
    def __init__(self, *args, after_edit: Callable[[], None] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.after_edit = after_edit

    def edit(self, edit):
        result = super().edit(edit)
        if self.after_edit is not None:
            self.after_edit()
        return result
