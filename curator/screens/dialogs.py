"""Small modal dialogs: confirm a lever, choose what to do about a file changed on disk or about unsaved
edits, read a diff, type a line number or a search. Each shows its own keys in its own footer (from
the key registry), and F1 lists them."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import HorizontalGroup, Vertical, VerticalGroup, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static
from textual.widgets.button import ButtonVariant

from curator.widgets.footer import KeysFooter
from curator.widgets.keymap import bindings
from curator.widgets.status_line import StatusLine
from curator.widgets.text_input import TextInput
from curator.widgets.verbatim import diff_content, verbatim


def answers_once_shown(dialog: ModalScreen) -> bool | None:
    """A dialog's keys work once it is mounted (on screen). A key typed ahead of it, in the same read
    as the key that opened it, is not an answer to a question nobody has seen yet: it never applies a
    preview or discards edits unseen (and a dialog dismissed before it mounted broke its on_mount)."""
    return True if dialog.is_mounted else None


class ConfirmDialog(ModalScreen[bool]):
    """Ask before an action that writes: returns True only on an explicit yes. The preview fills the
    terminal and scrolls with the keyboard (↑↓ j k, PgUp PgDn) while Apply/Cancel stay in view."""

    KEY_TARGETS: tuple[str, ...] = ("confirm",)
    BINDINGS = bindings("confirm")

    def __init__(self, title: str, body: Content | str, confirm: str = "Apply", *, danger: bool = False):
        super().__init__()
        self.title_text = title
        self.body = body if isinstance(body, Content) else verbatim(body)
        self.confirm = confirm
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog preview"):
            yield Static(verbatim(self.title_text), classes="dialog-title")
            yield from self.compose_above_body()
            with VerticalScroll(classes="dialog-body", id="confirm-scroll"):
                yield Static(self.body, id="confirm-body")
            yield StatusLine(id="status", folds=True, classes="dialog-status")  # notices: never over the body
            with HorizontalGroup(classes="buttons"):
                yield Static(verbatim("↑↓ PgUp PgDn scroll · F1 keys"), classes="scroll-hint")
                yield Button("Cancel (n)", id="no")
                yield Button(f"{self.confirm} (y)", id="yes", variant="error" if self.danger else "primary")
        yield KeysFooter()

    def compose_above_body(self) -> ComposeResult:
        """Widgets between the title and the body (none here; a subclass adds its own)."""
        return iter(())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return answers_once_shown(self)

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    def action_scroll_body(self, lines: int) -> None:
        self.query_one("#confirm-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_scroll_page(self, pages: int) -> None:
        scroll = self.query_one("#confirm-scroll", VerticalScroll)
        scroll.scroll_relative(y=pages * max(1, scroll.size.height - 1), animate=False)


class ChoiceDialog(ModalScreen[str | None]):
    """A question with a few named answers (buttons and keys); dismisses with the answer's id or None."""

    def __init__(self, title: str, message: str, choices: list[tuple[str, str, ButtonVariant]]) -> None:
        """``choices``: (id, button label, variant)."""
        super().__init__()
        self.title_text = title
        self.message = message
        self.choices = choices

    def compose(self) -> ComposeResult:
        with VerticalGroup(classes="dialog"):
            yield Static(verbatim(self.title_text), classes="dialog-title")
            yield Static(verbatim(self.message), classes="dialog-body")
            with HorizontalGroup(classes="buttons"):
                for choice_id, label, variant in self.choices:
                    yield Button(label, id=choice_id, variant=variant)
        yield KeysFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return answers_once_shown(self)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "cancel" else event.button.id)

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)


class ConflictDialog(ChoiceDialog):
    """The file changed on disk since it was loaded: reload / keep mine / show diff. Never silent."""

    KEY_TARGETS = ("conflict",)
    BINDINGS = bindings("conflict")

    def __init__(self, path: str, message: str = ""):
        super().__init__(
            f"{path} changed on disk",
            (message + "\n\n" if message else "")
            + "Nothing was written. Reload discards your unsaved edits in favour of the file on disk; "
            "Keep mine writes your text over it (the store journals it, so it can be undone).",
            [("cancel", "Cancel (esc)", "default"), ("diff", "Show diff (d)", "default"),
             ("reload", "Reload (r)", "default"), ("keep", "Keep mine (k)", "warning")])
        self.path = path


class UnsavedDialog(ChoiceDialog):
    """Leaving (quit, back to the fleet, another seat, reload) with unsaved edits: save / discard / cancel."""

    KEY_TARGETS = ("unsaved",)
    BINDINGS = bindings("unsaved")

    def __init__(self, path: str, leaving: str):
        super().__init__(
            f"Unsaved edits in {path}",
            f"You are about to {leaving}. Save writes your text first (undoable); Discard drops your edits; "
            "Cancel stays here with your text as it is.",
            [("cancel", "Cancel (esc)", "default"), ("discard", "Discard (d)", "error"),
             ("save", "Save (s)", "primary")])


class LinePrompt(ModalScreen[str | None]):
    """One line of input (a line number, a search); dismisses with the text, or None on esc."""

    KEY_TARGETS = ("line_prompt",)
    BINDINGS = bindings("line_prompt")

    def __init__(self, title: str, placeholder: str = "", value: str = ""):
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value

    def compose(self) -> ComposeResult:
        with VerticalGroup(classes="dialog prompt"):
            yield Static(verbatim(self.title_text), classes="dialog-title")
            yield TextInput(self.value, placeholder=self.placeholder, id="prompt-input")
        yield KeysFooter()

    @on(Input.Submitted, "#prompt-input")
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_submit(self) -> None:
        self.dismiss(self.query_one("#prompt-input", Input).value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextDialog(ModalScreen[None]):
    """Read-only view of literal content under a title; closes with esc, q or enter."""

    KEY_TARGETS = ("text_dialog",)
    BINDINGS = bindings("text_dialog")

    def __init__(self, title: str, body: Content, *, body_id: str | None = None, body_classes: str = ""):
        super().__init__()
        self.title_text = title
        self.body = body
        self.body_id = body_id
        self.body_classes = body_classes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog preview"):
            yield Static(verbatim(self.title_text), classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(self.body, id=self.body_id, classes=self.body_classes)
            with HorizontalGroup(classes="buttons"):
                yield Button("Close (esc)", id="close", variant="primary")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()  # arrows and PgUp/PgDn scroll it

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class DiffDialog(TextDialog):
    """Read-only view of a unified diff (or any literal text)."""

    def __init__(self, title: str, diff: str):
        super().__init__(title, diff_content(diff), body_classes="diff")
        self.diff = diff
