"""Small modal dialogs: confirm a lever, choose what to do about a file changed on disk, read a diff."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup, VerticalGroup, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from curator.widgets.verbatim import diff_content, verbatim


class ConfirmDialog(ModalScreen[bool]):
    """Ask before an action that writes: returns True only on an explicit yes."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, body: Content | str, confirm: str = "Apply", *, danger: bool = False):
        super().__init__()
        self.title_text = title
        self.body = body if isinstance(body, Content) else verbatim(body)
        self.confirm = confirm
        self.danger = danger

    def compose(self) -> ComposeResult:
        with VerticalGroup(classes="dialog"):
            yield Static(verbatim(self.title_text), classes="dialog-title")
            yield from self.compose_above_body()
            with VerticalScroll(classes="dialog-body"):
                yield Static(self.body, id="confirm-body")
            with HorizontalGroup(classes="buttons"):
                yield Button("Cancel (n)", id="no")
                yield Button(f"{self.confirm} (y)", id="yes", variant="error" if self.danger else "primary")

    def compose_above_body(self) -> ComposeResult:
        """Widgets between the title and the body (none here; a subclass adds its own)."""
        return iter(())

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class ConflictDialog(ModalScreen[str | None]):
    """The file changed on disk since it was loaded: reload / keep mine / show diff. Never silent."""

    BINDINGS = [
        Binding("r", "choose('reload')", "Reload from disk"),
        Binding("k", "choose('keep')", "Keep mine (overwrite)"),
        Binding("d", "choose('diff')", "Show diff"),
        Binding("escape", "choose(None)", "Cancel"),
    ]

    def __init__(self, path: str, message: str = ""):
        super().__init__()
        self.path = path
        self.message = message

    def compose(self) -> ComposeResult:
        with VerticalGroup(classes="dialog"):
            yield Static(verbatim(f"{self.path} changed on disk"), classes="dialog-title")
            yield Static(
                verbatim(
                    (self.message + "\n\n" if self.message else "")
                    + "Nothing was written. Reload discards your unsaved edits in favour of the file on disk; "
                    "Keep mine writes your text over it (the store journals it, so it can be undone)."
                ),
                classes="dialog-body",
            )
            with HorizontalGroup(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Show diff (d)", id="diff")
                yield Button("Reload (r)", id="reload")
                yield Button("Keep mine (k)", id="keep", variant="warning")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "cancel" else event.button.id)

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)


class TextDialog(ModalScreen[None]):
    """Read-only view of literal content under a title; closes with esc, q or enter."""

    BINDINGS = [Binding("escape,q,enter", "close", "Close")]

    def __init__(self, title: str, body: Content, *, body_id: str | None = None, body_classes: str = ""):
        super().__init__()
        self.title_text = title
        self.body = body
        self.body_id = body_id
        self.body_classes = body_classes

    def compose(self) -> ComposeResult:
        with VerticalGroup(classes="dialog"):
            yield Static(verbatim(self.title_text), classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(self.body, id=self.body_id, classes=self.body_classes)
            with HorizontalGroup(classes="buttons"):
                yield Button("Close (esc)", id="close", variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class DiffDialog(TextDialog):
    """Read-only view of a unified diff (or any literal text)."""

    def __init__(self, title: str, diff: str):
        super().__init__(title, diff_content(diff), body_classes="diff")
        self.diff = diff
