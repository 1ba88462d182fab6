"""The help screen (``?`` / F1): every key of the screen it was opened from, and the app's."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup, VerticalGroup
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

# Keys owned by the editor widget itself (TextArea), listed so the help is complete.
EDITOR_KEYS = [
    ("ctrl+z", "Undo the last edit in the editor"),
    ("ctrl+y", "Redo in the editor"),
    ("ctrl+a / ctrl+e", "Start / end of line"),
    ("tab / shift+tab", "Move focus between editor and panels (when not editing)"),
]


def described_bindings(*nodes: DOMNode) -> list[tuple[str, str]]:
    """(keys, description) for every binding with a description, first node first, no repeats."""
    rows, seen = [], set()
    for node in nodes:
        by_action: dict[str, list[Binding]] = {}
        for bindings in node._merged_bindings.key_to_bindings.values():
            for binding in bindings:
                if binding.description:
                    by_action.setdefault(binding.action + binding.description, []).append(binding)
        for group in by_action.values():
            keys = " / ".join(dict.fromkeys(b.key_display or b.key for b in group))
            if group[0].description not in seen:
                seen.add(group[0].description)
                rows.append((keys, group[0].description))
    return rows


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close help")]

    def __init__(self, screen_keys: list[tuple[str, str]], title: str, editor: bool = False):
        super().__init__()
        self.screen_keys = screen_keys
        self.title_text = title
        self.editor = editor

    def compose(self) -> ComposeResult:
        with VerticalGroup(classes="dialog"):
            yield Static(verbatim(f"Keys — {self.title_text}"), classes="dialog-title")
            yield DataTable(cursor_type="row", zebra_stripes=True, id="help-keys")
            yield Static(
                verbatim("ctrl+p opens the command palette: every action above, searchable. Mouse works too."),
                classes="hint",
            )
            with HorizontalGroup(classes="buttons"):
                yield Button("Close (esc)", id="close", variant="primary")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        rows = [((verbatim(keys, "bold"), verbatim(description)), None) for keys, description in self.screen_keys]
        if self.editor:
            rows += [((verbatim(keys, "bold"), verbatim(description + " (editor)")), None)
                     for keys, description in EDITOR_KEYS]
        fill(table, [("Key", "key"), ("Action", "action")], rows, max_width=80)
        table.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
