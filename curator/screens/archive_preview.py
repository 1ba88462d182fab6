"""The archive preview when archiving empties a section: it says which heading would be left with
nothing under it, and offers to remove that heading as part of the same change.

The default keeps the heading. A seat's sections are its skeleton (the template gives every seat
Weak-spots, Hard rules, Craft hooks, Lane anchors), and the next entry of the kind usually goes back
under the same heading; an empty heading costs a few bytes, a lost one costs the bearer the place.
So removal is an explicit choice (``h`` or the checkbox), the same default as the CLI's
``archive --drop-empty-section``. Either way it is one change: one undo brings back the entries
and the heading, and a restore re-creates a dropped heading where it stood.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Checkbox, Static

from curator.change import Change
from curator.errors import CuratorError
from curator.screens.dialogs import ConfirmDialog
from curator.widgets.keymap import bindings
from curator.widgets.verbatim import verbatim

# plan(drop_empty_sections) -> the archive change; describe(change) -> the preview body.
ArchivePlanner = Callable[[bool], Change]


def quoted(headings: Iterable[str]) -> str:
    return ", ".join(f"'{h}'" for h in headings)


class ArchiveDialog(ConfirmDialog):
    """Dismisses True to apply ``self.change`` (with or without the emptied headings, as shown)."""

    KEY_TARGETS = ("archive_dialog", "confirm")
    BINDINGS = bindings("archive_dialog")

    def __init__(self, title: str, plan: ArchivePlanner, describe: Callable[[Change], Content], first: Change):
        super().__init__(title, describe(first), "Apply")
        self.plan = plan
        self.describe = describe
        self.change = first
        self.headings = first.emptied_sections
        self.drop = False

    def compose_above_body(self) -> ComposeResult:
        many = len(self.headings) > 1
        yield Static(verbatim(f"This leaves section{'s' if many else ''} {quoted(self.headings)} with no entry.",
                              "bold $warning"), id="emptied-note")
        yield Checkbox(self.choice_label(False), value=False, id="drop-headings", compact=True)

    def choice_label(self, drop: bool) -> Content:
        """The choice in words (a ticked and an unticked box look alike in some terminals)."""
        what, it, stays = ("headings", "them", "they stay") if len(self.headings) > 1 else ("heading", "it", "it stays")
        return verbatim(f"Remove the {what} too (h): yes — undo or restore brings {it} back" if drop
                        else f"Remove the {what} too (h): no — {stays}")

    def action_toggle_drop(self) -> None:
        self.show_drop(not self.drop)

    @on(Checkbox.Changed, "#drop-headings")
    def drop_changed(self, event: Checkbox.Changed) -> None:
        if event.value != self.drop:  # a click on the box
            self.show_drop(event.value)

    def show_drop(self, drop: bool) -> None:
        """Plan with or without the emptied headings and show it at once, the box ticked to match: a
        y right behind h applies the plan h asked for (the box's own Changed message would come
        after the y)."""
        try:
            change = self.plan(drop)
        except CuratorError as err:  # the preview stays the plan it shows
            self.app.notify(str(err), title="Cannot re-plan", severity="error", markup=False)
        else:
            self.drop, self.change = drop, change
            self.query_one("#confirm-body", Static).update(self.describe(change))
        box = self.query_one("#drop-headings", Checkbox)
        with box.prevent(Checkbox.Changed):
            box.value = self.drop
        box.label = self.choice_label(self.drop)

    def outcome(self) -> str:
        """What became of the emptied headings, for the status line after applying."""
        if self.drop:
            return f" Removed the emptied heading{'s' if len(self.headings) > 1 else ''} {quoted(self.headings)}."
        stays = "their headings stay" if len(self.headings) > 1 else "its heading stays"
        return f" {quoted(self.headings)} left empty; {stays}."
