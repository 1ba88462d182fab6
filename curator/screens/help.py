"""The help screen (F1, or ? where no text is typed): every key of the screen or dialog it was opened
from, read from the key registry (so it says what the footer and the palette say), and the app's."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup, Vertical
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from curator.keys import TARGETS, display_keys, effective_keys, for_target, keymap_path
from curator.widgets.footer import KeysFooter
from curator.widgets.keymap import bindings
from curator.widgets.tables import fill
from curator.widgets.verbatim import verbatim

# Keys owned by the editor widget itself (TextArea), listed so the help is complete.
EDITOR_KEYS = [
    ("ctrl+z", "Undo the last edit (history starts again after a save, lever or reload)"),
    ("ctrl+y", "Redo in the editor"),
    ("ctrl+a / ctrl+e", "Start / end of line"),
    ("ctrl+w / ctrl+u / ctrl+k", "Delete word left / to line start / to line end"),
    ("tab", "Move focus to the panels"),
]


def registry_keys(targets: tuple[str, ...], overrides: dict[str, str]) -> list[tuple[str, str, str]]:
    """(keys, description, where) for every registered action of ``targets`` and the app's."""
    rows = []
    for target in (*targets, "app"):
        for action in for_target(target):
            rows.append((display_keys(effective_keys(action, overrides)), action.description,
                         TARGETS.get(target, target)))
    return rows


def described_bindings(*nodes: DOMNode) -> list[tuple[str, str]]:
    """(keys, description) for every binding with a description, first node first, no repeats: for
    screens whose keys are not (yet) in the registry."""
    rows, seen = [], set()
    for node in nodes:
        by_action: dict[str, list[Binding]] = {}
        for bindings_ in node._merged_bindings.key_to_bindings.values():
            for binding in bindings_:
                if binding.description:
                    by_action.setdefault(binding.action + binding.description, []).append(binding)
        for group in by_action.values():
            keys = " / ".join(dict.fromkeys(b.key_display or b.key for b in group))
            if group[0].description not in seen:
                seen.add(group[0].description)
                rows.append((keys, group[0].description))
    return rows


def keys_for(screen, app) -> list[tuple[str, str, str]]:
    targets = getattr(screen, "KEY_TARGETS", None)
    if targets is None:
        return [(keys, description, "") for keys, description in described_bindings(screen, app)]
    rows = registry_keys(tuple(targets), getattr(app, "key_overrides", {}))
    if getattr(screen, "HAS_EDITOR", False):
        rows += [(keys, description, "editor") for keys, description in EDITOR_KEYS]
    return rows


class HelpScreen(ModalScreen[None]):
    KEY_TARGETS = ("help",)
    BINDINGS = bindings("help")

    def __init__(self, keys: list[tuple[str, str, str]], title: str):
        super().__init__()
        self.keys = keys
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(verbatim(f"Keys — {self.title_text}"), classes="dialog-title")
            yield DataTable(cursor_type="row", zebra_stripes=True, id="help-keys")
            yield Static(verbatim(f"ctrl+p: every action, searchable. Rebind any key by its id in {keymap_path()}"
                                  " (see docs/keys.md). Mouse works too."), classes="hint")
            with HorizontalGroup(classes="buttons"):
                yield Button("Close (esc)", id="close", variant="primary")
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        rows = [((verbatim(keys, "bold"), verbatim(description), verbatim(where, "dim")), None)
                for keys, description, where in self.keys]
        fill(table, [("Key", "key"), ("Action", "action"), ("Where", "where")], rows, max_width=70)
        table.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
